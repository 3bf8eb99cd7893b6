/* The canonical dump of a resolved config (docs/ARCHITECTURE.md section 5):
 * harness_config_dump writes every key of the table in config_internal.h in
 * the table's order, defaults included, in YAML that reads back to the same
 * config, so that two configs that mean the same thing give the same bytes;
 * harness_config_hash8 hashes those bytes to name the experiment folder.
 * Also the shortest round-trip formatting of doubles, which the dump needs
 * and config_bind.c borrows for its messages. */
#include "config/config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config_internal.h"
#include "config/config_tree.h"
#include "util/sha256.h"

/* The shortest text that strtod reads back as exactly v: "0.01", "1e-6",
 * "30", "2500", "1e20". With as few significant digits as round-trip, the
 * fixed and the exponent form are both tried and the shorter one wins. */
void harness_cfg_format_double(double v, char *buf, size_t size)
{
    char sci[40], fixed[64];
    int prec;

    if (v == 0)
        v = 0; /* -0 and 0 mean the same setting */
    for (prec = 1; prec <= 17; prec++) {
        snprintf(sci, sizeof sci, "%.*e", prec - 1, v);
        if (strtod(sci, NULL) == v)
            break;
    }
    /* printf writes exponents as e-06 and e+20; e-6 and e20 read better. */
    char *e = strchr(sci, 'e');
    int exp10 = atoi(e + 1);
    char *digits = e + 1 + (e[1] == '-' || e[1] == '+');
    while (digits[0] == '0' && digits[1])
        digits++;
    memmove(e + 1 + (e[1] == '-'), digits, strlen(digits) + 1);

    if (exp10 >= -20 && exp10 <= 20) {
        int decimals = prec - 1 - exp10;
        snprintf(fixed, sizeof fixed, "%.*f", decimals > 0 ? decimals : 0, v);
        if (strlen(fixed) <= strlen(sci) && strtod(fixed, NULL) == v) {
            snprintf(buf, size, "%s", fixed);
            return;
        }
    }
    snprintf(buf, size, "%s", sci);
}

/* ---- the canonical dump -------------------------------------------------- */

static int safe_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '.' || c == '/' || c == '-' || c == '+';
}

/* Written bare, `s` must read back as the same string, in block and flow
 * context alike: safe characters only, and nothing a reader would take for
 * a number, a boolean or null. */
static int plain_safe(const char *s)
{
    int64_t i;
    double d;
    int b;
    if (!*s || *s == '-' || harness_parse_int(s, &i) != -1 || harness_parse_float(s, &d) != -1 ||
        harness_parse_bool(s, &b) == 0 || !strcmp(s, "null") || !strcmp(s, "Null") || !strcmp(s, "NULL"))
        return 0;
    for (; *s; s++)
        if (!safe_char(*s))
            return 0;
    return 1;
}

/* Decode one UTF-8 sequence (the tree holds valid UTF-8: libyaml checks). */
static unsigned long utf8_next(const unsigned char **p)
{
    const unsigned char *s = *p;
    int extra = s[0] >= 0xF0 ? 3 : s[0] >= 0xE0 ? 2 : s[0] >= 0xC0 ? 1 : 0;
    unsigned long c = extra ? s[0] & (0x3Fu >> extra) : s[0];
    for (int i = 1; i <= extra && s[i]; i++)
        c = (c << 6) | (s[i] & 0x3Fu);
    *p = s + 1;
    while (extra-- > 0 && **p)
        (*p)++;
    return c;
}

/* Characters that can stand for themselves inside double quotes: YAML's
 * printable set (libyaml refuses the rest on reading) minus the line breaks
 * NEL, LS and PS (folded into spaces when read) and the byte order mark. */
static int yaml_printable(unsigned long c)
{
    if (c == 0x85 || c == 0x2028 || c == 0x2029 || c == 0xFEFF)
        return 0;
    return (c >= 0x20 && c <= 0x7E) || (c >= 0xA0 && c <= 0xD7FF) ||
           (c >= 0xE000 && c <= 0xFFFD) || (c >= 0x10000 && c <= 0x10FFFF);
}

static void emit_quoted(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        const unsigned char *start = p;
        unsigned long c = utf8_next(&p);
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", (int)c);
        else if (c == '\n')
            fputs("\\n", f);
        else if (c == '\t')
            fputs("\\t", f);
        else if (!yaml_printable(c))
            fprintf(f, c > 0xFFFF ? "\\U%08lX" : "\\u%04lX", c);
        else
            fwrite(start, 1, (size_t)(p - start), f);
    }
    fputc('"', f);
}

static void emit_string(FILE *f, const char *s)
{
    if (plain_safe(s))
        fputs(s, f);
    else
        emit_quoted(f, s);
}

static void emit_double(FILE *f, double v)
{
    char buf[64];
    harness_cfg_format_double(v, buf, sizeof buf);
    /* Always with a '.' or an exponent, so it reads back as a float. */
    fprintf(f, "%s%s", buf, strpbrk(buf, ".e") ? "" : ".0");
}

/* component.config before binding: no schema, so values stay as written
 * (quoted stays quoted), keys sorted, nested values in flow style. */
static void emit_unbound(FILE *f, const harness_node *n)
{
    int64_t i;
    double d;
    int b;
    if (n->kind == HARNESS_NODE_SCALAR) {
        if (n->quoted)
            emit_quoted(f, n->text);
        else if (harness_node_is_null(n))
            fputs("null", f);
        else if (!harness_parse_int(n->text, &i) || !harness_parse_float(n->text, &d) ||
                 !harness_parse_bool(n->text, &b))
            fputs(n->text, f);
        else
            emit_string(f, n->text);
    } else if (n->kind == HARNESS_NODE_LIST) {
        fputc('[', f);
        for (size_t k = 0; k < n->n; k++) {
            fputs(k ? ", " : "", f);
            emit_unbound(f, n->items[k]);
        }
        fputc(']', f);
    } else {
        /* Keys in sorted order without allocating: each round takes the
         * smallest key after the previous one (keys in a map are unique). */
        const char *prev = NULL;
        fputc('{', f);
        for (size_t k = 0; k < n->n; k++) {
            const harness_node_entry *next = NULL;
            for (size_t j = 0; j < n->n; j++) {
                const harness_node_entry *c = &n->entries[j];
                if ((!prev || strcmp(c->key, prev) > 0) && (!next || strcmp(c->key, next->key) < 0))
                    next = c;
            }
            fputs(k ? ", " : "", f);
            emit_string(f, next->key);
            fputs(": ", f);
            emit_unbound(f, next->value);
            prev = next->key;
        }
        fputc('}', f);
    }
}

static void emit_param(FILE *f, const harness_param_value *v)
{
    switch (v->spec->type) {
    case HARNESS_PARAM_INT:
        fprintf(f, "%" PRId64, v->i);
        break;
    case HARNESS_PARAM_FLOAT:
        emit_double(f, v->f);
        break;
    case HARNESS_PARAM_BOOL:
        fputs(v->i ? "true" : "false", f);
        break;
    default:
        emit_string(f, v->s);
        break;
    }
}

static void emit_params(FILE *f, const harness_config *cfg, int indent)
{
    if (cfg->bound_key) {
        fputs(cfg->n_params ? "\n" : " {}\n", f);
        for (size_t i = 0; i < cfg->n_params; i++) {
            fprintf(f, "%*s%s: ", indent, "", cfg->params[i].spec->name);
            emit_param(f, &cfg->params[i]);
            fputc('\n', f);
        }
        return;
    }
    const harness_node_entry *ce = harness_tree_find(cfg->tree, "component.config");
    if (!ce || ce->value->kind != HARNESS_NODE_MAP) {
        fputs(" {}\n", f);
        return;
    }
    fputc(' ', f);
    emit_unbound(f, ce->value);
    fputc('\n', f);
}

/* Keys added after configs were run and recorded, written only when set
 * to something else than these: the dump (and so the folder's hash and a
 * history series' key) of a config that leaves them out stays what it
 * was. The key names are unique in the table. */
static const struct {
    const char *key, *unless;
} later_keys[] = {
    {"throttle_threshold", "0.75"},
    {"lock_clocks", "off"},
    {"rotate_inputs", "0"},
    {"blocking_kernel", "true"},
    {"validate_after_timing", "true"},
    {"gather", "auto"},
    {"gather_max_bytes", "268435456"},
};

/* Whether k is one of later_keys at the value that leaves it out. */
static int left_out(const harness_config *cfg, const harness_cfg_key_spec *k)
{
    const void *src = (const char *)cfg + k->offset;
    char buf[64];
    for (size_t i = 0; i < sizeof later_keys / sizeof *later_keys; i++) {
        if (strcmp(k->name, later_keys[i].key) != 0)
            continue;
        if (k->kind == K_FRACTION) {
            harness_cfg_format_double(*(const double *)src, buf, sizeof buf);
            return strcmp(buf, later_keys[i].unless) == 0;
        }
        if (k->kind == K_INT || k->kind == K_INT_NARROW)
            snprintf(buf, sizeof buf, "%" PRId64, *(const int64_t *)src);
        else if (k->kind == K_BOOL)
            snprintf(buf, sizeof buf, "%s", *(const int *)src ? "true" : "false");
        else if (k->kind == K_CHOICE_TEXT)
            snprintf(buf, sizeof buf, "%s", *(char *const *)src);
        else
            return 0;
        return strcmp(buf, later_keys[i].unless) == 0;
    }
    return 0;
}

static void emit_keys(FILE *f, const harness_config *cfg, const harness_cfg_key_spec *keys,
                      int indent)
{
    for (const harness_cfg_key_spec *k = keys; k->name; k++) {
        const void *src = (const char *)cfg + k->offset;
        if (k->kind == K_SWEEP || left_out(cfg, k))
            continue;
        fprintf(f, "%*s%s:", indent, "", k->name);
        switch (k->kind) {
        case K_SECTION:
            fputc('\n', f);
            emit_keys(f, cfg, k->children, indent + 2);
            continue;
        case K_PARAMS:
            emit_params(f, cfg, indent + 2);
            continue;
        case K_INT:
        case K_INT_NARROW:
        case K_SECONDS:
            fprintf(f, " %" PRId64, *(const int64_t *)src);
            break;
        case K_POSITIVE:
        case K_FRACTION:
            fputc(' ', f);
            emit_double(f, *(const double *)src);
            break;
        case K_BOOL:
            fputs(*(const int *)src ? " true" : " false", f);
            break;
        case K_STRING:
            fputc(' ', f);
            /* The resolved key, so that a family and its exact key hash alike. */
            emit_string(f, src == &cfg->variant_key && cfg->bound_key ? cfg->bound_key
                                                                      : *(char *const *)src);
            break;
        case K_CHOICE_TEXT:
            fputc(' ', f);
            emit_string(f, *(char *const *)src);
            break;
        case K_CHOICE_INDEX:
            fputc(' ', f);
            emit_string(f, k->choices[*(const harness_generator *)src]);
            break;
        case K_STEPS:
            if (cfg->measurement_steps == 0)
                fputs(" auto", f);
            else
                fprintf(f, " %" PRId64, cfg->measurement_steps);
            break;
        case K_RANKS:
            if (cfg->profile_all_ranks) {
                fputs(" all", f);
                break;
            }
            fputs(" [", f);
            for (size_t i = 0; i < cfg->n_profiled_ranks; i++)
                fprintf(f, "%s%" PRId64, i ? ", " : "", cfg->profiled_ranks[i]);
            fputc(']', f);
            break;
        case K_PATHS:
            fputs(" [", f);
            for (size_t i = 0; i < cfg->n_plugin_path; i++) {
                fputs(i ? ", " : "", f);
                emit_string(f, cfg->plugin_path[i]);
            }
            fputc(']', f);
            break;
        case K_SWEEP:
            break;
        }
        fputc('\n', f);
    }
}

char *harness_config_dump(const harness_config *cfg)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return NULL;
    fputs("# resolved by harness; hashed for the experiment folder name\n", f);
    emit_keys(f, cfg, harness_cfg_top_keys, 0);
    if (fclose(f) != 0) {
        free(text);
        return NULL;
    }
    return text;
}

void harness_config_hash8(const char *text, char out[9])
{
    uint8_t digest[32];
    harness_sha256_digest(text, strlen(text), digest);
    for (int i = 0; i < 4; i++)
        snprintf(out + 2 * i, 3, "%02x", digest[i]);
}

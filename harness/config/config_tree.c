/* The config file as a tree, built from libyaml's event stream rather than its
 * document loader, so that every node keeps its position and anchors, aliases,
 * tags and duplicate keys are refused where they are written. */
#include "config/config_tree.h"
#include "config/key_set.h"
#include "util/input_file.h"
#include "util/near_file.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

typedef struct reader {
    yaml_parser_t parser;
    harness_config_tree *tree;
    const char *origin;            /* NULL: the file; else "--set ..." */
    const char *input;             /* to turn a byte offset into line:col */
    size_t input_len;
    harness_error *err;
    char path[512];                /* key path of the node being read */
    size_t path_len;
} reader;

static void node_free(harness_node *n)
{
    if (!n)
        return;
    free(n->text);
    for (size_t i = 0; i < n->n; i++) {
        if (n->kind == HARNESS_NODE_LIST) {
            node_free(n->items[i]);
        } else {
            free(n->entries[i].key);
            node_free(n->entries[i].value);
        }
    }
    free(n->items);
    free(n->entries);
    free(n);
}

harness_node *harness_cfg_node_new(harness_node_kind kind, harness_where at)
{
    harness_node *n = calloc(1, sizeof *n);
    if (n) {
        n->kind = kind;
        n->at = at;
    }
    return n;
}

/* Arrays grow by doubling whenever their length reaches a power of two, so
 * the capacity needs no field of its own. Returns 0, or -1 out of memory. */
int harness_cfg_grow(void **array, size_t n, size_t elem)
{
    if (n != 0 && (n & (n - 1)) != 0)
        return 0;
    void *p = realloc(*array, (n ? 2 * n : 1) * elem);
    if (!p)
        return -1;
    *array = p;
    return 0;
}

int harness_cfg_list_append(harness_node *list, harness_node *item)
{
    if (harness_cfg_grow((void **)&list->items, list->n, sizeof *list->items))
        return -1;
    list->items[list->n++] = item;
    return 0;
}

/* Takes ownership of key and value, also on failure. */
int harness_cfg_map_append(harness_node *map, char *key, harness_where at, harness_node *value)
{
    if (!key || !value || harness_cfg_grow((void **)&map->entries, map->n, sizeof *map->entries)) {
        free(key);
        node_free(value);
        return -1;
    }
    map->entries[map->n++] = (harness_node_entry){key, at, value};
    return 0;
}

static int out_of_memory(harness_error *err)
{
    return harness_error_set(err, HARNESS_EXIT_RUNTIME, "out of memory while reading the config");
}

int harness_tree_fail(const harness_config_tree *tree, harness_where at, const char *key_path,
                      harness_error *err, const char *fmt, ...)
{
    char msg[1536];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);

    if (at.key)
        key_path = at.key;
    const char *sep = *key_path ? ": " : "";
    if (at.origin)
        return harness_error_set(err, HARNESS_EXIT_USAGE, "%s: %s%s%s", at.origin, key_path, sep, msg);
    return harness_error_set(err, HARNESS_EXIT_USAGE, "%s:%d:%d: %s%s%s", tree->path, at.line,
                             at.col, key_path, sep, msg);
}

/* ---- reading events ----------------------------------------------------- */

static harness_where where_of(const reader *r, yaml_mark_t mark)
{
    return (harness_where){r->origin, (int)mark.line + 1, (int)mark.column + 1, NULL};
}

/* Whether 0-based `line` of the input is indented with a tab: libyaml's
 * message for that ("found character that cannot start any token") does not
 * say what to do. */
static int tab_indented(const reader *r, size_t line)
{
    const char *p = r->input, *end = r->input + r->input_len;
    for (size_t l = 0; l < line && p < end; p++)
        l += *p == '\n';
    for (; p < end && (*p == ' ' || *p == '\t'); p++)
        if (*p == '\t')
            return 1;
    return 0;
}

static int syntax_error(reader *r)
{
    yaml_parser_t *p = &r->parser;
    harness_where at = where_of(r, p->problem_mark);

    if (p->error == YAML_MEMORY_ERROR)
        return out_of_memory(r->err);
    if (p->error == YAML_READER_ERROR) {
        /* Encoding problems come with a byte offset rather than a mark. */
        at.line = at.col = 1;
        for (size_t i = 0; i < p->problem_offset && i < r->input_len; i++) {
            at.col++;
            if (r->input[i] == '\n') {
                at.line++;
                at.col = 1;
            }
        }
        return harness_tree_fail(r->tree, at, "", r->err, "invalid text: %s", p->problem);
    }
    const char *hint = tab_indented(r, p->problem_mark.line)
                           ? "; indent with spaces, YAML does not allow tabs" : "";
    if (p->context)
        return harness_tree_fail(r->tree, at, "", r->err, "YAML syntax error: %s, %s at %d:%d%s",
                                 p->problem, p->context, (int)p->context_mark.line + 1,
                                 (int)p->context_mark.column + 1, hint);
    return harness_tree_fail(r->tree, at, "", r->err, "YAML syntax error: %s%s", p->problem, hint);
}

static int next_event(reader *r, yaml_event_t *ev)
{
    return yaml_parser_parse(&r->parser, ev) ? 0 : syntax_error(r);
}

static int fail_at(reader *r, yaml_mark_t mark, const char *what)
{
    return harness_tree_fail(r->tree, where_of(r, mark), r->path, r->err, "%s", what);
}

/* Extend the key path by ".key" or "[i]"; returns the length to restore. */
static size_t path_push(reader *r, const char *key, size_t index)
{
    size_t saved = r->path_len, room = sizeof r->path - saved;
    int k;
    if (key)
        k = snprintf(r->path + saved, room, "%s%s", saved ? "." : "", key);
    else
        k = snprintf(r->path + saved, room, "[%zu]", index);
    r->path_len = k < 0 ? saved : (size_t)k >= room ? sizeof r->path - 1 : saved + (size_t)k;
    return saved;
}

static void path_pop(reader *r, size_t saved)
{
    r->path_len = saved;
    r->path[saved] = '\0';
}

/* Anchors, aliases and tags would let a node mean something other than what
 * is written at its position; a config never needs them. */
static int check_plain_yaml(reader *r, const yaml_event_t *ev)
{
    const yaml_char_t *anchor = NULL, *tag = NULL;
    switch (ev->type) {
    case YAML_ALIAS_EVENT:
        return fail_at(r, ev->start_mark, "aliases are not supported; write the value out in full");
    case YAML_SCALAR_EVENT:
        anchor = ev->data.scalar.anchor;
        tag = ev->data.scalar.tag;
        break;
    case YAML_SEQUENCE_START_EVENT:
        anchor = ev->data.sequence_start.anchor;
        tag = ev->data.sequence_start.tag;
        break;
    case YAML_MAPPING_START_EVENT:
        anchor = ev->data.mapping_start.anchor;
        tag = ev->data.mapping_start.tag;
        break;
    default:
        break;
    }
    if (anchor)
        return fail_at(r, ev->start_mark,
                       "anchors and aliases are not supported; write the value out in full");
    if (tag)
        return fail_at(r, ev->start_mark, "tags are not supported; write the plain value");
    return 0;
}

static int parse_node(reader *r, yaml_event_t *ev, int depth, harness_node **out);

static int parse_list(reader *r, harness_node *list, int depth)
{
    for (;;) {
        yaml_event_t ev;
        int rc = next_event(r, &ev);
        if (rc)
            return rc;
        if (ev.type == YAML_SEQUENCE_END_EVENT) {
            yaml_event_delete(&ev);
            return 0;
        }
        size_t saved = path_push(r, NULL, list->n);
        harness_node *item;
        rc = parse_node(r, &ev, depth + 1, &item);
        if (rc)
            return rc;
        path_pop(r, saved);
        if (harness_cfg_list_append(list, item)) {
            node_free(item);
            return out_of_memory(r->err);
        }
    }
}

/* One `key: value` of a map: the key checked against those read so far
 * (in constant time, through `keys`) and the map's size limit. */
static int parse_map_entry(reader *r, yaml_event_t *ev, harness_node *map, harness_key_set *keys, int depth)
{
    int rc = check_plain_yaml(r, ev);
    if (!rc && ev->type != YAML_SCALAR_EVENT)
        rc = fail_at(r, ev->start_mark, "map keys must be plain names, not lists or maps");
    if (!rc && map->n >= HARNESS_CFG_TREE_MAX_MAP_KEYS)
        rc = fail_at(r, ev->start_mark, "more than " HARNESS_STR(HARNESS_CFG_TREE_MAX_MAP_KEYS) " keys in one map; "
                     "no config needs that many");
    if (rc) {
        yaml_event_delete(ev);
        return rc;
    }
    harness_where at = where_of(r, ev->start_mark);
    char *key = strdup((const char *)ev->data.scalar.value);
    yaml_event_delete(ev);
    if (!key)
        return out_of_memory(r->err);

    size_t saved = path_push(r, key, 0);
    const harness_node_entry *first = harness_key_set_find(keys, map, key);
    if (first) {
        free(key);
        return harness_tree_fail(r->tree, at, r->path, r->err, "duplicate key (first at line %d); keep only one",
                                 first->at.line);
    }
    harness_node *value;
    rc = next_event(r, ev);
    if (!rc)
        rc = parse_node(r, ev, depth + 1, &value);
    if (rc) {
        free(key);
        return rc;
    }
    path_pop(r, saved);
    if (harness_cfg_map_append(map, key, at, value) || harness_key_set_add(keys, map, map->n - 1))
        return out_of_memory(r->err);
    return 0;
}

static int parse_map(reader *r, harness_node *map, int depth)
{
    harness_key_set keys = {0};
    int rc = 0;
    for (;;) {
        yaml_event_t ev;
        if ((rc = next_event(r, &ev)) != 0)
            break;
        if (ev.type == YAML_MAPPING_END_EVENT) {
            yaml_event_delete(&ev);
            break;
        }
        if ((rc = parse_map_entry(r, &ev, map, &keys, depth)) != 0)
            break;
    }
    harness_key_set_free(&keys);
    return rc;
}

/* Consumes *ev. */
static int parse_node(reader *r, yaml_event_t *ev, int depth, harness_node **out)
{
    int rc = check_plain_yaml(r, ev);
    if (!rc && depth > HARNESS_CFG_TREE_MAX_DEPTH)
        rc = fail_at(r, ev->start_mark, "nested too deeply");
    if (rc) {
        yaml_event_delete(ev);
        return rc;
    }

    harness_where at = where_of(r, ev->start_mark);
    harness_node *n = NULL;
    switch (ev->type) {
    case YAML_SCALAR_EVENT:
        if (strlen((const char *)ev->data.scalar.value) != ev->data.scalar.length) {
            rc = fail_at(r, ev->start_mark, "NUL characters are not allowed");
            break;
        }
        n = harness_cfg_node_new(HARNESS_NODE_SCALAR, at);
        if (n && !(n->text = strdup((const char *)ev->data.scalar.value)))
            rc = out_of_memory(r->err);
        if (n)
            /* Quoted and block (| >) scalars are strings whatever they contain. */
            n->quoted = ev->data.scalar.style != YAML_PLAIN_SCALAR_STYLE;
        break;
    case YAML_SEQUENCE_START_EVENT:
        n = harness_cfg_node_new(HARNESS_NODE_LIST, at);
        if (n)
            rc = parse_list(r, n, depth);
        break;
    case YAML_MAPPING_START_EVENT:
        n = harness_cfg_node_new(HARNESS_NODE_MAP, at);
        if (n)
            rc = parse_map(r, n, depth);
        break;
    default: /* the parser only gives node events here */
        rc = fail_at(r, ev->start_mark, "unexpected YAML event");
        break;
    }
    yaml_event_delete(ev);
    if (!n && !rc)
        rc = out_of_memory(r->err);
    if (rc) {
        node_free(n);
        return rc;
    }
    *out = n;
    return 0;
}

/* One document: a map for a file, any value for a --set (empty means null). */
static int parse_document(reader *r, int is_file, int depth, harness_node **out)
{
    yaml_event_t ev;
    harness_node *root = NULL;
    int rc = next_event(r, &ev); /* stream start */
    if (!rc) {
        yaml_event_delete(&ev);
        rc = next_event(r, &ev);
    }
    if (rc)
        return rc;
    if (ev.type == YAML_STREAM_END_EVENT) {
        yaml_event_delete(&ev);
        if (is_file)
            return harness_error_set(r->err, HARNESS_EXIT_USAGE,
                                     "%s: file is empty; a config needs at least component.variant_key",
                                     r->tree->path);
        root = harness_cfg_node_new(HARNESS_NODE_SCALAR, (harness_where){r->origin, 1, 1, NULL});
        if (!root || !(root->text = strdup(""))) {
            node_free(root);
            return out_of_memory(r->err);
        }
        *out = root;
        return 0;
    }
    yaml_event_delete(&ev); /* document start */

    rc = next_event(r, &ev);
    if (!rc)
        rc = parse_node(r, &ev, depth, &root);
    if (!rc)
        rc = next_event(r, &ev); /* document end */
    if (!rc) {
        yaml_event_delete(&ev);
        rc = next_event(r, &ev);
        if (!rc && ev.type == YAML_DOCUMENT_START_EVENT)
            rc = fail_at(r, ev.start_mark,
                         "multiple documents are not supported; keep one config per file");
        yaml_event_delete(&ev);
    }
    if (!rc && is_file && harness_node_is_null(root))
        rc = harness_error_set(r->err, HARNESS_EXIT_USAGE,
                               "%s: file is empty; a config needs at least component.variant_key",
                               r->tree->path);
    if (!rc && is_file && root->kind != HARNESS_NODE_MAP) {
        char got[64];
        harness_node_describe(root, got, sizeof got);
        rc = harness_tree_fail(r->tree, root->at, "", r->err,
                               "the top level must be a map of keys (experiment:, schedule:, "
                               "component:, ...), got %s", got);
    }
    if (rc) {
        node_free(root);
        return rc;
    }
    *out = root;
    return 0;
}

/* Parse `len` bytes of YAML; `key_path` names the value in messages. */
int harness_cfg_parse_text(harness_config_tree *tree, const char *origin, const char *key_path,
                           int depth, const char *text, size_t len, harness_node **out,
                           harness_error *err)
{
    reader r = {.tree = tree, .origin = origin, .input = text, .input_len = len, .err = err};
    if (!yaml_parser_initialize(&r.parser))
        return out_of_memory(err);
    snprintf(r.path, sizeof r.path, "%s", key_path);
    r.path_len = strlen(r.path);
    yaml_parser_set_input_string(&r.parser, (const unsigned char *)text, len);
    int rc = parse_document(&r, origin == NULL, depth, out);
    yaml_parser_delete(&r.parser);
    return rc;
}

/* ---- files -------------------------------------------------------------- */

int harness_tree_load(const char *path, harness_config_tree **out, harness_error *err)
{
    char *text = NULL;
    size_t len = 0;
    int rc = harness_read_input_file(path, "config", HARNESS_MAX_INPUT_BYTES, HARNESS_EXIT_USAGE, &text, &len, err);
    if (rc) {
        harness_near_yaml_hint(path, err);
        return rc;
    }
    rc = harness_tree_load_text(path, text, len, out, err);
    free(text);
    return rc;
}

int harness_tree_load_text(const char *path, const char *text, size_t len, harness_config_tree **out,
                           harness_error *err)
{
    harness_config_tree *tree = calloc(1, sizeof *tree);
    if (!tree || !(tree->path = strdup(path))) {
        free(tree);
        return out_of_memory(err);
    }
    int rc = harness_cfg_parse_text(tree, NULL, "", 0, text, len, &tree->root, err);
    if (rc) {
        harness_tree_free(tree);
        return rc;
    }
    *out = tree;
    return 0;
}

void harness_node_free(harness_node *n)
{
    node_free(n);
}

void harness_tree_free(harness_config_tree *tree)
{
    if (!tree)
        return;
    node_free(tree->root);
    for (size_t i = 0; i < tree->n_origins; i++)
        free(tree->origins[i]);
    free(tree->origins);
    free(tree->path);
    free(tree);
}

/* ---- looking at nodes --------------------------------------------------- */

const harness_node_entry *harness_node_find(const harness_node *map, const char *key)
{
    if (!map || map->kind != HARNESS_NODE_MAP)
        return NULL;
    for (size_t i = 0; i < map->n; i++)
        if (strcmp(map->entries[i].key, key) == 0)
            return &map->entries[i];
    return NULL;
}

const harness_node_entry *harness_tree_find(const harness_config_tree *tree, const char *path)
{
    const harness_node *map = tree->root;
    const harness_node_entry *e = NULL;
    char name[256];
    for (const char *seg = path; seg; ) {
        const char *dot = strchr(seg, '.');
        size_t len = dot ? (size_t)(dot - seg) : strlen(seg);
        if (len >= sizeof name)
            return NULL;
        memcpy(name, seg, len);
        name[len] = '\0';
        e = harness_node_find(map, name);
        if (!e)
            return NULL;
        map = e->value;
        seg = dot ? dot + 1 : NULL;
    }
    return e;
}

int harness_node_is_null(const harness_node *n)
{
    static const char *const nulls[] = {"", "~", "null", "Null", "NULL"};
    if (n->kind != HARNESS_NODE_SCALAR || n->quoted)
        return 0;
    for (size_t i = 0; i < sizeof nulls / sizeof *nulls; i++)
        if (strcmp(n->text, nulls[i]) == 0)
            return 1;
    return 0;
}

void harness_node_describe(const harness_node *n, char *buf, size_t size)
{
    if (n->kind == HARNESS_NODE_LIST)
        snprintf(buf, size, "a list");
    else if (n->kind == HARNESS_NODE_MAP)
        snprintf(buf, size, "a map");
    else if (n->quoted)
        snprintf(buf, size, "a string \"%s\"", n->text);
    else if (n->text[0] == '\0')
        snprintf(buf, size, "nothing");
    else
        snprintf(buf, size, "%s", n->text);
}

/* ---- scalar forms ------------------------------------------------------- */

static const char *skip_digits(const char *p)
{
    while (*p >= '0' && *p <= '9')
        p++;
    return p;
}

int harness_parse_int(const char *text, int64_t *out)
{
    const char *p = text + (*text == '+' || *text == '-');
    const char *end = skip_digits(p);
    if (end == p || *end)
        return -1;
    errno = 0;
    long long v = strtoll(text, NULL, 10);
    if (errno == ERANGE)
        return -2;
    *out = v;
    return 0;
}

int harness_parse_float(const char *text, double *out)
{
    const char *p = text + (*text == '+' || *text == '-');
    const char *q = skip_digits(p);
    size_t digits = (size_t)(q - p);
    if (*q == '.') {
        const char *f = q + 1;
        q = skip_digits(f);
        digits += (size_t)(q - f);
    }
    if (digits == 0)
        return -1;
    if (*q == 'e' || *q == 'E') {
        const char *e = q + 1;
        e += *e == '+' || *e == '-';
        q = skip_digits(e);
        if (q == e)
            return -1;
    }
    if (*q)
        return -1;
    /* strtod also reports underflow as ERANGE; a tiny value is still that value. */
    double v = strtod(text, NULL);
    if (isinf(v))
        return -2;
    *out = v;
    return 0;
}

int harness_parse_bool(const char *text, int *out)
{
    static const char *const t[] = {"true", "True", "TRUE"}, *const f[] = {"false", "False", "FALSE"};
    for (size_t i = 0; i < 3; i++) {
        if (strcmp(text, t[i]) == 0 || strcmp(text, f[i]) == 0) {
            *out = strcmp(text, t[i]) == 0;
            return 0;
        }
    }
    return -1;
}

/* harness list [--json]: every variant the search path provides. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/bench_filter.h"
#include "cli/commands.h"
#include "config/config_tree.h"
#include "run/services.h"
#include "util/table_fit.h"

static const char *const synopsis[] = {"[options]", NULL};

static const harness_cli_option options[] = {
    {"json", 0, HARNESS_OPT_JSON, NULL, "one JSON document, {\"variants\": [...]}"},
    {"filter", 0, HARNESS_OPT_FILTER, "REGEX", "only variants whose key matches (POSIX extended, searched)"},
    {"plugin-path", 'P', 0, "DIR", "look for plugins in DIR first (repeatable)"},
    {"wide", 0, HARNESS_OPT_WIDE, NULL, "each variant and parameter on lines as long as they are (by default "
     "wrapped at spaces to $COLUMNS or the terminal's width; a pipe gets them whole)"},
    HARNESS_CLI_HELP_OPTION,
};

static const harness_cli_command list_command = {
    .name = "list",
    .synopsis = synopsis,
    .about = "List every registered variant: key, device, summary, plugin and parameters\n"
             "(name, type, default, range or choices, help). A plugin file that cannot be\n"
             "loaded is a warning naming it.\n",
    .options = options,
    .n_options = HARNESS_CLI_N(options),
    .exit_codes = "0 listed, 2 usage error, a --plugin-path that is not a directory, no\n"
                  "      plugin found or a --filter that matches none, 3 runtime failure (out of\n"
                  "      memory, standard output not writable)\n",
};

static const char *type_name(harness_param_type t)
{
    switch (t) {
    case HARNESS_PARAM_INT: return "int";
    case HARNESS_PARAM_FLOAT: return "float";
    case HARNESS_PARAM_BOOL: return "bool";
    case HARNESS_PARAM_STRING: return "string";
    case HARNESS_PARAM_ENUM: return "enum";
    }
    return "?";
}

/* "[1, 65536]", ">= 0", "fp32|bf16" or "" */
static void constraint(const harness_param *p, char *buf, size_t cap)
{
    buf[0] = '\0';
    if (p->type == HARNESS_PARAM_ENUM) {
        size_t len = 0;
        for (size_t i = 0; p->choices[i] && len < cap; i++)
            len += (size_t)snprintf(buf + len, cap - len, "%s%s", i ? "|" : "", p->choices[i]);
    } else if ((p->bounds & HARNESS_PARAM_MIN) && (p->bounds & HARNESS_PARAM_MAX)) {
        snprintf(buf, cap, "[%g, %g]", p->min, p->max);
    } else if (p->bounds & HARNESS_PARAM_MIN) {
        snprintf(buf, cap, ">= %g", p->min);
    } else if (p->bounds & HARNESS_PARAM_MAX) {
        snprintf(buf, cap, "<= %g", p->max);
    }
}

/* A line of text (no newline) within `width` columns, wrapped at spaces, its
 * continuation lines `indent` further in; as it is with width 0. */
static void put_line(const char *text, int width, int indent)
{
    harness_wrap_fputs(stdout, text, width, indent);
    putchar('\n');
}

/* A parameter's line, its name, type, default and range in head. */
static void param_line(const harness_param *p, char *head, size_t head_cap, char *line, size_t cap)
{
    char range[256];
    constraint(p, range, sizeof range);
    snprintf(head, head_cap, "  %-18s %-6s default %-10s %-16s", p->name, type_name(p->type),
             p->default_value ? p->default_value : "(required)", range);
    snprintf(line, cap, "%s %s", head, p->help ? p->help : "");
}

/* Whether every parameter of v fits on a line of `width` (0: any). */
static int params_fit(const harness_variant *v, int width)
{
    for (uint32_t j = 0; j < v->n_params && width > 0; j++) {
        char head[512], line[2048];
        param_line(&v->params[j], head, sizeof head, line, sizeof line);
        if (harness_text_columns(line) > (size_t)width)
            return 0;
    }
    return 1;
}

/* One parameter: name, type, default, range and help on a line; when a
 * variant's parameters do not fit, each one's help on lines of its own. */
static void print_param(const harness_param *p, int width, int split)
{
    char head[512], line[2048];
    param_line(p, head, sizeof head, line, sizeof line);
    if (!split) {
        puts(line);
        return;
    }
    size_t len = strlen(head);
    while (len && head[len - 1] == ' ')
        head[--len] = '\0';
    put_line(head, width, 4);
    if (p->help && *p->help) {
        snprintf(line, sizeof line, "      %s", p->help);
        put_line(line, width, 0);
    }
}

static void print_text(const harness_registry *reg, const harness_bench_filter *filter, int width)
{
    size_t shown = 0;
    for (size_t i = 0; i < reg->n_variants; i++) {
        const harness_variant *v = &reg->variants[i].variant;
        if (!harness_bench_filter_match(filter, v->key))
            continue;
        char line[2048];
        snprintf(line, sizeof line, "%s  (%s)  %s", v->key, v->device, v->summary ? v->summary : "");
        fputs(shown++ ? "\n" : "", stdout);
        put_line(line, width, 2);
        snprintf(line, sizeof line, "  plugin: %s", reg->plugins[reg->variants[i].plugin].path);
        put_line(line, width, 2);
        if (v->n_params == 0)
            printf("  no parameters\n");
        int split = !params_fit(v, width);
        for (uint32_t j = 0; j < v->n_params; j++)
            print_param(&v->params[j], width, split);
    }
}

/* The default as the JSON type of min and max: numbers for INT and FLOAT,
 * booleans for BOOL, strings otherwise (and for text that does not parse,
 * which binding a config would reject anyway). */
static cJSON *typed_default(const harness_param *p)
{
    int64_t i;
    double f;
    int b;
    if (!p->default_value)
        return cJSON_CreateNull();
    if (p->type == HARNESS_PARAM_INT && harness_parse_int(p->default_value, &i) == 0)
        return cJSON_CreateNumber((double)i);
    if (p->type == HARNESS_PARAM_FLOAT && harness_parse_float(p->default_value, &f) == 0)
        return cJSON_CreateNumber(f);
    if (p->type == HARNESS_PARAM_BOOL && harness_parse_bool(p->default_value, &b) == 0)
        return cJSON_CreateBool(b);
    return cJSON_CreateString(p->default_value);
}

static int print_json(const harness_registry *reg, const harness_bench_filter *filter)
{
    cJSON *root = cJSON_CreateObject();
    cJSON *variants = cJSON_AddArrayToObject(root, "variants");
    for (size_t i = 0; i < reg->n_variants; i++) {
        const harness_variant *v = &reg->variants[i].variant;
        if (!harness_bench_filter_match(filter, v->key))
            continue;
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "key", v->key);
        cJSON_AddStringToObject(o, "family", v->family);
        cJSON_AddStringToObject(o, "device", v->device);
        cJSON_AddStringToObject(o, "summary", v->summary ? v->summary : "");
        cJSON_AddStringToObject(o, "plugin", reg->plugins[reg->variants[i].plugin].path);
        cJSON_AddBoolToObject(o, "has_reference", v->check != NULL);
        cJSON *params = cJSON_AddArrayToObject(o, "params");
        for (uint32_t j = 0; j < v->n_params; j++) {
            const harness_param *p = &v->params[j];
            cJSON *po = cJSON_CreateObject();
            cJSON_AddStringToObject(po, "name", p->name);
            cJSON_AddStringToObject(po, "type", type_name(p->type));
            cJSON_AddItemToObject(po, "default", typed_default(p));
            if (p->bounds & HARNESS_PARAM_MIN)
                cJSON_AddNumberToObject(po, "min", p->min);
            if (p->bounds & HARNESS_PARAM_MAX)
                cJSON_AddNumberToObject(po, "max", p->max);
            if (p->type == HARNESS_PARAM_ENUM) {
                cJSON *choices = cJSON_AddArrayToObject(po, "choices");
                for (size_t k = 0; p->choices[k]; k++)
                    cJSON_AddItemToArray(choices, cJSON_CreateString(p->choices[k]));
            }
            cJSON_AddStringToObject(po, "help", p->help ? p->help : "");
            cJSON_AddItemToArray(params, po);
        }
        cJSON_AddItemToArray(variants, o);
    }
    char *text = cJSON_Print(root);
    cJSON_Delete(root);
    if (!text)
        return HARNESS_EXIT_RUNTIME;
    puts(text);
    free(text);
    return 0;
}

int harness_cmd_list(int argc, char **argv)
{
    harness_error err = {0};
    harness_cli_opts opts;
    int rc = harness_parse_opts(argc, argv, &list_command, &opts, &err);
    if (rc < 0)
        return 0;
    if (rc > 0)
        return harness_error_report(&err);
    harness_registry reg;
    if (harness_registry_init(&reg, harness_host_services(), &err) != 0)
        return harness_error_report(&err);
    harness_plan_request req = harness_cli_plan_request(&opts);
    if (harness_plan_load_plugins(&reg, &req, NULL, &err) != 0) {
        harness_registry_free(&reg);
        return harness_error_report(&err);
    }
    harness_warn_broken_plugins(&reg);
    if (reg.n_variants == 0) {
        /* A config or environment problem (the search path), so the usage exit code. */
        fprintf(stderr, "harness: list: no plugin found; searched:\n");
        for (size_t i = 0; i < reg.n_searched; i++)
            fprintf(stderr, "  %s\n", reg.searched[i]);
        fprintf(stderr, "add directories with --plugin-path DIR or HARNESS_PLUGIN_PATH\n");
        harness_registry_free(&reg);
        return HARNESS_EXIT_USAGE;
    }
    harness_bench_filter filter;
    size_t kept = 0;
    if (harness_bench_filter_init(&filter, opts.filter, &err) != 0) {
        harness_registry_free(&reg);
        return harness_error_report(&err);
    }
    for (size_t i = 0; i < reg.n_variants; i++)
        kept += harness_bench_filter_match(&filter, reg.variants[i].variant.key);
    rc = 0;
    if (kept == 0)
        rc = harness_error_set(&err, HARNESS_EXIT_USAGE, "list: --filter '%s' matches none of the %zu variant keys",
                               opts.filter, reg.n_variants), harness_error_report(&err);
    else if (opts.json)
        rc = print_json(&reg, &filter);
    else
        print_text(&reg, &filter, opts.wide ? 0 : harness_term_width());
    harness_bench_filter_free(&filter);
    harness_registry_free(&reg);
    return rc;
}

/* Binding component.config to a variant's parameter schema (docs/ARCHITECTURE.md
 * section 5): harness_config_bind_params checks each value written under
 * component.config against the variant's harness_param list (unknown names
 * with a did-you-mean, types, ranges, enums), fills defaults and keeps the
 * result in the config, where harness_config_param looks it up and the
 * canonical dump (config_dump.c) writes it out. */
#include "config/config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config_internal.h"
#include "config/config_tree.h"
#include "util/suggest.h"

/* "an integer in [1, 65536]", "a number >= 0", "one of fp32, bf16", ... */
static void describe_param(const harness_param *spec, char *buf, size_t size)
{
    char lo[64], hi[64], list[256];
    harness_cfg_format_double(spec->min, lo, sizeof lo);
    harness_cfg_format_double(spec->max, hi, sizeof hi);
    const char *what = spec->type == HARNESS_PARAM_INT ? "an integer" : "a number";
    unsigned b = spec->bounds & (HARNESS_PARAM_MIN | HARNESS_PARAM_MAX);

    switch (spec->type) {
    case HARNESS_PARAM_INT:
    case HARNESS_PARAM_FLOAT:
        if (b == (HARNESS_PARAM_MIN | HARNESS_PARAM_MAX))
            snprintf(buf, size, "%s in [%s, %s]", what, lo, hi);
        else if (b == HARNESS_PARAM_MIN)
            snprintf(buf, size, "%s >= %s", what, lo);
        else if (b == HARNESS_PARAM_MAX)
            snprintf(buf, size, "%s <= %s", what, hi);
        else
            snprintf(buf, size, "%s", what);
        break;
    case HARNESS_PARAM_BOOL:
        snprintf(buf, size, "true or false");
        break;
    case HARNESS_PARAM_ENUM:
        harness_cfg_join(list, sizeof list, spec->choices);
        snprintf(buf, size, "one of %s", list);
        break;
    default:
        snprintf(buf, size, "a string");
        break;
    }
}

static int in_bounds(const harness_param *spec, double x)
{
    return !((spec->bounds & HARNESS_PARAM_MIN) && x < spec->min) &&
           !((spec->bounds & HARNESS_PARAM_MAX) && x > spec->max);
}

/* The value of scalar text for `spec`; a quoted scalar is only ever a
 * string. Returns 0, -1 (not of the type or range) or -2 (does not fit). */
static int param_value(const harness_param *spec, const char *text, int quoted,
                       harness_param_value *out)
{
    int rc = -1, b;
    out->spec = spec;
    switch (spec->type) {
    case HARNESS_PARAM_INT:
        if (!quoted && (rc = harness_parse_int(text, &out->i)) == 0 && !in_bounds(spec, (double)out->i))
            rc = -1;
        return rc;
    case HARNESS_PARAM_FLOAT:
        if (!quoted && (rc = harness_parse_float(text, &out->f)) == 0 && !in_bounds(spec, out->f))
            rc = -1;
        return rc;
    case HARNESS_PARAM_BOOL:
        if (quoted || harness_parse_bool(text, &b) != 0)
            return -1;
        out->i = b;
        return 0;
    case HARNESS_PARAM_ENUM:
        for (size_t i = 0; spec->choices && spec->choices[i]; i++)
            if (strcmp(text, spec->choices[i]) == 0)
                rc = 0;
        if (rc)
            return rc;
        break;
    case HARNESS_PARAM_STRING:
        break;
    default:
        return -1;
    }
    out->s = strdup(text);
    return out->s ? 0 : -2;
}

static size_t count_choices(const char *const *choices)
{
    size_t n = 0;
    while (choices && choices[n])
        n++;
    return n;
}

static int bind_one(const harness_config *cfg, const char *key, const harness_param *spec,
                    const harness_node_entry *e, harness_where missing_at,
                    harness_param_value *out, harness_error *err)
{
    char path[300], expected[512];
    snprintf(path, sizeof path, "component.config.%s", spec->name);
    describe_param(spec, expected, sizeof expected);

    /* An empty value is refused, not taken for the default (config.c's check_key says why). */
    if (e && harness_node_is_null(e->value))
        return harness_tree_fail(cfg->tree, e->value->at, path, err, "has no value; give one (%s)%s", expected,
                                 spec->default_value ? ", or leave the key out to use the default" : "");
    if (!e) {
        if (!spec->default_value)
            return harness_tree_fail(cfg->tree, missing_at, path, err,
                                     "required parameter of %s is missing; set it under component.config",
                                     key);
        out->from_default = 1;
        if (param_value(spec, spec->default_value, 0, out) == 0)
            return 0;
        return harness_error_set(err, HARNESS_EXIT_RUNTIME,
                                 "%s: parameter %s has the default \"%s\", which is not %s; the plugin is broken",
                                 key, spec->name, spec->default_value, expected);
    }

    const harness_node *v = e->value;
    int rc = v->kind == HARNESS_NODE_SCALAR ? param_value(spec, v->text, v->quoted, out) : -1;
    if (rc == 0)
        return 0;
    char got[128];
    harness_node_describe(v, got, sizeof got);
    const char *guess = spec->type == HARNESS_PARAM_ENUM && v->kind == HARNESS_NODE_SCALAR
                            ? harness_suggest(v->text, spec->choices, count_choices(spec->choices))
                            : NULL;
    return harness_tree_fail(cfg->tree, v->at, path, err, "expected %s, got %s%s%s%s%s", expected,
                             got, rc == -2 ? ", which does not fit" : "",
                             guess ? "; did you mean " : "", guess ? guess : "", guess ? "?" : "");
}

/* Frees the values' strings and the array; NULL is fine. */
void harness_cfg_free_params(harness_param_value *values, size_t n)
{
    for (size_t i = 0; values && i < n; i++)
        free(values[i].s);
    free(values);
}

static int unknown_param(const harness_config *cfg, const char *key, const harness_node_entry *e,
                         const harness_param *specs, size_t n_specs, harness_error *err)
{
    char path[300], list[512] = "";
    snprintf(path, sizeof path, "component.config.%s", e->key);
    const char **names = calloc(n_specs + 1, sizeof *names);
    if (!names)
        return harness_cfg_out_of_memory(err);
    for (size_t i = 0; i < n_specs; i++)
        names[i] = specs[i].name;
    const char *guess = harness_suggest(e->key, names, n_specs);
    harness_cfg_join(list, sizeof list, names);
    free(names);
    if (guess)
        return harness_tree_fail(cfg->tree, e->at, path, err,
                                 "unknown parameter of %s; did you mean %s?", key, guess);
    if (n_specs == 0)
        return harness_tree_fail(cfg->tree, e->at, path, err, "%s takes no parameters", key);
    return harness_tree_fail(cfg->tree, e->at, path, err,
                             "unknown parameter of %s; its parameters are %s", key, list);
}

int harness_config_bind_params(harness_config *cfg, const char *key, const harness_param *specs,
                               size_t n_specs, harness_error *err)
{
    const harness_node_entry *ce = harness_tree_find(cfg->tree, "component.config");
    const harness_node *map = ce && ce->value->kind == HARNESS_NODE_MAP ? ce->value : NULL;
    harness_where missing_at = harness_cfg_nearest(cfg, "component.config");

    for (size_t i = 0; map && i < map->n; i++) {
        size_t j = 0;
        while (j < n_specs && strcmp(specs[j].name, map->entries[i].key) != 0)
            j++;
        if (j == n_specs)
            return unknown_param(cfg, key, &map->entries[i], specs, n_specs, err);
    }

    harness_param_value *values = calloc(n_specs ? n_specs : 1, sizeof *values);
    char *bound = strdup(key);
    if (!values || !bound) {
        free(values);
        free(bound);
        return harness_cfg_out_of_memory(err);
    }
    for (size_t i = 0; i < n_specs; i++) {
        int rc = bind_one(cfg, key, &specs[i], harness_node_find(map, specs[i].name), missing_at,
                          &values[i], err);
        if (rc) {
            harness_cfg_free_params(values, n_specs);
            free(bound);
            return rc;
        }
    }
    harness_cfg_free_params(cfg->params, cfg->n_params);
    free(cfg->bound_key);
    cfg->params = values;
    cfg->n_params = n_specs;
    cfg->bound_key = bound;
    return 0;
}

const harness_param_value *harness_config_param(const harness_config *cfg, const char *name)
{
    for (size_t i = 0; i < cfg->n_params; i++)
        if (strcmp(cfg->params[i].spec->name, name) == 0)
            return &cfg->params[i];
    return NULL;
}

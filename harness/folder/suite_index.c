/* suite_index.c - index.json's writer and reader (suite_index.h), side by
 * side so that a key is added to both at once. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE                /* strdup */
#endif
#include "folder/suite_index.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "folder/folder_format.h"
#include "folder/json_fields.h"

#define WHAT "suite index"

/* ---- writing ------------------------------------------------------------- */

static cJSON *run_json(const harness_suite_index_run *r)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "config", r->config);
    cJSON_AddNumberToObject(o, "run", r->run);
    cJSON_AddNumberToObject(o, "exit_code", r->exit_code);
    cJSON *folders = cJSON_AddArrayToObject(o, "folders");
    for (size_t i = 0; i < r->n_folders; i++)
        cJSON_AddItemToArray(folders, cJSON_CreateString(r->folders[i]));
    return o;
}

char *harness_suite_index_write(const harness_suite_index *x)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "schema", HARNESS_SCHEMA_SUITE);
    cJSON_AddStringToObject(root, "status", x->status);
    cJSON_AddNumberToObject(root, "runs", x->runs);
    if (x->filter)
        cJSON_AddStringToObject(root, "filter", x->filter);
    else
        cJSON_AddNullToObject(root, "filter");
    cJSON *configs = cJSON_AddArrayToObject(root, "configs");
    for (size_t i = 0; i < x->n_configs; i++) {
        cJSON *c = cJSON_CreateObject();
        cJSON_AddStringToObject(c, "path", x->configs[i].path);
        cJSON_AddNumberToObject(c, "points_kept", x->configs[i].points_kept);
        cJSON_AddItemToArray(configs, c);
    }
    cJSON *experiments = cJSON_AddArrayToObject(root, "experiments");
    for (size_t i = 0; i < x->n_experiments; i++)
        cJSON_AddItemToArray(experiments, run_json(&x->experiments[i]));
    char *text = cJSON_Print(root);   /* NULL when any add above ran out of memory */
    cJSON_Delete(root);
    return text;
}

/* ---- reading ------------------------------------------------------------- */

void harness_suite_index_free(harness_suite_index *x)
{
    if (!x)
        return;
    free(x->status);
    free(x->filter);
    for (size_t i = 0; i < x->n_configs; i++)
        free(x->configs[i].path);
    free(x->configs);
    for (size_t i = 0; i < x->n_experiments; i++) {
        harness_suite_index_run *r = &x->experiments[i];
        free(r->config);
        for (size_t k = 0; k < r->n_folders; k++)
            free(r->folders[k]);
        free(r->folders);
    }
    free(x->experiments);
    memset(x, 0, sizeof *x);
}

/* An integer member that must be there. */
static int need_int(const cJSON *obj, const char *prefix, const char *key, const char *path, int *out,
                    harness_error *err)
{
    const cJSON *j = harness_field_need(obj, prefix, key, cJSON_IsNumber, "an integer", WHAT, path, err);
    if (!j)
        return err->code;
    if (j->valuedouble != floor(j->valuedouble) || fabs(j->valuedouble) > 2147483647)
        return harness_field_bad(err, path, "%s%s: expected an integer, got %g", prefix, key, j->valuedouble);
    *out = (int)j->valuedouble;
    return 0;
}

static int read_config(const cJSON *c, const char *prefix, const char *path, harness_suite_index_config *out,
                       harness_error *err)
{
    const cJSON *p = harness_field_need(c, prefix, "path", cJSON_IsString, "a string", WHAT, path, err);
    const cJSON *k = p ? harness_field_need(c, prefix, "points_kept", cJSON_IsNumber, "a number", WHAT, path, err)
                       : NULL;
    if (!k)
        return err->code;
    out->points_kept = k->valuedouble;
    return (out->path = strdup(p->valuestring)) ? 0 : harness_field_oom(err);
}

static int read_run(const cJSON *o, const char *prefix, const char *path, harness_suite_index_run *out,
                    harness_error *err)
{
    const cJSON *c = harness_field_need(o, prefix, "config", cJSON_IsString, "a string", WHAT, path, err);
    if (!c || need_int(o, prefix, "run", path, &out->run, err) != 0 ||
        need_int(o, prefix, "exit_code", path, &out->exit_code, err) != 0)
        return err->code;
    const cJSON *folders = harness_field_need(o, prefix, "folders", cJSON_IsArray, "an array", WHAT, path, err);
    if (!folders)
        return err->code;
    if (!(out->config = strdup(c->valuestring)))
        return harness_field_oom(err);
    size_t n = (size_t)cJSON_GetArraySize(folders);
    if (n && !(out->folders = calloc(n, sizeof *out->folders)))
        return harness_field_oom(err);
    for (const cJSON *f = folders->child; f && out->n_folders < n; f = f->next) {
        if (!cJSON_IsString(f))
            return harness_field_bad(err, path, "%sfolders[%zu]: expected a string, got %s", prefix, out->n_folders,
                                     harness_field_kind(f));
        if (!(out->folders[out->n_folders++] = strdup(f->valuestring)))
            return harness_field_oom(err);
    }
    return 0;
}

/* An array member that must be there, and room for its items. */
static const cJSON *array(const cJSON *root, const char *key, size_t size, void **items, size_t *cap,
                          const char *path, harness_error *err)
{
    const cJSON *a = harness_field_need(root, "", key, cJSON_IsArray, "an array", WHAT, path, err);
    *cap = a ? (size_t)cJSON_GetArraySize(a) : 0;
    if (a && *cap && !(*items = calloc(*cap, size))) {
        harness_field_oom(err);
        return NULL;
    }
    return a;
}

static int read_root(const cJSON *root, const char *path, harness_suite_index *out, harness_error *err)
{
    char why[512];
    if (!cJSON_IsObject(root))
        return harness_field_bad(err, path, "expected a JSON object, got %s", harness_field_kind(root));
    if (harness_schema_check(root, HARNESS_SCHEMA_SUITE, why, sizeof why) != 0)
        return harness_field_bad(err, path, "%s", why);
    const cJSON *status = harness_field_need(root, "", "status", cJSON_IsString, "a string", WHAT, path, err);
    if (!status || need_int(root, "", "runs", path, &out->runs, err) != 0 ||
        harness_field_string(root, "", "filter", path, &out->filter, err) != 0)
        return err->code;
    if (!(out->status = strdup(status->valuestring)))
        return harness_field_oom(err);
    size_t cap;
    const cJSON *configs = array(root, "configs", sizeof *out->configs, (void **)&out->configs, &cap, path, err);
    if (!configs)
        return err->code;
    for (const cJSON *c = configs->child; c && out->n_configs < cap; c = c->next) {
        char prefix[48];
        snprintf(prefix, sizeof prefix, "configs[%zu].", out->n_configs);
        if (read_config(c, prefix, path, &out->configs[out->n_configs++], err) != 0)
            return err->code;
    }
    const cJSON *runs = array(root, "experiments", sizeof *out->experiments, (void **)&out->experiments, &cap, path,
                              err);
    if (!runs)
        return err->code;
    for (const cJSON *r = runs->child; r && out->n_experiments < cap; r = r->next) {
        char prefix[48];
        snprintf(prefix, sizeof prefix, "experiments[%zu].", out->n_experiments);
        if (read_run(r, prefix, path, &out->experiments[out->n_experiments++], err) != 0)
            return err->code;
    }
    return 0;
}

int harness_suite_index_parse(const char *path, const char *text, size_t len, harness_suite_index *out,
                              harness_error *err)
{
    memset(out, 0, sizeof *out);
    cJSON *root = cJSON_ParseWithLength(text, len);
    int rc = root ? read_root(root, path, out, err) : harness_field_bad(err, path, "invalid JSON; not a %s", WHAT);
    cJSON_Delete(root);
    if (rc != 0)
        harness_suite_index_free(out);
    return rc;
}

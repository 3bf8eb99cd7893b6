/* json_fields.c - see json_fields.h: the rules for a member's kind, in one
 * place for every reader in folder/. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE                /* strdup */
#endif
#include "folder/json_fields.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *harness_field_kind(const cJSON *j)
{
    if (!j) return "missing";
    if (cJSON_IsObject(j)) return "an object";
    if (cJSON_IsArray(j)) return "an array";
    if (cJSON_IsString(j)) return "a string";
    if (cJSON_IsNumber(j)) return "a number";
    if (cJSON_IsBool(j)) return "a boolean";
    if (cJSON_IsNull(j)) return "null";
    return "invalid";
}

int harness_field_bad(harness_error *err, const char *path, const char *fmt, ...)
{
    char msg[1536];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return harness_error_set(err, HARNESS_EXIT_USAGE, "%s: %s", path, msg);
}

int harness_field_oom(harness_error *err)
{
    return harness_error_set(err, HARNESS_EXIT_RUNTIME, "out of memory");
}

/* The member, or NULL when absent or null (or obj is). */
static const cJSON *member(const cJSON *obj, const char *key)
{
    const cJSON *j = cJSON_IsObject(obj) ? cJSON_GetObjectItemCaseSensitive(obj, key) : NULL;
    return cJSON_IsNull(j) ? NULL : j;
}

static int wrong(const cJSON *j, const char *prefix, const char *key, const char *kind, const char *path,
                 harness_error *err)
{
    return harness_field_bad(err, path, "%s%s: expected %s, got %s", prefix, key, kind, harness_field_kind(j));
}

int harness_field_number(const cJSON *obj, const char *prefix, const char *key, const char *path, double *out,
                         harness_error *err)
{
    *out = NAN;
    const cJSON *j = member(obj, key);
    if (!j)
        return 0;
    if (!cJSON_IsNumber(j))
        return wrong(j, prefix, key, "a number or null", path, err);
    *out = j->valuedouble;
    return 0;
}

int harness_field_whole(const cJSON *obj, const char *prefix, const char *key, const char *path, int dflt,
                        const char *expected, int *out, harness_error *err)
{
    double v;
    if (harness_field_number(obj, prefix, key, path, &v, err) != 0)
        return err->code;
    if (!isnan(v) && !(v >= 0 && v < 1e9 && v == floor(v)))
        return harness_field_bad(err, path, "%s%s: expected %s, got %g", prefix, key, expected, v);
    *out = isnan(v) ? dflt : (int)v;
    return 0;
}

int harness_field_string(const cJSON *obj, const char *prefix, const char *key, const char *path, char **out,
                         harness_error *err)
{
    *out = NULL;
    const cJSON *j = member(obj, key);
    if (!j)
        return 0;
    if (!cJSON_IsString(j))
        return wrong(j, prefix, key, "a string or null", path, err);
    return (*out = strdup(j->valuestring)) ? 0 : harness_field_oom(err);
}

int harness_field_bool(const cJSON *obj, const char *prefix, const char *key, const char *path, int *out,
                       harness_error *err)
{
    *out = -1;
    const cJSON *j = member(obj, key);
    if (!j)
        return 0;
    if (!cJSON_IsBool(j))
        return wrong(j, prefix, key, "true, false or null", path, err);
    *out = cJSON_IsTrue(j);
    return 0;
}

int harness_field_object(const cJSON *obj, const char *prefix, const char *key, const char *path,
                         const cJSON **out, harness_error *err)
{
    *out = NULL;
    const cJSON *j = member(obj, key);
    if (!j)
        return 0;
    if (!cJSON_IsObject(j))
        return wrong(j, prefix, key, "an object or null", path, err);
    *out = j;
    return 0;
}

const cJSON *harness_field_need(const cJSON *obj, const char *prefix, const char *key, cJSON_bool (*is)(const cJSON *),
                                const char *kind, const char *what, const char *path, harness_error *err)
{
    const cJSON *j = cJSON_IsObject(obj) ? cJSON_GetObjectItemCaseSensitive(obj, key) : NULL;
    if (!j) {
        harness_field_bad(err, path, "%s%s: missing; not a complete %s", prefix, key, what);
        return NULL;
    }
    if (!is(j)) {
        wrong(j, prefix, key, kind, path, err);
        return NULL;
    }
    return j;
}

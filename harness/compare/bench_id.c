/* bench_id.c - a benchmark's stable name (bench_id.h). */
#include "compare/bench_id.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>

/* Appends to buf at *len without overrunning cap. */
static void append(char *buf, size_t cap, size_t *len, const char *sep, const char *a, const char *b)
{
    if (*len >= cap)
        return;
    int w = snprintf(buf + *len, cap - *len, "%s%s%s", sep, a, b);
    *len = w < 0 ? cap : *len + (size_t)w;
}

const char *harness_bench_id(const char *experiment, const char *variant_key, const cJSON *config, int rank,
                             int world_size, char *buf, size_t cap)
{
    size_t len = 0;
    if (cap == 0)
        return buf;
    buf[0] = '\0';
    append(buf, cap, &len, "", experiment ? experiment : "?", "/");
    append(buf, cap, &len, "", variant_key ? variant_key : "?", "/");
    int first = 1;
    for (const cJSON *p = cJSON_IsObject(config) ? config->child : NULL; p; p = p->next) {
        /* strings bare, anything else as its JSON (1e-06, true, [1,2]) */
        char *v = cJSON_IsString(p) ? NULL : cJSON_PrintUnformatted(p);
        append(buf, cap, &len, first ? "" : ",", p->string ? p->string : "?", "=");
        append(buf, cap, &len, "", v ? v : p->valuestring ? p->valuestring : "?", "");
        free(v);
        first = 0;
    }
    if (first)
        append(buf, cap, &len, "", "-", "");
    if (world_size > 1) {
        char r[32];
        snprintf(r, sizeof r, "%d", rank);
        append(buf, cap, &len, "/rank=", r, "");
    }
    return buf;
}

/* The job's merged trace; see trace_merge.h. */
#include "report/trace_merge.h"

#include <cjson/cJSON.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/experiment.h"
#include "util/fsutil.h"

/* A rank's trace zero on rank 0's clock: a time T on rank r's clock is
 * T - offset_r on rank 0's. */
static int64_t zero_on_rank0(const harness_trace_part *p)
{
    return (int64_t)p->base_monotonic_ns - p->clock_offset_ns;
}

int64_t harness_trace_shift_ns(const harness_trace_part *part, const harness_trace_part *origin)
{
    return zero_on_rank0(part) - zero_on_rank0(origin);
}

static void remap_pid(cJSON *e, int rank)
{
    cJSON *pid = cJSON_GetObjectItem(e, "pid");
    if (cJSON_IsNumber(pid) && pid->valueint != rank)
        cJSON_SetNumberValue(pid, (double)(rank + 1) * 1e6 + (double)(pid->valueint % 1000000));
}

/* Moves rank r's events, shifted, into out. */
static int add_rank(cJSON *out, const char *dir, int world_size, const harness_trace_part *part,
                    const harness_trace_part *base, harness_error *err)
{
    char name[128], path[4400];
    harness_experiment exp;
    snprintf(exp.dir, sizeof exp.dir, "%s", dir);
    harness_rank_file(name, sizeof name, HARNESS_PREFIX_TRACE, world_size, part->rank, "json");
    harness_experiment_path(&exp, name, path, sizeof path);
    char *text = NULL;
    if (harness_read_file(path, &text, NULL, err) != 0)
        return err->code;
    cJSON *root = cJSON_Parse(text);
    free(text);
    cJSON *events = root ? cJSON_DetachItemFromObject(root, "traceEvents") : NULL;
    cJSON_Delete(root);
    if (!cJSON_IsArray(events)) {
        cJSON_Delete(events);
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "%s: not a trace (no traceEvents array)", path);
    }
    double shift_us = (double)harness_trace_shift_ns(part, base) / 1e3;
    cJSON *e;
    while ((e = cJSON_DetachItemViaPointer(events, events->child)) != NULL) {
        cJSON *ts = cJSON_GetObjectItem(e, "ts");
        if (cJSON_IsNumber(ts))
            cJSON_SetNumberValue(ts, ts->valuedouble + shift_us);
        remap_pid(e, part->rank);
        cJSON_AddItemToArray(out, e);
    }
    cJSON_Delete(events);
    return 0;
}

int harness_trace_merge(const char *dir, int world_size, const harness_trace_part *parts, harness_error *err)
{
    /* The merged time zero: the earliest traced rank's, so no time is negative. */
    const harness_trace_part *base = NULL;
    for (int r = 0; r < world_size; r++)
        if (parts[r].traced && (!base || zero_on_rank0(&parts[r]) < zero_on_rank0(base)))
            base = &parts[r];
    if (!base)
        return 0;
    cJSON *root = cJSON_CreateObject();
    cJSON_AddNumberToObject(root, "schemaVersion", 1);
    cJSON_AddStringToObject(root, "displayTimeUnit", "ms");
    char unix_ns[32];  /* raw: a double cannot hold 19 digits */
    snprintf(unix_ns, sizeof unix_ns, "%" PRIu64, base->base_unix_ns);
    cJSON_AddRawToObject(root, "baseTimeNanoseconds", unix_ns);
    cJSON *info = cJSON_AddObjectToObject(root, "distributedInfo");
    cJSON_AddNumberToObject(info, "rank", 0);
    cJSON_AddNumberToObject(info, "world_size", world_size);
    cJSON *other = cJSON_AddObjectToObject(root, "otherData");
    cJSON_AddStringToObject(other, "time_base", "the earliest traced rank's trace zero, on rank 0's clock: each "
                            "rank's times shifted by its clock offset to rank 0 (shift_ns)");
    cJSON_AddNumberToObject(other, "time_base_rank", base->rank);
    cJSON *ranks = cJSON_AddArrayToObject(other, "ranks");
    cJSON *events = cJSON_AddArrayToObject(root, "traceEvents");
    int rc = 0;
    for (int r = 0; r < world_size && rc == 0; r++) {
        if (!parts[r].traced)
            continue;
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "rank", r);
        cJSON_AddNumberToObject(o, "clock_offset_ns", (double)parts[r].clock_offset_ns);
        cJSON_AddNumberToObject(o, "shift_ns", (double)harness_trace_shift_ns(&parts[r], base));
        cJSON_AddItemToArray(ranks, o);
        rc = add_rank(events, dir, world_size, &parts[r], base, err);
    }
    char *text = rc == 0 ? cJSON_PrintUnformatted(root) : NULL;
    cJSON_Delete(root);
    if (rc != 0)
        return rc;
    if (!text)
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "out of memory writing the merged trace");
    char name[64], path[4400];
    harness_job_file(name, sizeof name, HARNESS_PREFIX_TRACE, world_size, "json");
    snprintf(path, sizeof path, "%s/%s", dir, name);
    rc = harness_write_atomic(path, text, strlen(text), err);
    free(text);
    return rc;
}

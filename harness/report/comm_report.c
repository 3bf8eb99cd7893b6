/* The summaries' communication table; see comm_report.h. */
#include "report/comm_report.h"

#include <stdlib.h>

#include "run/comm_log.h"

cJSON *harness_comm_json(const harness_summary *s)
{
    harness_comm_row *rows;
    size_t n;
    if (!s->comm || !s->clock || harness_comm_table(s->comm, s->clock, s->world_size, &rows, &n) != 0 || n == 0)
        return cJSON_CreateNull();
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; i < n; i++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "op", harness_coll_name(rows[i].kind));
        cJSON_AddStringToObject(o, "dtype", harness_dtype_name(rows[i].dtype));
        cJSON_AddNumberToObject(o, "bytes", (double)rows[i].bytes);
        cJSON_AddNumberToObject(o, "calls", (double)rows[i].calls);
        cJSON_AddNumberToObject(o, "total_ns", rows[i].total_ns);
        cJSON_AddNumberToObject(o, "mean_ns", rows[i].mean_ns);
        cJSON_AddNumberToObject(o, "min_ns", rows[i].min_ns);
        cJSON_AddNumberToObject(o, "max_ns", rows[i].max_ns);
        cJSON_AddNumberToObject(o, "algbw_gbps", rows[i].algbw_gbps);
        cJSON_AddNumberToObject(o, "busbw_gbps", rows[i].busbw_gbps);
        cJSON_AddItemToArray(a, o);
    }
    free(rows);
    return a;
}

void harness_comm_print(FILE *f, const harness_summary *s)
{
    harness_comm_row *rows;
    size_t n;
    if (!s->comm || !s->clock || harness_comm_table(s->comm, s->clock, s->world_size, &rows, &n) != 0 || n == 0)
        return;
    fprintf(f, "communication (%d rank%s; the calls of the measured steps; busbw as nccl-tests)\n",
            s->world_size, s->world_size == 1 ? "" : "s");
    fprintf(f, "  %-15s %-6s %14s %8s %14s %12s %12s\n", "op", "dtype", "size (B)", "calls", "mean (us)",
            "algbw GB/s", "busbw GB/s");
    for (size_t i = 0; i < n; i++)
        fprintf(f, "  %-15s %-6s %14llu %8zu %14.2f %12.3f %12.3f\n", harness_coll_name(rows[i].kind),
                harness_dtype_name(rows[i].dtype), (unsigned long long)rows[i].bytes, rows[i].calls,
                rows[i].mean_ns / 1e3, rows[i].algbw_gbps, rows[i].busbw_gbps);
    free(rows);
}

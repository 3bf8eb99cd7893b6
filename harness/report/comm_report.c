/* The summaries' communication table; see comm_report.h. */
#include "report/comm_report.h"

#include <stdio.h>
#include <stdlib.h>

#include "run/comm_log.h"

int harness_comm_out_of(const harness_summary *s, harness_comm_out **out, size_t *n)
{
    harness_comm_row *rows;
    *out = NULL;
    *n = 0;
    if (!s->comm || !s->clock || harness_comm_table(s->comm, s->clock, s->world_size, &rows, n) != 0 || *n == 0)
        return 0;                  /* null, as before (out of memory in the table included) */
    if (!(*out = calloc(*n, sizeof **out))) {
        free(rows);
        return -1;
    }
    for (size_t i = 0; i < *n; i++)
        (*out)[i] = (harness_comm_out){
            .op = harness_coll_name(rows[i].kind), .dtype = harness_dtype_name(rows[i].dtype), .peer = rows[i].peer,
            .bytes = (double)rows[i].bytes, .calls = (double)rows[i].calls, .total_ns = rows[i].total_ns,
            .mean_ns = rows[i].mean_ns, .min_ns = rows[i].min_ns, .max_ns = rows[i].max_ns,
            .algbw_gbps = rows[i].algbw_gbps, .busbw_gbps = rows[i].busbw_gbps,
        };
    free(rows);
    return 0;
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
    for (size_t i = 0; i < n; i++) {
        char op[32];               /* send_recv names its peer: "send_recv r3" */
        if (rows[i].peer >= 0)
            snprintf(op, sizeof op, "%s r%d", harness_coll_name(rows[i].kind), rows[i].peer);
        else
            snprintf(op, sizeof op, "%s", harness_coll_name(rows[i].kind));
        fprintf(f, "  %-15s %-6s %14llu %8zu %14.2f %12.3f %12.3f\n", op, harness_dtype_name(rows[i].dtype),
                (unsigned long long)rows[i].bytes, rows[i].calls, rows[i].mean_ns / 1e3, rows[i].algbw_gbps,
                rows[i].busbw_gbps);
    }
    free(rows);
}

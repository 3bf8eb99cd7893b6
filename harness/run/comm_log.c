/* The communication log and its table; see comm_log.h. */
#include "run/comm_log.h"

#include <math.h>
#include <stdlib.h>

#include "util/stats.h"

int harness_comm_log_add(harness_comm_log *l, const harness_comm_record *r)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 64;
        harness_comm_record *p = realloc(l->records, cap * sizeof *p);
        if (!p)
            return -1;
        l->records = p;
        l->cap = cap;
    }
    l->records[l->n++] = *r;
    return 0;
}

void harness_comm_log_free(harness_comm_log *l)
{
    free(l->records);
    *l = (harness_comm_log){0};
}

uint64_t harness_comm_size(harness_coll_kind kind, size_t count, size_t elem, int world_size)
{
    switch (kind) {
    case HARNESS_COLL_ALL_GATHER:
    case HARNESS_COLL_REDUCE_SCATTER:
        return (uint64_t)count * elem * (uint64_t)world_size;
    case HARNESS_COLL_BARRIER:
        return 0;
    default:
        return (uint64_t)count * elem;
    }
}

double harness_busbw_factor(harness_coll_kind kind, int world_size)
{
    double n = world_size;
    switch (kind) {
    case HARNESS_COLL_ALL_REDUCE: return 2.0 * (n - 1) / n;
    case HARNESS_COLL_ALL_GATHER:
    case HARNESS_COLL_REDUCE_SCATTER: return (n - 1) / n;
    case HARNESS_COLL_BROADCAST:
    case HARNESS_COLL_SEND_RECV: return 1.0;
    case HARNESS_COLL_BARRIER: return 0.0;
    }
    return 0.0;
}

const char *harness_coll_name(harness_coll_kind kind)
{
    static const char *const names[] = {"?",         "all_reduce", "all_gather", "reduce_scatter",
                                        "broadcast", "barrier",    "send_recv"};
    return kind >= HARNESS_COLL_ALL_REDUCE && kind <= HARNESS_COLL_SEND_RECV ? names[kind] : names[0];
}

const char *harness_dtype_name(harness_dtype dtype)
{
    static const char *const names[] = {"?", "fp32", "bf16", "fp16", "fp64", "int32"};
    return dtype >= HARNESS_DTYPE_F32 && dtype <= HARNESS_DTYPE_I32 ? names[dtype] : names[0];
}

static size_t find_row(const harness_comm_row *rows, size_t n, const harness_comm_record *r)
{
    for (size_t i = 0; i < n; i++)
        if (rows[i].kind == r->kind && rows[i].dtype == r->dtype && rows[i].bytes == r->bytes &&
            rows[i].peer == r->peer)
            return i;
    return n;
}

int harness_comm_table(const harness_comm_log *l, const harness_clock *clk, int world_size, harness_comm_row **rows,
                       size_t *n)
{
    *rows = NULL;
    *n = 0;
    if (!l || l->n == 0)
        return 0;
    harness_comm_row *t = calloc(l->n, sizeof *t);
    if (!t)
        return -1;
    size_t used = 0;
    for (size_t i = 0; i < l->n; i++) {
        const harness_comm_record *r = &l->records[i];
        double ns = harness_clock_ns(clk, r->t1 - r->t0);
        size_t k = find_row(t, used, r);
        if (k == used)
            t[used++] = (harness_comm_row){.kind = r->kind, .peer = r->peer, .dtype = r->dtype, .bytes = r->bytes,
                                           .min_ns = ns, .max_ns = ns};
        harness_comm_row *row = &t[k];
        row->calls++;
        row->total_ns += ns;
        row->min_ns = ns < row->min_ns ? ns : row->min_ns;
        row->max_ns = ns > row->max_ns ? ns : row->max_ns;
    }
    for (size_t k = 0; k < used; k++) {
        harness_comm_row *row = &t[k];
        row->mean_ns = row->total_ns / (double)row->calls;
        row->algbw_gbps = row->mean_ns > 0 ? (double)row->bytes / row->mean_ns : 0;
        row->busbw_gbps = row->algbw_gbps * harness_busbw_factor(row->kind, world_size);
    }
    *rows = t;
    *n = used;
    return 0;
}

int harness_comm_peer_medians(const harness_comm_log *l, const harness_clock *clk, int world_size,
                              double *median_ns, double *bytes)
{
    for (int p = 0; p < world_size; p++)
        median_ns[p] = bytes[p] = NAN;
    size_t n = l ? l->n : 0;
    double *times = malloc(sizeof *times * (n ? n : 1));
    if (!times)
        return -1;
    for (int p = 0; p < world_size; p++) {
        size_t k = 0;
        for (size_t i = 0; i < n; i++) {
            const harness_comm_record *r = &l->records[i];
            if (r->kind != HARNESS_COLL_SEND_RECV || r->peer != p)
                continue;
            times[k++] = harness_clock_ns(clk, r->t1 - r->t0);
            bytes[p] = (double)r->bytes;
        }
        harness_stats st;
        if (k > 0 && harness_stats_compute(times, k, &st) == 0)
            median_ns[p] = st.median;
    }
    free(times);
    return 0;
}

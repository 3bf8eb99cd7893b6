/* comm_log.h - every collective a plugin called (ABI 2.2), timed on the
 * host clock, and the per-operation table the summaries print: calls, time,
 * and the bandwidths nccl-tests defines (algbw = size / time; busbw = algbw
 * x a factor per operation, so that it compares with the link's speed
 * whatever the number of ranks). */
#ifndef HARNESS_COMM_LOG_H
#define HARNESS_COMM_LOG_H

#include <stddef.h>
#include <stdint.h>

#include "backend/clock.h"
#include "dist/dist.h"

typedef struct harness_comm_record {
    harness_coll_kind kind;
    harness_dtype dtype;
    uint64_t bytes;                /* nccl-tests' size: see harness_comm_size */
    uint64_t t0, t1;               /* clock ticks around the call */
    int peer;                      /* send_recv: the other rank; -1 for a collective */
} harness_comm_record;

typedef struct harness_comm_log {
    harness_comm_record *records;
    size_t n, cap;
} harness_comm_log;

/* 0, or -1 out of memory (the record is dropped). */
int harness_comm_log_add(harness_comm_log *l, const harness_comm_record *r);
void harness_comm_log_free(harness_comm_log *l);

/* nccl-tests' size of a call: the buffer each rank ends with for all-reduce
 * and broadcast, the whole gathered / scattered buffer (world x count) for
 * all-gather and reduce-scatter; 0 for a barrier. */
uint64_t harness_comm_size(harness_coll_kind kind, size_t count, size_t elem, int world_size);
/* busbw / algbw: 2(n-1)/n for all-reduce, (n-1)/n for all-gather and
 * reduce-scatter, 1 for broadcast and send_recv, 0 for a barrier. */
double harness_busbw_factor(harness_coll_kind kind, int world_size);
const char *harness_coll_name(harness_coll_kind kind);
const char *harness_dtype_name(harness_dtype dtype);

/* One row per (operation, dtype, size, peer), in first-call order. */
typedef struct harness_comm_row {
    harness_coll_kind kind;
    int peer;                      /* send_recv's other rank; -1 for a collective */
    harness_dtype dtype;
    uint64_t bytes;
    size_t calls;
    double total_ns, mean_ns, min_ns, max_ns;
    double algbw_gbps, busbw_gbps; /* at the mean time; GB/s = bytes per ns */
} harness_comm_row;

/* *rows malloc'ed (NULL when the log is empty). 0, or -1 out of memory. */
int harness_comm_table(const harness_comm_log *l, const harness_clock *clk, int world_size, harness_comm_row **rows,
                       size_t *n);

/* This rank's row of the pair matrix: median_ns[p] the median time of its
 * send_recv calls with rank p, bytes[p] their size (the last call's), NAN
 * both where it exchanged nothing with p. Arrays of world_size. 0, or -1
 * out of memory. */
int harness_comm_peer_medians(const harness_comm_log *l, const harness_clock *clk, int world_size,
                              double *median_ns, double *bytes);

#endif

/* trace_merge.h - profiler_trace_ranks_N.json: the traces of a job's
 * profiled ranks in one file on one time base (rank 0's clock, from the
 * earliest trace's zero), a process per rank, for
 * Perfetto. Rank 0 writes it after every rank wrote its own trace (the
 * folder must be on a file system all ranks share, as it must for their
 * files anyway). */
#ifndef HARNESS_TRACE_MERGE_H
#define HARNESS_TRACE_MERGE_H

#include <stdint.h>

#include "util/error.h"

/* What rank 0 needs of each rank's trace. */
typedef struct harness_trace_part {
    int rank;
    int traced;                    /* wrote profiler_trace_ranks_N_rank_r.json */
    uint64_t base_monotonic_ns;    /* its trace's time zero on its own clock */
    uint64_t base_unix_ns;         /* the same instant on its wall clock (baseTimeNanoseconds) */
    int64_t clock_offset_ns;       /* its clock minus rank 0's */
} harness_trace_part;

/* The shift (ns) that puts rank `part`'s trace times on the time base of
 * `origin`'s trace (both on rank 0's clock). */
int64_t harness_trace_shift_ns(const harness_trace_part *part, const harness_trace_part *origin);

/* Reads the traced ranks' files in `dir`, writes the merged file there. A
 * process id that is not the rank (GPU traces: the OS pid, device indexes)
 * becomes (rank + 1) x 1000000 + pid mod 1000000, so ranks never share one.
 * 0 or err. */
int harness_trace_merge(const char *dir, int world_size, const harness_trace_part *parts, harness_error *err);

#endif

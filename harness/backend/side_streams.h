/* side_streams.h - the device work of the trace window that ran on a stream
 * other than the one the harness times (issue 37; docs/timing-integrity.md,
 * "Anti-cheat on the GPU"). The events on the component's stream never see
 * such work, so a step that launches its kernel on a stream of its own
 * times as nearly nothing. CUPTI's records carry each kernel's, copy's and
 * set's stream; this finds those off the timed stream, grouped by what
 * they are, so a failure can name them. Pure, over the records
 * (backend/gpu_activity.h): unit-tested with synthetic ones.
 *
 * Libraries may fork work onto streams of their own and join it back with
 * events before the step returns; the records alone cannot tell a joined
 * fork from a cheat. So this list fails a run only together with the check
 * of the events against a full synchronize (run/full_sync.h): that check
 * disagreeing fails the run and the failure names these; agreeing, they
 * are reported (a warning), not failed. */
#ifndef HARNESS_SIDE_STREAMS_H
#define HARNESS_SIDE_STREAMS_H

#include <stddef.h>
#include <stdint.h>

#include "backend/gpu_activity.h"

/* One kind of work seen off the timed stream. */
typedef struct harness_side_work {
    harness_gpu_activity_kind kind; /* KERNEL, MEMCPY or MEMSET */
    const char *name;              /* the kernel's name, the copy's kind, or "memset" (owned by the list) */
    uint32_t stream;               /* CUPTI's stream id */
    uint64_t calls;
    uint64_t total_ns;             /* their device time together */
} harness_side_work;

/* The device records of l (kernels, copies, sets) on a stream other than
 * `timed`, grouped by kind, name and stream in order of first appearance:
 * up to max groups into out; returns how many. Records of groups that did
 * not fit are counted in *left_out. */
size_t harness_side_work_find(const harness_gpu_activity_list *l, uint32_t timed, harness_side_work *out,
                              size_t max, uint64_t *left_out);

/* "NAME (stream S, N calls), ..." for people, at most cap bytes. */
void harness_side_work_text(const harness_side_work *w, size_t n, uint64_t left_out, char *out, size_t cap);

#endif

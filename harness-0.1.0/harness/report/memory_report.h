/* memory_report.h - profiler_memory_ranks_N_rank_r.html: one self-contained
 * HTML5 file (inline CSS and SVG, no script, nothing fetched) with the peak
 * figures, a timeline of the memory samples over the steps with the phases
 * shaded, and the live allocations at the peak.
 *
 * Elements tests can rely on:
 *   <td id="peak-allocated" data-bytes="N">     the input's peak_allocated
 *   <td id="peak-reserved" data-bytes="N">      the input's peak_reserved
 *   <td id="samples" data-count="N">            log->n
 *   <td id="device-total" data-bytes="N">       device_total, when it is not 0
 *   <svg id="memory-timeline" ...>              exactly one <svg> in the file
 *   <circle id="peak-marker" data-bytes="N" data-step="S">   when peak > 0 and n > 0
 *   <polyline|circle id="series-allocated|series-reserved|series-peak"
 *             data-points="K" data-max-bytes="M">   M = the largest value drawn
 *   <table id="allocations">, one <tr class="alloc" data-bytes="N"> per
 *             allocation, largest first; past HARNESS_MEMORY_REPORT_MAX_ROWS
 *             one <tr class="more" data-bytes="rest">; the total in
 *             <tr id="allocations-total" data-bytes="N"> */
#ifndef HARNESS_MEMORY_REPORT_H
#define HARNESS_MEMORY_REPORT_H

#include <stddef.h>
#include <stdint.h>

#include "backend/alloc_tracker.h"
#include "run/memory_log.h"

typedef struct harness_memory_report_input {
    const char *title;             /* e.g. "rms_norm/cpu - rank 0 of 1"; NULL: none */
    const char *device;            /* "cpu" or "cuda": the legend's wording; NULL: generic */
    const char *subtitle;          /* free text: config name, start time, host; NULL: none */
    const harness_memory_log *log; /* NULL: no samples */
    uint64_t peak_allocated;       /* the tracker's high-water mark (the summary JSON's number) */
    uint64_t peak_reserved;
    const harness_allocation *at_peak; /* not modified; NULL when n_at_peak is 0 */
    size_t n_at_peak;
    uint64_t device_total;         /* a GPU's memory size (a row of its own); 0: not a GPU */
} harness_memory_report_input;

/* Samples drawn as they are up to this many; past it, the step range is cut
 * into HARNESS_MEMORY_REPORT_BUCKETS buckets and each keeps its min and max. */
#define HARNESS_MEMORY_REPORT_MAX_POINTS 1000
#define HARNESS_MEMORY_REPORT_BUCKETS 500
/* Rows of the allocation table; the rest are summed in one last row. */
#define HARNESS_MEMORY_REPORT_MAX_ROWS 500

/* The whole file, NUL-terminated, malloc'ed (free it); NULL on OOM or NULL in. */
char *harness_memory_report_html(const harness_memory_report_input *in);

#endif

/* impossible_figure.h - a rate the hardware cannot reach.
 *
 * A figure above its peak is a low peak or a bad measurement; a figure above
 * the peak by more than the peak's own uncertainty (its margin,
 * backend/peak_margin.h) can only be a bad measurement or a component that
 * does less than it declares (a kernel that caches or skips work, a timer
 * that misses some). Such a run fails (pipeline/run_point.c: status
 * "impossible_figure", exit 3) unless `--allow-above-peak` keeps it, and
 * compare, ab and history refuse to judge it (compare/compare_load.c).
 *
 * Bandwidth has one more allowance: the peak is the memory's, and a step
 * whose data stays in cache between steps passes it legitimately. At most
 * the caches' capacity of a step's bytes can come from cache, so the rest,
 * step - cache, crosses the memory at most at its peak: a step of `step`
 * bytes is bounded by peak x step / (step - cache). A step that fits in
 * cache (or a cache of unknown size) has no bound; one whose caches are
 * emptied before each timed step (schedule.flush_l2) has the peak itself.
 * Declared bytes are assumed distinct (bytes read + bytes written, as
 * components count them); a component counting a byte twice declares more
 * than it moves, which is what the error is there to catch. */
#ifndef HARNESS_IMPOSSIBLE_FIGURE_H
#define HARNESS_IMPOSSIBLE_FIGURE_H

#include <stddef.h>

#include "report/warnings.h"

typedef enum {
    HARNESS_FIGURE_FINE,           /* at or below its peak, or unknown */
    HARNESS_FIGURE_ABOVE_PEAK,     /* above the peak, within its margin (or what the caches serve): a warning */
    HARNESS_FIGURE_IMPOSSIBLE      /* beyond: an error, unless allowed */
} harness_figure_verdict;

typedef struct harness_figure {
    const char *what;              /* "bandwidth" | "FLOP rate" */
    const char *unit;              /* "B/s" | "FLOP/s" */
    int bandwidth;                 /* bytes: the caches may serve part of a step */
    double rate;                   /* achieved, per second, at the median step */
    double peak;                   /* the physical peak (FLOP/s: the machine's fastest unit); <= 0 unknown */
    const char *peak_name;         /* "copy bandwidth", "fp32 FLOP/s", ... */
    const char *source;            /* where the peak came from, or NULL */
    int from_machine_file;         /* calibrated (the advice: recalibrate), else a datasheet */
    double margin;                 /* the peak's uncertainty factor; < 1: the default for the source */
    const char *margin_why;        /* why that margin, or NULL */
    double step_bytes;             /* bandwidth: declared bytes per step */
    double cache_bytes;            /* bandwidth: on-chip cache; 0 unknown */
    int caches_flushed;            /* bandwidth: schedule.flush_l2 */
} harness_figure;

/* The margin used: f->margin, or the default of the peak's source when
 * f->margin < 1 (HARNESS_MARGIN_CALIBRATED_DEFAULT or _DATASHEET). */
double harness_figure_margin(const harness_figure *f);

/* What the caches allow on top of the peak: step / (step - cache) for
 * bandwidth when part of the step may be cached; 1 for FLOP/s, flushed
 * caches or no cost; INFINITY when the whole step may be cached or the
 * cache's size is unknown. */
double harness_figure_cache_factor(const harness_figure *f);

/* peak x cache factor x margin: above it, the figure is impossible. */
double harness_figure_limit(const harness_figure *f);

/* The verdict, and the message for either kind (msg untouched when FINE):
 * "impossible figure: <what> <value> is above the peak of <peak>
 * (<source>); a measurement or a component is wrong. ..." with how far,
 * the margin and what to do; `allowed` (--allow-above-peak) says the run
 * was kept. ABOVE_PEAK: an "above peak: " warning saying it is within the
 * peak's uncertainty or within what the caches can serve. */
harness_figure_verdict harness_figure_judge(const harness_figure *f, int allowed, char *msg, size_t cap);

/* What the summary keeps of the first impossible figure (JSON
 * "impossible_figure"); what[0] == 0: none. */
typedef struct harness_impossible_figure {
    char what[32];                 /* "bandwidth" | "flops" (the JSON's names) */
    double rate, peak, limit, margin;
    int allowed;                   /* kept by --allow-above-peak */
    char message[HARNESS_WARNING_LEN];
} harness_impossible_figure;

/* A rate for messages: "312.4 GB/s", "1.0 kFLOP/s" (SI prefixes). */
const char *harness_format_rate(double per_s, const char *unit, char *buf, size_t cap);

#endif

/* ab_run.h - the rounds of `harness ab`: every benchmark's base and
 * candidate run back to back as fresh `harness run` processes, round after
 * round, the order alternating (harness_ab_base_first). cmd_ab.c parses
 * and reports; this runs. */
#ifndef HARNESS_AB_RUN_H
#define HARNESS_AB_RUN_H

#include <stddef.h>

#include "cli/report_files.h"
#include "compare/compare.h"
#include "compare/printer.h"
#include "util/term.h"
#include "util/error.h"

#define HARNESS_AB_MAX_EXTRA 64    /* --set and --*-plugin-path arguments kept, flag and value each */

/* One benchmark: its config on each side (two commits of a config, or one
 * config of a suite for both), and the folder its rounds go into under
 * --output-dir ("" for a lone benchmark). */
typedef struct harness_ab_bench {
    char *config[2];               /* base, cand (malloc'ed) */
    char folder[128];
} harness_ab_bench;

typedef struct harness_ab_opts {
    const char *paths[64];         /* the CONFIG arguments */
    size_t n_paths;
    const char *extra[2][HARNESS_AB_MAX_EXTRA]; /* per side: "--set" V, "--plugin-path" D */
    size_t n_extra[2];
    int rounds, rounds_given;
    double time_budget_s;          /* --time-budget; 0 none */
    const char *output_dir;
    const char *filter;            /* --filter, passed to every run (a sweep's point) */
    const char *tree[2];           /* --base-tree, --cand-tree: CONFIG paths are inside each */
    harness_compare_options o;
    const harness_printer *printer;    /* --format */
    harness_report_files reports;  /* --report FORMAT=FILE */
    harness_color_mode color;      /* --color, the text format's verdicts */
    int wide;                      /* --wide: the text table at full width */
    int allow_above_peak;          /* --allow-above-peak, passed to every run */
    int quiet;                     /* --quiet: no progress line */
    harness_ab_bench *bench;
    size_t n_bench;
} harness_ab_opts;

/* `harness validate` of every benchmark's both sides before any round:
 * a bad side fails at once with the child's message, nothing run. Both
 * this and harness_ab_run show a progress line (util/progress.h). */
int harness_ab_validate(const harness_ab_opts *a, harness_error *err);

/* Run the rounds into sides[0] (base) and sides[1] (cand), benchmark-major
 * (harness_compare_rounds' order). With a time budget the first round is
 * timed and sets how many fit (at most a->rounds); too few to reach alpha
 * is exit 2 before a second round. *rounds: the rounds run. */
int harness_ab_run(const harness_ab_opts *a, harness_compare_side sides[2], int *rounds, harness_error *err);

#endif

/* bench_filter.h - `--filter PATTERN`: which benchmarks of a suite (and
 * which points of a sweep) run or are listed. A benchmark is named
 * "EXPERIMENT_NAME VARIANT_KEY" and, for a sweep point, " KEY=VALUE" for
 * each swept key (the last part of its dotted name); PATTERN is a POSIX
 * extended regular expression searched anywhere in that name, as Google
 * Benchmark's --benchmark_filter is: `rms_norm`, `cpu$`, `hidden_size=4096`. */
#ifndef HARNESS_BENCH_FILTER_H
#define HARNESS_BENCH_FILTER_H

#include <regex.h>
#include <stddef.h>

#include "util/error.h"

typedef struct harness_bench_filter {
    const char *pattern;           /* NULL: everything matches */
    regex_t re;
} harness_bench_filter;

/* 0, or 2 naming --filter and what regcomp says is wrong with it. */
int harness_bench_filter_init(harness_bench_filter *f, const char *pattern, harness_error *err);
void harness_bench_filter_free(harness_bench_filter *f);

/* Whether a benchmark's name (harness_plan_bench_name) passes the filter. */
int harness_bench_filter_match(const harness_bench_filter *f, const char *name);

#endif

/* export_write.h - an export table as CSV (RFC 4180) or JSON (an array of
 * objects with every column, pandas.read_json's "records"), and in the
 * formats of the tools CI users already look at (export_bmf.c,
 * export_gha.c, export_gbench.c, each saying what it writes): 0, or -1
 * out of memory. */
#ifndef HARNESS_EXPORT_WRITE_H
#define HARNESS_EXPORT_WRITE_H

#include <stdio.h>

#include "cli/export_table.h"

void harness_export_write_csv(const harness_export_table *t, FILE *f);
/* 0, or -1 when out of memory. */
int harness_export_write_json(const harness_export_table *t, FILE *f);

/* Bencher Metric Format: per run rows (harness_export_table.per_run). */
int harness_export_write_bmf(const harness_export_table *t, FILE *f);
/* github-action-benchmark's custom JSON: latency (customSmallerIsBetter) or,
 * throughput set, steps per second (customBiggerIsBetter); per run rows. */
int harness_export_write_gha(const harness_export_table *t, FILE *f, int throughput);
/* Google Benchmark's JSON: per window rows, each a repetition. */
int harness_export_write_gbench(const harness_export_table *t, FILE *f);

#endif

/* export_series.h - what the machine formats of `harness export` (bmf,
 * gha, gbench: export_bmf.c, export_gha.c, export_gbench.c) share: the
 * table's rows grouped by benchmark name (compare/bench_id.h), and its
 * cells read back as numbers and strings. */
#ifndef HARNESS_EXPORT_SERIES_H
#define HARNESS_EXPORT_SERIES_H

#include <stdio.h>

#include <cjson/cJSON.h>

#include "cli/export_table.h"

/* An object: benchmark name -> array of references to its rows (the table
 * keeps them), in the order first seen. Only rows of "ok" runs that
 * measured (a median) when `measured`; a row without a benchmark name (a
 * rank that left no summary) never. *left_out counts the rows so dropped.
 * NULL out of memory. */
cJSON *harness_export_series(const harness_export_table *t, int measured, size_t *left_out);

/* A cell as a number: NAN when null or absent. */
double harness_export_num(const cJSON *row, const char *column);
/* A cell as a string: NULL when null or absent. */
const char *harness_export_str(const cJSON *row, const char *column);

/* What a benchmark's rows say of a column, into out {value, lower, upper}:
 * for one row with a value, that value with the row's `lo_col` and `hi_col`
 * (the interval of its median; NULL: none); for several, the median of their
 * values bounded by the smallest and largest (the spread between the runs,
 * the harness's replicates). Returns how many rows had a value (0: out is
 * all NAN); -1 out of memory. */
int harness_export_spread(const cJSON *rows, const char *col, const char *lo_col, const char *hi_col, double out[3]);

/* root to f (scrubbed to valid UTF-8, indented, a last newline), then
 * deleted; 0, or -1 out of memory (root may be NULL: out of memory). */
int harness_export_print(FILE *f, cJSON *root);

/* " (N rows of runs not ok or without a measurement left out)" to stderr
 * when n > 0: the formats have no place for a failed run. */
void harness_export_note_left_out(const char *format, size_t n);

#endif

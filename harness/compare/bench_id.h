/* bench_id.h - the one name of a benchmark in the machine formats (export
 * --format bmf, gha and gbench, the export's "benchmark" column, and the
 * JUnit test cases of compare and ab): what a dashboard keys its series by,
 * so it is the same in every format and from run to run.
 *
 *   EXPERIMENT/VARIANT_KEY/KEY=VALUE,KEY=VALUE...[/rank=R]
 *
 * every component parameter in the config's order (a sweep point differs
 * in its swept keys), "-" for a component without parameters, "?" for a
 * part the summary lacks; "/rank=R" only in a job of several ranks. Nothing
 * that changes between two runs of one config (no time, no folder, no
 * host) is in it: a series survives across runs. */
#ifndef HARNESS_COMPARE_BENCH_ID_H
#define HARNESS_COMPARE_BENCH_ID_H

#include <stddef.h>

struct cJSON;

/* The name into buf (truncated to cap); returns buf. */
const char *harness_bench_id(const char *experiment, const char *variant_key, const struct cJSON *config, int rank,
                             int world_size, char *buf, size_t cap);

#endif

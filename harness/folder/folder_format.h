/* folder_format.h - the experiment folder's format in one place
 * (docs/ARCHITECTURE.md section 7): the name of every file a run writes and
 * the schema id of every JSON file, for writers and readers alike, so that
 * no second spelling can drift from the first.
 *
 * It sits in util/, the earliest stage, because the folder's writers span
 * util/ (status_file.c, which a crash handler calls), report/, pipeline/ and
 * cli/ (the suite's index), and its readers compare/ and cli/: a later stage
 * could not be included by all of them. */
#ifndef HARNESS_FOLDER_FORMAT_H
#define HARNESS_FOLDER_FORMAT_H

#include <stddef.h>

struct cJSON;                      /* only its readers need cJSON itself */

/* Schema ids: the "schema" key of each JSON file (the samples file's header
 * format name). A reader accepts exactly these. */
#define HARNESS_SCHEMA_SUMMARY "harness.summary/1"
#define HARNESS_SCHEMA_STATUS "harness.status/1"
#define HARNESS_SCHEMA_SAMPLES "harness.samples/1"
#define HARNESS_SCHEMA_SUITE "harness.suite/1"
#define HARNESS_SCHEMA_JOB_SUMMARY "harness.job_summary/1"

/* Files with one name per folder. */
#define HARNESS_FILE_STATUS "status.json"              /* rank 0's; other ranks: HARNESS_PREFIX_STATUS */
#define HARNESS_FILE_RESOLVED_CONFIG "resolved_config.yaml"
#define HARNESS_FILE_JOB_SUMMARY "summary.json"        /* rank 0 of several ranks */
#define HARNESS_FILE_JOB_SUMMARY_TXT "summary.txt"
#define HARNESS_FILE_PAIRS_HTML "pairs.html"           /* rank 0, when ranks exchanged with send_recv */
#define HARNESS_FILE_SUITE_INDEX "index.json"          /* a suite's parent folder */

/* Per-rank files are "<prefix>_ranks_<N>_rank_<r>.<ext>". */
#define HARNESS_PREFIX_SUMMARY "summary"
#define HARNESS_PREFIX_STATUS "status"
#define HARNESS_PREFIX_PROFILER_SUMMARY "profiler_summary"
#define HARNESS_PREFIX_SAMPLES "samples"
#define HARNESS_PREFIX_HOST_SAMPLES "host_samples"
#define HARNESS_PREFIX_CLOCK_SAMPLES "sm_clock_samples"   /* a GPU run's SM clock per sample, MHz (0 unknown) */
#define HARNESS_PREFIX_TRACE "profiler_trace"
#define HARNESS_PREFIX_MEMORY "profiler_memory"

/* The most ranks a reader believes a file name about: a stray name must
 * not make a reader list (and allocate) a billion missing ranks. */
#define HARNESS_FOLDER_MAX_RANKS 65536

/* "<prefix>_ranks_<N>_rank_<r>.<ext>" into buf. */
const char *harness_rank_file(char *buf, size_t cap, const char *prefix, int world_size, int rank, const char *ext);

/* A file of the whole job, merged from its ranks' ("profiler_trace_ranks_4.json"):
 * "<prefix>_ranks_<N>.<ext>" into buf. */
const char *harness_job_file(char *buf, size_t cap, const char *prefix, int world_size, const char *ext);

/* The status file of rank r of a job of world_size ranks: status.json for
 * rank 0 (the folder's status), status_ranks_N_rank_r.json for the others. */
const char *harness_status_file_name(char *buf, size_t cap, int world_size, int rank);

/* A per-rank JSON file name as harness_rank_file spells it: 1 with *ws and
 * *rank; -1 for that spelling with a number over HARNESS_FOLDER_MAX_RANKS
 * (*ws = *rank = -1); 0 for any other name. Only the exact spelling counts,
 * so "summary_ranks_+2..." or "..._rank_01.json" are stray files. */
int harness_rank_file_parse(const char *name, const char *prefix, int *ws, int *rank);

/* 0 when root's "schema" is `expected`; else 1 with why saying what it is
 * instead (no path: the caller names the file). */
int harness_schema_check(const struct cJSON *root, const char *expected, char *why, size_t cap);

#endif

/* rank_summary.h - one rank's summary_ranks_N_rank_r.json
 * ("harness.summary/1", docs/ARCHITECTURE.md section 7) as a typed record,
 * and its reader: the only code that parses that file. compare, ab,
 * record, history, export and --baseline-db all take this record (compare
 * calls it harness_run_summary), so a field is added once: here, in the
 * writer (report/summary_json.c), in the reader (rank_summary*.c) and in
 * tests/unit/test_folder_codec.c.
 *
 * The rules for a member are json_fields.h's: absent or null is unknown
 * (NAN, NULL, -1), another kind is exit 2 naming the file and the key. The
 * members every summary has had since schema 1 (schema, rank, world_size,
 * component.variant_key, component.config, status, timing and its samples)
 * are required. */
#ifndef HARNESS_FOLDER_RANK_SUMMARY_H
#define HARNESS_FOLDER_RANK_SUMMARY_H

#include "folder/rank_summary_record.h"
#include "util/error.h"

/* Reads the summary at path (a regular file of sane size: util/input_file.h;
 * exit 2 naming it otherwise). 0, or exit 2 with the file and the key (or
 * the line and column of bad JSON), 3 out of memory or I/O. *out is zeroed
 * first and freed on failure. */
int harness_rank_summary_read(const char *path, int flags, harness_rank_summary *out, harness_error *err);

/* The same from text already read; path names it in messages and locates a
 * samples side file. */
int harness_rank_summary_parse(const char *path, const char *text, size_t len, int flags, harness_rank_summary *out,
                               harness_error *err);

void harness_rank_summary_free(harness_rank_summary *r);

/* "k=v, k=v" of a config object: strings bare, anything else as compact
 * JSON; "-" when empty. NULL out of memory. */
struct cJSON;
char *harness_rank_summary_config_text(const struct cJSON *config);

/* ---- writing (rank_summary_write.c) ---- */

/* What report/summary_json.c hands the writer for one rank: the head of
 * the summary typed, and each section as the JSON report/ built (each a
 * record of its own here is the next step: docs/ARCHITECTURE.md section
 * 12). The writer owns the file's frame: the schema id, the members and
 * their order. The sections are taken (freed by the writer); NULL: null. */
typedef struct harness_rank_summary_out {
    const char *status, *error;    /* error NULL or "": null */
    int interrupted, rank, world_size;
    const char *experiment_name, *variant_key, *requested, *plugin, *device_type, *device_name;
    struct cJSON *config, *component_notes;
    struct cJSON *validation, *schedule, *timing, *throughput, *energy, *roofline, *regions, *memory, *trace,
        *communication, *gpu_kernels;
    double gpu_activity_dropped, gpu_activity_untimed;   /* NAN: no GPU activity recorded (null) */
    struct cJSON *env, *warnings, *impossible_figure, *noise;
} harness_rank_summary_out;

/* The summary's JSON text (malloc'ed; NULL out of memory). */
char *harness_rank_summary_write(harness_rank_summary_out *o);

#endif

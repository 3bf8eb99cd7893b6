/* rank_summary.h - one rank's summary_ranks_N_rank_r.json
 * ("harness.summary/1", docs/ARCHITECTURE.md section 7) as a typed record,
 * and its reader: the only code that parses that file. compare, ab,
 * record, history, export and --baseline-db all take this record (compare
 * calls it harness_run_summary), so a field is added once: here, in the
 * record the writer takes (rank_summary_out.h), in its writer and reader
 * (rank_summary*.c, a section's side by side) and in
 * tests/unit/test_folder_codec.c.
 *
 * The rules for a member are json_fields.h's: absent or null is unknown
 * (NAN, NULL, -1), another kind is exit 2 naming the file and the key. The
 * members every summary has had since schema 1 (schema, rank, world_size,
 * component.variant_key, component.config, status, timing and its samples)
 * are required. */
#ifndef HARNESS_FOLDER_RANK_SUMMARY_H
#define HARNESS_FOLDER_RANK_SUMMARY_H

#include "folder/rank_summary_out.h"
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

/* The summary's JSON text from its record (rank_summary_out.h: filled by
 * report/summary_json.c from a live run). The writer owns the file: the
 * schema id, the members and their order, each section's keys; the cJSON
 * subtrees the record carries are taken (freed here). */
char *harness_rank_summary_write(harness_rank_summary_out *o);

#endif

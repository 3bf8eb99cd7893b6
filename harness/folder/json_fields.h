/* json_fields.h - the one set of rules by which folder/ reads a member of
 * a JSON file it owns, so that every reader of every file says the same
 * about the same fault:
 *   - absent, or null: not said (NAN, NULL, -1): an older harness, or a
 *     figure that could not be measured;
 *   - a value of another kind: the file's fault, exit 2, with the file and
 *     the dotted key ("PATH: timing.windows[2].median: expected a number or
 *     null, got a string");
 *   - out of memory: exit 3.
 * `obj` may be NULL (its parent was absent or null): every member is then
 * absent. `prefix` is the dotted path of obj with its trailing dot
 * ("timing." or ""), so messages name the key as the file nests it. */
#ifndef HARNESS_FOLDER_JSON_FIELDS_H
#define HARNESS_FOLDER_JSON_FIELDS_H

#include <cjson/cJSON.h>

#include "util/error.h"

/* "missing", "an object", "a string", ... for messages. */
const char *harness_field_kind(const cJSON *j);

/* Exit 2: "PATH: <message>". */
int harness_field_bad(harness_error *err, const char *path, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int harness_field_oom(harness_error *err);

/* A number, or NAN. */
int harness_field_number(const cJSON *obj, const char *prefix, const char *key, const char *path, double *out,
                         harness_error *err);
/* A whole number from 0 to 1e9, or dflt when absent or null; another number
 * is exit 2: "PATH: PREFIXKEY: expected <expected>, got N". */
int harness_field_whole(const cJSON *obj, const char *prefix, const char *key, const char *path, int dflt,
                        const char *expected, int *out, harness_error *err);
/* A string (a copy the caller frees), or NULL. */
int harness_field_string(const cJSON *obj, const char *prefix, const char *key, const char *path, char **out,
                         harness_error *err);
/* true 1, false 0, or -1. */
int harness_field_bool(const cJSON *obj, const char *prefix, const char *key, const char *path, int *out,
                       harness_error *err);
/* An object (borrowed from obj), or NULL. */
int harness_field_object(const cJSON *obj, const char *prefix, const char *key, const char *path,
                         const cJSON **out, harness_error *err);

/* A member that must be there: of cJSON kind `is`, else exit 2 naming it
 * ("missing; not a complete <what>" when absent). NULL with err set. */
const cJSON *harness_field_need(const cJSON *obj, const char *prefix, const char *key, cJSON_bool (*is)(const cJSON *),
                                const char *kind, const char *what, const char *path, harness_error *err);

#endif

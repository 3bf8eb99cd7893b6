/* json_strict.h - whether bytes are one JSON value and nothing else, with
 * every string valid UTF-8 without NULs and no object repeating a key:
 * what a reader of files from outside must insist on before trusting a
 * lenient parser (cJSON) with them. */
#ifndef HARNESS_JSON_STRICT_H
#define HARNESS_JSON_STRICT_H

#include <stddef.h>

typedef struct harness_json_problem {
    size_t offset;                 /* byte offset of the problem */
    char why[160];                 /* "duplicate key \"rank\"", "trailing bytes after the JSON value", ... */
} harness_json_problem;

/* 0 when text[0..len) is strict JSON; else -1 with *out filled. */
int harness_json_check_strict(const char *text, size_t len, harness_json_problem *out);

#endif

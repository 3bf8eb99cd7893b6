/* near_file.h - "did you mean configs/rms_norm.yaml?" for a config file
 * that does not exist: the nearest existing YAML file by name. */
#ifndef HARNESS_NEAR_FILE_H
#define HARNESS_NEAR_FILE_H

#include <stddef.h>

/* The existing *.yaml or *.yml file whose name is nearest to the missing
 * `path`'s (edit distance, util/suggest.h's limit), looked for in path's
 * own folder, then in configs/; written as a path to open (the folder as
 * given, joined with the name) into out. 0 when one is found, -1 when none
 * is near enough. */
int harness_near_yaml(const char *path, char *out, size_t cap);

/* When `path` does not exist and a YAML file is near it, append
 * "; did you mean NEAR?" to err's message (the error of reading it). */
struct harness_error;
void harness_near_yaml_hint(const char *path, struct harness_error *err);

#endif

/* config_source.h - the bytes of a config file, read once per process. */
#ifndef HARNESS_PIPELINE_CONFIG_SOURCE_H
#define HARNESS_PIPELINE_CONFIG_SOURCE_H

#include <stddef.h>

#include "util/error.h"

/* The bytes of the config file at `path`, read on first use and the same
 * for the rest of the process (what was parsed is what the folder copies). */
int harness_config_source(const char *path, const char **text, size_t *len, harness_error *err);

#endif

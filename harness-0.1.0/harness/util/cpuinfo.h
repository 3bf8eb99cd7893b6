/* cpuinfo.h - facts about this machine's CPU from /proc/cpuinfo. */
#ifndef HARNESS_CPUINFO_H
#define HARNESS_CPUINFO_H

#include <stddef.h>

/* The value of the first "key : value" line of /proc/cpuinfo whose key is
 * `key` ("model name", "cpu family", ...), or `fallback`. */
const char *harness_cpuinfo_field(const char *key, const char *fallback, char *out, size_t cap);

#endif

/* json_string.h - a string as a JSON literal, for writers that stream JSON
 * too large to build as a cJSON tree (the trace). */
#ifndef HARNESS_JSON_STRING_H
#define HARNESS_JSON_STRING_H

#include <stdio.h>

/* Writes "s" with quotes, backslashes and control characters escaped; valid
 * UTF-8 passes through, and each byte of an invalid sequence becomes U+FFFD,
 * so the output is always valid JSON whatever a plugin named its region. */
void harness_json_string(FILE *f, const char *s);

#endif

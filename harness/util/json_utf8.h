/* json_utf8.h - cJSON writes a string's bytes as they are: a name taken
 * from a file name or a plugin's path would make JSON that strict readers
 * (the harness's own among them) refuse. Scrub a tree before printing. */
#ifndef HARNESS_JSON_UTF8_H
#define HARNESS_JSON_UTF8_H

#include <cjson/cJSON.h>

/* Every string value and key under `root` made valid UTF-8 in place (an
 * invalid byte becomes '?', util/utf8.h). */
void harness_json_scrub_utf8(cJSON *root);

#endif

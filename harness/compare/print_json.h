/* print_json.h - what the JSON printers (printer.h) share: a tree printed
 * the one way, indented and ending with a newline like the other formats. */
#ifndef HARNESS_COMPARE_PRINT_JSON_H
#define HARNESS_COMPARE_PRINT_JSON_H

#include <stdio.h>

#include <cjson/cJSON.h>

/* root to f, then deleted; 0, or -1 out of memory. */
int harness_print_json(FILE *f, cJSON *root);

#endif

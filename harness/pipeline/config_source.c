/* The config file's bytes, kept for the process (pipeline/config_source.h). */
#include "pipeline/config_source.h"

#include <stdlib.h>
#include <string.h>

#include "util/input_file.h"
#include "util/near_file.h"

/* The config file's bytes, read once per process: every sweep point is
 * parsed from them and the folder's copy is of them, so a FIFO is never
 * read twice and an edit during a sweep changes nothing. Kept to the end. */
static struct {
    char *path, *text;
    size_t len;
} source;

int harness_config_source(const char *path, const char **text, size_t *len, harness_error *err)
{
    if (!source.path || strcmp(source.path, path) != 0) {
        char *t = NULL;
        size_t n = 0;
        if (harness_read_input_file(path, "config", HARNESS_MAX_INPUT_BYTES, HARNESS_EXIT_USAGE, &t, &n, err) != 0) {
            harness_near_yaml_hint(path, err);
            return err->code;
        }
        char *copy = strdup(path);
        if (!copy) {
            free(t);
            return harness_error_set(err, HARNESS_EXIT_RUNTIME, "out of memory");
        }
        free(source.path);
        free(source.text);
        source.path = copy;
        source.text = t;
        source.len = n;
    }
    *text = source.text;
    *len = source.len;
    return 0;
}

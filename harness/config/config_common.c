/* config_common.c - what config.c, config_bind.c and config_set.c share
 * (declared in config_internal.h): kept out of config.c, which calls into
 * the other two, so that no two files of config/ call each other
 * (scripts/arch_figures, "use circles"). */
#include "config/config.h"
#include "config/config_internal.h"
#include "config/config_tree.h"

#include <stdio.h>
#include <string.h>

/* For every allocation failure while loading or binding. */
int harness_cfg_out_of_memory(harness_error *err)
{
    return harness_error_set(err, HARNESS_EXIT_RUNTIME, "out of memory while reading the config");
}

/* "a, b, c" of a NULL-terminated list, for "expected one of ..." messages. */
void harness_cfg_join(char *buf, size_t size, const char *const *words)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; words && words[i] && used < size; i++) {
        int k = snprintf(buf + used, size - used, "%s%s", i ? ", " : "", words[i]);
        if (k < 0)
            break;
        used += (size_t)k;
    }
}

/* Where to point at for something missing under `path`: the closest
 * enclosing thing that was written. */
harness_where harness_cfg_nearest(const harness_config *cfg, const char *path)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", path);
    for (;;) {
        const harness_node_entry *e = harness_tree_find(cfg->tree, buf);
        if (e)
            return e->value->at;
        char *dot = strrchr(buf, '.');
        if (!dot)
            return cfg->tree->root->at;
        *dot = '\0';
    }
}

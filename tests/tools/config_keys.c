/* config_keys: print every key path the config schema accepts, one a line
 * (schedule.stopping.max_rel_ci), walking the same table that validation
 * and the canonical dump walk. The man-page drift test compares this list
 * with harness-config(5) and the bash completion. */
#include <stdio.h>

#include "config/config_internal.h"

static void walk(const harness_cfg_key_spec *keys, const char *prefix)
{
    for (const harness_cfg_key_spec *k = keys; k->name; k++) {
        char path[256];
        snprintf(path, sizeof path, "%s%s%s", prefix, *prefix ? "." : "", k->name);
        puts(path);
        if (k->kind == K_SECTION)
            walk(k->children, path);
    }
}

int main(void)
{
    walk(harness_cfg_top_keys, "");
    return 0;
}

/* bench_filter.c - benchmark names and --filter (bench_filter.h). */
#include "cli/bench_filter.h"

#include <stdio.h>
#include <string.h>

int harness_bench_filter_init(harness_bench_filter *f, const char *pattern, harness_error *err)
{
    f->pattern = pattern;
    if (!pattern)
        return 0;
    int rc = regcomp(&f->re, pattern, REG_EXTENDED | REG_NOSUB);
    if (rc == 0)
        return 0;
    char why[256];
    regerror(rc, &f->re, why, sizeof why);
    f->pattern = NULL;
    return harness_error_set(err, HARNESS_EXIT_USAGE, "--filter '%s': not a valid extended regular expression: %s",
                             pattern, why);
}

void harness_bench_filter_free(harness_bench_filter *f)
{
    if (f->pattern)
        regfree(&f->re);
    f->pattern = NULL;
}

const char *harness_bench_name(const harness_config *cfg, const char *key, char *buf, size_t cap)
{
    size_t len = (size_t)snprintf(buf, cap, "%s %s", cfg->name, key);
    for (size_t k = 0; k < cfg->n_sweep_keys && len < cap; k++) {
        const char *dot = strrchr(cfg->sweep_keys[k], '.');
        len += (size_t)snprintf(buf + len, cap - len, " %s=%s", dot ? dot + 1 : cfg->sweep_keys[k],
                                cfg->sweep_values[k]);
    }
    return buf;
}

int harness_bench_filter_match(const harness_bench_filter *f, const char *name)
{
    return !f->pattern || regexec(&f->re, name, 0, NULL, 0) == 0;
}

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

int harness_bench_filter_match(const harness_bench_filter *f, const char *name)
{
    return !f->pattern || regexec(&f->re, name, 0, NULL, 0) == 0;
}

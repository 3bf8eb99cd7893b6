#include "summary.h"

#include <stdlib.h>
#include <string.h>

int harness_summary_compute(harness_summary *s)
{
    s->windows = NULL;
    memset(&s->overall, 0, sizeof s->overall);
    if (!s->run)
        return 0;
    const harness_run_result *r = s->run;
    if (harness_stats_compute(r->samples_ns, r->n_samples, &s->overall) != 0)
        return -1;
    s->windows = calloc(r->n_windows ? r->n_windows : 1, sizeof *s->windows);
    if (!s->windows)
        return -1;
    for (size_t w = 0; w < r->n_windows; w++)
        if (harness_stats_compute(r->samples_ns + r->window_start[w], harness_window_size(r, w), &s->windows[w]) != 0)
            return -1;
    return 0;
}

void harness_summary_release(harness_summary *s)
{
    free(s->windows);
    s->windows = NULL;
}

const char *harness_format_ns(double ns, char *buf, size_t cap)
{
    static const char *const units[] = {"ns", "us", "ms", "s"};
    int u = 0;
    double v = ns;
    while (u < 3 && (v >= 1000 || v <= -1000)) {
        v /= 1000;
        u++;
    }
    snprintf(buf, cap, "%.4g %s", v, units[u]);
    return buf;
}

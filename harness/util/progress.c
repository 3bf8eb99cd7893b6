/* The progress line (util/progress.h). */
#include "util/progress.h"

#include <string.h>
#include <unistd.h>

#include "util/monotonic.h"

void harness_progress_start(harness_progress *p, const char *what, size_t total, int quiet)
{
    memset(p, 0, sizeof *p);
    snprintf(p->what, sizeof p->what, "%s", what);
    p->total = total;
    p->t0_ns = harness_monotonic_ns();
    if (!quiet && isatty(STDERR_FILENO))
        p->f = stderr;
}

void harness_progress_total(harness_progress *p, size_t total)
{
    p->total = total;
}

/* Seconds as a person reads them: 8.2 s, 42 s, 3 min 20 s. */
static void put_seconds(char *out, size_t cap, double s)
{
    if (s < 10)
        snprintf(out, cap, "%.1f s", s);
    else if (s < 120)
        snprintf(out, cap, "%.0f s", s);
    else
        snprintf(out, cap, "%d min %02d s", (int)(s / 60), (int)s % 60);
}

void harness_progress_text(char *out, size_t cap, const char *what, size_t done, size_t total, const char *detail,
                           double elapsed_s)
{
    char el[32], eta[48] = "";
    put_seconds(el, sizeof el, elapsed_s);
    if (done > 0 && total > done) {
        char left[32];
        put_seconds(left, sizeof left, elapsed_s / (double)done * (double)(total - done));
        snprintf(eta, sizeof eta, "  ETA %s", left);
    }
    if (total == 0) {              /* stages, not a count: no ETA to tell */
        snprintf(out, cap, "%s: %s  %s", what, detail ? detail : "", el);
        return;
    }
    size_t shown = done < total ? done + 1 : total;
    snprintf(out, cap, "%s %zu/%zu%s%s  %s%s", what, shown, total, detail && *detail ? "  " : "",
             detail ? detail : "", el, eta);
}

void harness_progress_show(harness_progress *p, size_t done, const char *detail)
{
    if (!p->f)
        return;
    char line[256];
    double elapsed = (double)(harness_monotonic_ns() - p->t0_ns) * 1e-9;
    harness_progress_text(line, sizeof line, p->what, done, p->total, detail, elapsed);
    fprintf(p->f, "\r\033[K%s\r", line);
    fflush(p->f);
}

void harness_progress_clear(harness_progress *p)
{
    if (!p->f)
        return;
    fputs("\r\033[K", p->f);
    fflush(p->f);
}

/* The output probe after timing (run/after_timing.h). */
#include "run/after_timing.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/format.h"

double harness_probe_wait_ns(double median_step_ns)
{
    double w = 10 * median_step_ns;
    return !(w >= 10e6) ? 10e6 : w > 1e9 ? 1e9 : w;
}

static size_t elem_size(const harness_declared_buffer *d)
{
    return d->count ? d->bytes / d->count : 0;
}

long long harness_first_difference(const void *a, const void *b, const harness_declared_buffer *d)
{
    size_t e = elem_size(d);
    const unsigned char *x = a, *y = b;
    if (!e || memcmp(x, y, d->bytes) == 0)
        return -1;
    for (size_t i = 0; i < d->count; i++)
        if (memcmp(x + i * e, y + i * e, e) != 0)
            return (long long)i;
    return -1;
}

static int all_poison(const unsigned char *p, size_t n)
{
    for (size_t k = 0; k < n; k++)
        if (p[k] != HARNESS_PROBE_POISON)
            return 0;
    return 1;
}

long long harness_first_poisoned(const void *buf, const harness_declared_buffer *d)
{
    size_t e = elem_size(d);
    const unsigned char *p = buf;
    if (!e || d->count == 0)
        return -1;
    if (d->dtype == HARNESS_DTYPE_I32)
        return all_poison(p, d->bytes) ? 0 : -1;
    for (size_t i = 0; i < d->count; i++)
        if (all_poison(p + i * e, e))
            return (long long)i;
    return -1;
}

void harness_format_element(const void *buf, const harness_declared_buffer *d, size_t i, char *out, size_t cap)
{
    const unsigned char *p = (const unsigned char *)buf + i * elem_size(d);
    uint32_t u32;
    uint16_t u16;
    float f;
    double g;
    int32_t k;
    switch (d->dtype) {
    case HARNESS_DTYPE_F32:
        memcpy(&f, p, 4);
        memcpy(&u32, p, 4);
        if (isnan(f))
            snprintf(out, cap, "nan (0x%08" PRIx32 ")", u32);
        else
            snprintf(out, cap, "%.9g", f);
        return;
    case HARNESS_DTYPE_BF16:
        memcpy(&u16, p, 2);
        u32 = (uint32_t)u16 << 16;
        memcpy(&f, &u32, 4);
        if (isnan(f))
            snprintf(out, cap, "nan (0x%04x)", u16);
        else
            snprintf(out, cap, "%.4g", f);
        return;
    case HARNESS_DTYPE_F64:
        memcpy(&g, p, 8);
        snprintf(out, cap, "%.17g", g);
        return;
    case HARNESS_DTYPE_I32:
        memcpy(&k, p, 4);
        snprintf(out, cap, "%" PRId32, k);
        return;
    default:                       /* f16: its bits */
        memcpy(&u16, p, 2);
        snprintf(out, cap, "0x%04x", u16);
        return;
    }
}

/* ---- the probe ------------------------------------------------------------ */

static void pause_ns(double ns)
{
    struct timespec t = {(time_t)(ns / 1e9), (long)fmod(ns, 1e9)};
    while (nanosleep(&t, &t) != 0 && errno == EINTR)
        ;
}

/* dst <- the declared buffer d (a copy from the device, or from host memory). */
static int read_buffer(const harness_probe *p, const harness_declared_buffer *d, void *dst, harness_error *err)
{
    if (!d->device) {
        memcpy(dst, d->ptr, d->bytes);
        return 0;
    }
    return p->backend->ops->copy(p->backend, dst, d->ptr, d->bytes, 0, err);
}

static int poison_outputs(const harness_probe *p, const unsigned char *poison, harness_error *err)
{
    for (int o = 0; o < p->io->n_outputs; o++) {
        const harness_declared_buffer *d = &p->io->outputs[o];
        if (!d->device)
            memset(d->ptr, HARNESS_PROBE_POISON, d->bytes);
        else if (p->backend->ops->copy(p->backend, d->ptr, poison, d->bytes, 1, err) != 0)
            return -1;
    }
    return 0;
}

/* "output 2 (f32 x 4096)" */
static void name_output(const harness_probe *p, int o, char *out, size_t cap)
{
    static const char *const names[] = {"?", "f32", "bf16", "f16", "f64", "i32"};
    const harness_declared_buffer *d = &p->io->outputs[o];
    snprintf(out, cap, "output %d (%s x %zu%s)", o + 1, d->dtype >= 1 && d->dtype <= 5 ? names[d->dtype] : "?",
             d->count, d->device ? ", device memory" : "");
}

/* Reads every output again after the pause and judges it against the
 * copies taken when the step was over. 0, or -1 with err set. */
static int judge_outputs(const harness_probe *p, unsigned char **at_end, unsigned char *later, int probe,
                         harness_probe_report *rep, harness_error *err)
{
    char name[96], was[64], now[64], pause[32];
    harness_format_ns(rep->wait_ns, pause, sizeof pause);
    for (int o = 0; o < p->io->n_outputs && !rep->failure[0]; o++) {
        const harness_declared_buffer *d = &p->io->outputs[o];
        if (read_buffer(p, d, later, err) != 0)
            return -1;
        name_output(p, o, name, sizeof name);
        long long i = harness_first_difference(at_end[o], later, d);
        if (i >= 0) {
            harness_format_element(at_end[o], d, (size_t)i, was, sizeof was);
            harness_format_element(later, d, (size_t)i, now, sizeof now);
            snprintf(rep->failure, sizeof rep->failure, "output changed after timing: element %lld of %s was %s "
                     "when step() was over and %s %s later (probe step %d): the component's work goes on after "
                     "the step (deferred to a thread, another stream or a callback), so the timer never saw it",
                     i, name, was, now, pause, probe);
        } else if ((i = harness_first_poisoned(at_end[o], d)) >= 0) {
            harness_format_element(at_end[o], d, (size_t)i, was, sizeof was);
            snprintf(rep->failure, sizeof rep->failure, "step() did not write its output after timing: element "
                     "%lld of %s still holds the bytes the host wrote there before the step (%s; probe step %d): "
                     "the component skips its work (a cached or replayed output, or several steps' work done "
                     "in one)", i, name, was, probe);
        }
    }
    return 0;
}

/* One probe step; 0 (rep->failure set when the component failed it) or -1. */
static int probe_once(const harness_probe *p, unsigned char **at_end, unsigned char *later,
                      const unsigned char *poison, int probe, harness_probe_report *rep, harness_error *err)
{
    const harness_backend_ops *ops = p->backend->ops;
    if (poison_outputs(p, poison, err) != 0)
        return -1;
    if (p->step(p->arg) != 0)
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "the step failed in the check after timing "
                                 "(probe step %d)", probe) ? -1 : -1;
    if (ops->synchronize && ops->synchronize(p->backend, err) != 0)
        return -1;
    for (int o = 0; o < p->io->n_outputs; o++)
        if (read_buffer(p, &p->io->outputs[o], at_end[o], err) != 0)
            return -1;
    pause_ns(rep->wait_ns);
    if (ops->synchronize_device && ops->synchronize_device(p->backend, err) != 0)
        return -1;
    rep->probes = probe;
    return judge_outputs(p, at_end, later, probe, rep, err);
}

int harness_probe_outputs(const harness_probe *p, harness_probe_report *rep, harness_error *err)
{
    memset(rep, 0, sizeof *rep);
    rep->wait_ns = harness_probe_wait_ns(p->median_step_ns);
    if (p->io->n_outputs == 0)
        return 0;
    size_t most = 0;
    unsigned char *at_end[HARNESS_MAX_DECLARED] = {0};
    int ok = 1;
    for (int o = 0; o < p->io->n_outputs; o++) {
        size_t b = p->io->outputs[o].bytes;
        most = b > most ? b : most;
        ok &= (at_end[o] = malloc(b ? b : 1)) != NULL;
    }
    unsigned char *later = malloc(most ? most : 1), *poison = malloc(most ? most : 1);
    int rc = 0;
    if (!ok || !later || !poison) {
        rc = harness_error_set(err, HARNESS_EXIT_RUNTIME, "out of memory for the check after timing (%zu bytes "
                               "per output)", most) ? -1 : -1;
    } else {
        memset(poison, HARNESS_PROBE_POISON, most);
        /* Both probes even after a failure: every rank runs as many steps,
         * so a step holding a collective meets its peers. */
        for (int probe = 1; probe <= HARNESS_PROBE_STEPS && rc == 0; probe++)
            rc = probe_once(p, at_end, later, poison, probe, rep, err);
    }
    for (int o = 0; o < p->io->n_outputs; o++)
        free(at_end[o]);
    free(later);
    free(poison);
    return rc;
}

/* schedule.rotate_inputs (run/input_sets.h). */
#include "run/input_sets.h"

#include <string.h>

#include "run/services.h"

#define SETS_TAG "rotate_inputs"

/* dst <- src within host memory, or within the device on its stream. */
static int copy_within(const harness_instance *in, int device, void *dst, const void *src, size_t bytes,
                       harness_error *err)
{
    if (!device) {
        memcpy(dst, src, bytes);
        return 0;
    }
    return in->backend->ops->copy_on_stream(in->backend, dst, src, bytes, err);
}

int harness_declared_redraw(harness_instance *in, const harness_declared_buffer *d, void *at)
{
    const harness_services *svc = harness_host_services();
    int rc = d->device ? svc->device_fill(&in->ctx, at, d->count, d->dtype) : svc->fill(&in->ctx, at, d->count, d->dtype);
    return rc != 0 || in->ctx.failed;
}

static int fill_failed(harness_instance *in, harness_error *err)
{
    return harness_error_set(err, HARNESS_EXIT_RUNTIME, "schedule.rotate_inputs: drawing an input set failed: %s",
                             harness_ctx_message(&in->ctx, "no message given")) ? -1 : -1;
}

/* Input i's n sets: what create filled, then fresh draws. */
static int make_sets_of(harness_input_sets *s, int i, harness_error *err)
{
    harness_instance *in = s->inst;
    const harness_declared_buffer *d = &in->io.inputs[i];
    harness_alloc_tracker *mem = d->device ? in->device_mem : in->mem;
    size_t total;
    if (__builtin_mul_overflow(d->bytes, (size_t)s->n_sets, &total) ||
        !(s->sets[i] = harness_tracked_alloc(mem, total, SETS_TAG, in->ctx.variant ? in->ctx.variant->key : NULL)))
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "schedule.rotate_inputs: %lld sets of input %d "
                                 "(%zu bytes each) do not fit in %s memory; lower rotate_inputs",
                                 (long long)s->n_sets, i + 1, d->bytes, d->device ? "device" : "host") ? -1 : -1;
    s->bytes += total;
    unsigned char *set = s->sets[i];
    if (copy_within(in, d->device, set, d->ptr, d->bytes, err) != 0)
        return -1;
    for (int64_t k = 1; k < s->n_sets; k++)
        if (harness_declared_redraw(in, d, set + (size_t)k * d->bytes) != 0)
            return fill_failed(in, err);
    return 0;
}

int harness_input_sets_make(harness_input_sets *s, harness_instance *in, int64_t n, harness_error *err)
{
    memset(s, 0, sizeof *s);
    s->inst = in;
    s->n_sets = n;
    for (int i = 0; i < in->io.n_inputs; i++)
        if (make_sets_of(s, i, err) != 0)
            return -1;
    return 0;
}

int harness_input_sets_next(harness_input_sets *s, harness_error *err)
{
    if (s->n_sets < 2)
        return 0;
    size_t k = (size_t)(s->next++ % (uint64_t)s->n_sets);
    const harness_declared_io *io = &s->inst->io;
    for (int i = 0; i < io->n_inputs; i++) {
        const harness_declared_buffer *d = &io->inputs[i];
        if (copy_within(s->inst, d->device, d->ptr, (unsigned char *)s->sets[i] + k * d->bytes, d->bytes, err) != 0)
            return -1;
    }
    return 0;
}

void harness_input_sets_free(harness_input_sets *s)
{
    for (int i = 0; s->inst && i < s->inst->io.n_inputs; i++)
        if (s->sets[i])
            harness_tracked_free(s->inst->io.inputs[i].device ? s->inst->device_mem : s->inst->mem, s->sets[i]);
    memset(s, 0, sizeof *s);
}

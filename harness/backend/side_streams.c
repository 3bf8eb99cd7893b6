/* Device work off the timed stream; see side_streams.h. */
#include "backend/side_streams.h"

#include <stdio.h>
#include <string.h>

static int is_device_work(harness_gpu_activity_kind k)
{
    return k == HARNESS_GPU_KERNEL || k == HARNESS_GPU_MEMCPY || k == HARNESS_GPU_MEMSET;
}

static const char *work_name(const harness_gpu_activity *a)
{
    if (a->name)
        return a->name;
    return a->kind == HARNESS_GPU_MEMSET ? "memset" : a->kind == HARNESS_GPU_MEMCPY ? "memcpy" : "kernel";
}

/* Names are interned by the list, so equal names are equal pointers; the
 * comparison by text keeps synthetic records (tests) honest too. */
static int same(const harness_side_work *w, const harness_gpu_activity *a)
{
    return w->kind == a->kind && w->stream == a->stream && strcmp(w->name, work_name(a)) == 0;
}

size_t harness_side_work_find(const harness_gpu_activity_list *l, uint32_t timed, harness_side_work *out,
                              size_t max, uint64_t *left_out)
{
    size_t kept = 0;
    *left_out = 0;
    for (size_t i = 0; l && i < l->n; i++) {
        const harness_gpu_activity *a = &l->items[i];
        if (!is_device_work(a->kind) || a->stream == timed)
            continue;
        size_t g = 0;
        while (g < kept && !same(&out[g], a))
            g++;
        if (g == kept) {
            if (kept == max) {
                (*left_out)++;
                continue;
            }
            out[kept++] = (harness_side_work){.kind = a->kind, .name = work_name(a), .stream = a->stream};
        }
        out[g].calls++;
        out[g].total_ns += a->end_ns > a->start_ns ? a->end_ns - a->start_ns : 0;
    }
    return kept;
}

void harness_side_work_text(const harness_side_work *w, size_t n, uint64_t left_out, char *out, size_t cap)
{
    size_t used = 0;
    out[0] = '\0';
    for (size_t i = 0; i < n && used < cap; i++)
        used += (size_t)snprintf(out + used, cap - used, "%s%s%s (stream %u, %llu call%s)", i ? ", " : "",
                                 w[i].kind == HARNESS_GPU_MEMCPY ? "memcpy " : "", w[i].name, w[i].stream,
                                 (unsigned long long)w[i].calls, w[i].calls == 1 ? "" : "s");
    if (left_out && used < cap)
        snprintf(out + used, cap - used, " and %llu more record%s", (unsigned long long)left_out,
                 left_out == 1 ? "" : "s");
}

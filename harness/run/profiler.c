#include "run/profiler.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void harness_profiler_init(harness_profiler *p, const harness_backend *backend, const harness_alloc_tracker *tracker,
                           const harness_profiler_options *o)
{
    memset(p, 0, sizeof *p);
    p->backend = backend;
    p->clk = &backend->clock;
    p->tracker = tracker;
    p->trace_enabled = o->trace;
    p->max_events = (size_t)o->max_events;
    p->memory_enabled = o->memory;
    p->memory_log_steps = o->memory_log_steps > 0 ? o->memory_log_steps : 1;
    p->memory.every_steps = p->memory_log_steps;  /* doubles each time the bounded log merges */
    p->steps_planned = o->steps_planned;
    p->n_windows = o->n_windows;
    p->progress = o->progress ? stderr : NULL;
    p->window = -1;
    p->phase_name = harness_phase_file_name(HARNESS_PHASE_WARMUP);
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    p->base_ticks = harness_clock_ticks(p->clk);
    p->base_monotonic_ns = harness_monotonic_ns();
    p->base_unix_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    p->progress_t0_ns = harness_monotonic_ns();
}

void harness_profiler_free(harness_profiler *p)
{
    for (size_t i = 0; i < p->n_names; i++)
        free(p->names[i]);
    free(p->names);
    free(p->name_keys);
    free(p->events);
    free(p->memory.samples);
    memset(p, 0, sizeof *p);
}

/* ---- trace events ---------------------------------------------------------- */

/* Region names usually are string literals, so the pointer finds the name
 * without scanning every copy; the text is still compared, since a plugin may
 * format names into one buffer it reuses. A copy is kept because the name
 * only has to live during the call (plugin.h). */
static int intern(harness_profiler *p, const char *name, uint32_t *id)
{
    for (size_t i = 0; i < p->n_names; i++)
        if (p->name_keys[i] == name && strcmp(p->names[i], name) == 0) {
            *id = (uint32_t)i;
            return 0;
        }
    for (size_t i = 0; i < p->n_names; i++)
        if (strcmp(p->names[i], name) == 0) {
            p->name_keys[i] = name;
            *id = (uint32_t)i;
            return 0;
        }
    char **names = realloc(p->names, (p->n_names + 1) * sizeof *names);
    if (names)
        p->names = names;
    const char **keys = realloc(p->name_keys, (p->n_names + 1) * sizeof *keys);
    if (keys)
        p->name_keys = keys;
    char *copy = strdup(name);
    if (!names || !keys || !copy) {
        free(copy);
        return -1;
    }
    p->names[p->n_names] = copy;
    p->name_keys[p->n_names] = name;
    *id = (uint32_t)p->n_names++;
    return 0;
}

static int reserve_events(harness_profiler *p, size_t need)
{
    if (need > p->max_events)
        need = p->max_events;
    if (need <= p->events_cap)
        return 0;
    size_t cap = p->events_cap ? p->events_cap : 4096;
    while (cap < need)
        cap *= 2;
    if (cap > p->max_events)
        cap = p->max_events;
    harness_trace_event *grown = realloc(p->events, cap * sizeof *grown);
    if (!grown)
        return -1;
    p->events = grown;
    p->events_cap = cap;
    return 0;
}

/* Room for one more event. Growing happens between steps (see
 * on_step_end); growing here, inside a timed step, is the fallback. */
static harness_trace_event *next_event(harness_profiler *p)
{
    if (p->n_events >= p->max_events || reserve_events(p, p->n_events + 1) != 0)
        return NULL;
    return &p->events[p->n_events++];
}

void harness_profiler_push(harness_profiler *p, const char *name)
{
    if (p->depth >= HARNESS_MAX_REGION_DEPTH) {
        p->depth++;  /* still counted, so pops pair up; too deep to record */
        p->step_lost = 1;
        return;
    }
    if (intern(p, name ? name : "(null)", &p->open[p->depth].name) != 0)
        p->step_lost = 1;
    p->open[p->depth++].t0 = harness_clock_ticks(p->clk);
}

void harness_profiler_pop(harness_profiler *p)
{
    uint64_t t1 = harness_clock_ticks(p->clk);
    if (p->depth <= 0)
        return;
    if (--p->depth >= HARNESS_MAX_REGION_DEPTH)
        return;
    harness_trace_event *e = next_event(p);
    if (!e) {
        p->step_lost = 1;
        return;
    }
    *e = (harness_trace_event){.t0 = p->open[p->depth].t0, .t1 = t1, .name = p->open[p->depth].name,
                               .kind = HARNESS_EVENT_REGION, .window = -1, .step = -1};
}

/* A measured step ended: add its span, or, when the cap cut it short, drop
 * the whole step and stop recording, so the trace never holds half a step. */
static void record_step(harness_profiler *p, int window, int64_t index, uint64_t t0, uint64_t t1)
{
    harness_trace_event *e = p->step_lost ? NULL : next_event(p);
    if (!e) {
        p->n_events = p->step_mark;
        p->recording = 0;
        p->dropped_steps++;
        return;
    }
    *e = (harness_trace_event){.t0 = t0, .t1 = t1, .kind = HARNESS_EVENT_STEP, .window = window, .step = index};
    /* Make room for twice this step's events before the next step starts. */
    size_t per_step = p->n_events - p->step_mark;
    reserve_events(p, p->n_events + 2 * per_step + 64);
    p->step_mark = p->n_events;
}

/* ---- memory ---------------------------------------------------------------- */

void harness_profiler_sample_memory(harness_profiler *p, int phase, int window)
{
    if (!p->memory_enabled)
        return;
    harness_memory_sample s = {
        .t_us = harness_profiler_us(p, harness_clock_ticks(p->clk)),
        .step = p->steps_run, .phase = phase, .window = window,
        .allocated = p->tracker ? p->tracker->current_bytes : 0,
        .peak_allocated = p->tracker ? p->tracker->peak_bytes : 0,
        .reserved = p->backend->ops->reserved_bytes(p->backend),
    };
    harness_memory_log_add(&p->memory, &s);  /* bounded (memory_log.h); a failure is a gap, not a failed run */
}

/* ---- progress -------------------------------------------------------------- */

static void show_progress(harness_profiler *p, int final)
{
    uint64_t now = harness_monotonic_ns();
    if (!final && now < p->progress_next_ns)
        return;
    p->progress_next_ns = now + 100000000u;  /* 10 updates a second are plenty */
    double elapsed = (double)(now - p->progress_t0_ns) * 1e-9;
    fprintf(p->progress, "\r\033[K%s", p->phase_name);
    if (p->window >= 0)
        fprintf(p->progress, " %d/%d", p->window + 1, p->n_windows);
    if (p->steps_planned > 0) {
        double done = (double)p->steps_run / (double)p->steps_planned;
        fprintf(p->progress, "  step %lld/%lld  %.1fs", (long long)p->steps_run, (long long)p->steps_planned,
                elapsed);
        if (done > 0 && !final)
            fprintf(p->progress, "  ETA %.1fs", elapsed / done - elapsed);
    } else {
        fprintf(p->progress, "  step %lld  %.1fs  (auto: until the median is precise)", (long long)p->steps_run,
                elapsed);
    }
    if (final)
        fputs("\r\033[K", p->progress);
    fflush(p->progress);
}

/* ---- runner hooks ------------------------------------------------------------ */

/* The trace holds the measured steps and the trace window's (after the
 * measured ones, where the GPU's kernels are recorded): without the latter's
 * steps and regions, the kernels would sit beside no step and no region. */
static int traced_phase(harness_phase phase)
{
    return phase == HARNESS_PHASE_MEASURE || phase == HARNESS_PHASE_TRACE;
}

static int on_phase_begin(void *arg, harness_phase phase, int window, harness_error *err)
{
    (void)err;
    harness_profiler *p = arg;
    p->phase_name = harness_phase_file_name((int)phase);
    p->window = window;
    p->recording = p->trace_enabled && traced_phase(phase) && p->dropped_steps == 0;
    p->step_mark = p->n_events;
    harness_profiler_sample_memory(p, (int)phase, window);
    return 0;
}

static void on_step_end(void *arg, harness_phase phase, int window, int64_t index, uint64_t t0, uint64_t t1)
{
    harness_profiler *p = arg;
    p->steps_run++;
    if (traced_phase(phase) && p->trace_enabled) {
        if (p->recording)
            record_step(p, phase == HARNESS_PHASE_TRACE ? -1 : window, index, t0, t1);
        else
            p->dropped_steps++;
    }
    p->step_lost = 0;
    if (p->steps_run % p->memory.every_steps == 0)
        harness_profiler_sample_memory(p, (int)phase, window);
    if (p->progress)
        show_progress(p, 0);
}

static void on_run_end(void *arg)
{
    harness_profiler *p = arg;
    p->recording = 0;
    harness_profiler_sample_memory(p, HARNESS_PHASE_MEASURE, p->window);
    if (p->progress)
        show_progress(p, 1);
}

harness_runner_hooks harness_profiler_hooks(harness_profiler *p)
{
    return (harness_runner_hooks){.arg = p, .phase_begin = on_phase_begin, .step_end = on_step_end,
                                  .run_end = on_run_end};
}

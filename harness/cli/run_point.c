/* One point of `harness run`: create the experiment folder, create and
 * check the component, run the schedule, write the summaries. Everything
 * that can be wrong with the input was found before (cli/cmd_common.c), so
 * a bad input never leaves a folder behind; a failure from here on is
 * written into the summary as status "failed". */
#include "cli/run_point.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "backend/gpu_probe.h"
#include "cli/artifacts.h"
#include "cli/ranks.h"
#include "report/experiment.h"
#include "report/summary.h"
#include "run/datagen.h"
#include "run/instance.h"

/* The component instance the runner steps. */
typedef struct instance {
    const harness_variant *v;
    harness_instance inst;
    void *state;
    int created;                   /* create succeeded: destroy must run */
} instance;

/* A callback that returned with regions still open is blamed by name, so
 * the message points at the callback that forgot its region_pop, not at
 * whatever ran next. Returns rc, or -1 when regions were left open. */
static int regions_closed(instance *in, const char *callback, int rc)
{
    if (rc == 0 && in->inst.region_depth != 0) {
        harness_ctx_failf(&in->inst.ctx, "%s left %d region(s) open", callback, in->inst.region_depth);
        return -1;
    }
    return rc;
}

static int step_instance(void *arg)
{
    instance *in = arg;
    return regions_closed(in, "step", in->v->step(&in->inst.ctx, in->state));
}

/* cuda_graph: each step launches the graph of one captured step. */
static int replay_graph(void *arg)
{
    instance *in = arg;
    harness_error e = {0};
    if (in->inst.backend->ops->replay(in->inst.backend, &e) != 0) {
        harness_ctx_failf(&in->inst.ctx, "%s", e.msg);
        return -1;
    }
    return 0;
}

static int is_profiled(const harness_config *cfg, int rank)
{
    if (cfg->profile_all_ranks)
        return 1;
    for (size_t i = 0; i < cfg->n_profiled_ranks; i++)
        if (cfg->profiled_ranks[i] == rank)
            return 1;
    return 0;
}

static void start_profiler(harness_profiler *prof, const harness_config *c, const harness_backend *b,
                           const harness_alloc_tracker *mem, int profiled, int quiet)
{
    int64_t planned = c->measurement_steps ? c->warmup_steps + c->repeat * (c->wait_steps + c->measurement_steps) : 0;
    harness_profiler_options o = {
        .trace = profiled && c->trace, .memory = profiled && c->memory,
        .progress = !quiet && isatty(STDERR_FILENO), .max_events = c->max_trace_events,
        .memory_log_steps = c->memory_log_steps, .steps_planned = planned, .n_windows = (int)c->repeat,
    };
    harness_profiler_init(prof, b, mem, &o);
}

/* What watches the schedule: the ranks meet before each measurement
 * window (a broken barrier stops the run), and the profiler records. */
typedef struct schedule_observers {
    harness_dist *dist;
    harness_runner_hooks profiler;
} schedule_observers;

/* sync_steps: every measured step starts together on all ranks, so a
 * step's skew is the ranks' own, not inherited from the step before. */
static int observe_step_begin(void *arg, int window, int64_t index, harness_error *err)
{
    (void)window;
    (void)index;
    return harness_dist_barrier(((schedule_observers *)arg)->dist, err);
}

static int observe_phase_begin(void *arg, harness_phase phase, int window, harness_error *err)
{
    schedule_observers *o = arg;
    if (phase == HARNESS_PHASE_MEASURE && harness_dist_barrier(o->dist, err) != 0)
        return -1;
    return o->profiler.phase_begin(o->profiler.arg, phase, window, err);
}

static void observe_step_end(void *arg, harness_phase phase, int window, int64_t index, uint64_t t0, uint64_t t1)
{
    schedule_observers *o = arg;
    o->profiler.step_end(o->profiler.arg, phase, window, index, t0, t1);
}

static void observe_run_end(void *arg)
{
    schedule_observers *o = arg;
    o->profiler.run_end(o->profiler.arg);
}

static harness_runner_hooks observer_hooks(schedule_observers *o, int sync_steps)
{
    return (harness_runner_hooks){.arg = o, .phase_begin = observe_phase_begin, .step_end = observe_step_end,
                                  .run_end = observe_run_end,
                                  .step_begin = sync_steps && o->dist->world_size > 1 ? observe_step_begin : NULL};
}

/* The one place that decides whether a reference check passed. A check
 * that compared nothing proves nothing, so passed with checked == 0 fails
 * (a plugin that forgot to count, or a shape that rounds to no elements). */
static int check_verdict(const char *key, const harness_check *c, harness_error *err)
{
    if (c->passed && c->checked == 0)
        return harness_error_set(err, HARNESS_EXIT_VERDICT,
                                 "%s: check compared no elements (passed is set, but checked is 0: count the "
                                 "elements compared in harness_check.checked); timing skipped", key);
    if (!c->passed)
        return harness_error_set(err, HARNESS_EXIT_VERDICT,
                                 "%s: output does not match the reference: %llu of %llu elements over tolerance, "
                                 "max abs err %.3g > %.3g (%s); timing skipped",
                                 key, (unsigned long long)c->mismatches, (unsigned long long)c->checked,
                                 c->max_abs_err, c->tolerance, c->detail);
    return 0;
}

/* create -> validate -> schedule. Returns the exit code; s->status says what happened. */
static int run_component(const harness_prepared *p, instance *in, harness_summary *s, harness_run_result *run,
                         harness_session *session, harness_profiler *prof, harness_error *err)
{
    const harness_variant *v = in->v;
    int rc = v->create(&in->inst.ctx, &in->state);
    in->created = rc == 0;         /* destroy runs whatever fails next, open regions included */
    rc = regions_closed(in, "create", rc);
    if (rc != 0 || in->inst.ctx.failed) {
        harness_error_set(err, HARNESS_EXIT_RUNTIME, "%s: create failed: %s", v->key,
                          harness_ctx_message(&in->inst.ctx, "no message given"));
        harness_summary_mark(s, "failed", err->msg);
        return err->code;
    }
    s->cost = (harness_cost){.size = sizeof s->cost};
    v->cost(in->state, &s->cost);

    if (p->cfg->validate && v->check) {
        s->check.size = sizeof s->check;
        if (regions_closed(in, "check", v->check(&in->inst.ctx, in->state, &s->check)) != 0 || in->inst.ctx.failed) {
            harness_error_set(err, HARNESS_EXIT_RUNTIME, "%s: reference check could not run: %s", v->key,
                              harness_ctx_message(&in->inst.ctx, "no message given"));
            harness_summary_mark(s, "failed", err->msg);
            return err->code;
        }
        if (check_verdict(v->key, &s->check, err) != 0) {
            s->validation = HARNESS_VALIDATION_FAILED;
            harness_summary_mark(s, "validation_failed", err->msg);
            return err->code;
        }
        s->validation = HARNESS_VALIDATION_PASSED;
    }

    const harness_config *c = p->cfg;
    harness_schedule sched = {
        .warmup_steps = c->warmup_steps, .wait_steps = c->wait_steps,
        .measurement_steps = c->measurement_steps, .repeat = c->repeat,
        .max_rel_ci = c->stop_max_rel_ci, .min_steps = c->stop_min_steps,
        .max_steps = c->stop_max_steps, .max_time_s = c->stop_max_time_s,
        .nvtx = c->nvtx && strcmp(p->device, "cuda") == 0,
    };
    schedule_observers obs = {.dist = &session->dist, .profiler = harness_profiler_hooks(prof)};
    harness_runner_hooks hooks = observer_hooks(&obs, (int)p->cfg->sync_steps);
    harness_step_fn step = step_instance;
    const harness_backend *b = &session->backend;
    if (b->opts.cuda_graph && b->ops->capture) {
        if (b->ops->capture(b, step_instance, in, err) != 0) {
            harness_summary_mark(s, "failed", err->msg);
            return err->code;
        }
        step = replay_graph;
    }
    if (harness_runner_run(&sched, b, step, in, &hooks, run, err) != 0) {
        harness_summary_mark(s, "failed", err->msg);
        return err->code;
    }
    s->run = run;
    if (run->step_failed) {
        static const char *const phases[] = {"warmup", "wait", "measurement"};
        harness_error_set(err, HARNESS_EXIT_RUNTIME, "%s: step %lld of the %s phase failed: %s", v->key,
                          (long long)run->failed_step, phases[run->failed_phase],
                          harness_ctx_message(&in->inst.ctx, "no message given"));
        harness_summary_mark(s, "failed", err->msg);
        return err->code;
    }
    if (run->interrupted) {
        harness_error_set(err, HARNESS_EXIT_INTERRUPTED, "interrupted after %zu measured steps; partial results kept",
                          run->n_samples);
        harness_summary_mark(s, "interrupted", err->msg);
        return err->code;
    }
    return 0;
}

static int run_point_here(harness_session *session, const harness_prepared *p, harness_point_result *res)
{
    harness_error err = {0};
    *res = (harness_point_result){.status = "not run"};
    const harness_config *c = p->cfg;
    harness_backend_options bopts = {.device_index = (int)c->device_index,
                                     .batch_timing = strcmp(c->timing, "batch") == 0,
                                     .flush_l2 = c->flush_l2, .cuda_graph = c->cuda_graph,
                                     .gpu_activity = c->cupti && is_profiled(c, session->dist.rank),
                                     .local_rank = session->dist.local_rank};
    harness_backend *b = harness_session_backend(session, p->device, &bopts, &err);
    if (!b)
        return harness_error_report(&err);
    if (strcmp(c->device, "auto") == 0 && strcmp(p->device, "cpu") == 0)
        /* Once per point, on stderr even with --quiet: it decides what the figures mean. */
        fprintf(stderr, "harness: device auto: running on the CPU (%s)\n",
                harness_gpu_probe()->count > 0 ? "the variant has no CUDA version" : harness_gpu_probe()->why_none);
    harness_summary s = {.status = "ok", .rank = session->dist.rank, .world_size = session->dist.world_size,
                         .cfg = p->cfg, .variant_key = p->entry->variant.key, .device = p->device,
                         .backend = b, .clock = &b->clock};
    harness_env_capture(&s.env);
    harness_env_note_clock(&s.env, &b->clock);
    s.device_name = strcmp(p->device, "cuda") == 0 ? s.env.gpu : s.env.cpu_model;
    s.plugin_path = p->registry.plugins[p->entry->plugin].path;

    harness_experiment exp;
    if (harness_ranks_agree(&session->dist, p, &err) != 0 ||
        harness_ranks_make_folder(&session->dist, p, &exp, &err) != 0)
        return harness_error_report(&err);
    res->dir = strdup(exp.dir);

    harness_alloc_tracker mem, device_mem;
    harness_alloc_tracker_init(&mem, b->allocator);
    int on_device = b->device_allocator.alloc != NULL;
    if (on_device)
        harness_alloc_tracker_init(&device_mem, b->device_allocator);
    harness_datagen gen;
    harness_datagen_init(&gen, p->cfg->generator, p->cfg->seed);
    harness_profiler prof;
    /* On a GPU the memory the profiler follows is the device's. */
    start_profiler(&prof, p->cfg, b, on_device ? &device_mem : &mem, is_profiled(p->cfg, s.rank),
                   session->opts->quiet);
    instance in = {.v = &p->entry->variant};
    harness_instance_init(&in.inst, in.v, p->cfg, &mem, &gen);
    in.inst.rank = session->dist.rank;
    in.inst.world_size = session->dist.world_size;
    in.inst.profiler = &prof;
    in.inst.nvtx = p->cfg->nvtx && on_device;
    in.inst.backend = b;
    in.inst.device_mem = on_device ? &device_mem : NULL;
    harness_comm_log comm = {0};
    in.inst.dist = &session->dist;
    in.inst.comm = &comm;
    s.comm = &comm;
    s.mem = &mem;
    s.device_mem = on_device ? &device_mem : NULL;
    s.profiler = &prof;
    harness_run_result run = {0};

    if (b->gpu_activity)  /* a session's backend serves several points */
        harness_gpu_activity_list_clear(b->gpu_activity);
    int code = run_component(p, &in, &s, &run, session, &prof, &err);
    if (b->gpu_activity && b->ops->activity_flush(b))
        s.gpu_activity = b->gpu_activity;
    if (in.created)
        in.v->destroy(&in.inst.ctx, in.state);
    if (mem.n_live)  /* what the plugin forgot to free: not ours to leak */
        harness_alloc_tracker_release_all(&mem);
    if (on_device && device_mem.n_live)
        harness_alloc_tracker_release_all(&device_mem);

    harness_env_capture_end(&s.env);
    harness_error werr = {0};
    if (harness_summary_compute(&s) != 0) {
        harness_error_set(&werr, HARNESS_EXIT_RUNTIME, "out of memory computing statistics");
    } else if (harness_write_artifacts(&exp, &s, &prof, &werr) == 0 && session->dist.rank == 0) {
        /* Rank 0 speaks for a job on stdout; every rank's figures are in its files. */
        if (session->opts->quiet)
            printf("%s\n", exp.dir);
        else {
            harness_summary_print_short(&s, stdout);
            printf("experiment: %s\n", exp.dir);
        }
        fflush(stdout);
        /* Once, on stderr, even with --quiet: they qualify every figure. */
        harness_warnings_print(&s.warnings, stderr);
    }
    if (code != 0)
        harness_error_report(&err);
    if (werr.code) {
        harness_error_report(&werr);
        code = code ? code : werr.code;
    }
    if (code == 0 && harness_ranks_write_job_summary(&session->dist, &s, &exp, &werr) != 0) {
        harness_error_report(&werr);
        code = werr.code;
    }
    res->status = s.status;
    if (s.overall.n && s.overall.median > 0) {
        res->median_ns = s.overall.median;
        res->gbps = s.cost.bytes > 0 ? s.cost.bytes / s.overall.median : 0;
        res->gflops = s.cost.flops > 0 ? s.cost.flops / s.overall.median : 0;
    }
    harness_summary_release(&s);
    harness_run_result_free(&run);
    harness_profiler_free(&prof);
    harness_comm_log_free(&comm);
    harness_alloc_tracker_destroy(&mem);
    if (on_device)
        harness_alloc_tracker_destroy(&device_mem);
    return code;
}


int harness_run_point(harness_session *session, const harness_prepared *p, harness_point_result *res)
{
    int code = run_point_here(session, p, res);
    harness_dist *d = &session->dist;
    if (code != 0 && code != HARNESS_EXIT_INTERRUPTED && d->world_size > 1) {
        /* The other ranks would wait for this one at their next barrier:
         * stop the job now, naming this rank (its error is printed above,
         * its folder files say failed). */
        char msg[64];
        snprintf(msg, sizeof msg, "this rank's run failed (exit %d, the error above)", code);
        d->ops->abort(d, code, msg);
    }
    return code;
}

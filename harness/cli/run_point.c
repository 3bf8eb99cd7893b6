/* One point of `harness run`: create the experiment folder, create and
 * check the component, run the schedule, write the summaries. Everything
 * that can be wrong with the input was found before (cli/cmd_common.c), so
 * a bad input never leaves a folder behind; a failure from here on is
 * written into the summary as status "failed". */
#include "cli/run_point.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "backend/gpu_probe.h"
#include "cli/artifacts.h"
#include "cli/ranks.h"
#include "cli/ranks.h"
#include "plugin/variant_cost.h"
#include "report/experiment.h"
#include "report/output_root.h"
#include "report/summary.h"
#include "run/datagen.h"
#include "run/guard.h"
#include "run/instance.h"
#include "util/status_file.h"

/* The kernel timeline's window: at most this many steps (fewer when the
 * first measured window ran fewer), enough to see a step's kernels repeat
 * while CUPTI's 8 MiB buffers hold them all. */
#define TRACE_WINDOW_STEPS 50

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
        harness_ctx_failf(&in->inst.ctx, "%s left %d region(s) open (the outermost: '%s'); pop each region it "
                          "pushes before it returns", callback, in->inst.region_depth, in->inst.outer_region);
        return -1;
    }
    return rc;
}

/* A service misused inside step() (a failed allocation, a foreign free, a
 * pop without push) records a failure in the context: it fails the run as
 * it would fail create or check, even when step() returns 0. */
static int step_instance(void *arg)
{
    instance *in = arg;
    harness_guard_step_begin();
    int rc = in->v->step(&in->inst.ctx, in->state);
    harness_guard_step_end();
    if (rc == 0 && in->inst.ctx.failed)
        rc = -1;
    return regions_closed(in, "step", rc);
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
 * window (a broken meeting stops the run) and agree there to stop when one
 * is signalled (dist/dist_mpi.c), and the profiler records. */
typedef struct schedule_observers {
    harness_dist *dist;
    harness_runner_hooks profiler;
    int sync_steps;
    const harness_instance *inst;
} schedule_observers;

/* sync_steps: every measured step starts together on all ranks, so a
 * step's skew is the ranks' own, not inherited from the step before. A
 * component that calls collectives (seen in the check or warmup, on every
 * rank alike) meets before each step too: a rank that stopped between steps
 * would leave the others blocked in the next step's collective, where no
 * notice reaches them; its steps wait for every rank anyway. */
static int observe_step_begin(void *arg, int window, int64_t index, harness_error *err)
{
    (void)window;
    (void)index;
    schedule_observers *o = arg;
    if (!o->sync_steps && !o->dist->lockstep)
        return 0;
    return harness_dist_meet(o->dist, &harness_interrupt_requested, 0, err);
}

static int observe_phase_begin(void *arg, harness_phase phase, int window, harness_error *err)
{
    schedule_observers *o = arg;
    harness_guard_phase(phase, window);
    /* A stop agreed here is in harness_interrupt_requested: the runner stops
     * before the window's first step. */
    if (phase == HARNESS_PHASE_MEASURE) {
        o->dist->lockstep = o->inst->collectives_called > 0;   /* the check and warmup have run */
        harness_dist_meet(o->dist, &harness_interrupt_requested, 0, err);
        if (err->code)
            return -1;
    }
    return o->profiler.phase_begin(o->profiler.arg, phase, window, err);
}

static void observe_step_end(void *arg, harness_phase phase, int window, int64_t index, uint64_t t0, uint64_t t1)
{
    schedule_observers *o = arg;
    o->profiler.step_end(o->profiler.arg, phase, window, index, t0, t1);
    if (o->dist->world_size > 1)   /* another rank stopped */
        o->dist->ops->poll_stop(o->dist, &harness_interrupt_requested);
}

/* Alone, a signal is the runner's own business; among ranks it must reach
 * every rank (dist.h, meet). */
static int observe_schedule_end(void *arg, harness_error *err)
{
    schedule_observers *o = arg;
    return harness_dist_meet(o->dist, &harness_interrupt_requested, 1, err);
}

static void observe_run_end(void *arg)
{
    schedule_observers *o = arg;
    o->profiler.run_end(o->profiler.arg);
}

static harness_runner_hooks observer_hooks(schedule_observers *o)
{
    return (harness_runner_hooks){.arg = o, .phase_begin = observe_phase_begin, .step_end = observe_step_end,
                                  .run_end = observe_run_end,
                                  .schedule_end = o->dist->world_size > 1 ? observe_schedule_end : NULL,
                                  .step_begin = o->dist->world_size > 1 ? observe_step_begin : NULL};
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
    harness_guard_enter("create");
    int rc = v->create(&in->inst.ctx, &in->state);
    harness_guard_leave();
    in->created = rc == 0;         /* destroy runs whatever fails next, open regions included */
    rc = regions_closed(in, "create", rc);
    if (rc != 0 || in->inst.ctx.failed) {
        harness_error_set(err, HARNESS_EXIT_RUNTIME, "%s: create failed: %s", v->key,
                          harness_ctx_message(&in->inst.ctx, "no message given"));
        harness_summary_mark(s, "failed", err->msg);
        return err->code;
    }
    s->cost = (harness_cost){.size = sizeof s->cost};
    harness_guard_enter("cost");
    rc = harness_variant_cost(v, &in->inst.ctx, in->state, &s->cost);
    harness_guard_leave();
    if (rc != 0) {
        harness_error_set(err, HARNESS_EXIT_RUNTIME, "%s: cost failed: %s", v->key,
                          harness_ctx_message(&in->inst.ctx, "no message given"));
        harness_summary_mark(s, "failed", err->msg);
        return err->code;
    }

    if (p->cfg->validate && v->check) {
        s->check.size = sizeof s->check;
        harness_guard_enter("check");
        rc = v->check(&in->inst.ctx, in->state, &s->check);
        harness_guard_leave();
        if (regions_closed(in, "check", rc) != 0 || in->inst.ctx.failed) {
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
        /* Every rank runs the trace window (a collective step needs them
         * all); only profiled ranks record in it. */
        .trace_steps = c->cupti && strcmp(p->device, "cuda") == 0 ? TRACE_WINDOW_STEPS : 0,
    };
    schedule_observers obs = {.dist = &session->dist, .profiler = harness_profiler_hooks(prof),
                              .sync_steps = (int)p->cfg->sync_steps, .inst = &in->inst};
    harness_runner_hooks hooks = observer_hooks(&obs);
    harness_step_fn step = step_instance;
    const harness_backend *b = &session->backend;
    harness_guard_enter("step");
    if (b->opts.cuda_graph && b->ops->capture) {
        if (b->ops->capture(b, step_instance, in, err) != 0) {
            harness_guard_leave();
            harness_summary_mark(s, "failed", err->msg);
            return err->code;
        }
        step = replay_graph;
    }
    rc = harness_runner_run(&sched, b, step, in, &hooks, run, err);
    harness_guard_leave();
    if (rc != 0) {
        harness_summary_mark(s, "failed", err->msg);
        return err->code;
    }
    s->run = run;
    if (run->step_failed) {
        char window[32] = "";      /* windows and steps from 1, for people, as the guard says them */
        if (run->failed_phase != HARNESS_PHASE_WARMUP && run->failed_phase != HARNESS_PHASE_TRACE)
            snprintf(window, sizeof window, ", window %d", run->failed_window + 1);
        harness_error_set(err, HARNESS_EXIT_RUNTIME, "%s: step failed in the %s phase%s, step %lld: %s", v->key,
                          harness_phase_name(run->failed_phase), window, (long long)run->failed_step + 1,
                          harness_ctx_message(&in->inst.ctx, "no message given"));
        harness_summary_mark(s, "failed", err->msg);
        return err->code;
    }
    if (run->interrupted) {
        int sig = harness_interrupt_requested;
        harness_error_set(err, sig > 0 ? 128 + sig : HARNESS_EXIT_INTERRUPTED,
                          "interrupted after %zu measured steps (%s%s); partial results kept", run->n_samples,
                          sig > 0 ? strsignal(sig) : "signal", harness_interrupt_signalled_here ? "" :
                          ", sent to another rank of the job");
        harness_summary_mark(s, "interrupted", err->msg);
        return err->code;
    }
    return 0;
}

/* Everything one point owns, in one place: the guard's landing and its
 * exit() path reach it through a pointer (run/guard.h). */
typedef struct point {
    harness_session *session;
    const harness_prepared *p;
    harness_point_result *res;
    harness_backend *b;
    harness_experiment exp;
    harness_status_file status;
    harness_summary s;
    harness_alloc_tracker mem, device_mem;
    int on_device;
    harness_datagen gen;
    harness_profiler prof;
    instance in;
    harness_run_result run;
    harness_comm_log comm;
    harness_error err;
    int code;
    int crashed;                   /* the guard landed: the plugin is never called again */
    int written;                   /* the summaries are on disk (before destroy) */
    char leaks[512];               /* what destroy left allocated, for the summaries' warnings */
} point;

/* After a crash, a timeout or an exit() in a callback: what was measured
 * becomes the summary, marked so no tool takes it for a complete run. */
static void landed(point *pt)
{
    harness_guard_report r = harness_guard_what_happened();
    char where[512];
    harness_guard_describe(&r, where, sizeof where);
    const char *status = r.outcome == HARNESS_GUARD_TIMED_OUT     ? "timed_out"
                         : r.outcome == HARNESS_GUARD_INTERRUPTED ? "interrupted"
                                                                  : "crashed";
    int code = r.outcome == HARNESS_GUARD_INTERRUPTED && r.stop_signal > 0 ? 128 + r.stop_signal
                                                                           : HARNESS_EXIT_RUNTIME;
    pt->crashed = 1;
    pt->err = (harness_error){0};
    harness_error_set(&pt->err, code, "%s: %s; the folder keeps what was measured, marked %s", pt->in.v->key,
                      where, status);
    /* Said now: writing the summaries may not survive what the plugin did. */
    harness_error_report(&pt->err);
    fflush(stderr);
    if (r.callback && strcmp(r.callback, "step") == 0 && pt->run.window_start) {
        harness_runner_salvage(&pt->run, r.phase && strcmp(r.phase, "measurement") == 0 ? "crashed" : NULL);
        pt->s.run = &pt->run;
    }
    harness_summary_mark(&pt->s, status, pt->err.msg);
    pt->code = code;
}

static void note_all_leaks(point *pt);
static void write_summaries_now(point *pt);

/* The component's life inside the guard. The landing is set here, in a
 * frame that lives as long as any callback; after a jump nothing but `pt`
 * (unchanged since sigsetjmp) is read. */
static void guarded_run(point *pt)
{
    if (sigsetjmp(harness_guard_landing, 1) != 0) {
        landed(pt);
        write_summaries_now(pt);
        return;
    }
    harness_backend *b = pt->b;
    pt->code = run_component(pt->p, &pt->in, &pt->s, &pt->run, pt->session, &pt->prof, &pt->err);
    if (b->gpu_activity && b->ops->activity_flush(b))
        pt->s.gpu_activity = b->gpu_activity;
    /* What was measured is on disk before destroy runs: a destroy that
     * hangs or crashes only changes the status they give. */
    write_summaries_now(pt);
    if (pt->in.created) {
        harness_guard_enter("destroy");
        pt->in.v->destroy(&pt->in.inst.ctx, pt->in.state);
        harness_guard_leave();
    }
    note_all_leaks(pt);
    if (pt->leaks[0]) {            /* said in the summaries, written again */
        harness_warnings_add(&pt->s.warnings, "%s", pt->leaks);
        if (pt->session->dist.rank == 0)
            fprintf(stderr, "harness: warning: %s\n", pt->leaks);
        write_summaries_now(pt);
    }
}

/* Tracked memory destroy() did not free is a leak of the plugin's: said in
 * the summaries' warnings (by tag), then freed by the harness. */
static void note_leaks(point *pt, const harness_alloc_tracker *t, const char *kind)
{
    if (!t->n_live || !pt->in.created)
        return;
    size_t used = strlen(pt->leaks), bytes = 0;
    for (size_t i = 0; i < t->n_live; i++)
        bytes += t->live[i].bytes;
    used += (size_t)snprintf(pt->leaks + used, sizeof pt->leaks - used,
                             "%sleak: %s left %zu tracked %s allocation(s) of %zu bytes after destroy (tags:",
                             used ? "; " : "", pt->in.v->key, t->n_live, kind, bytes);
    for (size_t i = 0; i < t->n_live && i < 8 && used < sizeof pt->leaks; i++)
        used += (size_t)snprintf(pt->leaks + used, sizeof pt->leaks - used, " %s", t->live[i].tag);
    if (used < sizeof pt->leaks)
        snprintf(pt->leaks + used, sizeof pt->leaks - used, "%s); free them in destroy",
                 t->n_live > 8 ? " ..." : "");
}

static int file_exists(const harness_experiment *exp, const char *name)
{
    char path[4400];
    struct stat st;
    return stat(harness_experiment_path(exp, name, path, sizeof path), &st) == 0;
}

/* Statistics, artifacts, the final status.json and the printed table. */
static void finish_point(point *pt)
{
    harness_summary *s = &pt->s;
    harness_env_capture_end(&s->env);
    harness_error werr = {0};
    if (harness_summary_compute(s) != 0) {
        harness_error_set(&werr, HARNESS_EXIT_RUNTIME, "out of memory computing statistics");
        harness_error_report(&werr);
    } else {
        if (harness_write_artifacts(&pt->exp, s, &pt->prof, &werr) == 0 && pt->session->dist.rank == 0) {
            /* Rank 0 speaks for a job on stdout; every rank's figures are in its files. */
            if (pt->session->opts->quiet)
                printf("%s\n", pt->exp.dir);
            else {
                harness_summary_print_short(s, stdout);
                printf("experiment: %s\n", pt->exp.dir);
            }
            fflush(stdout);
            /* Once, on stderr, even with --quiet (then at the end): they qualify every figure. */
            harness_session_warn(pt->session, &s->warnings, pt->exp.dir, pt->p->cfg->n_sweep_points > 1);
        }
    }
    if (pt->code != 0 && !pt->crashed)
        harness_error_report(&pt->err);
    if (werr.code) {  /* reported where it happened (cli/artifacts.c) */
        pt->code = pt->code ? pt->code : werr.code;
        if (!pt->err.code)
            pt->err = werr;        /* the reason status.json gives */
    }
}

/* The summaries of what was measured: all artifacts the first time, then
 * (after destroy, or a crash in it) the summaries again with what changed. */
static void write_summaries_now(point *pt)
{
    if (!pt->written) {
        pt->written = 1;
        finish_point(pt);
        return;
    }
    harness_error werr = {0};
    if (harness_write_summary_files(&pt->exp, &pt->s, &werr) != 0) {
        harness_error_report(&werr);
        pt->code = pt->code ? pt->code : werr.code;
    }
}

/* What destroy left allocated: named, then freed by the harness. */
static void note_all_leaks(point *pt)
{
    note_leaks(pt, &pt->mem, "host");
    if (pt->on_device)
        note_leaks(pt, &pt->device_mem, "device");
    if (pt->mem.n_live)  /* what the plugin forgot to free: not ours to leak */
        harness_alloc_tracker_release_all(&pt->mem);
    if (pt->on_device && pt->device_mem.n_live)
        harness_alloc_tracker_release_all(&pt->device_mem);
}

/* status.json's last word: what the summary says, and where a crash hit. */
static void write_final_status(point *pt)
{
    harness_summary *s = &pt->s;
    char name[256], txt[256];
    harness_rank_file(name, sizeof name, "summary", s->world_size, s->rank, "json");
    harness_rank_file(txt, sizeof txt, "profiler_summary", s->world_size, s->rank, "txt");
    int ok = pt->code == 0 && strcmp(s->status, "ok") == 0;
    harness_status st = {
        .status = ok ? "ok" : strcmp(s->status, "ok") == 0 ? "failed" : s->status,
        .exit_code = pt->code, .signal = pt->run.interrupted ? harness_interrupt_requested : 0,
        .error = s->error[0] ? s->error : pt->err.code ? pt->err.msg : NULL,
        .variant_key = s->variant_key, .step = -1,
        .summaries = file_exists(&pt->exp, name) && file_exists(&pt->exp, txt),
    };
    harness_guard_report r = harness_guard_what_happened();
    if (pt->crashed) {
        st.callback = r.callback;
        st.phase = r.phase;
        st.window = r.window;
        st.step = r.step;
        st.signal = r.signal;
    } else if (pt->run.step_failed) {  /* a step that returned an error: where, as for a crash */
        st.callback = "step";
        st.phase = harness_phase_name(pt->run.failed_phase);
        st.window = pt->run.failed_window;
        st.step = pt->run.failed_step;
    }
    int e = harness_status_file_write(&pt->status, &st, 1);
    if (e != 0) {
        fprintf(stderr, "harness: %scannot write %s: %s\n", harness_error_rank_label(), pt->status.path, strerror(e));
        pt->code = pt->code ? pt->code : HARNESS_EXIT_RUNTIME;
    }
}

/* After a crash the plugin's state (its heap, its threads) is beyond
 * repair: the process ends here rather than run it again or tear it down;
 * in a multi-rank job the others are stopped too, naming this rank. */
static void end_after_crash(point *pt)
{
    fflush(NULL);
    harness_dist *d = &pt->session->dist;
    if (d->world_size > 1)
        d->ops->abort(d, pt->code, "this rank's component crashed (the error above)");
    _exit(pt->code);
}

/* The guard's exit() path: the callback never returns, so finish here. */
static void salvage(void *arg, harness_guard_outcome outcome)
{
    (void)outcome;
    point *pt = arg;
    landed(pt);
    write_summaries_now(pt);
    write_final_status(pt);
    end_after_crash(pt);
}

static int run_point_here(harness_session *session, const harness_prepared *p, harness_point_result *res)
{
    *res = (harness_point_result){.status = "not run"};
    /* Static, not on the stack: the exit() path reads it from inside a
     * callback, and it is large. One point runs at a time. */
    static point pt;
    memset(&pt, 0, sizeof pt);
    pt.session = session;
    pt.p = p;
    pt.res = res;
    harness_error *err = &pt.err;
    const harness_config *c = p->cfg;
    if (harness_output_root_check(c->output_dir, err) != 0)
        return harness_error_report(err);
    harness_backend_options bopts = {.device_index = (int)c->device_index,
                                     .batch_timing = strcmp(c->timing, "batch") == 0,
                                     .flush_l2 = c->flush_l2, .cuda_graph = c->cuda_graph,
                                     .gpu_activity = c->cupti && is_profiled(c, session->dist.rank),
                                     .local_rank = session->dist.local_rank, .rank = session->dist.rank,
                                     .world_size = session->dist.world_size};
    harness_backend *b = harness_session_backend(session, p->device, &bopts, err);
    if (!b)
        return harness_error_report(err);
    pt.b = b;
    static int told;               /* information once per job: rank 0, the first point, not with --quiet */
    if (strcmp(c->device, "auto") == 0 && strcmp(p->device, "cpu") == 0 && !told++ && !session->opts->quiet &&
        session->dist.rank == 0)
        fprintf(stderr, "harness: device auto: running on the CPU (%s)\n",
                harness_gpu_probe()->count > 0 ? "the variant has no CUDA version" : harness_gpu_probe()->why_none);
    harness_summary *s = &pt.s;
    *s = (harness_summary){.status = "ok", .rank = session->dist.rank, .world_size = session->dist.world_size,
                           .cfg = p->cfg, .variant_key = p->entry->variant.key, .device = p->device,
                           .backend = b, .clock = &b->clock};
    harness_env_capture(&s->env);
    harness_env_note_clock(&s->env, &b->clock);
    s->device_name = strcmp(p->device, "cuda") == 0 ? s->env.gpu : s->env.cpu_model;
    s->plugin_path = p->registry.plugins[p->entry->plugin].path;

    if (harness_ranks_agree(&session->dist, p, err) != 0 ||
        harness_ranks_make_folder(&session->dist, p, &pt.exp, err) != 0)
        return harness_error_report(err);
    /* status.json next: from here on the folder says what became of the
     * run. Each rank has its own (rank 0's is status.json), so ranks never
     * write one file. */
    char status_name[256] = "status.json";
    if (s->world_size > 1 && s->rank != 0)
        harness_rank_file(status_name, sizeof status_name, "status", s->world_size, s->rank, "json");
    if (harness_status_file_create(&pt.status, pt.exp.dir, status_name, s->variant_key, err) != 0) {
        if (s->rank == 0)
            rmdir(pt.exp.dir);     /* empty: a folder that says nothing must not stay */
        return harness_error_report(err);
    }
    res->dir = strdup(pt.exp.dir);
    if (s->rank == 0 && harness_write_config_copies(&pt.exp, p, err) != 0) {
        harness_status st = {.status = "failed", .exit_code = err->code, .error = err->msg,
                             .variant_key = s->variant_key, .step = -1};
        harness_status_file_write(&pt.status, &st, 1);
        return harness_error_report(err);
    }

    harness_alloc_tracker_init(&pt.mem, b->allocator);
    pt.on_device = b->device_allocator.alloc != NULL;
    if (pt.on_device)
        harness_alloc_tracker_init(&pt.device_mem, b->device_allocator);
    harness_datagen_init(&pt.gen, p->cfg->generator, p->cfg->seed);
    /* On a GPU the memory the profiler follows is the device's. */
    start_profiler(&pt.prof, p->cfg, b, pt.on_device ? &pt.device_mem : &pt.mem, is_profiled(p->cfg, s->rank),
                   session->opts->quiet);
    instance *in = &pt.in;
    in->v = &p->entry->variant;
    harness_instance_init(&in->inst, in->v, p->cfg, &pt.mem, &pt.gen);
    in->inst.rank = session->dist.rank;
    in->inst.world_size = session->dist.world_size;
    in->inst.profiler = &pt.prof;
    in->inst.nvtx = p->cfg->nvtx && pt.on_device;
    in->inst.backend = b;
    in->inst.device_mem = pt.on_device ? &pt.device_mem : NULL;
    in->inst.dist = &session->dist;
    in->inst.comm = &pt.comm;
    s->comm = &pt.comm;
    s->notes = &in->inst.ctx.notes;
    s->mem = &pt.mem;
    s->device_mem = pt.on_device ? &pt.device_mem : NULL;
    s->profiler = &pt.prof;

    if (b->gpu_activity)  /* a session's backend serves several points */
        harness_gpu_activity_list_clear(b->gpu_activity);
    if (harness_guard_begin(&pt.status, s->variant_key, c->step_timeout_s, c->callback_timeout_s, salvage, &pt,
                            err) != 0) {
        pt.code = err->code;
        harness_summary_mark(s, "failed", err->msg);
        write_summaries_now(&pt);
    } else {
        guarded_run(&pt);
    }
    if (pt.code == 0 && !pt.crashed) {
        harness_error jerr = {0};
        if (harness_ranks_write_job_summary(&session->dist, s, &pt.exp, &jerr) != 0) {
            harness_error_report(&jerr);
            pt.code = jerr.code;
            harness_summary_mark(s, "failed", jerr.msg);
            /* The rank's summaries said ok: best effort on what may be a full
             * disk; status.json, written into its reserve, has the last word. */
            harness_error rerr = {0};
            harness_write_summary_files(&pt.exp, s, &rerr);
        }
    }
    write_final_status(&pt);
    harness_guard_end();
    if (pt.crashed)
        end_after_crash(&pt);
    res->status = s->status;
    /* Figures only for a point that ran to the end: a failed or cut-short
     * point's partial median would read as a result in the sweep table. */
    if (strcmp(s->status, "ok") == 0 && s->overall.n && s->overall.median > 0) {
        res->median_ns = s->overall.median;
        res->gbps = s->cost.bytes > 0 ? s->cost.bytes / s->overall.median : 0;
        res->gflops = s->cost.flops > 0 ? s->cost.flops / s->overall.median : 0;
    }
    harness_summary_release(s);
    harness_run_result_free(&pt.run);
    harness_profiler_free(&pt.prof);
    harness_comm_log_free(&pt.comm);
    harness_alloc_tracker_destroy(&pt.mem);
    if (pt.on_device)
        harness_alloc_tracker_destroy(&pt.device_mem);
    return pt.code;
}

int harness_run_point(harness_session *session, const harness_prepared *p, harness_point_result *res)
{
    int code = run_point_here(session, p, res);
    harness_dist *d = &session->dist;
    if (code != 0 && code < 128 && d->world_size > 1) {
        /* The other ranks would wait for this one at their next barrier:
         * stop the job now, naming this rank (its error is printed above,
         * its folder files say failed). */
        char msg[64];
        snprintf(msg, sizeof msg, "this rank's run failed (exit %d, the error above)", code);
        d->ops->abort(d, code, msg);
    }
    return code;
}

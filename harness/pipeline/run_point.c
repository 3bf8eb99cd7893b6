/* One point of `harness run`: create the experiment folder, create and
 * check the component, run the schedule, write the summaries. Everything
 * that can be wrong with the input was found before (pipeline/plan.c), so
 * a bad input never leaves a folder behind; a failure from here on is
 * written into the summary as status "failed". */
#include "pipeline/run_point.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "backend/device_restore.h"
#include "backend/gpu_probe.h"
#include "dist/gather.h"
#include "pipeline/artifacts.h"
#include "pipeline/component.h"
#include "pipeline/peer_failure.h"
#include "pipeline/ranks.h"
#include "pipeline/summary_retract.h"
#include "pipeline/timed_stream.h"
#include "report/experiment.h"
#include "report/output_root.h"
#include "report/summary.h"
#include "run/datagen.h"
#include "run/guard.h"
#include "run/instance.h"
#include "run/stop_watch.h"
#include "util/format.h"
#include "util/table_fit.h"
#include "folder/status.h"

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

/* Everything one point owns, in one place: the guard's landing and its
 * exit() path reach it through a pointer (run/guard.h). */
typedef struct point {
    harness_session *session;
    const harness_plan *p;
    harness_point_result *res;
    harness_backend *b;
    harness_experiment exp;        /* exp.dir: this rank's staging folder when its files travel (gather) */
    harness_gather gather;
    harness_status_file status;
    harness_summary s;
    harness_alloc_tracker mem, device_mem;
    int on_device;
    harness_datagen gen;
    harness_profiler prof;
    harness_component in;
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
    char peer[512];
    harness_peer_failure(&pt->exp, pt->s.world_size, pt->s.rank, peer, sizeof peer);
    harness_error_set(&pt->err, code, "%s: %s; the folder keeps what was measured, marked %s%s", pt->in.v->key,
                      where, status, r.outcome == HARNESS_GUARD_INTERRUPTED ? peer : "");
    /* Said now: writing the summaries may not survive what the plugin did. */
    harness_error_report(&pt->err);
    fflush(stderr);
    if (r.callback && strcmp(r.callback, "step") == 0 && pt->run.window_start) {
        harness_runner_salvage(&pt->run, r.phase && strcmp(r.phase, "measurement") == 0
                                               ? (r.outcome == HARNESS_GUARD_INTERRUPTED ? "interrupted" : "crashed")
                                               : NULL);
        pt->s.run = &pt->run;
    }
    harness_summary_mark(&pt->s, status, pt->err.msg);
    pt->code = code;
}

static void note_all_leaks(point *pt);
static void write_summaries_now(point *pt);
static void run_and_destroy(point *pt);

/* Stopped by a signal because another rank failed: name that rank. */
static void name_failed_peer(point *pt)
{
    char peer[512];
    if (strcmp(pt->s.status, "interrupted") != 0 ||
        !harness_peer_failure(&pt->exp, pt->s.world_size, pt->s.rank, peer, sizeof peer)[0])
        return;
    size_t n = strlen(pt->err.msg);
    snprintf(pt->err.msg + n, sizeof pt->err.msg - n, "%s", peer);
    harness_summary_mark(&pt->s, pt->s.status, pt->err.msg);
}

/* The component's life inside the guard. The landing is set here, in a
 * frame that lives as long as any callback; after a jump nothing but `pt`
 * (unchanged since sigsetjmp) is read. */
static void guarded_run(point *pt)
{
    if (sigsetjmp(harness_guard_landing, 1) == 0) {
        run_and_destroy(pt);
        return;
    }
    harness_guard_take_back();     /* the plugin's cwd, mask and handlers are not the landing's */
    landed(pt);
    write_summaries_now(pt);
}

/* --time-budget sized the windows: the progress line's plan follows, and
 * (rank 0, when they fit) one line on stderr, even with --quiet (a suite's
 * runs are quiet, and the sizes qualify every figure), and the note in
 * resolved_config.yaml. A budget too small is the runner's error. */
static void budget_sized(void *arg, const harness_budget *b)
{
    point *pt = arg;
    const harness_config *c = pt->p->cfg;
    pt->prof.n_windows = (int)b->windows;
    pt->prof.steps_planned = c->warmup_steps + b->pilot_steps + b->windows * (b->wait_steps + b->steps);
    if (!b->fits || pt->session->dist.rank != 0)
        return;
    char step[32];
    fprintf(stderr, "harness: run: a step took %s; %lld windows of %lld steps fit in --time-budget %g s\n",
            harness_format_ns(b->step_s * 1e9, step, sizeof step), (long long)b->windows, (long long)b->steps,
            b->budget_s);
    fflush(stderr);
    harness_error err = {0};
    if (harness_write_budget_note(&pt->exp, &pt->p->out, b, &err) != 0)
        harness_error_report(&err);  /* the summary still says what ran */
}

/* --time-budget: when the windows' own time let another number of them
 * run than the pilot planned, a second line says so (rank 0), with the
 * measured steps' wall time beside the pilot's. */
static void budget_outcome(const point *pt)
{
    const harness_run_result *r = &pt->run;
    const harness_budget *b = &r->budget;
    if (!(b->budget_s > 0) || !b->fits || pt->code != 0 || r->interrupted || !r->n_samples ||
        (int64_t)r->n_windows == b->windows || pt->session->dist.rank != 0)
        return;
    double wall_ns = 0;
    for (size_t w = 0; w < r->n_windows; w++)
        wall_ns += r->window_wall_ns[w];
    char step[32], pilot[32];
    fprintf(stderr, "harness: run: %zu windows ran in --time-budget %g s, not the %lld planned: a measured step "
            "took %s, the pilot's %s\n", r->n_windows, b->budget_s, (long long)b->windows,
            harness_format_ns(wall_ns / (double)r->n_samples, step, sizeof step),
            harness_format_ns(b->step_s * 1e9, pilot, sizeof pilot));
    fflush(stderr);
}

/* create -> check -> schedule, the summaries, then destroy and what it
 * left allocated. */
static void run_and_destroy(point *pt)
{
    harness_backend *b = pt->b;
    harness_component_where where = {.plan = pt->p, .dist = &pt->session->dist, .backend = b, .prof = &pt->prof,
                                     .budget_sized = budget_sized, .budget_arg = pt};
    harness_stop_watch_begin();
    pt->code = harness_component_run(&pt->in, &where, &pt->s, &pt->run, &pt->err);
    budget_outcome(pt);
    name_failed_peer(pt);
    if (b->gpu_activity && b->ops->activity_flush(b))
        pt->s.gpu_activity = b->gpu_activity;
    if (pt->code == 0)             /* the events saw the step's work (pipeline/timed_stream.h) */
        pt->code = harness_timed_stream_verdict(&pt->s, &pt->err);
    /* What was measured is on disk before destroy runs: a destroy that
     * hangs or crashes only changes the status they give. */
    write_summaries_now(pt);
    if (pt->in.created)            /* what destroy left running goes first into `leaks` */
        harness_component_destroy(&pt->in, pt->p, pt->leaks, sizeof pt->leaks);
    note_all_leaks(pt);
    if (pt->leaks[0]) {            /* said in the summaries, written again */
        harness_warnings_add(&pt->s.warnings, "%s", pt->leaks);
        if (pt->session->dist.rank == 0)   /* with --quiet naming the folder, as every warning then does */
            fprintf(stderr, "harness: warning: %s%s%s\n", pt->session->quiet ? harness_experiment_shown(&pt->exp) : "",
                    pt->session->quiet ? ": " : "", pt->leaks);
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

/* A run that measured an impossible figure (report/impossible_figure.h)
 * fails on it, exit 3, before its files are written: they, status.json
 * and the sweep's table all say "impossible_figure", and the summary's
 * impossible_figure names it. A run that already failed keeps its own
 * status (the figure is then one more warning). */
static void fail_on_impossible_figure(point *pt)
{
    harness_summary *s = &pt->s;
    if (!s->impossible.what[0] || s->impossible.allowed)
        return;
    if (strcmp(s->status, "ok") != 0 || pt->code != 0) {
        harness_warnings_add(&s->warnings, "%s", s->impossible.message);
        return;
    }
    harness_summary_mark(s, "impossible_figure", s->impossible.message);
    harness_error_set(&pt->err, HARNESS_EXIT_RUNTIME, "%s", s->impossible.message);
    pt->code = HARNESS_EXIT_RUNTIME;
}

/* Statistics, artifacts, the final status.json and the printed table. */
static void finish_point(point *pt)
{
    harness_summary *s = &pt->s;
    harness_env_capture_end(&s->env);
    harness_error werr = {0};
    s->allow_above_peak = pt->session->allow_above_peak;
    if (harness_summary_compute(s) != 0) {
        harness_error_set(&werr, HARNESS_EXIT_RUNTIME, "out of memory computing statistics");
        harness_error_report(&werr);
    } else {
        fail_on_impossible_figure(pt);
        char stopped[512];
        if (harness_stop_watch_warning(stopped, sizeof stopped))
            harness_warnings_add(&s->warnings, "%s", stopped);
        if (harness_write_artifacts(&pt->exp, s, &pt->prof, &werr) == 0 && pt->session->dist.rank == 0) {
            /* Rank 0 speaks for a job on stdout; every rank's figures are in its files. */
            if (pt->session->quiet)
                printf("%s\n", harness_experiment_shown(&pt->exp));
            else {
                harness_summary_print_short(s, stdout, pt->session->width);
                printf("experiment: %s\n", harness_experiment_shown(&pt->exp));
            }
            fflush(stdout);
            /* Once, on stderr, even with --quiet (then at the end): they qualify every figure. */
            harness_session_warn(pt->session, &s->warnings, harness_experiment_shown(&pt->exp));
        }
    }
    if (pt->code != 0 && !pt->crashed)
        harness_error_report(&pt->err);
    if (werr.code) {  /* reported where it happened (pipeline/artifacts.c) */
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
    harness_rank_file(name, sizeof name, HARNESS_PREFIX_SUMMARY, s->world_size, s->rank, "json");
    harness_rank_file(txt, sizeof txt, HARNESS_PREFIX_PROFILER_SUMMARY, s->world_size, s->rank, "txt");
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
    /* Interrupted (a stop abandoned a wait on the other ranks): no MPI call
     * after leaving one half done; mpirun stops the others when this rank
     * exits without finalizing. */
    harness_device_restore_now();   /* _exit skips the backend's close and atexit */
    if (d->world_size > 1 && pt->code < 128)
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

/* The session's backend for the plan's device, opened with what the
 * config asks of it. NULL with err set when it cannot be opened. */
static harness_backend *open_backend(harness_session *session, const harness_plan *p, harness_error *err)
{
    const harness_config *c = p->cfg;
    harness_backend_options bopts = {.device_index = (int)c->device_index,
                                     .batch_timing = strcmp(c->timing, "batch") == 0,
                                     .flush_l2 = c->flush_l2, .cuda_graph = c->cuda_graph,
                                     .blocking_kernel = c->blocking_kernel,
                                     .lock_clocks = strcmp(c->lock_clocks, "max") == 0    ? HARNESS_LOCK_CLOCKS_MAX
                                                    : strcmp(c->lock_clocks, "base") == 0 ? HARNESS_LOCK_CLOCKS_BASE
                                                                                          : HARNESS_LOCK_CLOCKS_OFF,
                                     .gpu_activity = c->cupti && is_profiled(c, session->dist.rank),
                                     .local_rank = session->dist.local_rank, .rank = session->dist.rank,
                                     .world_size = session->dist.world_size};
    harness_backend *b = harness_session_backend(session, p->device, &bopts, err);
    static int told;               /* information once per job: rank 0, the first point, not with --quiet */
    if (b && strcmp(c->device, "auto") == 0 && strcmp(p->device, "cpu") == 0 && !told++ && !session->quiet &&
        session->dist.rank == 0) {
        char line[1024];
        snprintf(line, sizeof line, "harness: device auto: running on the CPU (%s)\n",
                 harness_gpu_probe()->count > 0 ? "the variant has no CUDA version" : harness_gpu_probe()->why_none);
        harness_wrap_fputs(stderr, line, session->width, 2);
    }
    return b;
}

/* profiled_ranks names ranks of this job: known only now, at run time. */
static int check_profiled_ranks(const harness_dist *d, const harness_config *c, harness_error *err)
{
    for (size_t i = 0; !c->profile_all_ranks && i < c->n_profiled_ranks; i++)
        if (c->profiled_ranks[i] >= d->world_size)
            return harness_config_fail(c, HARNESS_EXIT_USAGE, "profiling.profiled_ranks", err, "rank %lld is outside "
                                     "this job of %d rank%s (0..%d); use ranks of the job, or all",
                                     (long long)c->profiled_ranks[i],
                                     d->world_size, d->world_size == 1 ? "" : "s", d->world_size - 1);
    return 0;
}

/* The summary's facts known before anything runs. */
static void start_summary(point *pt)
{
    const harness_plan *p = pt->p;
    harness_summary *s = &pt->s;
    harness_backend *b = pt->b;
    *s = (harness_summary){.status = "ok", .rank = pt->session->dist.rank,
                           .world_size = pt->session->dist.world_size, .cfg = p->cfg,
                           .variant_key = p->entry->variant.key, .device = p->device, .backend = b,
                           .clock = &b->clock};
    harness_env_capture(&s->env);
    harness_env_note_clock(&s->env, &b->clock);
    harness_dist_env_capture(&s->dist_env, &pt->session->dist, b);
    s->device_name = strcmp(p->device, "cuda") == 0 ? s->env.gpu : s->env.cpu_model;
    s->plugin_path = p->registry.plugins[p->entry->plugin].path;
}

/* The folder, its status.json and (rank 0) the config copies: from here on
 * the folder says what became of the run. Each rank has its own status
 * file (rank 0's is status.json), so ranks never write one file. 0 or the
 * reported exit code. */
static int open_folder(point *pt)
{
    harness_summary *s = &pt->s;
    harness_error *err = &pt->err;
    if (check_profiled_ranks(&pt->session->dist, pt->p->cfg, err) != 0 ||
        harness_ranks_agree(&pt->session->dist, pt->p->out.hash8, s->variant_key, s->plugin_path, err) != 0 ||
        harness_ranks_make_folder(&pt->session->dist, &pt->p->out, &pt->exp, err) != 0)
        return harness_error_report(err);
    if (harness_gather_probe(&pt->session->dist, pt->p->cfg->gather, pt->p->cfg->gather_max_bytes, pt->exp.dir,
                             &pt->gather, err) != 0) {
        if (s->rank == 0)
            rmdir(pt->exp.dir);    /* still empty */
        return harness_error_report(err);
    }
    snprintf(pt->exp.dir, sizeof pt->exp.dir, "%s", pt->gather.dir);
    char status_name[256];
    harness_status_file_name(status_name, sizeof status_name, s->world_size, s->rank);
    if (harness_status_file_create(&pt->status, pt->exp.dir, status_name, s->variant_key, err) != 0) {
        if (s->rank == 0)
            rmdir(pt->exp.dir);    /* empty: a folder that says nothing must not stay */
        return harness_error_report(err);
    }
    pt->res->dir = strdup(pt->exp.dir);
    if (s->rank == 0 && harness_write_config_copies(&pt->exp, &pt->p->out, err) != 0) {
        harness_status st = {.status = "failed", .exit_code = err->code, .error = err->msg,
                             .variant_key = s->variant_key, .step = -1};
        harness_status_file_write(&pt->status, &st, 1);
        return harness_error_report(err);
    }
    return 0;
}

/* The instance with its services: memory trackers, data, profiler, ranks. */
static void prepare_instance(point *pt)
{
    const harness_plan *p = pt->p;
    harness_backend *b = pt->b;
    harness_summary *s = &pt->s;
    harness_dist *dist = &pt->session->dist;
    harness_alloc_tracker_init(&pt->mem, b->allocator);
    pt->on_device = b->device_allocator.alloc != NULL;
    if (pt->on_device)
        harness_alloc_tracker_init(&pt->device_mem, b->device_allocator);
    harness_datagen_init(&pt->gen, p->cfg->generator, p->cfg->seed);
    /* On a GPU the memory the profiler follows is the device's. */
    start_profiler(&pt->prof, p->cfg, b, pt->on_device ? &pt->device_mem : &pt->mem, is_profiled(p->cfg, s->rank),
                   pt->session->quiet);
    harness_component *in = &pt->in;
    in->v = &p->entry->variant;
    harness_instance_init(&in->inst, in->v, p->cfg, &pt->mem, &pt->gen);
    in->inst.rank = dist->rank;
    in->inst.world_size = dist->world_size;
    in->inst.profiler = &pt->prof;
    in->inst.nvtx = p->cfg->nvtx && pt->on_device;
    in->inst.backend = b;
    in->inst.device_mem = pt->on_device ? &pt->device_mem : NULL;
    in->inst.dist = dist;
    in->inst.comm = &pt->comm;
    s->comm = &pt->comm;
    s->notes = &in->inst.ctx.notes;
    s->mem = &pt->mem;
    s->device_mem = pt->on_device ? &pt->device_mem : NULL;
    s->profiler = &pt->prof;
    if (b->gpu_activity)  /* a session's backend serves several points */
        harness_gpu_activity_list_clear(b->gpu_activity);
}

/* The job failed after this rank's summaries said ok: none may go on saying so. */
static void fail_job(point *pt, const harness_error *jerr)
{
    harness_error_report(jerr);
    pt->code = jerr->code;
    harness_summary_mark(&pt->s, "failed", jerr->msg);
    /* The rank's summaries said ok: none may go on saying so; status.json,
     * written into its reserve, has the last word. */
    harness_error rerr = {0};
    harness_retract_ok_summaries(&pt->exp, &pt->s, &rerr);
}

/* Rank 0's cross-rank summary, once every rank's run succeeded; first,
 * without a shared file system (dist/gather.h), the staging ranks' files
 * into rank 0's folder: the summary merges their traces and names what
 * came. Files lost fail the job, as a summary that could not be written
 * does; every rank still comes to the summary's gathers. */
static void write_job_summary(point *pt)
{
    harness_error gerr = {0}, jerr = {0};
    harness_gather_round(&pt->session->dist, &pt->gather, &gerr);
    if (harness_ranks_write_job_summary(&pt->session->dist, &pt->s, &pt->exp, &pt->gather, &jerr) != 0)
        fail_job(pt, &jerr);
    if (gerr.code && !pt->code)
        fail_job(pt, &gerr);
    else if (gerr.code)
        harness_error_report(&gerr);
}

/* The final status files (and at an interruption, every file) of the
 * staging ranks into rank 0's folder: the exit code says when files were lost. */
static void gather_final_files(point *pt)
{
    harness_error gerr = {0};
    if (harness_gather_round(&pt->session->dist, &pt->gather, &gerr) == 0)
        return;
    harness_error_report(&gerr);
    if (!pt->code)
        pt->code = gerr.code;
}

/* A stop the ranks agreed on (every rank's run counts as interrupted, see
 * dist.h's meet): each rank is here, so rank 0 gathers what they measured
 * as for a complete run. After status.json, which must say interrupted
 * even when the launcher's SIGKILL (Slurm's KillWait, mpirun's second)
 * ends this gather; a failure here changes no rank's outcome. */
static void write_interrupted_job_summary(point *pt)
{
    harness_error jerr = {0};
    if (harness_ranks_write_job_summary(&pt->session->dist, &pt->s, &pt->exp, &pt->gather, &jerr) != 0)
        harness_error_report(&jerr);
}

/* What the sweep's table shows, then everything the point held, freed. */
static void end_point(point *pt)
{
    harness_summary *s = &pt->s;
    harness_point_result *res = pt->res;
    res->status = s->status;
    /* Figures only for a point that ran to the end: a failed or cut-short
     * point's partial median would read as a result in the sweep table. */
    if (strcmp(s->status, "ok") == 0 && s->overall.n && s->overall.median > 0) {
        res->median_ns = s->overall.median;
        res->gbps = s->cost.bytes > 0 ? s->cost.bytes / s->overall.median : 0;
        res->gflops = s->cost.flops > 0 ? s->cost.flops / s->overall.median : 0;
    }
    harness_summary_release(s);
    harness_run_result_free(&pt->run);
    harness_profiler_free(&pt->prof);
    harness_comm_log_free(&pt->comm);
    harness_alloc_tracker_destroy(&pt->mem);
    if (pt->on_device)
        harness_alloc_tracker_destroy(&pt->device_mem);
}

static int run_point_here(harness_session *session, const harness_plan *p, harness_point_result *res)
{
    *res = (harness_point_result){.status = "not run"};
    /* Static, not on the stack: the exit() path reads it from inside a
     * callback, and it is large. One point runs at a time. */
    static point pt;
    memset(&pt, 0, sizeof pt);
    pt.session = session;
    pt.p = p;
    pt.res = res;
    if (harness_output_root_check(p->cfg->output_dir, &pt.err) != 0 ||
        !(pt.b = open_backend(session, p, &pt.err)))
        return harness_error_report(&pt.err);
    start_summary(&pt);
    int code = open_folder(&pt);
    if (code != 0) {
        harness_gather_end(&pt.gather);
        return code;
    }
    prepare_instance(&pt);
    if (harness_guard_begin(&pt.status, pt.s.variant_key, p->cfg->step_timeout_s, p->cfg->callback_timeout_s,
                            salvage, &pt, &pt.err) == 0) {
        guarded_run(&pt);
    } else {
        pt.code = pt.err.code;
        harness_summary_mark(&pt.s, "failed", pt.err.msg);
        write_summaries_now(&pt);
    }
    if (pt.code == 0 && !pt.crashed)
        write_job_summary(&pt);
    write_final_status(&pt);
    if (!pt.crashed)
        gather_final_files(&pt);
    if (!pt.crashed && pt.run.interrupted)
        write_interrupted_job_summary(&pt);
    harness_gather_end(&pt.gather);
    harness_guard_end();
    if (pt.crashed)
        end_after_crash(&pt);
    end_point(&pt);
    return pt.code;
}

int harness_run_point(harness_session *session, const harness_plan *p, harness_point_result *res)
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

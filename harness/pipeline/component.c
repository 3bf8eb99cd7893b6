/* One component instance through create, cost, the reference check and
 * the schedule (pipeline/component.h). */
#include "pipeline/component.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pipeline/schedule_observers.h"
#include "run/full_sync.h"
#include "plugin/variant_cost.h"
#include "run/after_timing.h"
#include "run/guard.h"
#include "run/thread_census.h"
#include "util/stats.h"
#include "util/progress.h"

/* A callback that returned with regions still open is blamed by name, so
 * the message points at the callback that forgot its region_pop, not at
 * whatever ran next. Returns rc, or -1 when regions were left open. */
static int regions_closed(harness_component *in, const char *callback, int rc)
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
    harness_component *in = arg;
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
    harness_component *in = arg;
    harness_error e = {0};
    if (in->inst.backend->ops->replay(in->inst.backend, &e) != 0) {
        harness_ctx_failf(&in->inst.ctx, "%s", e.msg);
        return -1;
    }
    return 0;
}

/* The one place that decides whether a reference check passed. A check
 * that compared nothing proves nothing, so passed with checked == 0 fails
 * (a plugin that forgot to count, or a shape that rounds to no elements). */
static int check_verdict(const char *key, harness_check *c, harness_error *err)
{
    /* The plugin's detail is read as a string below and in the summaries:
     * one written to the last byte has no NUL of its own. */
    c->detail[sizeof c->detail - 1] = '\0';
    /* A check that says passed yet counts elements over tolerance, or whose
     * largest error is not a number (a NaN output), contradicts itself: it
     * did not pass. (A relative error may be NaN where the reference is 0.) */
    if (c->passed && (c->mismatches > 0 || isnan(c->max_abs_err)))
        return harness_error_set(err, HARNESS_EXIT_VERDICT,
                                 "%s: check set passed, but counted %llu of %llu elements over tolerance with max "
                                 "abs err %.3g: a check passes only with no mismatches and a max abs err that is "
                                 "a number; timing skipped", key, (unsigned long long)c->mismatches,
                                 (unsigned long long)c->checked, c->max_abs_err);
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

/* create, then cost: what a step moves and computes, for throughput. */
static int create_instance(harness_component *in, harness_summary *s, harness_error *err)
{
    const harness_variant *v = in->v;
    in->threads_before = harness_thread_baseline();
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
        s->cost = (harness_cost){.size = sizeof s->cost};  /* the summary never shows what was refused */
        harness_error_set(err, HARNESS_EXIT_RUNTIME, "%s: cost failed: %s", v->key,
                          harness_ctx_message(&in->inst.ctx, "no message given"));
        harness_summary_mark(s, "failed", err->msg);
        return err->code;
    }
    return 0;
}

/* The output against the reference, before any timing. */
static int check_against_reference(harness_component *in, harness_summary *s, harness_error *err)
{
    const harness_variant *v = in->v;
    s->check.size = sizeof s->check;
    harness_guard_enter("check");
    int rc = v->check(&in->inst.ctx, in->state, &s->check);
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
    return 0;
}

/* The plan's schedule, each step one call of step() or, with cuda_graph,
 * one launch of the graph of a step captured here. */
static int run_schedule(harness_component *in, const harness_component_where *r, harness_run_result *run,
                        harness_full_sync_check *full_sync, harness_error *err)
{
    harness_schedule_observers obs = {.dist = r->dist, .profiler = harness_profiler_hooks(r->prof),
                                      .sync_steps = (int)r->plan->cfg->sync_steps,
                                      .collectives_called = &in->inst.collectives_called,
                                      .budget_sized = r->budget_sized, .budget_arg = r->budget_arg,
                                      .inputs = in->inputs.n_sets >= 2 ? &in->inputs : NULL};
    harness_runner_hooks hooks = harness_schedule_observer_hooks(&obs);
    const harness_backend *b = r->backend;
    in->timed_step = step_instance;
    harness_guard_enter("step");
    if (b->opts.cuda_graph && b->ops->capture) {
        if (b->ops->capture(b, step_instance, in, err) != 0) {
            harness_guard_leave();
            return err->code;
        }
        in->timed_step = replay_graph;
    }
    int rc = harness_runner_run(&r->plan->schedule, b, in->timed_step, in, &hooks, run, err);
    /* After every window, the trace's too: the events against a full
     * synchronize (run/full_sync.h), judged once the timeline is read. */
    if (rc == 0 && !run->step_failed && !run->interrupted) {
        harness_guard_phase(HARNESS_PHASE_AFTER_TIMING, -1);    /* its steps are not measured ones */
        rc = harness_full_sync_run(b, in->timed_step, in, run,
                                   r->dist->world_size > 1 && in->inst.collectives_called > 0, full_sync, err);
    }
    harness_guard_leave();
    return rc != 0 ? err->code : 0;
}

/* schedule.rotate_inputs: the input sets, before the schedule. Asking for
 * them of a component that declared no inputs is a config error: nothing
 * would rotate, and the run would claim it did. */
static int make_input_sets(harness_component *in, const harness_plan *plan, harness_summary *s, harness_error *err)
{
    int64_t n = plan->cfg->rotate_inputs;
    if (n < 2)
        return 0;
    if (in->inst.io.n_inputs == 0)
        return harness_config_fail(plan->cfg, HARNESS_EXIT_USAGE, "schedule.rotate_inputs", err,
                                   "%lld, but %s declares no inputs (the input service, plugin ABI 2.4): there is "
                                   "nothing to rotate; set rotate_inputs to 0 or declare the inputs in create",
                                   (long long)n, in->v->key);
    harness_guard_enter("create");
    int rc = harness_input_sets_make(&in->inputs, &in->inst, n, err);
    harness_guard_leave();
    if (rc != 0)
        return err->code;
    s->after_timing.rotate_sets = n;
    s->after_timing.rotate_bytes = in->inputs.bytes;
    return 0;
}

/* ---- the checks after timing (docs/timing-integrity.md, "Anti-cheat") ---- */

/* The reference check again, on fresh values of every declared input (the
 * same inputs when none is declared): a step that serves a cached or
 * replayed output fails it. */
static int recheck(harness_component *in, harness_summary *s, harness_error *err)
{
    const harness_declared_io *io = &in->inst.io;
    for (int i = 0; i < io->n_inputs; i++)
        if (harness_declared_redraw(&in->inst, &io->inputs[i], io->inputs[i].ptr) != 0)
            return harness_error_set(err, HARNESS_EXIT_RUNTIME, "%s: new input values for the check after timing: %s",
                                     in->v->key, harness_ctx_message(&in->inst.ctx, "no message given"));
    s->after_timing.recheck = io->n_inputs ? "new_inputs" : "same_inputs";
    harness_check c = {.size = sizeof c};
    int rc = in->v->check(&in->inst.ctx, in->state, &c);
    if (regions_closed(in, "check", rc) != 0 || in->inst.ctx.failed)
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "%s: the reference check after timing could not run: %s",
                                 in->v->key, harness_ctx_message(&in->inst.ctx, "no message given"));
    if (check_verdict(in->v->key, &c, err) == 0)
        return 0;
    char why[sizeof err->msg];
    snprintf(why, sizeof why, "%s", err->msg);
    return harness_error_set(err, HARNESS_EXIT_VERDICT, "after timing, with %s: %s; it passed before timing, so the "
                             "timed steps did not compute what the check computes (a cached or replayed output, or "
                             "work deferred past the step)", io->n_inputs ? "new input values" : "the same inputs",
                             why);
}

/* After the last window: the output probe (run/after_timing.h), then the
 * recheck. Every rank runs both whole, whatever it finds, so that a step
 * holding a collective meets its peers. */
static int check_after_timing(harness_component *in, const harness_component_where *r, harness_summary *s,
                              const harness_run_result *run, harness_error *err)
{
    harness_after_timing_summary *a = &s->after_timing;
    const harness_config *cfg = r->plan->cfg;
    a->inputs = in->inst.io.n_inputs;
    a->outputs = in->inst.io.n_outputs;
    a->recheck = "none";
    if (!cfg->validate_after_timing) {
        a->state = "off";
        return 0;
    }
    harness_stats st = {0};
    harness_stats_compute(run->samples_ns, run->n_samples, &st);
    harness_probe probe = {r->backend, &in->inst.io, in->timed_step, in, st.median};
    harness_probe_report rep;
    harness_guard_phase(HARNESS_PHASE_AFTER_TIMING, -1);    /* its steps are not measured ones */
    harness_guard_enter("check");
    int rc = harness_probe_outputs(&probe, &rep, err);
    a->probe_steps = rep.probes;
    a->probe_wait_ns = rep.wait_ns;
    harness_error re = {0};
    if (rc == 0 && cfg->validate && in->v->check)
        recheck(in, s, &re);
    harness_guard_leave();
    if (rc != 0 || (re.code && re.code != HARNESS_EXIT_VERDICT)) {
        if (!err->code)
            *err = re;
        harness_summary_mark(s, "failed", err->msg);
        return err->code;
    }
    a->state = rep.failure[0] || re.code ? "failed" : "passed";
    if (rep.failure[0])
        harness_error_set(err, HARNESS_EXIT_VERDICT, "%s: %s", in->v->key, rep.failure);
    else if (re.code)
        *err = re;
    if (err->code)                 /* validation keeps the check before timing, which passed */
        harness_summary_mark(s, "validation_failed", err->msg);
    return err->code;
}

/* A schedule that ran but stopped short: a step that failed, or a signal. */
static int judge_run(const harness_component *in, const harness_run_result *run, harness_summary *s,
                     harness_error *err)
{
    if (run->step_failed) {
        char window[32] = "";      /* windows and steps from 1, for people, as the guard says them */
        if (run->failed_phase != HARNESS_PHASE_WARMUP && run->failed_phase != HARNESS_PHASE_TRACE)
            snprintf(window, sizeof window, ", window %d", run->failed_window + 1);
        harness_error_set(err, HARNESS_EXIT_RUNTIME, "%s: step failed in the %s phase%s, step %lld: %s", in->v->key,
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

int harness_component_run(harness_component *in, const harness_component_where *r, harness_summary *s,
                          harness_run_result *run, harness_error *err)
{
    /* before the steps' own line (run/profiler.c): the inputs and the check
     * against the double reference can take seconds */
    harness_progress pg;
    harness_progress_start(&pg, "validation", 0, !(r->prof && r->prof->progress));
    harness_progress_show(&pg, 0, "create: inputs and buffers");
    int rc = create_instance(in, s, err);
    if (rc == 0 && r->plan->cfg->validate && in->v->check) {
        harness_progress_show(&pg, 1, "check against the reference");
        rc = check_against_reference(in, s, err);
    }
    harness_progress_clear(&pg);
    if (rc != 0)
        return err->code;
    if (make_input_sets(in, r->plan, s, err) != 0) {
        harness_summary_mark(s, "failed", err->msg);
        return err->code;
    }
    rc = run_schedule(in, r, run, &s->full_sync, err);
    harness_input_sets_free(&in->inputs);
    if (rc != 0) {
        harness_summary_mark(s, "failed", err->msg);
        return err->code;
    }
    s->run = run;
    if (judge_run(in, run, s, err) != 0)
        return err->code;
    return check_after_timing(in, r, s, run, err);
}

void harness_component_destroy(harness_component *in, const harness_plan *plan, char *left, size_t cap)
{
    left[0] = '\0';
    harness_guard_enter("destroy");
    in->v->destroy(&in->inst.ctx, in->state);
    harness_guard_leave();
    int n = harness_threads_left(in->threads_before);
    if (n == 0)
        return;
    const harness_registry *reg = &plan->registry;
    size_t plugin = plan->entry->plugin;
    harness_registry_keep_loaded(reg, plugin);
    /* On a GPU the driver, CUPTI and NCCL start threads of their own when
     * first needed, which a count cannot tell from the plugin's: the module
     * stays loaded all the same, without a warning that would be noise. */
    if (reg->plugins[plugin].unload || strcmp(plan->device, "cuda") == 0)
        return;
    snprintf(left, cap, "%s left %d thread%s running after destroy; its module stays loaded (stop and join in "
             "destroy the threads create started, or keep a pool across instances and stop it in the unload "
             "callback, set_unload)", in->v->key, n, n == 1 ? "" : "s");
}

/* harness run CONFIG: prepare, create the experiment folder, create and
 * validate the component, run the schedule, write the summaries. With a
 * sweep: every point is prepared first, then each is run that way in turn.
 *
 * Everything that can be wrong with the input is found before the folder
 * exists, so a bad input never leaves one behind; a failure after that is
 * written into the summary as status "failed". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/commands.h"
#include "run/datagen.h"
#include "report/experiment.h"
#include "util/fsutil.h"
#include "report/memory_report.h"
#include "run/instance.h"
#include "report/summary.h"
#include "report/trace_writer.h"

static void usage(FILE *f)
{
    fputs("usage: harness run CONFIG [--set KEY=VALUE]... [--output-dir DIR] [--device auto|cpu|cuda]\n"
          "                   [--plugin-path DIR]... [--quiet]\n"
          "\n"
          "Validate CONFIG, load its component, check it against the reference, run the\n"
          "warmup / wait / measurement schedule and write an experiment folder under\n"
          "experiment.output_dir (default experiments/). With a sweep: check every point,\n"
          "then run each in turn (one folder each) and print a table of all points.\n"
          "\n"
          "  --set KEY=VALUE     override a config key, e.g. --set component.config.dtype=bf16\n"
          "  --output-dir DIR    root for the experiment folder (experiment.output_dir)\n"
          "  --device D          auto, cpu or cuda (device)\n"
          "  --plugin-path DIR   look for plugins in DIR first (repeatable)\n"
          "  --quiet             print only the experiment folder's path (one per point)\n"
          "\n"
          "exit: 0 ok, 1 validation mismatch, 2 usage or config error, 3 runtime failure, 130 interrupted\n",
          f);
}

/* The component instance the runner steps. */
typedef struct instance {
    const harness_variant *v;
    harness_instance inst;
    void *state;
    int created;                   /* create succeeded: destroy must run */
} instance;

static int step_instance(void *arg)
{
    instance *in = arg;
    int rc = in->v->step(&in->inst.ctx, in->state);
    if (rc == 0 && in->inst.region_depth != 0)
        return harness_host_services()->fail(&in->inst.ctx, "step left %d region(s) open", in->inst.region_depth);
    return rc;
}

static int write_text(const harness_experiment *exp, const char *name, const char *text, harness_error *err)
{
    char path[4200];
    if (!text)
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "out of memory writing %s", name);
    return harness_write_atomic(harness_experiment_path(exp, name, path, sizeof path), text, strlen(text), err);
}

/* The config as the user wrote it (byte copy) and as it was resolved. */
static int write_config_copies(const harness_experiment *exp, const harness_prepared *p, harness_error *err)
{
    char *original = NULL;
    size_t len = 0;
    if (harness_read_file(p->cfg->path, &original, &len, err) != 0)
        return err->code;
    const char *base = strrchr(p->cfg->path, '/');
    base = base ? base + 1 : p->cfg->path;
    char path[4200];
    int rc = harness_write_atomic(harness_experiment_path(exp, base, path, sizeof path), original, len, err);
    free(original);
    if (rc == 0)
        rc = write_text(exp, "resolved_config.yaml", p->resolved_yaml, err);
    return rc;
}

static int write_summaries(const harness_experiment *exp, const harness_summary *s, harness_error *err)
{
    char name[256];
    char *text = harness_summary_text(s);
    int rc = write_text(exp, harness_rank_file(name, sizeof name, "profiler_summary", s->world_size, s->rank, "txt"),
                        text, err);
    free(text);
    if (rc != 0)
        return rc;
    char *json = harness_summary_json(s);
    rc = write_text(exp, harness_rank_file(name, sizeof name, "summary", s->world_size, s->rank, "json"), json, err);
    free(json);
    return rc;
}

static void mark(harness_summary *s, const char *status, const char *why)
{
    s->status = status;
    snprintf(s->error, sizeof s->error, "%s", why);
}

/* create -> validate -> schedule. Returns the exit code; s->status says what happened. */
static int run_component(const harness_prepared *p, instance *in, harness_summary *s, harness_run_result *run,
                         const harness_clock *clk, harness_profiler *prof, harness_error *err)
{
    const harness_variant *v = in->v;
    if (v->create(&in->inst.ctx, &in->state) != 0 || in->inst.ctx.failed) {
        harness_error_set(err, HARNESS_EXIT_RUNTIME, "%s: create failed: %s", v->key,
                          harness_ctx_message(&in->inst.ctx, "no message given"));
        mark(s, "failed", err->msg);
        return err->code;
    }
    in->created = 1;
    v->cost(in->state, &s->cost);

    if (p->cfg->validate && v->check) {
        s->check.size = sizeof s->check;
        if (v->check(&in->inst.ctx, in->state, &s->check) != 0 || in->inst.ctx.failed) {
            harness_error_set(err, HARNESS_EXIT_RUNTIME, "%s: reference check could not run: %s", v->key,
                              harness_ctx_message(&in->inst.ctx, "no message given"));
            mark(s, "failed", err->msg);
            return err->code;
        }
        s->validation = s->check.passed ? HARNESS_VALIDATION_PASSED : HARNESS_VALIDATION_FAILED;
        if (!s->check.passed) {
            harness_error_set(err, HARNESS_EXIT_VERDICT,
                              "%s: output does not match the reference: %llu of %llu elements over tolerance, "
                              "max abs err %.3g > %.3g (%s); timing skipped",
                              v->key, (unsigned long long)s->check.mismatches,
                              (unsigned long long)s->check.checked, s->check.max_abs_err, s->check.tolerance,
                              s->check.detail);
            mark(s, "validation_failed", err->msg);
            return err->code;
        }
    }

    const harness_config *c = p->cfg;
    harness_schedule sched = {
        .warmup_steps = c->warmup_steps, .wait_steps = c->wait_steps,
        .measurement_steps = c->measurement_steps, .repeat = c->repeat,
        .max_rel_ci = c->stop_max_rel_ci, .min_steps = c->stop_min_steps,
        .max_steps = c->stop_max_steps, .max_time_s = c->stop_max_time_s,
    };
    harness_runner_hooks hooks = harness_profiler_hooks(prof);
    if (harness_runner_run(&sched, clk, step_instance, in, &hooks, run, err) != 0) {
        mark(s, "failed", err->msg);
        return err->code;
    }
    s->run = run;
    if (run->step_failed) {
        static const char *const phases[] = {"warmup", "wait", "measurement"};
        harness_error_set(err, HARNESS_EXIT_RUNTIME, "%s: step %lld of the %s phase failed: %s", v->key,
                          (long long)run->failed_step, phases[run->failed_phase],
                          harness_ctx_message(&in->inst.ctx, "no message given"));
        mark(s, "failed", err->msg);
        return err->code;
    }
    if (run->interrupted) {
        harness_error_set(err, HARNESS_EXIT_INTERRUPTED, "interrupted after %zu measured steps; partial results kept",
                          run->n_samples);
        mark(s, "interrupted", err->msg);
        return err->code;
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

static void start_profiler(harness_profiler *prof, const harness_config *c, const harness_clock *clk,
                           const harness_alloc_tracker *mem, int profiled, int quiet)
{
    int64_t planned = c->measurement_steps ? c->warmup_steps + c->repeat * (c->wait_steps + c->measurement_steps) : 0;
    harness_profiler_options o = {
        .trace = profiled && c->trace, .memory = profiled && c->memory,
        .progress = !quiet && isatty(STDERR_FILENO), .max_events = c->max_trace_events,
        .memory_log_steps = c->memory_log_steps, .steps_planned = planned, .n_windows = (int)c->repeat,
    };
    harness_profiler_init(prof, clk, mem, &o);
}

static int write_memory_report(const harness_experiment *exp, const harness_summary *s,
                               const harness_profiler *prof, harness_error *err)
{
    char title[512], subtitle[1024], name[256];
    snprintf(title, sizeof title, "%s - rank %d of %d", s->variant_key, s->rank, s->world_size);
    snprintf(subtitle, sizeof subtitle, "%s on %s (%s), started %s; memory sampled every %lld steps and at each "
             "phase edge", s->cfg->name, s->env.host, s->device_name, s->env.started_at,
             (long long)s->cfg->memory_log_steps);
    harness_memory_report_input in = {
        .title = title, .device = s->device, .subtitle = subtitle, .log = &prof->memory,
        .peak_allocated = s->mem->peak_bytes, .peak_reserved = prof->memory.peak_reserved,
        .at_peak = s->mem->at_peak, .n_at_peak = s->mem->n_at_peak,
    };
    char *html = harness_memory_report_html(&in);
    int rc = write_text(exp, harness_rank_file(name, sizeof name, "profiler_memory", s->world_size, s->rank, "html"),
                        html, err);
    free(html);
    return rc;
}

/* Trace and memory report where profiled, then the summaries on every rank;
 * when an artifact cannot be written the summaries still are, saying so. */
static int write_artifacts(const harness_experiment *exp, harness_summary *s, const harness_profiler *prof,
                           harness_error *err)
{
    char name[256], path[4400];
    int rc = 0;
    if (prof->memory_enabled)
        rc = write_memory_report(exp, s, prof, err);
    if (rc == 0 && prof->trace_enabled) {
        harness_trace_meta meta = {.rank = s->rank, .world_size = s->world_size, .variant_key = s->variant_key,
                                   .device_name = s->device_name, .harness_version = s->env.version};
        harness_rank_file(name, sizeof name, "profiler_trace", s->world_size, s->rank, "json");
        rc = harness_trace_write(prof, &meta, harness_experiment_path(exp, name, path, sizeof path), err);
    }
    if (rc != 0 && strcmp(s->status, "ok") == 0)
        mark(s, "failed", err->msg);
    harness_error summary_err = {0};
    if (write_summaries(exp, s, &summary_err) != 0 && rc == 0) {
        *err = summary_err;
        rc = err->code;
    }
    return rc;
}

/* What the sweep's final table shows of one point. */
typedef struct point_result {
    const char *status;            /* the summary's, or "not run" */
    double median_ns;              /* 0 when nothing was measured */
    double gbps, gflops;           /* 0 when unknown */
    char *dir;                     /* the experiment folder, malloc'ed; NULL when none */
} point_result;

/* Run one prepared config and write its experiment folder; print its table
 * (or, with --quiet, its folder). Returns the exit code, errors reported. */
static int run_prepared(const harness_cli_opts *opts, const harness_prepared *p, point_result *res)
{
    harness_error err = {0};
    harness_clock clk;
    harness_clock_init(&clk, 0);
    harness_summary s = {.status = "ok", .rank = 0, .world_size = 1, .cfg = p->cfg,
                         .variant_key = p->entry->variant.key, .device = p->device, .clock = &clk};
    harness_env_capture(&s.env);
    s.device_name = strcmp(p->device, "cuda") == 0 ? s.env.gpu : s.env.cpu_model;
    s.plugin_path = p->registry.plugins[p->entry->plugin].path;
    *res = (point_result){.status = "not run"};

    harness_experiment exp;
    if (harness_experiment_create(&exp, p->cfg->output_dir, time(NULL), p->hash8, &err) != 0 ||
        write_config_copies(&exp, p, &err) != 0)
        return harness_error_report(&err);
    res->dir = strdup(exp.dir);

    harness_alloc_tracker mem;
    harness_alloc_tracker_init(&mem);
    harness_datagen gen;
    harness_datagen_init(&gen, p->cfg->generator, p->cfg->seed);
    harness_profiler prof;
    start_profiler(&prof, p->cfg, &clk, &mem, is_profiled(p->cfg, s.rank), opts->quiet);
    instance in = {.v = &p->entry->variant};
    harness_instance_init(&in.inst, in.v, p->cfg, &mem, &gen);
    in.inst.profiler = &prof;
    in.inst.nvtx = p->cfg->nvtx;
    s.mem = &mem;
    s.profiler = &prof;
    harness_run_result run = {0};

    int code = run_component(p, &in, &s, &run, &clk, &prof, &err);
    if (in.created)
        in.v->destroy(&in.inst.ctx, in.state);
    if (mem.n_live)  /* what the plugin forgot to free: not ours to leak */
        harness_alloc_tracker_release_all(&mem);

    harness_error werr = {0};
    if (harness_summary_compute(&s) != 0) {
        harness_error_set(&werr, HARNESS_EXIT_RUNTIME, "out of memory computing statistics");
    } else if (write_artifacts(&exp, &s, &prof, &werr) == 0) {
        if (opts->quiet)
            printf("%s\n", exp.dir);
        else {
            harness_summary_print_short(&s, stdout);
            printf("experiment: %s\n", exp.dir);
        }
        fflush(stdout);
    }
    if (code != 0)
        harness_error_report(&err);
    if (werr.code) {
        harness_error_report(&werr);
        code = code ? code : werr.code;
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
    harness_alloc_tracker_destroy(&mem);
    return code;
}

/* One row per point: its values, status, median, throughput and folder. */
static void print_sweep_table(const harness_config *cfg, char **const *values, const point_result *res,
                              size_t n)
{
    printf("\nsweep of %zu points:\n", cfg->n_sweep_points);
    printf("%-6s", "point");
    for (size_t k = 0; k < cfg->n_sweep_keys; k++) {
        const char *dot = strrchr(cfg->sweep_keys[k], '.');
        printf(" %-12s", dot ? dot + 1 : cfg->sweep_keys[k]);
    }
    printf(" %-17s %11s %13s  %s\n", "status", "median", "throughput", "experiment");
    for (size_t i = 0; i < n; i++) {
        char pt[32], med[32], tput[48];
        snprintf(pt, sizeof pt, "%zu/%zu", i + 1, cfg->n_sweep_points);
        printf("%-6s", pt);
        for (size_t k = 0; k < cfg->n_sweep_keys; k++)
            printf(" %-12s", values[i] && values[i][k] ? values[i][k] : "?");
        if (res[i].median_ns > 0)
            harness_format_ns(res[i].median_ns, med, sizeof med);
        else
            snprintf(med, sizeof med, "-");
        if (res[i].gbps > 0)
            snprintf(tput, sizeof tput, "%.2f GB/s", res[i].gbps);
        else if (res[i].gflops > 0)
            snprintf(tput, sizeof tput, "%.2f GFLOP/s", res[i].gflops);
        else
            snprintf(tput, sizeof tput, "-");
        printf(" %-17s %11s %13s  %s\n", res[i].status, med, tput, res[i].dir ? res[i].dir : "-");
    }
}

static void free_values(char **values, size_t n)
{
    for (size_t k = 0; values && k < n; k++)
        free(values[k]);
    free(values);
}

/* Copies of a point's swept values, for the final table (its config is freed before). */
static char **copy_values(const harness_config *cfg)
{
    char **v = calloc(cfg->n_sweep_keys ? cfg->n_sweep_keys : 1, sizeof *v);
    for (size_t k = 0; v && k < cfg->n_sweep_keys; k++)
        v[k] = strdup(cfg->sweep_values[k]);
    return v;
}

/* Every point validated first, then run one after the other; *first
 * (point 0, prepared) is freed here. */
static int run_sweep(const harness_cli_opts *opts, harness_prepared *first)
{
    harness_error err = {0};
    size_t n = first->cfg->n_sweep_points, n_keys = first->cfg->n_sweep_keys;
    point_result *res = calloc(n, sizeof *res);
    char ***values = calloc(n, sizeof *values);
    int worst = 0;
    if (!res || !values)
        worst = harness_error_set(&err, HARNESS_EXIT_RUNTIME, "out of memory");
    else
        worst = harness_prepare_sweep(opts, first, &err);
    if (worst != 0) {
        free(res);
        free(values);
        harness_prepared_free(first);
        return harness_error_report(&err);
    }
    harness_runner_catch_sigint();
    size_t done = 0;
    for (size_t i = 0; i < n; i++) {
        harness_prepared q, *cur = first;
        if (i > 0) {
            if (harness_prepare_point(opts, i, &q, &err) != 0) { /* the file changed meanwhile */
                harness_prepared_free(&q);
                int code = harness_error_report(&err);
                worst = code > worst ? code : worst;
                break;
            }
            cur = &q;
        }
        if (!opts->quiet) {
            if (i > 0)
                putchar('\n');
            harness_sweep_point_label(cur->cfg, stdout);
            putchar('\n');
            fflush(stdout);
        }
        values[i] = copy_values(cur->cfg);
        int code = run_prepared(opts, cur, &res[i]);
        done = i + 1;
        worst = code > worst ? code : worst;
        if (i > 0)
            harness_prepared_free(&q);
        if (code == HARNESS_EXIT_INTERRUPTED)
            break;
    }
    if (!opts->quiet && done > 0) {
        print_sweep_table(first->cfg, values, res, done);
        fflush(stdout);
    }
    harness_prepared_free(first);
    for (size_t i = 0; i < n; i++) {
        free_values(values[i], n_keys);
        free(res[i].dir);
    }
    free(values);
    free(res);
    return worst;
}

int harness_cmd_run(int argc, char **argv)
{
    harness_cli_opts opts;
    harness_prepared p;
    int code;
    if (harness_cli_prepare(argc, argv, "run", usage, &opts, &p, &code) != 0)
        return code;
    if (p.cfg->n_sweep_keys > 0)
        return run_sweep(&opts, &p);
    /* From here on Ctrl-C is ours: whatever happens next, the folder gets a
     * summary saying the run was interrupted. */
    harness_runner_catch_sigint();
    point_result res;
    code = run_prepared(&opts, &p, &res);
    free(res.dir);
    harness_prepared_free(&p);
    return code;
}

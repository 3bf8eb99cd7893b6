/* run_suite.c - `harness run` over a suite: several configs, a folder of
 * them or a suite file, each run --runs N times. --filter comes first, then
 * every config it keeps (and every point) is prepared here, so a bad one is
 * refused before anything runs, while one whose device is absent (a CUDA
 * config without a CUDA device) is skipped with a line (cli/suite_configs.h);
 * then each run is a fresh `harness run` process, one
 * config after another within a run ("run 1 of every config, then run 2"),
 * so slow drift spreads over all of them rather than landing on one. The
 * experiment folders go into one parent folder with an index.json, which
 * compare, export and record take as a folder of experiments: the runs of
 * a config are its replicates. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE                /* asprintf */
#endif
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/child_process.h"
#include "cli/commands.h"
#include "cli/suite_configs.h"
#include "cli/suite_index.h"
#include "dist/launcher.h"
#include "report/experiment.h"
#include "run/guard.h"
#include "run/interrupt.h"
#include "folder/folder_format.h"
#include "util/fsutil.h"
#include "util/progress.h"

static void suite_free(harness_suite *s)
{
    harness_suite_configs_free(&s->sel);
    for (size_t i = 0; i < s->n_runs; i++)
        free(s->runs[i].folders);
    free(s->runs);
}

static int oom(harness_error *err)
{
    return harness_error_set(err, HARNESS_EXIT_RUNTIME, "out of memory");
}

/* One run of config c: `harness run c --quiet --output-dir DIR` with the
 * suite's own options; its stderr passes through. */
static int run_one(const harness_cli_opts *opts, const char *dir, harness_suite *s, size_t c, int run, harness_error *err)
{
    const char *argv[4 * HARNESS_MAX_OPTS + 16];   /* each --set and --plugin-path takes two */
    size_t n = 0;
    argv[n++] = "harness";
    argv[n++] = "run";
    argv[n++] = s->sel.configs[c].path;
    argv[n++] = "--quiet";
    argv[n++] = "--output-dir";
    argv[n++] = dir;
    if (opts->allow_above_peak)
        argv[n++] = "--allow-above-peak";
    if (opts->filter) {
        argv[n++] = "--filter";
        argv[n++] = opts->filter;
    }
    if (opts->device) {
        argv[n++] = "--device";
        argv[n++] = opts->device;
    }
    if (opts->time_budget) {       /* each run of each benchmark gets the whole budget */
        argv[n++] = "--time-budget";
        argv[n++] = opts->time_budget;
    }
    for (size_t i = 0; i < opts->n_sets; i++) {
        argv[n++] = "--set";
        argv[n++] = opts->sets[i];
    }
    for (size_t i = 0; i < opts->n_plugin_paths; i++) {
        argv[n++] = "--plugin-path";
        argv[n++] = opts->plugin_paths[i];
    }
    argv[n] = NULL;
    char out[65536];
    harness_suite_run *r = &s->runs[s->n_runs];
    memset(r, 0, sizeof *r);
    r->config = c;
    r->run = run;
    if (harness_run_child(argv, STDOUT_FILENO, STDERR_FILENO, out, sizeof out, &r->exit_code) != 0)
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "run: cannot start harness for %s: %s",
                                 s->sel.configs[c].path, strerror(errno));
    if (!(r->folders = strdup(out)))
        return oom(err);
    s->n_runs++;
    return 0;
}

/* Run 1 of every config, then run 2, ...; stops at an interrupt. Returns
 * the worst exit code; *status says how the suite ended. */
static int run_all(const harness_cli_opts *opts, const char *dir, harness_suite *s, const char **status)
{
    harness_error err = {0};
    int worst = 0;
    *status = "ok";
    if (!(s->runs = calloc((size_t)opts->runs * s->sel.n_configs, sizeof *s->runs)))
        return harness_error_report(&(harness_error){.code = HARNESS_EXIT_RUNTIME, .msg = "out of memory"});
    harness_progress pg;           /* one item a run of a config; the line between the "run" lines */
    harness_progress_start(&pg, "suite", (size_t)opts->runs * s->sel.n_configs, opts->quiet);
    for (int run = 1; run <= opts->runs; run++) {
        for (size_t c = 0; c < s->sel.n_configs; c++) {
            char item[160];
            snprintf(item, sizeof item, "run %d/%d: %s", run, opts->runs, s->sel.configs[c].first_name);
            harness_progress_show(&pg, (size_t)(run - 1) * s->sel.n_configs + c, item);
            int failed = run_one(opts, dir, s, c, run, &err);
            harness_progress_clear(&pg);
            if (failed != 0) {
                *status = "failed";
                return harness_error_report(&err);
            }
            int code = s->runs[s->n_runs - 1].exit_code;
            worst = code > worst ? code : worst;
            if (code >= 128 || harness_interrupt_requested) {
                *status = "interrupted";
                return code >= 128 ? code : 128 + harness_interrupt_requested;
            }
            if (code != 0)
                *status = "failed";
            if (!opts->quiet)
                printf("run %d/%d  %-48s exit %d  %s\n", run, opts->runs, s->sel.configs[c].first_name, code,
                       s->runs[s->n_runs - 1].folders[0] ? s->runs[s->n_runs - 1].folders : "-");
            fflush(stdout);
        }
    }
    return worst;
}

static const char *getenv_text(const char *name)
{
    return getenv(name);
}

int harness_run_suite(const harness_cli_opts *opts)
{
    harness_error err = {0};
    /* N ranks would each start the whole suite, N folders of it */
    harness_launch l = harness_launch_detect(getenv_text);
    if (l.world_size > 1)
        return harness_error_set(&err, HARNESS_EXIT_USAGE, "run: a suite or --runs starts each run as a fresh "
                                 "process, which a job of %d ranks (%s) cannot do; launch one config per job, and "
                                 "repeat the job for runs", l.world_size, l.variable),
               harness_error_report(&err);
    harness_suite s = {0};
    int code = harness_suite_select(opts, opts->configs, opts->n_configs, &s.sel);
    harness_experiment exp;
    const char *root = opts->output_dir ? opts->output_dir : "experiments";
    if (code == 0 && harness_experiment_create(&exp, root, time(NULL), "suite", &err) != 0)
        code = harness_error_report(&err);
    if (code != 0) {
        suite_free(&s);
        return code;
    }
    harness_guard_catch_stop_signals();
    const char *status;
    const char *shown = harness_experiment_shown(&exp);   /* as the user named it, as before */
    code = run_all(opts, shown, &s, &status);
    char *index = harness_suite_index_json(&s, opts->runs, opts->filter, shown, status);
    char path[sizeof exp.dir + 16];
    snprintf(path, sizeof path, "%s/%s", exp.dir, HARNESS_FILE_SUITE_INDEX);
    if (!index || harness_write_atomic(path, index, strlen(index), &err) != 0) {
        if (!index)
            harness_error_set(&err, HARNESS_EXIT_RUNTIME, "out of memory writing %s", path);
        int failed = harness_error_report(&err);
        code = code > failed ? code : failed;
    }
    free(index);
    char skipped[64] = "";
    if (s.sel.n_skipped)
        snprintf(skipped, sizeof skipped, "; %zu skipped (device absent)", s.sel.n_skipped);
    if (!opts->quiet)
        printf("suite: %zu config%s x %d run%s, %s%s\n", s.sel.n_configs, s.sel.n_configs == 1 ? "" : "s", opts->runs,
               opts->runs == 1 ? "" : "s", status, skipped);
    printf("%s\n", shown);
    suite_free(&s);
    return code;
}

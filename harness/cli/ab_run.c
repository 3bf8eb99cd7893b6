/* ab_run.c - the rounds of `harness ab` (ab_run.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE                /* asprintf */
#endif
#include "cli/ab_run.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/child_process.h"
#include "cli/suite_configs.h"
#include "folder/folder_format.h"
#include "util/fsutil.h"
#include "util/progress.h"

static const char *const side_names[2] = {"base", "cand"};

/* `harness validate` of one side, with its --set and --plugin-path, before
 * any round runs: a bad side fails in a second, with the child's message,
 * rather than after the other side's first run with a pointer to a log. */
static int validate_side(const harness_ab_opts *a, const harness_ab_bench *b, int side, harness_error *err)
{
    const char *argv[HARNESS_AB_MAX_EXTRA + 4];
    size_t n = 0;
    argv[n++] = "harness";
    argv[n++] = "validate";
    argv[n++] = b->config[side];
    for (size_t i = 0; i < a->n_extra[side]; i++)
        argv[n++] = a->extra[side][i];
    argv[n] = NULL;
    int devnull = open("/dev/null", O_WRONLY | O_CLOEXEC), code = 0;
    char msg[2048];
    int rc = devnull < 0 ? -1 : harness_run_child(argv, STDERR_FILENO, devnull, msg, sizeof msg, &code);
    if (devnull >= 0)
        close(devnull);
    if (rc != 0)
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "ab: cannot run harness: %s", strerror(errno));
    if (code == 0)
        return 0;
    /* its last "harness: " line is the error (warnings come before it) */
    const char *line = msg, *at;
    for (const char *p = msg; (at = strstr(p, "harness: ")) != NULL; p = at + 1)
        if (at == msg || at[-1] == '\n')
            line = at + strlen("harness: ");
    return harness_error_set(err, code == 2 || code == 3 ? code : HARNESS_EXIT_RUNTIME, "ab: the %s side (%s%s) "
                             "is not valid, nothing was run: %s", side_names[side], b->config[side],
                             a->n_extra[side] ? " with its --set and --plugin-path" : "", line);
}

/* A run that failed on an impossible figure (report/impossible_figure.h)
 * is not judged: the error names its folder (the run printed it) and the
 * figure (its last such line in the log). 1 with err set (exit 3, as the
 * run's), or 0 when the run failed otherwise. */
static int refuse_impossible(const char *log, const char *folder, int round, int side, harness_error *err)
{
    static const char mark[] = "harness: impossible figure: ";
    char *text = NULL;
    size_t len = 0;
    harness_error rerr = {0};
    if (harness_read_file(log, &text, &len, &rerr) != 0)
        return 0;
    const char *line = NULL;
    for (const char *p = text; (p = strstr(p, mark)) != NULL; p++)
        if (p == text || p[-1] == '\n')
            line = p + strlen("harness: ");
    if (line)
        harness_error_set(err, HARNESS_EXIT_RUNTIME, "ab: round %d, %s: %s: %.*s; ab does not judge such a run "
                          "(--allow-above-peak keeps and judges it; the run's messages are in %s)", round + 1,
                          side_names[side], folder[0] ? folder : "(no folder named)", (int)strcspn(line, "\n"),
                          line, log);
    free(text);
    return line != NULL;
}

/* The run's error: the last line of its log that starts "harness: " and is
 * no warning (warnings come before it), without that prefix; "" if none. */
static void last_error(const char *log, char *out, size_t cap)
{
    char *text = NULL;
    size_t len = 0;
    harness_error rerr = {0};
    out[0] = '\0';
    if (harness_read_file(log, &text, &len, &rerr) != 0)
        return;
    static const char mark[] = "harness: ";
    for (const char *p = text; (p = strstr(p, mark)) != NULL; p++)
        if ((p == text || p[-1] == '\n') && strncmp(p + strlen(mark), "warning: ", 9) != 0)
            snprintf(out, cap, "%.*s", (int)strcspn(p + strlen(mark), "\n"), p + strlen(mark));
    free(text);
}

/* The child's answer for one side of one round: exit code and stdout (the
 * folder it printed) turned into *folder, or an error naming its log. */
static int child_result(const harness_ab_bench *b, int side, int round, int code, const char *buf, const char *log,
                        char **folder, harness_error *err)
{
    size_t len = strlen(buf);
    /* 1: validation failed, the summary says so and the pair is FAILED */
    if ((code == 0 || code == 1) && strchr(buf, '\n'))
        return harness_error_set(err, HARNESS_EXIT_USAGE, "ab: %s wrote several experiment folders (a "
                                 "sweep?); an A/B run compares one point: pick it with --set or --filter",
                                 b->config[side]);
    if ((code == 0 || code == 1) && len) {
        *folder = strdup(buf);
        return 0;
    }
    if (code == 0 || code == 1)
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "ab: round %d, %s: `harness run %s` named no "
                                 "experiment folder; its messages are in %s", round + 1, side_names[side],
                                 b->config[side], log);
    if (refuse_impossible(log, buf, round, side, err))
        return err->code;
    char why[512];                 /* the run's own error, so a device that is absent says so here */
    last_error(log, why, sizeof why);
    return harness_error_set(err, code == 2 || code == 130 ? code : HARNESS_EXIT_RUNTIME,
                             "ab: round %d, %s: `harness run %s` exited %d%s%.400s; its messages are in %s",
                             round + 1, side_names[side], b->config[side], code, why[0] ? ": " : "", why, log);
}

/* Run `harness run` for one side of one round of benchmark b; *folder:
 * the experiment folder it printed. The child's stderr goes to
 * DIR/[BENCH/]round-NN-SIDE.log (named on failure). */
static int run_side(const harness_ab_opts *a, const harness_ab_bench *b, int side, int round, char **folder,
                    harness_error *err)
{
    char *out_dir = NULL, *log = NULL, *rel = NULL;
    if (asprintf(&rel, "%s%sround-%02d-%s", b->folder, b->folder[0] ? "/" : "", round + 1, side_names[side]) < 0)
        rel = NULL;
    out_dir = rel ? harness_path_join(a->output_dir, rel) : NULL;   /* one slash, as --output-dir ends */
    free(rel);
    if (!out_dir || asprintf(&log, "%s.log", out_dir) < 0) {
        free(out_dir);
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "out of memory");
    }
    const char *argv[HARNESS_AB_MAX_EXTRA + 12];
    size_t n = 0;
    argv[n++] = "harness";
    argv[n++] = "run";
    argv[n++] = b->config[side];
    argv[n++] = "--quiet";
    argv[n++] = "--output-dir";
    argv[n++] = out_dir;
    if (a->filter) {
        argv[n++] = "--filter";
        argv[n++] = a->filter;
    }
    if (a->allow_above_peak)
        argv[n++] = "--allow-above-peak";
    for (size_t i = 0; i < a->n_extra[side]; i++)
        argv[n++] = a->extra[side][i];
    argv[n] = NULL;

    int rc = 0, code = 0;
    char buf[4096];
    if (b->folder[0]) {            /* DIR/BENCH, made on its first round */
        char *bench_dir = strndup(out_dir, (size_t)(strrchr(out_dir, '/') - out_dir));
        rc = !bench_dir ? harness_error_set(err, HARNESS_EXIT_RUNTIME, "out of memory") : harness_mkdirs(bench_dir, err);
        free(bench_dir);
        if (rc != 0) {
            free(out_dir);
            free(log);
            return rc;
        }
    }
    int logfd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (logfd < 0)
        rc = harness_error_set(err, HARNESS_EXIT_RUNTIME, "ab: %s: %s", log, strerror(errno));
    else if (harness_run_child(argv, STDOUT_FILENO, logfd, buf, sizeof buf, &code) != 0)
        rc = harness_error_set(err, HARNESS_EXIT_RUNTIME, "ab: cannot run harness: %s", strerror(errno));
    else
        rc = child_result(b, side, round, code, buf, log, folder, err);
    if (logfd >= 0)
        close(logfd);
    free(out_dir);
    free(log);
    if (rc == 0 && !*folder)
        rc = harness_error_set(err, HARNESS_EXIT_RUNTIME, "out of memory");
    else if (rc != 0) {
        free(*folder);
        *folder = NULL;
    }
    return rc;
}

static int load_round(const char *folder, harness_compare_side *side, harness_error *err)
{
    char name[64], *path = NULL;
    harness_rank_file(name, sizeof name, HARNESS_PREFIX_SUMMARY, 1, 0, "json");  /* ab runs one rank */
    if (asprintf(&path, "%s/%s", folder, name) < 0)
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "out of memory");
    harness_run_summary r;
    int rc = harness_run_summary_load(path, &r, err);
    free(path);
    if (rc != 0)
        return rc;
    rc = harness_compare_side_add(side, &r, err);
    harness_run_summary_free(&r);
    return rc;
}

/* "01-spin cand", or "cand" for a lone benchmark */
static void item_name(char *out, size_t cap, const harness_ab_bench *b, int side)
{
    snprintf(out, cap, "%s%s%s", b->folder, b->folder[0] ? " " : "", side_names[side]);
}

int harness_ab_validate(const harness_ab_opts *a, harness_error *err)
{
    harness_progress pg;
    harness_progress_start(&pg, "ab: validating", 2 * a->n_bench, a->quiet);
    int rc = 0;
    for (size_t b = 0; b < a->n_bench && rc == 0; b++)
        for (int side = 0; side < 2 && rc == 0; side++) {
            char name[160];
            item_name(name, sizeof name, &a->bench[b], side);
            harness_progress_show(&pg, 2 * b + (size_t)side, name);
            rc = validate_side(a, &a->bench[b], side, err);
        }
    harness_progress_clear(&pg);
    return rc ? err->code : 0;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* One round: every benchmark's two sides, into per[b][side]. */
static int run_round(const harness_ab_opts *a, int round, harness_compare_side (*per)[2], harness_progress *pg,
                     harness_error *err)
{
    for (size_t b = 0; b < a->n_bench; b++)
        for (int k = 0; k < 2; k++) {
            int side = harness_ab_base_first((size_t)round, b) ? k : 1 - k;
            char item[160], name[200];
            item_name(item, sizeof item, &a->bench[b], side);
            snprintf(name, sizeof name, "round %d/%d: %s", round + 1, a->rounds, item);
            harness_progress_show(pg, ((size_t)round * a->n_bench + b) * 2 + (size_t)k, name);
            char *folder = NULL;
            int rc = run_side(a, &a->bench[b], side, round, &folder, err);
            if (rc == 0)
                rc = load_round(folder, &per[b][side], err);
            free(folder);
            if (rc != 0)
                return rc;
        }
    return 0;
}

/* How many rounds the budget holds, from the first round's time t; exit 2
 * when fewer than a lone change among the benchmarks needs. */
static int rounds_in_budget(const harness_ab_opts *a, double t, int *rounds, harness_error *err)
{
    size_t need = harness_ab_rounds_needed(a->o.alpha, a->n_bench);
    double fit = floor(a->time_budget_s / (t > 0 ? t : 1e-9));
    if (fit < (double)need)
        return harness_error_set(err, HARNESS_EXIT_USAGE, "--time-budget %g s: the first round of %zu benchmark%s "
                                 "took %.1f s, so %.0f round%s fit, fewer than the %zu that can call a lone change "
                                 "at --alpha %g%s; give at least %.0f s, or fewer benchmarks (--filter)",
                                 a->time_budget_s, a->n_bench, a->n_bench == 1 ? "" : "s", t, fit,
                                 fit == 1 ? "" : "s", need, a->o.alpha, a->n_bench > 1 ? " among them" : "",
                                 ceil(t * (double)need));
    *rounds = fit < (double)a->rounds ? (int)fit : a->rounds;
    fprintf(stderr, "harness: ab: a round took %.1f s; %d rounds fit in --time-budget %g s (%zu can call a lone "
            "change)\n", t, *rounds, a->time_budget_s, need);
    return 0;
}

int harness_ab_run(const harness_ab_opts *a, harness_compare_side sides[2], int *rounds, harness_error *err)
{
    harness_compare_side (*per)[2] = calloc(a->n_bench, sizeof *per);
    if (!per)
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "out of memory");
    *rounds = a->rounds;
    int rc = 0;
    /* one item a run: the ETA follows each side's time, not only each round's */
    harness_progress pg;
    harness_progress_start(&pg, "ab: run", (size_t)*rounds * a->n_bench * 2, a->quiet);
    for (int round = 0; round < *rounds && rc == 0; round++) {
        double t0 = now_s();
        rc = run_round(a, round, per, &pg, err);
        if (rc == 0 && round == 0 && a->time_budget_s > 0) {
            harness_progress_clear(&pg);
            rc = rounds_in_budget(a, now_s() - t0, rounds, err);
            harness_progress_total(&pg, (size_t)*rounds * a->n_bench * 2);
        }
    }
    harness_progress_clear(&pg);
    /* benchmark-major, as harness_compare_rounds reads them */
    for (size_t b = 0; b < a->n_bench; b++)
        for (int side = 0; side < 2; side++) {
            for (size_t i = 0; rc == 0 && i < per[b][side].n_runs; i++)
                rc = harness_compare_side_add(&sides[side], &per[b][side].runs[i], err);
            harness_compare_side_free(&per[b][side]);
        }
    free(per);
    return rc;
}

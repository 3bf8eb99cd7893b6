/* harness run CONFIG: argv -> plan (pipeline/plan.h), then run it in a
 * session (pipeline/run_point.h). With a sweep: every point is planned first, so one
 * bad point is refused before anything runs; then each runs in turn and a
 * table of all points ends the output. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/bench_filter.h"
#include "cli/commands.h"
#include "pipeline/run_point.h"
#include "pipeline/session.h"
#include "run/guard.h"
#include "util/format.h"
#include "util/table_fit.h"
#include "util/term.h"

static const char *const synopsis[] = {"CONFIG... [options]", NULL};

static const harness_cli_option options[] = {
    {"runs", 0, HARNESS_OPT_RUNS, "N", "run each config N times, each a fresh process (default 1)"},
    {"filter", 0, HARNESS_OPT_FILTER, "REGEX",
     "only benchmarks whose name (\"EXPERIMENT_NAME VARIANT_KEY [KEY=VALUE]...\", as `harness list --filter` "
     "shows) matches"},
    {"set", 's', 0, "KEY=VALUE", "override a config key, e.g. --set component.config.dtype=bf16 (repeatable)"},
    {"output-dir", 'o', 0, "DIR", "root for the experiment folder (experiment.output_dir)"},
    {"device", 'd', 0, "D", "auto, cpu or cuda (device)"},
    {"plugin-path", 'P', 0, "DIR", "look for plugins in DIR first (repeatable)"},
    {"time-budget", 0, HARNESS_OPT_TIME_BUDGET, "SECONDS",
     "fit the warmup and the measurement in SECONDS per run of each benchmark: a pilot sizes the windows; "
     "replaces measurement_steps, repeat and auto stopping; too small for 2 windows of 1 step: exit 2"},
    {"color", 0, HARNESS_OPT_COLOR, "WHEN", "warnings in yellow: auto (on a terminal, unless NO_COLOR is set), "
     "never or always"},
    {"wide", 0, HARNESS_OPT_WIDE, NULL, "every column of the table and lines unwrapped (by default fitted to "
     "$COLUMNS or the terminal's width; a pipe gets every column)"},
    {"quiet", 'q', 0, NULL, "print only the folders' paths (one per point), errors and --time-budget's line; "
     "warnings at the end"},
    {"allow-above-peak", 0, HARNESS_OPT_ALLOW_ABOVE_PEAK, NULL,
     "keep a run with an impossible figure (above the peak beyond its uncertainty; else exit 3), marked "
     "allowed"},
    HARNESS_CLI_HELP_OPTION,
};

static const harness_cli_command run_command = {
    .name = "run",
    .synopsis = synopsis,
    .about = "Validate CONFIG, load its component, check it against the reference, run the\n"
             "warmup / wait / measurement schedule and write an experiment folder under\n"
             "experiment.output_dir (default experiments/). With a sweep: check every point,\n"
             "then run each in turn (one folder each) and print a table of all points.\n"
             "\n"
             "A suite: several CONFIGs, a folder (its *.yaml) or a suite file (NAME.suite:\n"
             "one config per line, # comments), or --runs N > 1: every config is checked\n"
             "first, then each run is a fresh process (run 1 of every config, then run 2,\n"
             "...), all into one folder DIR/<time>_suite/ with an index.json; its path is\n"
             "the last line printed.\n"
             "`harness compare` of two such folders takes each config's runs as replicates.\n",
    .options = options,
    .n_options = HARNESS_CLI_N(options),
    .exit_codes = "0 ok, 1 validation mismatch, 2 usage or config error (a --time-budget\n"
                  "      too small too), 3 runtime failure (a crashed or hung plugin too, an\n"
                  "      impossible figure), 128+signal interrupted (130 Ctrl-C, 143 SIGTERM,\n"
                  "      129 SIGHUP)\n",
};

static void sweep_table(FILE *f, const harness_config *cfg, char **const *values, const harness_point_result *res,
                        size_t n, int with_dir);

/* Whether every line of text is at most width columns wide. */
static int lines_fit(char *text, int width)
{
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n"))
        if (harness_text_columns(line) > (size_t)width)
            return 0;
    return 1;
}

/* One row per point: its values, status, median, throughput and folder;
 * within `width` columns (0: any) the folders go below the table, one a
 * line, wrapped. */
static void print_sweep_table(const harness_config *cfg, char **const *values, const harness_point_result *res,
                              size_t n, int width)
{
    char *text = NULL;
    size_t len = 0;
    FILE *m = width > 0 ? open_memstream(&text, &len) : NULL;
    if (!m) {
        sweep_table(stdout, cfg, values, res, n, 1);
        return;
    }
    sweep_table(m, cfg, values, res, n, 1);
    int fits = fclose(m) == 0 && lines_fit(text, width);
    free(text);
    if (fits) {
        sweep_table(stdout, cfg, values, res, n, 1);
        return;
    }
    text = NULL;
    m = open_memstream(&text, &len);
    if (!m) {
        sweep_table(stdout, cfg, values, res, n, 1);
        return;
    }
    sweep_table(m, cfg, values, res, n, 0);
    fprintf(m, "experiments:\n");
    for (size_t i = 0; i < n; i++)
        fprintf(m, "  %zu/%zu  %s\n", i + 1, cfg->n_sweep_points, res[i].dir ? res[i].dir : "-");
    if (fclose(m) == 0)
        harness_wrap_fputs(stdout, text, width, 2);
    free(text);
}

static void sweep_table(FILE *f, const harness_config *cfg, char **const *values, const harness_point_result *res,
                        size_t n, int with_dir)
{
    fprintf(f, "\nsweep of %zu points:\n", cfg->n_sweep_points);
    fprintf(f, "%-6s", "point");
    for (size_t k = 0; k < cfg->n_sweep_keys; k++) {
        const char *dot = strrchr(cfg->sweep_keys[k], '.');
        fprintf(f, " %-12s", dot ? dot + 1 : cfg->sweep_keys[k]);
    }
    fprintf(f, " %-17s %11s %13s%s\n", "status", "median", "throughput", with_dir ? "  experiment" : "");
    for (size_t i = 0; i < n; i++) {
        char pt[32], med[32], tput[48];
        snprintf(pt, sizeof pt, "%zu/%zu", i + 1, cfg->n_sweep_points);
        fprintf(f, "%-6s", pt);
        for (size_t k = 0; k < cfg->n_sweep_keys; k++)
            fprintf(f, " %-12s", values[i] && values[i][k] ? values[i][k] : "?");
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
        fprintf(f, " %-17s %11s %13s%s%s\n", res[i].status, med, tput, with_dir ? "  " : "",
                with_dir ? (res[i].dir ? res[i].dir : "-") : "");
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

/* Whether --filter keeps the prepared point p. */
static int kept(const harness_bench_filter *filter, const harness_plan *p)
{
    char name[1024];
    return harness_bench_filter_match(filter, harness_plan_bench_name(p, name, sizeof name));
}

/* Every point validated first, then those --filter keeps run one after
 * the other; *first (point 0, prepared) is freed here. */
static int run_sweep(const harness_cli_opts *opts, harness_session *session, harness_plan *first,
                     const harness_bench_filter *filter)
{
    harness_plan_request req = harness_cli_plan_request(opts);
    harness_error err = {0};
    size_t n = first->cfg->n_sweep_points, n_keys = first->cfg->n_sweep_keys;
    harness_point_result *res = calloc(n, sizeof *res);
    char ***values = calloc(n, sizeof *values);
    int worst = 0;
    if (!res || !values)
        worst = harness_error_set(&err, HARNESS_EXIT_RUNTIME, "out of memory");
    else
        worst = harness_plan_sweep(&req, first, &err);
    if (worst != 0) {
        free(res);
        free(values);
        harness_plan_free(first);
        return harness_error_report(&err);
    }
    harness_guard_catch_stop_signals();
    size_t done = 0;
    for (size_t i = 0; i < n; i++) {
        harness_plan q, *cur = first;
        if (i > 0) {
            if (harness_plan_point(&req, i, &q, &err) != 0) { /* the file changed meanwhile */
                harness_plan_free(&q);
                int code = harness_error_report(&err);
                worst = code > worst ? code : worst;
                break;
            }
            cur = &q;
        }
        values[i] = copy_values(cur->cfg);
        done = i + 1;
        if (!kept(filter, cur)) {
            res[i].status = "skipped (--filter)";
            if (i > 0)
                harness_plan_free(&q);
            continue;
        }
        if (!opts->quiet && session->dist.rank == 0) {  /* rank 0 speaks for a job */
            if (i > 0)
                putchar('\n');
            harness_sweep_point_label(cur->cfg, stdout);
            putchar('\n');
            fflush(stdout);
        }
        int code = harness_run_point(session, cur, &res[i]);
        worst = code > worst ? code : worst;
        if (i > 0)
            harness_plan_free(&q);
        if (code >= 128)           /* 128 + the signal that stopped it */
            break;
    }
    if (!opts->quiet && done > 0 && session->dist.rank == 0) {
        print_sweep_table(first->cfg, values, res, done, session->width);
        fflush(stdout);
    }
    harness_plan_free(first);
    for (size_t i = 0; i < n; i++) {
        free_values(values[i], n_keys);
        free(res[i].dir);
    }
    free(values);
    free(res);
    return worst;
}

/* Whether --filter keeps some point of p's sweep after the first. */
static int matches_any_point(const harness_cli_opts *opts, const harness_plan *p,
                             const harness_bench_filter *filter)
{
    harness_plan_request req = harness_cli_plan_request(opts);
    int any = 0;
    for (size_t i = 1; i < p->cfg->n_sweep_points && !any; i++) {
        harness_plan q;
        harness_error err = {0};
        any = harness_plan_point(&req, i, &q, &err) == 0 && kept(filter, &q);
        harness_plan_free(&q);
    }
    return any;
}

/* Whether the arguments make a suite rather than one run of one config. */
static int is_suite(const harness_cli_opts *opts)
{
    struct stat st;
    return opts->n_configs > 1 || opts->runs > 1 || harness_is_suite_file(opts->config_path) ||
           (stat(opts->config_path, &st) == 0 && S_ISDIR(st.st_mode));
}

int harness_cmd_run(int argc, char **argv)
{
    harness_cli_opts opts;
    harness_plan p;
    harness_error perr = {0};
    int code = harness_parse_opts(argc, argv, &run_command, &opts, &perr);
    if (code != 0)
        return code < 0 ? 0 : harness_error_report(&perr);
    harness_color_init(opts.color);
    if (is_suite(&opts))
        return harness_run_suite(&opts);
    if (harness_cli_plan_parsed(&opts, "run", &p, &code) != 0)
        return code;
    /* --filter: a sweep runs the points it keeps; a plain config must match */
    harness_bench_filter filter;
    char name[1024];
    if (harness_bench_filter_init(&filter, opts.filter, &perr) != 0 ||
        (!kept(&filter, &p) && !matches_any_point(&opts, &p, &filter) &&
         harness_error_set(&perr, HARNESS_EXIT_USAGE, "--filter '%s' matches no benchmark of %s (%s%s)",
                           opts.filter, opts.config_path,
                           harness_plan_bench_name(&p, name, sizeof name),
                           p.cfg->n_sweep_points > 1 ? ", ..." : ""))) {
        harness_bench_filter_free(&filter);
        harness_plan_free(&p);
        return harness_error_report(&perr);
    }
    harness_session session;
    harness_error err = {0};
    if (harness_session_init(&session, opts.quiet, &err) != 0) {
        harness_plan_free(&p);
        harness_bench_filter_free(&filter);
        return harness_error_report(&err);
    }
    session.allow_above_peak = opts.allow_above_peak;
    session.width = opts.wide ? 0 : harness_term_width();
    if (p.cfg->n_sweep_keys > 0) {
        code = run_sweep(&opts, &session, &p, &filter);
    } else {
        /* From here on Ctrl-C is ours: whatever happens next, the folder
         * gets a summary saying the run was interrupted. */
        harness_guard_catch_stop_signals();
        harness_point_result res;
        code = harness_run_point(&session, &p, &res);
        free(res.dir);
        harness_plan_free(&p);
    }
    harness_session_end(&session);
    harness_bench_filter_free(&filter);
    return code;
}

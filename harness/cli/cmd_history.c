/* harness history --db FILE: series of recorded runs and their change points. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE                /* asprintf */
#endif
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/bench_filter.h"
#include "cli/db_timeout.h"
#include "cli/history_site_write.h"
#include "compare/history.h"
#include "compare/printer.h"
#include "util/fsutil.h"

static int int_arg(const char *s, int min, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end || errno || v < min || v > 1000000000)
        return -1;
    *out = (int)v;
    return 0;
}

/* "2" or "2%" as the fraction 0.02; 0 to 100 percent. */
static int percent_arg(const char *s, double *out)
{
    char *end;
    double v = strtod(s, &end);
    if (end != s && *end == '%')
        end++;
    if (end == s || *end || !(v >= 0 && v <= 100))
        return -1;
    *out = v / 100.0;
    return 0;
}

typedef struct history_args {
    const char *db_path;
    const char *filter;            /* --filter REGEX over series names */
    harness_history_filter filt;
    harness_cp_options cp;
    const harness_printer *printer; /* --format */
    int format_given;
    const char *out;               /* --out DIR: the dashboard, html only */
    harness_metric metric;
} history_args;

enum { OPT_MIN_CHANGE = 256, OPT_FILTER, OPT_METRIC };

/* One option c with its value into *a; 0, or an error in *err. */
static int take_option(int c, const char *v, history_args *a, harness_error *err)
{
    switch (c) {
    case 'd': a->db_path = v; return 0;
    case 'v': a->filt.variant_key = v; return 0;
    case 'm': a->filt.host = v; return 0;
    case 'b': a->filt.branch = v; return 0;
    case 'c': a->filt.config_hash = v; return 0;
    case 'w':
    case 'r':
        if (int_arg(v, c == 'w' ? 1 : 0, c == 'w' ? &a->filt.world_size : &a->filt.rank) == 0)
            return 0;
        return harness_error_set(err, HARNESS_EXIT_USAGE, "--%s: expected an integer >= %d, got '%s'",
                                 c == 'w' ? "world-size" : "rank", c == 'w' ? 1 : 0, v);
    case 'a': {
        char *end;
        a->cp.alpha = strtod(v, &end);
        if (end != v && !*end && a->cp.alpha > 0 && a->cp.alpha < 1)
            return 0;
        return harness_error_set(err, HARNESS_EXIT_USAGE, "--alpha: expected a number in (0, 1), got '%s'", v);
    }
    case 'p':
        if (int_arg(v, 19, &a->cp.permutations) == 0)
            return 0;
        return harness_error_set(err, HARNESS_EXIT_USAGE, "--permutations: expected an integer >= 19, got '%s'", v);
    case OPT_FILTER: a->filter = v; return 0;
    case OPT_METRIC:
        return harness_metric_parse("--metric", v, &a->metric, err);
    case OPT_MIN_CHANGE:
        if (percent_arg(v, &a->cp.min_change) == 0)
            return 0;
        return harness_error_set(err, HARNESS_EXIT_USAGE, "--min-change: expected a percentage from 0 to 100 (2 "
                                 "or 2%%), got '%s'", v);
    case 'f':
        a->format_given = 1;
        return harness_printer_parse(v, HARNESS_RECORD_HISTORY, &a->printer, err);
    case 'o': a->out = v; return 0;
    default:
        return harness_error_set(err, HARNESS_EXIT_USAGE, "history: unknown option; see `harness history --help`");
    }
}

/* A permutation p is at least 1 / (permutations + 1): an alpha below it
 * can never find a change point and the report would only say "none".
 * The rule: permutations >= ceil(1 / alpha) - 1. 0, or an error in *err. */
static int check_alpha(const harness_cp_options *cp, harness_error *err)
{
    if (!(1.0 / (cp->permutations + 1.0) > cp->alpha))
        return 0;
    double need = ceil(1.0 / cp->alpha) - 1.0;
    while (1.0 / (need + 1.0) > cp->alpha)   /* rounding in 1 / alpha */
        need += 1.0;
    if (need <= 1e9)
        return harness_error_set(err, HARNESS_EXIT_USAGE,
                                 "history: --alpha %g can never be reached with --permutations %d (the smallest "
                                 "permutation p is 1/(%d+1) = %.4g): use --permutations %.0f or more (the rule: "
                                 "permutations >= ceil(1/alpha) - 1), or a larger --alpha",
                                 cp->alpha, cp->permutations, cp->permutations, 1.0 / (cp->permutations + 1.0), need);
    return harness_error_set(err, HARNESS_EXIT_USAGE,
                             "history: --alpha %g would need --permutations %.0f (the rule: permutations >= "
                             "ceil(1/alpha) - 1), beyond the 1000000000 allowed: use a larger --alpha",
                             cp->alpha, need);
}

static const char *const synopsis[] = {"--db FILE [options]", NULL};

static const harness_cli_option options[] = {
    {"db", 'd', 0, "FILE", "the results database"},
    {"variant", 'v', 0, "KEY", "only the series of this variant key"},
    {"machine", 'm', 0, "HOST", "only the series of this machine"},
    {"branch", 'b', 0, "NAME", "only the runs of this branch"},
    {"config-hash", 'c', 0, "PREFIX", "only the series whose config hash starts so"},
    {"world-size", 'w', 0, "N", "only the series of this world size"},
    {"rank", 'r', 0, "R", "only the series of this rank"},
    {"filter", 0, OPT_FILTER, "REGEX", "series whose name \"? VARIANT_KEY KEY=VALUE...\" (every component "
     "parameter) matches (POSIX extended regex)"},
    {"metric", 0, OPT_METRIC, "M", "the run statistic each series is made of: median (default), p90, p99, mean, "
     "or energy (joules per step); the CI and the noise bound stay the median's"},
    {"alpha", 'a', 0, "A", "significance of each change point (default 0.01)"},
    {"permutations", 'p', 0, "N", "per test (default 499); the smallest p is 1/(N+1), so --alpha 0.001 needs "
     "999"},
    {"min-change", 0, OPT_MIN_CHANGE, "PCT", "drop a change point whose step is under PCT percent "
     "(default 2; 0 keeps every significant one)"},
    {"format", 'f', 0, "F", "text (default), markdown, json, or html (one self-contained page, a chart per "
     "series)"},
    {"out", 'o', 0, "DIR", "write a dashboard into DIR instead: index.html with every suite (a variant key) "
     "and benchmark's latest verdict, a page per suite with its charts; html only (the default with --out)"},
    HARNESS_CLI_HELP_OPTION,
};

static const harness_cli_command history_command = {
    .name = "history",
    .synopsis = synopsis,
    .about = "The runs recorded with `harness record`, one series per (machine, variant key,\n"
             "config hash, world size, rank); each point is a run's median (or --metric's\n"
             "statistic) with the median's CI and that CI's coverage and the run's noise\n"
             "bound, in commit order (the order the runs were recorded). Change points are\n"
             "found by E-divisive means with a permutation test (as MongoDB's CI and Apache\n"
             "Otava do) on the series without the runs set aside: first those with\n"
             "interference (the run's noise bound - how far measured preemptions, CPU steal\n"
             "and clock changes could have raised its median - reaches --min-change, the\n"
             "smallest step shown, or 2% with --min-change 0, and the run sits that far above\n"
             "the runs around it whose bound does not), then the outliers of the rest (a run\n"
             "or two far from the runs on both sides of it). A step smaller than --min-change\n"
             "is dropped. Each change point comes with the commit where the new level starts,\n"
             "the step (medians of the segments either side), its permutation p, and the runs\n"
             "with interference where it begins (\"coincides with interference at run #N\").\n"
             "Runs that failed are left out; runs recorded before harness kept noise bounds\n"
             "have none and are judged by their values alone.\n",
    .options = options,
    .n_options = HARNESS_CLI_N(options),
    .exit_codes = "0 shown, 2 usage error, no database, not a results database, a filter\n"
                  "      that matches nothing, --out with another format than html or a DIR\n"
                  "      that is neither missing, empty nor a dashboard, 3 I/O\n",
};

/* The command line into *a: 0 to go on, 1 after --help, else an error in *err. */
static int parse_args(int argc, char **argv, history_args *a, harness_error *err)
{
    harness_cli_getopt g;
    harness_cli_getopt_init(&g, &history_command);
    opterr = 0;
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, g.shortopts, g.longopts, NULL)) != -1) {
        if (c == 'h') {
            harness_cli_help(stdout, &history_command);
            return 1;
        }
        if (c == '?' || c == ':')
            return harness_cli_bad_option(&history_command, argv[optind - 1], optopt, err);
        if (take_option(c, optarg, a, err) != 0)
            return err->code;
    }
    if (optind < argc)
        return harness_error_set(err, HARNESS_EXIT_USAGE, "history: unexpected argument '%s'; see `harness history "
                                 "--help`", argv[optind]);
    if (a->out && a->format_given && a->printer != harness_printer_find("html", HARNESS_RECORD_HISTORY))
        return harness_error_set(err, HARNESS_EXIT_USAGE, "history: --out %s writes a site of HTML pages: it takes "
                                 "--format html (or no --format), not --format %s", a->out, a->printer->name);
    if (!a->db_path)
        return harness_error_set(err, HARNESS_EXIT_USAGE, "history: --db FILE is required; see `harness history "
                                 "--help`");
    return check_alpha(&a->cp, err);
}

static int filter_keeps(const char *name, void *filter)
{
    return harness_bench_filter_match(filter, name);
}

/* --filter over the series loaded; none left is exit 2. */
static int apply_filter(const history_args *a, harness_history *h, harness_error *err)
{
    harness_bench_filter f;
    if (!a->filter)
        return 0;
    if (harness_bench_filter_init(&f, a->filter, err) != 0)
        return err->code;
    size_t before = h->n_series, left = harness_history_keep(h, filter_keeps, &f);
    harness_bench_filter_free(&f);
    if (left == 0)
        return harness_error_set(err, HARNESS_EXIT_USAGE, "history: --filter '%s' matches none of the %zu series "
                                 "(a series is named \"? VARIANT_KEY KEY=VALUE...\")", a->filter, before);
    return 0;
}

/* The report, or with --out the dashboard's index page's path, as a
 * malloc'ed string for stdout; NULL with an error in *err. */
static char *show(const history_args *a, const harness_history *h, harness_error *err)
{
    char *text = NULL;
    if (!a->out) {
        text = harness_print_history(a->printer, h);
    } else {
        if (harness_history_site_write(a->out, h, err) != 0)
            return NULL;
        char *index = harness_path_join(a->out, "index.html");
        if (index && asprintf(&text, "%s\n", index) < 0)
            text = NULL;
        free(index);
    }
    if (!text)
        harness_error_set(err, HARNESS_EXIT_RUNTIME, "out of memory writing the report");
    return text;
}

int harness_cmd_history(int argc, char **argv)
{
    harness_error err = {0};
    history_args a = {NULL, NULL, {NULL, NULL, NULL, NULL, -1, -1}, HARNESS_CP_DEFAULTS, NULL, 0, NULL,
                      HARNESS_METRIC_MEDIAN};
    a.printer = harness_printer_find("text", HARNESS_RECORD_HISTORY);
    int parsed = parse_args(argc, argv, &a, &err);
    if (parsed == 1)
        return 0;
    if (parsed != 0)
        return harness_error_report(&err);
    double timeout_s;
    if (harness_cli_db_timeout(NULL, &timeout_s, &err) != 0)
        return harness_error_report(&err);
    harness_db *db;
    if (harness_db_open(a.db_path, HARNESS_DB_READ, timeout_s, &db, &err) != 0)
        return harness_error_report(&err);
    harness_history h;
    int rc = harness_history_load(db, &a.filt, a.metric, &a.cp, &h, &err);
    if (rc == 0)
        rc = apply_filter(&a, &h, &err);
    char *report = rc == 0 ? show(&a, &h, &err) : NULL;
    if (rc == 0 && !report)
        rc = err.code;
    harness_history_free(&h);
    harness_db_close(db);
    if (rc != 0)
        return harness_error_report(&err);
    fputs(report, stdout);
    free(report);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        harness_error_set(&err, HARNESS_EXIT_RUNTIME, "cannot write the report: %s", strerror(errno));
        return harness_error_report(&err);
    }
    return 0;
}

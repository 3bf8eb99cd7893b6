/* harness compare BASE CAND: is the candidate slower than the base? */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/bench_filter.h"
#include "cli/db_timeout.h"
#include "cli/commands.h"
#include "cli/report_files.h"
#include "compare/baseline_db.h"
#include "compare/compare.h"
#include "compare/metric.h"
#include "compare/node_compare.h"
#include "compare/printer.h"
#include "util/term.h"

enum {
    OPT_THRESHOLD = 't', OPT_ALPHA = 'a', OPT_FORMAT = 'f', OPT_HELP = 'h',
    OPT_ON_AMBIGUOUS = 1000, OPT_METRIC, OPT_BASELINE_DB, OPT_BASELINE_BRANCH, OPT_FILTER, OPT_COLOR, OPT_WIDE,
    OPT_REPORT
};

/* A whole finite number, nothing after it but `suffix` (if given). */
static int parse_number(const char *s, const char *suffix, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || errno != 0 || !isfinite(v))
        return -1;
    if (suffix && strcmp(end, suffix) == 0)
        end += strlen(end);
    if (*end != '\0')
        return -1;
    *out = v;
    return 0;
}

typedef struct compare_opts {
    const char *base, *cand;
    const char *baseline_db, *baseline_branch;
    const char *filter;                /* --filter REGEX over benchmark names */
    harness_compare_options o;
    const harness_printer *printer;    /* --format */
    harness_report_files reports;      /* --report FORMAT=FILE */
    harness_color_mode color;          /* --color: the text format's verdicts */
    int wide;                          /* --wide: every column, whatever the terminal's width */
} compare_opts;

/* --threshold: a percentage, with or without its % sign. */
static int parse_threshold(const char *arg, double *threshold, harness_error *err)
{
    double v;
    if (parse_number(arg, "%", &v) != 0 || v < 0)
        return harness_error_set(err, HARNESS_EXIT_USAGE, "--threshold: expected a percentage >= 0 such "
                                 "as 5 or 5%%, got '%s'", arg);
    /* One unit everywhere, percent: a fraction such as 0.05 would
     * silently mean 0.05%, so it needs its % sign to count. */
    if (v > 0 && v < 1 && !strchr(arg, '%'))
        return harness_error_set(err, HARNESS_EXIT_USAGE, "--threshold %s: the unit is percent, so this "
                                 "is %s%%; write %g for %g%%, or %s%% if you mean it", arg, arg,
                                 v * 100, v * 100, arg);
    *threshold = v / 100.0;
    return 0;
}

static int parse_alpha(const char *arg, double *alpha, harness_error *err)
{
    double v;
    if (parse_number(arg, NULL, &v) != 0 || !(v > 0 && v < 1))
        return harness_error_set(err, HARNESS_EXIT_USAGE, "--alpha: expected a number in (0, 1) such as "
                                 "0.05, got '%s'", arg);
    *alpha = v;
    return 0;
}

/* BASE and CAND, or with --baseline-db CAND alone. */
static int parse_folders(int argc, char **argv, compare_opts *opts, harness_error *err)
{
    int positional = argc - optind;
    if (opts->baseline_db) {
        if (positional != 1)
            return harness_error_set(err, HARNESS_EXIT_USAGE, "compare --baseline-db: expected one CAND folder, got "
                                     "%d arguments; see `harness compare --help`", positional);
        opts->cand = argv[optind];
        if (!opts->baseline_branch)
            opts->baseline_branch = "main";
        return 0;
    }
    if (opts->baseline_branch)
        return harness_error_set(err, HARNESS_EXIT_USAGE, "compare: --baseline-branch needs --baseline-db");
    if (positional != 2)
        return harness_error_set(err, HARNESS_EXIT_USAGE, "compare: expected BASE and CAND folders, got %d "
                                 "argument%s; see `harness compare --help`", positional, positional == 1 ? "" : "s");
    opts->base = argv[optind];
    opts->cand = argv[optind + 1];
    return 0;
}

static const char *const synopsis[] = {"BASE CAND [options]",
                                       "--baseline-db FILE [--baseline-branch B] CAND [options]", NULL};

static const harness_cli_option options[] = {
    {"threshold", 't', 0, "PCT", "smallest change that counts, in percent: 5 or 5% (default 5); a bare number "
     "below 1 (0.05) is refused"},
    {"alpha", 'a', 0, "A", "significance level, in (0, 1) (default 0.05)"},
    {"metric", 0, OPT_METRIC, "M", "what each replicate contributes: median (default), p90, p99 or mean of its "
     "samples, or energy (joules per step)"},
    {"on-ambiguous", 0, OPT_ON_AMBIGUOUS, "W", "exit code of AMBIGUOUS: fail (1, default), pass (0), or "
     "pass-interference (0 only when measured interference is its cause)"},
    {"format", 'f', 0, "F", "text (default), markdown (for a pull-request comment), json or junit (JUnit XML "
     "for a CI test view: a test case per pair)"},
    {"report", 0, OPT_REPORT, "FORMAT=FILE", "also write the verdict in FORMAT (as --format) to FILE, whole or "
     "not at all (repeatable): markdown for a comment and junit for the test view from one run"},
    {"baseline-db", 0, OPT_BASELINE_DB, "FILE", "the base is the results database (harness record): each run's "
     "series on the baseline branch since its last change point"},
    {"baseline-branch", 0, OPT_BASELINE_BRANCH, "B", "the branch of the baseline (default main)"},
    {"filter", 0, OPT_FILTER, "REGEX", "only runs whose name \"EXPERIMENT_NAME VARIANT_KEY KEY=VALUE...\" "
     "matches (POSIX extended regex)"},
    {"color", 0, OPT_COLOR, "WHEN", "colour the verdicts in the text format: auto (default: on a terminal, "
     "unless NO_COLOR is set), never or always"},
    {"wide", 0, OPT_WIDE, NULL, "every column of the text table (by default fitted to $COLUMNS)"},
    HARNESS_CLI_HELP_OPTION,
};

static const harness_cli_command compare_command = {
    .name = "compare",
    .synopsis = synopsis,
    .about = "Is the candidate slower than the base? BASE and CAND are experiment folders\n"
             "written by `harness run`, or folders holding many of them (a CI job's\n"
             "experiments/): runs are then matched by variant key, component config, rank\n"
             "and world size. Two experiment folders are compared rank by rank.\n"
             "\n"
             "The unit of replication is never a step (steps are autocorrelated and share\n"
             "their run's offset) but a process: the runs, when a side holds several runs\n"
             "of one key (harness run --runs 5). Per pair: the Hodges-Lehmann ratio\n"
             "cand/base of the runs' medians (or --metric), its Moses interval labelled\n"
             "with the coverage it really has (discrete: 5 against 5 runs give 96.8% at\n"
             "alpha 0.05), and the exact two-sided Wilcoxon-Mann-Whitney p. A side that is\n"
             "one run offers only its windows (schedule.repeat), which share the run's\n"
             "offset: they can say SAME, never a change, and get no p. The report always\n"
             "shows the p90's ratio too, and says when the tail moved and the metric not.\n"
             "\n"
             "Verdicts (the interval decides, the test confirms):\n"
             "  REGRESSION    the interval's lower end above 1 + threshold and p    exit 1\n"
             "                (q with several pairs) <= alpha\n"
             "  IMPROVEMENT   the interval's upper end below 1 - threshold and p    exit 0\n"
             "                (q) <= alpha\n"
             "  SAME          the interval lies within 1 +- threshold (covering     exit 0\n"
             "                1 - 2 alpha or more: 3 runs a side do, 2 do not)\n"
             "  AMBIGUOUS     anything else, naming one cause: too few              exit 1*\n"
             "                replicates; unresolved (an interval across the\n"
             "                threshold); interference (the runs' own noise\n"
             "                evidence could account for it); single runs;\n"
             "                processes disagree; no replicates\n"
             "  FAILED        a run not ok, or failed validation, on either side;   exit 1\n"
             "                or a run killed before its summary (status.json only)\n"
             "  * or 0, as --on-ambiguous says\n",
    .options = options,
    .n_options = HARNESS_CLI_N(options),
    .exit_codes = "0 no regression (SAME, IMPROVEMENT; AMBIGUOUS as --on-ambiguous says),\n"
                  "      1 REGRESSION, FAILED or AMBIGUOUS, 2 usage error or bad input (no folder,\n"
                  "      no summary, invalid summary, no matching runs, an unknown --report\n"
                  "      format), 3 runtime failure (a --report FILE that cannot be written)\n",
};

/* -1 after --help, else 0 or an exit code with err set. */
static int parse(int argc, char **argv, compare_opts *opts, harness_error *err)
{
    harness_cli_getopt g;
    harness_cli_getopt_init(&g, &compare_command);
    opts->o.threshold = HARNESS_COMPARE_DEFAULT_THRESHOLD;
    opts->o.alpha = HARNESS_COMPARE_DEFAULT_ALPHA;
    opts->o.on_ambiguous = HARNESS_ON_AMBIGUOUS_FAIL;
    opts->printer = harness_printer_find("text", HARNESS_RECORD_COMPARISON);
    opterr = 0;
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, g.shortopts, g.longopts, NULL)) != -1) {
        int rc = 0;
        switch (c) {
        case OPT_THRESHOLD: rc = parse_threshold(optarg, &opts->o.threshold, err); break;
        case OPT_BASELINE_DB: opts->baseline_db = optarg; break;
        case OPT_FILTER: opts->filter = optarg; break;
        case OPT_WIDE: opts->wide = 1; break;
        case OPT_COLOR: rc = harness_color_option(optarg, &opts->color, err); break;
        case OPT_BASELINE_BRANCH: opts->baseline_branch = optarg; break;
        case OPT_ON_AMBIGUOUS: rc = harness_on_ambiguous_parse(optarg, &opts->o.on_ambiguous, err); break;
        case OPT_METRIC: rc = harness_metric_parse("--metric", optarg, &opts->o.metric, err); break;
        case OPT_ALPHA: rc = parse_alpha(optarg, &opts->o.alpha, err); break;
        case OPT_FORMAT: rc = harness_printer_parse(optarg, HARNESS_RECORD_COMPARISON, &opts->printer, err); break;
        case OPT_REPORT: rc = harness_report_files_add(&opts->reports, optarg, err); break;
        case OPT_HELP: harness_cli_help(stdout, &compare_command); return -1;
        default:
            return harness_cli_bad_option(&compare_command, argv[optind - 1], optopt, err);
        }
        if (rc != 0)
            return err->code;
    }
    return parse_folders(argc, argv, opts, err);
}

static int filter_keeps(const char *name, void *filter)
{
    return harness_bench_filter_match(filter, name);
}

/* Load one side and keep the runs --filter names; none left is exit 2. */
static int load_side(const compare_opts *opts, const char *root, harness_compare_side *side, harness_error *err)
{
    if (harness_compare_side_load(root, side, err) != 0)
        return err->code;
    harness_bench_filter f;
    if (harness_bench_filter_init(&f, opts->filter, err) != 0) {
        harness_compare_side_free(side);
        return err->code;
    }
    size_t before = side->n_runs, left = harness_compare_side_keep(side, filter_keeps, &f);
    harness_bench_filter_free(&f);
    harness_run_summaries_note_allowed(side->runs, side->n_runs, "compare", stderr);
    if (left == 0) {
        harness_compare_side_free(side);
        return harness_error_set(err, HARNESS_EXIT_USAGE, "%s: --filter '%s' matches none of its %zu runs (a name "
                                 "is \"EXPERIMENT_NAME VARIANT_KEY KEY=VALUE...\" with every component parameter)",
                                 root, opts->filter, before);
    }
    return 0;
}

/* BASE against CAND, each loaded and filtered. */
static int compare_folders(const compare_opts *opts, harness_comparison *cmp, harness_error *err)
{
    memset(cmp, 0, sizeof *cmp);
    harness_compare_side base, cand;
    if (load_side(opts, opts->base, &base, err) != 0)
        return err->code;
    if (load_side(opts, opts->cand, &cand, err) != 0) {
        harness_compare_side_free(&base);
        return err->code;
    }
    return harness_compare_sides(&base, &cand, &opts->o, cmp, err);
}

/* CAND against its recorded history. */
static int compare_with_db(const compare_opts *opts, harness_comparison *cmp, harness_error *err)
{
    memset(cmp, 0, sizeof *cmp);
    harness_compare_side cand, base;
    if (load_side(opts, opts->cand, &cand, err) != 0)
        return err->code;
    double timeout_s;
    harness_db *db;
    if (harness_cli_db_timeout(NULL, &timeout_s, err) != 0 ||
        harness_db_open(opts->baseline_db, HARNESS_DB_READ, timeout_s, &db, err) != 0) {
        harness_compare_side_free(&cand);
        return err->code;
    }
    int rc = harness_compare_side_from_db(db, &cand, opts->baseline_branch, &base, err);
    harness_db_close(db);
    if (rc != 0) {
        harness_compare_side_free(&cand);
        return rc;
    }
    harness_run_summaries_note_allowed(base.runs, base.n_runs, "compare", stderr);
    return harness_compare_sides(&base, &cand, &opts->o, cmp, err);
}

int harness_cmd_compare(int argc, char **argv)
{
    harness_error err = {0};
    compare_opts opts;
    memset(&opts, 0, sizeof opts);
    int rc = parse(argc, argv, &opts, &err);
    if (rc == -1)
        return 0;
    if (rc != 0)
        return harness_error_report(&err);

    harness_comparison cmp;
    if (opts.baseline_db) {
        rc = compare_with_db(&opts, &cmp, &err);
    } else {
        rc = compare_folders(&opts, &cmp, &err);
    }
    /* Jobs across nodes: a per-node section, in the text report only; read
     * before anything is printed, as a bad file stops the command. */
    harness_node_compare nodes = {0};
    if (rc == 0 && !opts.baseline_db && strcmp(opts.printer->name, "text") == 0)
        rc = harness_node_compare_load(opts.base, opts.cand, &nodes, &err);
    if (rc != 0) {
        harness_comparison_free(&cmp);
        return harness_error_report(&err);
    }
    harness_color_init(opts.color);
    harness_text_style style = {harness_color_on(stdout), opts.wide ? 0 : harness_term_width()};
    char *report = harness_print_comparison(opts.printer, &cmp, &style);
    if (!report) {
        harness_node_compare_free(&nodes);
        harness_comparison_free(&cmp);
        harness_error_set(&err, HARNESS_EXIT_RUNTIME, "out of memory writing the report");
        return harness_error_report(&err);
    }
    fputs(report, stdout);
    free(report);
    harness_node_compare_print(stdout, &nodes);
    harness_node_compare_free(&nodes);
    int code = harness_comparison_exit_code(&cmp);
    int report_files_rc = harness_report_files_write(&opts.reports, &cmp, &err);
    harness_comparison_free(&cmp);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        harness_error_set(&err, HARNESS_EXIT_RUNTIME, "cannot write the report: %s", strerror(errno));
        return harness_error_report(&err);
    }
    return report_files_rc ? harness_error_report(&err) : code;
}

/* harness ab BASE_CONFIG CAND_CONFIG: interleaved A/B rounds on one machine.
 *
 * Two separate runs (one for base, then one for the candidate) meet
 * different machines: the clock, the heat, the neighbours and the placement
 * of the second run are not those of the first, and nothing within either
 * run can tell that offset from a change of the code. Here each round runs
 * base and candidate back to back as two fresh processes (so each round
 * also draws its own placement and warm-up), alternating which goes first,
 * and the verdict rests on the paired ratios cand_i / base_i: slow drift
 * hits both halves of a round alike and divides out. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE                /* asprintf */
#endif
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/ab_run.h"
#include "cli/commands.h"
#include "cli/suite_configs.h"
#include "compare/compare.h"
#include "compare/metric.h"
#include "util/fsutil.h"

static int add_extra(harness_ab_opts *a, int side, const char *flag, const char *value, harness_error *err)
{
    for (int s = 0; s < 2; s++) {
        if (side >= 0 && s != side)
            continue;
        if (a->n_extra[s] + 2 > HARNESS_AB_MAX_EXTRA)
            return harness_error_set(err, HARNESS_EXIT_USAGE, "ab: more than %d --set and --plugin-path "
                                     "arguments", HARNESS_AB_MAX_EXTRA / 2);
        a->extra[s][a->n_extra[s]++] = flag;
        a->extra[s][a->n_extra[s]++] = value;
    }
    return 0;
}

enum { O_BASE_PP = 1000, O_CAND_PP, O_SET, O_BASE_SET, O_CAND_SET, O_ON_AMBIGUOUS, O_FILTER, O_TIME_BUDGET,
       O_BASE_TREE, O_CAND_TREE, O_COLOR, O_WIDE, O_METRIC, O_ALLOW_ABOVE_PEAK, O_REPORT };

/* --threshold, --alpha, --on-ambiguous, --metric, --format, --report: as
 * `harness compare` takes them. */
static int parse_judging(int c, const char *arg, harness_ab_opts *a, harness_error *err)
{
    char *end;
    double v;
    switch (c) {
    case 't':
        v = strtod(arg, &end);
        if (end == arg || (*end && strcmp(end, "%") != 0) || !(v >= 0) || !isfinite(v))
            return harness_error_set(err, HARNESS_EXIT_USAGE, "--threshold: expected a percentage >= 0 such "
                                     "as 5 or 5%%, got '%s'", arg);
        if (v > 0 && v < 1 && !*end)
            return harness_error_set(err, HARNESS_EXIT_USAGE, "--threshold %s: the unit is percent, so this "
                                     "is %s%%; write %g for %g%%, or %s%% if you mean it", arg, arg,
                                     v * 100, v * 100, arg);
        a->o.threshold = v / 100.0;
        return 0;
    case 'a':
        v = strtod(arg, &end);
        if (end == arg || *end || !(v > 0 && v < 1))
            return harness_error_set(err, HARNESS_EXIT_USAGE, "--alpha: expected a number in (0, 1) such as "
                                     "0.05, got '%s'", arg);
        a->o.alpha = v;
        return 0;
    case O_ON_AMBIGUOUS:
        return harness_on_ambiguous_parse(arg, &a->o.on_ambiguous, err);
    case O_METRIC:
        return harness_metric_parse("--metric", arg, &a->o.metric, err);
    case O_REPORT:
        return harness_report_files_add(&a->reports, arg, err);
    default:                       /* 'f' */
        return harness_printer_parse(arg, HARNESS_RECORD_COMPARISON, &a->printer, err);
    }
}

/* Refuse --rounds that can never reach --alpha, once both are known (either
 * may come first), so that nothing runs for a verdict that cannot come. */
static int check_rounds(const harness_ab_opts *a, harness_error *err)
{
    size_t need = harness_ab_rounds_needed(a->o.alpha, 1);
    if ((size_t)a->rounds >= need)
        return 0;
    return harness_error_set(err, HARNESS_EXIT_USAGE, "--rounds %d: %d round%s can reach p = %.3g at best, above "
                             "--alpha %g; use --rounds %zu or more", a->rounds, a->rounds, a->rounds == 1 ? "" : "s",
                             2.0 / ldexp(1.0, a->rounds), a->o.alpha, need);
}

/* --rounds N and --time-budget SECONDS: how many rounds. */
static int parse_count(int c, const char *arg, harness_ab_opts *a, harness_error *err)
{
    char *end;
    if (c == O_TIME_BUDGET) {
        a->time_budget_s = strtod(arg, &end);
        if (end == arg || *end || !(a->time_budget_s > 0) || !isfinite(a->time_budget_s))
            return harness_error_set(err, HARNESS_EXIT_USAGE, "--time-budget: expected seconds > 0, got '%s'", arg);
        return 0;
    }
    long n = strtol(arg, &end, 10);
    if (end == arg || *end || n < 1 || n > 1000)
        return harness_error_set(err, HARNESS_EXIT_USAGE, "--rounds: expected an integer in [1, 1000], got '%s'",
                                 arg);
    a->rounds = (int)n;
    a->rounds_given = 1;
    return 0;
}

static const char *const synopsis[] = {"BASE_CONFIG CAND_CONFIG [options]", "SUITE... [options]", NULL};

static const harness_cli_option options[] = {
    {"rounds", 'n', 0, "N", "rounds (default 10, or the fewest that can call a lone change in the suite when "
     "more); fewer are refused"},
    {"output-dir", 'o', 0, "DIR", "where the rounds' experiment folders go (default experiments/ab)"},
    {"base-plugin-path", 0, O_BASE_PP, "DIR", "plugin directory of the base only (repeatable)"},
    {"cand-plugin-path", 0, O_CAND_PP, "DIR", "plugin directory of the candidate only (repeatable)"},
    {"set", 0, O_SET, "KEY=VALUE", "override a config key on both sides (repeatable)"},
    {"base-set", 0, O_BASE_SET, "KEY=VALUE", "override a config key of the base only (repeatable)"},
    {"cand-set", 0, O_CAND_SET, "KEY=VALUE", "override a config key of the candidate only (repeatable)"},
    {"base-tree", 0, O_BASE_TREE, "DIR", "the base's checkout: each SUITE path is taken inside it"},
    {"cand-tree", 0, O_CAND_TREE, "DIR", "the candidate's checkout (with --base-tree)"},
    {"time-budget", 0, O_TIME_BUDGET, "SECONDS", "time the first round and run as many rounds as fit (at most "
     "--rounds, default then 50)"},
    {"filter", 0, O_FILTER, "REGEX", "a suite's benchmarks (and sweep points) to run, as in run: applied before "
     "a config is prepared; a kept config whose device is absent is skipped"},
    {"threshold", 't', 0, "PCT", "as in compare (default 5)"},
    {"alpha", 'a', 0, "A", "as in compare (default 0.05)"},
    {"metric", 0, O_METRIC, "M", "median (default), p90, p99 or mean of each run's samples, or energy (each "
     "run's joules per step)"},
    {"on-ambiguous", 0, O_ON_AMBIGUOUS, "W", "as in compare: fail (default), pass or pass-interference"},
    {"format", 'f', 0, "F", "as in compare: text (default), markdown, json or junit"},
    {"report", 0, O_REPORT, "FORMAT=FILE", "as in compare: also write the verdict in FORMAT to FILE (repeatable; "
     "checked before the first round)"},
    {"color", 0, O_COLOR, "WHEN", "as in compare: auto (default), never or always"},
    {"wide", 0, O_WIDE, NULL, "as in compare: every column of the text tables"},
    {"allow-above-peak", 0, O_ALLOW_ABOVE_PEAK, NULL, "pass --allow-above-peak to every run: a run with an "
     "impossible figure is kept and judged (else it stops ab, exit 3)"},
    {"quiet", 'q', 0, NULL, "no progress line on stderr (shown only on a terminal)"},
    HARNESS_CLI_HELP_OPTION,
};

static const harness_cli_command ab_command = {
    .name = "ab",
    .synopsis = synopsis,
    .about = "Interleaved A/B: N rounds, each running the base and the candidate back to\n"
             "back as two `harness run` processes (the order alternates), then a verdict on\n"
             "the paired ratios cand_i / base_i of the rounds' medians (or --metric): the\n"
             "median ratio and its sign-test interval (with its real coverage), which one\n"
             "wild round in ten does not move, and the exact sign test's p. REGRESSION\n"
             "needs the interval's lower end above 1 + threshold and p (q in a suite)\n"
             "<= alpha; a change that interference in the rounds could account for is\n"
             "AMBIGUOUS (interference). Every round is listed, and the p90's ratio beside.\n"
             "Drift that is slow next to a round (clocks, heat, neighbours) hits both sides\n"
             "of a round alike and divides out, which two separate runs cannot do.\n"
             "\n"
             "The two sides may differ in config file (two commits of a config), in plugin\n"
             "build (--base-plugin-path main/plugins --cand-plugin-path pr/plugins) or in\n"
             "anything --set can say (--cand-set component.variant_key=my_rms_norm/cpu).\n"
             "Both sides are validated (harness validate) before the first round.\n"
             "Single-rank runs only.\n"
             "\n"
             "A suite (one config, a folder of configs, a NAME.suite file, or more than two\n"
             "arguments) runs each config as both base and candidate (the sides differ by\n"
             "their plugin paths and --base-set/--cand-set): every round runs every\n"
             "benchmark's pair, and the benchmarks' p are adjusted together\n"
             "(Benjamini-Hochberg) so that false alarms stay near alpha for the suite.\n"
             "A lone change among m benchmarks then needs p <= alpha / m: rounds too few\n"
             "for that are refused before anything runs (9 for 10 benchmarks, 11 for 26).\n",
    .options = options,
    .n_options = HARNESS_CLI_N(options),
    .exit_codes = "as `harness compare` (0 SAME or IMPROVEMENT, 1 REGRESSION, FAILED or\n"
                  "      AMBIGUOUS as --on-ambiguous says); 2 too few rounds for the suite; a\n"
                  "      round whose run fails to start passes on that run's exit code (2\n"
                  "      config, 3 runtime); 3 when every config the filter keeps needs a device\n"
                  "      that is absent (nothing ran)\n",
};

static int parse(int argc, char **argv, harness_ab_opts *a, harness_error *err)
{
    harness_cli_getopt g;
    harness_cli_getopt_init(&g, &ab_command);
    a->rounds = 10;
    a->output_dir = "experiments/ab";
    a->o.threshold = HARNESS_COMPARE_DEFAULT_THRESHOLD;
    a->o.alpha = HARNESS_COMPARE_DEFAULT_ALPHA;
    a->o.on_ambiguous = HARNESS_ON_AMBIGUOUS_FAIL;
    a->printer = harness_printer_find("text", HARNESS_RECORD_COMPARISON);
    opterr = 0;
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, g.shortopts, g.longopts, NULL)) != -1) {
        switch (c) {
        case 'n':
        case O_TIME_BUDGET:
            if (parse_count(c, optarg, a, err) != 0)
                return err->code;
            break;
        case O_FILTER: a->filter = optarg; break;
        case O_WIDE: a->wide = 1; break;
        case O_ALLOW_ABOVE_PEAK: a->allow_above_peak = 1; break;
        case 'q': a->quiet = 1; break;
        case O_COLOR:
            if (harness_color_option(optarg, &a->color, err) != 0)
                return err->code;
            break;
        case O_BASE_TREE: a->tree[0] = optarg; break;
        case O_CAND_TREE: a->tree[1] = optarg; break;
        case 'o': a->output_dir = optarg; break;
        case O_BASE_PP:
        case O_CAND_PP:
            if (add_extra(a, c == O_BASE_PP ? 0 : 1, "--plugin-path", optarg, err) != 0)
                return err->code;
            break;
        case O_SET:
        case O_BASE_SET:
        case O_CAND_SET:
            if (add_extra(a, c == O_SET ? -1 : c == O_BASE_SET ? 0 : 1, "--set", optarg, err) != 0)
                return err->code;
            break;
        case 't':
        case 'a':
        case O_ON_AMBIGUOUS:
        case O_REPORT:
        case O_METRIC:
        case 'f':
            if (parse_judging(c, optarg, a, err) != 0)
                return err->code;
            break;
        case 'h': harness_cli_help(stdout, &ab_command); return -1;
        default:
            return harness_cli_bad_option(&ab_command, argv[optind - 1], optopt, err);
        }
    }
    if (argc - optind < 1 || argc - optind > 64)
        return harness_error_set(err, HARNESS_EXIT_USAGE, "ab: expected BASE_CONFIG and CAND_CONFIG, or a suite "
                                 "(configs, folders, NAME.suite files; at most 64), got %d arguments; see `harness ab "
                                 "--help`", argc - optind);
    for (int i = optind; i < argc; i++)
        a->paths[a->n_paths++] = argv[i];
    if (!a->tree[0] != !a->tree[1])
        return harness_error_set(err, HARNESS_EXIT_USAGE, "ab: --base-tree and --cand-tree go together (the two "
                                 "checkouts that CONFIG paths are inside)");
    if (a->time_budget_s > 0 && !a->rounds_given)
        a->rounds = 50;            /* the budget decides, up to this */
    return check_rounds(a, err);
}


/* Whether the arguments are one benchmark's two configs (base, cand) rather
 * than a suite: two paths, neither a folder nor a NAME.suite (a missing
 * one is then named as its side's), and no trees. */
static int is_pair(const harness_ab_opts *a)
{
    struct stat st;
    for (size_t i = 0; i < a->n_paths; i++)
        if ((stat(a->paths[i], &st) == 0 && S_ISDIR(st.st_mode)) || harness_is_suite_file(a->paths[i]))
            return 0;
    return a->n_paths == 2 && !a->tree[0];
}

/* The candidate side's --set and --plugin-path as run's options, for
 * preparing a suite's configs here (the base side is validated apart). */
static void cand_options(const harness_ab_opts *a, harness_cli_opts *o)
{
    memset(o, 0, sizeof *o);
    o->runs = 1;
    o->filter = a->filter;
    for (size_t i = 0; i + 1 < a->n_extra[1]; i += 2) {
        if (strcmp(a->extra[1][i], "--set") == 0)
            o->sets[o->n_sets++] = a->extra[1][i + 1];
        else
            o->plugin_paths[o->n_plugin_paths++] = a->extra[1][i + 1];
    }
}

/* path inside dir (a tree), one slash between; path itself without one */
static char *joined(const char *dir, const char *path)
{
    return dir ? harness_path_join(dir, path) : strdup(path);
}

/* Whether config b of the suite is one of those before it (the same path). */
static int named_before(const harness_suite_configs *sel, size_t b)
{
    for (size_t i = 0; i < b; i++)
        if (strcmp(sel->configs[i].path, sel->configs[b].path) == 0)
            return 1;
    return 0;
}

/* A suite's configs, expanded in the candidate tree when there are trees;
 * each benchmark's base config is the same path in the base tree (one
 * missing there is new in the candidate: said, and left out). */
static int suite_benchmarks(harness_ab_opts *a, harness_suite_configs *sel)
{
    const char *paths[64];
    size_t n = 0;
    int code = 0;
    for (; n < a->n_paths && code == 0; n++)
        if (!(paths[n] = joined(a->tree[1], a->paths[n])))
            code = harness_error_report(&(harness_error){.code = HARNESS_EXIT_RUNTIME, .msg = "out of memory"});
    harness_cli_opts o;
    cand_options(a, &o);
    if (code == 0)
        code = harness_suite_select(&o, paths, n, sel);
    for (size_t i = 0; i < n; i++)
        free((char *)paths[i]);
    if (code == 0 && !(a->bench = calloc(sel->n_configs, sizeof *a->bench)))
        code = harness_error_report(&(harness_error){.code = HARNESS_EXIT_RUNTIME, .msg = "out of memory"});
    char *prefix = a->tree[1] ? harness_path_join(a->tree[1], "") : NULL;   /* what joined() put before a path */
    size_t skip = prefix ? strlen(prefix) : 0;
    free(prefix);
    for (size_t b = 0; code == 0 && b < sel->n_configs; b++) {
        harness_ab_bench *x = &a->bench[a->n_bench];
        const char *rel = sel->configs[b].path + skip, *slash = strrchr(rel, '/'), *stem = slash ? slash + 1 : rel;
        if (named_before(sel, b)) {
            /* `ab configs/ configs/` reads as base and cand, but is a suite
             * of configs/ twice: each config is both sides already */
            fprintf(stderr, "harness: ab: %s is named more than once: one benchmark (a suite runs each config as "
                    "both base and candidate)\n", sel->configs[b].path);
            continue;
        }
        x->config[0] = joined(a->tree[0], rel);
        x->config[1] = strdup(sel->configs[b].path);
        if (!x->config[0] || !x->config[1])
            return harness_error_report(&(harness_error){.code = HARNESS_EXIT_RUNTIME, .msg = "out of memory"});
        if (a->tree[0] && access(x->config[0], F_OK) != 0) {
            fprintf(stderr, "harness: ab: %s is new in --cand-tree %s (not in --base-tree %s): not compared\n",
                    rel, a->tree[1], a->tree[0]);
            free(x->config[0]);
            free(x->config[1]);
            continue;
        }
        snprintf(x->folder, sizeof x->folder, "%02zu-%.*s", a->n_bench + 1, (int)strcspn(stem, "."), stem);
        a->n_bench++;
    }
    if (code == 0 && a->n_bench == 0)
        code = harness_error_report(&(harness_error){.code = HARNESS_EXIT_USAGE,
                                                     .msg = "ab: no benchmark of the candidate tree is in the base "
                                                            "tree; nothing to compare"});
    return code;
}

/* a->bench: the pair, or every config of the suite (--filter applied).
 * 0, or the exit code, printed. */
static int select_benchmarks(harness_ab_opts *a, harness_suite_configs *sel)
{
    if (!is_pair(a))
        return suite_benchmarks(a, sel);
    if (!(a->bench = calloc(1, sizeof *a->bench)))
        return harness_error_report(&(harness_error){.code = HARNESS_EXIT_RUNTIME, .msg = "out of memory"});
    a->n_bench = 1;
    a->bench[0].config[0] = strdup(a->paths[0]);
    a->bench[0].config[1] = strdup(a->paths[1]);
    if (!a->bench[0].config[0] || !a->bench[0].config[1])
        return harness_error_report(&(harness_error){.code = HARNESS_EXIT_RUNTIME, .msg = "out of memory"});
    return 0;
}

/* Power planned, never assumed: judged together, a lone change among m
 * benchmarks needs p <= alpha / m, which the sign test reaches only with
 * harness_ab_rounds_needed(alpha, m) rounds. Unless --rounds says, run at
 * least that many; refuse fewer before anything runs (with a time budget
 * the first round decides, ab_run.c). */
static int plan_rounds(harness_ab_opts *a, harness_error *err)
{
    int need = (int)harness_ab_rounds_needed(a->o.alpha, a->n_bench);
    if (!a->rounds_given && a->rounds < need)
        a->rounds = need;
    if (a->rounds >= need)
        return 0;
    return harness_error_set(err, HARNESS_EXIT_USAGE, "--rounds %d: a lone change among %zu benchmarks judged "
                             "together needs p <= alpha / %zu = %.3g, and %d rounds reach p = %.3g at best; use "
                             "--rounds %d or more, or fewer benchmarks (--filter)", a->rounds, a->n_bench,
                             a->n_bench, a->o.alpha / (double)a->n_bench, a->rounds, 2.0 / ldexp(1.0, a->rounds),
                             need);
}

/* The verdict's report on stdout; the exit code. */
static int report(const harness_ab_opts *a, harness_compare_side sides[2], harness_error *err)
{
    harness_comparison cmp;
    if (harness_compare_rounds(&sides[0], &sides[1], a->n_bench, &a->o, &cmp, err) != 0) {
        harness_comparison_free(&cmp);
        return harness_error_report(err);
    }
    harness_color_init(a->color);
    harness_text_style style = {harness_color_on(stdout), a->wide ? 0 : harness_term_width()};
    char *text = harness_print_comparison(a->printer, &cmp, &style);
    int code = harness_comparison_exit_code(&cmp);
    int report_files_rc = text ? harness_report_files_write(&a->reports, &cmp, err) : 0;
    harness_comparison_free(&cmp);
    if (!text) {
        harness_error_set(err, HARNESS_EXIT_RUNTIME, "out of memory writing the report");
        return harness_error_report(err);
    }
    fputs(text, stdout);
    free(text);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        harness_error_set(err, HARNESS_EXIT_RUNTIME, "cannot write the report: %s", strerror(errno));
        return harness_error_report(err);
    }
    return report_files_rc ? harness_error_report(err) : code;
}

int harness_cmd_ab(int argc, char **argv)
{
    harness_error err = {0};
    harness_ab_opts a;
    memset(&a, 0, sizeof a);
    int rc = parse(argc, argv, &a, &err);
    if (rc == -1)
        return 0;
    if (rc != 0)
        return harness_error_report(&err);
    harness_suite_configs sel = {0};
    int code = select_benchmarks(&a, &sel);
    if (code == 0 && plan_rounds(&a, &err) != 0)
        code = harness_error_report(&err);
    if (code == 0 && (harness_ab_validate(&a, &err) != 0 || harness_mkdirs(a.output_dir, &err) != 0))
        code = harness_error_report(&err);
    harness_compare_side sides[2];
    memset(sides, 0, sizeof sides);
    for (int s = 0; s < 2 && code == 0; s++) {
        sides[s].is_parent = 1;    /* the report says "folder of experiments": one per round */
        /* each side's own folders, DIR/[BENCH/]round-NN-SIDE: named as a pattern */
        const char *bench = a.n_bench > 1 || a.bench[0].folder[0] ? "*/" : "";
        char pattern[32];
        snprintf(pattern, sizeof pattern, "%sround-*-%s", bench, s ? "cand" : "base");
        sides[s].root = harness_path_join(a.output_dir, pattern);   /* one slash, as --output-dir ends */
        if (!sides[s].root) {
            code = harness_error_report(&(harness_error){.code = HARNESS_EXIT_RUNTIME, .msg = "out of memory"});
        }
    }
    int rounds;
    if (code == 0 && harness_ab_run(&a, sides, &rounds, &err) != 0)
        code = harness_error_report(&err);
    for (int s = 0; s < 2 && code == 0; s++)
        harness_run_summaries_note_allowed(sides[s].runs, sides[s].n_runs, "ab", stderr);
    if (code == 0)
        code = report(&a, sides, &err);
    harness_compare_side_free(&sides[0]);
    harness_compare_side_free(&sides[1]);
    harness_suite_configs_free(&sel);
    for (size_t b = 0; b < a.n_bench; b++) {
        free(a.bench[b].config[0]);
        free(a.bench[b].config[1]);
    }
    free(a.bench);
    return code;
}

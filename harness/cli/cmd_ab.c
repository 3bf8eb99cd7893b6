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
#include <sys/wait.h>
#include <unistd.h>

#include "cli/child_process.h"
#include "cli/commands.h"
#include "compare/compare.h"
#include "util/fsutil.h"

#define MAX_EXTRA 64               /* --set and --*-plugin-path arguments kept */

static void usage(FILE *f)
{
    fputs("usage: harness ab BASE_CONFIG CAND_CONFIG [--rounds N] [--output-dir DIR]\n"
          "                  [--base-plugin-path DIR]... [--cand-plugin-path DIR]...\n"
          "                  [--set K=V]... [--base-set K=V]... [--cand-set K=V]...\n"
          "                  [--threshold PCT] [--alpha A] [--on-ambiguous fail|pass]\n"
          "                  [--format text|markdown|json]\n"
          "\n"
          "Interleaved A/B: N rounds, each running the base and the candidate back to\n"
          "back as two `harness run` processes (the order alternates), then a verdict on\n"
          "the paired ratios cand_i / base_i of the rounds' medians: the exact sign\n"
          "test's p, the median ratio and its sign-test interval (with its real\n"
          "coverage), which one wild round in ten does not move. Every round is listed.\n"
          "Drift that is slow next to a round (clocks, heat, neighbours) hits both sides\n"
          "of a round alike and divides out, which two separate runs cannot do.\n"
          "\n"
          "The two sides may differ in config file (two commits of a config), in plugin\n"
          "build (--base-plugin-path main/plugins --cand-plugin-path pr/plugins) or in\n"
          "anything --set can say (--cand-set component.variant_key=my_rms_norm/cpu).\n"
          "Both sides are validated (harness validate) before the first round.\n"
          "Single-rank runs only.\n"
          "\n"
          "  --rounds N        rounds (default 10); fewer than can reach --alpha are\n"
          "                    refused before anything runs (6 at alpha 0.05)\n"
          "  --output-dir DIR  where the rounds' experiment folders go (default\n"
          "                    experiments/ab): DIR/round-NN-{base,cand}/<experiment>\n"
          "  --threshold, --alpha, --on-ambiguous, --format: as in `harness compare`\n"
          "\n"
          "exit: as `harness compare` (0 SAME or IMPROVEMENT, 1 REGRESSION, FAILED or\n"
          "      AMBIGUOUS unless --on-ambiguous pass); a round whose run fails to\n"
          "      start passes on that run's exit code (2 config, 3 runtime)\n",
          f);
}

typedef struct ab_opts {
    const char *config[2];         /* base, cand */
    const char *extra[2][MAX_EXTRA];
    size_t n_extra[2];
    int rounds;
    const char *output_dir;
    harness_compare_options o;
    harness_compare_format format;
} ab_opts;

static int add_extra(ab_opts *a, int side, const char *flag, const char *value, harness_error *err)
{
    for (int s = 0; s < 2; s++) {
        if (side >= 0 && s != side)
            continue;
        if (a->n_extra[s] + 2 > MAX_EXTRA)
            return harness_error_set(err, HARNESS_EXIT_USAGE, "ab: more than %d --set and --plugin-path "
                                     "arguments", MAX_EXTRA / 2);
        a->extra[s][a->n_extra[s]++] = flag;
        a->extra[s][a->n_extra[s]++] = value;
    }
    return 0;
}

enum { O_BASE_PP = 1000, O_CAND_PP, O_SET, O_BASE_SET, O_CAND_SET, O_ON_AMBIGUOUS };

/* --threshold, --alpha, --on-ambiguous, --format: as `harness compare`
 * takes them. */
static int parse_judging(int c, const char *arg, ab_opts *a, harness_error *err)
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
        if (strcmp(arg, "fail") != 0 && strcmp(arg, "pass") != 0)
            return harness_error_set(err, HARNESS_EXIT_USAGE, "--on-ambiguous: expected fail or pass, got '%s'",
                                     arg);
        a->o.ambiguous_fails = strcmp(arg, "fail") == 0;
        return 0;
    default:                       /* 'f' */
        if (strcmp(arg, "text") == 0)
            a->format = HARNESS_COMPARE_TEXT;
        else if (strcmp(arg, "markdown") == 0 || strcmp(arg, "md") == 0)
            a->format = HARNESS_COMPARE_MARKDOWN;
        else if (strcmp(arg, "json") == 0)
            a->format = HARNESS_COMPARE_JSON;
        else
            return harness_error_set(err, HARNESS_EXIT_USAGE, "--format: expected text, markdown or json, "
                                     "got '%s'", arg);
        return 0;
    }
}

/* Refuse --rounds that can never reach --alpha, once both are known (either
 * may come first), so that nothing runs for a verdict that cannot come. */
static int check_rounds(const ab_opts *a, harness_error *err)
{
    size_t need = harness_ab_rounds_needed(a->o.alpha);
    if ((size_t)a->rounds >= need)
        return 0;
    return harness_error_set(err, HARNESS_EXIT_USAGE, "--rounds %d: %d round%s can reach p = %.3g at best, above "
                             "--alpha %g; use --rounds %zu or more", a->rounds, a->rounds, a->rounds == 1 ? "" : "s",
                             2.0 / ldexp(1.0, a->rounds), a->o.alpha, need);
}

static int parse(int argc, char **argv, ab_opts *a, harness_error *err)
{
    static const struct option longopts[] = {
        {"rounds", required_argument, NULL, 'n'},         {"output-dir", required_argument, NULL, 'o'},
        {"base-plugin-path", required_argument, NULL, O_BASE_PP},
        {"cand-plugin-path", required_argument, NULL, O_CAND_PP},
        {"set", required_argument, NULL, O_SET},          {"base-set", required_argument, NULL, O_BASE_SET},
        {"cand-set", required_argument, NULL, O_CAND_SET}, {"threshold", required_argument, NULL, 't'},
        {"alpha", required_argument, NULL, 'a'},          {"on-ambiguous", required_argument, NULL, O_ON_AMBIGUOUS},
        {"format", required_argument, NULL, 'f'},         {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    a->rounds = 10;
    a->output_dir = "experiments/ab";
    a->o.threshold = HARNESS_COMPARE_DEFAULT_THRESHOLD;
    a->o.alpha = HARNESS_COMPARE_DEFAULT_ALPHA;
    a->o.ambiguous_fails = 1;
    a->format = HARNESS_COMPARE_TEXT;
    opterr = 0;
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, "n:o:t:a:f:h", longopts, NULL)) != -1) {
        char *end;
        switch (c) {
        case 'n': {
            long n = strtol(optarg, &end, 10);
            if (end == optarg || *end || n < 1 || n > 1000)
                return harness_error_set(err, HARNESS_EXIT_USAGE, "--rounds: expected an integer in [1, 1000], got "
                                         "'%s'", optarg);
            a->rounds = (int)n;
            break;
        }
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
        case 'f':
            if (parse_judging(c, optarg, a, err) != 0)
                return err->code;
            break;
        case 'h': usage(stdout); return -1;
        default:
            return harness_error_set(err, HARNESS_EXIT_USAGE, "ab: %s '%s'; see `harness ab --help`",
                                     optopt ? "option needs a value or is unknown:" : "unknown option",
                                     argv[optind - 1]);
        }
    }
    if (argc - optind != 2)
        return harness_error_set(err, HARNESS_EXIT_USAGE, "ab: expected BASE_CONFIG and CAND_CONFIG, got %d "
                                 "argument%s; see `harness ab --help`", argc - optind, argc - optind == 1 ? "" : "s");
    a->config[0] = argv[optind];
    a->config[1] = argv[optind + 1];
    return check_rounds(a, err);
}

static const char *const side_names[2] = {"base", "cand"};

/* `harness validate` of one side, with its --set and --plugin-path, before
 * any round runs: a bad side fails in a second, with the child's message,
 * rather than after the other side's first run with a pointer to a log. */
static int validate_side(const ab_opts *a, int side, harness_error *err)
{
    const char *argv[MAX_EXTRA + 4];
    size_t n = 0;
    argv[n++] = "harness";
    argv[n++] = "validate";
    argv[n++] = a->config[side];
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
                             "is not valid, nothing was run: %s", side_names[side], a->config[side],
                             a->n_extra[side] ? " with its --set and --plugin-path" : "", line);
}

/* Run `harness run` for one side of one round; *folder: the experiment
 * folder it printed. The child's stderr goes to LOG (named on failure). */
static int run_side(const ab_opts *a, int side, int round, char **folder, harness_error *err)
{
    char *out_dir = NULL, *log = NULL;
    if (asprintf(&out_dir, "%s/round-%02d-%s", a->output_dir, round + 1, side_names[side]) < 0 ||
        asprintf(&log, "%s.log", out_dir) < 0) {
        free(out_dir);
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "out of memory");
    }
    const char *argv[MAX_EXTRA + 8];
    size_t n = 0;
    argv[n++] = "harness";
    argv[n++] = "run";
    argv[n++] = a->config[side];
    argv[n++] = "--quiet";
    argv[n++] = "--output-dir";
    argv[n++] = out_dir;
    for (size_t i = 0; i < a->n_extra[side]; i++)
        argv[n++] = a->extra[side][i];
    argv[n] = NULL;

    int rc = 0, code = 0;
    char buf[4096];
    int logfd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (logfd < 0) {
        rc = harness_error_set(err, HARNESS_EXIT_RUNTIME, "ab: %s: %s", log, strerror(errno));
    } else if (harness_run_child(argv, STDOUT_FILENO, logfd, buf, sizeof buf, &code) != 0) {
        rc = harness_error_set(err, HARNESS_EXIT_RUNTIME, "ab: cannot run harness: %s", strerror(errno));
    } else {
        size_t len = strlen(buf);
        /* 1: validation failed, the summary says so and the pair is FAILED */
        if ((code == 0 || code == 1) && strchr(buf, '\n'))
            rc = harness_error_set(err, HARNESS_EXIT_USAGE, "ab: %s wrote several experiment folders (a "
                                   "sweep?); an A/B run compares one point: fix the sweep with --set",
                                   a->config[side]);
        else if ((code == 0 || code == 1) && len)
            *folder = strdup(buf);
        else if (code == 0 || code == 1)
            rc = harness_error_set(err, HARNESS_EXIT_RUNTIME, "ab: round %d, %s: `harness run %s` named no "
                                   "experiment folder; its messages are in %s", round + 1, side_names[side],
                                   a->config[side], log);
        else
            rc = harness_error_set(err, code == 2 || code == 130 ? code : HARNESS_EXIT_RUNTIME,
                                   "ab: round %d, %s: `harness run %s` exited %d; its messages are in %s",
                                   round + 1, side_names[side], a->config[side], code, log);
    }
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
    char *path = NULL;
    if (asprintf(&path, "%s/summary_ranks_1_rank_0.json", folder) < 0)
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

int harness_cmd_ab(int argc, char **argv)
{
    harness_error err = {0};
    ab_opts a;
    memset(&a, 0, sizeof a);
    int rc = parse(argc, argv, &a, &err);
    if (rc == -1)
        return 0;
    if (rc != 0)
        return harness_error_report(&err);
    if (harness_mkdirs(a.output_dir, &err) != 0)
        return harness_error_report(&err);

    for (int side = 0; side < 2; side++)
        if (validate_side(&a, side, &err) != 0)
            return harness_error_report(&err);

    harness_compare_side sides[2];
    memset(sides, 0, sizeof sides);
    for (int s = 0; s < 2 && rc == 0; s++) {
        sides[s].is_parent = 1;   /* the report says "folder of experiments": one per round */
        if (!(sides[s].root = strdup(a.output_dir)))
            rc = harness_error_set(&err, HARNESS_EXIT_RUNTIME, "out of memory");
    }
    for (int round = 0; round < a.rounds && rc == 0; round++) {
        for (int k = 0; k < 2 && rc == 0; k++) {
            int side = harness_ab_base_first((size_t)round) ? k : 1 - k;
            char *folder = NULL;
            rc = run_side(&a, side, round, &folder, &err);
            if (rc == 0)
                rc = load_round(folder, &sides[side], &err);
            free(folder);
        }
    }
    if (rc != 0) {
        harness_compare_side_free(&sides[0]);
        harness_compare_side_free(&sides[1]);
        return harness_error_report(&err);
    }
    harness_comparison cmp;
    if (harness_compare_rounds(&sides[0], &sides[1], &a.o, &cmp, &err) != 0) {
        harness_comparison_free(&cmp);
        return harness_error_report(&err);
    }
    char *report = harness_compare_report(&cmp, a.format);
    int code = harness_comparison_exit_code(&cmp);
    harness_comparison_free(&cmp);
    if (!report) {
        harness_error_set(&err, HARNESS_EXIT_RUNTIME, "out of memory writing the report");
        return harness_error_report(&err);
    }
    fputs(report, stdout);
    free(report);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        harness_error_set(&err, HARNESS_EXIT_RUNTIME, "cannot write the report: %s", strerror(errno));
        return harness_error_report(&err);
    }
    return code;
}

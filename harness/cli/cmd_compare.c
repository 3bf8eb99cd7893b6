/* harness compare BASE CAND: is the candidate slower than the base? */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "compare/compare.h"

static void usage(FILE *f)
{
    fputs("usage: harness compare BASE CAND [--threshold PCT] [--alpha A] [--format text|markdown|json]\n"
          "\n"
          "Compare the per-step timings of a candidate with a base. BASE and CAND are\n"
          "experiment folders written by `harness run`, or folders holding many of them\n"
          "(a CI job's experiments/): runs are then matched by variant key, component\n"
          "config, rank and world size, and of several runs of one key the newest folder\n"
          "is taken. Two experiment folders are compared rank by rank, whatever their config.\n"
          "\n"
          "Per pair: the ratio of the medians cand / base with a conservative 95% CI\n"
          "([cand_lo / base_hi, cand_hi / base_lo] from the medians' CIs) and a two-sided\n"
          "Mann-Whitney U test on the per-step samples. REGRESSION: ratio > 1 + threshold\n"
          "and p < alpha; IMPROVEMENT: ratio < 1 - threshold and p < alpha; otherwise no\n"
          "change. FAILED: a run that is not ok (failed, interrupted) or failed validation\n"
          "on either side.\n"
          "\n"
          "  --threshold PCT   smallest change that counts, in percent: 5 or 5% (default 5)\n"
          "  --alpha A         significance level of the test, in (0, 1) (default 0.05)\n"
          "  --format F        text (default), markdown (for a pull-request comment) or json\n"
          "\n"
          "exit: 0 no regression, 1 a regression or a FAILED pair, 2 usage error or bad input\n"
          "      (no folder, no summary, invalid summary, no matching runs), 3 runtime failure\n",
          f);
}

enum { OPT_THRESHOLD = 't', OPT_ALPHA = 'a', OPT_FORMAT = 'f', OPT_HELP = 'h' };

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
    harness_compare_options o;
    harness_compare_format format;
} compare_opts;

/* -1 after --help, else 0 or an exit code with err set. */
static int parse(int argc, char **argv, compare_opts *opts, harness_error *err)
{
    static const struct option longopts[] = {
        {"threshold", required_argument, NULL, OPT_THRESHOLD},
        {"alpha", required_argument, NULL, OPT_ALPHA},
        {"format", required_argument, NULL, OPT_FORMAT},
        {"help", no_argument, NULL, OPT_HELP},
        {NULL, 0, NULL, 0},
    };
    opts->o.threshold = HARNESS_COMPARE_DEFAULT_THRESHOLD;
    opts->o.alpha = HARNESS_COMPARE_DEFAULT_ALPHA;
    opts->format = HARNESS_COMPARE_TEXT;
    opterr = 0;
    optind = 1;
    int c;
    double v;
    while ((c = getopt_long(argc, argv, "t:a:f:h", longopts, NULL)) != -1) {
        switch (c) {
        case OPT_THRESHOLD:
            if (parse_number(optarg, "%", &v) != 0 || v < 0)
                return harness_error_set(err, HARNESS_EXIT_USAGE, "--threshold: expected a percentage >= 0 such "
                                         "as 5 or 5%%, got '%s'", optarg);
            opts->o.threshold = v / 100.0;
            break;
        case OPT_ALPHA:
            if (parse_number(optarg, NULL, &v) != 0 || !(v > 0 && v < 1))
                return harness_error_set(err, HARNESS_EXIT_USAGE, "--alpha: expected a number in (0, 1) such as "
                                         "0.05, got '%s'", optarg);
            opts->o.alpha = v;
            break;
        case OPT_FORMAT:
            if (strcmp(optarg, "text") == 0)
                opts->format = HARNESS_COMPARE_TEXT;
            else if (strcmp(optarg, "markdown") == 0 || strcmp(optarg, "md") == 0)
                opts->format = HARNESS_COMPARE_MARKDOWN;
            else if (strcmp(optarg, "json") == 0)
                opts->format = HARNESS_COMPARE_JSON;
            else
                return harness_error_set(err, HARNESS_EXIT_USAGE, "--format: expected text, markdown or json, "
                                         "got '%s'", optarg);
            break;
        case OPT_HELP: usage(stdout); return -1;
        default:
            return harness_error_set(err, HARNESS_EXIT_USAGE, "compare: %s option '%s'; see `harness compare --help`",
                                     optopt ? "option needs a value or is unknown:" : "unknown", argv[optind - 1]);
        }
    }
    int positional = argc - optind;
    if (positional != 2)
        return harness_error_set(err, HARNESS_EXIT_USAGE, "compare: expected BASE and CAND folders, got %d "
                                 "argument%s; see `harness compare --help`", positional, positional == 1 ? "" : "s");
    opts->base = argv[optind];
    opts->cand = argv[optind + 1];
    return 0;
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
    if (harness_compare_dirs(opts.base, opts.cand, &opts.o, &cmp, &err) != 0) {
        harness_comparison_free(&cmp);
        return harness_error_report(&err);
    }
    char *report = harness_compare_report(&cmp, opts.format);
    if (!report) {
        harness_comparison_free(&cmp);
        harness_error_set(&err, HARNESS_EXIT_RUNTIME, "out of memory writing the report");
        return harness_error_report(&err);
    }
    fputs(report, stdout);
    free(report);
    int code = harness_comparison_exit_code(&cmp);
    harness_comparison_free(&cmp);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        harness_error_set(&err, HARNESS_EXIT_RUNTIME, "cannot write the report: %s", strerror(errno));
        return harness_error_report(&err);
    }
    return code;
}

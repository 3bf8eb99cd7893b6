/* harness history --db FILE: series of recorded runs and their change points. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "compare/history.h"

static void usage(FILE *f)
{
    fputs("usage: harness history --db FILE [--variant KEY] [--machine HOST] [--branch NAME]\n"
          "                       [--config-hash PREFIX] [--world-size N] [--rank R]\n"
          "                       [--alpha A] [--permutations N] [--format text|markdown|json|html]\n"
          "\n"
          "The runs recorded with `harness record`, one series per (machine, variant key,\n"
          "config hash, world size, rank); each point is a run's median with its CI and\n"
          "that CI's coverage, in commit order (the order the runs were recorded). Change\n"
          "points are found by E-divisive means with a permutation test (as MongoDB's CI\n"
          "and Apache Otava do): each with the commit where the new level starts, the\n"
          "step (medians of the segments either side) and its permutation p. Runs that\n"
          "failed are left out.\n"
          "\n"
          "  --db FILE             the results database\n"
          "  --variant, --machine, --branch, --config-hash, --world-size, --rank   filters\n"
          "  --alpha A             significance of each change point (default 0.01)\n"
          "  --permutations N      per test (default 499); the smallest p is 1/(N+1), so N must be\n"
          "                        at least ceil(1/A) - 1 (--alpha 0.001 needs 999)\n"
          "  --format F            text (default), markdown, json, or html (one self-contained\n"
          "                        page: an inline SVG chart per series, no script)\n"
          "\n"
          "exit: 0 shown, 2 usage error, no database, not a results database, a filter\n"
          "      that matches nothing, 3 I/O\n",
          f);
}

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

int harness_cmd_history(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"db", required_argument, NULL, 'd'},           {"variant", required_argument, NULL, 'v'},
        {"machine", required_argument, NULL, 'm'},      {"branch", required_argument, NULL, 'b'},
        {"config-hash", required_argument, NULL, 'c'},  {"world-size", required_argument, NULL, 'w'},
        {"rank", required_argument, NULL, 'r'},         {"alpha", required_argument, NULL, 'a'},
        {"permutations", required_argument, NULL, 'p'}, {"format", required_argument, NULL, 'f'},
        {"help", no_argument, NULL, 'h'},               {NULL, 0, NULL, 0},
    };
    harness_error err = {0};
    const char *db_path = NULL;
    harness_history_filter filt = {NULL, NULL, NULL, NULL, -1, -1};
    harness_cp_options cp = HARNESS_CP_DEFAULTS;
    harness_history_format fmt = HARNESS_HISTORY_TEXT;
    opterr = 0;
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, "d:v:m:b:c:w:r:a:p:f:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'd': db_path = optarg; break;
        case 'v': filt.variant_key = optarg; break;
        case 'm': filt.host = optarg; break;
        case 'b': filt.branch = optarg; break;
        case 'c': filt.config_hash = optarg; break;
        case 'w':
        case 'r':
            if (int_arg(optarg, c == 'w' ? 1 : 0, c == 'w' ? &filt.world_size : &filt.rank) != 0) {
                harness_error_set(&err, HARNESS_EXIT_USAGE, "--%s: expected an integer >= %d, got '%s'",
                                  c == 'w' ? "world-size" : "rank", c == 'w' ? 1 : 0, optarg);
                return harness_error_report(&err);
            }
            break;
        case 'a': {
            char *end;
            cp.alpha = strtod(optarg, &end);
            if (end == optarg || *end || !(cp.alpha > 0 && cp.alpha < 1)) {
                harness_error_set(&err, HARNESS_EXIT_USAGE, "--alpha: expected a number in (0, 1), got '%s'", optarg);
                return harness_error_report(&err);
            }
            break;
        }
        case 'p':
            if (int_arg(optarg, 19, &cp.permutations) != 0) {
                harness_error_set(&err, HARNESS_EXIT_USAGE, "--permutations: expected an integer >= 19, got '%s'",
                                  optarg);
                return harness_error_report(&err);
            }
            break;
        case 'f':
            if (strcmp(optarg, "text") == 0)
                fmt = HARNESS_HISTORY_TEXT;
            else if (strcmp(optarg, "markdown") == 0 || strcmp(optarg, "md") == 0)
                fmt = HARNESS_HISTORY_MARKDOWN;
            else if (strcmp(optarg, "json") == 0)
                fmt = HARNESS_HISTORY_JSON;
            else if (strcmp(optarg, "html") == 0)
                fmt = HARNESS_HISTORY_HTML;
            else {
                harness_error_set(&err, HARNESS_EXIT_USAGE, "--format: expected text, markdown, json or html, got "
                                  "'%s'", optarg);
                return harness_error_report(&err);
            }
            break;
        case 'h': usage(stdout); return 0;
        default:
            harness_error_set(&err, HARNESS_EXIT_USAGE, "history: %s '%s'; see `harness history --help`",
                              optopt ? "option needs a value or is unknown:" : "unknown option", argv[optind - 1]);
            return harness_error_report(&err);
        }
    }
    if (optind < argc) {
        harness_error_set(&err, HARNESS_EXIT_USAGE, "history: unexpected argument '%s'; see `harness history --help`",
                          argv[optind]);
        return harness_error_report(&err);
    }
    if (!db_path) {
        harness_error_set(&err, HARNESS_EXIT_USAGE, "history: --db FILE is required; see `harness history --help`");
        return harness_error_report(&err);
    }
    /* A permutation p is at least 1 / (permutations + 1): an alpha below it
     * can never find a change point and the report would only say "none".
     * The rule: permutations >= ceil(1 / alpha) - 1. */
    if (1.0 / (cp.permutations + 1.0) > cp.alpha) {
        double need = ceil(1.0 / cp.alpha) - 1.0;
        while (1.0 / (need + 1.0) > cp.alpha)   /* rounding in 1 / alpha */
            need += 1.0;
        if (need <= 1e9)
            harness_error_set(&err, HARNESS_EXIT_USAGE,
                              "history: --alpha %g can never be reached with --permutations %d (the smallest "
                              "permutation p is 1/(%d+1) = %.4g): use --permutations %.0f or more (the rule: "
                              "permutations >= ceil(1/alpha) - 1), or a larger --alpha",
                              cp.alpha, cp.permutations, cp.permutations, 1.0 / (cp.permutations + 1.0), need);
        else
            harness_error_set(&err, HARNESS_EXIT_USAGE,
                              "history: --alpha %g would need --permutations %.0f (the rule: permutations >= "
                              "ceil(1/alpha) - 1), beyond the 1000000000 allowed: use a larger --alpha",
                              cp.alpha, need);
        return harness_error_report(&err);
    }
    harness_db *db;
    if (harness_db_open(db_path, 0, &db, &err) != 0)
        return harness_error_report(&err);
    harness_history h;
    int rc = harness_history_load(db, &filt, &cp, &h, &err);
    char *report = rc == 0 ? harness_history_report(&h, fmt) : NULL;
    if (rc == 0 && !report)
        rc = harness_error_set(&err, HARNESS_EXIT_RUNTIME, "out of memory writing the report");
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

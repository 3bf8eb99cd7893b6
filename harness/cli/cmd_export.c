/* harness export EXPERIMENT... [--format F]: the window statistics of
 * experiment folders as one flat table on stdout, for pandas, spreadsheets
 * and scripts (one row per rank and window), or in the formats of the
 * tools CI users already look at (Bencher, github-action-benchmark, Google
 * Benchmark's compare.py; export_write.h). */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/export_table.h"
#include "cli/export_write.h"

enum { OPT_FILTER = 1000, OPT_ROWS };

static const char *const synopsis[] = {"EXPERIMENT... [options]", NULL};

static const harness_cli_option options[] = {
    {"format", 'f', 0, "F", "csv (default): RFC 4180, a header line; json: an array of objects; bmf: Bencher "
     "Metric Format; gha, gha-throughput: github-action-benchmark's customSmallerIsBetter (ns) and "
     "customBiggerIsBetter (steps/s); gbench: Google Benchmark's JSON (a window is a repetition)"},
    {"rows", 0, OPT_ROWS, "R", "windows (default): a row per rank and window; runs: a row per rank, with the "
     "statistics over all its windows (csv and json only)"},
    {"filter", 0, OPT_FILTER, "REGEX", "only runs whose name \"EXPERIMENT_NAME VARIANT_KEY KEY=VALUE...\" "
     "(every component parameter) matches (POSIX extended regex)"},
    HARNESS_CLI_HELP_OPTION,
};

static const harness_cli_command export_command = {
    .name = "export",
    .synopsis = synopsis,
    .about = "Print one row per rank and measurement window of each experiment folder\n"
             "(an EXPERIMENT may be a folder of them, as for compare):\n"
             "status, variant, device, the window's statistics (ns), throughput at its\n"
             "median, then config.* (the component's parameters) and env.* columns.\n"
             "A run that failed before measuring gets one row with its status and error.\n"
             "The column benchmark, and the benchmark names of bmf, gha and gbench, are\n"
             "EXPERIMENT/VARIANT_KEY/KEY=VALUE,... (every component parameter; /rank=R in a\n"
             "job of several ranks): the same in every format and from run to run.\n",
    .options = options,
    .n_options = HARNESS_CLI_N(options),
    .exit_codes = "0 written, 2 usage error, a folder that is not an experiment (named, with\n"
                  "      why) or a --filter that keeps no run, 3 runtime failure (standard output\n"
                  "      not writable)\n",
};

/* The --format words; per run: the format reads a row per rank. */
typedef enum { FMT_CSV, FMT_JSON, FMT_BMF, FMT_GHA, FMT_GHA_THROUGHPUT, FMT_GBENCH, FMT_COUNT } export_format;
static const struct { const char *name; int per_run; } formats[FMT_COUNT] = {
    [FMT_CSV] = {"csv", 0}, [FMT_JSON] = {"json", 0}, [FMT_BMF] = {"bmf", 1}, [FMT_GHA] = {"gha", 1},
    [FMT_GHA_THROUGHPUT] = {"gha-throughput", 1}, [FMT_GBENCH] = {"gbench", 0},
};

static int parse_format(const char *arg, export_format *out, harness_error *err)
{
    for (int i = 0; i < FMT_COUNT; i++)
        if (strcmp(arg, formats[i].name) == 0) {
            *out = (export_format)i;
            return 0;
        }
    return harness_error_set(err, HARNESS_EXIT_USAGE, "export: --format: expected csv, json, bmf, gha, "
                             "gha-throughput or gbench, got '%s'", arg);
}

static int write_table(const harness_export_table *t, export_format fmt)
{
    switch (fmt) {
    case FMT_CSV: harness_export_write_csv(t, stdout); return 0;
    case FMT_JSON: return harness_export_write_json(t, stdout);
    case FMT_BMF: return harness_export_write_bmf(t, stdout);
    case FMT_GHA: return harness_export_write_gha(t, stdout, 0);
    case FMT_GHA_THROUGHPUT: return harness_export_write_gha(t, stdout, 1);
    default: return harness_export_write_gbench(t, stdout);
    }
}

int harness_cmd_export(int argc, char **argv)
{
    harness_cli_getopt g;
    harness_cli_getopt_init(&g, &export_command);
    harness_error err = {0};
    const char *format = "csv", *pattern = NULL, *rows = NULL;
    opterr = 0;
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, g.shortopts, g.longopts, NULL)) != -1) {
        switch (c) {
        case 'f': format = optarg; break;
        case OPT_FILTER: pattern = optarg; break;
        case OPT_ROWS: rows = optarg; break;
        case 'h': harness_cli_help(stdout, &export_command); return 0;
        default:
            harness_cli_bad_option(&export_command, argv[optind - 1], optopt, &err);
            return harness_error_report(&err);
        }
    }
    export_format fmt = FMT_CSV;
    if (parse_format(format, &fmt, &err) != 0)
        return harness_error_report(&err);
    if (rows && fmt > FMT_JSON) {
        harness_error_set(&err, HARNESS_EXIT_USAGE, "export: --rows is for csv and json; --format %s takes the "
                          "rows it needs", format);
        return harness_error_report(&err);
    }
    if (rows && strcmp(rows, "windows") != 0 && strcmp(rows, "runs") != 0) {
        harness_error_set(&err, HARNESS_EXIT_USAGE, "export: --rows: expected windows or runs, got '%s'", rows);
        return harness_error_report(&err);
    }
    if (optind == argc) {
        harness_error_set(&err, HARNESS_EXIT_USAGE, "export: expected one or more EXPERIMENT folders; see "
                          "`harness export --help`");
        return harness_error_report(&err);
    }
    /* Every folder is read before anything is printed: a bad one leaves no
     * half table on stdout. */
    harness_export_table table;
    harness_bench_filter filter;
    if (harness_bench_filter_init(&filter, pattern, &err) != 0)
        return harness_error_report(&err);
    if (harness_export_table_init(&table, &err) != 0) {
        harness_bench_filter_free(&filter);
        return harness_error_report(&err);
    }
    table.filter = &filter;
    table.per_run = formats[fmt].per_run || (rows && strcmp(rows, "runs") == 0);
    int bad = 0;
    for (int i = optind; i < argc && !bad; i++)
        bad = harness_export_add_folder(&table, argv[i], &err);
    if (!bad && pattern && cJSON_GetArraySize(table.rows) == 0)
        bad = harness_error_set(&err, HARNESS_EXIT_USAGE, "export: --filter '%s' matches none of the %zu runs read",
                                pattern, table.runs_seen);
    harness_bench_filter_free(&filter);
    if (bad) {
        harness_export_table_free(&table);
        return harness_error_report(&err);
    }
    int rc = write_table(&table, fmt) == 0 ? 0 : HARNESS_EXIT_RUNTIME;
    harness_export_table_free(&table);
    return rc;
}

/* harness export EXPERIMENT... [--format csv|json]: the window statistics
 * of experiment folders as one flat table on stdout, for pandas,
 * spreadsheets and scripts (one row per rank and window). */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/export_table.h"
#include "cli/export_write.h"

enum { OPT_FILTER = 1000, OPT_ROWS };

static const char *const synopsis[] = {"EXPERIMENT... [options]", NULL};

static const harness_cli_option options[] = {
    {"format", 'f', 0, "F", "csv (default): RFC 4180, a header line; json: an array of objects"},
    {"rows", 0, OPT_ROWS, "R", "windows (default): a row per rank and window; runs: a row per rank, with the "
     "statistics over all its windows"},
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
             "A run that failed before measuring gets one row with its status and error.\n",
    .options = options,
    .n_options = HARNESS_CLI_N(options),
    .exit_codes = "0 written, 2 usage error, a folder that is not an experiment (named, with\n"
                  "      why) or a --filter that keeps no run, 3 runtime failure (standard output\n"
                  "      not writable)\n",
};

int harness_cmd_export(int argc, char **argv)
{
    harness_cli_getopt g;
    harness_cli_getopt_init(&g, &export_command);
    harness_error err = {0};
    const char *format = "csv", *pattern = NULL, *rows = "windows";
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
    int json = strcmp(format, "json") == 0;
    if (!json && strcmp(format, "csv") != 0) {
        harness_error_set(&err, HARNESS_EXIT_USAGE, "export: --format: expected csv or json, got '%s'", format);
        return harness_error_report(&err);
    }
    if (strcmp(rows, "windows") != 0 && strcmp(rows, "runs") != 0) {
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
    table.per_run = strcmp(rows, "runs") == 0;
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
    int rc = 0;
    if (json)
        rc = harness_export_write_json(&table, stdout) == 0 ? 0 : HARNESS_EXIT_RUNTIME;
    else
        harness_export_write_csv(&table, stdout);
    harness_export_table_free(&table);
    return rc;
}

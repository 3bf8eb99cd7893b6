/* harness record EXPERIMENT... --db FILE: keep runs in the results database. */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/db_timeout.h"
#include "compare/db_wait.h"
#include "compare/results_db.h"

static const char *const synopsis[] = {"EXPERIMENT... --db FILE [options]", NULL};

static const harness_cli_option options[] = {
    {"db", 'd', 0, "FILE", "the results database (created when absent)"},
    {"commit", 'c', 0, "SHA", "the commit measured (default: the summary's env.git_commit)"},
    {"branch", 'b', 0, "NAME", "its branch (default: unknown); history's baseline is main's"},
    {"db-timeout", 0, 't', "SECONDS", "how long to wait in all for other writers' lock (default: "
     "$HARNESS_DB_TIMEOUT, else 300); 0: do not wait"},
    HARNESS_CLI_HELP_OPTION,
};

static const harness_cli_command record_command = {
    .name = "record",
    .synopsis = synopsis,
    .about = "Store the runs of experiment folders written by `harness run` (or of every\n"
             "experiment folder below a folder) in an SQLite\n"
             "results database (created when absent): per rank, the machine (host, CPU, GPU),\n"
             "git commit and branch, harness version, variant key, config hash and resolved\n"
             "config, world size, rank, status, statistics, noise bound and evidence (how far\n"
             "measured interference could have raised the median), window medians and every\n"
             "per-step sample. `harness history` plots the series and finds change points.\n"
             "\n"
             "All folders are stored in one transaction, or none: a bad folder or a failure\n"
             "while writing leaves the database as it was. A run already stored (the same\n"
             "summary bytes) is not stored again. A database written by a newer harness is\n"
             "refused.\n"
             "\n"
             "Several records at once (CI jobs finishing together) take turns: each waits\n"
             "for the lock, backing off, and retries its whole transaction, up to the\n"
             "timeout; a wait of 2 s or more is said on stderr.\n",
    .options = options,
    .n_options = HARNESS_CLI_N(options),
    .exit_codes = "0 recorded, 2 usage error, a folder that is not an experiment, a file\n"
                  "      that is not a results database, a damaged one or one from a newer\n"
                  "      schema, 3 I/O or a database still locked after the timeout\n",
};

int harness_cmd_record(int argc, char **argv)
{
    harness_cli_getopt g;
    harness_cli_getopt_init(&g, &record_command);
    harness_error err = {0};
    const char *db_path = NULL, *timeout_text = NULL;
    harness_record_options o = {NULL, NULL};
    opterr = 0;
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, g.shortopts, g.longopts, NULL)) != -1) {
        switch (c) {
        case 'd': db_path = optarg; break;
        case 'c': o.commit = optarg; break;
        case 'b': o.branch = optarg; break;
        case 't': timeout_text = optarg; break;
        case 'h': harness_cli_help(stdout, &record_command); return 0;
        default:
            harness_cli_bad_option(&record_command, argv[optind - 1], optopt, &err);
            return harness_error_report(&err);
        }
    }
    if (!db_path) {
        harness_error_set(&err, HARNESS_EXIT_USAGE, "record: --db FILE is required; see `harness record --help`");
        return harness_error_report(&err);
    }
    /* `--commit "$GIT_SHA"` with the variable unset: an empty commit would be
     * stored for good (a folder is recorded once). */
    if ((o.commit && !o.commit[0]) || (o.branch && !o.branch[0])) {
        harness_error_set(&err, HARNESS_EXIT_USAGE, "record: --%s is empty (an unset variable?); give a value, or "
                          "leave the option out%s", o.commit && !o.commit[0] ? "commit" : "branch",
                          o.commit && !o.commit[0] ? " to record the commit the run was built from (env.git_commit)"
                                                   : " to record no branch");
        return harness_error_report(&err);
    }
    if (optind >= argc) {
        harness_error_set(&err, HARNESS_EXIT_USAGE, "record: expected one or more experiment folders; see "
                          "`harness record --help`");
        return harness_error_report(&err);
    }
    double timeout_s;
    if (harness_cli_db_timeout(timeout_text, &timeout_s, &err) != 0)
        return harness_error_report(&err);
    /* A file-size limit (ulimit -f) reached while writing the database
     * would kill the process with no word; ignored, the write fails with
     * EFBIG and the record is rolled back and reported like a full disk. */
    signal(SIGXFSZ, SIG_IGN);
    harness_db *db;
    if (harness_db_open(db_path, HARNESS_DB_WRITE, timeout_s, &db, &err) != 0)
        return harness_error_report(&err);
    harness_record_result res;
    size_t n = (size_t)(argc - optind);
    int rc = harness_db_record(db, (const char *const *)argv + optind, n, &o, &res, &err);
    double waited = harness_db_waited_s(db);
    harness_db_close(db);
    if (rc != 0)
        return harness_error_report(&err);
    /* CI logs show why a record took long: the lock, not the harness. */
    if (waited >= HARNESS_DB_WAIT_NOTE_S)
        fprintf(stderr, "harness: waited %.1f s for the database lock of %s (other records held it)\n", waited,
                db_path);
    printf("recorded %zu run%s from %zu experiment folder%s into %s", res.added, res.added == 1 ? "" : "s",
           res.folders, res.folders == 1 ? "" : "s", db_path);
    if (res.already)
        printf(" (%zu already stored)", res.already);
    putchar('\n');
    /* Kept for the record, but not a figure: history would not show them, and says the same. */
    if (res.not_ok)
        fprintf(stderr, "harness: warning: %zu of the runs recorded did not finish ok (interrupted, failed, or no "
                "samples): they are stored, but history and --baseline-db leave them out\n", res.not_ok);
    return 0;
}

/* harness: benchmark and profile steppable components. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "build_config.h"
#include "cli/commands.h"
#include "git_commit.h"   /* generated at every make: Makefile.am */
#include "harness/plugin.h"

static void usage(FILE *f)
{
    fputs("usage: harness <command> [options]\n"
          "\n"
          "commands:\n"
          "  run CONFIG        run a config and write an experiment folder\n"
          "  validate CONFIG   check a config without running it\n"
          "  list              list the variants the plugins provide\n"
          "  compare BASE CAND compare two experiment folders; exit 1 on a regression\n"
          "  calibrate         measure this machine's peaks for the roofline\n"
          "  record EXP... --db FILE   keep runs in a results database (SQLite)\n"
          "  history --db FILE         series of recorded runs and their change points\n"
          "  ab BASE_CFG CAND_CFG      interleaved A/B rounds and their paired verdict\n"
          "  export EXPERIMENT...      window statistics as CSV or JSON rows\n"
          "  new-plugin NAME           write a plugin project that builds with pkg-config\n"
          "\n"
          "  harness <command> --help   options of a command\n"
          "  harness --version          version and plugin ABI\n"
          "  man harness                the manual (harness-config(5), harness-plugin(7))\n",
          f);
}

static int dispatch(int argc, char **argv)
{
    if (argc < 2) {
        fputs("harness: no command given; the commands are below\n\n", stderr);
        usage(stderr);
        return 2;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        usage(stdout);
        return 0;
    }
    if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "-V") == 0) {
        printf("harness %s (plugin ABI %d.%d, commit %s)\n", PACKAGE_VERSION, HARNESS_ABI_MAJOR, HARNESS_ABI_MINOR,
               HARNESS_GIT_COMMIT);
        return 0;
    }
    if (strcmp(cmd, "run") == 0)
        return harness_cmd_run(argc - 1, argv + 1);
    if (strcmp(cmd, "validate") == 0)
        return harness_cmd_validate(argc - 1, argv + 1);
    if (strcmp(cmd, "list") == 0)
        return harness_cmd_list(argc - 1, argv + 1);
    if (strcmp(cmd, "compare") == 0)
        return harness_cmd_compare(argc - 1, argv + 1);
    if (strcmp(cmd, "calibrate") == 0)
        return harness_cmd_calibrate(argc - 1, argv + 1);
    if (strcmp(cmd, "record") == 0)
        return harness_cmd_record(argc - 1, argv + 1);
    if (strcmp(cmd, "history") == 0)
        return harness_cmd_history(argc - 1, argv + 1);
    if (strcmp(cmd, "ab") == 0)
        return harness_cmd_ab(argc - 1, argv + 1);
    if (strcmp(cmd, "export") == 0)
        return harness_cmd_export(argc - 1, argv + 1);
    if (strcmp(cmd, "new-plugin") == 0)
        return harness_cmd_new_plugin(argc - 1, argv + 1);
    fprintf(stderr, "harness: unknown command '%s'; commands are run, validate, list, compare, calibrate, record, history, ab, export and new-plugin (see harness --help)\n", cmd);
    return 2;
}

/* What a command printed must have reached stdout (a full disk, /dev/full,
 * a closed pipe): a lost listing or table is a failure, not a success. */
int main(int argc, char **argv)
{
    int code = dispatch(argc, argv);
    errno = 0;
    if (fflush(stdout) != 0 || ferror(stdout)) {
        int e = errno;
        fprintf(stderr, "harness: cannot write to standard output%s%s\n", e ? ": " : "", e ? strerror(e) : "");
        return code ? code : 3;
    }
    return code;
}

/* harness: benchmark and profile steppable components. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "build_config.h"
#include "cli/commands.h"
#include "git_commit.h"   /* generated at every make: Makefile.am */
#include "harness/plugin.h"
#include "run/process_state.h"
#include "util/build_tree.h"
#include "util/suggest.h"

struct command {
    const char *name;
    const char *args;      /* as the list of commands shows them */
    const char *summary;   /* one line; its man page, man/harness-NAME.1, says the rest */
    int (*fn)(int argc, char **argv);
};

/* Each command has its man page, man/harness-NAME.1 (tests/integration/man_drift.sh). */
static const struct command commands[] = {
    {"run", "CONFIG...", "run configs and write experiment folders", harness_cmd_run},
    {"validate", "CONFIG", "check a config without running it", harness_cmd_validate},
    {"list", "", "list the variants the plugins provide", harness_cmd_list},
    {"compare", "BASE CAND", "compare experiment folders; exit 1 on a regression", harness_cmd_compare},
    {"calibrate", "", "measure this machine's peaks for the roofline", harness_cmd_calibrate},
    {"record", "EXP... --db FILE", "keep runs in a results database (SQLite)", harness_cmd_record},
    {"history", "--db FILE", "series of recorded runs and their change points", harness_cmd_history},
    {"ab", "BASE_CFG CAND_CFG", "interleaved A/B rounds and their paired verdict", harness_cmd_ab},
    {"export", "EXPERIMENT...", "window statistics as CSV or JSON rows", harness_cmd_export},
    {"new-plugin", "NAME", "write a plugin project that builds with pkg-config", harness_cmd_new_plugin},
};
#define N_COMMANDS (sizeof commands / sizeof commands[0])

static void usage(FILE *f)
{
    fputs("usage: harness <command> [options]\n\ncommands:\n", f);
    for (size_t i = 0; i < N_COMMANDS; i++) {
        int n = fprintf(f, "  %s %s", commands[i].name, commands[i].args);
        fprintf(f, "%*s%s\n", n < 28 ? 28 - n : 1, "", commands[i].summary);
    }
    fputs("\n"
          "  harness <command> --help  a command's options (or: harness help <command>)\n"
          "  harness --version         version and plugin ABI\n"
          "  man harness-<command>     a command's manual; man harness: the overview;\n"
          "                            man harness-config: the config file (5);\n"
          "                            man harness-plugin: writing a plugin (7)\n",
          f);
    /* Not installed, man finds none of them: the clone's own pages. */
    if (harness_running_from_build_tree())
        fputs("  in a clone, not installed: man -l man/harness.1, man -l man/harness-run.1, ...\n", f);
}

static const struct command *find_command(const char *name)
{
    for (size_t i = 0; i < N_COMMANDS; i++)
        if (strcmp(commands[i].name, name) == 0)
            return &commands[i];
    return NULL;
}

/* A typo ("runn") is answered with the command meant, as config keys are;
 * "--versin" with the option meant. */
static int unknown_command(const char *cmd)
{
    static const char *const top_options[] = {"help", "version"};
    const char *option = cmd[0] == '-' ? harness_suggest(cmd + strspn(cmd, "-"), top_options, 2) : NULL;
    if (option) {
        fprintf(stderr, "harness: unknown option '%s'; did you mean --%s? (see harness --help)\n", cmd, option);
        return 2;
    }
    if (cmd[0] == '-') {
        fprintf(stderr, "harness: unknown option '%s'; before a command harness takes only --help and --version, "
                "a command's options come after it (harness run CONFIG --quiet; see harness --help)\n", cmd);
        return 2;
    }
    const char *names[N_COMMANDS];
    for (size_t i = 0; i < N_COMMANDS; i++)
        names[i] = commands[i].name;
    const char *guess = harness_suggest(cmd, names, N_COMMANDS);
    if (guess)
        fprintf(stderr, "harness: unknown command '%s'; did you mean '%s'? (see harness --help)\n", cmd, guess);
    else
    {
        fprintf(stderr, "harness: unknown command '%s'; commands are", cmd);
        for (size_t i = 0; i < N_COMMANDS; i++)
            fprintf(stderr, "%s %s", i == 0 ? "" : i + 1 == N_COMMANDS ? " and" : ",", commands[i].name);
        fputs(" (see harness --help)\n", stderr);
    }
    return 2;
}

/* `harness help CMD` is `harness CMD --help`: the habit git and cargo teach. */
static int help_for(const char *cmd)
{
    const struct command *c = find_command(cmd);
    if (!c)
        return unknown_command(cmd);
    char *args[] = {(char *)c->name, (char *)"--help", NULL};
    return c->fn(2, args);
}

static int dispatch(int argc, char **argv)
{
    if (argc < 2) {
        fputs("harness: no command given; the commands are below\n\n", stderr);
        usage(stderr);
        return 2;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "help") == 0 && argc >= 3)
        return help_for(argv[2]);
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        usage(stdout);
        return 0;
    }
    if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "-V") == 0) {
        printf("harness %s (plugin ABI %d.%d, commit %s)\n", PACKAGE_VERSION, HARNESS_ABI_MAJOR, HARNESS_ABI_MINOR,
               HARNESS_GIT_COMMIT);
        return 0;
    }
    const struct command *c = find_command(cmd);
    if (c)
        return c->fn(argc - 1, argv + 1);
    return unknown_command(cmd);
}

/* What a command printed must have reached stdout (a full disk, /dev/full,
 * a closed pipe): a lost listing or table is a failure, not a success. */
int main(int argc, char **argv)
{
    /* Before any plugin can load: the working directory, the signal mask,
     * SIGXFSZ ignored (run/process_state.h). */
    harness_process_take();
    int code = dispatch(argc, argv);
    errno = 0;
    if (fflush(stdout) != 0 || ferror(stdout)) {
        int e = errno;
        fprintf(stderr, "harness: cannot write to standard output%s%s\n", e ? ": " : "", e ? strerror(e) : "");
        return code ? code : 3;
    }
    return code;
}

/* cli_help.h - a command's options in one table, from which both
 * getopt_long's arguments and the command's --help are made, so that what
 * --help lists is what the command parses. Each command's man page
 * (man/harness-<command>.1) documents the same options in full;
 * tests/integration/help_vs_man.sh holds the two to each other. */
#ifndef HARNESS_CLI_HELP_H
#define HARNESS_CLI_HELP_H

#include <getopt.h>
#include <stddef.h>
#include <stdio.h>

/* One option. getopt_long returns `letter` when it has one, else `id`
 * (a value above 255 or a letter that is not a short option). */
typedef struct harness_cli_option {
    const char *name;   /* the long name, without "--" */
    int letter;         /* the short option's letter, 0 for none */
    int id;             /* what getopt_long returns when letter is 0 */
    const char *arg;    /* the value's name in the help (N, KEY=VALUE); NULL: takes none */
    const char *help;   /* one line; the man page has the rest */
} harness_cli_option;

/* A command's help: usage lines, what it does, its options, its exit codes. */
typedef struct harness_cli_command {
    const char *name;               /* run, new-plugin: also names the man page harness-NAME(1) */
    const char *const *synopsis;    /* NULL-ended: the arguments after "harness NAME" of each form */
    const char *about;              /* paragraphs, lines already broken; may be NULL */
    const harness_cli_option *options;
    size_t n_options;
    const char *exit_codes;         /* after "exit: ", lines already broken */
} harness_cli_command;

#define HARNESS_CLI_MAX_OPTIONS 40

/* getopt_long's arguments, made from a command's table. */
typedef struct harness_cli_getopt {
    struct option longopts[HARNESS_CLI_MAX_OPTIONS + 1];
    char shortopts[3 * HARNESS_CLI_MAX_OPTIONS + 2];
} harness_cli_getopt;

void harness_cli_getopt_init(harness_cli_getopt *g, const harness_cli_command *cmd);

/* The command's --help: usage, about, one line per option (wrapped to
 * 80 columns), exit codes and where the manual is. */
void harness_cli_help(FILE *f, const harness_cli_command *cmd);

/* The usage error (exit 2) for the option getopt_long refused, `word`
 * (argv[optind - 1]) with getopt's `optopt`: an option of the table given
 * without its value is named with the value it needs; an unknown one gets
 * the nearest of the table's long names ("did you mean --quiet?"), as
 * commands and config keys do. Returns err's code. */
struct harness_error;
int harness_cli_bad_option(const harness_cli_command *cmd, const char *word, int optopt_value,
                           struct harness_error *err);

/* The --help entry every command's table ends with. */
#define HARNESS_CLI_HELP_OPTION {"help", 'h', 0, NULL, "print this help"}

#define HARNESS_CLI_N(table) (sizeof(table) / sizeof((table)[0]))

#endif

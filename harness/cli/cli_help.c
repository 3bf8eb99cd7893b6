/* A command's option table -> getopt_long's arguments and its --help. */
#include <stdlib.h>
#include <string.h>

#include "cli/cli_help.h"

#include "util/error.h"
#include "util/suggest.h"

void harness_cli_getopt_init(harness_cli_getopt *g, const harness_cli_command *cmd)
{
    if (cmd->n_options > HARNESS_CLI_MAX_OPTIONS) {
        fprintf(stderr, "harness: %s: %zu options, at most %d (cli/cli_help.h)\n", cmd->name, cmd->n_options,
                HARNESS_CLI_MAX_OPTIONS);
        abort();
    }
    size_t s = 0;
    for (size_t i = 0; i < cmd->n_options; i++) {
        const harness_cli_option *o = &cmd->options[i];
        g->longopts[i] = (struct option){o->name, o->arg ? required_argument : no_argument, NULL,
                                         o->letter ? o->letter : o->id};
        if (o->letter) {
            g->shortopts[s++] = (char)o->letter;
            if (o->arg)
                g->shortopts[s++] = ':';
        }
    }
    g->longopts[cmd->n_options] = (struct option){NULL, 0, NULL, 0};
    g->shortopts[s] = '\0';
}

enum { HELP_WIDTH = 80, HELP_COLUMN = 26 };

/* text from column `indent` (the cursor already there), broken at spaces
 * before HELP_WIDTH; later lines indented as much. */
static void wrap(FILE *f, const char *text, int indent)
{
    int col = indent;
    const char *p = text;
    while (*p) {
        size_t word = strcspn(p, " ");
        if (col > indent && col + 1 + (int)word > HELP_WIDTH) {
            fprintf(f, "\n%*s", indent, "");
            col = indent;
        } else if (col > indent) {
            fputc(' ', f);
            col++;
        }
        fwrite(p, 1, word, f);
        col += (int)word;
        p += word;
        while (*p == ' ')
            p++;
    }
    fputc('\n', f);
}

void harness_cli_help(FILE *f, const harness_cli_command *cmd)
{
    for (size_t i = 0; cmd->synopsis[i]; i++)
        fprintf(f, "%s harness %s %s\n", i ? "      " : "usage:", cmd->name, cmd->synopsis[i]);
    if (cmd->about)
        fprintf(f, "\n%s", cmd->about);
    fputs("\noptions:\n", f);
    for (size_t i = 0; i < cmd->n_options; i++) {
        const harness_cli_option *o = &cmd->options[i];
        int n = o->letter ? fprintf(f, "  -%c, --%s", o->letter, o->name) : fprintf(f, "      --%s", o->name);
        if (o->arg)
            n += fprintf(f, " %s", o->arg);
        if (n + 2 > HELP_COLUMN)
            fprintf(f, "\n%*s", HELP_COLUMN, "");
        else
            fprintf(f, "%*s", HELP_COLUMN - n, "");
        wrap(f, o->help, HELP_COLUMN);
    }
    if (cmd->exit_codes)
        fprintf(f, "\nexit: %s", cmd->exit_codes);
    fprintf(f, "\nman harness-%s: the manual, every option in full\n", cmd->name);
}

/* The option of the table that getopt's optopt names and that takes a
 * value, when word is that option as typed (-o, --output-dir, --out). */
static const harness_cli_option *needs_value(const harness_cli_command *cmd, const char *word, int optopt_value)
{
    for (size_t i = 0; optopt_value && i < cmd->n_options; i++) {
        const harness_cli_option *o = &cmd->options[i];
        if (!o->arg || (o->letter ? o->letter : o->id) != optopt_value)
            continue;
        if (word[0] == '-' && word[1] == '-' && word[2] && strncmp(o->name, word + 2, strlen(word + 2)) == 0)
            return o;
        if (o->letter && word[0] == '-' && word[1] != '-' && strchr(word + 1, o->letter))
            return o;
    }
    return NULL;
}

int harness_cli_bad_option(const harness_cli_command *cmd, const char *word, int optopt_value, harness_error *err)
{
    const harness_cli_option *o = needs_value(cmd, word, optopt_value);
    if (o)
        return harness_error_set(err, HARNESS_EXIT_USAGE, "%s: --%s needs a value (%s); see `harness %s --help`",
                                 cmd->name, o->name, o->arg, cmd->name);
    /* "--quite", "--quite=1" and "-quite" are all the word "quite" */
    char typed[64];
    const char *w = word + strspn(word, "-");
    snprintf(typed, sizeof typed, "%.*s", (int)strcspn(w, "="), w);
    const char *names[HARNESS_CLI_MAX_OPTIONS];
    for (size_t i = 0; i < cmd->n_options; i++)
        names[i] = cmd->options[i].name;
    const char *near = strlen(typed) > 1 ? harness_suggest(typed, names, cmd->n_options) : NULL;
    return harness_error_set(err, HARNESS_EXIT_USAGE, "%s: unknown option '%s'%s%s%s; see `harness %s --help`",
                             cmd->name, word, near ? " (did you mean --" : "", near ? near : "", near ? "?)" : "",
                             cmd->name);
}

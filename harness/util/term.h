/* term.h - what a terminal gets that a pipe does not: colour and a width.
 *
 * Colour follows the common convention (no-color.org, hyperfine, git):
 * --color always|never decides; auto (the default) colours a stream only
 * when it is a terminal, NO_COLOR is unset or empty, and TERM is not
 * "dumb". */
#ifndef HARNESS_TERM_H
#define HARNESS_TERM_H

#include <stdio.h>

typedef enum { HARNESS_COLOR_AUTO, HARNESS_COLOR_NEVER, HARNESS_COLOR_ALWAYS } harness_color_mode;

/* "auto" | "never" | "always" into *mode; -1 on anything else. */
int harness_color_parse(const char *text, harness_color_mode *mode);

/* --color's value into *mode, or exit 2 (usage) with err naming it. */
struct harness_error;
int harness_color_option(const char *text, harness_color_mode *mode, struct harness_error *err);

/* Decide, once per process, for stdout and stderr. */
void harness_color_init(harness_color_mode mode);

/* Whether f (stdout or stderr) is coloured; 0 before harness_color_init. */
int harness_color_on(FILE *f);

/* SGR codes for the words a reader looks for. */
#define HARNESS_SGR_RED "\033[31m"
#define HARNESS_SGR_GREEN "\033[32m"
#define HARNESS_SGR_YELLOW "\033[33m"
#define HARNESS_SGR_BOLD_RED "\033[1;31m"
#define HARNESS_SGR_RESET "\033[0m"

/* The columns a table on stdout may use: $COLUMNS when it is a positive
 * number, else the terminal's width when stdout is one, else 0 (no limit:
 * a pipe or a file gets every column). */
int harness_term_width(void);

#endif

/* markdown_escape.h - text into markdown (GitHub's): the escapers every
 * markdown printer uses (printer.h), each keeping its text on one line. */
#ifndef HARNESS_COMPARE_MARKDOWN_ESCAPE_H
#define HARNESS_COMPARE_MARKDOWN_ESCAPE_H

#include <stdio.h>

/* Text in a table cell or a list: markdown's specials backslash-escaped. */
void harness_md_text(FILE *f, const char *s);

/* A code span: only '|' (which ends a table cell even there) and '`' (made
 * a quote) need care. */
void harness_md_code(FILE *f, const char *s);

/* Text in a table cell kept as it is but for '|' (escaped: it would end the
 * cell) and line breaks (spaces); nothing when s is NULL. */
void harness_md_cell(FILE *f, const char *s);

#endif

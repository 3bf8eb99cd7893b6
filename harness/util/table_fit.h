/* table_fit.h - a text table narrowed to a terminal's width: one column
 * shortened first (its cells cut with "..."), then whole columns dropped
 * in the order given, the least useful first. */
#ifndef HARNESS_TABLE_FIT_H
#define HARNESS_TABLE_FIT_H

#include <stddef.h>
#include <stdio.h>

typedef struct harness_table_fit {
    int n_cols;
    size_t *width;                 /* in: each column's widest cell; out: the width shown */
    unsigned char *shown;          /* out: 1 for the columns kept */
    int shrink_col;                /* the column cut before any is dropped, or -1 */
    size_t shrink_min;             /* how narrow it may get */
    const int *drop;               /* columns to drop, in order */
    int n_drop;
    size_t gap;                    /* spaces between columns */
} harness_table_fit;

/* Fit the table into `limit` columns (0: no limit, everything shown). The
 * columns not in `drop` always stay, so a very narrow terminal gets a
 * table wider than itself rather than no verdict. Returns the width used. */
size_t harness_table_fit_to(harness_table_fit *t, int limit);

/* cell, cut to `width` with "..." at its end when longer, into buf. */
const char *harness_table_cut(const char *cell, size_t width, char *buf, size_t cap);

/* The columns s takes on a terminal: a UTF-8 character is one, an SGR
 * escape (colour) none. For counting what a line shows, not its bytes. */
size_t harness_text_columns(const char *s);

/* text onto f, each of its lines that is wider than `width` columns broken
 * at spaces into lines of at most `width`; a continuation line keeps the
 * line's own leading spaces plus `indent` more. A word wider than the room
 * (a long path) stands whole on a line of its own, so it can be copied.
 * width <= 0: text as it is (a pipe, --wide). */
void harness_wrap_fputs(FILE *f, const char *text, int width, int indent);

#endif

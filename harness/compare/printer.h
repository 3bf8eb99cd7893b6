/* printer.h - the formats of the reports: one printer per format, each a
 * function per record it can print (the comparison of `harness compare`
 * and `harness ab`, the history of `harness history`), chosen by the name
 * the CLI's --format passes (Google Benchmark's reporters and nvbench's
 * printers are the model: one implementation per format over one record).
 *
 * A printer prints a whole record in one call: the text table fits its
 * columns to every row and JSON is one tree, so rows are not streamed; a
 * record is small (a few hundred rows at most).
 *
 * The printers (printer.c's table), one file per record and format:
 *   text       print_comparison_text.c      print_history_text.c
 *   markdown   print_comparison_markdown.c  print_history_markdown.c
 *   json       print_comparison_json.c      print_history_json.c
 *   html       -                            print_history_html.c (its chart: print_history_chart.c)
 *   junit      print_comparison_junit.c     -
 * with what the formats of one record share in print_comparison.c and
 * print_history.c (cells, the method in words), and what every format
 * shares elsewhere: numbers in util/format.h, HTML escaping in util/html.h,
 * markdown escaping in markdown_escape.h, JSON's last newline in print_json.h.
 *
 * To add a format (JUnit XML, Google Benchmark JSON, a PR comment, a
 * dashboard):
 *   1. write print_<record>_<format>.c with harness_print_<record>_<format>
 *      for each record the format can say (declared in print_<record>.h),
 *      built from the shared cells and formatters above, not new ones;
 *   2. add its row to the table in printer.c (NULL for a record it cannot
 *      print: --format then refuses it for that command, and the error lists
 *      the formats that can);
 *   3. add the file to Makefile.am, a golden output of the fixed records to
 *      tests/unit/printers/ with its case in tests/unit/test_printers.c, and
 *      the word to --format in man/harness.1 and the shell completion. */
#ifndef HARNESS_COMPARE_PRINTER_H
#define HARNESS_COMPARE_PRINTER_H

#include <stddef.h>
#include <stdio.h>

#include "compare/compare.h"
#include "compare/history.h"
#include "util/error.h"

/* What a printer prints to f; 0, or -1 out of memory. `style` is the text
 * format's (colour, width); the others ignore it. */
typedef int (*harness_print_comparison_fn)(FILE *f, const harness_comparison *c, const harness_text_style *style);
typedef int (*harness_print_history_fn)(FILE *f, const harness_history *h);

typedef struct harness_printer {
    const char *name;              /* the --format word */
    const char *alias;             /* another word for it ("md"), or NULL */
    harness_print_comparison_fn comparison;   /* NULL: the format has no comparison */
    harness_print_history_fn history;         /* NULL: no history */
} harness_printer;

/* The records a printer prints. */
typedef enum { HARNESS_RECORD_COMPARISON, HARNESS_RECORD_HISTORY } harness_record;

/* The printer --format `name` names for record r, or NULL when no printer of
 * that name prints it. */
const harness_printer *harness_printer_find(const char *name, harness_record r);

/* "text, markdown, json or junit": the formats that print record r, into buf. */
const char *harness_printer_names(harness_record r, char *buf, size_t cap);

/* --format ARG for record r: the printer into *out; else exit code 2 with
 * "--format: expected text, markdown, json or junit, got 'ARG'" (the formats that
 * print r) in *err. */
int harness_printer_parse(const char *arg, harness_record r, const harness_printer **out, harness_error *err);

/* The report as a malloc'ed string; NULL out of memory. */
char *harness_print_comparison(const harness_printer *p, const harness_comparison *c,
                               const harness_text_style *style);
char *harness_print_history(const harness_printer *p, const harness_history *h);

#endif

/* printer.c - the table of printers and the one lookup by format name
 * (printer.h says how to add one). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE                /* open_memstream */
#endif
#include "compare/printer.h"

#include <stdlib.h>
#include <string.h>

#include "compare/print_comparison.h"
#include "compare/print_history.h"

static const harness_printer printers[] = {
    {"text", NULL, harness_print_comparison_text, harness_print_history_text},
    {"markdown", "md", harness_print_comparison_markdown, harness_print_history_markdown},
    {"json", NULL, harness_print_comparison_json, harness_print_history_json},
    {"html", NULL, NULL, harness_print_history_html},
    {"junit", NULL, harness_print_comparison_junit, NULL},
};
enum { N_PRINTERS = sizeof printers / sizeof printers[0] };

static int prints(const harness_printer *p, harness_record r)
{
    return r == HARNESS_RECORD_COMPARISON ? p->comparison != NULL : p->history != NULL;
}

const harness_printer *harness_printer_find(const char *name, harness_record r)
{
    for (size_t i = 0; i < N_PRINTERS; i++) {
        const harness_printer *p = &printers[i];
        if (prints(p, r) && (strcmp(name, p->name) == 0 || (p->alias && strcmp(name, p->alias) == 0)))
            return p;
    }
    return NULL;
}

const char *harness_printer_names(harness_record r, char *buf, size_t cap)
{
    size_t n = 0, k = 0, len = 0;
    for (size_t i = 0; i < N_PRINTERS; i++)
        n += prints(&printers[i], r);
    buf[0] = '\0';
    for (size_t i = 0; i < N_PRINTERS; i++) {
        if (!prints(&printers[i], r))
            continue;
        const char *sep = k == 0 ? "" : k + 1 == n ? " or " : ", ";
        int w = snprintf(buf + len, cap - len, "%s%s", sep, printers[i].name);
        if (w < 0 || (size_t)w >= cap - len)
            break;
        len += (size_t)w;
        k++;
    }
    return buf;
}

int harness_printer_parse(const char *arg, harness_record r, const harness_printer **out, harness_error *err)
{
    char buf[256];
    *out = harness_printer_find(arg, r);
    if (*out)
        return 0;
    return harness_error_set(err, HARNESS_EXIT_USAGE, "--format: expected %s, got '%s'", harness_printer_names(r, buf, sizeof buf),
                             arg);
}

/* The printer's output to a memory stream, as one string. */
typedef int (*print_fn)(FILE *f, const harness_printer *p, const void *record, const harness_text_style *style);

static char *to_string(print_fn print, const harness_printer *p, const void *record, const harness_text_style *style)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    int rc = print(f, p, record, style);
    if (fclose(f) != 0 || rc != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

static int comparison_to(FILE *f, const harness_printer *p, const void *record, const harness_text_style *style)
{
    return p->comparison(f, record, style);
}

static int history_to(FILE *f, const harness_printer *p, const void *record, const harness_text_style *style)
{
    (void)style;
    return p->history(f, record);
}

char *harness_print_comparison(const harness_printer *p, const harness_comparison *c,
                               const harness_text_style *style)
{
    static const harness_text_style plain;
    return to_string(comparison_to, p, c, style ? style : &plain);
}

char *harness_print_history(const harness_printer *p, const harness_history *h)
{
    return to_string(history_to, p, h, NULL);
}

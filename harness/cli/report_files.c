/* report_files.c - --report FORMAT=FILE (report_files.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE                /* strndup */
#endif
#include "cli/report_files.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/fsutil.h"

/* The folder FILE goes into must exist and take new files: the temporary
 * and the rename need both. */
static int check_writable(const char *path, harness_error *err)
{
    const char *slash = strrchr(path, '/');
    char *dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
    if (!dir)
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "out of memory");
    int rc = 0;
    if (access(dir, W_OK | X_OK) != 0)
        rc = harness_error_set(err, HARNESS_EXIT_RUNTIME, "--report: cannot write %s: folder %s: %s", path, dir,
                               strerror(errno));
    free(dir);
    return rc;
}

int harness_report_files_add(harness_report_files *r, const char *arg, harness_error *err)
{
    const char *eq = strchr(arg, '=');
    char names[256], format[64];
    harness_printer_names(HARNESS_RECORD_COMPARISON, names, sizeof names);
    if (!eq || eq == arg || !eq[1])
        return harness_error_set(err, HARNESS_EXIT_USAGE, "--report: expected FORMAT=FILE (FORMAT %s), got '%s'",
                                 names, arg);
    snprintf(format, sizeof format, "%.*s", (int)(eq - arg), arg);
    const harness_printer *p = harness_printer_find(format, HARNESS_RECORD_COMPARISON);
    if (!p)
        return harness_error_set(err, HARNESS_EXIT_USAGE, "--report %s: unknown format '%s'; expected %s", arg,
                                 format, names);
    if (r->n == HARNESS_MAX_REPORT_FILES)
        return harness_error_set(err, HARNESS_EXIT_USAGE, "--report %s: at most %d reports", arg,
                                 HARNESS_MAX_REPORT_FILES);
    if (check_writable(eq + 1, err) != 0)
        return err->code;
    r->printer[r->n] = p;
    r->path[r->n++] = eq + 1;
    return 0;
}

int harness_report_files_write(const harness_report_files *r, const harness_comparison *c, harness_error *err)
{
    int rc = 0;
    for (size_t i = 0; i < r->n; i++) {
        harness_error e = {0};
        char *text = harness_print_comparison(r->printer[i], c, NULL);
        if (!text)
            harness_error_set(&e, HARNESS_EXIT_RUNTIME, "--report: out of memory writing %s", r->path[i]);
        else
            harness_write_atomic(r->path[i], text, strlen(text), &e);
        free(text);
        if (e.code && rc == 0)
            rc = harness_error_set(err, e.code, "--report: cannot write %s (%s)", r->path[i], e.msg);
    }
    return rc;
}

/* error.h - errors as exit codes plus a message, passed up instead of exiting. */
#ifndef HARNESS_ERROR_H
#define HARNESS_ERROR_H

#include <stdarg.h>

/* Exit codes (docs/ARCHITECTURE.md section 9). */
enum {
    HARNESS_EXIT_OK = 0,
    HARNESS_EXIT_VERDICT = 1,      /* regression found, validation mismatch */
    HARNESS_EXIT_USAGE = 2,        /* usage or config error */
    HARNESS_EXIT_RUNTIME = 3,      /* device, plugin, I/O */
    HARNESS_EXIT_INTERRUPTED = 130
};

typedef struct harness_error {
    int code;                      /* one of HARNESS_EXIT_*; 0 when no error */
    char msg[2048];                /* without the "harness: " prefix */
} harness_error;

/* Set err (if not NULL) and return `code`, so callers can `return harness_error_set(...)`. */
int harness_error_set(harness_error *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int harness_error_vset(harness_error *err, int code, const char *fmt, va_list ap);

/* Print "harness: <msg>" to stderr and return err->code. */
/* Errors reported from here on name this rank (a job of several ranks). */
void harness_error_set_rank(int rank, int world_size);
/* That prefix ("rank 1 of 4: ", or ""), for messages printed without an error. */
const char *harness_error_rank_label(void);
int harness_error_report(const harness_error *err);

#endif

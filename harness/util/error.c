#include "util/error.h"

#include <stdio.h>

int harness_error_vset(harness_error *err, int code, const char *fmt, va_list ap)
{
    if (err) {
        err->code = code;
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    }
    return code;
}

int harness_error_set(harness_error *err, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    harness_error_vset(err, code, fmt, ap);
    va_end(ap);
    return code;
}

int harness_error_report(const harness_error *err)
{
    fprintf(stderr, "harness: %s\n", err->msg);
    return err->code;
}

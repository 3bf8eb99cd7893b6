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

/* "rank 1 of 4: " in a multi-rank job, so that interleaved stderr says
 * whose error it is; "" alone. */
static char rank_label[48];

void harness_error_set_rank(int rank, int world_size)
{
    if (world_size > 1)
        snprintf(rank_label, sizeof rank_label, "rank %d of %d: ", rank, world_size);
    else
        rank_label[0] = '\0';
}

const char *harness_error_rank_label(void)
{
    return rank_label;
}

int harness_error_report(const harness_error *err)
{
    fprintf(stderr, "harness: %s%s\n", rank_label, err->msg);
    return err->code;
}

/* db_timeout.c - the results database's lock timeout from the command
 * line or the environment (db_timeout.h). */
#include "cli/db_timeout.h"

#include <math.h>
#include <stdlib.h>

#include "compare/db_wait.h"

/* text as seconds; 0 when it is one, else -1. */
static int parse_seconds(const char *text, double *out)
{
    char *end;
    double v = strtod(text, &end);
    if (end == text || *end || !isfinite(v) || v < 0 || v > HARNESS_DB_TIMEOUT_MAX_S)
        return -1;
    *out = v;
    return 0;
}

int harness_cli_db_timeout(const char *option, double *out, harness_error *err)
{
    *out = HARNESS_DB_TIMEOUT_DEFAULT_S;
    const char *env = getenv("HARNESS_DB_TIMEOUT");
    const char *text = option ? option : env && env[0] ? env : NULL;
    if (!text)
        return 0;
    if (parse_seconds(text, out) != 0)
        return harness_error_set(err, HARNESS_EXIT_USAGE, "%s '%s' is not a number of seconds from 0 to %.0f (how "
                                 "long to wait for the database's lock; the default is %.0f)",
                                 option ? "--db-timeout" : "HARNESS_DB_TIMEOUT", text, HARNESS_DB_TIMEOUT_MAX_S,
                                 HARNESS_DB_TIMEOUT_DEFAULT_S);
    return 0;
}

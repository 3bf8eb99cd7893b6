/* db_timeout.h - how long a command waits for the results database's lock:
 * record's --db-timeout, else the HARNESS_DB_TIMEOUT variable (every
 * command that opens a database: record, history, compare --baseline-db),
 * else HARNESS_DB_TIMEOUT_DEFAULT_S (compare/db_wait.h). */
#ifndef HARNESS_CLI_DB_TIMEOUT_H
#define HARNESS_CLI_DB_TIMEOUT_H

#include "util/error.h"

/* option: --db-timeout's value, or NULL when not given. Seconds, a number
 * from 0 (do not wait) to a day. Errors: 2 naming the option or the variable. */
int harness_cli_db_timeout(const char *option, double *out, harness_error *err);

#endif

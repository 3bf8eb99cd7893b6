/* db_wait.h - how a results-database connection waits for another
 * process's lock: exponential back-off with jitter, bounded by a total
 * time, and the time actually spent waiting (so record can say it waited).
 *
 * SQLite's own busy timeout (sqlite3_busy_timeout) polls on a fixed short
 * schedule and has no notion of a total over several statements or
 * retries; CI finishing a dozen jobs at once needs minutes of patience and
 * waiters that do not all wake together. */
#ifndef HARNESS_DB_WAIT_H
#define HARNESS_DB_WAIT_H

/* The default total wait: a CI job would rather wait than lose a record,
 * and a dozen big records each hold the lock for seconds. */
#define HARNESS_DB_TIMEOUT_DEFAULT_S 300.0
/* The longest accepted --db-timeout / HARNESS_DB_TIMEOUT: a day. */
#define HARNESS_DB_TIMEOUT_MAX_S 86400.0
/* A wait at least this long is reported on stderr. */
#define HARNESS_DB_WAIT_NOTE_S 2.0

typedef struct harness_db_wait {
    double timeout_s;              /* the total allowed, over every wait of the connection */
    double waited_s;               /* slept so far */
    unsigned seed;                 /* jitter, per process */
} harness_db_wait;

void harness_db_wait_init(harness_db_wait *w, double timeout_s);

/* The pause before try `attempt` (0, 1, ...): 1 ms doubling up to 100 ms,
 * scaled by a jitter factor u in [0, 1) to between half and all of it, so
 * that waiters released together do not collide again. Pure. */
double harness_db_backoff_s(int attempt, double u);

/* Sleep the back-off of `attempt`, cut to what is left of the timeout.
 * 0 when the timeout is spent (nothing slept), 1 after sleeping. */
int harness_db_wait_pause(harness_db_wait *w, int attempt);

/* For sqlite3_busy_handler: `arg` is a harness_db_wait. */
int harness_db_wait_busy(void *arg, int count);

#endif

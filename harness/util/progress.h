/* progress.h - the progress line of the commands that run for a while
 * (`ab`'s validation and rounds, `run --runs N` and suites), as hyperfine
 * shows one: "ab: round 3/10  01-spin cand  12.1 s  ETA 28 s" on stderr,
 * rewritten in place on a terminal; nothing when stderr is not a terminal
 * (a log or a pipe gets no \r litter) or with --quiet.
 *
 * The line ends with \r, the cursor at its start, so that what a child
 * process prints meanwhile (a run's warnings) overwrites it rather than
 * trailing it; harness_progress_clear before printing anything else. */
#ifndef HARNESS_PROGRESS_H
#define HARNESS_PROGRESS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct harness_progress {
    FILE *f;                       /* stderr on a terminal, else NULL: silent */
    char what[64];                 /* "ab: round", "run" */
    size_t total;                  /* items, 0 unknown */
    uint64_t t0_ns;
} harness_progress;

/* Start a line of `total` items (0: stages of unknown length, shown as
 * "WHAT: DETAIL  E s" without count or ETA); quiet, or stderr not a terminal, and
 * nothing is ever shown. */
void harness_progress_start(harness_progress *p, const char *what, size_t total, int quiet);

/* Show item `done + 1` of total starting (done items finished), with a
 * detail ("01-spin cand"); the ETA is the mean time of the done ones times
 * those left. */
void harness_progress_show(harness_progress *p, size_t done, const char *detail);

/* The total changed (ab's --time-budget sized the rounds). */
void harness_progress_total(harness_progress *p, size_t total);

/* Erase the line (before other output, and at the end). */
void harness_progress_clear(harness_progress *p);

/* The line's text, for the tests: "WHAT I/N  DETAIL  E s  ETA R s". */
void harness_progress_text(char *out, size_t cap, const char *what, size_t done, size_t total, const char *detail,
                           double elapsed_s);

#endif

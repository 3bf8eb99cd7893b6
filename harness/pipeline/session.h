/* session.h - what one `harness run` process sets up once and every sweep
 * point shares: its options, its place among the ranks, and the backend
 * (opened on first use; the CPU's clock is calibrated once). */
#ifndef HARNESS_PIPELINE_SESSION_H
#define HARNESS_PIPELINE_SESSION_H

#include "backend/backend.h"
#include "util/error.h"
#include "dist/dist.h"

typedef struct harness_session {
    int quiet;                     /* --quiet: only paths on stdout, warnings at the end */
    int allow_above_peak;          /* --allow-above-peak: an impossible figure is a warning, the run ok
                                    * (report/impossible_figure.h); set after init */
    int width;                     /* the columns the printed table may use; 0 every column (a pipe,
                                    * --wide; util/term.h); set after init */
    harness_dist dist;
    harness_backend backend;
    int backend_open;
    char *deferred;                /* --quiet: warning lines kept for the end of the run */
    size_t deferred_len;
} harness_session;

/* Finds this process's place among the ranks: alone, or an MPI rank when a
 * launcher started several. 0, or err: exit 2 when a launcher started ranks
 * that this build (without MPI) cannot join, 3 when MPI fails. */
int harness_session_init(harness_session *s, int quiet, harness_error *err);

/* The backend for a resolved device, opened (or reopened for another
 * device) on demand. NULL with err set when it cannot be opened. */
harness_backend *harness_session_backend(harness_session *s, const char *device, const harness_backend_options *opts,
                                        harness_error *err);

/* A point's warnings: on stderr now, or with --quiet kept (each line naming
 * the point's folder, as the README says) and printed once by
 * harness_session_end, after every path. */
struct harness_warnings;
void harness_session_warn(harness_session *s, const struct harness_warnings *w, const char *dir);

void harness_session_end(harness_session *s);

#endif

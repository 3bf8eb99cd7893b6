/* run_point.h - run one planned config (one sweep point) in a session. */
#ifndef HARNESS_PIPELINE_RUN_POINT_H
#define HARNESS_PIPELINE_RUN_POINT_H

#include "pipeline/plan.h"
#include "pipeline/session.h"

/* What the sweep's final table shows of one point. */
typedef struct harness_point_result {
    const char *status;            /* the summary's, or "not run" */
    double median_ns;              /* 0 when nothing was measured */
    double gbps, gflops;           /* 0 when unknown */
    char *dir;                     /* the experiment folder, malloc'ed; NULL when none */
} harness_point_result;

/* Write the point's experiment folder and print its table (or, with
 * --quiet, its folder). Returns the exit code; errors are reported. */
int harness_run_point(harness_session *session, const harness_plan *p, harness_point_result *res);

#endif

/* plan_request.h - what a command asks of a plan (pipeline/plan.h). */
#ifndef HARNESS_PIPELINE_PLAN_REQUEST_H
#define HARNESS_PIPELINE_PLAN_REQUEST_H

#include <stddef.h>

/* What the command asks for; the strings belong to the caller. */
typedef struct harness_plan_request {
    const char *config_path;
    const char *const *sets;       /* --set KEY=VALUE, applied before validation */
    size_t n_sets;
    const char *const *plugin_paths; /* searched before the config's plugin_path */
    size_t n_plugin_paths;
    const char *output_dir;        /* overrides experiment.output_dir, or NULL */
    const char *device;            /* overrides device, or NULL */
    int device_may_be_absent;      /* validate: check a cuda config on a machine without a GPU */
    double time_budget_s;          /* run --time-budget: > 0 sizes the windows (run/time_budget.h); 0 none */
} harness_plan_request;

#endif

/* plan.h - what one run will do, settled before anything runs: the config
 * resolved for one sweep point, its variant found and parameters bound, the
 * device, the schedule the runner gets, and the folder's hash. Built from a
 * request (what the command line asked for) by the config and plugin stages;
 * every input error is found here, before a folder exists. */
#ifndef HARNESS_PIPELINE_PLAN_H
#define HARNESS_PIPELINE_PLAN_H

#include <stddef.h>

#include "config/config.h"
#include "pipeline/plan_request.h"
#include "plugin/registry.h"
#include "run/runner.h"
#include "util/error.h"

/* What the run writes from the plan: the folder's place and name, and the
 * config's two copies in it. */
typedef struct harness_plan_outputs {
    const char *config_path;       /* the config as given, copied byte for byte */
    const char *output_dir;        /* where the folder goes */
    char *resolved_yaml;           /* canonical dump: resolved_config.yaml */
    char hash8[9];                 /* names the folder */
} harness_plan_outputs;

typedef struct harness_plan {
    harness_config *cfg;
    harness_registry registry;
    int registry_ready;
    const harness_variant_entry *entry;
    const char *device;            /* resolved: "cpu" | "cuda" */
    harness_schedule schedule;     /* the runner's part of cfg */
    harness_plan_outputs out;
    char device_unchecked[512];    /* why the device could not be checked (validate without it), or "" */
} harness_plan;

/* The plan of one point of the config's sweep (0 when it has none). On
 * failure *p may hold parts: free it with harness_plan_free. */
int harness_plan_point(const harness_plan_request *req, size_t point, harness_plan *p, harness_error *err);

/* Plan (and free) every point after `first` (point 0, planned): so that a
 * sweep with one bad point is refused before anything runs. */
int harness_plan_sweep(const harness_plan_request *req, const harness_plan *first, harness_error *err);

void harness_plan_free(harness_plan *p);

/* The point's name as `--filter` sees it: "EXPERIMENT VARIANT [KEY=VALUE ...]". */
const char *harness_plan_bench_name(const harness_plan *p, char *buf, size_t cap);

/* Plugins from the request's plugin paths and the config's plugin_path (cfg
 * may be NULL), then the rest of the search path. */
int harness_plan_load_plugins(harness_registry *reg, const harness_plan_request *req, const harness_config *cfg,
                              harness_error *err);

#endif

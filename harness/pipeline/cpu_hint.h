/* cpu_hint.h - the command that runs a GPU config on the CPU, for the error
 * a machine without a GPU gives. */
#ifndef HARNESS_PIPELINE_CPU_HINT_H
#define HARNESS_PIPELINE_CPU_HINT_H

#include "config/config.h"
#include "pipeline/plan_request.h"
#include "plugin/registry.h"
#include "util/error.h"

/* Appends "; to run it on the CPU: harness run CONFIG --device cpu [--set
 * component.variant_key=F/cpu] [the user's --set...]" to err->msg when a CPU
 * variant of the config's family in reg takes its parameters; else appends
 * nothing. */
void harness_append_cpu_hint(const harness_plan_request *req, harness_config *cfg, const harness_registry *reg,
                             harness_error *err);

#endif

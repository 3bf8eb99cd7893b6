/* services.h - the table of services the host hands every plugin. */
#ifndef HARNESS_RUN_SERVICES_H
#define HARNESS_RUN_SERVICES_H

#include "harness/plugin.h"

/* The table plugins get: registration, logging and failing (plugin/context.h),
 * the services of a component instance (run/instance.h) and the
 * collectives (run/collectives.h). */
const harness_services *harness_host_services(void);

#endif

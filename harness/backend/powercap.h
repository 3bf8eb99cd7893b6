/* powercap.h - the CPU packages' energy counters from Linux powercap (RAPL:
 * <root>/intel-rapl:N/energy_uj, microjoules, wrapping at
 * max_energy_range_uj), where the kernel offers and lets us read them.
 * Stateless: every read walks the tree again (a few small files, outside
 * the timed steps), so the CPU backend keeps nothing to free. */
#ifndef HARNESS_POWERCAP_H
#define HARNESS_POWERCAP_H

#include "backend/backend.h"

/* Where Linux puts the tree; HARNESS_POWERCAP_ROOT replaces it (tests point
 * it at a fake tree). */
#define HARNESS_POWERCAP_ROOT "/sys/class/powercap"

/* RAPL's energy status registers update about every millisecond (Intel
 * SDM, "RAPL interfaces"): the time resolution of a read. */
#define HARNESS_POWERCAP_PERIOD_S 1e-3

/* Look for the package domains under root (the top-level intel-rapl:N
 * zones whose name starts with "package"; psys and the sub-zones overlap
 * them) and fill src: its name and period, or src->missing saying why
 * there is none (no such zone: a VM; energy_uj unreadable: root only since
 * Linux 5.10). 0 found, -1 none. */
int harness_powercap_probe(const char *root, harness_energy_source *src);

/* Every package domain's counter now, in zone order, with its wrap range.
 * 0, or -1 when the zones changed or a file could not be read. */
int harness_powercap_read(const char *root, harness_energy_reading *out);

#endif

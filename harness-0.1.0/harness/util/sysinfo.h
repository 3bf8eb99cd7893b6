/* sysinfo.h - facts about this machine from /proc and /sys that bear on how
 * far a timing can be trusted: caches, frequency scaling, load, affinity. */
#ifndef HARNESS_SYSINFO_H
#define HARNESS_SYSINFO_H

#include <stddef.h>

/* Size of cpu0's cache at `level` of `type` ("Data", "Instruction",
 * "Unified"; "Data" also matches a unified cache) as sysfs writes it
 * ("32K"), or "unknown". */
const char *harness_cache_size(int level, const char *type, char *out, size_t cap);

/* cpu0's cpufreq scaling governor ("performance", "powersave", ...), or
 * "unavailable (...)" saying why (no cpufreq driver: a VM, a container
 * without /sys, or a kernel without frequency scaling). */
const char *harness_scaling_governor(char *out, size_t cap);

/* The 1, 5 and 15 minute load averages of /proc/loadavg; 0 when it reads,
 * -1 (and all NAN) when it does not. */
int harness_loadavg(double load[3]);

/* CPUs this process may run on (sched_getaffinity), or the online CPUs when
 * the mask cannot be read. taskset, cgroups' cpusets and mpirun's binding
 * all shrink it below the machine's count. */
int harness_affinity_cpus(void);

/* This executable's path (/proc/self/exe), or "unknown". */
const char *harness_executable_path(char *out, size_t cap);

#endif

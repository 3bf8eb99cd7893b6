/* cpu_caches.h - how much data all of this machine's CPU caches hold
 * together, from sysfs: the bound on what a step's data can keep on chip
 * between steps (report/impossible_figure.h). Every data or unified cache
 * of every online CPU counts once (a cache shared by several CPUs lists
 * them all in shared_cpu_list). */
#ifndef HARNESS_CPU_CACHES_H
#define HARNESS_CPU_CACHES_H

/* Bytes, or 0 when sysfs says nothing (a container without it): then no
 * bound can be set, and the caller says so rather than guess. */
double harness_cpu_cache_bytes(void);

/* The same under another root than /sys/devices/system/cpu (tests). */
double harness_cpu_cache_bytes_at(const char *cpu_dir);

/* sysfs's "size" ("32K", "1024K", "32M"): bytes, or -1 when unreadable. */
double harness_cpu_cache_size_parse(const char *text);

#endif

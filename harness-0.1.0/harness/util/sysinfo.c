#ifndef _GNU_SOURCE
#define _GNU_SOURCE                /* sched_getaffinity, CPU_COUNT */
#endif

#include "util/sysinfo.h"

#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CACHE_DIR "/sys/devices/system/cpu/cpu0/cache"
#define GOVERNOR_PATH "/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"

/* The first line of a small file, newline dropped; -1 (errno set) when it
 * cannot be read or is empty. */
static int read_line(const char *path, char *out, size_t cap)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    int ok = fgets(out, (int)cap, f) != NULL;
    fclose(f);
    if (!ok) {
        errno = ENODATA;
        return -1;
    }
    out[strcspn(out, "\n")] = '\0';
    return out[0] ? 0 : -1;
}

static int cache_attr(int index, const char *attr, char *out, size_t cap)
{
    char path[128];
    snprintf(path, sizeof path, CACHE_DIR "/index%d/%s", index, attr);
    return read_line(path, out, cap);
}

const char *harness_cache_size(int level, const char *type, char *out, size_t cap)
{
    snprintf(out, cap, "unknown");
    /* index0..: L1d, L1i, L2, L3 on most x86; the order is not a contract,
     * so each entry's level and type are read. */
    for (int i = 0; i < 16; i++) {
        char lvl[16], typ[32], size[32];
        if (cache_attr(i, "level", lvl, sizeof lvl) != 0)
            break;
        if (cache_attr(i, "type", typ, sizeof typ) != 0 || cache_attr(i, "size", size, sizeof size) != 0)
            continue;
        int type_ok = strcmp(typ, type) == 0 || (strcmp(type, "Data") == 0 && strcmp(typ, "Unified") == 0);
        if (atoi(lvl) == level && type_ok) {
            snprintf(out, cap, "%s", size);
            break;
        }
    }
    return out;
}

const char *harness_scaling_governor(char *out, size_t cap)
{
    char gov[64];
    if (read_line(GOVERNOR_PATH, gov, sizeof gov) == 0)
        snprintf(out, cap, "%s", gov);
    else if (errno == ENOENT)
        snprintf(out, cap, "unavailable (no cpufreq driver exposes %s: a VM or a kernel without "
                           "frequency scaling)", GOVERNOR_PATH);
    else
        snprintf(out, cap, "unavailable (%s: %s)", GOVERNOR_PATH, strerror(errno));
    return out;
}

int harness_loadavg(double load[3])
{
    load[0] = load[1] = load[2] = NAN;
    FILE *f = fopen("/proc/loadavg", "r");
    if (!f)
        return -1;
    int n = fscanf(f, "%lf %lf %lf", &load[0], &load[1], &load[2]);
    fclose(f);
    if (n == 3)
        return 0;
    load[0] = load[1] = load[2] = NAN;
    return -1;
}

int harness_affinity_cpus(void)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        int n = CPU_COUNT(&set);
        if (n > 0)
            return n;
    }
    return (int)sysconf(_SC_NPROCESSORS_ONLN);
}

const char *harness_executable_path(char *out, size_t cap)
{
    ssize_t n = cap > 1 ? readlink("/proc/self/exe", out, cap - 1) : -1;
    if (n <= 0) {
        snprintf(out, cap, "unknown");
        return out;
    }
    out[n] = '\0';
    return out;
}

/* The sum of the distinct CPU caches (cpu_caches.h). */
#include "util/cpu_caches.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Distinct caches are told apart by level and the CPUs that share them. */
#define MAX_CACHES 4096

double harness_cpu_cache_size_parse(const char *text)
{
    char *end;
    double v = strtod(text, &end);
    if (end == text || !(v >= 0))
        return -1;
    switch (*end) {
    case 'K': v *= 1024; end++; break;
    case 'M': v *= 1024 * 1024; end++; break;
    case 'G': v *= 1024.0 * 1024 * 1024; end++; break;
    default: break;
    }
    return *end == '\0' || *end == '\n' ? v : -1;
}

static int read_attr(const char *dir, int cpu, int index, const char *attr, char *out, size_t cap)
{
    char path[512];
    snprintf(path, sizeof path, "%s/cpu%d/cache/index%d/%s", dir, cpu, index, attr);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    int ok = fgets(out, (int)cap, f) != NULL;
    fclose(f);
    if (!ok)
        return -1;
    out[strcspn(out, "\n")] = '\0';
    return 0;
}

typedef struct cache_id {
    int level;
    char shared[128];
} cache_id;

static int seen_before(const cache_id *ids, size_t n, const cache_id *c)
{
    for (size_t i = 0; i < n; i++)
        if (ids[i].level == c->level && strcmp(ids[i].shared, c->shared) == 0)
            return 1;
    return 0;
}

double harness_cpu_cache_bytes_at(const char *cpu_dir)
{
    cache_id *ids = malloc(MAX_CACHES * sizeof *ids);
    if (!ids)
        return 0;
    size_t n = 0;
    double total = 0;
    /* cpu0, cpu1, ...: offline CPUs have no cache directory and end nothing
     * (numbers may have holes), so a run of misses ends the walk. */
    for (int cpu = 0, misses = 0; cpu < 65536 && misses < 64 && n < MAX_CACHES; cpu++) {
        int found = 0;
        for (int index = 0; index < 16 && n < MAX_CACHES; index++) {
            char level[16], type[32], size[32];
            cache_id c;
            if (read_attr(cpu_dir, cpu, index, "level", level, sizeof level) != 0)
                break;
            found = 1;
            if (read_attr(cpu_dir, cpu, index, "type", type, sizeof type) != 0 ||
                read_attr(cpu_dir, cpu, index, "size", size, sizeof size) != 0 ||
                read_attr(cpu_dir, cpu, index, "shared_cpu_list", c.shared, sizeof c.shared) != 0)
                continue;
            if (strcmp(type, "Instruction") == 0)
                continue;
            c.level = atoi(level);
            double bytes = harness_cpu_cache_size_parse(size);
            if (bytes <= 0 || seen_before(ids, n, &c))
                continue;
            ids[n++] = c;
            total += bytes;
        }
        misses = found ? 0 : misses + 1;
    }
    free(ids);
    return total;
}

double harness_cpu_cache_bytes(void)
{
    return harness_cpu_cache_bytes_at("/sys/devices/system/cpu");
}

/* powercap.c - RAPL package energy through Linux powercap (powercap.h). */
#include "backend/powercap.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The package zones of a tree, by zone number. */
typedef struct zones {
    int index[HARNESS_ENERGY_MAX_COUNTERS];
    char name[HARNESS_ENERGY_MAX_COUNTERS][32];
    int n;
} zones;

/* A small sysfs file's first line into buf (newline dropped). 0, or errno. */
static int read_line(const char *path, char *buf, size_t cap)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return errno;
    ssize_t got = read(fd, buf, cap - 1);
    int e = got < 0 ? errno : 0;
    close(fd);
    if (e)
        return e;
    buf[got] = '\0';
    buf[strcspn(buf, "\n")] = '\0';
    return 0;
}

/* A counter file's value: digits only, as the kernel writes it. */
static int parse_uj(const char *text, double *out)
{
    if (!isdigit((unsigned char)text[0]))
        return -1;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno || *end)
        return -1;
    *out = (double)v;
    return 0;
}

/* "intel-rapl:N" exactly (not "intel-rapl:N:M", a sub-zone): N, else -1. */
static int zone_number(const char *entry)
{
    static const char prefix[] = "intel-rapl:";
    if (strncmp(entry, prefix, sizeof prefix - 1) != 0)
        return -1;
    const char *d = entry + sizeof prefix - 1;
    if (!*d || strlen(d) > 6)
        return -1;
    for (const char *p = d; *p; p++)
        if (!isdigit((unsigned char)*p))
            return -1;
    return atoi(d);
}

static int by_index(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* The package zones under root, sorted by number so that two reads list
 * the counters in the same order. -1 when root cannot be listed. */
static int find_zones(const char *root, zones *z)
{
    memset(z, 0, sizeof *z);
    DIR *d = opendir(root);
    if (!d)
        return -1;
    int all[HARNESS_ENERGY_MAX_COUNTERS], n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        int k = zone_number(e->d_name);
        if (k >= 0 && n < HARNESS_ENERGY_MAX_COUNTERS)
            all[n++] = k;
    }
    closedir(d);
    qsort(all, (size_t)n, sizeof *all, by_index);
    for (int i = 0; i < n; i++) {
        char path[512], name[32];
        snprintf(path, sizeof path, "%s/intel-rapl:%d/name", root, all[i]);
        if (read_line(path, name, sizeof name) != 0 || strncmp(name, "package", 7) != 0)
            continue;
        z->index[z->n] = all[i];
        snprintf(z->name[z->n++], sizeof z->name[0], "%s", name);
    }
    return 0;
}

/* Zone k's counter and range; 0, or the errno of the file that failed
 * (EINVAL: not a number). */
static int read_zone(const char *root, int k, double *uj, double *range_uj)
{
    char path[512], text[64];
    snprintf(path, sizeof path, "%s/intel-rapl:%d/energy_uj", root, k);
    int e = read_line(path, text, sizeof text);
    if (e)
        return e;
    if (parse_uj(text, uj) != 0)
        return EINVAL;
    /* Without a range a wrap cannot be undone: such a zone reads as one
     * that never wraps, and a wrap then shows as a counter gone backwards. */
    snprintf(path, sizeof path, "%s/intel-rapl:%d/max_energy_range_uj", root, k);
    *range_uj = 0;
    if (read_line(path, text, sizeof text) == 0 && parse_uj(text, range_uj) != 0)
        *range_uj = 0;
    return 0;
}

int harness_powercap_probe(const char *root, harness_energy_source *src)
{
    src->name[0] = src->missing[0] = '\0';
    src->period_s = 0;
    zones z;
    if (find_zones(root, &z) != 0 || z.n == 0) {
        snprintf(src->missing, sizeof src->missing, "not available: no RAPL package zone under %.200s (a virtual "
                 "machine, or a CPU or kernel without powercap RAPL)", root);
        return -1;
    }
    double uj, range;
    int e = read_zone(root, z.index[0], &uj, &range);
    if (e) {
        snprintf(src->missing, sizeof src->missing, "not available: %.200s/intel-rapl:%d/energy_uj: %s%s", root,
                 z.index[0], e == EINVAL ? "not a number" : strerror(e),
                 e == EACCES ? " (root only since Linux 5.10; run as root or make it readable)" : "");
        return -1;
    }
    size_t len = (size_t)snprintf(src->name, sizeof src->name, "powercap RAPL");
    for (int i = 0; i < z.n && len < sizeof src->name; i++)
        len += (size_t)snprintf(src->name + len, sizeof src->name - len, "%s%s", i ? " + " : " ", z.name[i]);
    src->period_s = HARNESS_POWERCAP_PERIOD_S;
    return 0;
}

int harness_powercap_read(const char *root, harness_energy_reading *out)
{
    memset(out, 0, sizeof *out);
    zones z;
    if (find_zones(root, &z) != 0 || z.n == 0)
        return -1;
    for (int i = 0; i < z.n; i++) {
        double uj, range_uj;
        if (read_zone(root, z.index[i], &uj, &range_uj) != 0)
            return -1;
        out->mj[i] = uj / 1e3;
        out->range_mj[i] = range_uj / 1e3;
    }
    out->n = z.n;
    return 0;
}

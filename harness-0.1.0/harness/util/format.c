#include "util/format.h"

#include <stdio.h>

const char *harness_format_ns(double ns, char *buf, size_t cap)
{
    static const char *const units[] = {"ns", "us", "ms", "s"};
    int u = 0;
    double v = ns;
    while (u < 3 && (v >= 1000 || v <= -1000)) {
        v /= 1000;
        u++;
    }
    snprintf(buf, cap, "%.4g %s", v, units[u]);
    return buf;
}

const char *harness_format_bytes(double bytes, char *buf, size_t cap)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    double v = bytes;
    while (u < 4 && (v >= 1024 || v <= -1024)) {
        v /= 1024;
        u++;
    }
    snprintf(buf, cap, "%.4g %s", v, units[u]);
    return buf;
}

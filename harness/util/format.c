#include "util/format.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>

/* One table of the binary units, for both byte formats and for axis labels. */
static const char *const byte_units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
enum { N_BYTE_UNITS = sizeof byte_units / sizeof byte_units[0] };

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
    int u = 0;
    double v = bytes;
    while (u < 4 && (v >= 1024 || v <= -1024)) {   /* TiB at most: "1.5e+03 TiB" beyond */
        v /= 1024;
        u++;
    }
    snprintf(buf, cap, "%.4g %s", v, byte_units[u]);
    return buf;
}

const char *harness_format_bytes_1dp(uint64_t bytes, char *buf, size_t cap)
{
    if (bytes < 1024) {
        snprintf(buf, cap, "%" PRIu64 " B", bytes);
        return buf;
    }
    double v = (double)bytes;
    int k = 0;
    while (v >= 1024.0 && k < N_BYTE_UNITS - 1) {
        v /= 1024.0;
        k++;
    }
    if (v >= 1023.95 && k < N_BYTE_UNITS - 1) {   /* would print as "1024.0" */
        v /= 1024.0;
        k++;
    }
    snprintf(buf, cap, "%.1f %s", v, byte_units[k]);
    return buf;
}

const char *harness_byte_unit(int k)
{
    return k >= 0 && k < N_BYTE_UNITS ? byte_units[k] : "?";
}

const char *harness_format_si(double v, const char *unit, char *buf, size_t cap)
{
    static const char *const prefixes[] = {"p", "n", "u", "m", "", "k", "M", "G", "T", "P"};
    enum { ONE = 4, LAST = sizeof prefixes / sizeof prefixes[0] - 1 };
    int k = ONE;
    double a = v < 0 ? -v : v;
    while (a != 0 && a < 1 && k > 0) {
        a *= 1000;
        k--;
    }
    while (a >= 1000 && k < LAST) {
        a /= 1000;
        k++;
    }
    snprintf(buf, cap, "%.4g %s%s", v < 0 ? -a : a, prefixes[k], unit);
    return buf;
}

const char *harness_format_ratio(double ratio, char *buf, size_t cap)
{
    if (isnan(ratio))
        return "-";
    if (isinf(ratio))
        return "inf";
    snprintf(buf, cap, "%.3f", ratio);
    return buf;
}

const char *harness_format_signed_pct(double pct, char *buf, size_t cap)
{
    snprintf(buf, cap, "%+.1f%%", pct);
    return buf;
}

const char *harness_format_change(double ratio, char *buf, size_t cap)
{
    if (isnan(ratio))
        return "-";
    if (isinf(ratio))
        return "+inf%";
    return harness_format_signed_pct((ratio - 1.0) * 100.0, buf, cap);
}

const char *harness_format_share(double share, char *buf, size_t cap)
{
    if (!isfinite(share))
        return "-";
    snprintf(buf, cap, "%.1f%%", share * 100.0);
    return buf;
}

const char *harness_format_p(double p, char *buf, size_t cap)
{
    if (isnan(p))
        return "-";
    snprintf(buf, cap, "%.3g", p);
    return buf;
}

#include "util/cpuinfo.h"

#include <stdio.h>
#include <string.h>

const char *harness_cpuinfo_field(const char *key, const char *fallback, char *out, size_t cap)
{
    snprintf(out, cap, "%s", fallback);
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return out;
    char line[1024];
    size_t n = strlen(key);
    while (fgets(line, sizeof line, f)) {
        const char *colon = strchr(line, ':');
        /* "model name\t: AMD EPYC ...": the key, then tabs or spaces, then ':' */
        if (!colon || strncmp(line, key, n) != 0 || strspn(line + n, " \t") != (size_t)(colon - line - n))
            continue;
        snprintf(out, cap, "%s", colon[1] == ' ' ? colon + 2 : colon + 1);
        out[strcspn(out, "\n")] = '\0';
        break;
    }
    fclose(f);
    return out;
}

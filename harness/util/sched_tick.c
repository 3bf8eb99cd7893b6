/* The scheduler tick of this kernel (util/sched_tick.h). */
#include "util/sched_tick.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

int harness_sched_tick_parse(const char *text)
{
    static const char key[] = "CONFIG_HZ=";
    for (const char *line = text; line && *line;) {
        if (strncmp(line, key, sizeof key - 1) == 0) {
            char *end;
            long hz = strtol(line + sizeof key - 1, &end, 10);
            if (hz > 0 && hz <= 100000 && (*end == '\n' || *end == '\0'))
                return (int)hz;
        }
        const char *eol = strchr(line, '\n');
        line = eol ? eol + 1 : NULL;
    }
    return 0;
}

/* The line that sets CONFIG_HZ, read from the file a line at a time (a
 * kernel config is ~300 KB; only one line matters). */
static int hz_from_file(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    char line[256];
    int hz = 0;
    while (!hz && fgets(line, sizeof line, f))
        hz = harness_sched_tick_parse(line);
    fclose(f);
    return hz;
}

harness_sched_tick harness_sched_tick_read(void)
{
    static harness_sched_tick tick;
    if (tick.hz)
        return tick;
    struct utsname u;
    char path[sizeof u.release + 16];
    int hz = 0;
    if (uname(&u) == 0) {
        snprintf(path, sizeof path, "/boot/config-%s", u.release);
        hz = hz_from_file(path);
    }
    tick = hz ? (harness_sched_tick){hz, 1} : (harness_sched_tick){HARNESS_SCHED_TICK_ASSUMED_HZ, 0};
    return tick;
}

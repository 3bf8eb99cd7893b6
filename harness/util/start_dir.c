/* The start directory (util/start_dir.h). */
#define _GNU_SOURCE                /* O_PATH */
#include "util/start_dir.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int taken;
static int fd = -1;                /* for fchdir: the folder itself, even if renamed */
static char path[4096];            /* for absolute paths; "" when getcwd failed */

void harness_start_dir_take(void)
{
    if (taken)
        return;
    taken = 1;
    /* O_PATH needs no read permission on the folder: a user may run from
     * a directory they can enter but not list. */
    fd = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (!getcwd(path, sizeof path))
        path[0] = '\0';
}

int harness_start_dir_restore(void)
{
    if (!taken || fd < 0)
        return 0;
    return fchdir(fd) == 0 ? 0 : errno;
}

const char *harness_start_dir_absolute(const char *rel, char *buf, size_t cap)
{
    harness_start_dir_take();
    int n;
    if (rel[0] == '/')
        n = snprintf(buf, cap, "%s", rel);
    else if (!path[0])
        return NULL;
    else if (strcmp(rel, ".") == 0)
        n = snprintf(buf, cap, "%s", path);
    else
        n = snprintf(buf, cap, "%s%s%s", path, strcmp(path, "/") == 0 ? "" : "/", rel);
    return n >= 0 && (size_t)n < cap ? buf : NULL;
}

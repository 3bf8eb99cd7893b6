#include "util/build_tree.h"

#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int harness_running_from_build_tree(void)
{
    char exe[4096];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len <= 0)
        return 0;
    exe[len] = '\0';
    char *dir = dirname(exe);
    /* libtool may run the real binary from harness/.libs/ */
    size_t n = strlen(dir);
    if (n >= 6 && strcmp(dir + n - 6, "/.libs") == 0)
        dir[n - 6] = '\0';
    char *built = realpath(HARNESS_BUILD_DIR "/harness", NULL);
    int same = built && strcmp(built, dir) == 0;
    free(built);
    return same;
}

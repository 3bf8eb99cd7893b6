/* Fault injection for tests (LD_PRELOAD): the process dies at the Nth
 * rename() whose target path contains a given text, before renaming, as
 * a crash or a kill would hit the harness while it writes a folder.
 *
 *   CRASH_ON_RENAME=text      the target to die at (unset: rename as usual)
 *   CRASH_ON_RENAME_AT=N      the Nth such rename (default 1)
 *   CRASH_ON_RENAME_SIGNAL=S  the signal to die of (default 11, SIGSEGV)
 *   CRASH_ON_RENAME_LOG=path  append every target, one a line (to count them)
 *
 * Every file the harness writes goes through rename() (util/fsutil.c,
 * folder/status.c), so this reaches each write of the folder. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int rename(const char *from, const char *to)
{
    static int (*real_rename)(const char *, const char *);
    static int seen;
    if (!real_rename)
        real_rename = (int (*)(const char *, const char *))dlsym(RTLD_NEXT, "rename");
    const char *log = getenv("CRASH_ON_RENAME_LOG");
    if (log) {
        int fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0644);
        if (fd >= 0) {
            dprintf(fd, "%s\n", to);
            close(fd);
        }
    }
    const char *want = getenv("CRASH_ON_RENAME");
    if (want && *want && strstr(to, want)) {
        const char *at = getenv("CRASH_ON_RENAME_AT"), *sig = getenv("CRASH_ON_RENAME_SIGNAL");
        if (++seen == (at ? atoi(at) : 1))
            raise(sig ? atoi(sig) : SIGSEGV);
    }
    return real_rename(from, to);
}

#include "util/install_dir.h"

#include "util/input_file.h"

#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* HARNESS_PREFIX, HARNESS_BINDIR and HARNESS_PKGLIBDIR come from the
 * Makefile (share/sdk.am, Makefile.am): configure's directories. */

static char pkglibdir[PATH_MAX];
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* The folder of the running executable, symlinks resolved. */
static int exe_dir(char *out, size_t cap)
{
    char *real = realpath("/proc/self/exe", NULL);
    if (!real)
        return -1;
    char *slash = strrchr(real, '/');
    int ok = slash && (size_t)(slash - real) < cap;
    if (ok) {
        *slash = '\0';
        snprintf(out, cap, "%s", real);
    }
    free(real);
    return ok ? 0 : -1;
}

static int is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* When the binary sits at ROOT + (bindir less the prefix), the plugins are
 * at ROOT + (pkglibdir less the prefix). Only directories under the prefix
 * move with it (a --bindir elsewhere keeps the configured pkglibdir). */
static void locate(void)
{
    snprintf(pkglibdir, sizeof pkglibdir, "%s", HARNESS_PKGLIBDIR);
    const char *prefix = HARNESS_PREFIX;
    size_t plen = strlen(prefix);
    while (plen > 0 && prefix[plen - 1] == '/')
        plen--;
    if (plen == 0 || strncmp(HARNESS_BINDIR, prefix, plen) != 0 || strncmp(HARNESS_PKGLIBDIR, prefix, plen) != 0)
        return;
    /* Through pointers: clang reads `"literal" + n` as a mistaken append. */
    const char *bindir = HARNESS_BINDIR, *libdir = HARNESS_PKGLIBDIR;
    const char *bin_rel = bindir + plen, *lib_rel = libdir + plen;
    char dir[PATH_MAX];
    if (exe_dir(dir, sizeof dir) != 0)
        return;
    char *configured = realpath(HARNESS_BINDIR, NULL);
    int moved = !configured || strcmp(configured, dir) != 0;
    free(configured);
    size_t dlen = strlen(dir), blen = strlen(bin_rel);
    if (!moved || blen > dlen || strcmp(dir + dlen - blen, bin_rel) != 0)
        return;
    char candidate[PATH_MAX];
    int n = snprintf(candidate, sizeof candidate, "%.*s%s", (int)(dlen - blen), dir, lib_rel);
    if (n > 0 && (size_t)n < sizeof candidate && is_dir(candidate))
        memcpy(pkglibdir, candidate, (size_t)n + 1);
}

const char *harness_install_pkglibdir(void)
{
    pthread_once(&once, locate);
    return pkglibdir;
}

int harness_installed_module(const char *la, char *out, size_t cap)
{
    size_t n = strlen(la);
    if (n < 3 || strcmp(la + n - 3, ".la") != 0)
        return 0;
    FILE *f = harness_open_regular(la);   /* a FIFO named x.la must not block */
    if (!f)
        return 0;
    char line[1024], dlname[512] = "";
    int installed = 0;
    while (fgets(line, sizeof line, f)) {
        sscanf(line, "dlname='%511[^']'", dlname);
        installed |= strncmp(line, "installed=yes", 13) == 0;
    }
    fclose(f);
    if (!installed || !dlname[0] || strchr(dlname, '/'))
        return 0;
    const char *slash = strrchr(la, '/');
    /* "./" for a bare name: libltdl would search its library path for it. */
    int len = slash ? snprintf(out, cap, "%.*s/%s", (int)(slash - la), la, dlname)
                    : snprintf(out, cap, "./%s", dlname);
    return len > 0 && (size_t)len < cap;
}

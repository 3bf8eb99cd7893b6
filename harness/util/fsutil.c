#ifndef _GNU_SOURCE
#define _GNU_SOURCE                /* asprintf */
#endif
#include "util/fsutil.h"

#include "util/input_file.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <pthread.h>
#include <unistd.h>

/* The temporary file being written, if any, for a signal handler that must
 * leave at once (harness_atomic_remove_pending). Artifacts are written by
 * one thread, one at a time, so one slot is enough. */
static char pending[4096];
static volatile sig_atomic_t has_pending;

/* The signals after which the process may leave without returning here:
 * blocked while `pending` changes, so it always names the file on disk. */
static void block_stops(sigset_t *old)
{
    sigset_t s;
    sigemptyset(&s);
    sigaddset(&s, SIGINT);
    sigaddset(&s, SIGTERM);
    sigaddset(&s, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &s, old);
}

static void forget_pending(const char *tmp)
{
    sigset_t old;
    block_stops(&old);
    if (has_pending && strcmp(pending, tmp) == 0)
        has_pending = 0;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}

void harness_atomic_remove_pending(void)
{
    if (has_pending) {
        unlink(pending);
        has_pending = 0;
    }
}

FILE *harness_atomic_open(const char *path, char *tmp, harness_error *err)
{
    if ((size_t)snprintf(tmp, 4096, "%s.tmp.XXXXXX", path) >= 4096) {
        harness_error_set(err, HARNESS_EXIT_RUNTIME, "%s: path too long", path);
        return NULL;
    }
    sigset_t old;
    block_stops(&old);
    int fd = mkstemp(tmp);
    if (fd >= 0) {
        memcpy(pending, tmp, strlen(tmp) + 1);
        has_pending = 1;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (fd < 0) {
        harness_error_set(err, HARNESS_EXIT_RUNTIME, "cannot create %s: %s", tmp, strerror(errno));
        return NULL;
    }
    fchmod(fd, 0644);  /* mkstemp makes 0600 files; artifacts are for sharing */
    FILE *f = fdopen(fd, "w");
    if (!f) {
        harness_error_set(err, HARNESS_EXIT_RUNTIME, "cannot open %s: %s", tmp, strerror(errno));
        close(fd);
        unlink(tmp);
        forget_pending(tmp);
    }
    return f;
}

int harness_atomic_commit(FILE *f, const char *tmp, const char *path, harness_error *err)
{
    int failed = ferror(f) || fflush(f) != 0 || fsync(fileno(f)) != 0;
    int e = errno;
    if (fclose(f) != 0 && !failed) {
        failed = 1;
        e = errno;
    }
    if (!failed && rename(tmp, path) == 0) {
        forget_pending(tmp);
        return 0;
    }
    if (!failed)
        e = errno;
    unlink(tmp);
    forget_pending(tmp);
    return harness_error_set(err, HARNESS_EXIT_RUNTIME, "cannot write %s: %s", path, strerror(e));
}

void harness_atomic_abort(FILE *f, const char *tmp)
{
    fclose(f);
    unlink(tmp);
    forget_pending(tmp);
}

int harness_write_atomic(const char *path, const void *data, size_t len, harness_error *err)
{
    char tmp[4096];
    FILE *f = harness_atomic_open(path, tmp, err);
    if (!f)
        return err->code;
    if (len && fwrite(data, 1, len, f) != len) {
        harness_atomic_abort(f, tmp);
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "cannot write %s: %s", path, strerror(errno));
    }
    return harness_atomic_commit(f, tmp, path, err);
}

int harness_read_file(const char *path, char **data, size_t *len, harness_error *err)
{
    /* Every file read back goes through the one reader: regular files
     * only, never waiting on a FIFO, a size cap (bad input: exit 2). */
    return harness_read_input_file(path, "file", HARNESS_MAX_READ_BACK_BYTES, HARNESS_EXIT_USAGE, data, len, err);
}

int harness_mkdirs(const char *path, harness_error *err)
{
    char buf[4096];
    if ((size_t)snprintf(buf, sizeof buf, "%s", path) >= sizeof buf)
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "%s: path too long", path);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(buf, 0755) != 0 && errno != EEXIST)
            return harness_error_set(err, HARNESS_EXIT_RUNTIME, "cannot create directory %s: %s", buf,
                                     strerror(errno));
        *p = '/';
    }
    if (mkdir(buf, 0755) != 0 && errno != EEXIST)
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "cannot create directory %s: %s", buf,
                                 strerror(errno));
    struct stat st;
    if (stat(buf, &st) != 0 || !S_ISDIR(st.st_mode))
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "%s exists and is not a directory", buf);
    return 0;
}

void harness_remove_flat_dir(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char path[4096];
        if (snprintf(path, sizeof path, "%s/%s", dir, e->d_name) < (int)sizeof path)
            unlink(path);
    }
    if (d)
        closedir(d);
    rmdir(dir);
}

char *harness_path_join(const char *dir, const char *name)
{
    size_t n = strlen(dir);
    while (n > 1 && dir[n - 1] == '/')
        n--;
    char *p = NULL;
    int root = n == 1 && dir[0] == '/';
    return asprintf(&p, "%.*s%s%s", (int)n, dir, root ? "" : "/", name) < 0 ? NULL : p;
}

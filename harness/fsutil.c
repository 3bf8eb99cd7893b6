#include "fsutil.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int harness_write_atomic(const char *path, const void *data, size_t len, harness_error *err)
{
    char tmp[4096];
    if ((size_t)snprintf(tmp, sizeof tmp, "%s.tmp.XXXXXX", path) >= sizeof tmp)
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "%s: path too long", path);
    int fd = mkstemp(tmp);
    if (fd < 0)
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "cannot create %s: %s", tmp, strerror(errno));
    const char *p = data;
    size_t left = len;
    while (left > 0) {
        ssize_t n = write(fd, p, left);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            int e = errno;
            close(fd);
            unlink(tmp);
            return harness_error_set(err, HARNESS_EXIT_RUNTIME, "cannot write %s: %s", path, strerror(e));
        }
        p += n;
        left -= (size_t)n;
    }
    /* mkstemp makes 0600 files; artifacts are for sharing. */
    fchmod(fd, 0644);
    if (fsync(fd) != 0 || close(fd) != 0 || rename(tmp, path) != 0) {
        int e = errno;
        unlink(tmp);
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "cannot write %s: %s", path, strerror(e));
    }
    return 0;
}

int harness_read_file(const char *path, char **data, size_t *len, harness_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "cannot read %s: %s", path, strerror(errno));
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        n += fread(buf + n, 1, cap - n - 1, f);
        if (n < cap - 1)
            break;
        char *grown = realloc(buf, cap *= 2);
        if (!grown) {
            free(buf);
            buf = NULL;
        } else {
            buf = grown;
        }
    }
    int failed = ferror(f);
    fclose(f);
    if (!buf || failed) {
        free(buf);
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "cannot read %s", path);
    }
    buf[n] = '\0';
    *data = buf;
    if (len)
        *len = n;
    return 0;
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

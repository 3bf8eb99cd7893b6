#include "util/input_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *kind_of(mode_t m)
{
    return S_ISFIFO(m) ? "a pipe (FIFO)" : S_ISCHR(m) ? "a character device"
         : S_ISBLK(m) ? "a block device" : S_ISSOCK(m) ? "a socket" : "not a regular file";
}

FILE *harness_open_regular(const char *path)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        errno = EINVAL;
        return NULL;
    }
    FILE *f = fdopen(fd, "r");
    if (!f)
        close(fd);
    return f;
}

int harness_read_input_file(const char *path, const char *what, size_t max_bytes, int code, char **data,
                            size_t *len, harness_error *err)
{
    /* O_NONBLOCK: opening a FIFO with no writer must not wait; the check
     * below refuses it anyway. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return harness_error_set(err, code, "%s: cannot read %s: %s", path, what, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return harness_error_set(err, code, "%s: cannot read %s: %s", path, what, strerror(e));
    }
    if (S_ISDIR(st.st_mode)) {
        close(fd);
        return harness_error_set(err, code, "%s: cannot read %s: %s", path, what, strerror(EISDIR));
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return harness_error_set(err, code, "%s: cannot read %s: it is %s; give a regular file", path, what,
                                 kind_of(st.st_mode));
    }
    if ((unsigned long long)st.st_size > max_bytes) {
        close(fd);
        return harness_error_set(err, code, "%s: %s of %lld bytes is over the limit of %zu MiB", path, what,
                                 (long long)st.st_size, max_bytes >> 20);
    }
    /* The size may change while reading: read to the end, up to the cap. */
    size_t cap = (size_t)st.st_size + 1, n = 0;
    char *buf = malloc(cap + 1);
    for (;;) {
        if (!buf) {
            close(fd);
            return harness_error_set(err, HARNESS_EXIT_RUNTIME, "out of memory reading %s", path);
        }
        ssize_t k = read(fd, buf + n, cap - n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0) {
            int e = errno;
            free(buf);
            close(fd);
            return harness_error_set(err, code, "%s: cannot read %s: %s", path, what, strerror(e));
        }
        if (k == 0)
            break;
        n += (size_t)k;
        if (n > max_bytes) {
            free(buf);
            close(fd);
            return harness_error_set(err, code, "%s: %s grew over the limit of %zu MiB while being read", path,
                                     what, max_bytes >> 20);
        }
        if (n == cap) {
            cap *= 2;
            char *grown = realloc(buf, cap + 1);
            if (!grown)
                free(buf);
            buf = grown;
        }
    }
    close(fd);
    buf[n] = '\0';
    *data = buf;
    if (len)
        *len = n;
    return 0;
}

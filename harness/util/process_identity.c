/* process_identity.c - the writer of a status file, and whether it is gone
 * (process_identity.h). */
#include "util/process_identity.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

/* The first line of a small /proc file, or "". */
static void read_line(const char *path, char *buf, size_t cap)
{
    buf[0] = '\0';
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    ssize_t n = read(fd, buf, cap - 1);
    close(fd);
    buf[n > 0 ? n : 0] = '\0';
    buf[strcspn(buf, "\n")] = '\0';
}

/* Field 22 of /proc/PID/stat (after the command, which may hold spaces
 * and parentheses: parsed from the last ')'), or -1. */
static int64_t start_ticks(int64_t pid)
{
    char path[64], stat[1024];
    snprintf(path, sizeof path, "/proc/%lld/stat", (long long)pid);
    read_line(path, stat, sizeof stat);
    char *p = strrchr(stat, ')');
    if (!p)
        return -1;
    p++;
    for (int field = 3; field < 22 && p; field++)   /* p: the space before field `field` */
        p = strchr(p + 1, ' ');
    if (!p)
        return -1;
    char *end;
    long long v = strtoll(p + 1, &end, 10);
    return end == p + 1 ? -1 : (int64_t)v;
}

void harness_process_identity_self(harness_process_identity *id)
{
    memset(id, 0, sizeof *id);
    if (gethostname(id->host, sizeof id->host - 1) != 0)
        id->host[0] = '\0';
    read_line("/proc/sys/kernel/random/boot_id", id->boot_id, sizeof id->boot_id);
    id->pid = (int64_t)getpid();
    id->start_ticks = start_ticks(id->pid);
}

int harness_process_gone(const harness_process_identity *writer, char *why, size_t cap)
{
    harness_process_identity me;
    harness_process_identity_self(&me);
    if (!writer->host[0] || strcmp(writer->host, me.host) != 0 || writer->pid <= 0 || writer->pid > INT32_MAX)
        return 0;                  /* another machine's process: not ours to judge */
    if (writer->boot_id[0] && me.boot_id[0] && strcmp(writer->boot_id, me.boot_id) != 0) {
        snprintf(why, cap, "it was written before %s last booted", me.host);
        return 1;
    }
    if (kill((pid_t)writer->pid, 0) != 0 && errno == ESRCH) {
        snprintf(why, cap, "its process (pid %lld on %s) is gone", (long long)writer->pid, me.host);
        return 1;
    }
    int64_t now = start_ticks(writer->pid);
    if (writer->start_ticks >= 0 && now >= 0 && now != writer->start_ticks) {
        snprintf(why, cap, "its pid %lld on %s now belongs to another process", (long long)writer->pid, me.host);
        return 1;
    }
    return 0;
}

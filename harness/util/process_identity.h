/* process_identity.h - who wrote a status file, so that a reader can tell a
 * run that is still going from one that was killed (SIGKILL, the OOM
 * killer, a reboot) before it could say so: the host, the boot (the
 * kernel's boot_id), the pid and that process's start time (a pid is
 * reused; pid and start time together are not). */
#ifndef HARNESS_PROCESS_IDENTITY_H
#define HARNESS_PROCESS_IDENTITY_H

#include <stddef.h>
#include <stdint.h>

typedef struct harness_process_identity {
    char host[256];
    char boot_id[64];              /* "" where /proc gives none */
    int64_t pid;
    int64_t start_ticks;           /* /proc/PID/stat's starttime, or -1 */
} harness_process_identity;

/* This process. */
void harness_process_identity_self(harness_process_identity *id);

/* For a status file that says "running": 1 (with why) when the process
 * that wrote it is certainly gone - same host and a different boot, or no
 * such pid, or the pid now belongs to a process started at another time -
 * else 0 (alive, another host, or not known). */
int harness_process_gone(const harness_process_identity *writer, char *why, size_t cap);

#endif

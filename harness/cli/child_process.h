/* child_process.h - running this harness binary again as a child process:
 * `ab` runs each side of a round so, `run --runs N` and suites run each
 * experiment so (a fresh process draws its own placement, heap and warm-up,
 * which is what makes runs replicates). */
#ifndef HARNESS_CHILD_PROCESS_H
#define HARNESS_CHILD_PROCESS_H

#include <stddef.h>

/* Runs this binary with argv (argv[0] is only a name), its stdout (capture
 * = STDOUT_FILENO) or its stderr (STDERR_FILENO) read into buf (the first
 * cap - 1 bytes, trailing newlines cut), the other stream to other_fd;
 * *code: its exit code (128 + signal when killed). 0, or -1 with errno. */
int harness_run_child(const char *const *argv, int capture, int other_fd, char *buf, size_t cap, int *code);

#endif

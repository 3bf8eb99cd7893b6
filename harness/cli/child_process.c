/* child_process.c - this binary run again (child_process.h). */
#include "cli/child_process.h"

#include <errno.h>
#include <sys/wait.h>
#include <unistd.h>

int harness_run_child(const char *const *argv, int capture, int other_fd, char *buf, size_t cap, int *code)
{
    int pipefd[2];
    if (pipe(pipefd) != 0)
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        dup2(pipefd[1], capture);
        dup2(other_fd, capture == STDOUT_FILENO ? STDERR_FILENO : STDOUT_FILENO);
        close(pipefd[0]);
        /* the same binary as this one: both sides see one harness, and in
         * a build tree libtool's environment is inherited */
        execv("/proc/self/exe", (char *const *)argv);
        _exit(127);
    }
    close(pipefd[1]);
    /* Read to the end, keeping the first cap - 1 bytes: a child left
     * writing into a full pipe would never exit. */
    size_t len = 0;
    char rest[4096];
    for (;;) {
        int full = len + 1 >= cap;
        ssize_t got = read(pipefd[0], full ? rest : buf + len, full ? sizeof rest : cap - 1 - len);
        if (got < 0 && errno == EINTR)   /* a Ctrl-C that the child gets too: it still ends its run */
            continue;
        if (got <= 0)
            break;
        if (!full)
            len += (size_t)got;
    }
    buf[len] = '\0';
    while (len && (buf[len - 1] == '\n' || buf[len - 1] == '\r'))
        buf[--len] = '\0';
    close(pipefd[0]);
    int status = 0;
    if (pid < 0)
        return -1;
    pid_t got;
    while ((got = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
        ;
    if (got < 0)
        return -1;
    *code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return 0;
}

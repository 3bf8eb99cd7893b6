/* The process state the harness owns (run/process_state.h). */
#include "run/process_state.h"

#include <fcntl.h>
#include <pthread.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/start_dir.h"

volatile sig_atomic_t harness_process_fork_seen;

static int taken;
static pid_t pid;
static sigset_t mask;
static mode_t start_umask;
/* Soft limits a plugin may lower under the harness: open files (the folder
 * needs a few) and file size (the user's ulimit -f is theirs, not the plugin's). */
static const int limits[] = {RLIMIT_NOFILE, RLIMIT_FSIZE};
static struct rlimit start_limits[2];

/* fd 1 and 2 as they were: a copy to dup2 back, what they were (to tell
 * a replacement from the same file) and their status flags. */
typedef struct std_fd {
    int fd, copy, flags;
    dev_t dev;
    ino_t ino;
} std_fd;
static std_fd std_fds[] = {{.fd = STDOUT_FILENO, .copy = -1}, {.fd = STDERR_FILENO, .copy = -1}};

static void take_std_fd(std_fd *s)
{
    struct stat st;
    if (fstat(s->fd, &st) != 0)
        return;                    /* closed at start: nothing to give back */
    s->dev = st.st_dev;
    s->ino = st.st_ino;
    s->flags = fcntl(s->fd, F_GETFL);
    s->copy = fcntl(s->fd, F_DUPFD_CLOEXEC, 10);
}

static void restore_std_fd(const std_fd *s)
{
    if (s->copy < 0)
        return;
    struct stat st;
    if (fstat(s->fd, &st) != 0 || st.st_dev != s->dev || st.st_ino != s->ino)
        dup2(s->copy, s->fd);      /* closed or replaced by the plugin */
    int now = fcntl(s->fd, F_GETFL);
    if (now != -1 && s->flags != -1 && now != s->flags)
        fcntl(s->fd, F_SETFL, s->flags);   /* O_NONBLOCK on a shared terminal or pipe, say */
}

static void in_child(void)
{
    harness_process_fork_seen = 1;
}

void harness_process_take(void)
{
    if (taken)
        return;
    taken = 1;
    harness_start_dir_take();
    pid = getpid();
    pthread_atfork(NULL, NULL, in_child);
    pthread_sigmask(SIG_BLOCK, NULL, &mask);
    /* Whatever a launcher left blocked, the guard needs these delivered. */
    static const int needed[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGSYS, SIGALRM, SIGINT, SIGTERM, SIGHUP};
    for (size_t i = 0; i < sizeof needed / sizeof needed[0]; i++)
        sigdelset(&mask, needed[i]);
    signal(SIGXFSZ, SIG_IGN);
    start_umask = umask(0);
    umask(start_umask);
    for (size_t i = 0; i < sizeof std_fds / sizeof std_fds[0]; i++)
        take_std_fd(&std_fds[i]);
    for (size_t i = 0; i < 2; i++)
        getrlimit(limits[i], &start_limits[i]);
}

/* A soft limit lowered since start-up goes back, as far as the hard one allows. */
static void restore_limit(int which, const struct rlimit *start)
{
    struct rlimit now;
    if (getrlimit(which, &now) != 0 || now.rlim_cur >= start->rlim_cur)
        return;
    now.rlim_cur = start->rlim_cur <= now.rlim_max ? start->rlim_cur : now.rlim_max;
    setrlimit(which, &now);
}

pid_t harness_process_pid(void)
{
    return pid;
}

int harness_process_forked(void)
{
    return taken && getpid() != pid;
}

void harness_process_restore(void)
{
    if (!taken)
        return;
    harness_start_dir_restore();
    pthread_sigmask(SIG_SETMASK, &mask, NULL);
    signal(SIGXFSZ, SIG_IGN);
    umask(start_umask);
    for (size_t i = 0; i < sizeof std_fds / sizeof std_fds[0]; i++)
        restore_std_fd(&std_fds[i]);
    for (size_t i = 0; i < 2; i++)
        restore_limit(limits[i], &start_limits[i]);
}

void harness_process_mask(sigset_t *out)
{
    *out = mask;
}

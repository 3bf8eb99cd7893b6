/* The crash, hang and exit guard around plugin callbacks; why it is built
 * this way is in guard.h. The handlers below call only async-signal-safe
 * functions until they siglongjmp to the landing or _exit. */
#define _GNU_SOURCE                /* on_exit: the exit path wants the plugin's status */
#include "run/guard.h"

#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "backend/device_restore.h"
#include "dist/waiting.h"
#include "run/interrupt.h"
#include "run/process_state.h"
#include "util/fsutil.h"
#include "util/monotonic.h"

harness_guard_state harness_guard;
sigjmp_buf harness_guard_landing;

static const int fatal_signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGSYS};
/* What the watchdog sends the main thread; only acted on when it fired. */
#define WATCHDOG_SIGNAL SIGALRM
static const int stop_signals[] = {SIGINT, SIGTERM, SIGHUP};
#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

enum { OWNER_NONE, OWNER_MAIN, OWNER_WATCHDOG };

/* The guard's dispositions, kept to be put back after plugin code
 * (take_back_signals): installed by install() and catch_stop_signals. */
static struct sigaction fatal_action, stop_action;
static volatile sig_atomic_t fatal_installed, stops_installed;

static struct {
    int installed;
    pthread_t main;
    harness_status_file *status;   /* NULL when no folder is being written */
    const char *variant_key;
    harness_guard_salvage_fn salvage;
    void *salvage_arg;
    volatile sig_atomic_t landing;     /* 1 while harness_guard_landing is valid */
    volatile sig_atomic_t salvaging;   /* the summaries are being written after a crash */
    volatile sig_atomic_t outcome;     /* harness_guard_outcome */
    volatile sig_atomic_t signal;
    volatile sig_atomic_t exit_status;
    volatile sig_atomic_t on_worker;
    volatile sig_atomic_t fired;       /* the outcome the watchdog sent SIGALRM for, or 0 */
    volatile sig_atomic_t stop_signal; /* the stop that was asked for, when it fired for one */
    volatile sig_atomic_t fired_waiting; /* ... and the main thread was waiting on other ranks */
    /* The watchdog: woken by its period, by a stop signal (sem_post is
     * async-signal-safe) and by harness_guard_end. */
    pthread_t watchdog;
    int watchdog_running;
    /* Who ends the run after a crash, a timeout or a stop: the main thread
     * landing (OWNER_MAIN) or the watchdog when the main thread does not
     * answer (OWNER_WATCHDOG); claimed once, atomically. */
    volatile sig_atomic_t owner;
    sem_t wake;
    volatile sig_atomic_t stop;
    int64_t step_timeout_s, callback_timeout_s;
} g;


/* ---- async-signal-safe helpers -------------------------------------------- */

static void say(const char *s)
{
    size_t n = strlen(s);
    while (n) {
        ssize_t k = write(STDERR_FILENO, s, n);
        if (k <= 0)
            return;
        s += k;
        n -= (size_t)k;
    }
}

static const char *signal_name(int sig)
{
    switch (sig) {
    case SIGSEGV: return "SIGSEGV";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
    case SIGABRT: return "SIGABRT";
    case SIGSYS: return "SIGSYS";
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGHUP: return "SIGHUP";
    case SIGALRM: return "SIGALRM";
    default: return "a fatal signal";
    }
}

static int64_t current_step(void)
{
    return harness_guard.callback && strcmp(harness_guard.callback, "step") == 0
               ? (int64_t)(harness_guard.steps_started - harness_guard.phase_first) - 1
               : -1;
}

/* status.json as the crash left it; the summaries may follow. */
static void mark_code(const char *status, int sig, const char *error, int exit_code, int final)
{
    if (!g.status)
        return;
    int in_step = harness_guard.callback && strcmp(harness_guard.callback, "step") == 0;
    harness_status st = {
        .status = status, .exit_code = final ? exit_code : -1, .signal = sig, .error = error,
        .variant_key = g.variant_key, .callback = harness_guard.callback,
        .phase = in_step ? harness_phase_name(harness_guard.phase) : NULL, .window = harness_guard.window,
        .step = current_step(),
    };
    harness_status_file_write(g.status, &st, final);
}

static void mark(const char *status, int sig, const char *error, int final)
{
    mark_code(status, sig, error, HARNESS_EXIT_RUNTIME, final);
}

/* The first of the main thread and the watchdog to claim the end of the
 * run writes it; the other must keep out of the way. Async-signal-safe. */
static int claim(int who)
{
    int none = OWNER_NONE;
    return __atomic_compare_exchange_n(&g.owner, &none, who, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST) ||
           g.owner == who;
}

/* In a child that plugin code forked, a signal is the child's own business:
 * the default action, as if the harness had set none. */
static void as_default(int sig)
{
    signal(sig, SIG_DFL);
    raise(sig);
}

/* A fatal signal outside any callback is the harness's own fault: mark the
 * folder, then die of the signal as if nothing had caught it (core dump). */
static void die_of(int sig)
{
    harness_atomic_remove_pending();
    mark("crashed", sig, g.salvaging ? "crashed again while writing the summaries after a crash"
                                     : "the harness itself crashed", 1);
    say("harness: fatal signal ");
    say(signal_name(sig));
    say(g.salvaging ? " while writing the summaries after a crash; status.json says crashed\n"
                    : " outside any plugin callback (a harness bug); status.json says crashed\n");
    harness_device_restore_now();   /* locked clocks outlive the process (backend/device_restore.h) */
    signal(sig, SIG_DFL);
    raise(sig);
}

static void on_fatal(int sig, siginfo_t *info, void *uc)
{
    (void)info;
    (void)uc;
    if (harness_process_forked()) {
        as_default(sig);           /* a plugin's child: none of the folder is its to mark */
        return;
    }
    if (g.owner == OWNER_WATCHDOG)
        for (;;)                   /* the watchdog is ending the process; it needs nothing from here */
            pause();
    if (sig == WATCHDOG_SIGNAL && !g.fired)
        return;                    /* not ours */
    if (!harness_guard.armed || !g.landing || g.salvaging) {
        if (sig == WATCHDOG_SIGNAL) {
            g.fired = 0;           /* the callback ended just in time */
            return;
        }
        die_of(sig);
        return;
    }
    if (!pthread_equal(pthread_self(), g.main)) {
        /* The landing belongs to the main thread's stack: hand the crash
         * over and keep this thread out of the way for good. */
        if (!g.outcome) {
            g.signal = sig;
            g.on_worker = 1;
            g.outcome = HARNESS_GUARD_CRASHED;
        }
        pthread_kill(g.main, sig);
        harness_guard_wake();      /* the watchdog ends the run if the main thread cannot take it */
        for (;;)
            pause();
    }
    if (!claim(OWNER_MAIN))
        for (;;)                   /* the watchdog is ending the process */
            pause();
    if (!g.outcome) {
        g.outcome = sig == WATCHDOG_SIGNAL ? g.fired : HARNESS_GUARD_CRASHED;
        g.signal = sig == WATCHDOG_SIGNAL ? g.stop_signal : sig;
    }
    harness_guard.armed = 0;
    g.salvaging = 1;
    harness_atomic_remove_pending();
    if (g.outcome == HARNESS_GUARD_TIMED_OUT)
        mark("timed_out", 0, "a plugin callback did not return within its timeout", 0);
    else if (g.outcome == HARNESS_GUARD_INTERRUPTED)
        mark("interrupted", g.signal, "a plugin callback did not return after a stop was asked for; abandoned", 0);
    else
        mark("crashed", g.signal, "a plugin callback crashed", 0);
    siglongjmp(harness_guard_landing, 1);
}

/* exit() inside a callback: ordinary context, so the summaries can be
 * written right here; then the process ends with 3, not the plugin's code. */
static void on_process_exit(int status, void *arg)
{
    (void)arg;
    if (harness_process_forked() || !harness_guard.armed || g.salvaging)
        return;                    /* a plugin's child leaves as it chose to */
    if (!claim(OWNER_MAIN))
        for (;;)
            pause();
    harness_guard.armed = 0;
    g.salvaging = 1;
    g.outcome = HARNESS_GUARD_EXITED;
    g.exit_status = status;
    if (!pthread_equal(pthread_self(), g.main) || !g.salvage) {
        /* The main thread is still inside the plugin: its data cannot be read safely. */
        g.on_worker = !pthread_equal(pthread_self(), g.main);
        mark("crashed", 0, "a plugin called exit() on a worker thread; the summaries were not written", 1);
        say("harness: a plugin called exit() on a worker thread during a callback; status.json says crashed\n");
    } else {
        harness_process_restore();  /* the summaries go where the run began, whatever the plugin did */
        mark("crashed", 0, "a plugin callback called exit()", 0);
        g.salvage(g.salvage_arg, HARNESS_GUARD_EXITED);
    }
    fflush(NULL);
    harness_device_restore_now();
    _exit(HARNESS_EXIT_RUNTIME);
}

void harness_guard_leave_now(int sig)
{
    if (harness_process_forked()) {
        as_default(sig);
        return;
    }
    harness_atomic_remove_pending();
    if (g.status) {
        harness_status st = {.status = "interrupted", .exit_code = 128 + sig, .signal = sig,
                             .error = "a second interrupt: left at once, without writing the summaries",
                             .variant_key = g.variant_key, .step = -1};
        harness_status_file_write(g.status, &st, 1);
    }
    say("harness: second ");
    say(signal_name(sig));
    say(": leaving at once; the folder is marked interrupted\n");
    harness_device_restore_now();
    _exit(128 + sig);
}

/* ---- the watchdog ----------------------------------------------------------- */

static int64_t monotonic_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* Whether plugin code runs on the main thread now; `token` changes each
 * time a callback or a step begins. Between steps the runner (harness
 * code) runs under the "step" callback name, and is not watched. */
static int plugin_busy(uint64_t *token)
{
    *token = harness_guard.calls_started + harness_guard.steps_started;
    if (!harness_guard.armed)
        return 0;
    const char *cb = harness_guard.callback;
    return !(cb && strcmp(cb, "step") == 0) || harness_guard.in_step;
}

static int64_t timeout_ns_now(void)
{
    const char *cb = harness_guard.callback;
    int64_t s = cb && strcmp(cb, "step") == 0 ? g.step_timeout_s : g.callback_timeout_s;
    return s * 1000000000LL;       /* s <= a year (config/config_internal.h): no overflow */
}

static void fire(harness_guard_outcome why)
{
    g.stop_signal = why == HARNESS_GUARD_INTERRUPTED ? harness_interrupt_requested : 0;
    g.fired = why;
    pthread_kill(g.main, WATCHDOG_SIGNAL);
}

/* Four checks a second: a hang is caught within a quarter second of its
 * timeout, and a stop request within the grace plus a quarter second. */
#define WATCH_PERIOD_NS 250000000LL
#define WAITING_GRACE_NS ((int64_t)HARNESS_GUARD_WAITING_GRACE_MS * 1000000LL)

/* Sleeps until deadline_ns (monotonic) or a wake. */
static void sleep_until(int64_t deadline_ns)
{
    struct timespec until = {.tv_sec = deadline_ns / 1000000000LL, .tv_nsec = deadline_ns % 1000000000LL};
    while (!g.stop && sem_clockwait(&g.wake, CLOCK_MONOTONIC, &until) != 0 && errno == EINTR)
        ;
}

/* A stop signalled to this process that finds the main thread waiting on
 * other ranks (dist/waiting.h) is abandoned after WAITING_GRACE_NS, not
 * HARNESS_GUARD_STOP_GRACE_S: the launcher sends SIGTERM because a rank
 * died, and SIGKILL follows one second later (Open MPI's
 * odls_base_sigkill_timeout), so the summaries must be written inside that
 * second. A stop told by another rank does not count: that rank is alive
 * and comes to the meeting. Returns when the main thread began waiting
 * under such a stop (0: it is not). */
static int64_t waiting_under_stop(int64_t now, int64_t since)
{
    if (!harness_interrupt_signalled_here || !harness_dist_waiting || !harness_guard.armed)
        return 0;
    return since ? since : now;
}

static void take_back_signals(int all);

/* The main thread did not answer the watchdog's SIGALRM, or a crash a
 * worker thread handed it, within HARNESS_GUARD_ANSWER_GRACE_S: the plugin
 * blocked, ignored or took over the signal. Nothing the main thread holds
 * can be read safely while plugin code runs on it, so no summaries: the
 * watchdog marks status.json final, says why and ends the process. */
static void abandon(void)
{
    int outcome = g.outcome ? g.outcome : g.fired;
    if (!outcome || g.salvaging || !claim(OWNER_WATCHDOG))
        return;
    if (!g.outcome) {
        g.outcome = outcome;
        g.signal = outcome == HARNESS_GUARD_INTERRUPTED ? g.stop_signal : 0;
    }
    harness_guard_report r = harness_guard_what_happened();
    const char *status = r.outcome == HARNESS_GUARD_TIMED_OUT     ? "timed_out"
                         : r.outcome == HARNESS_GUARD_INTERRUPTED ? "interrupted"
                                                                  : "crashed";
    int code = r.outcome == HARNESS_GUARD_INTERRUPTED && r.stop_signal > 0 ? 128 + r.stop_signal
                                                                           : HARNESS_EXIT_RUNTIME;
    char what[512], why[1024], line[1400];
    harness_guard_describe(&r, what, sizeof what);
    snprintf(why, sizeof why, "%s; the main thread did not take the guard's signal within %d s (the plugin blocks, "
             "ignores or replaced it), so the watchdog ended the process without writing the summaries", what,
             HARNESS_GUARD_ANSWER_GRACE_S);
    harness_atomic_remove_pending();
    mark_code(status, r.signal, why, code, 1);
    snprintf(line, sizeof line, "harness: %s%s: %s; status.json says %s\n", harness_error_rank_label(),
             g.variant_key ? g.variant_key : "the plugin", why, status);
    say(line);
    harness_device_restore_now();   /* locked clocks outlive the process (backend/device_restore.h) */
    _exit(code);
}

/* Whether the main thread owes an answer (a SIGALRM sent, a crash handed
 * over) and has not given it; `since` is when that began, 0 for none. */
static int64_t owed_since(int64_t now, int64_t since)
{
    int owed = (g.fired || g.outcome) && !g.salvaging && g.owner == OWNER_NONE;
    return !owed ? 0 : since ? since : now;
}

/* The watchdog's own mask: the harness's (every signal the guard needs
 * unblocked, whatever the plugin blocked before this thread started),
 * with SIGALRM blocked: it is the main thread's signal, and a stray one
 * (a plugin's alarm()) landing here must not look like a crash. */
static void watchdog_mask(void)
{
    sigset_t m;
    harness_process_mask(&m);
    sigaddset(&m, WATCHDOG_SIGNAL);
    pthread_sigmask(SIG_SETMASK, &m, NULL);
}

static void *watch(void *arg)
{
    (void)arg;
    watchdog_mask();
    int64_t owed = 0;                                  /* when the main thread began to owe an answer */
    uint64_t seen = 0;
    plugin_busy(&seen);
    int64_t since = monotonic_ns(), stop_since = 0;  /* when `seen` last changed; when a stop was seen */
    int64_t waiting_since = 0;                         /* when a wait under a stop was first seen */
    while (!g.stop) {
        int64_t wake_ns = monotonic_ns() + WATCH_PERIOD_NS;
        if (waiting_since && waiting_since + WAITING_GRACE_NS < wake_ns)
            wake_ns = waiting_since + WAITING_GRACE_NS;
        sleep_until(wake_ns);
        if (g.stop)
            break;
        uint64_t now_token;
        int busy = plugin_busy(&now_token);
        int64_t now = monotonic_ns();
        owed = owed_since(now, owed);
        if (owed && now - owed >= HARNESS_GUARD_ANSWER_GRACE_S * 1000000000LL)
            abandon();
        if (busy)                  /* a plugin that ignores SIGTERM or takes SIGALRM mid-callback */
            take_back_signals(0);
        waiting_since = waiting_under_stop(now, waiting_since);
        if (waiting_since && now - waiting_since >= WAITING_GRACE_NS) {
            g.fired_waiting = 1;
            fire(HARNESS_GUARD_INTERRUPTED);
            waiting_since = 0;
            continue;
        }
        if (!busy || now_token != seen) {
            seen = now_token;
            since = now;
            stop_since = 0;
            continue;
        }
        int64_t limit_ns = timeout_ns_now();
        if (harness_interrupt_requested && !stop_since)
            stop_since = now;
        int timed_out = limit_ns > 0 && now - since >= limit_ns;
        if (timed_out || (stop_since && now - stop_since >= HARNESS_GUARD_STOP_GRACE_S * 1000000000LL)) {
            fire(timed_out ? HARNESS_GUARD_TIMED_OUT : HARNESS_GUARD_INTERRUPTED);
            /* Watching on: a callback that returned just before the signal
             * came leaves the run going, and the next one guarded. */
            since = now;
            stop_since = 0;
        }
    }
    return NULL;
}

void harness_guard_wake(void)
{
    int saved = errno;             /* called from a signal handler */
    if (g.installed)
        sem_post(&g.wake);
    errno = saved;
}

/* ---- setup ------------------------------------------------------------------ */

static void install(void)
{
    if (g.installed)
        return;
    g.installed = 1;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fatal;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    /* Stops wait while a crash is handled: the landing writes the folder. */
    sigaddset(&sa.sa_mask, SIGINT);
    sigaddset(&sa.sa_mask, SIGTERM);
    sigaddset(&sa.sa_mask, SIGHUP);
    fatal_action = sa;
    fatal_installed = 1;
    take_back_signals(1);          /* also its own stack, so a stack overflow in a step still reaches it */
    on_exit(on_process_exit, NULL);
    /* The watchdog's deadlines are on the monotonic clock (sem_clockwait):
     * a change of the wall clock must neither fire nor delay it. */
    sem_init(&g.wake, 0, 0);
}

int harness_guard_begin(harness_status_file *status, const char *variant_key, int64_t step_timeout_s,
                        int64_t callback_timeout_s, harness_guard_salvage_fn salvage, void *salvage_arg,
                        harness_error *err)
{
    g.main = pthread_self();
    harness_process_take();        /* a no-op after main's: for programs that start here */
    install();
    harness_guard_take_back();
    memset((void *)&harness_guard, 0, sizeof harness_guard);
    g.status = status;
    g.variant_key = variant_key;
    g.salvage = salvage;
    g.salvage_arg = salvage_arg;
    g.outcome = HARNESS_GUARD_NONE;
    g.signal = g.exit_status = g.on_worker = g.fired = g.stop_signal = g.fired_waiting = 0;
    g.salvaging = 0;
    g.owner = OWNER_NONE;
    g.landing = 1;
    g.stop = 0;
    g.step_timeout_s = step_timeout_s;
    g.callback_timeout_s = callback_timeout_s;
    g.watchdog_running = 0;
    /* Always started: with no timeouts it still ends a callback that
     * ignores a stop request. */
    int rc = pthread_create(&g.watchdog, NULL, watch, NULL);
    if (rc != 0)
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "cannot start the callback watchdog: %s", strerror(rc));
    g.watchdog_running = 1;
    return 0;
}

void harness_guard_end(void)
{
    harness_guard.armed = 0;
    g.landing = 0;
    if (g.watchdog_running) {
        g.stop = 1;
        sem_post(&g.wake);
        pthread_join(g.watchdog, NULL);
        g.watchdog_running = 0;
    }
    /* A crash from here on is the harness's, and status.json is final. */
    g.status = NULL;
    g.salvage = NULL;
}

void harness_guard_phase(harness_phase phase, int window)
{
    harness_guard.phase = (int)phase;
    harness_guard.window = window;
    harness_guard.phase_first = harness_guard.steps_started;
}

harness_guard_report harness_guard_what_happened(void)
{
    int in_step = harness_guard.callback && strcmp(harness_guard.callback, "step") == 0;
    return (harness_guard_report){
        .outcome = (harness_guard_outcome)g.outcome, .signal = g.signal, .exit_status = g.exit_status,
        .stop_signal = g.outcome == HARNESS_GUARD_INTERRUPTED ? g.signal : 0,
        .on_worker_thread = g.on_worker, .waiting_on_ranks = g.outcome == HARNESS_GUARD_INTERRUPTED && g.fired_waiting,
        .callback = harness_guard.callback,
        .phase = in_step ? harness_phase_name(harness_guard.phase) : NULL, .window = harness_guard.window,
        .step = current_step(),
    };
}

const char *harness_guard_describe(const harness_guard_report *r, char *buf, size_t cap)
{
    char what[160], where[160] = "";
    const char *cb = r->callback ? r->callback : "a callback";
    switch (r->outcome) {
    case HARNESS_GUARD_CRASHED:
        snprintf(what, sizeof what, "%s crashed with %s (%s)%s", cb, signal_name(r->signal), strsignal(r->signal),
                 r->on_worker_thread ? " on a worker thread" : "");
        break;
    case HARNESS_GUARD_TIMED_OUT: {
        int is_step = strcmp(cb, "step") == 0;
        snprintf(what, sizeof what, "%s did not return within schedule.%s (%lld s)", cb,
                 is_step ? "step_timeout_s" : "callback_timeout_s",
                 (long long)(is_step ? g.step_timeout_s : g.callback_timeout_s));
        break;
    }
    case HARNESS_GUARD_INTERRUPTED:
        if (r->waiting_on_ranks) {
            snprintf(what, sizeof what, "%s was waiting for the other ranks (one may have died) %d ms after %s; "
                     "abandoned", cb, HARNESS_GUARD_WAITING_GRACE_MS,
                     r->stop_signal > 0 ? signal_name(r->stop_signal) : "a stop request");
            break;
        }
        snprintf(what, sizeof what, "%s did not return within %d s of %s; abandoned", cb,
                 HARNESS_GUARD_STOP_GRACE_S, r->stop_signal > 0 ? signal_name(r->stop_signal) : "a stop request");
        break;
    case HARNESS_GUARD_EXITED:
        snprintf(what, sizeof what, "%s called exit(%d)", cb, r->exit_status);
        break;
    default:
        snprintf(what, sizeof what, "%s ended normally", cb);
    }
    /* Windows and steps count from 1 here, as in the text summary's table
     * (status.json's step is the 0-based index). */
    if (r->phase && r->window >= 0)
        snprintf(where, sizeof where, " in the %s phase, window %d, step %lld", r->phase, r->window + 1,
                 (long long)r->step + 1);
    else if (r->phase)
        snprintf(where, sizeof where, " in the %s phase, step %lld", r->phase, (long long)r->step + 1);
    snprintf(buf, cap, "%s%s", what, where);
    return buf;
}

/* A signal this soon after the first is the same request delivered twice:
 * GNU timeout signals the harness and then its process group, a terminal's
 * Ctrl-C reaches the whole foreground group while mpirun forwards it too,
 * and such copies come within milliseconds, even on a loaded machine. A
 * person who presses Ctrl-C again because the first did not seem to work
 * does so after a second or more. */
#define SAME_REQUEST_NS 1000000000LL

/* The first stop request is noted and honoured after the current step; a
 * second one means the user will not wait (the guard leaves at once).
 * Only this handler touches `first` (the stop signals are blocked while it
 * runs); clock_gettime is async-signal-safe. A stop another rank asked for
 * sets harness_interrupt_requested but is no signal of this process's, so a
 * signal after it is a first one. */
static void on_stop(int sig)
{
    if (harness_process_forked()) {
        as_default(sig);           /* a plugin's helper process, stopped by its parent */
        return;
    }
    static struct timespec first;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (first.tv_sec || first.tv_nsec) {
        long long since = (long long)(now.tv_sec - first.tv_sec) * 1000000000LL + (now.tv_nsec - first.tv_nsec);
        if (since >= SAME_REQUEST_NS)
            harness_guard_leave_now(sig);
        return;
    }
    first = now;
    harness_interrupt_signalled_ns = harness_monotonic_ns();
    harness_interrupt_signalled_here = 1;
    harness_interrupt_requested = sig;
    harness_guard_wake();
}

void harness_guard_catch_stop_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < N_OF(stop_signals); i++)
        sigaddset(&sa.sa_mask, stop_signals[i]);
    stop_action = sa;
    stops_installed = 1;
    for (size_t i = 0; i < N_OF(stop_signals); i++)
        sigaction(stop_signals[i], &sa, NULL);
}

/* The guard's dispositions back in place (a plugin may have ignored,
 * replaced or reset them). `all` 0: only those that end a hang (the stop
 * signals and SIGALRM), which the watchdog puts back while a callback runs. */
static void take_back_signals(int all)
{
    if (stops_installed)
        for (size_t i = 0; i < N_OF(stop_signals); i++)
            sigaction(stop_signals[i], &stop_action, NULL);
    if (!fatal_installed)
        return;
    sigaction(WATCHDOG_SIGNAL, &fatal_action, NULL);
    if (!all)
        return;
    for (size_t i = 0; i < N_OF(fatal_signals); i++)
        sigaction(fatal_signals[i], &fatal_action, NULL);
    static char alt[1 << 16];      /* the handlers' own stack: a plugin may have switched it off */
    stack_t ss = {.ss_sp = alt, .ss_size = sizeof alt};
    sigaltstack(&ss, NULL);
}

void harness_guard_take_back(void)
{
    harness_process_restore();
    take_back_signals(1);
}

void harness_guard_end_forked_child(void)
{
    if (!harness_process_forked())
        return;
    char msg[512];
    const char *cb = harness_guard.callback ? harness_guard.callback : "a callback";
    int n = snprintf(msg, sizeof msg, "harness: %s: %s forked, and the child (pid %ld) returned into the harness; "
                     "the child ends here without writing to the folder (a process a plugin forks must end "
                     "with _exit, never return from the callback)\n",
                     g.variant_key ? g.variant_key : "the plugin", cb, (long)getpid());
    if (n > 0)
        say(msg);
    _exit(HARNESS_EXIT_RUNTIME);
}

void harness_guard_leave(void)
{
    harness_guard.armed = 0;
    harness_guard_end_forked_child();
    harness_guard_take_back();
}

/* device_restore.h - a device setting that outlives the process and must
 * be put back however it ends: clocks locked through NVML stay locked
 * after the process exits, for every later user, until someone resets
 * them or the driver reloads (schedule.lock_clocks).
 *
 * The backend that changed the setting registers one function that puts
 * it back, and clears it again once it has (its close: the normal path,
 * also after a first SIGINT/SIGTERM/SIGHUP, which stops the run between
 * steps and unwinds). The exits that skip the close call
 * harness_device_restore_now: the guard's paths (run/guard.c: a second
 * stop signal, a fatal signal outside a callback, exit() from a plugin)
 * and the run point's _exit after a crash; an atexit handler catches any
 * other exit(). The function runs at most once: the pointer is taken with
 * an atomic exchange, safe in a signal handler. What the function itself
 * does in a handler is its own to keep safe (backend/gpu_clocks.h). SIGKILL
 * leaves the setting as it is: the docs say how to reset it by hand. */
#ifndef HARNESS_DEVICE_RESTORE_H
#define HARNESS_DEVICE_RESTORE_H

typedef void (*harness_device_restore_fn)(void);

/* Register fn (NULL: clear, without running the one registered). */
void harness_device_restore_set(harness_device_restore_fn fn);

/* Run the registered function, if any, and clear it. */
void harness_device_restore_now(void);

#endif

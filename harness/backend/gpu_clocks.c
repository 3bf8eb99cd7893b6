/* gpu_clocks.c - NVML through dlopen (gpu_clocks.h). The prototypes are
 * NVML's documented C API: every call returns an nvmlReturn_t, 0 being
 * success, and a device is an opaque handle. */
#include "backend/gpu_clocks.h"

#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef void *nvml_device;
enum { NVML_CLOCK_SM = 1 };

struct harness_gpu_clocks {
    void *lib;
    nvml_device dev;
    int (*clock_info)(nvml_device, int, unsigned *);
    int (*max_clock_info)(nvml_device, int, unsigned *);
    int (*reasons)(nvml_device, unsigned long long *);
    int (*shutdown)(void);
    /* schedule.lock_clocks: looked up when asked for (an older NVML lacks them) */
    int (*reset_locked)(nvml_device);
    volatile sig_atomic_t locked;
    char bus_id[32];
    /* Volta on; NULL in an NVML without it (then no energy, the clocks still read) */
    int (*total_energy)(nvml_device, unsigned long long *);
};

/* Inside one of this file's NVML calls (harness_gpu_clocks_unlock: a
 * signal handler must not call NVML again on top of it). */
static volatile sig_atomic_t nvml_busy;

static void *sym(void *lib, const char *name, int *missing)
{
    void *f = dlsym(lib, name);
    *missing |= f == NULL;
    return f;
}

harness_gpu_clocks *harness_gpu_clocks_open(const char *bus_id, char *why, size_t cap)
{
    void *lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        snprintf(why, cap, "NVML not found (libnvidia-ml.so.1: %s)", dlerror());
        return NULL;
    }
    harness_gpu_clocks *c = calloc(1, sizeof *c);
    int missing = !c;
    int (*init)(void) = sym(lib, "nvmlInit_v2", &missing);
    int (*by_bus)(const char *, nvml_device *) = sym(lib, "nvmlDeviceGetHandleByPciBusId_v2", &missing);
    if (c) {
        c->lib = lib;
        c->clock_info = sym(lib, "nvmlDeviceGetClockInfo", &missing);
        c->max_clock_info = sym(lib, "nvmlDeviceGetMaxClockInfo", &missing);
        c->reasons = sym(lib, "nvmlDeviceGetCurrentClocksThrottleReasons", &missing);
        c->shutdown = sym(lib, "nvmlShutdown", &missing);
        c->total_energy = (int (*)(nvml_device, unsigned long long *))dlsym(lib, "nvmlDeviceGetTotalEnergyConsumption");
    }
    if (c)
        snprintf(c->bus_id, sizeof c->bus_id, "%s", bus_id);
    int rc = missing ? -1 : init();
    if (rc == 0 && (rc = by_bus(bus_id, &c->dev)) != 0)
        c->shutdown();
    if (rc != 0) {
        snprintf(why, cap, missing ? "NVML lacks a function the harness calls" : "NVML knows no device at %s (error %d)",
                 bus_id, rc);
        free(c);
        dlclose(lib);
        return NULL;
    }
    return c;
}

int harness_gpu_clocks_read(harness_gpu_clocks *c, double *sm_mhz, double *sm_max_mhz, uint64_t *reasons)
{
    unsigned now = 0, most = 0;
    unsigned long long bits = 0;
    if (!c)
        return -1;
    nvml_busy = 1;
    int rc = c->clock_info(c->dev, NVML_CLOCK_SM, &now) != 0 || c->max_clock_info(c->dev, NVML_CLOCK_SM, &most) != 0 ||
             c->reasons(c->dev, &bits) != 0;
    nvml_busy = 0;
    if (rc)
        return -1;
    *sm_mhz = now;
    *sm_max_mhz = most;
    *reasons = bits;
    return 0;
}

int harness_gpu_clocks_energy_mj(harness_gpu_clocks *c, double *mj)
{
    unsigned long long v = 0;
    if (!c || !c->total_energy || c->total_energy(c->dev, &v) != 0)
        return -1;
    *mj = (double)v;
    return 0;
}

void harness_gpu_clocks_close(harness_gpu_clocks *c)
{
    if (!c)
        return;
    harness_gpu_clocks_unlock(c);
    c->shutdown();
    dlclose(c->lib);
    free(c);
}

/* nvmlClockLimitId_t: the symbolic "base" (TDP) clock for
 * nvmlDeviceSetGpuLockedClocks, and the permission error. */
#define NVML_CLOCK_LIMIT_ID_TDP 0xffffff01u
enum { NVML_ERROR_NOT_SUPPORTED = 3, NVML_ERROR_NO_PERMISSION = 4 };

int harness_gpu_clocks_lock(harness_gpu_clocks *c, int at_max, double *mhz, char *why, size_t cap)
{
    int (*set)(nvml_device, unsigned, unsigned) = dlsym(c->lib, "nvmlDeviceSetGpuLockedClocks");
    const char *(*text)(int) = dlsym(c->lib, "nvmlErrorString");
    c->reset_locked = dlsym(c->lib, "nvmlDeviceResetGpuLockedClocks");
    if (!set || !c->reset_locked) {
        snprintf(why, cap, "not possible: this NVML has no nvmlDeviceSetGpuLockedClocks (a driver older than R418)");
        return -1;
    }
    unsigned target = NVML_CLOCK_LIMIT_ID_TDP, most = 0;
    if (at_max) {
        if (c->max_clock_info(c->dev, NVML_CLOCK_SM, &most) != 0 || most == 0) {
            snprintf(why, cap, "not possible: NVML does not say the device's most SM clock");
            return -1;
        }
        target = most;
    }
    int rc = set(c->dev, target, target);
    if (rc != 0) {
        const char *t = text ? text(rc) : "";
        if (rc == NVML_ERROR_NO_PERMISSION)
            snprintf(why, cap, "not permitted: NVML_ERROR_NO_PERMISSION (%s), locking clocks needs root", t);
        else if (rc == NVML_ERROR_NOT_SUPPORTED)
            snprintf(why, cap, "not supported: this device cannot lock its clocks (%s)", t);
        else
            snprintf(why, cap, "refused: NVML error %d (%s)", rc, t);
        return -1;
    }
    c->locked = 1;
    *mhz = most;
    return 0;
}

int harness_gpu_clocks_unlock(harness_gpu_clocks *c)
{
    if (!c || !c->locked)
        return 0;
    if (nvml_busy) {
        static const char msg[] = "harness: the GPU's locked clocks were not reset (the process ended inside an NVML "
                                  "call); reset them with: nvidia-smi -i ";
        ssize_t ignored = write(2, msg, sizeof msg - 1);
        ignored = write(2, c->bus_id, strlen(c->bus_id));
        ignored = write(2, " -rgc\n", 6);
        (void)ignored;
        return -1;
    }
    c->locked = 0;
    nvml_busy = 1;
    int rc = c->reset_locked(c->dev);
    nvml_busy = 0;
    return rc == 0 ? 0 : -1;
}

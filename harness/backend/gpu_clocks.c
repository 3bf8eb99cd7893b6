/* gpu_clocks.c - NVML through dlopen (gpu_clocks.h). The prototypes are
 * NVML's documented C API: every call returns an nvmlReturn_t, 0 being
 * success, and a device is an opaque handle. */
#include "backend/gpu_clocks.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef void *nvml_device;
enum { NVML_CLOCK_SM = 1 };

struct harness_gpu_clocks {
    void *lib;
    nvml_device dev;
    int (*clock_info)(nvml_device, int, unsigned *);
    int (*max_clock_info)(nvml_device, int, unsigned *);
    int (*reasons)(nvml_device, unsigned long long *);
    int (*shutdown)(void);
    /* Volta on; NULL in an NVML without it (then no energy, the clocks still read) */
    int (*total_energy)(nvml_device, unsigned long long *);
};

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
    if (!c || c->clock_info(c->dev, NVML_CLOCK_SM, &now) != 0 || c->max_clock_info(c->dev, NVML_CLOCK_SM, &most) != 0 ||
        c->reasons(c->dev, &bits) != 0)
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
    c->shutdown();
    dlclose(c->lib);
    free(c);
}

/* Choosing and opening a backend. */
#include "backend/backend.h"

#include <stdio.h>
#include <string.h>

#include "backend/cuda_peaks.h"
#include "backend/peak_margin.h"
#include "backend/device_restore.h"
#include "backend/gpu_probe.h"
#include "build_config.h"

int harness_backend_open(harness_backend *b, const char *device, const harness_backend_options *opts,
                         harness_error *err)
{
    static const harness_backend_options defaults;
    if (strcmp(device, "cpu") == 0) {
        harness_cpu_backend_init(b, 0);
        b->opts = opts ? *opts : defaults;
        return 0;
    }
    if (strcmp(device, "cuda") != 0)
        return harness_error_set(err, HARNESS_EXIT_USAGE, "device: expected cpu or cuda, got '%s'", device);
    char why[512];
    harness_cuda_backend_open_fn open_cuda = (harness_cuda_backend_open_fn)(void (*)(void))harness_cuda_module_symbol(
        "cuda_backend", "harness_cuda_backend_open", why, sizeof why);
    if (!open_cuda)
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "device cuda: %s; use --device cpu", why);
    /* The host clock still times what the host does (launch cost, windows). */
    harness_cpu_backend_init(b, 0);
    b->opts = opts ? *opts : defaults;
    if (open_cuda(b, err) != 0) {
        memset(b, 0, sizeof *b);
        return err->code ? err->code : harness_error_set(err, HARNESS_EXIT_RUNTIME, "device cuda: cannot open");
    }
    harness_backend_cuda_peaks(b);
    if (b->ops->restore_device)    /* exits that skip close put the device back too */
        harness_device_restore_set(b->ops->restore_device);
    return 0;
}

void harness_backend_cuda_peaks(harness_backend *b)
{
    const harness_device_info *i = &b->info;
    harness_cuda_device_numbers d = {i->cc_major, i->cc_minor, i->sm_count, i->sm_clock_mhz * 1e3,
                                     i->mem_clock_mhz * 1e3, i->bus_width_bits, b->device_name};
    harness_cuda_peaks p;
    harness_cuda_peaks_compute(&d, &p);
    memset(&b->peaks, 0, sizeof b->peaks);
    b->peaks.bytes_per_s = p.bytes_per_s;
    b->peaks.flops_per_s = p.fp32_flops_per_s;
    b->peaks.fp16_flops_per_s = p.fp16_flops_per_s;
    b->peaks.bf16_flops_per_s = p.bf16_flops_per_s;
    b->peaks.cache_bytes = (double)i->l2_bytes;
    /* FLOP/s: the clock furthest below the reported one bounds them all. */
    double quoted = p.fp32_clock_mhz > 0 && p.fp32_clock_mhz < p.tensor_clock_mhz ? p.fp32_clock_mhz
                                                                                : p.tensor_clock_mhz;
    b->peaks.flops_margin = harness_peak_margin_datasheet(i->sm_clock_mhz, quoted, b->peaks.flops_margin_why,
                                                          sizeof b->peaks.flops_margin_why);
    b->peaks.bytes_margin = harness_peak_margin_datasheet(0, 0, b->peaks.bytes_margin_why,
                                                          sizeof b->peaks.bytes_margin_why);
    snprintf(b->info.arch, sizeof b->info.arch, "%s", p.arch ? p.arch : "unknown");
    if (p.sku) {
        /* Say which datasheet and the clock its figures assume: the device
         * reports a higher boost clock that the tensor figures do not use. */
        snprintf(b->peaks.source, sizeof b->peaks.source,
                 "NVIDIA's %s datasheet, dense: %.1f TFLOP/s bf16/fp16 at %.0f MHz, %.1f TFLOP/s fp32 at %.0f MHz, "
                 "%.2f TB/s (backend/cuda_peaks.c; the device reports %.0f MHz)", p.sku, p.bf16_flops_per_s / 1e12,
                 p.tensor_clock_mhz, p.fp32_flops_per_s / 1e12, p.fp32_clock_mhz, p.bytes_per_s / 1e12,
                 i->sm_clock_mhz);
        return;
    }
    snprintf(b->peaks.source, sizeof b->peaks.source,
             "device %d attributes (memory clock x bus width x 2; %d SMs x %.0f MHz) and the %s rates of "
             "backend/cuda_peaks.c", i->index, i->sm_count, i->sm_clock_mhz, p.arch ? p.arch : "(unknown)");
    if (!p.arch)
        snprintf(b->peaks.missing, sizeof b->peaks.missing,
                 "compute capability %d.%d is not in the peak table (backend/cuda_peaks.c)", i->cc_major, i->cc_minor);
}

void harness_backend_close(harness_backend *b)
{
    int restores = b->ops && b->ops->restore_device;
    if (b->ops && b->ops->close)
        b->ops->close(b);          /* puts the device back itself */
    if (restores)
        harness_device_restore_set(NULL);
    memset(b, 0, sizeof *b);
}

int harness_device_resolve(const char *wanted, const char **out, harness_error *err)
{
    if (strcmp(wanted, "cpu") == 0) {
        *out = "cpu";
        return 0;
    }
    if (strcmp(wanted, "auto") != 0 && strcmp(wanted, "cuda") != 0)
        return harness_error_set(err, HARNESS_EXIT_USAGE, "device: expected auto, cpu or cuda, got '%s'", wanted);
    const harness_gpu_info *gpu = harness_gpu_probe();
    if (gpu->count > 0 || strcmp(wanted, "auto") == 0) {
        *out = gpu->count > 0 ? "cuda" : "cpu";
        return 0;
    }
    return harness_error_set(err, HARNESS_EXIT_RUNTIME,
#ifdef HAVE_CUDA
                             "device cuda: no CUDA device is visible (%s; check nvidia-smi and "
                             "CUDA_VISIBLE_DEVICES); use --device cpu or auto", gpu->why_none
#else
                             "device cuda: this harness was built without CUDA; reconfigure with "
                             "--with-cuda, or use --device cpu or auto"
#endif
    );
}

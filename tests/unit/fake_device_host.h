/* fake_device_host.h - the harness as the CUDA plugins' tests see it: a
 * service table whose "device" memory is host memory (with a limit, to run
 * out of), a deterministic fill, strict regions, and cudaMemGetInfo's
 * answer, so a plugin's create, check, step and destroy run without a GPU
 * (test_attention_cuda_plugin.c, test_transformer_block_cuda_plugin.c).
 * Parameters come from a name/value list, else the variant's defaults. */
#ifndef TESTS_FAKE_DEVICE_HOST_H
#define TESTS_FAKE_DEVICE_HOST_H

#include <harness/plugin.h>

#include <stddef.h>
#include <stdint.h>

#define FAKE_HOST_MAX_TAGS 32
#define FAKE_HOST_MAX_REGIONS 64

struct harness_ctx {
    const char *const *params;     /* name, value, name, value, ..., NULL */
    const harness_variant *variant;   /* the first registered, unless the test picks another */
    const harness_variant *variants[2];
    int n_variants;
    char why[512], logged[512];    /* the last fail and log messages */
    char noted[512];               /* the last note, "key: value" */
    int rank, world_size, all_reduces;
    size_t device_used, device_limit;
    uint32_t rng;
    harness_dtype filled;          /* the last fill's */
    /* Device allocations by tag, for the test to look at. */
    const char *tags[FAKE_HOST_MAX_TAGS];
    void *tagged[FAKE_HOST_MAX_TAGS];
    int n_tags;
    const char *regions[FAKE_HOST_MAX_REGIONS];   /* pushed, in order; never nested */
    int n_regions, depth;
};

/* What the fake cudaMemGetInfo says (1 TiB free of 2 by default). */
extern size_t fake_free_bytes, fake_total_bytes;
/* The compute capability the fake cudaDeviceGetAttribute gives device 0
 * (major x 10 + minor; 80 by default). */
extern int fake_compute_capability;

/* Every service but the collectives. */
extern const harness_services fake_host_services;

const char *fake_host_param(harness_ctx *c, const char *name);
int64_t fake_host_int(harness_ctx *c, const char *name);
double fake_host_float(harness_ctx *c, const char *name);
int fake_host_bool(harness_ctx *c, const char *name);
int fake_host_fail(harness_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The live device buffer last allocated with `tag` (fails the test if none). */
void *fake_host_tagged(harness_ctx *c, const char *tag);

#endif

/* libFuzzer target: the config loader, through parameter binding and the
 * canonical dump. Whatever the bytes, loading must not crash or leak, and a
 * config that loads must dump to YAML that loads back and dumps to the same
 * bytes (the folder's hash is taken of the dump: it must be a fixed point). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"

/* A schema with every parameter type, like a real variant's. */
static const char *const dtypes[] = {"fp32", "bf16", "fp16", NULL};
static const harness_param params[] = {
    {.size = sizeof(harness_param), .name = "batch_size", .type = HARNESS_PARAM_INT, .default_value = "8",
     .bounds = HARNESS_PARAM_MIN, .min = 1, .help = "rows"},
    {.size = sizeof(harness_param), .name = "hidden_size", .type = HARNESS_PARAM_INT, .default_value = "64",
     .bounds = HARNESS_PARAM_MIN | HARNESS_PARAM_MAX, .min = 1, .max = 1 << 20, .help = "columns"},
    {.size = sizeof(harness_param), .name = "eps", .type = HARNESS_PARAM_FLOAT, .default_value = "1e-6",
     .bounds = HARNESS_PARAM_MIN, .min = 0, .help = "epsilon"},
    {.size = sizeof(harness_param), .name = "dtype", .type = HARNESS_PARAM_ENUM, .default_value = "fp32",
     .choices = dtypes, .help = "storage type"},
    {.size = sizeof(harness_param), .name = "causal", .type = HARNESS_PARAM_BOOL, .default_value = "false",
     .help = "mask"},
    {.size = sizeof(harness_param), .name = "label", .type = HARNESS_PARAM_STRING, .default_value = "x",
     .help = "a name"},
};

static char *load_and_dump(const char *text, size_t len, size_t point, size_t *n_points)
{
    harness_config *cfg = NULL;
    harness_error err = {0};
    if (harness_config_load_text("fuzz.yaml", text, len, NULL, 0, point, &cfg, &err) != 0)
        return NULL;
    if (n_points)
        *n_points = cfg->n_sweep_points;
    char *dump = NULL;
    if (harness_config_bind_params(cfg, "fuzz/cpu", params, sizeof params / sizeof params[0], &err) == 0)
        dump = harness_config_dump(cfg);
    harness_config_free(cfg);
    return dump;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t n_points = 1;
    char *dump = load_and_dump((const char *)data, size, 0, &n_points);
    if (!dump)
        return 0;
    char *again = load_and_dump(dump, strlen(dump), 0, NULL);
    if (!again || strcmp(dump, again) != 0) {
        fprintf(stderr, "round trip changed the dump:\n--- first\n%s\n--- second\n%s\n", dump,
                again ? again : "(did not load)");
        abort();
    }
    free(again);
    free(dump);
    /* The last point of a sweep goes through the same path with other values. */
    if (n_points > 1)
        free(load_and_dump((const char *)data, size, n_points - 1, NULL));
    return 0;
}

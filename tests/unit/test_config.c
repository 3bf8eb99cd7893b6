/* Unit tests of the config module: the YAML tree, validation, defaults,
 * --set, parameter binding, the canonical dump and its hash, did-you-mean,
 * and SHA-256. Config files are written to a fresh mkdtemp directory. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

/* By path: in the automake build `-I.` comes first and holds autoconf's config.h. */
#include "config/config.h"
#include "config/config_tree.h"
#include "util/sha256.h"
#include "util/suggest.h"

static char dir[64];

/* ---- fixtures --------------------------------------------------------- */

static int make_dir(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/harness_config_XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

static int remove_dir(void **state)
{
    (void)state;
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    for (struct dirent *e; (e = readdir(d));) {
        char path[512];
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        unlink(path);
    }
    closedir(d);
    return rmdir(dir);
}

/* Write `text` to dir/name and put that path in `path`. */
static void write_file(char *path, size_t size, const char *name, const char *text)
{
    snprintf(path, size, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

static const char *const dtypes[] = {"fp32", "bf16", "fp16", NULL};

/* A schema like rms_norm/cpu's, with every parameter type. */
static const harness_param rms_specs[] = {
    {sizeof(harness_param), "batch_size", HARNESS_PARAM_INT, "8", HARNESS_PARAM_MIN, 1, 0, NULL, "rows"},
    {sizeof(harness_param), "seq_len", HARNESS_PARAM_INT, "1024", HARNESS_PARAM_MIN | HARNESS_PARAM_MAX, 1, 1048576, NULL, "tokens"},
    {sizeof(harness_param), "hidden_size", HARNESS_PARAM_INT, NULL, HARNESS_PARAM_MIN, 1, 0, NULL, "features"},
    {sizeof(harness_param), "eps", HARNESS_PARAM_FLOAT, "1e-6", HARNESS_PARAM_MIN, 0, 0, NULL, "epsilon"},
    {sizeof(harness_param), "dtype", HARNESS_PARAM_ENUM, "fp32", 0, 0, 0, dtypes, "element type"},
    {sizeof(harness_param), "fused", HARNESS_PARAM_BOOL, "true", 0, 0, 0, NULL, "fuse the scale"},
    {sizeof(harness_param), "label", HARNESS_PARAM_STRING, "plain", 0, 0, 0, NULL, "free text"},
    {sizeof(harness_param), "scale", HARNESS_PARAM_FLOAT, "1", 0, 0, 0, NULL, "unbounded"},
};
#define N_RMS (sizeof rms_specs / sizeof *rms_specs)

static const harness_param copy_specs[] = {
    {sizeof(harness_param), "bytes", HARNESS_PARAM_INT, "4096", HARNESS_PARAM_MIN, 1, 0, NULL, "bytes per step"},
};

/* The message must start with `expected`; a leading "t.yaml" stands for the
 * file in the temp directory. */
static void check_message(const harness_error *err, const char *expected)
{
    char want[2048];
    if (strncmp(expected, "t.yaml", 6) == 0)
        snprintf(want, sizeof want, "%s/%s", dir, expected);
    else
        snprintf(want, sizeof want, "%s", expected);
    if (strncmp(err->msg, want, strlen(want)) != 0)
        fail_msg("message\n  %s\ndoes not start with\n  %s", err->msg, want);
}

static harness_config *load_ok(const char *name, const char *yaml, const char *const *sets, size_t n_sets)
{
    char path[512];
    harness_config *cfg = NULL;
    harness_error err = {0};
    write_file(path, sizeof path, name, yaml);
    if (harness_config_load(path, sets, n_sets, &cfg, &err) != 0)
        fail_msg("load failed: %s", err.msg);
    assert_non_null(cfg);
    return cfg;
}

static void bind_ok(harness_config *cfg)
{
    harness_error err = {0};
    if (harness_config_bind_params(cfg, "rms_norm/cpu", rms_specs, N_RMS, &err) != 0)
        fail_msg("bind failed: %s", err.msg);
}

static void expect_load_error(const char *yaml, const char *const *sets, size_t n_sets,
                              const char *expected)
{
    char path[512];
    harness_config *cfg = NULL;
    harness_error err = {0};
    write_file(path, sizeof path, "t.yaml", yaml);
    assert_int_equal(harness_config_load(path, sets, n_sets, &cfg, &err), HARNESS_EXIT_USAGE);
    assert_int_equal(err.code, HARNESS_EXIT_USAGE);
    assert_null(cfg);
    check_message(&err, expected);
}

static void expect_bind_error(const char *yaml, const char *const *sets, size_t n_sets,
                              const char *expected)
{
    harness_config *cfg = load_ok("t.yaml", yaml, sets, n_sets);
    harness_error err = {0};
    assert_int_equal(harness_config_bind_params(cfg, "rms_norm/cpu", rms_specs, N_RMS, &err),
                     HARNESS_EXIT_USAGE);
    assert_int_equal(err.code, HARNESS_EXIT_USAGE);
    assert_int_equal(cfg->n_params, 0);
    check_message(&err, expected);
    harness_config_free(cfg);
}

#define COMPONENT "component:\n  variant_key: rms_norm\n"

/* ---- bad input: the file ------------------------------------------------- */

static void bad_yaml_syntax(void **state)
{
    (void)state;
    expect_load_error(COMPONENT "device: [cpu, cuda\n", NULL, 0,
                      "t.yaml:4:1: YAML syntax error: did not find expected ',' or ']'");
}

static void bad_missing_file(void **state)
{
    (void)state;
    harness_config *cfg = NULL;
    harness_error err = {0};
    char path[512];
    snprintf(path, sizeof path, "%s/absent.yaml", dir);
    assert_int_equal(harness_config_load(path, NULL, 0, &cfg, &err), HARNESS_EXIT_USAGE);
    check_message(&err, path);
    assert_string_equal(err.msg + strlen(path), ": cannot read config: No such file or directory");
}

static void bad_directory(void **state)
{
    (void)state;
    harness_config *cfg = NULL;
    harness_error err = {0};
    assert_int_equal(harness_config_load(dir, NULL, 0, &cfg, &err), HARNESS_EXIT_USAGE);
    assert_non_null(strstr(err.msg, ": cannot read config: Is a directory"));
}

static void bad_empty_file(void **state)
{
    (void)state;
    expect_load_error("", NULL, 0, "t.yaml: file is empty");
    expect_load_error("# only a comment\n\n", NULL, 0, "t.yaml: file is empty");
    expect_load_error("---\n", NULL, 0, "t.yaml: file is empty");
}

static void bad_top_not_map(void **state)
{
    (void)state;
    expect_load_error("- component\n- schedule\n", NULL, 0,
                      "t.yaml:1:1: the top level must be a map of keys");
    expect_load_error("rms_norm\n", NULL, 0, "t.yaml:1:1: the top level must be a map of keys");
}

static void bad_duplicate_key(void **state)
{
    (void)state;
    expect_load_error(COMPONENT "device: cpu\ndevice: cuda\n", NULL, 0,
                      "t.yaml:4:1: device: duplicate key (first at line 3)");
    expect_load_error(COMPONENT "schedule:\n  repeat: 2\n  repeat: 3\n", NULL, 0,
                      "t.yaml:5:3: schedule.repeat: duplicate key (first at line 4)");
}

static void bad_alias(void **state)
{
    (void)state;
    expect_load_error(COMPONENT "device: *cpu\n", NULL, 0,
                      "t.yaml:3:9: device: aliases are not supported");
    expect_load_error(COMPONENT "schedule: &s\n  repeat: 2\n", NULL, 0,
                      "t.yaml:3:11: schedule: anchors and aliases are not supported");
}

static void bad_tag(void **state)
{
    (void)state;
    expect_load_error(COMPONENT "schedule:\n  repeat: !!int 3\n", NULL, 0,
                      "t.yaml:4:11: schedule.repeat: tags are not supported");
}

static void bad_multiple_documents(void **state)
{
    (void)state;
    expect_load_error(COMPONENT "---\n" COMPONENT, NULL, 0,
                      "t.yaml:3:1: multiple documents are not supported");
}

static void bad_key_not_scalar(void **state)
{
    (void)state;
    expect_load_error(COMPONENT "? [a, b]\n: 1\n", NULL, 0,
                      "t.yaml:3:3: map keys must be plain names");
}

/* ---- bad input: keys and values ------------------------------------------ */

static void bad_unknown_top_key(void **state)
{
    (void)state;
    expect_load_error(COMPONENT "schedul:\n  repeat: 2\n", NULL, 0,
                      "t.yaml:3:1: schedul: unknown key; did you mean schedule?");
}

static void bad_unknown_nested_key(void **state)
{
    (void)state;
    expect_load_error(COMPONENT "schedule:\n  warmup_step: 3\n", NULL, 0,
                      "t.yaml:4:3: schedule.warmup_step: unknown key; did you mean warmup_steps?");
    expect_load_error(COMPONENT "schedule:\n  stopping:\n    patience: 3\n", NULL, 0,
                      "t.yaml:5:5: schedule.stopping.patience: unknown key; expected one of "
                      "max_rel_ci, min_steps, max_steps, max_time_s");
}

static void bad_string_for_int(void **state)
{
    (void)state;
    expect_load_error(COMPONENT "schedule:\n  warmup_steps: abc\n", NULL, 0,
                      "t.yaml:4:17: schedule.warmup_steps: expected an integer >= 0, got abc");
}

static void bad_quoted_int(void **state)
{
    (void)state;
    expect_load_error(COMPONENT "schedule:\n  repeat: \"8\"\n", NULL, 0,
                      "t.yaml:4:11: schedule.repeat: expected an integer >= 1, got a string \"8\"");
}

static void bad_list_for_scalar(void **state)
{
    (void)state;
    expect_load_error(COMPONENT "device: [cpu]\n", NULL, 0,
                      "t.yaml:3:9: device: expected one of auto, cpu, cuda, got a list");
}

static void bad_map_for_scalar(void **state)
{
    (void)state;
    expect_load_error(COMPONENT "schedule:\n  repeat: {times: 2}\n", NULL, 0,
                      "t.yaml:4:11: schedule.repeat: expected an integer >= 1, got a map");
}

static void bad_scalar_for_section(void **state)
{
    (void)state;
    expect_load_error(COMPONENT "schedule: 3\n", NULL, 0,
                      "t.yaml:3:11: schedule: expected a map of keys, got 3");
}

static void bad_float_for_int(void **state)
{
    (void)state;
    expect_load_error(COMPONENT "schedule:\n  warmup_steps: 1.5\n", NULL, 0,
                      "t.yaml:4:17: schedule.warmup_steps: expected an integer >= 0, got 1.5");
}

static void bad_negative_warmup(void **state)
{
    (void)state;
    expect_load_error(COMPONENT "schedule:\n  warmup_steps: -1\n", NULL, 0,
                      "t.yaml:4:17: schedule.warmup_steps: expected an integer >= 0, got -1");
}

static void bad_repeat_zero(void **state)
{
    (void)state;
    expect_load_error(COMPONENT "schedule:\n  repeat: 0\n", NULL, 0,
                      "t.yaml:4:11: schedule.repeat: expected an integer >= 1, got 0");
}

static void bad_int_overflow(void **state)
{
    (void)state;
    expect_load_error(COMPONENT "data:\n  seed: 99999999999999999999\n", NULL, 0,
                      "t.yaml:4:9: data.seed: expected an integer >= 0, got 99999999999999999999, "
                      "which does not fit in 64 bits");
}

static void bad_measurement_steps(void **state)
{
    (void)state;
    expect_load_error(COMPONENT "schedule:\n  measurement_steps: automatic\n", NULL, 0,
                      "t.yaml:4:22: schedule.measurement_steps: expected an integer >= 1 or auto, "
                      "got automatic");
}

static void bad_positive_float(void **state)
{
    (void)state;
    expect_load_error(COMPONENT "schedule:\n  stopping: {max_rel_ci: 0}\n", NULL, 0,
                      "t.yaml:4:26: schedule.stopping.max_rel_ci: expected a number > 0, got 0");
}

/* schedule.throttle_threshold: a share from 0 to 1; anything else names
 * the key, the file and the line. */
static void bad_throttle_threshold(void **state)
{
    (void)state;
    static const char *const bad[] = {"-0.1", "1.5", "fast", "nan", "\"0.5\"", "[0.5]"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char yaml[256], want[256];
        snprintf(yaml, sizeof yaml, COMPONENT "schedule:\n  throttle_threshold: %s\n", bad[i]);
        snprintf(want, sizeof want, "t.yaml:4:23: schedule.throttle_threshold: expected a number from 0 to 1 "
                 "(a share of the most SM clock; 0 never drops a step), got ");
        expect_load_error(yaml, NULL, 0, want);
    }
    const char *sets[] = {"schedule.throttle_threshold=2"};
    expect_load_error(COMPONENT, sets, 1, "--set schedule.throttle_threshold=2: schedule.throttle_threshold: expected a number from 0 to 1");
}

static void bad_lock_clocks(void **state)
{
    (void)state;
    expect_load_error(COMPONENT "schedule:\n  lock_clocks: maxx\n", NULL, 0,
                      "t.yaml:4:16: schedule.lock_clocks: expected one of off, base, max, got maxx; "
                      "did you mean max?");
    expect_load_error(COMPONENT "schedule:\n  lock_clocks: true\n", NULL, 0,
                      "t.yaml:4:16: schedule.lock_clocks: expected one of off, base, max, got true");
}

/* Both keys are left out of the dump at their defaults (written or not),
 * so the hash of every config that leaves them out stays what it was; set
 * otherwise, they are in it. */
static char *load_bind_dump(const char *name, const char *yaml);

/* experiment.gather and gather_max_bytes (dist/gather.h): left out of the
 * dump at their defaults, like the keys below, so no folder's hash moved;
 * set otherwise, in it; a wrong value names the key. */
static void gather_keys(void **state)
{
    (void)state;
#define SIZED COMPONENT "  config: {hidden_size: 64}\n"
    char *plain = load_bind_dump("a.yaml", SIZED);
    char *defaults = load_bind_dump("a.yaml", SIZED "experiment: {gather: auto, gather_max_bytes: 268435456}\n");
    char *set = load_bind_dump("a.yaml", SIZED "experiment: {gather: always, gather_max_bytes: 1000}\n");
#undef SIZED
    assert_string_equal(plain, defaults);
    assert_null(strstr(plain, "gather"));
    assert_non_null(strstr(set, "  gather: always\n  gather_max_bytes: 1000\n"));
    expect_load_error(COMPONENT "experiment:\n  gather: sometimes\n", NULL, 0,
                      "t.yaml:4:11: experiment.gather: expected one of auto, always, never, got sometimes");
    expect_load_error(COMPONENT "experiment:\n  gather_max_bytes: 0\n", NULL, 0,
                      "t.yaml:4:21: experiment.gather_max_bytes: expected an integer >= 1");
    free(plain);
    free(defaults);
    free(set);
}

static void good_later_keys_dump_only_when_set(void **state)
{
    (void)state;
#define SIZED COMPONENT "  config: {hidden_size: 64}\n"
    char *plain = load_bind_dump("a.yaml", SIZED);
    char *defaults = load_bind_dump("a.yaml", SIZED "schedule: {throttle_threshold: 0.75, lock_clocks: off}\n");
    assert_string_equal(plain, defaults);
    assert_null(strstr(plain, "throttle_threshold"));
    assert_null(strstr(plain, "lock_clocks"));
    char *set = load_bind_dump("a.yaml", SIZED "schedule: {throttle_threshold: 0, lock_clocks: max}\n");
#undef SIZED
    assert_non_null(strstr(set, "  throttle_threshold: 0.0\n  lock_clocks: max\n"));
    harness_config *cfg = load_ok("a.yaml", COMPONENT "schedule: {throttle_threshold: 1}\n", NULL, 0);
    assert_true(cfg->throttle_threshold == 1);
    assert_string_equal(cfg->lock_clocks, "off");
    harness_config_free(cfg);
    free(plain);
    free(defaults);
    free(set);
}

static void bad_sync_steps_with_auto(void **state)
{
    (void)state;
    expect_load_error(COMPONENT "schedule:\n  measurement_steps: auto\n  sync_steps: true\n", NULL, 0,
                      "t.yaml:5:15: schedule.sync_steps: needs a number of measurement_steps: with auto each rank "
                      "would stop on its own samples and the others would wait for it at the next step");
}

static void bad_max_below_min(void **state)
{
    (void)state;
    expect_load_error(COMPONENT "schedule:\n  stopping:\n    min_steps: 50\n    max_steps: 20\n",
                      NULL, 0,
                      "t.yaml:6:16: schedule.stopping.max_steps: expected an integer >= min_steps (50), got 20");
}

static void bad_bool(void **state)
{
    (void)state;
    expect_load_error(COMPONENT "profiling:\n  trace: yes\n", NULL, 0,
                      "t.yaml:4:10: profiling.trace: expected true or false, got yes");
}

static void bad_device_enum(void **state)
{
    (void)state;
    expect_load_error(COMPONENT "device: gpu\n", NULL, 0,
                      "t.yaml:3:9: device: expected one of auto, cpu, cuda, got gpu; did you mean cpu?");
}

static void bad_generator_enum(void **state)
{
    (void)state;
    expect_load_error(COMPONENT "data:\n  generator: random_norml\n", NULL, 0,
                      "t.yaml:4:14: data.generator: expected one of random_normal, random_uniform, "
                      "zeros, ones, got random_norml; did you mean random_normal?");
}

static void bad_ranks(void **state)
{
    (void)state;
    expect_load_error(COMPONENT "profiling:\n  profiled_ranks: [0, -1]\n", NULL, 0,
                      "t.yaml:4:23: profiling.profiled_ranks[1]: expected an integer from 0 to 2147483647, got -1");
    expect_load_error(COMPONENT "profiling:\n  profiled_ranks: some\n", NULL, 0,
                      "t.yaml:4:19: profiling.profiled_ranks: expected a list of ranks such as [0, 1], "
                      "or all, got some");
    expect_load_error(COMPONENT "profiling:\n  profiled_ranks: [1, 0, 1]\n", NULL, 0,
                      "t.yaml:4:19: profiling.profiled_ranks: rank 1 is listed twice");
}

static void bad_plugin_path(void **state)
{
    (void)state;
    expect_load_error(COMPONENT "plugin_path: {dir: x}\n", NULL, 0,
                      "t.yaml:3:14: plugin_path: expected a directory or a list of directories, got a map");
    expect_load_error(COMPONENT "plugin_path: [a, [b]]\n", NULL, 0,
                      "t.yaml:3:18: plugin_path[1]: expected a string, got a list");
}

static void bad_empty_string(void **state)
{
    (void)state;
    expect_load_error(COMPONENT "experiment:\n  output_dir: \"\"\n", NULL, 0,
                      "t.yaml:4:15: experiment.output_dir: must not be empty");
}


static void bad_missing_variant_key(void **state)
{
    (void)state;
    expect_load_error("component:\n  config: {hidden_size: 8}\n", NULL, 0,
                      "t.yaml:2:3: component.variant_key: required; name a family");
    expect_load_error("device: cpu\n", NULL, 0,
                      "t.yaml:1:1: component.variant_key: required");
    expect_load_error("component:\n  variant_key:\n", NULL, 0,
                      "t.yaml:2:15: component.variant_key: required");
}

static void bad_config_not_map(void **state)
{
    (void)state;
    expect_load_error(COMPONENT "  config: [8]\n", NULL, 0,
                      "t.yaml:3:11: component.config: expected a map of component parameters, got a list");
}

/* ---- sweep ---------------------------------------------------------------- */

#define SWEEP_2X2 COMPONENT "  config: {batch_size: 2}\nsweep:\n" \
    "  component.config.hidden_size: [1024, 4096]\n  component.config.dtype: [fp32, bf16]\n"

static harness_config *load_point_ok(const char *yaml, const char *const *sets, size_t n_sets, size_t point)
{
    char path[512];
    harness_config *cfg = NULL;
    harness_error err = {0};
    write_file(path, sizeof path, "t.yaml", yaml);
    if (harness_config_load_point(path, sets, n_sets, point, &cfg, &err) != 0)
        fail_msg("load of point %zu failed: %s", point, err.msg);
    bind_ok(cfg);
    return cfg;
}

/* The error of the first point of `yaml` that fails, loaded and bound. */
static void expect_sweep_error(const char *yaml, const char *const *sets, size_t n_sets, const char *expected)
{
    char path[512];
    write_file(path, sizeof path, "t.yaml", yaml);
    for (size_t point = 0;; point++) {
        harness_config *cfg = NULL;
        harness_error err = {0};
        int rc = harness_config_load_point(path, sets, n_sets, point, &cfg, &err);
        if (!rc)
            rc = harness_config_bind_params(cfg, "rms_norm/cpu", rms_specs, N_RMS, &err);
        size_t n = cfg ? cfg->n_sweep_points : 0;
        harness_config_free(cfg);
        if (rc) {
            assert_int_equal(rc, HARNESS_EXIT_USAGE);
            check_message(&err, expected);
            return;
        }
        if (point + 1 >= n)
            fail_msg("no point failed; expected %s", expected);
    }
}

static void good_sweep_product_order(void **state)
{
    (void)state;
    static const int64_t sizes[] = {1024, 1024, 4096, 4096};
    static const char *const types[] = {"fp32", "bf16", "fp32", "bf16"};
    char hashes[4][9];
    for (size_t i = 0; i < 4; i++) {
        harness_config *cfg = load_point_ok(SWEEP_2X2, NULL, 0, i);
        assert_int_equal(cfg->n_sweep_points, 4);
        assert_int_equal(cfg->sweep_point, i);
        assert_int_equal(cfg->n_sweep_keys, 2);
        assert_string_equal(cfg->sweep_keys[0], "component.config.hidden_size");
        assert_string_equal(cfg->sweep_keys[1], "component.config.dtype");
        assert_string_equal(cfg->sweep_values[1], types[i]);
        assert_int_equal(harness_config_param(cfg, "hidden_size")->i, sizes[i]);
        assert_string_equal(harness_config_param(cfg, "dtype")->s, types[i]);
        assert_int_equal(harness_config_param(cfg, "batch_size")->i, 2);
        char *dump = harness_config_dump(cfg);
        assert_non_null(dump);
        harness_config_hash8(dump, hashes[i]);
        for (size_t j = 0; j < i; j++)
            assert_string_not_equal(hashes[i], hashes[j]);
        free(dump);
        harness_config_free(cfg);
    }
    /* Without a sweep: one point, no keys. */
    harness_config *cfg = load_point_ok(COMPONENT "  config: {hidden_size: 8}\n", NULL, 0, 0);
    assert_int_equal(cfg->n_sweep_points, 1);
    assert_int_equal(cfg->n_sweep_keys, 0);
    harness_config_free(cfg);
}

static void good_sweep_dump(void **state)
{
    (void)state;
    harness_config *cfg = load_point_ok(SWEEP_2X2, NULL, 0, 3);
    char *dump = harness_config_dump(cfg);
    assert_non_null(dump);
    assert_null(strstr(dump, "sweep"));
    assert_non_null(strstr(dump, "    hidden_size: 4096\n"));
    assert_non_null(strstr(dump, "    dtype: bf16\n"));
    /* The dump of a point loads alone to the same dump. */
    harness_config *again = load_ok("again.yaml", dump, NULL, 0);
    bind_ok(again);
    char *dump2 = harness_config_dump(again);
    assert_string_equal(dump, dump2);
    free(dump2);
    harness_config_free(again);
    free(dump);
    harness_config_free(cfg);
}

static void good_sweep_with_set(void **state)
{
    (void)state;
    const char *sets[] = {"component.config.seq_len=3", "schedule.repeat=4"};
    for (size_t i = 0; i < 4; i++) {
        harness_config *cfg = load_point_ok(SWEEP_2X2, sets, 2, i);
        assert_int_equal(harness_config_param(cfg, "seq_len")->i, 3);
        assert_int_equal(cfg->repeat, 4);
        harness_config_free(cfg);
    }
    /* A sweep of a schedule key; null means no sweep. */
    harness_config *cfg = load_point_ok(COMPONENT "  config: {hidden_size: 8}\nsweep:\n  schedule.repeat: [2, 3]\n",
                                        NULL, 0, 1);
    assert_int_equal(cfg->repeat, 3);
    harness_config_free(cfg);
    cfg = load_point_ok(COMPONENT "  config: {hidden_size: 8}\nsweep:\n", NULL, 0, 0);
    assert_int_equal(cfg->n_sweep_points, 1);
    harness_config_free(cfg);
}

static void bad_sweep_unknown_path(void **state)
{
    (void)state;
    expect_sweep_error(COMPONENT "sweep:\n  schedule.repet: [1, 2]\n", NULL, 0,
                       "t.yaml:4:3: sweep.schedule.repet: unknown key; did you mean repeat?");
    expect_sweep_error(COMPONENT "sweep:\n  component.config.hiden_size: [1, 2]\n", NULL, 0,
                       "t.yaml:4:3: sweep.component.config.hiden_size: unknown parameter of rms_norm/cpu; "
                       "did you mean hidden_size?");
    expect_sweep_error(COMPONENT "sweep:\n  sweep.x: [1]\n", NULL, 0,
                       "t.yaml:4:3: sweep.sweep.x: a sweep cannot sweep itself");
    expect_sweep_error(COMPONENT "sweep:\n  validate.x: [1]\n", NULL, 0,
                       "t.yaml:4:3: sweep.validate.x: validate is a value, not a section");
}

static void bad_sweep_lists(void **state)
{
    (void)state;
    expect_sweep_error(COMPONENT "sweep:\n  schedule.repeat: []\n", NULL, 0,
                       "t.yaml:4:20: sweep.schedule.repeat: expected a non-empty list of values such as [1, 2], "
                       "got []");
    expect_sweep_error(COMPONENT "sweep:\n  schedule.repeat: 3\n", NULL, 0,
                       "t.yaml:4:20: sweep.schedule.repeat: expected a non-empty list of values such as [1, 2], "
                       "got 3");
    expect_sweep_error(COMPONENT "sweep: [1, 2]\n", NULL, 0,
                       "t.yaml:3:8: sweep: expected a map of config paths to lists of values, got a list");
    expect_sweep_error(COMPONENT "sweep:\n  schedule.repeat: [1]\n  schedule.repeat: [2]\n", NULL, 0,
                       "t.yaml:5:3: sweep.schedule.repeat: duplicate key (first at line 4)");
    expect_sweep_error(COMPONENT "sweep:\n  schedule.repeat: [1]\n  schedule: [{}]\n", NULL, 0,
                       "t.yaml:5:3: sweep.schedule: overlaps sweep.schedule.repeat (line 4)");
}

static void bad_sweep_value(void **state)
{
    (void)state;
    expect_sweep_error(COMPONENT "sweep:\n  component.config.hidden_size: [1024, -3]\n", NULL, 0,
                       "t.yaml:4:40: sweep.component.config.hidden_size[1]: expected an integer >= 1, got -3");
    expect_sweep_error(COMPONENT "  config: {hidden_size: 8}\nsweep:\n  schedule.repeat: [1, 0]\n", NULL, 0,
                       "t.yaml:5:24: sweep.schedule.repeat[1]: expected an integer >= 1, got 0");
}

static void bad_sweep_too_many(void **state)
{
    (void)state;
    /* 101 x 100 points */
    char yaml[4096], *p = yaml;
    p += sprintf(p, COMPONENT "sweep:\n  schedule.repeat: [");
    for (int i = 1; i <= 101; i++)
        p += sprintf(p, "%s%d", i > 1 ? ", " : "", i);
    p += sprintf(p, "]\n  data.seed: [");
    for (int i = 1; i <= 100; i++)
        p += sprintf(p, "%s%d", i > 1 ? ", " : "", i);
    sprintf(p, "]\n");
    expect_sweep_error(yaml, NULL, 0, "t.yaml:3:1: sweep: more than 10000 points; split the sweep");
}

static void bad_sweep_and_set(void **state)
{
    (void)state;
    const char *sets[] = {"component.config.dtype=fp16"};
    expect_sweep_error(SWEEP_2X2, sets, 1,
                       "t.yaml:6:3: sweep.component.config.dtype: both swept and --set "
                       "(--set component.config.dtype=fp16); drop one of them");
    const char *whole[] = {"component.config={hidden_size: 8}"};
    expect_sweep_error(SWEEP_2X2, whole, 1, "t.yaml:5:3: sweep.component.config.hidden_size: both swept and --set");
    const char *sweep_set[] = {"sweep.schedule.repeat=[1, 2]"};
    expect_sweep_error(COMPONENT "  config: {hidden_size: 8}\n", sweep_set, 1,
                       "--set sweep.schedule.repeat=[1, 2]: sweep: cannot be set with --set");
}

/* ---- bad input: --set ----------------------------------------------------- */

static void bad_set_no_equals(void **state)
{
    (void)state;
    const char *sets[] = {"schedule.repeat"};
    expect_load_error(COMPONENT, sets, 1,
                      "--set schedule.repeat: expected KEY=VALUE, e.g. --set schedule.repeat=3");
}

static void bad_set_empty_segment(void **state)
{
    (void)state;
    const char *sets[] = {"schedule..repeat=3"};
    expect_load_error(COMPONENT, sets, 1, "--set schedule..repeat=3: KEY must be a dotted path");
}

static void bad_set_unknown_path(void **state)
{
    (void)state;
    const char *sets[] = {"schedule.repet=3"};
    expect_load_error(COMPONENT, sets, 1,
                      "--set schedule.repet=3: schedule.repet: unknown key; did you mean repeat?");
    const char *top[] = {"profilng.trace=false"};
    expect_load_error(COMPONENT, top, 1,
                      "--set profilng.trace=false: profilng: unknown key; did you mean profiling?");
}

static void bad_set_value_type(void **state)
{
    (void)state;
    const char *sets[] = {"schedule.repeat=abc"};
    expect_load_error(COMPONENT "schedule:\n  repeat: 2\n", sets, 1,
                      "--set schedule.repeat=abc: schedule.repeat: expected an integer >= 1, got abc");
}

static void bad_set_through_scalar(void **state)
{
    (void)state;
    const char *sets[] = {"device.kind=cuda"};
    expect_load_error(COMPONENT "device: cpu\n", sets, 1,
                      "--set device.kind=cuda: device: holds cpu, not a map; cannot set device.kind inside it");
}

static void bad_set_syntax(void **state)
{
    (void)state;
    const char *sets[] = {"profiling.profiled_ranks=[0, 1"};
    expect_load_error(COMPONENT, sets, 1,
                      "--set profiling.profiled_ranks=[0, 1: YAML syntax error: did not find expected");
}

/* ---- bad input: binding ------------------------------------------------- */

static void bad_bind_unknown_param(void **state)
{
    (void)state;
    expect_bind_error(COMPONENT "  config:\n    hiden_size: 8\n", NULL, 0,
                      "t.yaml:4:5: component.config.hiden_size: unknown parameter of rms_norm/cpu; "
                      "did you mean hidden_size?");
    expect_bind_error(COMPONENT "  config:\n    hidden_size: 8\n    colour: red\n", NULL, 0,
                      "t.yaml:5:5: component.config.colour: unknown parameter of rms_norm/cpu; "
                      "its parameters are batch_size, seq_len, hidden_size, eps, dtype, fused, label, scale");
}

static void bad_bind_out_of_range(void **state)
{
    (void)state;
    expect_bind_error(COMPONENT "  config:\n    hidden_size: 8\n    batch_size: 0\n", NULL, 0,
                      "t.yaml:5:17: component.config.batch_size: expected an integer >= 1, got 0");
    expect_bind_error(COMPONENT "  config:\n    hidden_size: 8\n    seq_len: 2000000\n", NULL, 0,
                      "t.yaml:5:14: component.config.seq_len: expected an integer in [1, 1048576], got 2000000");
    expect_bind_error(COMPONENT "  config:\n    hidden_size: 8\n    eps: -1e-6\n", NULL, 0,
                      "t.yaml:5:10: component.config.eps: expected a number >= 0, got -1e-6");
}

static void bad_bind_type(void **state)
{
    (void)state;
    expect_bind_error(COMPONENT "  config:\n    hidden_size: \"8\"\n", NULL, 0,
                      "t.yaml:4:18: component.config.hidden_size: expected an integer >= 1, got a string \"8\"");
    expect_bind_error(COMPONENT "  config:\n    hidden_size: 8.5\n", NULL, 0,
                      "t.yaml:4:18: component.config.hidden_size: expected an integer >= 1, got 8.5");
    expect_bind_error(COMPONENT "  config:\n    hidden_size: 8\n    fused: maybe\n", NULL, 0,
                      "t.yaml:5:12: component.config.fused: expected true or false, got maybe");
    expect_bind_error(COMPONENT "  config:\n    hidden_size: 8\n    label: [a]\n", NULL, 0,
                      "t.yaml:5:12: component.config.label: expected a string, got a list");
}

static void bad_bind_enum(void **state)
{
    (void)state;
    expect_bind_error(COMPONENT "  config:\n    hidden_size: 8\n    dtype: bf61\n", NULL, 0,
                      "t.yaml:5:12: component.config.dtype: expected one of fp32, bf16, fp16, got bf61; "
                      "did you mean bf16?");
}

static void bad_bind_required(void **state)
{
    (void)state;
    expect_bind_error(COMPONENT "  config:\n    batch_size: 2\n", NULL, 0,
                      "t.yaml:4:5: component.config.hidden_size: required parameter of rms_norm/cpu is missing");
    expect_bind_error(COMPONENT, NULL, 0,
                      "t.yaml:2:3: component.config.hidden_size: required parameter of rms_norm/cpu is missing");
    expect_bind_error(COMPONENT "  config:\n    hidden_size:\n    batch_size: 2\n", NULL, 0,
                      "t.yaml:4:17: component.config.hidden_size: has no value; give one (an integer >= 1)");
}

/* An empty value is a mistake (`--set k=$UNSET`), never the default. */
static void bad_empty_value(void **state)
{
    (void)state;
    expect_load_error(COMPONENT "schedule:\n  repeat:\n", NULL, 0,
                      "t.yaml:4:10: schedule.repeat: has no value; give one, or leave the key out to use the default");
    const char *sets[] = {"schedule.measurement_steps=~"};
    expect_load_error(COMPONENT, sets, 1, "--set schedule.measurement_steps=~: schedule.measurement_steps: has no value");
    const char *param[] = {"component.config.batch_size="};
    expect_bind_error(COMPONENT "  config:\n    hidden_size: 8\n", param, 1,
                      "--set component.config.batch_size=: component.config.batch_size: has no value; give one "
                      "(an integer >= 1), or leave the key out to use the default");
    /* A section with nothing under it is only empty. */
    harness_config *cfg = load_ok("t.yaml", COMPONENT "  config:\nprofiling:\nschedule: ~\n", NULL, 0);
    assert_int_equal(cfg->warmup_steps, 20);
    harness_config_free(cfg);
}

static void bad_bind_names_the_set(void **state)
{
    (void)state;
    const char *sets[] = {"component.config.hidden_size=abc"};
    expect_bind_error(COMPONENT, sets, 1,
                      "--set component.config.hidden_size=abc: component.config.hidden_size: "
                      "expected an integer >= 1, got abc");
    const char *typo[] = {"component.config.hiden_size=8"};
    expect_bind_error(COMPONENT "  config: {hidden_size: 8}\n", typo, 1,
                      "--set component.config.hiden_size=8: component.config.hiden_size: "
                      "unknown parameter of rms_norm/cpu; did you mean hidden_size?");
}

static void bad_plugin_default(void **state)
{
    (void)state;
    static const harness_param broken[] = {
        {sizeof(harness_param), "n", HARNESS_PARAM_INT, "many", 0, 0, 0, NULL, "a bad default"},
    };
    harness_config *cfg = load_ok("t.yaml", COMPONENT, NULL, 0);
    harness_error err = {0};
    assert_int_equal(harness_config_bind_params(cfg, "broken/cpu", broken, 1, &err), HARNESS_EXIT_RUNTIME);
    assert_string_equal(err.msg, "broken/cpu: parameter n has the default \"many\", which is not "
                                 "an integer; the plugin is broken");
    harness_config_free(cfg);
}

/* ---- good input ------------------------------------------------------------ */

static void good_defaults(void **state)
{
    (void)state;
    harness_config *cfg = load_ok("rms_norm.yaml", COMPONENT, NULL, 0);
    assert_string_equal(cfg->name, "rms_norm");
    assert_string_equal(cfg->output_dir, "experiments");
    assert_string_equal(cfg->device, "auto");
    assert_int_equal(cfg->warmup_steps, 20);
    assert_int_equal(cfg->wait_steps, 5);
    assert_int_equal(cfg->measurement_steps, 100);
    assert_int_equal(cfg->repeat, 1);
    assert_true(cfg->stop_max_rel_ci == 0.01);
    assert_int_equal(cfg->stop_min_steps, 10);
    assert_int_equal(cfg->stop_max_steps, 100000);
    assert_true(cfg->stop_max_time_s == 30);
    assert_false(cfg->profile_all_ranks);
    assert_int_equal(cfg->n_profiled_ranks, 1);
    assert_int_equal(cfg->profiled_ranks[0], 0);
    assert_true(cfg->trace && cfg->memory && cfg->nvtx && cfg->cupti);
    assert_int_equal(cfg->memory_log_steps, 10);
    assert_string_equal(cfg->variant_key, "rms_norm");
    assert_int_equal(cfg->generator, HARNESS_GEN_RANDOM_NORMAL);
    assert_int_equal(cfg->seed, 1234);
    assert_true(cfg->validate);
    assert_int_equal(cfg->n_plugin_path, 0);
    assert_null(cfg->bound_key);
    harness_config_free(cfg);
}

static void good_full_file(void **state)
{
    (void)state;
    harness_config *cfg = load_ok("t.yaml",
                                  "experiment: {name: norm, output_dir: out/x}\n"
                                  "device: cuda\n"
                                  "schedule:\n  warmup_steps: 0\n  wait_steps: 0\n"
                                  "  measurement_steps: 7\n  repeat: 3\n"
                                  "  stopping: {max_rel_ci: 0.05, min_steps: 2, max_steps: 2, max_time_s: 1.5}\n"
                                  "profiling: {profiled_ranks: [3, 1], memory_log_steps: 1}\n"
                                  "component: {variant_key: rms_norm/cuda}\n"
                                  "data: {generator: ones, seed: 0}\n", NULL, 0);
    assert_string_equal(cfg->name, "norm");
    assert_string_equal(cfg->output_dir, "out/x");
    assert_string_equal(cfg->device, "cuda");
    assert_int_equal(cfg->warmup_steps, 0);
    assert_int_equal(cfg->measurement_steps, 7);
    assert_int_equal(cfg->repeat, 3);
    assert_true(cfg->stop_max_rel_ci == 0.05);
    assert_int_equal(cfg->stop_max_steps, 2);
    assert_true(cfg->stop_max_time_s == 1.5);
    assert_int_equal(cfg->n_profiled_ranks, 2);
    assert_int_equal(cfg->profiled_ranks[0], 1);  /* sorted */
    assert_int_equal(cfg->profiled_ranks[1], 3);
    assert_int_equal(cfg->generator, HARNESS_GEN_ONES);
    assert_int_equal(cfg->seed, 0);
    harness_config_free(cfg);
}

static void good_floats(void **state)
{
    (void)state;
    static const struct { const char *text; double value; } cases[] = {
        {"1e-6", 1e-6}, {"1.0e-6", 1e-6}, {".5", 0.5}, {"30", 30.0}, {"2.5E+3", 2500.0}, {"1.", 1.0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char yaml[256];
        snprintf(yaml, sizeof yaml, COMPONENT "  config: {hidden_size: 8, eps: %s, scale: -%s}\n"
                 "schedule:\n  stopping: {max_rel_ci: %s}\n", cases[i].text, cases[i].text, cases[i].text);
        harness_config *cfg = load_ok("t.yaml", yaml, NULL, 0);
        assert_true(cfg->stop_max_rel_ci == cases[i].value);
        bind_ok(cfg);
        assert_true(harness_config_param(cfg, "eps")->f == cases[i].value);
        assert_true(harness_config_param(cfg, "scale")->f == -cases[i].value);
        harness_config_free(cfg);
    }
}

static void good_bools(void **state)
{
    (void)state;
    harness_config *cfg = load_ok("t.yaml", COMPONENT "  config: {hidden_size: 8, fused: False}\n"
                                            "profiling: {trace: false, memory: True, nvtx: FALSE, cupti: TRUE}\n"
                                            "validate: False\n", NULL, 0);
    assert_false(cfg->trace);
    assert_true(cfg->memory);
    assert_false(cfg->nvtx);
    assert_true(cfg->cupti);
    assert_false(cfg->validate);
    bind_ok(cfg);
    assert_int_equal(harness_config_param(cfg, "fused")->i, 0);
    harness_config_free(cfg);
}

static void good_bind(void **state)
{
    (void)state;
    harness_config *cfg = load_ok("t.yaml", COMPONENT "  config:\n    hidden_size: 4096\n"
                                            "    dtype: bf16\n    label: 123\n", NULL, 0);
    bind_ok(cfg);
    assert_string_equal(cfg->bound_key, "rms_norm/cpu");
    assert_int_equal(cfg->n_params, N_RMS);
    for (size_t i = 0; i < N_RMS; i++)
        assert_ptr_equal(cfg->params[i].spec, &rms_specs[i]); /* schema order */
    const harness_param_value *v = harness_config_param(cfg, "hidden_size");
    assert_int_equal(v->i, 4096);
    assert_false(v->from_default);
    v = harness_config_param(cfg, "batch_size");
    assert_int_equal(v->i, 8);
    assert_true(v->from_default);
    assert_string_equal(harness_config_param(cfg, "dtype")->s, "bf16");
    assert_string_equal(harness_config_param(cfg, "label")->s, "123");
    assert_true(harness_config_param(cfg, "eps")->f == 1e-6);
    assert_int_equal(harness_config_param(cfg, "fused")->i, 1);
    assert_null(harness_config_param(cfg, "nope"));
    harness_config_free(cfg);
}

static void good_rebind(void **state)
{
    (void)state;
    harness_config *cfg = load_ok("t.yaml", COMPONENT "  config: {hidden_size: 16}\n", NULL, 0);
    bind_ok(cfg);
    harness_error err = {0};
    /* A failed bind leaves the earlier one in place. */
    assert_int_equal(harness_config_bind_params(cfg, "copy/cpu", copy_specs, 1, &err), HARNESS_EXIT_USAGE);
    assert_string_equal(cfg->bound_key, "rms_norm/cpu");
    bind_ok(cfg);
    assert_int_equal(cfg->n_params, N_RMS);
    harness_config_free(cfg);

    cfg = load_ok("t.yaml", COMPONENT, NULL, 0);
    assert_int_equal(harness_config_bind_params(cfg, "copy/cpu", copy_specs, 1, &err), 0);
    assert_int_equal(harness_config_param(cfg, "bytes")->i, 4096);
    assert_int_equal(harness_config_bind_params(cfg, "empty/cpu", NULL, 0, &err), 0);
    assert_int_equal(cfg->n_params, 0);
    assert_string_equal(cfg->bound_key, "empty/cpu");
    harness_config_free(cfg);
}

static void good_set_overrides(void **state)
{
    (void)state;
    const char *sets[] = {"schedule.repeat=5", "component.config.hidden_size=7", "experiment.name=my run",
                          "device=auto", "schedule.repeat=6"};
    harness_config *cfg = load_ok("t.yaml", COMPONENT "  config: {hidden_size: 4096}\n"
                                            "schedule:\n  repeat: 2\ndevice: cpu\n", sets, 5);
    assert_int_equal(cfg->repeat, 6); /* the last --set wins */
    assert_string_equal(cfg->name, "my run");
    assert_string_equal(cfg->device, "auto");
    bind_ok(cfg);
    assert_int_equal(harness_config_param(cfg, "hidden_size")->i, 7);
    harness_config_free(cfg);
}

static void good_set_creates_maps(void **state)
{
    (void)state;
    const char *sets[] = {"schedule.stopping.max_time_s=2", "component.config.hidden_size=7",
                          "profiling.profiled_ranks=[0,1]"};
    harness_config *cfg = load_ok("t.yaml", COMPONENT "profiling:\n", sets, 3);
    assert_true(cfg->stop_max_time_s == 2.0);
    assert_int_equal(cfg->n_profiled_ranks, 2);
    assert_int_equal(cfg->profiled_ranks[0], 0);
    assert_int_equal(cfg->profiled_ranks[1], 1);
    bind_ok(cfg);
    assert_int_equal(harness_config_param(cfg, "hidden_size")->i, 7);
    harness_config_free(cfg);
}

static void good_auto_and_all(void **state)
{
    (void)state;
    harness_config *cfg = load_ok("t.yaml", COMPONENT "schedule: {measurement_steps: auto}\n"
                                            "profiling: {profiled_ranks: all}\n", NULL, 0);
    assert_int_equal(cfg->measurement_steps, 0);
    assert_true(cfg->profile_all_ranks);
    char *text = harness_config_dump(cfg);
    assert_non_null(strstr(text, "\n  measurement_steps: auto\n"));
    assert_non_null(strstr(text, "\n  profiled_ranks: all\n"));
    free(text);
    harness_config_free(cfg);

    cfg = load_ok("t.yaml", COMPONENT "profiling: {profiled_ranks: []}\n", NULL, 0);
    assert_false(cfg->profile_all_ranks);
    assert_int_equal(cfg->n_profiled_ranks, 0);
    harness_config_free(cfg);
}

static void good_plugin_path(void **state)
{
    (void)state;
    char expected[600];
    harness_config *cfg = load_ok("t.yaml", COMPONENT "plugin_path: ./plugins\n", NULL, 0);
    assert_int_equal(cfg->n_plugin_path, 1);
    snprintf(expected, sizeof expected, "%s/./plugins", dir); /* next to the config file */
    assert_string_equal(cfg->plugin_path[0], expected);
    harness_config_free(cfg);

    cfg = load_ok("t.yaml", COMPONENT "plugin_path:\n  - /opt/a\n  - \"b c\"\n", NULL, 0);
    assert_int_equal(cfg->n_plugin_path, 2);
    assert_string_equal(cfg->plugin_path[0], "/opt/a");
    snprintf(expected, sizeof expected, "%s/b c", dir);
    assert_string_equal(cfg->plugin_path[1], expected);
    harness_config_free(cfg);

    /* Typed on the command line: relative to the working directory, made
     * absolute, so that the resolved config means the same anywhere. */
    const char *sets[] = {"plugin_path=my/plugins"};
    cfg = load_ok("t.yaml", COMPONENT, sets, 1);
    char cwd[512];
    assert_non_null(getcwd(cwd, sizeof cwd));
    snprintf(expected, sizeof expected, "%s/my/plugins", cwd);
    assert_string_equal(cfg->plugin_path[0], expected);
    harness_config_free(cfg);

    /* "." is the config's own folder. */
    cfg = load_ok("t.yaml", COMPONENT "plugin_path: .\n", NULL, 0);
    assert_string_equal(cfg->plugin_path[0], dir);
    harness_config_free(cfg);
}

static const char golden[] =
    "# resolved by harness; hashed for the experiment folder name\n"
    "experiment:\n"
    "  name: rms_norm\n"
    "  output_dir: experiments\n"
    "device: auto\n"
    "device_index: 0\n"
    "schedule:\n"
    "  warmup_steps: 20\n"
    "  wait_steps: 5\n"
    "  measurement_steps: 100\n"
    "  repeat: 1\n"
    "  stopping:\n"
    "    max_rel_ci: 0.01\n"
    "    min_steps: 10\n"
    "    max_steps: 100000\n"
    "    max_time_s: 30.0\n"
    "  step_timeout_s: 60\n"
    "  callback_timeout_s: 600\n"
    "  sync_steps: false\n"
    "  timing: per_step\n"
    "  flush_l2: false\n"
    "  cuda_graph: false\n"
    "profiling:\n"
    "  profiled_ranks: [0]\n"
    "  trace: true\n"
    "  memory: true\n"
    "  memory_log_steps: 10\n"
    "  max_trace_events: 1000000\n"
    "  nvtx: true\n"
    "  cupti: true\n"
    "component:\n"
    "  variant_key: rms_norm/cpu\n"
    "  config:\n"
    "    batch_size: 8\n"
    "    seq_len: 1024\n"
    "    hidden_size: 4096\n"
    "    eps: 1e-6\n"
    "    dtype: fp32\n"
    "    fused: true\n"
    "    label: plain\n"
    "    scale: 1.0\n"
    "data:\n"
    "  generator: random_normal\n"
    "  seed: 1234\n"
    "validate: true\n"
    "plugin_path: []\n";

static void good_dump_golden(void **state)
{
    (void)state;
    harness_config *cfg = load_ok("rms_norm.yaml", COMPONENT "  config: {hidden_size: 4096}\n", NULL, 0);
    bind_ok(cfg);
    char *text = harness_config_dump(cfg);
    assert_string_equal(text, golden);
    free(text);
    harness_config_free(cfg);
}

static char *load_bind_dump(const char *name, const char *yaml)
{
    harness_config *cfg = load_ok(name, yaml, NULL, 0);
    bind_ok(cfg);
    char *text = harness_config_dump(cfg);
    assert_non_null(text);
    harness_config_free(cfg);
    return text;
}

static void good_equivalent_configs(void **state)
{
    (void)state;
    char *a = load_bind_dump("a.yaml",
                             "experiment: {name: same}\n"
                             "component:\n  variant_key: rms_norm\n"
                             "  config: {hidden_size: 64, eps: 1e-6}\n"
                             "profiling: {profiled_ranks: [1, 0]}\n");
    char *b = load_bind_dump("b.yaml",
                             "profiling:\n  trace: true\n  profiled_ranks: [0, 1]\n"
                             "data: {seed: 1234, generator: random_normal}\n"
                             "component:\n  config:\n    eps: 1.0e-6\n    batch_size: 8\n    hidden_size: 64\n"
                             "  variant_key: rms_norm\n"
                             "schedule: {repeat: 1, stopping: {max_time_s: 30.0}}\n"
                             "experiment:\n  output_dir: experiments\n  name: same\n"
                             "plugin_path: []\n");
    assert_string_equal(a, b);
    char ha[9], hb[9];
    harness_config_hash8(a, ha);
    harness_config_hash8(b, hb);
    assert_string_equal(ha, hb);

    char *c = load_bind_dump("c.yaml", "experiment: {name: same}\ncomponent:\n  variant_key: rms_norm\n"
                                       "  config: {hidden_size: 65}\n");
    char hc[9];
    harness_config_hash8(c, hc);
    assert_string_not_equal(ha, hc);
    free(a);
    free(b);
    free(c);
}

static void good_dump_reloads(void **state)
{
    (void)state;
    static const char *const configs[] = {
        COMPONENT "  config: {hidden_size: 64, eps: 3.14159e-7, scale: 0.1, label: \"a: \\\"b\\\"\\n\\u00e9\\x7f\"}\n"
        "experiment: {name: \"123\", output_dir: \"dir with spaces\"}\n"
        "schedule: {measurement_steps: auto, stopping: {max_rel_ci: 1e-300, max_time_s: 1e300}}\n"
        "profiling: {profiled_ranks: all}\nplugin_path: [\"true\", x, \"-y\", \"\\t\"]\n",
        COMPONENT "  config: {hidden_size: 1, dtype: \"fp16\", label: \"\"}\ndata: {seed: 9223372036854775807}\n",
    };
    for (size_t i = 0; i < sizeof configs / sizeof *configs; i++) {
        char *first = load_bind_dump("first.yaml", configs[i]);
        char *second = load_bind_dump("second.yaml", first);
        assert_string_equal(first, second);
        free(first);
        free(second);
    }
}

static void good_unbound_dump_reloads(void **state)
{
    (void)state;
    harness_config *cfg = load_ok("t.yaml", COMPONENT "  config: {b: [1, \"2\", x y], a: {k: ~}, c: 1.0e-6}\n",
                                  NULL, 0);
    char *first = harness_config_dump(cfg);
    assert_non_null(strstr(first, "\n  variant_key: rms_norm\n  config: {a: {k: null}, b: [1, \"2\", \"x y\"], c: 1.0e-6}\n"));
    harness_config_free(cfg);
    cfg = load_ok("t.yaml", first, NULL, 0);
    char *second = harness_config_dump(cfg);
    assert_string_equal(first, second);
    free(first);
    free(second);
    harness_config_free(cfg);
}

static void good_hash8(void **state)
{
    (void)state;
    char h[9];
    harness_config_hash8("abc", h);
    assert_string_equal(h, "ba7816bf");
    harness_config_hash8(golden, h);
    assert_int_equal(strlen(h), 8);
    assert_int_equal(strspn(h, "0123456789abcdef"), 8);
}

static void good_free_null(void **state)
{
    (void)state;
    harness_config_free(NULL);
}

/* ---- the pieces ------------------------------------------------------------ */

static void hex(const uint8_t d[32], char out[65])
{
    for (int i = 0; i < 32; i++)
        snprintf(out + 2 * i, 3, "%02x", d[i]);
}

static void sha256_vectors(void **state)
{
    (void)state;
    /* FIPS 180-4 examples (NIST CSRC "Examples with intermediate values"). */
    static const struct { const char *msg, *digest; } v[] = {
        {"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
        {"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
        {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
    };
    uint8_t d[32];
    char h[65];
    for (size_t i = 0; i < sizeof v / sizeof *v; i++) {
        harness_sha256_digest(v[i].msg, strlen(v[i].msg), d);
        hex(d, h);
        assert_string_equal(h, v[i].digest);
    }

    /* One million 'a', fed in uneven pieces across block boundaries. */
    static char chunk[997];
    memset(chunk, 'a', sizeof chunk);
    harness_sha256 s;
    harness_sha256_init(&s);
    for (size_t left = 1000000; left > 0;) {
        size_t n = left < sizeof chunk ? left : sizeof chunk;
        harness_sha256_update(&s, chunk, n);
        left -= n;
    }
    harness_sha256_final(&s, d);
    hex(d, h);
    assert_string_equal(h, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

static void suggest_distance(void **state)
{
    (void)state;
    const char *keys[] = {"batch_size", "hidden_size", "seq_len"};
    assert_string_equal(harness_suggest("hiden_size", keys, 3), "hidden_size");
    assert_string_equal(harness_suggest("seqlen", keys, 3), "seq_len");
    assert_null(harness_suggest("colour", keys, 3));
    assert_null(harness_suggest("x", keys, 0));
    const char *short_words[] = {"cpu", "cuda", "auto"};
    assert_string_equal(harness_suggest("gpu", short_words, 3), "cpu");
    assert_string_equal(harness_suggest("cud", short_words, 3), "cuda");
    assert_string_equal(harness_suggest("cdua", short_words, 3), "cpu"); /* 2 edits each: the first wins */
    assert_null(harness_suggest("xyz", short_words, 3));
    /* Case is ignored: 3 edits apart otherwise, past the limit. */
    assert_string_equal(harness_suggest("CPU", short_words, 3), "cpu");
    const char *families[] = {"attention", "rms_norm", "transformer_block"};
    assert_string_equal(harness_suggest("RMS_norm", families, 3), "rms_norm");
    assert_string_equal(harness_suggest("RMS_nrom", families, 3), "rms_norm");
}

static void scalar_forms(void **state)
{
    (void)state;
    int64_t i;
    double d;
    int b;
    assert_int_equal(harness_parse_int("+42", &i), 0);
    assert_int_equal(i, 42);
    assert_int_equal(harness_parse_int("-9223372036854775808", &i), 0);
    assert_int_equal(harness_parse_int("9223372036854775808", &i), -2);
    assert_int_equal(harness_parse_int("0x10", &i), -1);
    assert_int_equal(harness_parse_int("1_000", &i), -1);
    assert_int_equal(harness_parse_int("", &i), -1);
    assert_int_equal(harness_parse_float("-2.5E+3", &d), 0);
    assert_true(d == -2500.0);
    assert_int_equal(harness_parse_float("1e999", &d), -2);
    assert_int_equal(harness_parse_float(".", &d), -1);
    assert_int_equal(harness_parse_float("1e", &d), -1);
    assert_int_equal(harness_parse_float(".inf", &d), -1);
    assert_int_equal(harness_parse_float("nan", &d), -1);
    assert_int_equal(harness_parse_float("0x1p3", &d), -1);
    assert_int_equal(harness_parse_bool("TRUE", &b), 0);
    assert_int_equal(b, 1);
    assert_int_equal(harness_parse_bool("yes", &b), -1);
    assert_int_equal(harness_parse_bool("tRUE", &b), -1);
}

static void tree_positions(void **state)
{
    (void)state;
    char path[512];
    harness_config_tree *tree = NULL;
    harness_error err = {0};
    write_file(path, sizeof path, "t.yaml", "# comment\na:\n  bb: 'x'\n  cc: [1, \"2\"]\n");
    assert_int_equal(harness_tree_load(path, &tree, &err), 0);
    const harness_node_entry *e = harness_tree_find(tree, "a.bb");
    assert_non_null(e);
    assert_int_equal(e->at.line, 3);
    assert_int_equal(e->at.col, 3);
    assert_int_equal(e->value->at.line, 3);
    assert_int_equal(e->value->at.col, 7);
    assert_true(e->value->quoted);
    e = harness_tree_find(tree, "a.cc");
    assert_int_equal(e->value->kind, HARNESS_NODE_LIST);
    assert_int_equal(e->value->n, 2);
    assert_false(e->value->items[0]->quoted);
    assert_true(e->value->items[1]->quoted);
    assert_int_equal(e->value->items[1]->at.col, 11);
    assert_null(harness_tree_find(tree, "a.dd"));
    assert_null(harness_tree_find(tree, "a.bb.x"));
    harness_tree_free(tree);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(bad_yaml_syntax),
    cmocka_unit_test(bad_missing_file),
    cmocka_unit_test(bad_directory),
    cmocka_unit_test(bad_empty_file),
    cmocka_unit_test(bad_top_not_map),
    cmocka_unit_test(bad_duplicate_key),
    cmocka_unit_test(bad_alias),
    cmocka_unit_test(bad_tag),
    cmocka_unit_test(bad_multiple_documents),
    cmocka_unit_test(bad_key_not_scalar),
    cmocka_unit_test(bad_unknown_top_key),
    cmocka_unit_test(bad_unknown_nested_key),
    cmocka_unit_test(bad_string_for_int),
    cmocka_unit_test(bad_quoted_int),
    cmocka_unit_test(bad_list_for_scalar),
    cmocka_unit_test(bad_map_for_scalar),
    cmocka_unit_test(bad_scalar_for_section),
    cmocka_unit_test(bad_float_for_int),
    cmocka_unit_test(bad_negative_warmup),
    cmocka_unit_test(bad_repeat_zero),
    cmocka_unit_test(bad_int_overflow),
    cmocka_unit_test(bad_measurement_steps),
    cmocka_unit_test(bad_positive_float),
    cmocka_unit_test(bad_throttle_threshold),
    cmocka_unit_test(bad_lock_clocks),
    cmocka_unit_test(bad_max_below_min),
    cmocka_unit_test(bad_sync_steps_with_auto),
    cmocka_unit_test(bad_bool),
    cmocka_unit_test(bad_device_enum),
    cmocka_unit_test(bad_generator_enum),
    cmocka_unit_test(bad_ranks),
    cmocka_unit_test(bad_plugin_path),
    cmocka_unit_test(bad_empty_string),
    cmocka_unit_test(bad_missing_variant_key),
    cmocka_unit_test(bad_config_not_map),
    cmocka_unit_test(bad_sweep_unknown_path),
    cmocka_unit_test(bad_sweep_lists),
    cmocka_unit_test(bad_sweep_value),
    cmocka_unit_test(bad_sweep_too_many),
    cmocka_unit_test(bad_sweep_and_set),
    cmocka_unit_test(good_sweep_product_order),
    cmocka_unit_test(good_sweep_dump),
    cmocka_unit_test(good_sweep_with_set),
    cmocka_unit_test(bad_set_no_equals),
    cmocka_unit_test(bad_set_empty_segment),
    cmocka_unit_test(bad_set_unknown_path),
    cmocka_unit_test(bad_set_value_type),
    cmocka_unit_test(bad_set_through_scalar),
    cmocka_unit_test(bad_set_syntax),
    cmocka_unit_test(bad_bind_unknown_param),
    cmocka_unit_test(bad_bind_out_of_range),
    cmocka_unit_test(bad_bind_type),
    cmocka_unit_test(bad_bind_enum),
    cmocka_unit_test(bad_bind_required),
    cmocka_unit_test(bad_empty_value),
    cmocka_unit_test(bad_bind_names_the_set),
    cmocka_unit_test(bad_plugin_default),
    cmocka_unit_test(good_defaults),
    cmocka_unit_test(good_full_file),
    cmocka_unit_test(good_floats),
    cmocka_unit_test(good_bools),
    cmocka_unit_test(good_bind),
    cmocka_unit_test(good_rebind),
    cmocka_unit_test(good_set_overrides),
    cmocka_unit_test(good_set_creates_maps),
    cmocka_unit_test(good_auto_and_all),
    cmocka_unit_test(good_plugin_path),
    cmocka_unit_test(good_later_keys_dump_only_when_set),
    cmocka_unit_test(gather_keys),
        cmocka_unit_test(good_dump_golden),
    cmocka_unit_test(good_equivalent_configs),
    cmocka_unit_test(good_dump_reloads),
    cmocka_unit_test(good_unbound_dump_reloads),
    cmocka_unit_test(good_hash8),
    cmocka_unit_test(good_free_null),
    cmocka_unit_test(sha256_vectors),
    cmocka_unit_test(suggest_distance),
    cmocka_unit_test(scalar_forms),
    cmocka_unit_test(tree_positions),
};

int main(void)
{
    return cmocka_run_group_tests(tests, make_dir, remove_dir);
}

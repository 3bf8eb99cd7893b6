/* test_folder_codec.c - the folder stage's codec (harness/folder/): random
 * records written and read back equal (the rank summary through its writer
 * from a random record, and as JSON built here to reach what the writer
 * never writes; status.json, index.json and the
 * samples file through their writers), and the one set of rules for a
 * member that is absent, null or of the wrong kind (folder/json_fields.h):
 * unknown, unknown, exit 2 naming the file and the dotted key. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <cmocka.h>

#include "folder/folder_format.h"
#include "folder/job_summary.h"
#include "folder/rank_summary.h"
#include "folder/samples.h"
#include "folder/status.h"
#include "folder/suite_index.h"

#define ROUNDS 200

/* A deterministic generator, so a failure repeats. */
static uint64_t rng = 0x9e3779b97f4a7c15u;
static uint32_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)rng;
}
static int coin(void) { return next() & 1; }
/* Numbers cJSON_Print writes exactly (it keeps 15 digits; the summary's
 * writer keeps 17 for samples, report/sample_array.c). */
static double num(void) { return (double)(next() % 100000) / 8.0; }

/* A random string, malloc'ed: printable ASCII, quotes and backslashes,
 * and (unless ascii) UTF-8, which status.json's async-signal-safe writer
 * turns into '?' by design (folder/status.c). */
static char *words(int ascii)
{
    static const char *const parts[] = {"a", "rms", "/", "cpu", " ", "\"", "\\", "x9", "_", "é", "µs"};
    char buf[128] = "";
    for (uint32_t i = 0, n = 1 + next() % 6; i < n; i++)
        strcat(buf, parts[next() % (sizeof parts / sizeof *parts - (ascii ? 2 : 0))]);
    return strdup(buf);
}
static char *word(void) { return words(0); }

static char *temp_folder(void)
{
    char *dir = strdup("/tmp/test_folder_codec.XXXXXX");
    assert_non_null(dir);
    assert_non_null(mkdtemp(dir));
    return dir;
}

static void remove_folder(char *dir)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
    free(dir);
}

/* ---- the rank summary ------------------------------------------------------- */

/* A number or, one time in four, null (NAN in the record). */
static double maybe(cJSON *o, const char *key)
{
    if (next() % 4 == 0) {
        cJSON_AddNullToObject(o, key);
        return NAN;
    }
    double v = num();
    cJSON_AddNumberToObject(o, key, v);
    return v;
}

static void assert_same(double want, double got)
{
    if (isnan(want))
        assert_true(isnan(got));
    else
        assert_true(want == got);
}

static void assert_same_string(const char *want, const char *got)
{
    if (!want)
        assert_null(got);
    else
        assert_string_equal(want, got);
}

/* What the test wrote, to hold the reader's record against. */
typedef struct expected {
    int rank, world_size, validation_failed, windows_disagree;
    char *key, *status, *error, *name, *plugin, *host, *cpu;
    double bytes, flops, bound, jps, median0;
    size_t n_samples, n_windows, kept;
    double samples[64];
    size_t first[8], len[8];
} expected;

static void expected_free(expected *e)
{
    free(e->key), free(e->status), free(e->error), free(e->name), free(e->plugin), free(e->host), free(e->cpu);
}

static cJSON *energy(double *jps)
{
    cJSON *e = cJSON_CreateObject();
    cJSON_AddStringToObject(e, "status", "measured");
    if (coin()) {
        *jps = 0.5 + num();
        cJSON_AddNumberToObject(e, "joules_per_step", *jps);
    } else {
        *jps = NAN;
        cJSON_AddNullToObject(e, "joules_per_step");
    }
    cJSON_AddNullToObject(e, "watts");
    return e;
}

/* A random summary as report/summary_json.c lays it out, and what it says. */
static cJSON *random_summary(expected *e)
{
    memset(e, 0, sizeof *e);
    cJSON *root = cJSON_CreateObject();
    static const char *const statuses[] = {"ok", "failed", "interrupted", "validation_failed"};
    e->status = strdup(statuses[next() % 4]);
    e->world_size = 1 + (int)(next() % 8);
    e->rank = (int)(next() % (uint32_t)e->world_size);
    cJSON_AddStringToObject(root, "schema", HARNESS_SCHEMA_SUMMARY);
    cJSON_AddStringToObject(root, "status", e->status);
    if (coin())
        cJSON_AddStringToObject(root, "error", e->error = word());
    else
        cJSON_AddNullToObject(root, "error");
    cJSON_AddNumberToObject(root, "rank", e->rank);
    cJSON_AddNumberToObject(root, "world_size", e->world_size);
    if (coin())
        cJSON_AddStringToObject(cJSON_AddObjectToObject(root, "experiment"), "name", e->name = word());
    cJSON *comp = cJSON_AddObjectToObject(root, "component");
    cJSON_AddStringToObject(comp, "variant_key", e->key = word());
    cJSON_AddStringToObject(comp, "plugin", e->plugin = word());
    cJSON *config = cJSON_AddObjectToObject(comp, "config");
    cJSON_AddNumberToObject(config, "n", next() % 100);
    cJSON *val = cJSON_AddObjectToObject(root, "validation");
    int passed = coin();
    cJSON_AddStringToObject(val, "status", passed ? "passed" : "failed");
    cJSON_AddBoolToObject(val, "passed", passed);
    e->validation_failed = !passed || strcmp(e->status, "validation_failed") == 0;
    cJSON *timing = cJSON_AddObjectToObject(root, "timing");
    maybe(timing, "median");
    e->n_samples = next() % 64;
    cJSON *samples = cJSON_AddArrayToObject(timing, "samples");
    for (size_t i = 0; i < e->n_samples; i++)
        cJSON_AddItemToArray(samples, cJSON_CreateNumber(e->samples[i] = num()));
    /* windows: consecutive slices of the samples, some empty */
    cJSON *windows = cJSON_AddArrayToObject(timing, "windows");
    size_t at = 0;
    e->n_windows = next() % 5;
    for (size_t w = 0; w < e->n_windows; w++) {
        size_t n = w + 1 == e->n_windows ? e->n_samples - at : next() % (e->n_samples - at + 1);
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "index", (double)w);
        cJSON_AddNumberToObject(o, "first_sample", (double)at);
        cJSON_AddNumberToObject(o, "n", (double)n);
        double m = maybe(o, "median");
        if (w == 0)
            e->median0 = m;
        double jps;
        cJSON_AddItemToObject(o, "energy", energy(&jps));
        if (n) {
            e->first[e->kept] = at;
            e->len[e->kept++] = n;
        }
        cJSON_AddItemToArray(windows, o);
        at += n;
    }
    e->windows_disagree = coin();
    cJSON_AddBoolToObject(cJSON_AddObjectToObject(timing, "across_windows"), "windows_disagree", e->windows_disagree);
    cJSON *tp = cJSON_AddObjectToObject(root, "throughput");
    e->bytes = maybe(tp, "bytes_per_step");
    e->flops = maybe(tp, "flops_per_step");
    cJSON_AddItemToObject(root, "energy", energy(&e->jps));
    cJSON *env = cJSON_AddObjectToObject(root, "env");
    if (coin())
        cJSON_AddStringToObject(env, "host", e->host = word());
    cJSON_AddStringToObject(env, "cpu", e->cpu = word());
    cJSON_AddNullToObject(root, "impossible_figure");
    cJSON *noise = cJSON_AddObjectToObject(root, "noise");
    e->bound = coin() ? (double)(next() % 1000) / 1000.0 : NAN;
    if (isnan(e->bound))
        cJSON_AddNullToObject(noise, "median_shift_bound");
    else
        cJSON_AddNumberToObject(noise, "median_shift_bound", e->bound);
    return root;
}

static int parse(const cJSON *root, int flags, harness_rank_summary *r, harness_error *err)
{
    char *text = cJSON_PrintUnformatted(root);
    assert_non_null(text);
    int rc = harness_rank_summary_parse("dir/summary_ranks_1_rank_0.json", text, strlen(text), flags, r, err);
    free(text);
    return rc;
}

static void test_rank_summary_round_trip(void **state)
{
    (void)state;
    for (int round = 0; round < ROUNDS; round++) {
        expected e;
        cJSON *root = random_summary(&e);
        harness_rank_summary r;
        harness_error err = {0};
        if (parse(root, 0, &r, &err) != 0)
            fail_msg("round %d: %s", round, err.msg);
        assert_int_equal(r.rank, e.rank);
        assert_int_equal(r.world_size, e.world_size);
        assert_string_equal(r.variant_key, e.key);
        assert_string_equal(r.status, e.status);
        assert_same_string(e.error && e.error[0] ? e.error : NULL, r.error);
        assert_same_string(e.name, r.experiment_name);
        assert_same_string(e.plugin, r.plugin);
        assert_string_equal(r.folder, "dir");
        assert_int_equal(r.validation_failed, e.validation_failed);
        assert_int_equal(r.windows_disagree, e.windows_disagree);
        assert_same(e.bytes, r.bytes_per_step);
        assert_same(e.flops, r.flops_per_step);
        assert_same(e.bound, r.noise_bound);
        assert_same(e.jps, r.energy_j_per_step);
        assert_same_string(e.host && e.host[0] ? e.host : NULL, r.host);
        assert_string_equal(r.env_cpu, e.cpu);
        assert_string_equal(r.env_git_commit, "");          /* absent: "" */
        assert_int_equal(r.n_samples, e.n_samples);
        for (size_t i = 0; i < e.n_samples; i++)
            if (r.samples[i] != e.samples[i])
                fail_msg("round %d: sample %zu of %zu: %.17g read back as %.17g", round, i, e.n_samples,
                         e.samples[i], r.samples[i]);
        assert_int_equal(r.n_written_windows, e.n_windows);
        assert_int_equal(r.n_windows, e.kept);
        if (e.n_windows)
            assert_same(e.median0, r.windows[0].median);
        for (size_t k = 0; k < e.kept; k++) {
            /* the replicates: each window's median recomputed from its slice */
            harness_stats st;
            assert_int_equal(harness_stats_compute(e.samples + e.first[k], e.len[k], &st), 0);
            assert_true(r.window_medians[k] == st.median);
            assert_int_equal(r.window_start[k], e.first[k]);
            assert_int_equal(r.window_len[k], e.len[k]);
        }
        assert_int_equal(strlen(r.sha256), 64);
        harness_rank_summary_free(&r);
        /* without its samples: the same record, less what the samples give */
        assert_int_equal(parse(root, HARNESS_RANK_SUMMARY_NO_SAMPLES, &r, &err), 0);
        assert_int_equal(r.n_samples, 0);
        assert_int_equal(r.n_written_windows, e.n_windows);
        harness_rank_summary_free(&r);
        cJSON_Delete(root);
        expected_free(&e);
    }
}

/* ---- the rank summary's writer (folder/rank_summary_out.h): a random
 * record written, read back, equal in every member the reader takes ---- */

static double num_or_null(void) { return next() % 4 == 0 ? NAN : num(); }
static double positive_or_null(void) { return coin() ? 0.5 + num() : NAN; }

static harness_stats random_stats(void)
{
    harness_stats st = {0};
    if (next() % 4 == 0)
        return st;                 /* n 0: the statistics written null */
    st.n = 1 + next() % 1000;
    double *f[] = {&st.mean, &st.stddev, &st.cv, &st.min, &st.p5, &st.p25, &st.median, &st.p75, &st.p90, &st.p95,
                   &st.p99, &st.max, &st.iqr, &st.ci95_lo, &st.ci95_hi, &st.ci_level};
    for (size_t i = 0; i < sizeof f / sizeof *f; i++)
        *f[i] = num();
    st.outliers = next() % 10;
    return st;
}

static void assert_stats(const harness_stats *want, const harness_stats_record *got)
{
    int empty = want->n == 0;
    assert_same((double)want->n, got->n);
    const double w[] = {want->median, want->mean, want->stddev, want->cv, want->min, want->p5, want->p25, want->p75,
                        want->p90, want->p95, want->p99, want->max, want->iqr, want->ci95_lo, want->ci95_hi,
                        want->ci_level};
    const double g[] = {got->median, got->mean, got->stddev, got->cv, got->min, got->p5, got->p25, got->p75,
                        got->p90, got->p95, got->p99, got->max, got->iqr, got->ci_lo, got->ci_hi, got->ci_level};
    for (size_t i = 0; i < sizeof w / sizeof *w; i++)
        assert_same(empty ? NAN : w[i], g[i]);
    assert_same((double)want->outliers, got->outliers);
}

static const char *pick(const char *const *from, size_t n) { return from[next() % n]; }

static harness_energy_out random_energy(int top)
{
    static const char *const statuses[] = {"measured", "not_available", "too_short"};
    static const char *const sources[] = {NULL, "", "nvml", "rapl"};
    return (harness_energy_out){
        .top = top, .available = coin(), .source = pick(sources, 4), .missing = pick(sources, 4),
        .counter_period_s = num_or_null(), .min_window_s = num_or_null(), .status = pick(statuses, 3),
        .joules = num_or_null(), .seconds = num_or_null(), .steps = num(), .joules_per_step = positive_or_null(),
        .watts = positive_or_null(), .flop_per_joule = num_or_null(), .bytes_per_joule = num_or_null(),
        .uncertainty = num_or_null(), .windows = num(), .windows_measured = num(),
    };
}

static void assert_energy(const harness_energy_out *want, const harness_energy_record *got)
{
    assert_same_string(want->status, got->status);
    assert_same(want->joules, got->joules);
    assert_same(want->seconds, got->seconds);
    assert_same(want->joules_per_step, got->joules_per_step);
    assert_same(want->watts, got->watts);
    assert_same(want->flop_per_joule, got->flop_per_joule);
    assert_same(want->bytes_per_joule, got->bytes_per_joule);
    assert_same(want->uncertainty, got->uncertainty);
    if (want->top) {
        assert_same_string(want->source && want->source[0] ? want->source : NULL, got->source);
        assert_same_string(want->missing && want->missing[0] ? want->missing : NULL, got->missing);
    }
}

static harness_noise_out random_noise(int top)
{
    return (harness_noise_out){
        .involuntary_switches = num_or_null(), .measured_steps = num(), .steal_share = num_or_null(),
        .sm_clock_mhz = num_or_null(), .sm_clock_max_mhz = num_or_null(), .throttle_reasons = "none",
        .median_shift_bound = coin() ? (double)(next() % 1000) / 1000.0 : NAN, .evidence = "quiet",
        .has_load = top, .load_average_start = num_or_null(), .load_average_end = num_or_null(),
    };
}

/* The record a run would hand the writer, its windows slices of samples. */
typedef struct written {
    harness_rank_summary_out o;
    double samples[64];
    harness_window_out windows[5];
    harness_noise_out window_noise[5];
    const char *warnings[2];
    double config_n;
    /* a CUDA run's members, which no reader takes back yet: written, the
     * rest still reads the same */
    harness_device_timing_out device;
    harness_side_work_out side_work;
    harness_device_clocks_out clocks;
    harness_clock_figures_out window_clocks[5];
    harness_live_out live;
    harness_device_memory_out device_memory;
    harness_gpu_device_out gpu_device;
    harness_roofline_out roofline;
    harness_comm_out comm;
    harness_dist_env_out distributed;
    harness_iface_addr_out addr;
    const char *var_name[2], *var_value[2];
} written;

/* env.distributed, under Slurm or not, with a variable or two. */
static void random_distributed(written *w)
{
    w->var_name[0] = "NCCL_DEBUG";
    w->var_value[0] = "INFO";
    w->var_name[1] = "UCX_TLS";
    w->var_value[1] = "\"tcp\" é";
    w->addr = (harness_iface_addr_out){"eth0", "ipv4", "10.0.0.2", coin() ? "/sys/devices/pci0000:00" : NULL};
    w->distributed = (harness_dist_env_out){
        .mpi_library = "Open MPI v4.1.4", .nccl = "not loaded", .var_names = w->var_name, .var_values = w->var_value,
        .n_vars = 1 + next() % 2, .vars_left_out = 0, .addrs = &w->addr, .n_addrs = 1,
        .tcp_if_include = coin() ? "eth0" : NULL, .gpu_nic_topology = "unknown (no GPU visible)"};
    if (coin())
        w->distributed.slurm = (harness_slurm_out){.job_id = "17", .step_id = "0", .procid = "3", .nodeid = "1"};
    w->o.env.distributed = &w->distributed;
}

static void random_cuda(written *w)
{
    harness_rank_summary_out *o = &w->o;
    w->side_work = (harness_side_work_out){"kernel", "k2", 7, 3, num()};
    w->device = (harness_device_timing_out){.mode = "per_step", .blocking_kernel = "used", .has_host_launch = coin(),
                                            .host_stats = coin(), .host_median = num()};
    w->device.full_sync.ran = coin();
    w->device.full_sync.skipped = "the run did not complete";
    w->device.full_sync.side_work_known = coin();
    w->device.full_sync.side_work = &w->side_work;
    w->device.full_sync.n_side_work = 1;
    w->device.host_samples = w->samples;
    w->device.n_host_samples = o->timing.n_samples;
    w->clocks = (harness_device_clocks_out){.sm_clock_max_mhz = num_or_null(), .lock_clocks = "max", .lock = "",
                                            .samples = w->samples, .n_samples = o->timing.n_samples};
    strcpy(w->clocks.figures.throttle_reasons, "none");
    w->live = (harness_live_out){"buf", "component", num()};
    w->device_memory = (harness_device_memory_out){.used_bytes = num(), .live_at_peak = &w->live, .n_live = 1};
    w->gpu_device = (harness_gpu_device_out){.name = "H200", .compute_capability = "9.0", .arch = "sm_90",
                                             .driver = "550", .runtime = "12.4"};
    o->timing.device = &w->device;
    o->timing.clocks = &w->clocks;
    o->memory.device = &w->device_memory;
    o->env.gpu_device = &w->gpu_device;
    for (size_t k = 0; k < o->timing.n_windows; k++) {
        strcpy(w->window_clocks[k].throttle_reasons, "sw_power_cap");
        w->windows[k].clocks = &w->window_clocks[k];
    }
    w->comm = (harness_comm_out){"all_reduce", "f32", -1, 1024, 3, num(), num(), num(), num(), num(), num()};
    o->communication = &w->comm;
    o->n_communication = 1;
}

static void random_out(written *w)
{
    static const char *const statuses[] = {"ok", "failed", "interrupted", "validation_failed"};
    static const char *const checks[] = {"skipped", "passed", "failed"};
    static const char *const stops[] = {"converged", "steps", "time"};
    memset(w, 0, sizeof *w);
    harness_rank_summary_out *o = &w->o;
    o->status = pick(statuses, 4);
    o->error = coin() ? "why" : NULL;
    o->world_size = 1 + (int)(next() % 8);
    o->rank = (int)(next() % (uint32_t)o->world_size);
    o->experiment_name = "exp", o->variant_key = "spin/cpu", o->requested = "spin", o->plugin = "p.so";
    o->device_type = "cpu", o->device_name = "a cpu";
    o->config = cJSON_CreateObject();
    cJSON_AddNumberToObject(o->config, "n", w->config_n = next() % 100);
    o->validation = (harness_validation_out){.enabled = coin(), .status = pick(checks, 3), .detail = "d",
                                              .checked = num(), .max_abs_err = num_or_null()};
    o->validation.after_timing.recheck = "none";
    o->timing.clock = "tsc", o->timing.clock_why = "", o->timing.overall = random_stats();
    o->timing.n_samples = next() % 64;
    for (size_t i = 0; i < o->timing.n_samples; i++)
        w->samples[i] = num();
    o->timing.samples = w->samples;
    o->timing.n_windows = next() % 5;
    size_t at = 0;
    for (size_t k = 0; k < o->timing.n_windows; k++) {
        size_t n = k + 1 == o->timing.n_windows ? o->timing.n_samples - at : next() % (o->timing.n_samples - at + 1);
        w->window_noise[k] = random_noise(0);
        w->windows[k] = (harness_window_out){
            .index = (double)k, .first_sample = (double)at, .stop_reason = pick(stops, 3),
            .converged = (int)(next() % 3) - 1, .stats = random_stats(), .wall_ns = num_or_null(),
            .cpu_ns = num_or_null(), .cpu_per_wall = num_or_null(), .noise = coin() ? &w->window_noise[k] : NULL,
            .energy = random_energy(0),
        };
        w->windows[k].stats.n = n;
        at += n;
    }
    o->timing.windows = w->windows;
    o->timing.across = random_stats();
    o->timing.windows_disagree = coin();
    o->throughput = (harness_throughput_out){num_or_null(), num_or_null(), num_or_null(), num_or_null()};
    o->energy = random_energy(1);
    o->memory.allocated_means = o->memory.reserved_means = "m";
    o->gpu_activity_dropped = o->gpu_activity_untimed = NAN;
    o->env = (harness_env_out){
        .host = coin() ? "h" : "", .os = "", .cpu = "c", .cpu_family = "", .cpu_model_number = "", .cpu_stepping = "",
        .l1d = "", .l1i = "", .l2 = "", .l3 = "", .scaling_governor = "", .gpu_name = "none", .driver = "",
        .cuda = "", .compiler = "", .cflags = "", .sanitizers = "", .configure_args = "", .executable = "",
        .git_commit = "abc", .harness_version = "1.0", .clock = "", .kernel_clocksource = "",
        .clock_resolution_ns = num(), .started_at = "2026",
    };
    w->warnings[0] = "a warning";
    o->warnings = w->warnings;
    o->n_warnings = next() % 2;
    o->impossible_figure = (harness_impossible_out){.figure = coin() ? "gb_per_s" : NULL, .allowed = coin(),
                                                    .message = "above the peak", .rate_per_s = num()};
    o->noise = random_noise(1);
    w->roofline = (harness_roofline_out){.peak_bytes_per_s = num_or_null(), .above_peak = {"percent_of_peak_flops"},
                                         .n_above_peak = coin(), .peak_source = coin() ? "machine file" : NULL};
    o->roofline = w->roofline;
    if (coin())
        random_cuda(w);
    if (coin())
        random_distributed(w);
}

static void assert_read_back(const written *w, const harness_rank_summary *r)
{
    const harness_rank_summary_out *o = &w->o;
    assert_int_equal(r->rank, o->rank);
    assert_int_equal(r->world_size, o->world_size);
    assert_string_equal(r->status, o->status);
    assert_same_string(o->error, r->error);
    assert_string_equal(r->experiment_name, o->experiment_name);
    assert_string_equal(r->variant_key, o->variant_key);
    assert_string_equal(r->plugin, o->plugin);
    assert_string_equal(r->device_type, o->device_type);
    assert_string_equal(r->device_name, o->device_name);
    assert_string_equal(r->validation_status, o->validation.status);
    assert_same(o->throughput.bytes_per_step, r->bytes_per_step);
    assert_same(o->throughput.flops_per_step, r->flops_per_step);
    assert_int_equal(r->n_samples, o->timing.n_samples);
    for (size_t i = 0; i < o->timing.n_samples; i++)
        assert_true(r->samples[i] == w->samples[i]);
    assert_stats(&o->timing.overall, &r->timing);
    assert_int_equal(r->n_written_windows, o->timing.n_windows);
    for (size_t k = 0; k < o->timing.n_windows; k++) {
        const harness_window_out *want = &o->timing.windows[k];
        const harness_stats_record *got = &r->windows[k];
        assert_same(want->index, got->index);
        assert_same(want->first_sample, got->first_sample);
        assert_string_equal(want->stop_reason, got->stop_reason);
        assert_int_equal(want->converged, got->converged);
        assert_stats(&want->stats, got);
        assert_same(want->wall_ns, got->wall_ns);
        assert_same(want->cpu_ns, got->cpu_ns);
        assert_same(want->cpu_per_wall, got->cpu_per_wall);
        assert_energy(&want->energy, &got->energy);
    }
    assert_int_equal(r->windows_disagree, o->timing.windows_disagree);
    assert_energy(&o->energy, &r->energy);
    assert_same(o->energy.joules_per_step, r->energy_j_per_step);
    assert_same(o->energy.watts, r->energy_watts);
    assert_same(o->noise.median_shift_bound, r->noise_bound);
    assert_string_equal(r->noise_evidence, o->noise.evidence);
    assert_same_string(o->env.host[0] ? o->env.host : NULL, r->host);
    assert_string_equal(r->env_cpu, o->env.cpu);
    assert_string_equal(r->env_gpu, o->env.gpu_name);
    assert_string_equal(r->env_git_commit, o->env.git_commit);
    assert_string_equal(r->env_harness_version, o->env.harness_version);
    assert_string_equal(r->env_started_at, o->env.started_at);
    const cJSON *dist = cJSON_GetObjectItemCaseSensitive(r->env, "distributed");
    assert_int_equal(dist != NULL, o->env.distributed != NULL);
    if (dist) {                    /* kept whole with env: the slurm object and the variables as written */
        const cJSON *slurm = cJSON_GetObjectItemCaseSensitive(dist, "slurm");
        const char *job = o->env.distributed->slurm.job_id;
        assert_true(job ? cJSON_IsObject(slurm) : cJSON_IsNull(slurm));
        if (job)
            assert_string_equal(cJSON_GetObjectItemCaseSensitive(slurm, "job_id")->valuestring, job);
        const cJSON *vars = cJSON_GetObjectItemCaseSensitive(dist, "variables");
        assert_int_equal(cJSON_GetArraySize(vars), (int)o->env.distributed->n_vars);
        assert_string_equal(cJSON_GetObjectItemCaseSensitive(vars, "NCCL_DEBUG")->valuestring, "INFO");
    }
    int impossible = o->impossible_figure.figure != NULL;
    assert_same_string(impossible ? o->impossible_figure.message : NULL, r->impossible_message);
    assert_int_equal(r->impossible_allowed_flag, impossible && o->impossible_figure.allowed);
}

static void test_rank_summary_write_round_trip(void **state)
{
    (void)state;
    for (int round = 0; round < ROUNDS; round++) {
        written w;
        random_out(&w);
        char *text = harness_rank_summary_write(&w.o);
        assert_non_null(text);
        assert_null(w.o.config);   /* taken */
        /* each member once, in the file's order */
        const char *order[] = {"\"schema\"", "\"component\"", "\"validation\"", "\"schedule\"", "\"timing\"",
                               "\"throughput\"", "\"energy\"", "\"roofline\"", "\"regions\"", "\"memory\"",
                               "\"trace\"", "\"communication\"", "\"gpu_kernels\"", "\"env\"", "\"warnings\"",
                               "\"impossible_figure\"", "\"noise\""};
        const char *at = text;
        for (size_t k = 0; k < sizeof order / sizeof *order; k++)
            assert_non_null(at = strstr(at, order[k]));
        assert_int_equal(strstr(text, "\"device_clocks\"") != NULL, w.o.timing.clocks != NULL);
        harness_rank_summary r;
        harness_error err = {0};
        if (harness_rank_summary_parse("dir/summary_ranks_1_rank_0.json", text, strlen(text), 0, &r, &err) != 0)
            fail_msg("round %d: %s\n%s", round, err.msg, text);
        assert_read_back(&w, &r);
        assert_true(cJSON_GetNumberValue(cJSON_GetObjectItem(r.config, "n")) == w.config_n);
        harness_rank_summary_free(&r);
        free(text);
    }
}

/* dotted key -> the object that holds it and its last name (creating the
 * objects on the way). */
static cJSON *holder(cJSON *root, const char *dotted, char *last)
{
    char buf[128];
    snprintf(buf, sizeof buf, "%s", dotted);
    cJSON *at = root;
    char *save = NULL, *part = strtok_r(buf, ".", &save), *nextp;
    for (; (nextp = strtok_r(NULL, ".", &save)) != NULL; part = nextp) {
        char *br = strchr(part, '[');
        cJSON *child;
        if (br) {
            *br = '\0';
            child = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(at, part), atoi(br + 1));
        } else {
            child = cJSON_GetObjectItemCaseSensitive(at, part);
            if (!child)
                child = cJSON_AddObjectToObject(at, part);
        }
        assert_non_null(child);
        at = child;
    }
    strcpy(last, part);
    return at;
}

/* A summary every mutation below starts from: two windows, energy, env. */
static cJSON *base_summary(void)
{
    const char *text =
        "{\"schema\": \"harness.summary/1\", \"status\": \"ok\", \"error\": null, \"rank\": 0, \"world_size\": 1,"
        " \"experiment\": {\"name\": \"x\"}, \"component\": {\"variant_key\": \"k\", \"plugin\": \"p.so\","
        " \"config\": {\"n\": 1}}, \"device\": {\"type\": \"cpu\", \"name\": \"c\"},"
        " \"validation\": {\"status\": \"passed\", \"passed\": true},"
        " \"timing\": {\"median\": 2, \"samples\": [1, 2, 3, 4], \"windows\": [{\"index\": 0, \"first_sample\": 0,"
        " \"n\": 2, \"median\": 1.5, \"converged\": null, \"stop_reason\": \"steps\", \"ci95_median\": [1, 2],"
        " \"energy\": {\"joules_per_step\": 1}}, {\"index\": 1, \"first_sample\": 2, \"n\": 2, \"median\": 3.5}],"
        " \"across_windows\": {\"windows_disagree\": false}}, \"throughput\": {\"bytes_per_step\": 8},"
        " \"energy\": {\"status\": \"measured\", \"joules_per_step\": 2, \"watts\": 3, \"source\": \"rapl\"},"
        " \"env\": {\"host\": \"h\", \"cpu\": \"c\", \"caches\": {\"l1d\": 1}}, \"impossible_figure\": null,"
        " \"noise\": {\"median_shift_bound\": 0.1, \"evidence\": \"e\"}}";
    cJSON *root = cJSON_Parse(text);
    assert_non_null(root);
    return root;
}

static void test_rank_summary_base_reads(void **state)
{
    (void)state;
    cJSON *root = base_summary();
    harness_rank_summary r;
    harness_error err = {0};
    assert_int_equal(parse(root, 0, &r, &err), 0);
    assert_string_equal(r.device_type, "cpu");
    assert_string_equal(r.energy.source, "rapl");
    assert_true(r.energy_watts == 3);
    assert_true(r.windows[0].ci_lo == 1 && r.windows[0].ci_hi == 2);
    assert_int_equal(r.windows[0].converged, -1);
    assert_string_equal(r.windows[0].stop_reason, "steps");
    assert_true(r.window_energy[0] == 1 && isnan(r.window_energy[1]));
    assert_true(r.window_medians[1] == 3.5);
    assert_non_null(r.env);
    harness_rank_summary_free(&r);
    cJSON_Delete(root);
}

/* Absent or null: unknown, and the summary is read. */
static void test_rank_summary_absent_or_null(void **state)
{
    (void)state;
    static const char *const optional[] = {
        "error", "experiment.name", "experiment", "component.plugin", "device.name", "device",
        "validation.status", "validation", "throughput.bytes_per_step", "throughput", "energy.watts", "energy",
        "timing.windows[0].median", "timing.windows[0].converged", "timing.windows[0].energy",
        "timing.windows[1].first_sample", "env.host", "env", "noise.median_shift_bound", "noise.evidence",
        "impossible_figure",
    };
    for (size_t i = 0; i < sizeof optional / sizeof *optional; i++)
        for (int as_null = 0; as_null < 2; as_null++) {
            cJSON *root = base_summary();
            char last[64];
            cJSON *at = holder(root, optional[i], last);
            if (as_null)
                cJSON_ReplaceItemInObjectCaseSensitive(at, last, cJSON_CreateNull());
            else
                cJSON_DeleteItemFromObjectCaseSensitive(at, last);
            harness_rank_summary r;
            harness_error err = {0};
            if (parse(root, 0, &r, &err) != 0)
                fail_msg("%s %s: %s", optional[i], as_null ? "null" : "absent", err.msg);
            harness_rank_summary_free(&r);
            cJSON_Delete(root);
        }
}

/* Of the wrong kind: exit 2, the file and the dotted key named. */
static void test_rank_summary_wrong_kind(void **state)
{
    (void)state;
    static const struct { const char *key, *json, *says; } bad[] = {
        {"status", "3", "status: expected a string, got a number"},
        {"rank", "\"0\"", "rank: expected an integer, got a string"},
        {"rank", "1", "rank 1 is not below world_size 1"},
        {"component.variant_key", "null", "component.variant_key: expected a string, got null"},
        {"component.plugin", "5", "component.plugin: expected a string or null, got a number"},
        {"component.config", "[]", "component.config: expected an object, got an array"},
        {"error", "{}", "error: expected a string or null, got an object"},
        {"experiment.name", "[1]", "experiment.name: expected a string or null, got an array"},
        {"device", "\"cpu\"", "device: expected an object or null, got a string"},
        {"validation.passed", "\"yes\"", "validation.passed: expected true, false or null, got a string"},
        {"throughput.bytes_per_step", "\"8\"", "throughput.bytes_per_step: expected a number or null"},
        {"timing.windows[0].median", "\"1\"", "timing.windows[0].median: expected a number or null"},
        {"timing.windows[0].converged", "1", "timing.windows[0].converged: expected true, false or null"},
        {"timing.windows[0].stop_reason", "1", "timing.windows[0].stop_reason: expected a string or null"},
        {"timing.windows[0].ci95_median", "[1]", "timing.windows[0].ci95_median: expected [lo, hi] or null"},
        {"timing.windows[0].n", "0.5", "timing.windows[0].n: expected a count"},
        {"timing.windows[1].first_sample", "3", "timing.windows[1]: samples 3 to 4, beyond the run's 4 samples"},
        {"timing.windows[0].energy.joules_per_step", "-1",
         "timing.windows[0].energy.joules_per_step: expected a positive number of joules or null"},
        {"timing.samples", "{}", "timing.samples: expected an array of ns, got an object"},
        {"timing.across_windows.windows_disagree", "0", "timing.across_windows.windows_disagree: expected true"},
        {"energy.watts", "0", "energy.watts: expected a positive number or null"},
        {"energy.source", "1", "energy.source: expected a string or null, got a number"},
        {"env.host", "3", "env.host: expected a string or null, got a number"},
        {"env", "[]", "env: expected an object or null, got an array"},
        {"noise.median_shift_bound", "2", "noise.median_shift_bound: expected a share between 0 and 1"},
        {"impossible_figure", "{}", "impossible_figure: expected null or an object with a message and allowed"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        cJSON *root = base_summary();
        char last[64];
        cJSON *at = holder(root, bad[i].key, last);
        cJSON_DeleteItemFromObjectCaseSensitive(at, last);
        cJSON_AddItemToObject(at, last, cJSON_Parse(bad[i].json));
        harness_rank_summary r;
        harness_error err = {0};
        assert_int_equal(parse(root, 0, &r, &err), HARNESS_EXIT_USAGE);
        if (!strstr(err.msg, "dir/summary_ranks_1_rank_0.json: ") || !strstr(err.msg, bad[i].says))
            fail_msg("%s = %s: said \"%s\", expected \"%s\"", bad[i].key, bad[i].json, err.msg, bad[i].says);
        cJSON_Delete(root);
    }
    /* required members, absent */
    static const char *const required[] = {"schema", "status", "rank", "world_size", "component",
                                           "component.variant_key", "component.config", "timing", "timing.samples"};
    for (size_t i = 0; i < sizeof required / sizeof *required; i++) {
        cJSON *root = base_summary();
        char last[64];
        cJSON_DeleteItemFromObjectCaseSensitive(holder(root, required[i], last), last);
        harness_rank_summary r;
        harness_error err = {0};
        assert_int_equal(parse(root, 0, &r, &err), HARNESS_EXIT_USAGE);
        if (!strstr(err.msg, required[i]) && strcmp(required[i], "schema") != 0)
            fail_msg("%s absent: said \"%s\"", required[i], err.msg);
        cJSON_Delete(root);
    }
}

/* ---- status.json ------------------------------------------------------------ */

static void test_status_round_trip(void **state)
{
    (void)state;
    char *dir = temp_folder();
    static const char *const statuses[] = {"ok", "failed", "crashed", "timed_out", "interrupted", "running"};
    for (int round = 0; round < ROUNDS / 4; round++) {
        harness_status_file f;
        harness_error err = {0};
        char *key = words(1), *error = coin() ? words(1) : NULL;
        assert_int_equal(harness_status_file_create(&f, dir, HARNESS_FILE_STATUS, key, &err), 0);
        harness_status st = {.status = statuses[next() % 6], .exit_code = (int)(next() % 4), .error = error,
                             .variant_key = key, .step = -1, .summaries = coin()};
        assert_int_equal(harness_status_file_write(&f, &st, 1), 0);
        harness_status_record r;
        assert_int_equal(harness_status_read(f.path, 1u << 20, &r, &err), 0);
        assert_string_equal(r.status, st.status);
        assert_int_equal(r.complete, strcmp(st.status, "ok") == 0);
        assert_same_string(error && error[0] ? error : NULL, r.error);
        assert_string_equal(r.variant_key, key);
        assert_int_equal(r.has_writer, 1);
        assert_int_equal(r.writer.pid, getpid());
        harness_status_record_free(&r);
        free(key);
        free(error);
    }
    /* what is left of a run that died while writing: unreadable, not an error */
    char path[256];
    snprintf(path, sizeof path, "%s/status_ranks_2_rank_1.json", dir);
    FILE *g = fopen(path, "w");
    assert_non_null(g);
    fputs("{\"status\": ", g);
    fclose(g);
    harness_status_record r;
    harness_error err = {0};
    assert_int_equal(harness_status_read(path, 1u << 20, &r, &err), 0);
    assert_null(r.status);
    /* a FIFO is hostile: exit 2, named */
    snprintf(path, sizeof path, "%s/fifo.json", dir);
    assert_int_equal(mkfifo(path, 0600), 0);
    assert_int_equal(harness_status_read(path, 1u << 20, &r, &err), HARNESS_EXIT_USAGE);
    assert_non_null(strstr(err.msg, "fifo.json"));
    remove_folder(dir);
}

/* ---- index.json ------------------------------------------------------------- */

static void test_suite_index_round_trip(void **state)
{
    (void)state;
    for (int round = 0; round < ROUNDS; round++) {
        harness_suite_index x = {.runs = 1 + (int)(next() % 5)};
        x.status = strdup(coin() ? "ok" : "failed");
        x.filter = coin() ? word() : NULL;
        x.n_configs = next() % 4;
        x.configs = calloc(x.n_configs + 1, sizeof *x.configs);
        for (size_t i = 0; i < x.n_configs; i++)
            x.configs[i] = (harness_suite_index_config){word(), (double)(next() % 9)};
        x.n_experiments = next() % 5;
        x.experiments = calloc(x.n_experiments + 1, sizeof *x.experiments);
        for (size_t i = 0; i < x.n_experiments; i++) {
            harness_suite_index_run *r = &x.experiments[i];
            r->config = word();
            r->run = 1 + (int)(next() % 3);
            r->exit_code = (int)(next() % 4);
            r->n_folders = next() % 3;
            r->folders = calloc(r->n_folders + 1, sizeof *r->folders);
            for (size_t k = 0; k < r->n_folders; k++)
                r->folders[k] = word();
        }
        char *text = harness_suite_index_write(&x);
        assert_non_null(text);
        harness_suite_index y;
        harness_error err = {0};
        if (harness_suite_index_parse("index.json", text, strlen(text), &y, &err) != 0)
            fail_msg("%s", err.msg);
        char *again = harness_suite_index_write(&y);
        assert_string_equal(text, again);           /* written, read, written: the same bytes */
        assert_string_equal(y.status, x.status);
        assert_int_equal(y.runs, x.runs);
        assert_same_string(x.filter, y.filter);
        assert_int_equal(y.n_configs, x.n_configs);
        assert_int_equal(y.n_experiments, x.n_experiments);
        for (size_t i = 0; i < x.n_experiments; i++) {
            assert_string_equal(y.experiments[i].config, x.experiments[i].config);
            assert_int_equal(y.experiments[i].exit_code, x.experiments[i].exit_code);
            assert_int_equal(y.experiments[i].n_folders, x.experiments[i].n_folders);
        }
        free(text);
        free(again);
        harness_suite_index_free(&x);
        harness_suite_index_free(&y);
    }
    static const struct { const char *text, *says; } bad[] = {
        {"{\"schema\": \"harness.suite/1\", \"status\": \"ok\", \"runs\": 1, \"filter\": null, \"experiments\": []}",
         "index.json: configs: missing"},
        {"{\"schema\": \"harness.suite/1\", \"status\": \"ok\", \"runs\": 1, \"configs\": [],"
         " \"experiments\": [{\"config\": \"c\", \"run\": \"1\"}]}", "index.json: experiments[0].run: expected an integer"},
        {"{\"schema\": \"harness.summary/1\"}", "index.json: schema \"harness.summary/1\" is not"},
        {"{\"schema\": \"harness.suite/1\", \"status\": \"ok\", \"runs\": 1, \"filter\": 3}",
         "index.json: filter: expected a string or null, got a number"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        harness_suite_index y;
        harness_error err = {0};
        assert_int_equal(harness_suite_index_parse("index.json", bad[i].text, strlen(bad[i].text), &y, &err),
                         HARNESS_EXIT_USAGE);
        if (!strstr(err.msg, bad[i].says))
            fail_msg("said \"%s\", expected \"%s\"", err.msg, bad[i].says);
    }
}

/* ---- summary.json of a job ------------------------------------------------------ */

static double num_or_nan(void) { return coin() ? num() : NAN; }

/* experiment.gather: the files some ranks sent rank 0, or none. */
static void random_gather(harness_job_summary *x)
{
    x->gathered = coin();
    x->gather_max_bytes = x->gathered ? num() : NAN;
    x->n_gather_files = x->gathered ? next() % 4 : 0;
    x->gather_files = calloc(x->n_gather_files + 1, sizeof *x->gather_files);
    for (size_t i = 0; i < x->n_gather_files; i++) {
        harness_job_gather_record *f = &x->gather_files[i];
        *f = (harness_job_gather_record){.rank = 1 + (int)i, .name = word(), .bytes = num(), .sent = coin()};
        if (f->sent)
            f->sha256 = word();
    }
}

static void same_gather(const harness_job_summary *x, const harness_job_summary *y)
{
    assert_int_equal(y->gathered, x->gathered);
    assert_int_equal(y->n_gather_files, x->n_gather_files);
    for (size_t i = 0; i < x->n_gather_files; i++) {
        assert_string_equal(y->gather_files[i].name, x->gather_files[i].name);
        assert_int_equal(y->gather_files[i].sent, x->gather_files[i].sent);
        assert_int_equal(y->gather_files[i].sha256 != NULL, x->gather_files[i].sent);
    }
}

/* A rollup of up to 3 nodes, or none (n 0: an older harness's file). */
static void random_nodes(harness_job_nodes *x)
{
    *x = (harness_job_nodes){.n = next() % 4, .k = 3, .min_excess = 0.1, .min_nodes = 3,
                             .nodes_measured = (int)(next() % 4), .judged = coin(), .center_ns = num_or_nan(),
                             .mad_ns = num_or_nan(), .threshold_ns = num_or_nan()};
    x->list = calloc(x->n + 1, sizeof *x->list);
    for (size_t i = 0; i < x->n; i++) {
        harness_job_node_record *o = &x->list[i];
        *o = (harness_job_node_record){.host = word(), .n_ranks = 1 + next() % 3, .ranks_measured = (int)(next() % 3),
                                       .median_ns = num_or_nan(), .slowest_rank = coin() ? (int)(next() % 9) : -1,
                                       .slowest_median_ns = num_or_nan(), .excess = num_or_nan(), .outlier = coin()};
        o->ranks = calloc(o->n_ranks, sizeof *o->ranks);
        for (size_t j = 0; j < o->n_ranks; j++)
            o->ranks[j] = (int)(3 * i + j);
    }
}

static void assert_same_nodes(const harness_job_nodes *x, const harness_job_nodes *y)
{
    assert_int_equal(y->n, x->n);
    assert_int_equal(y->judged, x->n ? x->judged : -1);   /* no "nodes": unknown */
    for (size_t i = 0; i < x->n; i++) {
        assert_string_equal(y->list[i].host, x->list[i].host);
        assert_int_equal(y->list[i].n_ranks, x->list[i].n_ranks);
        assert_int_equal(y->list[i].slowest_rank, x->list[i].slowest_rank);
        assert_int_equal(y->list[i].outlier, x->list[i].outlier);
        assert_same(x->list[i].excess, y->list[i].excess);
    }
}

static void test_job_summary_round_trip(void **state)
{
    (void)state;
    for (int round = 0; round < ROUNDS; round++) {
        harness_job_summary x = {.world_size = 1 + (int)(next() % 6), .ranks_measured = (int)(next() % 6),
                                 .min_median = num(), .median_median = num(), .max_median = num(), .skew = num(),
                                 .slowest_rank = coin() ? (int)(next() % 6) : -1, .fastest_rank = -1,
                                 .energy_ranks_measured = (int)(next() % 3), .energy_counters = (int)(next() % 3),
                                 .energy_watts = num_or_nan(), .energy_joules_per_step = num_or_nan()};
        x.variant_key = word();
        x.status = strdup(coin() ? "ok" : "failed");
        if (coin())                /* a Slurm job, its members each set or not */
            x.slurm = (harness_slurm_out){.job_id = word(), .step_id = coin() ? word() : NULL,
                                          .job_nodelist = coin() ? word() : NULL,
                                          .cluster_name = coin() ? word() : NULL};
        x.n_ranks = (size_t)x.world_size;
        x.ranks = calloc(x.n_ranks, sizeof *x.ranks);
        for (size_t i = 0; i < x.n_ranks; i++)
            x.ranks[i] = (harness_job_rank_record){
                .rank = (int)i, .status = strdup("ok"), .host = word(), .n = num(), .median_ns = num(),
                .p90_ns = num(), .gb_per_s = num(), .gflop_per_s = num(), .comm_calls = num(), .comm_bytes = num(),
                .comm_ns = num(), .clock_offset_ns = num(), .clock_rtt_ns = num_or_nan(),
                .straggler_steps = num_or_nan(), .energy_status = strdup("measured"), .energy_counter = word(),
                .joules_per_step = num_or_nan(), .watts = num_or_nan(), .flop_per_joule = num_or_nan(),
                .bytes_per_joule = num_or_nan()};
        x.n_windows = next() % 4;
        x.windows = calloc(x.n_windows + 1, sizeof *x.windows);
        for (size_t w = 0; w < x.n_windows; w++)
            x.windows[w] = (harness_job_window_record){(int)w, coin() ? (int)(next() % 6) : -1, num()};
        random_gather(&x);
        random_nodes(&x.nodes);
        char *text = harness_job_summary_write(&x);
        assert_non_null(text);
        harness_job_summary y;
        harness_error err = {0};
        if (harness_job_summary_parse("summary.json", text, strlen(text), &y, &err) != 0)
            fail_msg("%s", err.msg);
        char *again = harness_job_summary_write(&y);
        assert_string_equal(text, again);           /* written, read, written: the same bytes */
        assert_int_equal(y.n_ranks, x.n_ranks);
        assert_int_equal(y.slowest_rank, x.slowest_rank);
        assert_int_equal(y.fastest_rank, -1);
        assert_int_equal(!y.slurm.job_id, !x.slurm.job_id);
        if (x.slurm.job_id)
            assert_string_equal(y.slurm.job_id, x.slurm.job_id);
        assert_int_equal(!y.slurm.step_id, !x.slurm.step_id);
        for (size_t i = 0; i < x.n_ranks; i++) {
            assert_string_equal(y.ranks[i].host, x.ranks[i].host);
            assert_same(x.ranks[i].clock_rtt_ns, y.ranks[i].clock_rtt_ns);
            assert_same(x.ranks[i].straggler_steps, y.ranks[i].straggler_steps);
            assert_same(x.ranks[i].watts, y.ranks[i].watts);
        }
        assert_same(x.energy_watts, y.energy_watts);
        same_gather(&x, &y);
        assert_same_nodes(&x.nodes, &y.nodes);
        free(text);
        free(again);
        harness_job_summary_free(&x);
        harness_job_summary_free(&y);
    }
}

/* summary.json's faults, each named with its key. */
static void test_job_summary_bad(void **state)
{
    (void)state;
    static const struct { const char *text, *says; } bad[] = {
        {"{\"schema\": \"harness.job_summary/1\", \"world_size\": 1, \"windows\": []}", "summary.json: ranks: missing"},
        {"{\"schema\": \"harness.job_summary/1\", \"world_size\": 1, \"ranks\": [{\"host\": 3}], \"windows\": []}",
         "summary.json: ranks[0].host: expected a string or null, got a number"},
        {"{\"schema\": \"harness.job_summary/1\", \"world_size\": -1}", "summary.json: world_size: expected an integer"},
        {"{\"schema\": \"harness.job_summary/1\", \"world_size\": 1, \"ranks\": [], \"windows\": [], \"energy\": {},"
         " \"gathered\": true, \"gather\": {\"files\": [{\"name\": 7}]}}",
         "summary.json: gather.files[0].name: expected a string or null, got a number"},
        {"{\"schema\": \"harness.summary/1\"}", "summary.json: schema \"harness.summary/1\" is not"},
        {"{\"schema\": \"harness.job_summary/1\", \"world_size\": 1, \"variant_key\": \"x\", \"status\": \"ok\", "
         "\"slurm\": {\"job_id\": 12}}", "summary.json: slurm.job_id: expected a string or null, got a number"},
        {"{\"schema\": \"harness.job_summary/1\", \"world_size\": 1, \"variant_key\": \"x\", \"status\": \"ok\", "
         "\"slurm\": []}", "summary.json: slurm: expected an object"},
        {"{\"schema\": \"harness.job_summary/1\", \"world_size\": 1, \"ranks\": [], \"windows\": [], "
         "\"nodes\": {\"rule\": {}}}", "summary.json: nodes.list: missing"},
        {"{\"schema\": \"harness.job_summary/1\", \"world_size\": 1, \"ranks\": [], \"windows\": [], "
         "\"nodes\": {\"list\": [{\"host\": \"a\", \"ranks\": [0, -1]}]}}",
         "summary.json: nodes.list[0].ranks[1]: expected a rank"},
        {"{\"schema\": \"harness.job_summary/1\", \"world_size\": 1, \"ranks\": [], \"windows\": [], "
         "\"nodes\": {\"list\": [{\"host\": \"a\", \"ranks\": [], \"outlier\": 1}]}}",
         "summary.json: nodes.list[0].outlier: expected true, false or null"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        harness_job_summary y;
        harness_error err = {0};
        assert_int_equal(harness_job_summary_parse("summary.json", bad[i].text, strlen(bad[i].text), &y, &err),
                         HARNESS_EXIT_USAGE);
        if (!strstr(err.msg, bad[i].says))
            fail_msg("said \"%s\", expected \"%s\"", err.msg, bad[i].says);
    }
}

/* ---- the samples file --------------------------------------------------------- */

static void test_samples_round_trip(void **state)
{
    (void)state;
    char *dir = temp_folder();
    char path[256];
    snprintf(path, sizeof path, "%s/samples_ranks_1_rank_0.bin", dir);
    for (int round = 0; round < ROUNDS / 10; round++) {
        size_t n = next() % 3000;
        double *v = malloc((n + 1) * sizeof *v);
        for (size_t i = 0; i < n; i++)
            v[i] = num();
        char sha[65];
        harness_error err = {0};
        assert_int_equal(harness_sample_file_write(path, v, n, "ns", sha, &err), 0);
        harness_sample_file_expect expect = {.count = (long long)n, .sha256_hex = sha, .unit = "ns"};
        double *back = NULL;
        size_t m = 0;
        assert_int_equal(harness_sample_file_read(path, &expect, &back, &m, &err), 0);
        assert_int_equal(m, n);
        assert_true(n == 0 || memcmp(v, back, n * sizeof *v) == 0);
        free(v);
        free(back);
    }
    remove_folder(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rank_summary_round_trip),
        cmocka_unit_test(test_rank_summary_write_round_trip),
        cmocka_unit_test(test_rank_summary_base_reads),
        cmocka_unit_test(test_rank_summary_absent_or_null),
        cmocka_unit_test(test_rank_summary_wrong_kind),
        cmocka_unit_test(test_status_round_trip),
        cmocka_unit_test(test_suite_index_round_trip),
        cmocka_unit_test(test_job_summary_round_trip),
        cmocka_unit_test(test_job_summary_bad),
        cmocka_unit_test(test_samples_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

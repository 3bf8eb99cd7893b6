/* Reading and writing the machine file (see machine_file.h). */
#include "backend/machine_file.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/cpuinfo.h"
#include "util/fsutil.h"

void harness_machine_identity_here(harness_machine_identity *id, int threads)
{
    memset(id, 0, sizeof *id);
    harness_cpuinfo_field("model name", "unknown CPU", id->cpu_model, sizeof id->cpu_model);
    id->logical_cpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
    id->threads = threads;
}

const char *harness_machine_file_path(char *out, size_t cap)
{
    const char *env = getenv("HARNESS_MACHINE_FILE");
    const char *xdg = getenv("XDG_CONFIG_HOME");
    const char *home = getenv("HOME");
    if (env && *env)
        snprintf(out, cap, "%s", env);
    else if (xdg && xdg[0] == '/')  /* the XDG spec: relative values are ignored */
        snprintf(out, cap, "%s/harness/machine.json", xdg);
    else
        snprintf(out, cap, "%s/.config/harness/machine.json", home && *home ? home : ".");
    return out;
}

/* {"min", "median", "max"} of a peak's repetitions; null when not measured. */
static void add_spread(cJSON *o, const char *key, const harness_rep_spread *s)
{
    if (!harness_rep_spread_known(s)) {
        cJSON_AddNullToObject(o, key);
        return;
    }
    cJSON *j = cJSON_AddObjectToObject(o, key);
    cJSON_AddNumberToObject(j, "min", s->min);
    cJSON_AddNumberToObject(j, "median", s->median);
    cJSON_AddNumberToObject(j, "max", s->max);
}

int harness_machine_file_write(const char *path, const harness_machine *m, harness_error *err)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash && slash != dir) {
        *slash = '\0';
        if (harness_mkdirs(dir, err) != 0)
            return err->code;
    }
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "schema", HARNESS_MACHINE_SCHEMA);
    cJSON *id = cJSON_AddObjectToObject(root, "identity");
    cJSON_AddStringToObject(id, "cpu_model", m->id.cpu_model);
    cJSON_AddNumberToObject(id, "logical_cpus", m->id.logical_cpus);
    cJSON_AddNumberToObject(id, "threads", m->id.threads);
    cJSON_AddStringToObject(root, "host", m->host);
    cJSON *peaks = cJSON_AddObjectToObject(root, "peaks");
    cJSON_AddNumberToObject(peaks, "flops_per_s", m->flops_per_s);
    cJSON_AddStringToObject(peaks, "flops_means", "fp32 FMA, 2 flops per FMA, all threads");
    cJSON_AddStringToObject(peaks, "flops_isa", m->flops_isa);
    cJSON_AddNumberToObject(peaks, "bf16_dot_flops_per_s", m->bf16_dot_flops_per_s);
    cJSON_AddNumberToObject(peaks, "amx_bf16_flops_per_s", m->amx_bf16_flops_per_s);
    cJSON_AddStringToObject(peaks, "bf16_means", "AVX-512 BF16 vdpbf16ps / AMX tdpbf16ps, 2 flops per "
                            "multiply-add, all threads; 0: the CPU has no such unit");
    cJSON_AddNumberToObject(peaks, "bytes_per_s", m->bytes_per_s);
    cJSON_AddStringToObject(peaks, "bytes_means", "memcpy, bytes read + bytes written, all threads");
    cJSON_AddNumberToObject(peaks, "copy_buffer_bytes", m->copy_buffer_bytes);
    cJSON_AddBoolToObject(peaks, "quick", m->quick);
    add_spread(peaks, "flops_reps_per_s", &m->flops_spread);
    add_spread(peaks, "bytes_reps_per_s", &m->bytes_spread);
    cJSON_AddStringToObject(root, "measured_at", m->measured_at);
    if (isnan(m->load_at_calibration[0]))
        cJSON_AddNullToObject(root, "load_at_calibration");
    else
        cJSON_AddItemToObject(root, "load_at_calibration", cJSON_CreateDoubleArray(m->load_at_calibration, 3));
    if (m->busy < 0)
        cJSON_AddNullToObject(root, "busy_at_calibration");
    else
        cJSON_AddBoolToObject(root, "busy_at_calibration", m->busy);
    cJSON_AddStringToObject(root, "harness_version", m->harness_version);
    char *text = cJSON_Print(root);
    cJSON_Delete(root);
    if (!text)
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "%s: out of memory", path);
    size_t len = strlen(text);
    int rc = harness_write_atomic(path, text, len, err);
    free(text);
    return rc;
}

static int get_string(const cJSON *o, const char *key, char *out, size_t cap)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!cJSON_IsString(v))
        return -1;
    snprintf(out, cap, "%s", v->valuestring);
    return 0;
}

/* A number, or -1 when absent or not one. */
static double get_number(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) && isfinite(v->valuedouble) ? v->valuedouble : -1;
}

/* A spread as add_spread writes it; zeros when absent or not usable
 * (harness_rep_spread_known then says so), never an error: it only
 * narrows a margin. */
static harness_rep_spread get_spread(const cJSON *o, const char *key)
{
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(o, key);
    harness_rep_spread s = {get_number(j, "min"), get_number(j, "median"), get_number(j, "max")};
    if (!harness_rep_spread_known(&s))
        s = (harness_rep_spread){0, 0, 0};
    return s;
}

static harness_machine_status parse(const cJSON *root, harness_machine *m, char *why, size_t cap)
{
    const cJSON *schema = cJSON_GetObjectItemCaseSensitive(root, "schema");
    if (!cJSON_IsString(schema) || strcmp(schema->valuestring, HARNESS_MACHINE_SCHEMA) != 0) {
        snprintf(why, cap, "schema is not \"%s\"", HARNESS_MACHINE_SCHEMA);
        return HARNESS_MACHINE_CORRUPT;
    }
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(root, "identity");
    const cJSON *peaks = cJSON_GetObjectItemCaseSensitive(root, "peaks");
    double cpus = get_number(id, "logical_cpus"), threads = get_number(id, "threads");
    if (!cJSON_IsObject(id) || get_string(id, "cpu_model", m->id.cpu_model, sizeof m->id.cpu_model) != 0 ||
        cpus < 1 || threads < 1) {
        snprintf(why, cap, "identity needs cpu_model, logical_cpus and threads");
        return HARNESS_MACHINE_CORRUPT;
    }
    m->id.logical_cpus = (int)cpus;
    m->id.threads = (int)threads;
    m->flops_per_s = get_number(peaks, "flops_per_s");
    m->bytes_per_s = get_number(peaks, "bytes_per_s");
    if (!cJSON_IsObject(peaks) || m->flops_per_s <= 0 || m->bytes_per_s <= 0) {
        snprintf(why, cap, "peaks needs positive flops_per_s and bytes_per_s");
        return HARNESS_MACHINE_CORRUPT;
    }
    /* Informative fields: absent is fine. */
    get_string(root, "host", m->host, sizeof m->host);
    get_string(peaks, "flops_isa", m->flops_isa, sizeof m->flops_isa);
    m->copy_buffer_bytes = get_number(peaks, "copy_buffer_bytes");
    /* Absent in older files: unknown, as for a CPU without the unit. */
    m->bf16_dot_flops_per_s = get_number(peaks, "bf16_dot_flops_per_s") > 0 ? get_number(peaks, "bf16_dot_flops_per_s") : 0;
    m->amx_bf16_flops_per_s = get_number(peaks, "amx_bf16_flops_per_s") > 0 ? get_number(peaks, "amx_bf16_flops_per_s") : 0;
    m->quick = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(peaks, "quick"));
    get_string(root, "measured_at", m->measured_at, sizeof m->measured_at);
    const cJSON *load = cJSON_GetObjectItemCaseSensitive(root, "load_at_calibration");
    for (int i = 0; i < 3; i++) {
        const cJSON *v = cJSON_IsArray(load) && cJSON_GetArraySize(load) == 3 ? cJSON_GetArrayItem(load, i) : NULL;
        m->load_at_calibration[i] = cJSON_IsNumber(v) ? v->valuedouble : NAN;
    }
    get_string(root, "harness_version", m->harness_version, sizeof m->harness_version);
    m->flops_spread = get_spread(peaks, "flops_reps_per_s");
    m->bytes_spread = get_spread(peaks, "bytes_reps_per_s");
    const cJSON *busy = cJSON_GetObjectItemCaseSensitive(root, "busy_at_calibration");
    m->busy = cJSON_IsBool(busy) ? cJSON_IsTrue(busy) : -1;
    /* A peak below its own spread's best is not one calibrate wrote. */
    if ((m->flops_spread.max > 0 && m->flops_spread.max > m->flops_per_s * 1.000001) ||
        (m->bytes_spread.max > 0 && m->bytes_spread.max > m->bytes_per_s * 1.000001)) {
        m->flops_spread = m->bytes_spread = (harness_rep_spread){0, 0, 0};
    }
    return HARNESS_MACHINE_OK;
}

harness_machine_status harness_machine_file_read(const char *path, harness_machine *m, char *why, size_t cap)
{
    memset(m, 0, sizeof *m);
    why[0] = '\0';
    if (access(path, F_OK) != 0 && errno == ENOENT)
        return HARNESS_MACHINE_ABSENT;
    char *text = NULL;
    size_t len = 0;
    harness_error err = {0};
    if (harness_read_file(path, &text, &len, &err) != 0) {
        snprintf(why, cap, "%s", err.msg);
        return HARNESS_MACHINE_CORRUPT;
    }
    cJSON *root = cJSON_ParseWithLength(text, len);
    free(text);
    if (!cJSON_IsObject(root)) {
        cJSON_Delete(root);
        snprintf(why, cap, "not a JSON object");
        return HARNESS_MACHINE_CORRUPT;
    }
    harness_machine_status st = parse(root, m, why, cap);
    cJSON_Delete(root);
    return st;
}

/* Paths and names in the reasons are bounded so a reason fits `missing`. */
void harness_machine_load_peaks(harness_peaks *peaks, int threads)
{
    char path[4096], why[512];
    harness_machine m;
    peaks->bytes_per_s = peaks->flops_per_s = peaks->bf16_flops_per_s = 0;
    peaks->cpu_bf16_dot_flops_per_s = peaks->cpu_amx_bf16_flops_per_s = 0;
    peaks->from_machine_file = 0;
    peaks->flops_margin = peaks->bytes_margin = 0;
    peaks->source[0] = peaks->missing[0] = peaks->flops_margin_why[0] = peaks->bytes_margin_why[0] = '\0';
    harness_machine_file_path(path, sizeof path);
    switch (harness_machine_file_read(path, &m, why, sizeof why)) {
    case HARNESS_MACHINE_ABSENT:
        snprintf(peaks->missing, sizeof peaks->missing, "no machine file at %.200s: run `harness calibrate`", path);
        return;
    case HARNESS_MACHINE_CORRUPT:
        fprintf(stderr, "harness: %swarning: machine file %.200s is not usable (%s); peaks unknown, run "
                        "`harness calibrate` to rewrite it\n", harness_error_rank_label(), path, why);
        snprintf(peaks->missing, sizeof peaks->missing, "machine file %.200s is corrupt (%.200s): run `harness calibrate`",
                 path, why);
        return;
    case HARNESS_MACHINE_OK:
        break;
    }
    harness_machine_identity here;
    harness_machine_identity_here(&here, threads);
    if (strcmp(m.id.cpu_model, here.cpu_model) != 0 || m.id.logical_cpus != here.logical_cpus) {
        snprintf(peaks->missing, sizeof peaks->missing,
                 "machine file %.200s was measured on another machine (%.80s, %d logical CPUs; this is %.80s, %d): "
                 "run `harness calibrate`", path, m.id.cpu_model, m.id.logical_cpus, here.cpu_model,
                 here.logical_cpus);
        return;
    }
    if (m.id.threads != here.threads) {
        snprintf(peaks->missing, sizeof peaks->missing,
                 "machine file %.200s was measured with %d threads, this run uses %d: run `harness calibrate "
                 "--threads %d` or set OMP_NUM_THREADS=%d", path, m.id.threads, here.threads, here.threads,
                 m.id.threads);
        return;
    }
    peaks->bytes_per_s = m.bytes_per_s;
    peaks->flops_per_s = m.flops_per_s;
    /* The bf16 peak a bf16 component is judged against: that of the unit
     * the components use on this CPU, AMX where it was measured, else the
     * AVX-512 BF16 dot. */
    peaks->bf16_flops_per_s = m.amx_bf16_flops_per_s > 0 ? m.amx_bf16_flops_per_s : m.bf16_dot_flops_per_s;
    peaks->cpu_bf16_dot_flops_per_s = m.bf16_dot_flops_per_s;
    peaks->cpu_amx_bf16_flops_per_s = m.amx_bf16_flops_per_s;
    peaks->from_machine_file = 1;
    peaks->flops_margin = harness_peak_margin_calibrated(&m.flops_spread, m.busy, peaks->flops_margin_why,
                                                         sizeof peaks->flops_margin_why);
    peaks->bytes_margin = harness_peak_margin_calibrated(&m.bytes_spread, m.busy, peaks->bytes_margin_why,
                                                         sizeof peaks->bytes_margin_why);
    /* The load says whether the peaks may be low (harness calibrate on a busy machine). */
    if (isnan(m.load_at_calibration[0]))
        snprintf(peaks->source, sizeof peaks->source, "%.400s (measured %s)", path, m.measured_at);
    else
        snprintf(peaks->source, sizeof peaks->source, "%.400s (measured %s at load average %.2f)", path,
                 m.measured_at, m.load_at_calibration[0]);
}

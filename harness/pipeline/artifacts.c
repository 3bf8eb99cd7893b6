/* Writing the experiment folder's files: each to a temporary name, then
 * renamed (util/fsutil.h), so none is ever half written. */
#include "pipeline/artifacts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline/config_source.h"
#include "report/clock_report.h"
#include "report/memory_report.h"
#include "report/trace_writer.h"
#include "util/format.h"
#include "util/fsutil.h"
#include "folder/samples.h"

static int write_text(const harness_experiment *exp, const char *name, const char *text, harness_error *err)
{
    char path[4200];
    if (!text)
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "out of memory writing %s", name);
    return harness_write_atomic(harness_experiment_path(exp, name, path, sizeof path), text, strlen(text), err);
}

/* The copy keeps the config's file name unless that name is one of the
 * folder's own (resolved_config.yaml, status.json, a summary, a profiler
 * file, a samples file) or hidden: then it would replace an artifact or be missed. */
static const char *copy_name(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    static const char *const prefixes[] = {HARNESS_PREFIX_SUMMARY, "profiler_", HARNESS_PREFIX_SAMPLES "_",
                                           HARNESS_PREFIX_HOST_SAMPLES "_", HARNESS_PREFIX_CLOCK_SAMPLES "_",
                                           HARNESS_FILE_STATUS,
                                           HARNESS_FILE_RESOLVED_CONFIG, "."};
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
        if (strncmp(base, prefixes[i], strlen(prefixes[i])) == 0)
            return "config_as_given.yaml";
    return *base ? base : "config_as_given.yaml";
}

int harness_write_config_copies(const harness_experiment *exp, const harness_plan_outputs *out, harness_error *err)
{
    const char *original;
    size_t len;
    if (harness_config_source(out->config_path, &original, &len, err) != 0)
        return err->code;
    char path[4200];
    int rc = harness_write_atomic(harness_experiment_path(exp, copy_name(out->config_path), path, sizeof path),
                                  original, len, err);
    if (rc == 0)
        rc = write_text(exp, HARNESS_FILE_RESOLVED_CONFIG, out->resolved_yaml, err);
    return rc;
}

int harness_write_budget_note(const harness_experiment *exp, const harness_plan_outputs *out,
                              const harness_budget *b, harness_error *err)
{
    char step[32], head[512], asked[32] = "auto";
    if (b->config_steps > 0)
        snprintf(asked, sizeof asked, "%lld", (long long)b->config_steps);
    snprintf(head, sizeof head,
             "# Sized by --time-budget %g s (a step took %s): schedule.measurement_steps %lld, windows while\n"
             "# they fit (%lld planned; the summary's schedule.repeat says how many ran), in place of the\n"
             "# repeat %lld and measurement_steps %s below.\n",
             b->budget_s, harness_format_ns(b->step_s * 1e9, step, sizeof step), (long long)b->steps,
             (long long)b->windows, (long long)b->config_repeat, asked);
    size_t len = strlen(head) + strlen(out->resolved_yaml) + 1;
    char *text = malloc(len);
    if (text)
        snprintf(text, len, "%s%s", head, out->resolved_yaml);
    int rc = write_text(exp, HARNESS_FILE_RESOLVED_CONFIG, text, err);
    free(text);
    return rc;
}

/* Each failed write is said as it happens (a full disk usually fails
 * several); the first one is kept in err for the folder's status. */
static int note(int rc, const harness_error *e, harness_error *first)
{
    if (rc == 0)
        return 0;
    harness_error_report(e);
    if (!first->code)
        *first = *e;
    return rc;
}

/* A big run's samples (and host launch times) go to binary side files
 * before the JSON that names them, so the JSON never names a file that is
 * not there. A side file that cannot be written leaves its samples inline
 * (slow, but nothing measured is lost) and the run marked failed. */
static int write_side_file(const harness_experiment *exp, harness_summary *s, const char *prefix, const double *v,
                           const char *unit, char *name, size_t name_cap, char *sha, harness_error *err)
{
    char path[4400];
    harness_error e = {0};
    harness_rank_file(name, name_cap, prefix, s->world_size, s->rank, "bin");
    int rc = harness_sample_file_write(harness_experiment_path(exp, name, path, sizeof path), v, s->run->n_samples,
                                       unit, sha, &e);
    if (rc == 0)
        return 0;
    name[0] = '\0';
    note(rc, &e, err);
    if (strcmp(s->status, "ok") == 0)
        harness_summary_mark(s, "failed", e.msg);
    return rc;
}

/* A GPU run's SM clock per sample (report/clock_report.h): the binary
 * format holds no NaN, so an unknown clock is written 0. Out of memory:
 * they stay inline. */
static int write_clock_samples(const harness_experiment *exp, harness_summary *s, harness_error *err)
{
    const harness_run_result *r = s->run;
    if (!r->sample_clock_mhz || !s->device || strcmp(s->device, "cuda") != 0)
        return 0;
    double *v = malloc(r->n_samples * sizeof *v);
    if (!v)
        return 0;
    for (size_t i = 0; i < r->n_samples; i++)
        v[i] = harness_clock_sample_for_file(r->sample_clock_mhz[i]);
    int rc = write_side_file(exp, s, HARNESS_PREFIX_CLOCK_SAMPLES, v, "MHz", s->clock_samples_file,
                             sizeof s->clock_samples_file, s->clock_samples_sha256, err);
    free(v);
    return rc;
}

int harness_write_summary_files(const harness_experiment *exp, harness_summary *s, harness_error *err)
{
    char name[256];
    harness_error e = {0};
    char *text = harness_summary_text(s);
    int rc = note(write_text(exp, harness_rank_file(name, sizeof name, HARNESS_PREFIX_PROFILER_SUMMARY, s->world_size, s->rank,
                                                    "txt"), text, &e), &e, err);
    free(text);
    /* The JSON last, so that it says whether the text made it. */
    if (rc != 0 && strcmp(s->status, "ok") == 0)
        harness_summary_mark(s, "failed", e.msg);
    char *json = harness_summary_json(s);
    e = (harness_error){0};
    int rc_json = note(write_text(exp, harness_rank_file(name, sizeof name, HARNESS_PREFIX_SUMMARY, s->world_size, s->rank,
                                                         "json"), json, &e), &e, err);
    free(json);
    return rc ? rc : rc_json;
}

static int write_summaries(const harness_experiment *exp, harness_summary *s, harness_error *err)
{
    int rc_side = 0;
    if (s->run && s->run->n_samples > HARNESS_SUMMARY_INLINE_SAMPLES) {
        rc_side = write_side_file(exp, s, HARNESS_PREFIX_SAMPLES, s->run->samples_ns, "ns", s->samples_file,
                                  sizeof s->samples_file, s->samples_sha256, err);
        if (s->run->host_samples_ns) {
            int rc = write_side_file(exp, s, HARNESS_PREFIX_HOST_SAMPLES, s->run->host_samples_ns, "ns",
                                     s->host_samples_file, sizeof s->host_samples_file, s->host_samples_sha256, err);
            rc_side = rc_side ? rc_side : rc;
        }
        int rc = write_clock_samples(exp, s, err);
        rc_side = rc_side ? rc_side : rc;
    }
    int rc = harness_write_summary_files(exp, s, err);
    return rc_side ? rc_side : rc;
}

static int write_memory_report(const harness_experiment *exp, const harness_summary *s,
                               const harness_profiler *prof, harness_error *err)
{
    char title[512], subtitle[1024], name[256];
    snprintf(title, sizeof title, "%s - rank %d of %d", s->variant_key, s->rank, s->world_size);
    snprintf(subtitle, sizeof subtitle, "%s on %s (%s), started %s; memory sampled every %lld steps and at each "
             "phase edge", s->cfg->name, s->env.host, s->device_name, s->env.started_at,
             (long long)s->cfg->memory_log_steps);
    /* A GPU run's report is of device memory, as its profiler followed. */
    const harness_alloc_tracker *mem = s->device_mem ? s->device_mem : s->mem;
    harness_memory_report_input in = {
        .title = title, .device = s->device, .subtitle = subtitle, .log = &prof->memory,
        .peak_allocated = mem->peak_bytes, .peak_reserved = prof->memory.peak_reserved,
        .at_peak = mem->at_peak, .n_at_peak = mem->n_at_peak,
        .device_total = s->device_mem && s->backend ? s->backend->info.total_bytes : 0,
    };
    char *html = harness_memory_report_html(&in);
    int rc = write_text(exp, harness_rank_file(name, sizeof name, HARNESS_PREFIX_MEMORY, s->world_size, s->rank, "html"),
                        html, err);
    free(html);
    return rc;
}

int harness_write_artifacts(const harness_experiment *exp, harness_summary *s, const harness_profiler *prof,
                            harness_error *err)
{
    char name[256], path[4400];
    harness_error e = {0};
    int rc = 0;
    if (prof->memory_enabled)
        rc = note(write_memory_report(exp, s, prof, &e), &e, err);
    if (prof->trace_enabled) {
        harness_trace_meta meta = {.rank = s->rank, .world_size = s->world_size, .variant_key = s->variant_key,
                                   .device_name = s->device_name, .harness_version = s->env.version,
                                   .gpu = s->gpu_activity, .comm = s->comm};
        if (s->backend && s->backend->gpu_props.name[0]) {
            meta.gpu_devices = &s->backend->gpu_props;
            meta.n_gpu_devices = 1;
        }
        harness_rank_file(name, sizeof name, HARNESS_PREFIX_TRACE, s->world_size, s->rank, "json");
        e = (harness_error){0};
        int rc_trace = note(harness_trace_write(prof, &meta, harness_experiment_path(exp, name, path, sizeof path),
                                                &e), &e, err);
        rc = rc ? rc : rc_trace;
    }
    if (rc != 0 && strcmp(s->status, "ok") == 0)
        harness_summary_mark(s, "failed", err->msg);
    int rc_summaries = write_summaries(exp, s, err);
    return rc ? rc : rc_summaries;
}

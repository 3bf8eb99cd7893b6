/* profiler_summary_ranks_N_rank_r.txt and the table `harness run` prints. */
#include <stdlib.h>
#include <string.h>

#include "report/roofline.h"
#include "report/summary.h"

static void print_params(FILE *f, const harness_config *cfg)
{
    for (size_t i = 0; i < cfg->n_params; i++) {
        const harness_param_value *p = &cfg->params[i];
        fprintf(f, "%s%s=", i ? " " : "", p->spec->name);
        switch (p->spec->type) {
        case HARNESS_PARAM_INT: fprintf(f, "%lld", (long long)p->i); break;
        case HARNESS_PARAM_FLOAT: fprintf(f, "%g", p->f); break;
        case HARNESS_PARAM_BOOL: fprintf(f, "%s", p->i ? "true" : "false"); break;
        default: fprintf(f, "%s", p->s ? p->s : ""); break;
        }
    }
}

static void print_validation(FILE *f, const harness_summary *s)
{
    switch (s->validation) {
    case HARNESS_VALIDATION_SKIPPED:
        fprintf(f, "validation: skipped (%s)\n", s->cfg->validate ? "the variant has no reference" : "validate: false");
        break;
    case HARNESS_VALIDATION_PASSED:
    case HARNESS_VALIDATION_FAILED:
        fprintf(f, "validation: %s: %llu of %llu elements over tolerance; max abs err %.3g (tolerance %.3g), max rel err %.3g\n",
                s->validation == HARNESS_VALIDATION_PASSED ? "passed" : "FAILED",
                (unsigned long long)s->check.mismatches, (unsigned long long)s->check.checked,
                s->check.max_abs_err, s->check.tolerance, s->check.max_rel_err);
        if (s->check.detail[0])
            fprintf(f, "  %s\n", s->check.detail);
        break;
    }
}

static void stats_row(FILE *f, const char *label, const harness_stats *st)
{
    char med[32], mean[32], sd[32], mn[32], p99[32], mx[32], lo[32], hi[32];
    fprintf(f, "%-7s %8zu %11s %11s %11s %11s %11s %11s  [%s, %s]\n", label, st->n,
            harness_format_ns(st->median, med, sizeof med), harness_format_ns(st->mean, mean, sizeof mean),
            harness_format_ns(st->stddev, sd, sizeof sd), harness_format_ns(st->min, mn, sizeof mn),
            harness_format_ns(st->p99, p99, sizeof p99), harness_format_ns(st->max, mx, sizeof mx),
            harness_format_ns(st->ci95_lo, lo, sizeof lo), harness_format_ns(st->ci95_hi, hi, sizeof hi));
}

static void print_table(FILE *f, const harness_summary *s)
{
    const harness_run_result *r = s->run;
    if (!r || r->n_samples == 0) {
        fprintf(f, "timing: no measured steps\n");
        return;
    }
    fprintf(f, "%-7s %8s %11s %11s %11s %11s %11s %11s  %s\n", "window", "steps", "median", "mean", "stddev",
            "min", "p99", "max", "95% CI of median");
    if (r->n_windows > 1) {
        for (size_t w = 0; w < r->n_windows; w++) {
            char label[24];
            snprintf(label, sizeof label, "%zu", w + 1);
            stats_row(f, label, &s->windows[w]);
        }
    }
    stats_row(f, "all", &s->overall);
}

static void print_throughput(FILE *f, const harness_summary *s)
{
    double median = s->overall.median;
    if (s->overall.n == 0 || median <= 0 || (s->cost.bytes <= 0 && s->cost.flops <= 0))
        return;
    fprintf(f, "throughput at the median:");
    if (s->cost.bytes > 0)
        fprintf(f, " %.2f GB/s (%.4g bytes/step)", s->cost.bytes / median, s->cost.bytes);
    if (s->cost.flops > 0)
        fprintf(f, "%s %.2f GFLOP/s (%.4g FLOP/step)", s->cost.bytes > 0 ? "," : "", s->cost.flops / median,
                s->cost.flops);
    fputc('\n', f);
}

/* Where a step's time goes, from the traced steps. */
static void print_regions(FILE *f, const harness_summary *s)
{
    if (s->n_regions == 0)
        return;
    fprintf(f, "%-20s %8s %11s %11s %8s\n", "region", "calls", "median", "mean", "of step");
    for (size_t i = 0; i < s->n_regions; i++) {
        const harness_region_stats *r = &s->regions[i];
        char med[32], mean[32];
        fprintf(f, "%-20s %8zu %11s %11s %7.1f%%\n", r->name, r->per_call.n,
                harness_format_ns(r->per_call.median, med, sizeof med),
                harness_format_ns(r->per_call.mean, mean, sizeof mean), 100 * r->share_of_steps);
    }
}

void harness_summary_print_short(const harness_summary *s, FILE *f)
{
    fprintf(f, "%s on %s (%s): ", s->variant_key, s->device, s->device_name);
    print_params(f, s->cfg);
    fputc('\n', f);
    print_validation(f, s);
    print_table(f, s);
    print_throughput(f, s);
    print_regions(f, s);
    if (strcmp(s->status, "ok") != 0)
        fprintf(f, "status: %s%s%s\n", s->status, s->error[0] ? ": " : "", s->error);
}

char *harness_summary_text(const harness_summary *s)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return NULL;
    const harness_env *e = &s->env;
    fprintf(f, "harness %s (commit %s) - profiler summary, rank %d of %d\n", e->version, e->git_commit, s->rank,
            s->world_size);
    fprintf(f, "status: %s%s%s\n\n", s->status, s->error[0] ? ": " : "", s->error);
    fprintf(f, "environment\n");
    fprintf(f, "  host %s, %s\n  cpu %s, %d logical CPUs, %d OpenMP threads\n", e->host, e->os, e->cpu_model,
            e->logical_cpus, e->omp_threads);
    fprintf(f, "  gpu %s, driver %s, cuda %s\n  %s; started %s\n\n", e->gpu, e->driver, e->cuda, e->compiler,
            e->started_at);
    fprintf(f, "component\n  %s (asked for %s) from %s\n  ", s->variant_key, s->cfg->variant_key,
            s->plugin_path ? s->plugin_path : "?");
    print_params(f, s->cfg);
    fprintf(f, "\n\n");
    print_validation(f, s);
    const harness_config *c = s->cfg;
    const harness_run_result *r = s->run;
    fprintf(f, "\nschedule: %lld warmup, %lld wait, ", (long long)c->warmup_steps, (long long)c->wait_steps);
    if (c->measurement_steps)
        fprintf(f, "%lld measured", (long long)c->measurement_steps);
    else
        fprintf(f, "auto-measured (95%% CI within %g of the median)", c->stop_max_rel_ci);
    fprintf(f, " x %lld windows", (long long)c->repeat);
    if (r)
        fprintf(f, "; ran %lld warmup, %lld wait, %zu measured steps in %.3f s", (long long)r->warmup_steps_run,
                (long long)r->wait_steps_run, r->n_samples, r->wall_s);
    if (s->clock)
        fprintf(f, "\nclock: %s, %.1f ns per read pair\n\n", s->clock->name, s->clock->read_overhead_ns);
    print_table(f, s);
    if (s->overall.n)
        fprintf(f, "cv %.2f%%, iqr %.4g ns, %zu outliers (Tukey fences)\n", 100 * s->overall.cv, s->overall.iqr,
                s->overall.outliers);
    print_throughput(f, s);
    harness_roofline_print(f, s);
    if (s->n_regions) {
        fputc('\n', f);
        print_regions(f, s);
    }
    if (s->mem) {
        fprintf(f, "\nmemory: peak allocated %zu bytes (%.1f MiB) in %zu allocations\n", s->mem->peak_bytes,
                (double)s->mem->peak_bytes / (1 << 20), s->mem->n_allocs);
        const harness_profiler *p = s->profiler;
        if (p && p->memory_enabled)
            fprintf(f, "peak %s %llu bytes (%.1f MiB) over %zu samples\n",
                    strcmp(s->device, "cuda") == 0 ? "device memory used" : "resident set",
                    (unsigned long long)p->memory.peak_reserved, (double)p->memory.peak_reserved / (1 << 20),
                    p->memory.n);
        fprintf(f, "live at the peak:\n");
        for (size_t i = 0; i < s->mem->n_at_peak; i++)
            fprintf(f, "  %-20s %-20s %zu bytes\n", s->mem->at_peak[i].tag, s->mem->at_peak[i].owner,
                    s->mem->at_peak[i].bytes);
    }
    const harness_profiler *p = s->profiler;
    if (p && p->trace_enabled) {
        fprintf(f, "\ntrace: %zu events", p->n_events);
        if (p->dropped_steps)
            fprintf(f, "; TRUNCATED at profiling.max_trace_events = %zu: the last %zu measured steps are not in it "
                       "(their timings are in the statistics above)", p->max_events, p->dropped_steps);
        fputc('\n', f);
    }
    if (fclose(f) != 0) {
        free(text);
        return NULL;
    }
    return text;
}

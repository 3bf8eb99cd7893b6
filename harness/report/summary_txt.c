/* profiler_summary_ranks_N_rank_r.txt and the table `harness run` prints.
 * The full summary is a list of sections (text_sections below), each one
 * function; a new section is one more entry. Every duration goes through
 * harness_format_ns and every size through harness_format_bytes, so no
 * figure is printed in raw ns or bytes. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/clock_report.h"
#include "report/device_report.h"
#include "report/energy_report.h"
#include "report/comm_report.h"
#include "report/gpu_trace.h"
#include "report/notes_text.h"
#include "report/roofline.h"
#include "report/summary.h"
#include "util/table_fit.h"

static const char *plural(long long n)
{
    return n == 1 ? "" : "s";
}

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

/* The checks after timing, in a line (docs/timing-integrity.md). */
static void print_after_timing(FILE *f, const harness_summary *s)
{
    const harness_after_timing_summary *a = &s->after_timing;
    if (!a->state)
        return;                    /* the run stopped before them */
    if (strcmp(a->state, "off") == 0) {
        fprintf(f, "checks after timing: off (validate_after_timing: false)\n");
        return;
    }
    char wait[32];
    fprintf(f, "checks after timing: %s: ", strcmp(a->state, "passed") == 0 ? "passed" : "FAILED");
    if (a->probe_steps)
        fprintf(f, "%d output probe step%s (%d output%s, read again after %s)", a->probe_steps,
                a->probe_steps == 1 ? "" : "s", a->outputs, a->outputs == 1 ? "" : "s",
                harness_format_ns(a->probe_wait_ns, wait, sizeof wait));
    else
        fprintf(f, "no output probe (the variant declares no outputs: plugin ABI 2.4)");
    if (a->recheck && strcmp(a->recheck, "none") != 0)
        fprintf(f, "; the reference check again, %s", strcmp(a->recheck, "new_inputs") == 0
                    ? "on new input values" : "on the same inputs (the variant declares no inputs)");
    fputc('\n', f);
    if (a->rotate_sets >= 2) {
        char bytes[32];
        fprintf(f, "rotated inputs: %lld sets, one per step in turn (%s)\n", (long long)a->rotate_sets,
                harness_format_bytes((double)a->rotate_bytes, bytes, sizeof bytes));
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
    print_after_timing(f, s);
}

/* "93.75%": the CI's exact coverage (util/stats.h), never a nominal 95%. */
static const char *format_level(double level, char *buf, size_t cap)
{
    if (isnan(level))
        snprintf(buf, cap, "-");
    else
        snprintf(buf, cap, "%.4g%%", 100 * level);
    return buf;
}

/* CPU time over wall time: ~threads when they all computed, below when
 * they waited; "-" when the wall time is unknown or too short to say. */
static const char *format_cpu_per_wall(double cpu_ns, double wall_ns, char *buf, size_t cap)
{
    double ratio = harness_cpu_per_wall(cpu_ns, wall_ns);
    if (!isnan(ratio))
        snprintf(buf, cap, "%.2f", ratio);
    else
        snprintf(buf, cap, "-");
    return buf;
}

/* An auto window's stop, said plainly: "converged", or what cut it short. */
static const char *stop_label(const char *reason)
{
    if (strcmp(reason, "max_steps") == 0)
        return "max_steps: NOT converged";
    if (strcmp(reason, "max_time") == 0)
        return "max_time: NOT converged";
    return reason;
}

typedef struct table_row {
    const char *label;
    const harness_stats *st;
    double cpu_ns, wall_ns;
    const char *stop;              /* NULL: no stop column */
} table_row;

/* The table's columns: the separator before each, its width, and whether
 * it is left-aligned (the row labels, the interval, the stop). */
enum { COL_WINDOW, COL_STEPS, COL_MEDIAN, COL_MEAN, COL_STDDEV, COL_MIN, COL_P99, COL_MAX, COL_CI, COL_LEVEL,
       COL_CPU_WALL, COL_STOP, N_COLS };
static const char *const col_sep[N_COLS] = {"", " ", " ", " ", " ", " ", " ", " ", "  ", " ", " ", "  "};
static const int col_width[N_COLS] = {-7, 8, 11, 11, 11, 11, 11, 11, -24, 7, 8, 0};

/* One line of the table: the columns shown, trailing blanks trimmed. */
static void table_line(FILE *f, const char *const cell[N_COLS], const unsigned char *shown)
{
    char line[1024];
    size_t len = 0;
    for (int j = 0; j < N_COLS && len < sizeof line; j++)
        if (shown[j] && cell[j] && (j != COL_STOP || cell[j][0]))
            len += (size_t)snprintf(line + len, sizeof line - len, "%s%*s", j ? col_sep[j] : "", col_width[j],
                                    cell[j]);
    if (len >= sizeof line)
        len = sizeof line - 1;
    while (len && line[len - 1] == ' ')
        len--;
    fprintf(f, "%.*s\n", (int)len, line);
}

static void stats_row(FILE *f, const table_row *row, const unsigned char *shown)
{
    const harness_stats *st = row->st;
    char steps[32], med[32], mean[32], sd[32], mn[32], p99[32], mx[32], lo[32], hi[32], ci[80], lvl[16], cw[16];
    snprintf(steps, sizeof steps, "%zu", st->n);
    if (st->n == 0) {   /* a window cut short before its first step (a crash): no statistics, not zeros */
        const char *cell[N_COLS] = {row->label, steps, "-", "-", "-", "-", "-", "-", "-", "-", "-", row->stop};
        table_line(f, cell, shown);
        return;
    }
    snprintf(ci, sizeof ci, "[%s, %s]", harness_format_ns(st->ci95_lo, lo, sizeof lo),
             harness_format_ns(st->ci95_hi, hi, sizeof hi));
    const char *cell[N_COLS] = {row->label, steps, harness_format_ns(st->median, med, sizeof med),
                                harness_format_ns(st->mean, mean, sizeof mean),
                                harness_format_ns(st->stddev, sd, sizeof sd), harness_format_ns(st->min, mn, sizeof mn),
                                harness_format_ns(st->p99, p99, sizeof p99), harness_format_ns(st->max, mx, sizeof mx),
                                ci, format_level(st->ci_level, lvl, sizeof lvl),
                                format_cpu_per_wall(row->cpu_ns, row->wall_ns, cw, sizeof cw), row->stop};
    table_line(f, cell, shown);
}

/* The columns shown within `limit` (0: all): the level, the mean, the
 * stddev, cpu/wall, the min, the p99, then the max give way; the window,
 * its steps, the median, its interval and the stop stay. */
static void fit_columns(int limit, size_t stop_width, unsigned char *shown)
{
    size_t width[N_COLS];
    for (int j = 0; j < N_COLS; j++)
        width[j] = (size_t)abs(col_width[j]) + (j ? strlen(col_sep[j]) - 1 : 0);
    width[COL_STOP] = stop_width ? stop_width + 1 : 0;
    static const int drop[] = {COL_LEVEL, COL_MEAN, COL_STDDEV, COL_CPU_WALL, COL_MIN, COL_P99, COL_MAX};
    harness_table_fit t = {N_COLS, width, shown, -1, 0, drop, (int)(sizeof drop / sizeof drop[0]), 1};
    harness_table_fit_to(&t, limit);
}

/* Per window (when there are several) and overall; the level column is the
 * exact coverage of each row's CI, which depends on its step count. */
static void print_table(FILE *f, const harness_summary *s, int limit)
{
    const harness_run_result *r = s->run;
    if (!r || r->n_samples == 0) {
        fprintf(f, "timing: no measured steps\n");
        return;
    }
    int is_auto = harness_summary_measurement_steps(s) == 0;
    unsigned char shown[N_COLS];
    size_t stop_width = is_auto ? strlen("stop") : 0;
    for (size_t w = 0; w < r->n_windows; w++)
        if (r->stop_reason[w] && strcmp(r->stop_reason[w], "steps") != 0 &&
            strlen(stop_label(r->stop_reason[w])) > stop_width)
            stop_width = strlen(stop_label(r->stop_reason[w]));
    fit_columns(limit, stop_width, shown);
    const char *header[N_COLS] = {"window", "steps", "median", "mean", "stddev", "min", "p99", "max",
                                  "CI of median", "level", "cpu/wall", is_auto ? "stop" : ""};
    table_line(f, header, shown);
    double cpu = 0, wall = 0;
    for (size_t w = 0; w < r->n_windows; w++) {
        cpu += r->window_cpu_ns[w];
        wall += r->window_wall_ns[w];
        if (r->n_windows < 2 && !is_auto)
            continue;
        char label[24];
        snprintf(label, sizeof label, "%zu", w + 1);
        /* The stop column with auto; a window that stopped short (crashed,
         * interrupted) says so in any case. */
        const char *why = r->stop_reason[w];
        int short_stop = why && strcmp(why, "steps") != 0 && !is_auto;
        table_row row = {label, &s->windows[w], r->window_cpu_ns[w], r->window_wall_ns[w],
                         is_auto || short_stop ? stop_label(why) : NULL};
        stats_row(f, &row, shown);
    }
    table_row all = {"all", &s->overall, cpu, wall, is_auto ? "" : NULL};
    stats_row(f, &all, shown);
}

static void print_throughput(FILE *f, const harness_summary *s)
{
    double median = s->overall.median;
    if (s->overall.n == 0 || median <= 0 || (s->cost.bytes <= 0 && s->cost.flops <= 0))
        return;
    char b[32];
    /* The roofline's percents too: how good a rate is, said where the rate is. */
    harness_roofline r;
    harness_roofline_compute(s, &r);
    fprintf(f, "throughput at the median:");
    if (s->cost.bytes > 0)
        fprintf(f, " %.2f GB/s (%s/step)", s->cost.bytes / median, harness_format_bytes(s->cost.bytes, b, sizeof b));
    if (s->cost.bytes > 0 && !r.missing && isfinite(r.percent_of_peak_bandwidth))
        fprintf(f, " %.1f%% of peak", r.percent_of_peak_bandwidth);
    if (s->cost.flops > 0)
        fprintf(f, "%s %.2f GFLOP/s (%.4g FLOP/step)", s->cost.bytes > 0 ? "," : "", s->cost.flops / median,
                s->cost.flops);
    if (s->cost.flops > 0 && !r.missing && isfinite(r.percent_of_top_flops) && r.top_flops)
        fprintf(f, " %.1f%% of peak %s", r.percent_of_top_flops, r.top_flops);
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

static void print_short(const harness_summary *s, FILE *f, int width)
{
    fprintf(f, "%s on %s (%s): ", s->variant_key, s->device, s->device_name);
    print_params(f, s->cfg);
    fputc('\n', f);
    harness_notes_print(f, "", s->notes);
    print_validation(f, s);
    print_table(f, s, width);
    print_throughput(f, s);
    harness_energy_print_short(f, s);
    print_regions(f, s);
    if (strcmp(s->status, "ok") != 0)
        fprintf(f, "status: %s%s%s\n", s->status, s->error[0] ? ": " : "", s->error);
}

void harness_summary_print_short(const harness_summary *s, FILE *f, int width)
{
    char *text = NULL;
    size_t len = 0;
    FILE *m = width > 0 ? open_memstream(&text, &len) : NULL;
    if (!m) {                      /* every column (a pipe, --wide), or no memory to fit them */
        print_short(s, f, 0);
        return;
    }
    print_short(s, m, width);
    if (fclose(m) == 0)
        harness_wrap_fputs(f, text, width, 2);
    else
        print_short(s, f, 0);
    free(text);
}

/* ---- the full summary's sections ---------------------------------------- */

static void section_header(FILE *f, const harness_summary *s)
{
    const harness_env *e = &s->env;
    fprintf(f, "harness %s (commit %s) - profiler summary of %s, rank %d of %d\n", e->version, e->git_commit,
            s->cfg->name, s->rank, s->world_size);
    fprintf(f, "status: %s%s%s\n", s->status, s->error[0] ? ": " : "", s->error);
}

static void print_load(FILE *f, const char *when, const double load[3])
{
    if (isnan(load[0]))
        fprintf(f, "unknown %s", when);
    else
        fprintf(f, "%.2f %.2f %.2f %s", load[0], load[1], load[2], when);
}

static void section_environment(FILE *f, const harness_summary *s)
{
    const harness_env *e = &s->env;
    fprintf(f, "environment\n  host %s, %s\n", e->host, e->os);
    fprintf(f, "  cpu %s (family %s, model %s, stepping %s)\n", e->cpu_model, e->cpu_family, e->cpu_model_number,
            e->cpu_stepping);
    fprintf(f, "  caches: L1d %s, L1i %s, L2 %s, L3 %s\n", e->cache_l1d, e->cache_l1i, e->cache_l2, e->cache_l3);
    fprintf(f, "  %d logical CPU%s, %d in the affinity mask, %d OpenMP thread%s; frequency governor: %s\n",
            e->logical_cpus, plural(e->logical_cpus), e->affinity_cpus, e->omp_threads, plural(e->omp_threads),
            e->governor);
    fprintf(f, "  load average (1, 5, 15 min): ");
    print_load(f, "at start, ", e->load_start);
    print_load(f, "at end\n", e->load_end);
    if (s->run) {
        char noise[512];
        fprintf(f, "  interference with this run: %s\n", harness_noise_text(&s->noise, noise, sizeof noise));
    }
    fprintf(f, "  gpu %s, driver %s, cuda %s\n", e->gpu, e->driver, e->cuda);
    const harness_dist_env *d = &s->dist_env;
    if (s->world_size > 1 || d->slurm.job_id[0])   /* the rest of env.distributed: the JSON summary */
        fprintf(f, "  ranks: %s; nccl %s; slurm %s%s%s%s%s%s\n", d->mpi_library, d->nccl,
                d->slurm.job_id[0] ? "job " : "none", d->slurm.job_id, d->slurm.step_id[0] ? " step " : "",
                d->slurm.step_id, d->slurm.job_nodelist[0] ? " on " : "", d->slurm.job_nodelist);
    /* The build's constants; NULL in a summary that was not captured (tests). */
    fprintf(f, "  build: %s; flags %s; sanitizers: %s; configure %s\n", e->compiler, e->cflags ? e->cflags : "?",
            e->sanitizers ? e->sanitizers : "?",
            e->configure_args && e->configure_args[0] ? e->configure_args : "(no arguments)");
    char res[32];
    fprintf(f, "  clock %s, measured resolution %s (kernel clocksource %s)\n", e->clock,
            harness_format_ns(e->clock_resolution_ns, res, sizeof res), e->kernel_clocksource);
    fprintf(f, "  executable %s\n  started %s\n", e->executable, e->started_at);
}

static void section_component(FILE *f, const harness_summary *s)
{
    fprintf(f, "component\n  %s (asked for %s) from %s\n  ", s->variant_key, s->cfg->variant_key,
            s->plugin_path ? s->plugin_path : "?");
    print_params(f, s->cfg);
    fputc('\n', f);
    harness_notes_print(f, "  ", s->notes);
}

static void section_validation(FILE *f, const harness_summary *s)
{
    print_validation(f, s);
}

static void section_schedule(FILE *f, const harness_summary *s)
{
    const harness_config *c = s->cfg;
    const harness_run_result *r = s->run;
    int64_t steps = harness_summary_measurement_steps(s), repeat = harness_summary_repeat(s);
    fprintf(f, "schedule: %lld warmup, %lld wait, ", (long long)c->warmup_steps, (long long)c->wait_steps);
    if (steps)
        fprintf(f, "%lld measured", (long long)steps);
    else
        fprintf(f, "auto-measured (CI within %g of the median, at most %lld steps or %g s)", c->stop_max_rel_ci,
                (long long)c->stop_max_steps, c->stop_max_time_s);
    fprintf(f, " x %lld window%s\n", (long long)repeat, plural(repeat));
    if (r && r->budget.budget_s > 0 && r->budget.fits) {
        char step[32], asked[32] = "auto";
        if (c->measurement_steps)
            snprintf(asked, sizeof asked, "%lld", (long long)c->measurement_steps);
        fprintf(f, "  sized by --time-budget %g s: a step took %s over %lld pilot steps, %lld windows planned "
                "(the config: %s x %lld)\n", r->budget.budget_s, harness_format_ns(r->budget.step_s * 1e9, step,
                sizeof step), (long long)r->budget.pilot_steps, (long long)r->budget.windows, asked,
                (long long)c->repeat);
    }
    if (r) {
        char wall[32];
        fprintf(f, "  ran %lld warmup, %lld wait, %zu measured steps in %s\n", (long long)r->warmup_steps_run,
                (long long)r->wait_steps_run, r->n_samples, harness_format_ns(r->wall_s * 1e9, wall, sizeof wall));
        if (r->trace_steps_run)
            fprintf(f, "  then %lld untimed steps in the trace window (the kernel timeline's)\n",
                    (long long)r->trace_steps_run);
    }
    if (s->clock) {
        char res[32], pair[32];
        fprintf(f, "clock: %s (%s), resolution %s, %s per read pair\n", s->clock->name, s->clock->why,
                harness_format_ns(s->clock->resolution_ns, res, sizeof res),
                harness_format_ns(s->clock->read_overhead_ns, pair, sizeof pair));
    }
}

/* The spread of the steps, and the windows' medians as samples of their own. */
static void print_spread(FILE *f, const harness_summary *s)
{
    char iqr[32], med[32], lo[32], hi[32], lvl[16];
    if (!s->overall.n)
        return;
    fprintf(f, "cv %.2f%%, iqr %s, %zu outlier%s (Tukey fences)\n", 100 * s->overall.cv,
            harness_format_ns(s->overall.iqr, iqr, sizeof iqr), s->overall.outliers,
            plural((long long)s->overall.outliers));
    const harness_stats *a = &s->across_windows;
    if (a->n < 2)
        return;
    fprintf(f, "across %zu windows (the window is the unit of replication): median of window medians %s, "
               "%s CI [%s, %s]\n", a->n, harness_format_ns(a->median, med, sizeof med),
            format_level(a->ci_level, lvl, sizeof lvl), harness_format_ns(a->ci95_lo, lo, sizeof lo),
            harness_format_ns(a->ci95_hi, hi, sizeof hi));
}

static void section_timing(FILE *f, const harness_summary *s)
{
    print_table(f, s, 0);
    print_spread(f, s);
    print_throughput(f, s);
    harness_energy_print(f, s);
    harness_roofline_print(f, s);
    harness_device_report_print(f, s);
    harness_clock_report_print(f, s);
}

static void section_regions(FILE *f, const harness_summary *s)
{
    print_regions(f, s);
}

/* The PyTorch profiler's "top CUDA kernels": where the GPU's time went. */
static void section_gpu_kernels(FILE *f, const harness_summary *s)
{
    const harness_gpu_activity_list *l = s->gpu_activity;
    if (!l)
        return;
    harness_gpu_kernel_row *rows;
    size_t n;
    double all;
    if (harness_gpu_kernel_table(l, &rows, &n, &all) != 0)
        return;
    char total[32], mean[32];
    fprintf(f, "GPU kernels (CUPTI, trace window after the measured ones): %zu kernel%s, %s of GPU time\n", n,
            plural((long long)n), harness_format_ns(all, total, sizeof total));
    if (n)
        fprintf(f, "  %-48s %8s %11s %11s %7s\n", "kernel", "calls", "total", "mean", "of GPU");
    for (size_t i = 0; i < n; i++)
        fprintf(f, "  %-48.48s %8zu %11s %11s %6.1f%%\n", rows[i].name, rows[i].calls,
                harness_format_ns(rows[i].total_ns, total, sizeof total),
                harness_format_ns(rows[i].mean_ns, mean, sizeof mean), 100 * rows[i].share);
    if (l->dropped)
        fprintf(f, "  %llu activity record%s DROPPED (CUPTI's buffers were full): the table and the trace miss them\n",
                (unsigned long long)l->dropped, plural((long long)l->dropped));
    if (l->untimed)
        fprintf(f, "  %llu GPU record%s without timestamps (CUPTI gave start = end = 0): left out of the table and "
                   "the trace\n", (unsigned long long)l->untimed, plural((long long)l->untimed));
    free(rows);
}

static void section_memory(FILE *f, const harness_summary *s)
{
    const harness_alloc_tracker *m = s->mem;
    if (!m)
        return;
    char peak[32], bytes[32];
    fprintf(f, "memory: peak allocated %s in %zu allocation%s\n", harness_format_bytes((double)m->peak_bytes, peak,
            sizeof peak), m->n_allocs, plural((long long)m->n_allocs));
    const harness_profiler *p = s->profiler;
    if (p && p->memory_enabled)
        fprintf(f, "peak %s %s over %zu sample%s\n", strcmp(s->device, "cuda") == 0 ? "device memory used"
                                                                                    : "resident set",
                harness_format_bytes((double)p->memory.peak_reserved, peak, sizeof peak), p->memory.n,
                plural((long long)p->memory.n));
    fprintf(f, "live at the peak:\n");
    for (size_t i = 0; i < m->n_at_peak; i++)
        fprintf(f, "  %-20s %-20s %s\n", m->at_peak[i].tag, m->at_peak[i].owner,
                harness_format_bytes((double)m->at_peak[i].bytes, bytes, sizeof bytes));
}

static void section_trace(FILE *f, const harness_summary *s)
{
    const harness_profiler *p = s->profiler;
    if (!p || !p->trace_enabled)
        return;
    fprintf(f, "trace: %zu events", p->n_events);
    if (p->dropped_steps)
        fprintf(f, "; TRUNCATED at profiling.max_trace_events = %zu: the last %zu measured steps are not in it "
                   "(their timings are in the statistics above)", p->max_events, p->dropped_steps);
    fputc('\n', f);
}

static void section_warnings(FILE *f, const harness_summary *s)
{
    if (s->warnings.n == 0)
        return;
    fprintf(f, "Warnings:\n");
    for (size_t i = 0; i < s->warnings.n; i++)
        fprintf(f, "  - %s\n", s->warnings.text[i]);
}

typedef void (*text_section)(FILE *f, const harness_summary *s);

/* In reading order. */
static const text_section text_sections[] = {
    section_header, section_environment, section_component, section_validation, section_schedule,
    section_timing, section_regions,     harness_comm_print, section_gpu_kernels, section_memory,  section_trace,      section_warnings,
};

/* One section's text, malloc'ed ("" when it has nothing to say); NULL out
 * of memory. */
static char *section_text(text_section section, const harness_summary *s)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return NULL;
    section(f, s);
    if (fclose(f) != 0) {
        free(text);
        return NULL;
    }
    return text;
}

char *harness_summary_text(const harness_summary *s)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return NULL;
    int ok = 1, first = 1;
    for (size_t i = 0; ok && i < sizeof text_sections / sizeof text_sections[0]; i++) {
        char *part = section_text(text_sections[i], s);
        ok = part != NULL;
        /* A blank line between sections; one with nothing to say leaves none. */
        if (ok && part[0]) {
            fprintf(f, "%s%s", first ? "" : "\n", part);
            first = 0;
        }
        free(part);
    }
    if (fclose(f) != 0 || !ok) {
        free(text);
        return NULL;
    }
    return text;
}

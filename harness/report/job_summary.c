/* The cross-rank summary; see job_summary.h. */
#include "report/job_summary.h"
#include "util/format.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/pairs.h"
#include "run/comm_log.h"
#include "util/stats.h"
#include "folder/job_summary.h"
#include "report/node_rollup.h"

void harness_rank_figures_of(const harness_summary *s, harness_rank_figures *out)
{
    memset(out, 0, sizeof *out);
    out->rank = s->rank;
    snprintf(out->status, sizeof out->status, "%.23s", s->status);
    snprintf(out->host, sizeof out->host, "%.63s", s->env.host);
    out->n = s->overall.n;
    out->median_ns = s->overall.median;
    out->p90_ns = s->overall.p90;
    if (out->median_ns > 0) {
        out->gb_per_s = s->cost.bytes / out->median_ns;
        out->gflop_per_s = s->cost.flops / out->median_ns;
    }
    for (size_t i = 0; s->comm && s->clock && i < s->comm->n; i++) {
        const harness_comm_record *c = &s->comm->records[i];
        out->comm_calls++;
        out->comm_bytes += (double)c->bytes;
        out->comm_ns += harness_clock_ns(s->clock, c->t1 - c->t0);
    }
    size_t w = s->run ? s->run->n_windows : 0;
    out->n_windows = (int)(w < HARNESS_JOB_MAX_WINDOWS ? w : HARNESS_JOB_MAX_WINDOWS);
    for (int i = 0; i < out->n_windows; i++)
        out->window_median_ns[i] = s->windows[i].median;
    harness_rank_energy_of(s, &out->energy);
    out->slurm = s->dist_env.slurm;
}

/* The job's Slurm facts (rank 0's; a rank's own procid and nodeid are in its
 * summary), copied into x: 0, or -1 out of memory. */
static int job_slurm(const harness_slurm_env *s, harness_job_summary *x)
{
    harness_slurm_out facts = harness_slurm_out_of(s);
    const char *from[] = {facts.job_id, facts.step_id, facts.job_nodelist, facts.cluster_name};
    char *to[4] = {0};
    for (int i = 0; i < 4; i++)
        if (from[i] && !(to[i] = strdup(from[i]))) {
            for (int j = 0; j < i; j++)
                free(to[j]);
            return -1;
        }
    x->slurm = (harness_slurm_out){.job_id = to[0], .step_id = to[1], .job_nodelist = to[2], .cluster_name = to[3]};
    return 0;
}

/* The ranks' energy as an array of their own (report/job_energy.h); NULL
 * out of memory. */
static harness_rank_energy *energies(const harness_rank_figures *r, int n)
{
    harness_rank_energy *e = malloc(sizeof *e * (size_t)(n > 0 ? n : 1));
    for (int i = 0; e && i < n; i++)
        e[i] = r[i].energy;
    return e;
}

void harness_job_stragglers(const double *samples, int ranks, size_t n, size_t *counts)
{
    for (int r = 0; r < ranks; r++)
        counts[r] = 0;
    for (size_t i = 0; i < n && ranks > 0; i++) {
        int slowest = 0;
        for (int r = 1; r < ranks; r++)
            if (samples[(size_t)r * n + i] > samples[(size_t)slowest * n + i])
                slowest = r;
        counts[slowest]++;
    }
}

/* Across the ranks that measured something. */
typedef struct across {
    int n;                         /* ranks with a median */
    double min, median, max, skew;
    int slowest, fastest;          /* rank numbers; -1 when n is 0 */
} across;

static across across_ranks(const harness_rank_figures *r, int n)
{
    across a = {0, 0, 0, 0, 0, -1, -1};
    double *m = malloc(sizeof *m * (size_t)(n > 0 ? n : 1));
    for (int i = 0; m && i < n; i++) {
        if (r[i].median_ns <= 0)
            continue;
        if (a.slowest < 0 || r[i].median_ns > a.max)
            a.max = r[i].median_ns, a.slowest = r[i].rank;
        if (a.fastest < 0 || r[i].median_ns < a.min)
            a.min = r[i].median_ns, a.fastest = r[i].rank;
        m[a.n++] = r[i].median_ns;
    }
    harness_stats st;
    if (m && a.n > 0 && harness_stats_compute(m, (size_t)a.n, &st) == 0)
        a.median = st.median;
    a.skew = a.min > 0 ? a.max / a.min : 0;
    free(m);
    return a;
}

/* The rank with the longest median in window w; -1 when no rank has it. */
static int slowest_in_window(const harness_rank_figures *r, int n, int w, double *ns)
{
    int who = -1;
    *ns = 0;
    for (int i = 0; i < n; i++)
        if (w < r[i].n_windows && r[i].window_median_ns[w] > *ns)
            *ns = r[i].window_median_ns[w], who = r[i].rank;
    return who;
}

static int max_windows(const harness_rank_figures *r, int n)
{
    int w = 0;
    for (int i = 0; i < n; i++)
        w = r[i].n_windows > w ? r[i].n_windows : w;
    return w;
}

/* Rank i's figures as the folder stage's record; -1 out of memory. */
static int rank_record(const harness_rank_figures *f, const size_t *stragglers, int i, harness_job_rank_record *o)
{
    *o = (harness_job_rank_record){
        .rank = f->rank, .n = (double)f->n, .median_ns = f->median_ns, .p90_ns = f->p90_ns,
        .gb_per_s = f->gb_per_s, .gflop_per_s = f->gflop_per_s, .comm_calls = (double)f->comm_calls,
        .comm_bytes = f->comm_bytes, .comm_ns = f->comm_ns, .clock_offset_ns = (double)f->clock_offset_ns,
        .clock_rtt_ns = f->clock_rtt_ns >= 0 ? f->clock_rtt_ns : NAN,
        .straggler_steps = stragglers ? (double)stragglers[i] : NAN,
        .joules_per_step = f->energy.joules_per_step, .watts = f->energy.watts,
        .flop_per_joule = f->energy.flop_per_joule, .bytes_per_joule = f->energy.bytes_per_joule,
    };
    o->status = strdup(f->status);
    o->host = strdup(f->host);
    o->energy_status = strdup(f->energy.status[0] ? f->energy.status : "not_available");
    o->energy_counter = strdup(f->energy.counter);
    return o->status && o->host && o->energy_status && o->energy_counter ? 0 : -1;
}

/* What came to rank 0 over MPI (experiment.gather), as the record says it. */
static int gather_record(const harness_gather *g, harness_job_summary *x)
{
    x->gathered = g && g->on;
    x->gather_max_bytes = x->gathered ? (double)g->max_bytes : NAN;
    if (!x->gathered || !g->n_files)
        return 0;
    if (!(x->gather_files = calloc(g->n_files, sizeof *x->gather_files)))
        return -1;
    for (size_t i = 0; i < g->n_files; i++, x->n_gather_files++) {
        const harness_gather_file *f = &g->files[i];
        harness_job_gather_record *o = &x->gather_files[i];
        *o = (harness_job_gather_record){.rank = f->rank, .bytes = (double)f->bytes, .sent = !f->skipped};
        if (!(o->name = strdup(f->name)) || (!f->skipped && !(o->sha256 = strdup(f->sha256))))
            return -1;
    }
    return 0;
}

/* The job's record from the ranks' figures: the statistics are computed
 * here, the file is the folder stage's (folder/job_summary.h). */
static int job_record(const harness_rank_figures *r, int n, const char *variant_key, const size_t *stragglers,
                      const harness_gather *gather, harness_job_summary *x)
{
    x->world_size = n;
    x->n_windows = (size_t)max_windows(r, n);
    if (!(x->variant_key = strdup(variant_key)) || !(x->ranks = calloc((size_t)n + 1, sizeof *x->ranks)) ||
        !(x->windows = calloc(x->n_windows + 1, sizeof *x->windows)))
        return -1;
    /* interrupted: every rank not ok was stopped (and kept its windows) */
    const char *status = "ok";
    for (int i = 0; i < n; i++) {
        x->n_ranks++;
        if (rank_record(&r[i], stragglers, i, &x->ranks[i]) != 0)
            return -1;
        if (strcmp(r[i].status, "ok") != 0)
            status = strcmp(r[i].status, "interrupted") == 0 && strcmp(status, "failed") != 0 ? "interrupted"
                                                                                               : "failed";
    }
    if (!(x->status = strdup(status)) || job_slurm(&r[0].slurm, x) != 0)
        return -1;
    across a = across_ranks(r, n);
    x->ranks_measured = a.n;
    x->min_median = a.min;
    x->median_median = a.median;
    x->max_median = a.max;
    x->skew = a.skew;
    x->slowest_rank = a.slowest;
    x->fastest_rank = a.fastest;
    for (size_t w = 0; w < x->n_windows; w++) {
        x->windows[w].window = (int)w;
        x->windows[w].slowest_rank = slowest_in_window(r, n, (int)w, &x->windows[w].slowest_median_ns);
    }
    harness_rank_energy *e = energies(r, n);
    if (!e)
        return -1;
    harness_job_energy j;
    harness_job_energy_of(e, n, &j);
    free(e);
    x->energy_ranks_measured = j.ranks_measured;
    x->energy_counters = j.counters;
    x->energy_watts = j.watts;
    x->energy_joules_per_step = j.joules_per_step;
    if (harness_node_rollup(x->ranks, x->n_ranks, &x->nodes) != 0)
        return -1;
    return gather_record(gather, x);
}

char *harness_job_summary_json(const harness_rank_figures *r, int n, const char *variant_key,
                               const size_t *stragglers, const harness_job_pairs *pairs,
                               const harness_gather *gather)
{
    harness_job_summary x = {0};
    int rc = job_record(r, n, variant_key, stragglers, gather, &x);
    if (rc == 0 && pairs)
        x.pairs = *pairs;          /* borrowed: given back before the free */
    char *text = rc == 0 ? harness_job_summary_write(&x) : NULL;
    x.pairs = (harness_job_pairs){0};
    harness_job_summary_free(&x);
    return text;
}

/* The files that came over MPI, and those left behind, one line each. */
static void print_gather(FILE *f, const harness_gather *g)
{
    if (!g || !g->on)
        return;
    char size[32], bound[32];
    fprintf(f, "gathered: the ranks' files came to rank 0 over MPI (experiment.gather; %zu file%s)\n", g->n_files,
            g->n_files == 1 ? "" : "s");
    for (size_t i = 0; i < g->n_files; i++)
        if (g->files[i].skipped)
            fprintf(f, "not gathered: %s of rank %d (%s): over experiment.gather_max_bytes (%s a rank); it stays in "
                    "that rank's staging folder\n", g->files[i].name, g->files[i].rank,
                    harness_format_bytes((double)g->files[i].bytes, size, sizeof size),
                    harness_format_bytes((double)g->max_bytes, bound, sizeof bound));
}

char *harness_job_summary_text(const harness_rank_figures *r, int n, const char *variant_key,
                               const size_t *stragglers, const harness_job_pairs *pairs,
                               const harness_gather *gather)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    /* Times with their unit, as stdout prints them (harness_format_ns). */
    char med[32], p90[32], lo[32], hi[32];
    fprintf(f, "%s on %d rank%s\n\n%6s  %-10s %-20s %12s %12s %10s %10s\n", variant_key, n, n == 1 ? "" : "s",
            "rank", "status", "host", "median", "p90", "GB/s", "GFLOP/s");
    for (int i = 0; i < n; i++)
        fprintf(f, "%6d  %-10s %-20.20s %12s %12s %10.2f %10.2f\n", r[i].rank, r[i].status, r[i].host,
                harness_format_ns(r[i].median_ns, med, sizeof med), harness_format_ns(r[i].p90_ns, p90, sizeof p90),
                r[i].gb_per_s, r[i].gflop_per_s);
    across a = across_ranks(r, n);
    if (a.n > 0)
        fprintf(f, "\nacross %d rank%s: median of the ranks' medians %s, min %s (rank %d), max %s (rank %d); "
                "skew (max / min) %.3f\n", a.n, a.n == 1 ? "" : "s", harness_format_ns(a.median, med, sizeof med),
                harness_format_ns(a.min, lo, sizeof lo), a.fastest, harness_format_ns(a.max, hi, sizeof hi),
                a.slowest, a.skew);
    else
        fputs("\nno rank measured a step\n", f);
    for (int w = 0; w < max_windows(r, n); w++) {
        double ns;
        int who = slowest_in_window(r, n, w, &ns);
        fprintf(f, "window %d: slowest rank %d (median %s)\n", w + 1, who,   /* from 1, as in text */
                harness_format_ns(ns, med, sizeof med));
    }
    for (int i = 0; i < n; i++)
        if (r[i].comm_calls)
            fprintf(f, "rank %d communication: %zu calls, %s, %s in collectives\n", r[i].rank, r[i].comm_calls,
                    harness_format_bytes(r[i].comm_bytes, lo, sizeof lo), harness_format_ns(r[i].comm_ns, hi, sizeof hi));
    if (pairs)
        harness_pairs_print(f, pairs);
    harness_rank_energy *e = energies(r, n);
    if (e)
        harness_job_energy_print(f, e, n);
    free(e);
    harness_job_summary x = {0};    /* the per-node table from the JSON's record */
    if (job_record(r, n, variant_key, stragglers, gather, &x) == 0)
        harness_node_rollup_print(f, &x.nodes);
    harness_job_summary_free(&x);
    if (stragglers) {
        fputs("synchronized steps (sync_steps): the slowest rank of each step, how often:", f);
        for (int i = 0; i < n; i++)
            fprintf(f, " rank %d %zu%s", r[i].rank, stragglers[i], i + 1 < n ? "," : "\n");
    }
    print_gather(f, gather);
    if (fclose(f) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

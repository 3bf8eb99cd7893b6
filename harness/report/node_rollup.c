/* The per-node rollup and its outlier rule; see node_rollup.h. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE                /* strdup */
#endif
#include "report/node_rollup.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/format.h"
#include "util/stats.h"

/* Scales a MAD to the standard deviation of normal noise. */
#define MAD_TO_SIGMA 1.4826

static int measured(double v) { return !isnan(v) && v > 0; }

int harness_node_outlier_rule(const double *medians, size_t n, harness_job_nodes *x)
{
    x->k = HARNESS_NODE_OUTLIER_K;
    x->min_excess = HARNESS_NODE_OUTLIER_MIN_EXCESS;
    x->min_nodes = HARNESS_NODE_OUTLIER_MIN_NODES;
    x->nodes_measured = 0;
    x->judged = 0;
    x->center_ns = x->mad_ns = x->threshold_ns = NAN;
    double *m = malloc(sizeof *m * (n ? n : 1));
    if (!m)
        return -1;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (measured(medians[i]))
            m[k++] = medians[i];
    x->nodes_measured = (int)k;
    if (k >= (size_t)x->min_nodes) {
        double center = harness_median(m, k);
        for (size_t i = 0; i < k; i++)
            m[i] = fabs(m[i] - center);
        double mad = harness_median(m, k);
        double by_spread = center + x->k * MAD_TO_SIGMA * mad, by_effect = (1 + x->min_excess) * center;
        x->judged = 1;
        x->center_ns = center;
        x->mad_ns = mad;
        /* Above both bounds; "m >= by_effect" and "m > by_spread" read as
         * one strict threshold (a tie at exactly 5% is noise in any case). */
        x->threshold_ns = by_spread > by_effect ? by_spread : by_effect;
    }
    free(m);
    return 0;
}

/* The node of host h among x->list, appended when new; NULL out of memory. */
static harness_job_node_record *node_of(harness_job_nodes *x, const char *h, size_t cap)
{
    for (size_t i = 0; i < x->n; i++)
        if (strcmp(x->list[i].host, h) == 0)
            return &x->list[i];
    harness_job_node_record *o = &x->list[x->n];
    *o = (harness_job_node_record){.slowest_rank = -1, .median_ns = NAN, .slowest_median_ns = NAN,
                                   .excess = NAN};
    if (!(o->host = strdup(h)) || !(o->ranks = calloc(cap, sizeof *o->ranks))) {
        free(o->host);
        return NULL;
    }
    x->n++;
    return o;
}

/* Its ranks' medians: the node's median and slowest rank. */
static int node_figures(harness_job_node_record *o, const harness_job_rank_record *r, size_t n)
{
    double *m = malloc(sizeof *m * (o->n_ranks ? o->n_ranks : 1));
    if (!m)
        return -1;
    size_t k = 0;
    for (size_t j = 0; j < o->n_ranks; j++)
        for (size_t i = 0; i < n; i++)
            if (r[i].rank == o->ranks[j] && measured(r[i].median_ns)) {
                m[k++] = r[i].median_ns;
                if (o->slowest_rank < 0 || r[i].median_ns > o->slowest_median_ns)
                    o->slowest_rank = r[i].rank, o->slowest_median_ns = r[i].median_ns;
            }
    o->ranks_measured = (int)k;
    if (k > 0)
        o->median_ns = harness_median(m, k);
    free(m);
    return 0;
}

int harness_node_rollup(const harness_job_rank_record *r, size_t n, harness_job_nodes *x)
{
    memset(x, 0, sizeof *x);
    size_t cap = n > 0 ? n : 1;
    if (!(x->list = calloc(cap, sizeof *x->list)))
        return -1;
    /* In rank order, so the nodes come in order of their lowest rank and
     * each node's ranks ascending. */
    size_t *order = malloc(sizeof *order * cap);
    if (!order)
        return -1;
    for (size_t i = 0; i < n; i++)
        order[i] = i;
    for (size_t i = 1; i < n; i++)  /* insertion sort by rank: n is small and mostly sorted */
        for (size_t j = i; j > 0 && r[order[j]].rank < r[order[j - 1]].rank; j--) {
            size_t t = order[j];
            order[j] = order[j - 1], order[j - 1] = t;
        }
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        const harness_job_rank_record *f = &r[order[i]];
        harness_job_node_record *o = node_of(x, f->host && f->host[0] ? f->host : "?", cap);
        if (!o)
            rc = -1;
        else
            o->ranks[o->n_ranks++] = f->rank;
    }
    free(order);
    double *medians = rc == 0 ? malloc(sizeof *medians * (x->n ? x->n : 1)) : NULL;
    if (!medians)
        return -1;
    for (size_t i = 0; i < x->n && rc == 0; i++) {
        rc = node_figures(&x->list[i], r, n);
        medians[i] = x->list[i].median_ns;
    }
    if (rc == 0)
        rc = harness_node_outlier_rule(medians, x->n, x);
    for (size_t i = 0; i < x->n && rc == 0 && x->judged == 1; i++) {
        harness_job_node_record *o = &x->list[i];
        if (measured(o->median_ns)) {
            o->excess = o->median_ns / x->center_ns - 1;
            o->outlier = o->median_ns > x->threshold_ns;
        }
    }
    free(medians);
    return rc;
}

/* "0,2,4", or "0..14 (8 ranks)" when the list is longer than a column. */
static void rank_list(const harness_job_node_record *o, char *buf, size_t cap)
{
    size_t len = 0;
    buf[0] = 0;
    for (size_t j = 0; j < o->n_ranks && len < cap; j++)
        len += (size_t)snprintf(buf + len, cap - len, "%s%d", j ? "," : "", o->ranks[j]);
    if (len > 12)
        snprintf(buf, cap, "%d..%d (%zu)", o->ranks[0], o->ranks[o->n_ranks - 1], o->n_ranks);
}

void harness_node_rollup_print(FILE *f, const harness_job_nodes *x)
{
    if (x->n < 2)
        return;
    char med[32], slow[32], thr[32];
    fprintf(f, "\nper node (the ranks of each host):\n%-20s %-16s %12s %8s %22s\n", "node", "ranks", "median",
            "excess", "slowest rank (median)");
    for (size_t i = 0; i < x->n; i++) {
        const harness_job_node_record *o = &x->list[i];
        char ranks[24], excess[16], slowest[40];
        rank_list(o, ranks, sizeof ranks);
        if (isnan(o->excess))
            snprintf(excess, sizeof excess, "-");
        else
            snprintf(excess, sizeof excess, "%+.1f%%", 100 * o->excess);
        if (o->slowest_rank >= 0)
            snprintf(slowest, sizeof slowest, "%d (%s)", o->slowest_rank,
                     harness_format_ns(o->slowest_median_ns, slow, sizeof slow));
        else
            snprintf(slowest, sizeof slowest, "-");
        fprintf(f, "%-20.20s %-16s %12s %8s %22s%s\n", o->host, ranks,
                measured(o->median_ns) ? harness_format_ns(o->median_ns, med, sizeof med) : "-", excess, slowest,
                o->outlier ? "  OUTLIER" : "");
    }
    if (x->judged != 1) {
        fprintf(f, "outlier nodes: not judged, %d node%s measured (the rule needs %d)\n", x->nodes_measured,
                x->nodes_measured == 1 ? "" : "s", x->min_nodes);
        return;
    }
    int flagged = 0;
    for (size_t i = 0; i < x->n; i++)
        flagged += x->list[i].outlier;
    fprintf(f, "outlier nodes: %d of %d (median above %s: the median of the node medians %s + %g x 1.4826 x MAD "
            "%s, and at least %g%% above it)\n", flagged, x->nodes_measured,
            harness_format_ns(x->threshold_ns, thr, sizeof thr), harness_format_ns(x->center_ns, med, sizeof med),
            x->k, harness_format_ns(x->mad_ns, slow, sizeof slow), 100 * x->min_excess);
}

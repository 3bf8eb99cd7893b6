#include "pipeline/ranks.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pipeline/artifacts.h"
#include "plugin/plugin_digest.h"
#include "report/job_summary.h"
#include "report/notes_text.h"
#include "report/pairs.h"
#include "report/trace_merge.h"
#include "run/comm_log.h"
#include "util/fsutil.h"

/* What must be the same on every rank: the resolved config's hash, the
 * variant, the plugin's file name (the path may differ per node) and its
 * content hash (the same name may hold other bytes). */
typedef struct rank_identity {
    char hash8[9];
    char variant[119];
    char plugin[128];
    char plugin_sha[17];
} rank_identity;

static void identity_of(const char *hash8, const char *variant_key, const char *plugin_path, rank_identity *id)
{
    memset(id, 0, sizeof *id);
    snprintf(id->hash8, sizeof id->hash8, "%s", hash8);
    snprintf(id->variant, sizeof id->variant, "%s", variant_key);
    const char *base = strrchr(plugin_path, '/');
    snprintf(id->plugin, sizeof id->plugin, "%s", base ? base + 1 : plugin_path);
    harness_plugin_digest(plugin_path, id->plugin_sha);
}

/* At rank 0: the ranks that differ from rank 0, in `verdict` ("" when none). */
static void compare_identities(const rank_identity *all, int n, char *verdict, size_t cap)
{
    size_t len = 0;
    verdict[0] = '\0';
    for (int r = 1; r < n; r++) {
        if (memcmp(&all[r], &all[0], sizeof all[0]) == 0)
            continue;
        int w = snprintf(verdict + len, cap - len, "%srank %d has config %s, %s from %s (sha256 %s)", len ? "; " : "",
                         r, all[r].hash8, all[r].variant, all[r].plugin, all[r].plugin_sha);
        if (w < 0 || (size_t)w >= cap - len)
            break;
        len += (size_t)w;
    }
    if (verdict[0]) {
        char tail[512];
        snprintf(tail, sizeof tail, " (rank 0 has config %s, %s from %s (sha256 %s)): every rank must run the "
                 "same config and plugin", all[0].hash8, all[0].variant, all[0].plugin, all[0].plugin_sha);
        strncat(verdict, tail, cap - strlen(verdict) - 1);
    }
}

int harness_ranks_agree(harness_dist *d, const char *hash8, const char *variant_key, const char *plugin_path,
                        harness_error *err)
{
    if (d->world_size == 1)
        return 0;
    rank_identity mine, *all = NULL;
    identity_of(hash8, variant_key, plugin_path, &mine);
    if (d->rank == 0 && !(all = calloc((size_t)d->world_size, sizeof *all)))
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "out of memory");
    char verdict[2048] = "";
    int rc = d->ops->gather(d, &mine, sizeof mine, all, err);
    if (rc == 0 && d->rank == 0)
        compare_identities(all, d->world_size, verdict, sizeof verdict);
    free(all);
    if (rc != 0 || d->ops->broadcast_string(d, 0, verdict, sizeof verdict, err) != 0)
        return err->code;
    if (verdict[0])
        return harness_error_set(err, HARNESS_EXIT_USAGE, "ranks disagree: %s", verdict);
    return 0;
}

int harness_ranks_make_folder(harness_dist *d, const harness_plan_outputs *out, harness_experiment *exp,
                              harness_error *err)
{
    int failed = 0;
    if (d->rank == 0)
        failed = harness_experiment_create(exp, out->output_dir, time(NULL), out->hash8, err) != 0;
    if (d->world_size == 1)
        return failed ? err->code : 0;
    /* "" tells the other ranks that rank 0 failed, so they stop too. */
    if (failed)
        exp->dir[0] = '\0';
    harness_error berr = {0};
    if (d->ops->broadcast_string(d, 0, exp->dir, sizeof exp->dir, &berr) != 0 && !failed)
        *err = berr;
    else if (!failed && !exp->dir[0])
        harness_error_set(err, HARNESS_EXIT_RUNTIME, "rank %d: rank 0 could not create the experiment folder",
                          d->rank);
    return err->code;
}

static int write_file(const harness_experiment *exp, const char *name, char *text, harness_error *err)
{
    char path[4400];
    if (!text)
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "out of memory writing %s", name);
    int rc = harness_write_atomic(harness_experiment_path(exp, name, path, sizeof path), text, strlen(text), err);
    free(text);
    return rc;
}

/* sync_steps: every rank's samples at rank 0, when all measured the same
 * number of steps (they did, unless one was interrupted); the straggler
 * counts into counts (rank 0), or counts left NULL. */
static int gather_stragglers(harness_dist *d, const harness_summary *s, const harness_rank_figures *all,
                             size_t **counts, harness_error *err)
{
    char same[2] = "1";
    for (int r = 1; d->rank == 0 && r < d->world_size; r++)
        if (all[r].n != all[0].n)
            same[0] = '0';
    if (d->ops->broadcast_string(d, 0, same, sizeof same, err) != 0)
        return err->code;
    size_t n = s->run ? s->run->n_samples : 0;
    if (same[0] != '1' || n == 0)
        return 0;
    double *samples = d->rank == 0 ? malloc(sizeof *samples * n * (size_t)d->world_size) : NULL;
    if (d->rank == 0 && (!samples || !(*counts = malloc(sizeof **counts * (size_t)d->world_size)))) {
        free(samples);
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "out of memory gathering the ranks' samples");
    }
    int rc = d->ops->gather(d, s->run->samples_ns, sizeof *samples * n, samples, err);
    if (rc == 0 && d->rank == 0)
        harness_job_stragglers(samples, d->world_size, n, *counts);
    free(samples);
    return rc ? err->code : 0;
}

/* Every rank's row of send_recv medians at rank 0, made into the pair
 * matrix (report/pairs.h); out->n stays 0 when no rank exchanged. */
static int gather_pairs(harness_dist *d, const harness_summary *s, harness_job_pairs *out, harness_error *err)
{
    size_t n = (size_t)d->world_size;
    double *mine = malloc(sizeof *mine * 2 * n);
    double *all = d->rank == 0 ? malloc(sizeof *all * 2 * n * n) : NULL;
    int rc = !mine || (d->rank == 0 && !all) || (s->clock && harness_comm_peer_medians(
                 s->comm, s->clock, d->world_size, mine, mine + n) != 0);
    if (rc) {
        free(mine);
        free(all);
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "out of memory");
    }
    if (!s->clock)
        for (size_t i = 0; i < 2 * n; i++)
            mine[i] = NAN;
    rc = d->ops->gather(d, mine, sizeof *mine * 2 * n, all, err);
    if (rc == 0 && d->rank == 0) {
        /* all: per rank its n times then its n sizes; the matrix wants the
         * times of every rank, then the sizes. */
        double *ns = malloc(sizeof *ns * 2 * n * n);
        for (size_t r = 0; ns && r < n; r++) {
            memcpy(ns + r * n, all + r * 2 * n, sizeof *ns * n);
            memcpy(ns + n * n + r * n, all + r * 2 * n + n, sizeof *ns * n);
        }
        if (!ns || harness_pairs_compute(ns, ns + n * n, d->world_size, out) != 0)
            rc = harness_error_set(err, HARNESS_EXIT_RUNTIME, "out of memory");
        free(ns);
    }
    free(mine);
    free(all);
    return rc;
}

/* Rank 0: the traced ranks' traces in one file (report/trace_merge.h). */
static int merge_traces(const harness_dist *d, const harness_experiment *exp, const harness_rank_figures *all,
                        harness_error *err)
{
    harness_trace_part *parts = calloc((size_t)d->world_size, sizeof *parts);
    if (!parts)
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "out of memory");
    int any = 0;
    for (int r = 0; r < d->world_size; r++) {
        parts[r] = (harness_trace_part){r, all[r].traced, all[r].trace_base_ns, all[r].trace_base_unix_ns,
                                        all[r].clock_offset_ns};
        any |= all[r].traced;
    }
    int rc = any ? harness_trace_merge(exp->dir, d->world_size, parts, err) : 0;
    free(parts);
    return rc;
}

int harness_ranks_write_job_summary(harness_dist *d, const harness_summary *s, const harness_experiment *exp,
                                    harness_error *err)
{
    harness_rank_figures mine, *all = NULL;
    size_t *stragglers = NULL;
    harness_rank_figures_of(s, &mine);
    mine.clock_offset_ns = d->clock_offset_ns;
    mine.clock_rtt_ns = d->rank == 0 ? -1 : d->clock_rtt_ns;
    mine.traced = s->profiler && s->profiler->trace_enabled;
    mine.trace_base_ns = s->profiler ? s->profiler->base_monotonic_ns : 0;
    mine.trace_base_unix_ns = s->profiler ? s->profiler->base_unix_ns : 0;
    if (d->rank == 0 && !(all = calloc((size_t)d->world_size, sizeof *all)))
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "out of memory");
    int rc = d->ops->gather(d, &mine, sizeof mine, all, err);
    /* One rank: the same summary (scripts read summary.json whatever the
     * job's size), but its trace is already the job's and no step straggles. */
    if (rc == 0 && s->cfg->sync_steps && d->world_size > 1)
        rc = gather_stragglers(d, s, all, &stragglers, err);
    harness_job_pairs pairs = {0};
    if (rc == 0 && d->world_size > 1)
        rc = gather_pairs(d, s, &pairs, err);
    if (rc == 0 && d->rank == 0 && d->world_size > 1)
        rc = merge_traces(d, exp, all, err);
    const harness_job_pairs *p = pairs.n > 0 ? &pairs : NULL;
    if (rc == 0 && d->rank == 0)
        rc = write_file(exp, HARNESS_FILE_JOB_SUMMARY,
                        harness_job_summary_json(all, d->world_size, s->variant_key, stragglers, p), err) ||
             write_file(exp, HARNESS_FILE_JOB_SUMMARY_TXT,
                        harness_notes_after_first_line(
                            harness_job_summary_text(all, d->world_size, s->variant_key, stragglers, p), s->notes),
                        err) ||
             (p && write_file(exp, HARNESS_FILE_PAIRS_HTML, harness_pairs_html(p, s->variant_key), err));
    harness_job_pairs_free(&pairs);
    free(all);
    free(stragglers);
    return rc ? err->code : 0;
}

/* Energy in the job summary; see job_energy.h. */
#include "report/job_energy.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <string.h>

#include "report/energy_report.h"
#include "util/format.h"
#include "util/json_number.h"

void harness_rank_energy_of(const harness_summary *s, harness_rank_energy *out)
{
    out->rank = s->rank;
    harness_energy_figures e;
    harness_summary_energy(s, 0, s->run ? s->run->n_windows : 0, &e);
    if (s->backend && !harness_backend_has_energy(s->backend))
        e.status = HARNESS_ENERGY_NOT_AVAILABLE;
    snprintf(out->status, sizeof out->status, "%s", harness_energy_status_token(e.status));
    const char *dev = s->device ? s->device : "?";
    if (s->backend && strcmp(dev, "cuda") == 0)
        snprintf(out->counter, sizeof out->counter, "%.63s cuda %d", s->env.host,
                 s->backend->info.index);
    else
        snprintf(out->counter, sizeof out->counter, "%.63s %.16s", s->env.host, dev);
    out->joules_per_step = e.joules_per_step;
    out->watts = e.watts;
    out->flop_per_joule = e.flop_per_joule;
    out->bytes_per_joule = e.bytes_per_joule;
}

static int measured(const harness_rank_energy *r)
{
    return strcmp(r->status, "measured") == 0 && isfinite(r->watts);
}

void harness_job_energy_of(const harness_rank_energy *r, int n, harness_job_energy *out)
{
    memset(out, 0, sizeof *out);
    for (int i = 0; i < n; i++) {
        if (!measured(&r[i]))
            continue;
        out->ranks_measured++;
        int first = 1;             /* the first measured rank of its counter counts it */
        for (int j = 0; j < i && first; j++)
            first = !(measured(&r[j]) && strcmp(r[j].counter, r[i].counter) == 0);
        if (!first)
            continue;
        out->counters++;
        out->watts += r[i].watts;
        out->joules_per_step += r[i].joules_per_step;
    }
    if (out->ranks_measured == 0 || out->ranks_measured < n)
        out->watts = out->joules_per_step = NAN;   /* a part of the job is not the job */
}

void harness_job_energy_print(FILE *f, const harness_rank_energy *r, int n)
{
    harness_job_energy j;
    harness_job_energy_of(r, n, &j);
    if (j.ranks_measured == 0) {
        fprintf(f, "energy: not measured on any rank (rank %d: %s)\n", n > 0 ? r[0].rank : 0,
                n > 0 && r[0].status[0] ? r[0].status : "not_available");
        return;
    }
    char a[32], b[32];
    for (int i = 0; i < n; i++)
        if (measured(&r[i]))
            fprintf(f, "rank %d energy: %s/step, %s (%s)\n", r[i].rank,
                    harness_format_si(r[i].joules_per_step, "J", a, sizeof a),
                    harness_format_si(r[i].watts, "W", b, sizeof b), r[i].counter);
        else
            fprintf(f, "rank %d energy: %s\n", r[i].rank, r[i].status);
    if (isfinite(j.watts))
        fprintf(f, "job energy: %s/step, %s over %d counter%s\n", harness_format_si(j.joules_per_step, "J", a,
                sizeof a), harness_format_si(j.watts, "W", b, sizeof b), j.counters, j.counters == 1 ? "" : "s");
}

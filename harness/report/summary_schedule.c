/* summary_schedule.c - the schedule as it ran (report/summary.h), which
 * summary_json.c, summary_txt.c and summary_warnings.c read: kept out of
 * summary.c, which calls into those, so that no two files of report/ call
 * each other (scripts/arch_figures, "use circles"). */
#include "report/summary.h"

/* Whether a time budget sized this run's windows. */
static int budget_sized(const harness_summary *s)
{
    return s->run && s->run->budget.budget_s > 0 && s->run->budget.fits;
}

int64_t harness_summary_measurement_steps(const harness_summary *s)
{
    return budget_sized(s) ? s->run->budget.steps : s->cfg->measurement_steps;
}

int64_t harness_summary_repeat(const harness_summary *s)
{
    return budget_sized(s) ? (int64_t)s->run->n_windows : s->cfg->repeat;
}

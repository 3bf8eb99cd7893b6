/* The timed stream's verdict; see timed_stream.h. The rule: work off the
 * timed stream alone does not fail a run (libraries fork and join streams
 * within a step, and the records cannot tell a joined fork from a cheat);
 * a full synchronize that disagrees with the events does, and then the
 * failure names that work as the likely culprit. */
#include "pipeline/timed_stream.h"

#include <stdio.h>

#include "util/format.h"

static void find_side_work(harness_summary *s)
{
    const harness_gpu_activity_list *l = s->gpu_activity;
    s->side_work_known = l && l->timed_stream_known;
    s->n_side_work = 0;
    s->side_work_left_out = 0;
    if (s->side_work_known)
        s->n_side_work = harness_side_work_find(l, l->timed_stream, s->side_work,
                                                sizeof s->side_work / sizeof s->side_work[0], &s->side_work_left_out);
}

int harness_timed_stream_failure(const harness_summary *s, char *out, size_t cap)
{
    const harness_full_sync_check *c = &s->full_sync;
    if (!c->ran || c->agrees)
        return 0;
    char sync[32], events[32], bound[32], launch[32], where[1200] = "";
    if (s->n_side_work) {
        char list[1100];
        harness_side_work_text(s->side_work, s->n_side_work, s->side_work_left_out, list, sizeof list);
        snprintf(where, sizeof where, "; off the timed stream in the trace window: %s", list);
    } else if (s->side_work_known) {
        snprintf(where, sizeof where, "; the trace window recorded no kernel, copy or set off the timed stream: "
                 "look for host functions the step leaves running, or work on another device");
    }
    snprintf(out, cap, "work outside the timed stream: one step took %s by a full device synchronize but the "
             "events measured %s (bound %s: 2 x (events + the launch's %s) + 50 us); kernels on another stream or "
             "after the end event are not timed%s",
             harness_format_ns(c->sync_ns, sync, sizeof sync), harness_format_ns(c->events_median_ns, events,
                                                                                   sizeof events),
             harness_format_ns(c->bound_ns, bound, sizeof bound),
             harness_format_ns(c->launch_ns, launch, sizeof launch), where);
    return 1;
}

int harness_timed_stream_verdict(harness_summary *s, harness_error *err)
{
    find_side_work(s);
    char msg[2048];
    if (!harness_timed_stream_failure(s, msg, sizeof msg))
        return 0;
    harness_error_set(err, HARNESS_EXIT_VERDICT, "%s: %s", s->variant_key, msg);
    harness_summary_mark(s, "failed", err->msg);
    return err->code;
}

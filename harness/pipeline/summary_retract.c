/* See summary_retract.h. Every write is atomic (util/fsutil.c): a temporary
 * file, then rename. On a folder out of inodes or space that temporary file
 * cannot be made, so the old summary, which says ok, would stay. */
#include "pipeline/summary_retract.h"

#include <stdio.h>
#include <unistd.h>

#include "pipeline/artifacts.h"

static void remove_file(const harness_experiment *exp, const char *name)
{
    char path[4400];
    unlink(harness_experiment_path(exp, name, path, sizeof path));
}

static void remove_rank_summaries(const harness_experiment *exp, const harness_summary *s)
{
    char name[256];
    remove_file(exp, harness_rank_file(name, sizeof name, HARNESS_PREFIX_SUMMARY, s->world_size, s->rank, "json"));
    remove_file(exp, harness_rank_file(name, sizeof name, HARNESS_PREFIX_PROFILER_SUMMARY, s->world_size, s->rank, "txt"));
}

int harness_retract_ok_summaries(const harness_experiment *exp, harness_summary *s, harness_error *err)
{
    if (s->rank == 0) {            /* the cross-rank view, maybe half written */
        remove_file(exp, HARNESS_FILE_JOB_SUMMARY);
        remove_file(exp, HARNESS_FILE_JOB_SUMMARY_TXT);
    }
    harness_error first = {0};
    if (harness_write_summary_files(exp, s, &first) == 0)
        return 0;
    remove_rank_summaries(exp, s);
    if (harness_write_summary_files(exp, s, err) == 0)
        return 0;
    remove_rank_summaries(exp, s);  /* none half written, none that says ok */
    return err->code;
}

/* suite_index.c - a live suite as the folder stage's index record
 * (folder/suite_index.h), which writes index.json (suite_index.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE                /* strndup */
#endif
#include "cli/suite_index.h"

#include <stdlib.h>
#include <string.h>

#include "folder/suite_index.h"

/* The child's printed folders (one a line) into r's list, those inside
 * the suite's folder dir relative to it. -1 out of memory. */
static int run_folders(const char *printed, const char *dir, harness_suite_index_run *r)
{
    size_t skip = strlen(dir) + 1, n = 0;
    for (const char *c = printed; c && *c; c++)
        n += *c == '\n';
    if (!(r->folders = calloc(n + 1, sizeof *r->folders)))
        return -1;
    for (const char *line = printed, *end; line && *line; line = *end ? end + 1 : end) {
        end = line + strcspn(line, "\n");
        size_t len = (size_t)(end - line);
        const char *rel = len > skip && strncmp(line, dir, skip - 1) == 0 && line[skip - 1] == '/' ? line + skip
                                                                                                   : line;
        if (!(r->folders[r->n_folders++] = strndup(rel, len - (size_t)(rel - line))))
            return -1;
    }
    return 0;
}

static int to_record(const harness_suite *s, int runs, const char *filter, const char *dir, const char *status,
                     harness_suite_index *x)
{
    x->runs = runs;
    if (!(x->status = strdup(status)) || (filter && !(x->filter = strdup(filter))))
        return -1;
    if (!(x->configs = calloc(s->sel.n_configs + 1, sizeof *x->configs)) ||
        !(x->experiments = calloc(s->n_runs + 1, sizeof *x->experiments)))
        return -1;
    for (size_t i = 0; i < s->sel.n_configs; i++, x->n_configs++) {
        x->configs[i].points_kept = (double)s->sel.configs[i].kept_points;
        if (!(x->configs[i].path = strdup(s->sel.configs[i].path)))
            return -1;
    }
    for (size_t i = 0; i < s->n_runs; i++) {
        const harness_suite_run *r = &s->runs[i];
        harness_suite_index_run *o = &x->experiments[x->n_experiments++];
        o->run = r->run;
        o->exit_code = r->exit_code;
        if (!(o->config = strdup(s->sel.configs[r->config].path)) || run_folders(r->folders, dir, o) != 0)
            return -1;
    }
    return 0;
}

char *harness_suite_index_json(const harness_suite *s, int runs, const char *filter, const char *dir,
                               const char *status)
{
    harness_suite_index x = {0};
    char *text = to_record(s, runs, filter, dir, status, &x) == 0 ? harness_suite_index_write(&x) : NULL;
    harness_suite_index_free(&x);
    return text;
}

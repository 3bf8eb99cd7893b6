/* The per-node section of `harness compare`; see node_compare.h. */
#include "compare/node_compare.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "compare/experiment_folders.h"
#include "folder/folder_format.h"
#include "util/format.h"
#include "util/fsutil.h"

/* The job summary of the one experiment folder root names: 1 loaded, 0 none
 * (not one folder, no summary.json: a job of one rank, or a folder of
 * several jobs), else the error's code. */
static int load_job(const char *root, harness_job_summary *x, harness_error *err)
{
    harness_experiment_folders found;
    if (harness_experiment_folders_find(root, &found, err) != 0)
        return err->code;
    char *path = found.n == 1 ? harness_path_join(found.paths[0], HARNESS_FILE_JOB_SUMMARY) : NULL;
    size_t n = found.n;
    harness_experiment_folders_free(&found);
    if (n != 1)
        return 0;
    if (!path)
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "out of memory");
    struct stat st;
    if (stat(path, &st) != 0 && errno == ENOENT) {
        free(path);
        return 0;
    }
    char *text = NULL;
    size_t len = 0;
    int rc = harness_read_file(path, &text, &len, err);
    if (rc == 0)
        rc = harness_job_summary_parse(path, text, len, x, err);
    free(text);
    free(path);
    return rc == 0 ? 1 : rc;
}

static const harness_job_node_record *find_node(const harness_job_nodes *x, const char *host)
{
    for (size_t i = 0; i < x->n; i++)
        if (strcmp(x->list[i].host, host) == 0)
            return &x->list[i];
    return NULL;
}

static const char *cell(const harness_job_node_record *o, char *buf, size_t cap)
{
    if (!o)
        return "absent";
    if (isnan(o->median_ns))
        return "-";
    harness_format_ns(o->median_ns, buf, cap);
    if (o->outlier)
        strncat(buf, " OUTLIER", cap - strlen(buf) - 1);
    return buf;
}

/* One row per host of `a`, then the hosts only `b` has. */
static void rows(FILE *f, const harness_job_nodes *a, const harness_job_nodes *b, int a_is_base)
{
    char x[48], y[48];
    for (size_t i = 0; i < a->n; i++) {
        const harness_job_node_record *p = &a->list[i], *q = find_node(b, p->host);
        if (!a_is_base && q)
            continue;              /* printed with the base's rows */
        const harness_job_node_record *base = a_is_base ? p : q, *cand = a_is_base ? q : p;
        char ratio[16] = "-";
        if (base && cand && base->median_ns > 0 && cand->median_ns > 0)
            snprintf(ratio, sizeof ratio, "%.3f", cand->median_ns / base->median_ns);
        fprintf(f, "%-20.20s %20s %20s %8s\n", p->host, cell(base, x, sizeof x), cell(cand, y, sizeof y), ratio);
    }
}

int harness_node_compare_load(const char *base, const char *cand, harness_node_compare *out, harness_error *err)
{
    memset(out, 0, sizeof *out);
    int rb = load_job(base, &out->base, err), rc = rb == 1 ? load_job(cand, &out->cand, err) : 0;
    if (rb > 1 || rc > 1) {
        harness_node_compare_free(out);
        return rb > 1 ? rb : rc;
    }
    out->have = rb == 1 && rc == 1 && out->base.nodes.n >= 2 && out->cand.nodes.n >= 2;
    return 0;
}

void harness_node_compare_print(FILE *f, const harness_node_compare *x)
{
    if (!x->have)
        return;
    fprintf(f, "\nper node (median of each node's ranks' medians; cand / base):\n%-20s %20s %20s %8s\n", "node",
            "base", "cand", "ratio");
    rows(f, &x->base.nodes, &x->cand.nodes, 1);
    rows(f, &x->cand.nodes, &x->base.nodes, 0);
}

void harness_node_compare_free(harness_node_compare *x)
{
    harness_job_summary_free(&x->base);
    harness_job_summary_free(&x->cand);
    x->have = 0;
}

/* job_nodes.h - the "nodes" member of a job's summary.json (folder/
 * job_summary.h): the ranks grouped by the host each reports, each node's
 * median of its ranks' medians and its slowest rank, and the outlier rule's
 * verdict (report/node_rollup.h computes it; this file only encodes it).
 * An older harness wrote no "nodes": then n is 0 and judged -1. */
#ifndef HARNESS_FOLDER_JOB_NODES_H
#define HARNESS_FOLDER_JOB_NODES_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "util/error.h"

typedef struct harness_job_node_record {
    char *host;
    int *ranks;                    /* the ranks on it, ascending */
    size_t n_ranks;
    int ranks_measured;            /* of those, the ranks with a median */
    double median_ns;              /* median of their medians; NAN: none measured */
    int slowest_rank;              /* -1: none measured */
    double slowest_median_ns;      /* NAN: none measured */
    double excess;                 /* median_ns / center_ns - 1; NAN: not judged */
    int outlier;                   /* 1: flagged by the rule */
} harness_job_node_record;

typedef struct harness_job_nodes {
    harness_job_node_record *list; /* in order of each node's lowest rank */
    size_t n;
    /* The rule: a node is an outlier when its median exceeds
     * center + k x 1.4826 x MAD and (1 + min_excess) x center, where center
     * and MAD are the median and the median absolute deviation of the node
     * medians; judged only with at least min_nodes nodes measured. */
    double k, min_excess;
    int min_nodes;
    int nodes_measured;
    int judged;                    /* 1 judged, 0 too few nodes, -1 unknown (no "nodes") */
    double center_ns, mad_ns, threshold_ns;   /* NAN when not judged */
} harness_job_nodes;

/* Adds "nodes" to a job summary's root object; nothing when n is 0. */
void harness_job_nodes_write(cJSON *root, const harness_job_nodes *x);

/* Reads root's "nodes" (absent or null: n 0, judged -1) by
 * folder/json_fields.h's rules: 0, 2 naming the file and key, 3 out of
 * memory. */
int harness_job_nodes_read(const cJSON *root, const char *path, harness_job_nodes *out, harness_error *err);

void harness_job_nodes_free(harness_job_nodes *x);

#endif

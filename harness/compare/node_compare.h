/* node_compare.h - the per-node section of `harness compare` (text format):
 * when BASE and CAND are each one experiment folder of a job on two or more
 * nodes (summary.json's "nodes", folder/job_nodes.h), each node's median in
 * both and their ratio, and the nodes the rollup flagged on either side.
 * Nodes are matched by host name; a node on one side only is listed as such. */
#ifndef HARNESS_NODE_COMPARE_H
#define HARNESS_NODE_COMPARE_H

#include <stdio.h>

#include "folder/job_summary.h"
#include "util/error.h"

/* The two jobs' summaries; have is 0 when a side is not one job of two or
 * more nodes (then there is nothing to print). */
typedef struct harness_node_compare {
    int have;
    harness_job_summary base, cand;
} harness_node_compare;

/* Loads both sides: 0 (have tells whether there is a section); 2 when a
 * summary.json is unreadable or malformed (named); 3 out of memory. */
int harness_node_compare_load(const char *base, const char *cand, harness_node_compare *out, harness_error *err);

/* The section, or nothing when !x->have. */
void harness_node_compare_print(FILE *f, const harness_node_compare *x);

void harness_node_compare_free(harness_node_compare *x);

#endif

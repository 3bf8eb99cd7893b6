/* node_compare.h - the per-node section of `harness compare` (text format):
 * when BASE and CAND are each one experiment folder of a job on two or more
 * nodes (summary.json's "nodes", folder/job_nodes.h), each node's median in
 * both and their ratio, and the nodes the rollup flagged on either side.
 * Nodes are matched by host name; a node on one side only is listed as such. */
#ifndef HARNESS_NODE_COMPARE_H
#define HARNESS_NODE_COMPARE_H

#include <stdio.h>

#include "util/error.h"

/* Prints the section to f, or nothing when a side is not one job of two or
 * more nodes. 0; 2 when a summary.json is unreadable or malformed (named);
 * 3 out of memory. */
int harness_node_compare_print(FILE *f, const char *base, const char *cand, harness_error *err);

#endif

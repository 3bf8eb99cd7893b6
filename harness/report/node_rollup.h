/* node_rollup.h - a multi-rank job's ranks grouped by node (the host each
 * rank reports): each node's median of its ranks' medians, its slowest rank,
 * and the nodes that are outliers by a robust rule, for the job summary
 * (summary.json's "nodes", summary.txt's per-node table).
 *
 * The rule. With m_i the node medians, center = median(m) and MAD =
 * median(|m_i - center|), node i is an outlier when
 *     m_i > center + k x 1.4826 x MAD   (k = 3: 1.4826 x MAD estimates the
 *                                       standard deviation of normal noise)
 * and m_i >= (1 + min_excess) x center  (min_excess = 10%),
 * judged only when at least min_nodes = 3 nodes measured a step: with two,
 * neither node is "the odd one". The median and the MAD ignore one slow node
 * out of three or more, which a mean and a standard deviation would not.
 * The minimum effect carries the false positives of small jobs: the MAD of
 * 4 node medians is often near 0, so k x MAD alone would flag noise; at 10%
 * a job of 4 nodes whose ranks' medians spread by 3% flags a node about once
 * in 10 000 (5%: twice in 100), and a node 1.3x slower almost always.
 * tests/unit/test_node_rollup.c simulates its error rates. */
#ifndef HARNESS_NODE_ROLLUP_H
#define HARNESS_NODE_ROLLUP_H

#include <stddef.h>
#include <stdio.h>

#include "folder/job_nodes.h"
#include "folder/job_summary.h"

#define HARNESS_NODE_OUTLIER_K 3.0
#define HARNESS_NODE_OUTLIER_MIN_EXCESS 0.10
#define HARNESS_NODE_OUTLIER_MIN_NODES 3

/* The rule over medians[0..n) (a value that is NAN or <= 0 was not
 * measured and is not judged): fills x's rule, nodes_measured, judged,
 * center_ns, mad_ns and threshold_ns (NAN unless judged). A median is an
 * outlier when judged and it is above threshold_ns. 0, or -1 out of memory. */
int harness_node_outlier_rule(const double *medians, size_t n, harness_job_nodes *x);

/* The rollup of the job's ranks r[0..n) (their host and median_ns, NAN or
 * <= 0 when not measured) into *x (zeroed first; free with
 * harness_job_nodes_free): 0, or -1 out of memory. */
int harness_node_rollup(const harness_job_rank_record *r, size_t n, harness_job_nodes *x);

/* The per-node table and the verdict for summary.txt; nothing for a job on
 * one node. */
void harness_node_rollup_print(FILE *f, const harness_job_nodes *x);

#endif

/* build_tree.h - whether this process is the harness binary of the build
 * tree it was configured in; only then may it load modules from that tree
 * (an installed harness must not pick up a stale build directory). */
#ifndef HARNESS_BUILD_TREE_H
#define HARNESS_BUILD_TREE_H

int harness_running_from_build_tree(void);

#endif

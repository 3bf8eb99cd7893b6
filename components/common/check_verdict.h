/* check_verdict.h - the in-tree components' checkers return structs that start
 * with COMPONENT_CHECK_FIELDS (components/common/check.h), the verdict fields of
 * harness_check; this copies them across for the adapters' check callbacks.
 * For adapters only: kernels stay free of the harness. */
#ifndef COMPONENTS_CHECK_VERDICT_H
#define COMPONENTS_CHECK_VERDICT_H

#include <stdio.h>

#define COPY_CHECK_VERDICT(out, r)                                          \
    do {                                                                    \
        (out)->passed = (r).passed;                                         \
        (out)->checked = (r).checked;                                       \
        (out)->mismatches = (r).mismatches;                                 \
        (out)->max_abs_err = (r).max_abs_err;                               \
        (out)->max_rel_err = (r).max_rel_err;                               \
        (out)->tolerance = (r).tolerance;                                   \
        snprintf((out)->detail, sizeof (out)->detail, "%s", (r).detail);   \
    } while (0)

#endif

/* check.h - what the components' reference checkers share: the 16-bit
 * (bf16, fp16) tolerance policy and how one element's error is measured.
 *
 * 16-bit policy: a kernel that stores bf16 or fp16 but computes in fp32
 * rounds once (half an ulp: 2^-9 relative for bf16, 2^-12 for fp16), where a
 * framework doing the same computation in that type's arithmetic rounds at
 * every op. So the kernel's max error may be at most CHECK_HALF_FACTOR times
 * that emulation's max error (measured on the same data), plus
 * CHECK_HALF_ATOL for data where nothing rounds at all (zeros, ones) and the
 * emulation's error is 0. */
#ifndef COMPONENTS_CHECK_H
#define COMPONENTS_CHECK_H

#include <math.h>
#include <stdint.h>

/* The verdict every checker reports (the fields of the harness's
 * harness_check, without harness types); a checker's result struct starts
 * with these and may add its own. */
#define COMPONENT_CHECK_FIELDS                                                      \
    int passed;                                                                     \
    uint64_t checked;       /* elements compared */                                 \
    uint64_t mismatches;    /* elements over tolerance */                           \
    double max_abs_err;                                                             \
    double max_rel_err;     /* over elements whose reference is not 0 */            \
    double tolerance;       /* the loosest bound any element was held to */         \
    char detail[256];       /* how the tolerance was derived, what was checked, the first mismatch */

#define CHECK_HALF_FACTOR 2.0
#define CHECK_HALF_ATOL 1e-3

/* |y - ref|, where both NaN or equal (infinities included) is no error and a
 * NaN on one side only is an infinite one: it can never pass and never hides
 * in a max. */
static inline double check_abs_err(double y, double ref)
{
    if (y == ref || (isnan(y) && isnan(ref)))
        return 0.0;
    double e = fabs(y - ref);
    return isnan(e) ? INFINITY : e;
}

#endif

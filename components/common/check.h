/* check.h - what the components' reference checkers share: the bf16
 * tolerance policy and how one element's error is measured.
 *
 * bf16 policy: a kernel that stores bf16 but computes in fp32 rounds once
 * (half an ulp, 2^-9 relative), where a framework doing the same
 * computation in bf16 arithmetic rounds at every op. So the kernel's max
 * error may be at most CHECK_BF16_FACTOR times that emulation's max error
 * (measured on the same data), plus CHECK_BF16_ATOL for data where nothing
 * rounds at all (zeros, ones) and the emulation's error is 0. */
#ifndef COMPONENTS_CHECK_H
#define COMPONENTS_CHECK_H

#include <math.h>

#define CHECK_BF16_FACTOR 2.0
#define CHECK_BF16_ATOL 1e-3

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

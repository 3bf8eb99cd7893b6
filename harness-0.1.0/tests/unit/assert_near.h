/* assert_near.h - cmocka has no floating-point comparison with a tolerance.
 * Include after <cmocka.h>. */
#ifndef TESTS_ASSERT_NEAR_H
#define TESTS_ASSERT_NEAR_H

#include <math.h>

#define assert_near(actual, expected, tol)                                                    \
    do {                                                                                      \
        double a_ = (actual), e_ = (expected);                                                \
        if (!(fabs(a_ - e_) <= (tol)))                                                        \
            fail_msg("%s = %.17g, expected %.17g +- %g", #actual, a_, e_, (double)(tol));     \
    } while (0)

#endif

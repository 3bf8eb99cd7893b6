/* sim_order.h - the thread order and copy landing of tests/cudasim's
 * scheduler (cudasim.h: set_order, set_landing) for a C test that runs a
 * plugin over the simulated kernels, as the C++ simulated tests set them. */
#ifndef TESTS_SIM_ORDER_H
#define TESTS_SIM_ORDER_H

#ifdef __cplusplus
extern "C" {
#endif

/* reversed: the highest thread of a block first; at_issue: cp.async and TMA
 * copies land when issued (else at the wait). */
void sim_order_set(int reversed, int at_issue);

#ifdef __cplusplus
}
#endif

#endif

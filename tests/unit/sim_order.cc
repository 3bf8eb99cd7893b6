/* sim_order.cc - sim_order.h over cudasim.h (force-included). */
#include "sim_order.h"

void sim_order_set(int reversed, int at_issue)
{
    cudasim::set_order(reversed ? cudasim::REVERSED : cudasim::FORWARD);
    cudasim::set_landing(at_issue ? cudasim::AT_ISSUE : cudasim::AT_WAIT);
}

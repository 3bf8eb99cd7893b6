/* The flag of waiting.h; its own file so that a world of one (no MPI) has
 * it too, always 0. */
#include "dist/waiting.h"

volatile sig_atomic_t harness_dist_waiting = 0;

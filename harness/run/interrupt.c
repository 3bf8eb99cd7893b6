/* The stop request (run/interrupt.h). */
#include "run/interrupt.h"

volatile sig_atomic_t harness_interrupt_requested = 0;
volatile sig_atomic_t harness_interrupt_signalled_here = 0;
volatile uint64_t harness_interrupt_signalled_ns = 0;

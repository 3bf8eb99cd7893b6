/* The phases' names (run/phase.h). */
#include "run/phase.h"

#include <stddef.h>

/* Every phase's two spellings (phase.h says where each is used). */
static const struct {
    const char *name, *file_name;
} phase_names[] = {
    [HARNESS_PHASE_WARMUP] = {"warmup", "warmup"},
    [HARNESS_PHASE_WAIT] = {"wait", "wait"},
    [HARNESS_PHASE_MEASURE] = {"measurement", "measure"},
    [HARNESS_PHASE_TRACE] = {"trace", "trace"},
    [HARNESS_PHASE_AFTER_TIMING] = {"after-timing check", "after_timing"},
};

const char *harness_phase_name(harness_phase phase)
{
    return phase_names[phase].name;
}

const char *harness_phase_file_name(int phase)
{
    if (phase < 0 || (size_t)phase >= sizeof phase_names / sizeof phase_names[0])
        return "other";
    return phase_names[phase].file_name;
}

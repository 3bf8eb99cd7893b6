/* input_sets.h - schedule.rotate_inputs: N value sets of every declared
 * input (ABI 2.4 input service), one per step in turn. Before each step,
 * outside its timed region, the host copies the next set into the input
 * buffers, so no step reads the values the step before it read: a
 * component cannot replay an output it computed once, nor keep a step's
 * result to serve the next. Set 0 is what create filled; the others are
 * fresh draws of the config's generator. The sets cost N times the
 * declared inputs' bytes, in the same memory as the inputs, tagged
 * "rotate_inputs" in the memory report. The copy leaves the inputs in cache
 * as a warm run's are; with schedule.flush_l2 the flush comes after it. */
#ifndef HARNESS_RUN_INPUT_SETS_H
#define HARNESS_RUN_INPUT_SETS_H

#include <stddef.h>
#include <stdint.h>

#include "run/instance.h"

typedef struct harness_input_sets {
    int64_t n_sets;                /* 0: off */
    harness_instance *inst;
    void *sets[HARNESS_MAX_DECLARED];  /* input i's sets, n_sets x its bytes */
    size_t bytes;                  /* all the sets together */
    uint64_t next;                 /* the set the next step takes */
} harness_input_sets;

/* A fresh draw of the config's generator for declared input d, written at
 * `at` (d's own buffer, or a set of its size in the same memory): fill or
 * device_fill. 0, or nonzero with the failure recorded in in's context. */
int harness_declared_redraw(harness_instance *in, const harness_declared_buffer *d, void *at);

/* Makes n sets (n >= 2) of every input `in` declared. 0, or -1 with err set
 * (out of memory, a fill that failed). */
int harness_input_sets_make(harness_input_sets *s, harness_instance *in, int64_t n, harness_error *err);
/* Copies the next set into the inputs (on a device: enqueued on the
 * component's stream). 0, or -1 with err set. Does nothing when off. */
int harness_input_sets_next(harness_input_sets *s, harness_error *err);
void harness_input_sets_free(harness_input_sets *s);

#endif

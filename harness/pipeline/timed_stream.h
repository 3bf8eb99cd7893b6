/* timed_stream.h - the GPU's anti-cheat verdict on the timed stream
 * (docs/timing-integrity.md, "Anti-cheat on the GPU"): after the schedule,
 * the check of the events against a full synchronize (run/full_sync.h)
 * and the trace window's work off the timed stream
 * (backend/side_streams.h) decide together whether the events saw the
 * step's work. */
#ifndef HARNESS_PIPELINE_TIMED_STREAM_H
#define HARNESS_PIPELINE_TIMED_STREAM_H

#include <stddef.h>

#include "report/summary.h"
#include "util/error.h"

/* The failure's text when the full synchronize disagrees with the events
 * (naming the work off the timed stream when the timeline saw some), into
 * out; returns 1. 0 when they agree, or the check did not run. Pure. */
int harness_timed_stream_failure(const harness_summary *s, char *out, size_t cap);

/* Fills s's side-stream work from its timeline, then judges: 0, or
 * HARNESS_EXIT_VERDICT with err set and s marked failed. */
int harness_timed_stream_verdict(harness_summary *s, harness_error *err);

#endif

/* trace_writer.h - profiler_trace_ranks_N_rank_r.json: the Chrome trace
 * format (Perfetto, chrome://tracing). One process per rank; its "steps"
 * thread holds every recorded measured step as an X span (window and step
 * index in args) with the component's regions nested inside, and memory is a
 * counter track. ts/dur are microseconds from the base time recorded in
 * otherData, with nanosecond fractions. */
#ifndef HARNESS_TRACE_WRITER_H
#define HARNESS_TRACE_WRITER_H

#include "util/error.h"
#include "run/profiler.h"

typedef struct harness_trace_meta {
    int rank, world_size;
    const char *variant_key;
    const char *device_name;
    const char *harness_version;
} harness_trace_meta;

int harness_trace_write(const harness_profiler *p, const harness_trace_meta *meta, const char *path,
                        harness_error *err);

#endif

/* The bounded memory log (memory_log.h). */
#include "run/memory_log.h"

#include <stdint.h>
#include <stdlib.h>

static uint64_t max_u64(uint64_t a, uint64_t b)
{
    return a > b ? a : b;
}

static uint64_t min_u64(uint64_t a, uint64_t b)
{
    return a < b ? a : b;
}

/* Point i of the merged log spans points 2i and 2i+1: it starts where the
 * earlier one did, and keeps both series' max and min over the two. */
static void merge_pairs(harness_memory_log *m)
{
    size_t kept = 0;
    for (size_t i = 0; i < m->n; i += 2, kept++) {
        harness_memory_sample merged = m->samples[i];
        if (i + 1 < m->n) {
            const harness_memory_sample *b = &m->samples[i + 1];
            merged.allocated = max_u64(merged.allocated, b->allocated);
            merged.peak_allocated = max_u64(merged.peak_allocated, b->peak_allocated);
            merged.reserved = max_u64(merged.reserved, b->reserved);
            merged.allocated_min = min_u64(merged.allocated_min, b->allocated_min);
            merged.reserved_min = min_u64(merged.reserved_min, b->reserved_min);
        }
        m->samples[kept] = merged;
    }
    m->n = kept;
    /* Phase edges alone can fill the log (a million windows), so the
     * stride may double many times: it stops short of overflowing. */
    if (m->every_steps < 1)
        m->every_steps = 1;
    if (m->every_steps <= INT64_MAX / 2)
        m->every_steps *= 2;
}

int harness_memory_log_add(harness_memory_log *m, const harness_memory_sample *s)
{
    if (m->n == HARNESS_MEMORY_LOG_MAX)
        merge_pairs(m);
    if (m->n == m->cap) {
        size_t cap = m->cap ? 2 * m->cap : 256;
        if (cap > HARNESS_MEMORY_LOG_MAX)
            cap = HARNESS_MEMORY_LOG_MAX;
        harness_memory_sample *grown = realloc(m->samples, cap * sizeof *grown);
        if (!grown)
            return -1;
        m->samples = grown;
        m->cap = cap;
    }
    harness_memory_sample *t = &m->samples[m->n++];
    *t = *s;
    t->allocated_min = s->allocated;
    t->reserved_min = s->reserved;
    m->taken++;
    if (s->reserved > m->peak_reserved)
        m->peak_reserved = s->reserved;
    return 0;
}

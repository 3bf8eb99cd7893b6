#include "backend/alloc_tracker.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *host_alloc(void *self, size_t bytes)
{
    (void)self;
    return aligned_alloc(64, bytes);
}

static void host_free(void *self, void *ptr)
{
    (void)self;
    free(ptr);
}

harness_allocator harness_host_allocator(void)
{
    return (harness_allocator){.self = NULL, .alloc = host_alloc, .free = host_free};
}

void harness_alloc_tracker_init(harness_alloc_tracker *t, harness_allocator allocator)
{
    memset(t, 0, sizeof *t);
    t->allocator = allocator;
}

/* Snapshot the live set; called when a new peak is reached. Allocation is
 * rare (create time), so copying the small live array each time is cheap. */
static void remember_peak(harness_alloc_tracker *t)
{
    harness_allocation *copy = realloc(t->at_peak, t->n_live * sizeof *copy + 1);
    if (!copy)
        return;  /* keep the older snapshot: the report shows less detail, nothing breaks */
    memcpy(copy, t->live, t->n_live * sizeof *copy);
    t->at_peak = copy;
    t->n_at_peak = t->n_live;
}

void *harness_tracked_alloc(harness_alloc_tracker *t, size_t bytes, const char *tag, const char *owner)
{
    if (t->n_live == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 16;
        harness_allocation *live = realloc(t->live, cap * sizeof *live);
        if (!live)
            return NULL;
        t->live = live;
        t->cap = cap;
    }
    /* Round up so aligned_alloc's size rule holds and vector tails never read
     * past the block. */
    size_t rounded = (bytes + 63) / 64 * 64;
    if (rounded < bytes)
        return NULL;
    void *p = t->allocator.alloc(t->allocator.self, rounded ? rounded : 64);
    if (!p)
        return NULL;
    harness_allocation *a = &t->live[t->n_live++];
    a->ptr = p;
    a->bytes = bytes;
    snprintf(a->tag, sizeof a->tag, "%s", tag ? tag : "untagged");
    snprintf(a->owner, sizeof a->owner, "%s", owner ? owner : "harness");
    t->current_bytes += bytes;
    t->n_allocs++;
    if (t->current_bytes > t->peak_bytes) {
        t->peak_bytes = t->current_bytes;
        remember_peak(t);
    }
    return p;
}

int harness_tracked_free(harness_alloc_tracker *t, void *ptr)
{
    if (!ptr)
        return 0;
    for (size_t i = 0; i < t->n_live; i++) {
        if (t->live[i].ptr == ptr) {
            t->current_bytes -= t->live[i].bytes;
            t->live[i] = t->live[--t->n_live];
            t->n_frees++;
            t->allocator.free(t->allocator.self, ptr);
            return 0;
        }
    }
    return -1;
}

size_t harness_alloc_tracker_release_all(harness_alloc_tracker *t)
{
    size_t n = t->n_live;
    for (size_t i = 0; i < n; i++)
        t->allocator.free(t->allocator.self, t->live[i].ptr);
    t->n_frees += n;
    t->n_live = 0;
    t->current_bytes = 0;
    return n;
}

void harness_alloc_tracker_destroy(harness_alloc_tracker *t)
{
    harness_alloc_tracker_release_all(t);
    free(t->live);
    free(t->at_peak);
    memset(t, 0, sizeof *t);
}

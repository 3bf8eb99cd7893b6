/* alloc_tracker.h - host allocations made through the harness, by tag, with
 * current and peak totals: the "allocated" series of the memory report. */
#ifndef HARNESS_ALLOC_TRACKER_H
#define HARNESS_ALLOC_TRACKER_H

#include <stddef.h>

typedef struct harness_allocation {
    void *ptr;
    size_t bytes;
    char tag[64];
    char owner[64];                /* who asked: a variant key, or "harness" */
} harness_allocation;

/* Where the tracked memory comes from: the backend's raw allocator. */
typedef struct harness_allocator {
    void *self;
    void *(*alloc)(void *self, size_t bytes);  /* 64-byte aligned; bytes is a multiple of 64 */
    void (*free)(void *self, void *ptr);
} harness_allocator;

/* The host heap (aligned_alloc / free): the CPU backend's allocator. */
harness_allocator harness_host_allocator(void);

typedef struct harness_alloc_tracker {
    harness_allocator allocator;
    harness_allocation *live;      /* unordered; few and large, so a flat array is enough */
    size_t n_live, cap;
    size_t current_bytes, peak_bytes;
    size_t n_allocs, n_frees;
    /* The live set at the moment of the peak, for "what was resident at peak". */
    harness_allocation *at_peak;
    size_t n_at_peak;
} harness_alloc_tracker;

void harness_alloc_tracker_init(harness_alloc_tracker *t, harness_allocator allocator);
/* 64-byte aligned, uninitialized. NULL on failure (size 0 gives a valid 64-byte block). */
void *harness_tracked_alloc(harness_alloc_tracker *t, size_t bytes, const char *tag, const char *owner);
/* Returns 0, or -1 when ptr was not allocated here (nothing is freed then). */
int harness_tracked_free(harness_alloc_tracker *t, void *ptr);
/* Frees everything still live (after a failed create, say); returns how many. */
size_t harness_alloc_tracker_release_all(harness_alloc_tracker *t);
void harness_alloc_tracker_destroy(harness_alloc_tracker *t);

#endif

/* The record list of gpu_activity.h: growth and name interning. */
#include "backend/gpu_activity.h"

#include <stdlib.h>
#include <string.h>

void harness_gpu_activity_list_init(harness_gpu_activity_list *l)
{
    memset(l, 0, sizeof *l);
}

void harness_gpu_activity_list_free(harness_gpu_activity_list *l)
{
    for (size_t i = 0; i < l->n_names; i++)
        free(l->names[i]);
    free(l->names);
    free(l->items);
    memset(l, 0, sizeof *l);
}

void harness_gpu_activity_list_clear(harness_gpu_activity_list *l)
{
    l->n = 0;
    l->dropped = 0;
    l->untimed = 0;
}

/* A run names a few dozen kernels and runtime functions, and a buffer of
 * records repeats them in runs, so the last hit is tried first and a linear
 * scan finds the rest. */
const char *harness_gpu_activity_intern(harness_gpu_activity_list *l, const char *name)
{
    if (l->n_names && strcmp(l->names[l->n_names - 1], name) == 0)
        return l->names[l->n_names - 1];
    for (size_t i = 0; i < l->n_names; i++)
        if (strcmp(l->names[i], name) == 0) {
            /* Move it to the end: the next lookup is likely the same name. */
            char *hit = l->names[i];
            memmove(l->names + i, l->names + i + 1, (l->n_names - i - 1) * sizeof *l->names);
            l->names[l->n_names - 1] = hit;
            return hit;
        }
    if (l->n_names == l->cap_names) {
        size_t cap = l->cap_names ? 2 * l->cap_names : 16;
        char **names = realloc(l->names, cap * sizeof *names);
        if (!names)
            return NULL;
        l->names = names;
        l->cap_names = cap;
    }
    char *copy = strdup(name);
    if (!copy)
        return NULL;
    l->names[l->n_names++] = copy;
    return copy;
}

int harness_gpu_activity_append(harness_gpu_activity_list *l, const harness_gpu_activity *rec)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 256;
        harness_gpu_activity *items = realloc(l->items, cap * sizeof *items);
        if (!items)
            return -1;
        l->items = items;
        l->cap = cap;
    }
    harness_gpu_activity copy = *rec;
    if (rec->name && !(copy.name = harness_gpu_activity_intern(l, rec->name)))
        return -1;
    l->items[l->n++] = copy;
    return 0;
}

int harness_gpu_activity_add_cupti(harness_gpu_activity_list *l, const harness_gpu_activity *rec, int64_t offset_ns)
{
    int device_work = rec->kind == HARNESS_GPU_KERNEL || rec->kind == HARNESS_GPU_MEMCPY ||
                      rec->kind == HARNESS_GPU_MEMSET;
    if (device_work && rec->start_ns == 0 && rec->end_ns == 0) {
        l->untimed++;
        return 0;
    }
    harness_gpu_activity a = *rec;
    a.start_ns = (uint64_t)((int64_t)rec->start_ns + offset_ns);
    a.end_ns = (uint64_t)((int64_t)rec->end_ns + offset_ns);
    return harness_gpu_activity_append(l, &a) == 0 ? 1 : -1;
}

int harness_gpu_driver_call_kept(const char *name)
{
    /* cuLaunchKernel, cuLaunchKernelEx, cuLaunchCooperativeKernel, cuGraphLaunch */
    return name && (strncmp(name, "cuLaunch", 8) == 0 || strncmp(name, "cuGraphLaunch", 13) == 0);
}

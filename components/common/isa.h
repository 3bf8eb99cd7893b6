/* isa.h - run-time choice of a kernel's instruction-set variant, shared by
 * the components: a table of candidates, best first, each a struct whose
 * first member is its ISA's name ("amx", "avx512_bf16", "avx512", "avx2",
 * "portable"); the best
 * one this CPU supports is chosen on first use, and tests can force any
 * supported one. */
#ifndef COMPONENTS_ISA_H
#define COMPONENTS_ISA_H

#include <stdatomic.h>
#include <stddef.h>
#include <string.h>

#if defined(__x86_64__) && defined(__linux__)
#include <cpuid.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

typedef struct isa_dispatch {
    const void *const *candidates; /* each points to a struct starting with `const char *name` */
    size_t n;
    _Atomic(const void *) chosen;  /* atomic: first uses may race from several threads */
} isa_dispatch;

#define ISA_DISPATCH(table) {(const void *const *)(table), sizeof(table) / sizeof((table)[0]), NULL}

static inline const char *isa_name(const void *candidate)
{
    return *(const char *const *)candidate;
}

/* AMX tiles with bf16: cpuid says so (leaf 7: EDX bit 24 AMX-TILE, bit 22
 * AMX-BF16) and Linux lets this process use the tile data. Linux keeps the
 * 8 KiB tile state out of a process's signal frames until it asks
 * (arch_prctl ARCH_REQ_XCOMP_PERM for XFEATURE_XTILEDATA, 18); the first tile
 * instruction without that permission kills the process with SIGILL. Asking
 * is idempotent, so the answer is simply asked again by each caller. Elsewhere
 * (other kernels, old kernels refusing it) there is no AMX. */
static inline int isa_amx_usable(void)
{
#if defined(ATTENTION_AMX_SIM)
    return 1;                      /* tests/unit/amx_sim.h emulates the tiles */
#elif defined(__x86_64__) && defined(__linux__) && defined(SYS_arch_prctl)
    unsigned a, b, c, d;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d) || !(d & (1u << 24)) || !(d & (1u << 22)))
        return 0;
    enum { ARCH_GET_XCOMP_PERM_ = 0x1022, ARCH_REQ_XCOMP_PERM_ = 0x1023, XFEATURE_XTILEDATA_ = 18 };
    if (syscall(SYS_arch_prctl, ARCH_REQ_XCOMP_PERM_, XFEATURE_XTILEDATA_) != 0)
        return 0;
    unsigned long perm = 0;
    return syscall(SYS_arch_prctl, ARCH_GET_XCOMP_PERM_, &perm) == 0 && (perm >> XFEATURE_XTILEDATA_ & 1);
#else
    return 0;
#endif
}

/* Whether this CPU runs the named ISA: amx (tiles with bf16, granted by the
 * kernel, next to AVX-512 BF16 that its kernels fall back on), avx512_bf16
 * (AVX-512 F, BW and BF16: vdpbf16ps), avx512 (F and BW), avx2 (with FMA),
 * portable. */
static inline int isa_supported(const char *name)
{
#if defined(__x86_64__)
    if (strcmp(name, "amx") == 0)
        return isa_supported("avx512_bf16") && isa_amx_usable();
    if (strcmp(name, "avx512_bf16") == 0)
        return isa_supported("avx512") && __builtin_cpu_supports("avx512bf16");
    if (strcmp(name, "avx512") == 0)
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw");
    if (strcmp(name, "avx2") == 0)
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#endif
    return strcmp(name, "portable") == 0;
}

/* The first candidate this CPU supports; the last (portable) otherwise. */
static inline const void *isa_best(const isa_dispatch *d)
{
    for (size_t k = 0; k < d->n; k++)
        if (isa_supported(isa_name(d->candidates[k])))
            return d->candidates[k];
    return d->candidates[d->n - 1];  /* the portable one, last by convention */
}

/* The chosen candidate (the best supported one until isa_select). */
static inline const void *isa_current(isa_dispatch *d)
{
    const void *c = atomic_load(&d->chosen);
    if (!c) {
        c = isa_best(d);
        atomic_store(&d->chosen, c);
    }
    return c;
}

/* Choose by name, or the best with NULL or "auto"; -1 when the name is
 * unknown or this CPU lacks it (the choice is unchanged then). */
static inline int isa_select(isa_dispatch *d, const char *name)
{
    if (!name || strcmp(name, "auto") == 0) {
        atomic_store(&d->chosen, isa_best(d));
        return 0;
    }
    for (size_t k = 0; k < d->n; k++)
        if (strcmp(name, isa_name(d->candidates[k])) == 0) {
            if (!isa_supported(name))
                return -1;
            atomic_store(&d->chosen, d->candidates[k]);
            return 0;
        }
    return -1;
}

#endif

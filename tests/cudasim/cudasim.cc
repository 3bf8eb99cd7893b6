/* cudasim.cc - the scheduler behind cudasim.h: a grid's blocks one after
 * another, each block's threads as ucontext fibers on one OS thread.
 *
 * A fiber runs until it reaches a barrier (__syncthreads, or a warp
 * collective, which is a barrier of its warp's lanes) or returns. When every
 * fiber of the block is waiting, the scheduler releases what can go on:
 * a warp whose mask's lanes are all at a collective, else the whole block
 * when every live thread is at __syncthreads; nothing releasable is a
 * deadlock (a barrier in divergent code), reported and aborted. Released
 * fibers are then resumed one by one, each until its next barrier, in the
 * order set_order chose: forward, thread 0 first, or reversed. Code between
 * two barriers thus runs thread after thread, which turns a missing barrier
 * into a wrong result in one of the two orders (README). */
#include "cudasim.h"

#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <unordered_map>
#include <vector>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#define CUDASIM_ASAN 1
#endif

/* The linker's bounds of the static __shared__ section (cudasim.h); weak:
 * null in a program whose kernels have none. */
extern "C" unsigned char __start_cudasim_shared[] __attribute__((weak));
extern "C" unsigned char __stop_cudasim_shared[] __attribute__((weak));

/* Blocks run so far: CUDA_STATIC_SHARED arrays are poisoned once per block. */
static unsigned long block_serial;

namespace cudasim {

const thread_pos *current;

namespace {

enum state { RUNNABLE, AT_SYNCTHREADS, AT_WARP, DONE };

/* ASan's frames are larger (redzones), so its fibers get more stack. */
#ifdef CUDASIM_ASAN
const size_t STACK_BYTES = 256 << 10;
#else
const size_t STACK_BYTES = 64 << 10;
#endif

struct fiber {
    ucontext_t ctx;
    char *stack;                 /* mmap'd, a PROT_NONE guard page below it */
    thread_pos pos;
    state st;
    unsigned mask;               /* of the collective it waits at */
    unsigned parity;             /* which exchange buffer that collective uses */
    void *fake_stack;            /* ASan's, while switched out */
};

struct warp {
    uint64_t slots[2][32];       /* double buffered: see warp_exchange */
    unsigned generation;
};

struct launch_state {
    std::vector<fiber> fibers;
    std::vector<warp> warps;
    const std::function<void()> *body;
    fiber *running;
    ucontext_t scheduler;
    unsigned char *dyn_shared;
    const void *sched_stack_bottom;   /* ASan: the scheduler's stack */
    size_t sched_stack_size;
};

launch_state *L;
order run_order = FORWARD;
cudaError_t last_error = cudaSuccess;

[[noreturn]] void fail(const char *what)
{
    const thread_pos *p = L && L->running ? &L->running->pos : current;
    if (p)
        std::fprintf(stderr, "cudasim: %s (block %u,%u,%u thread %u,%u,%u)\n", what,
                     p->block_idx.x, p->block_idx.y, p->block_idx.z, p->thread_idx.x,
                     p->thread_idx.y, p->thread_idx.z);
    else
        std::fprintf(stderr, "cudasim: %s\n", what);
    std::abort();
}

size_t page_size() { return (size_t)sysconf(_SC_PAGESIZE); }

/* ---- switching, with ASan told about each stack change ------------------ */

void to_scheduler(fiber *f, bool finished)
{
#ifdef CUDASIM_ASAN
    /* A finished fiber passes no fake-stack slot: ASan frees its fake frames. */
    __sanitizer_start_switch_fiber(finished ? nullptr : &f->fake_stack, L->sched_stack_bottom,
                                   L->sched_stack_size);
#endif
    swapcontext(&f->ctx, &L->scheduler);
#ifdef CUDASIM_ASAN
    __sanitizer_finish_switch_fiber(f->fake_stack, &L->sched_stack_bottom, &L->sched_stack_size);
#endif
    (void)finished;
    current = &f->pos;
}

void resume(fiber *f)
{
    L->running = f;
    current = &f->pos;
#ifdef CUDASIM_ASAN
    void *fake = nullptr;
    __sanitizer_start_switch_fiber(&fake, f->stack, STACK_BYTES);
#endif
    swapcontext(&L->scheduler, &f->ctx);
#ifdef CUDASIM_ASAN
    __sanitizer_finish_switch_fiber(fake, nullptr, nullptr);
#endif
    L->running = nullptr;
}

void fiber_main()
{
    fiber *f = L->running;
#ifdef CUDASIM_ASAN
    __sanitizer_finish_switch_fiber(nullptr, &L->sched_stack_bottom, &L->sched_stack_size);
#endif
    (*L->body)();
    f->st = DONE;
    to_scheduler(f, true);
    fail("a finished fiber was resumed");
}

/* ---- barriers -------------------------------------------------------- */

void wait_here(state st)
{
    fiber *f = L->running;
    if (!f)
        fail("a barrier outside a kernel");
    f->st = st;
    to_scheduler(f, false);
}

size_t block_threads(const launch_state &l) { return l.fibers.size(); }

/* Releases warp w if every lane of its collective's mask has reached it. */
bool release_warp(size_t w)
{
    size_t n = block_threads(*L);
    unsigned waiting = 0, mask = 0;
    bool mixed = false;
    for (size_t l = 0; l < 32 && w * 32 + l < n; l++) {
        const fiber &f = L->fibers[w * 32 + l];
        if (f.st != AT_WARP)
            continue;
        if (waiting && f.mask != mask)
            mixed = true;
        mask = f.mask;
        waiting |= 1u << l;
    }
    if (!waiting)
        return false;
    if (mixed) {
        L->running = &L->fibers[w * 32 + (unsigned)__builtin_ctz(waiting)];
        fail("lanes of a warp wait at collectives with different masks (divergent warp: "
             "unsupported)");
    }
    if (waiting != mask)
        return false;
    for (size_t l = 0; l < 32; l++)
        if (mask >> l & 1u)
            L->fibers[w * 32 + l].st = RUNNABLE;
    L->warps[w].generation++;
    return true;
}

/* Releases the first warp, in the run order, that can go on. */
bool release_warps()
{
    size_t nw = L->warps.size();
    for (size_t k = 0; k < nw; k++)
        if (release_warp(run_order == FORWARD ? k : nw - 1 - k))
            return true;
    return false;
}

/* Releases the block when every live thread waits at __syncthreads. */
bool release_block()
{
    bool any_waiting = false;
    for (const fiber &f : L->fibers) {
        if (f.st == AT_WARP || f.st == RUNNABLE)
            return false;
        any_waiting |= f.st == AT_SYNCTHREADS;
    }
    for (fiber &f : L->fibers)
        if (f.st == AT_SYNCTHREADS)
            f.st = RUNNABLE;
    return any_waiting;
}

/* ---- one block ------------------------------------------------------- */

void run_block(dim3 grid, dim3 block, dim3 bid, size_t smem)
{
    block_serial++;
    /* Static shared memory starts every block as garbage, as on the GPU. */
    unsigned char *lo = __start_cudasim_shared, *hi = __stop_cudasim_shared;
    if (lo && hi > lo)
        std::memset(lo, 0xff, (size_t)(hi - lo));
    /* A fresh, exact-size dynamic shared allocation per block, filled with
     * 0xff bytes (a NaN as fp32, bf16 and fp16) so that reading it before
     * writing shows; ASan reports any access past smem. */
    L->dyn_shared = static_cast<unsigned char *>(std::malloc(smem ? smem : 1));
    if (!L->dyn_shared)
        fail("out of memory for dynamic shared memory");
    std::memset(L->dyn_shared, 0xff, smem);
    for (warp &w : L->warps)
        w.generation = 0;

    size_t n = block_threads(*L);
    access_block_begin(n, L->dyn_shared, smem);
    for (size_t t = 0; t < n; t++) {
        fiber &f = L->fibers[t];
        f.pos.thread_idx = dim3((unsigned)(t % block.x), (unsigned)(t / block.x % block.y),
                                (unsigned)(t / block.x / block.y));
        f.pos.block_idx = bid;
        f.pos.block_dim = block;
        f.pos.grid_dim = grid;
        f.st = RUNNABLE;
        f.fake_stack = nullptr;
#ifdef CUDASIM_ASAN
        /* The previous block's frames never returned (their fibers switched
         * away at the end), so their redzones would still be poisoned. */
        ASAN_UNPOISON_MEMORY_REGION(f.stack, STACK_BYTES);
#endif
        getcontext(&f.ctx);
        f.ctx.uc_stack.ss_sp = f.stack;
        f.ctx.uc_stack.ss_size = STACK_BYTES;
        f.ctx.uc_link = nullptr;
        makecontext(&f.ctx, fiber_main, 0);
    }

    /* Fibers run in the chosen order, each to its next barrier. A warp is
     * released the moment its last lane reaches its collective, and the
     * scan starts over: the first warp in the order runs on, collective
     * after collective, until __syncthreads (or its end) before a later
     * one moves at all. Warps drift as far apart as barriers allow, so a
     * shared-memory race between warps that only a missing __syncthreads
     * would order shows in one of the two orders even where warp
     * collectives sit between the write and the read. */
    for (;;) {
        for (size_t k = 0; k < n; k++) {
            fiber &f = L->fibers[run_order == FORWARD ? k : n - 1 - k];
            if (f.st != RUNNABLE)
                continue;
            resume(&f);
            if (f.st == AT_WARP && release_warp((size_t)(&f - L->fibers.data()) / 32))
                k = (size_t)-1;                /* start over: the released warp goes on first */
        }
        if (release_warps() || release_block())
            continue;
        size_t done = 0;
        for (const fiber &f : L->fibers)
            done += f.st == DONE;
        if (done == n)
            break;
        for (fiber &f : L->fibers)
            if (f.st != DONE) {
                L->running = &f;
                break;
            }
        fail(L->running->st == AT_WARP
                 ? "deadlock: a warp collective waits for a lane that exited or is at "
                   "__syncthreads (divergent collective)"
                 : "deadlock: __syncthreads waits for threads stuck at a warp collective");
    }
    access_block_end();
    std::free(L->dyn_shared);
    L->dyn_shared = nullptr;
}

}  // namespace

/* ---- what cudasim.h declares ------------------------------------------ */

void set_order(order o) { run_order = o; }

static landing copies_land = AT_WAIT;
void set_landing(landing l) { copies_land = l; }
landing cp_async_landing() { return copies_land; }

void syncthreads() { wait_here(AT_SYNCTHREADS); }

unsigned lane_id()
{
    return (unsigned)((L->running - L->fibers.data()) % 32);
}

/* Every lane posts to the buffer of the warp's current generation, waits for
 * the others, then reads the whole buffer. The next collective uses the other
 * buffer, so a fast lane that reaches it cannot overwrite values a slow lane
 * has not read yet; and it cannot get two ahead, since that next collective
 * waits for the slow lane. */
const uint64_t *warp_exchange(unsigned mask, uint64_t mine)
{
    fiber *f = L ? L->running : nullptr;
    if (!f)
        fail("a warp collective outside a kernel");
    unsigned lane = lane_id();
    if (!(mask >> lane & 1u))
        fail("a warp collective whose mask leaves out the calling lane");
    warp &w = L->warps[(size_t)(f - L->fibers.data()) / 32];
    f->parity = w.generation & 1u;
    f->mask = mask;
    w.slots[f->parity][lane] = mine;
    wait_here(AT_WARP);
    return w.slots[f->parity];
}

unsigned active_mask()
{
    size_t first = (size_t)(L->running - L->fibers.data()) / 32 * 32;
    unsigned m = 0;
    for (size_t l = 0; l < 32 && first + l < L->fibers.size(); l++)
        if (L->fibers[first + l].st != DONE)
            m |= 1u << l;
    return m;
}

/* The block that last poisoned each CUDA_STATIC_SHARED array. */
static std::unordered_map<void *, unsigned long> &static_shared_blocks()
{
    static std::unordered_map<void *, unsigned long> m;
    return m;
}

void static_shared(void *p, size_t bytes)
{
    unsigned long &last = static_shared_blocks()[p];
    if (last != block_serial) {
        std::memset(p, 0xff, bytes);
        last = block_serial;
    }
}

void *dynamic_shared()
{
    if (!L || !L->running)
        fail("dynamic shared memory outside a kernel");
    return L->dyn_shared;
}

cudaError_t take_error()
{
    cudaError_t e = last_error;
    last_error = cudaSuccess;
    return e;
}

/* Each kernel's opt-in past the default 48 KiB of dynamic shared memory. */
static std::map<const void *, size_t> max_dynamic_shared;

void set_max_dynamic_shared(const void *kernel, int bytes)
{
    max_dynamic_shared[kernel] = (size_t)bytes;
}

void run_grid(const void *kernel, dim3 grid, dim3 block, size_t smem, const std::function<void()> &body)
{
    /* CUDA's limits (compute capability 8.0 and 9.0): the launch fails and
     * cudaGetLastError says so, as it would on a GPU. */
    size_t threads = (size_t)block.x * block.y * block.z;
    auto opted = max_dynamic_shared.find(kernel);
    size_t smem_limit = opted != max_dynamic_shared.end() && opted->second > (48u << 10) ? opted->second : 48u << 10;
    if (threads == 0 || threads > 1024 || block.z > 64 || grid.x == 0 || grid.y == 0 ||
        grid.z == 0 || grid.y > 65535 || grid.z > 65535 || smem > smem_limit) {
        last_error = cudaErrorInvalidConfiguration;
        return;
    }
    if (L)
        fail("a launch from inside a kernel (dynamic parallelism is unsupported)");

    launch_state state;
    L = &state;
    state.body = &body;
    state.running = nullptr;
    state.dyn_shared = nullptr;
    state.sched_stack_bottom = nullptr;
    state.sched_stack_size = 0;
    state.fibers.resize(threads);
    state.warps.resize((threads + 31) / 32);
    size_t page = page_size();
    for (fiber &f : state.fibers) {
        void *m = mmap(nullptr, STACK_BYTES + page, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED)
            fail("cannot map a fiber stack");
        mprotect(m, page, PROT_NONE);     /* an overflow faults instead of corrupting */
        f.stack = static_cast<char *>(m) + page;
    }
    for (unsigned z = 0; z < grid.z; z++)
        for (unsigned y = 0; y < grid.y; y++)
            for (unsigned x = 0; x < grid.x; x++)
                run_block(grid, block, dim3(x, y, z), smem);
    for (fiber &f : state.fibers)
        munmap(f.stack - page, STACK_BYTES + page);
    L = nullptr;
    current = nullptr;
}

}  // namespace cudasim

/* cudasim.cc - the scheduler behind cudasim.h: a grid's blocks one after
 * another (a cluster's blocks together), each block's threads as ucontext
 * fibers on one OS thread.
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
static unsigned long blocks_started;

namespace cudasim {

const thread_pos *current;

namespace {

/* AT_WARPGROUP: a warpgroup collective (wgmma); AT_NAMED: bar.sync on a
 * named barrier; AT_MBAR: an mbarrier wait; AT_BULK: a bulk stores' wait
 * (released last, once nothing else can move); AT_CLUSTER: the cluster
 * barrier; UNSTARTED: a block of the cluster not started yet (start_block). */
enum state { RUNNABLE, AT_SYNCTHREADS, AT_WARP, AT_WARPGROUP, AT_NAMED, AT_MBAR, AT_BULK, AT_CLUSTER, UNSTARTED,
             DONE };

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
    unsigned blk;                /* its block's rank in the cluster */
    state st;
    unsigned mask;               /* of the collective it waits at */
    unsigned parity;             /* which exchange buffer that collective uses */
    unsigned named_id;           /* AT_NAMED: the barrier */
    uint64_t *bar;               /* AT_MBAR: the mbarrier and the parity awaited */
    unsigned bar_parity;
    void *fake_stack;            /* ASan's, while switched out */
    /* Bulk stores (cudasim.h): the open group, then the committed groups no
     * wait has let go yet, oldest first; each store's read of shared memory
     * (already done in AT_ISSUE). */
    std::vector<std::function<void()>> bulk_open;
    std::vector<std::vector<std::function<void()>>> bulk_groups;
    unsigned long fences;        /* fence.proxy.async calls this block */
    unsigned long fences_seen;   /* `fences` at its warpgroup's last bulk commit */
};

struct warp {
    uint64_t slots[2][32];       /* double buffered: see warp_exchange */
    unsigned generation;
};

struct warpgroup {
    uint64_t slots[2][128];      /* double buffered as a warp's */
    unsigned generation;
    unsigned arrived;
};

struct named_barrier_state {
    unsigned arrived, expected;
};

/* One deferred asynchronous copy (AT_WAIT) and the tx bytes it completes. */
struct pending_tx {
    unsigned bytes;
    std::function<void()> land;
};

struct mbarrier {
    unsigned count;              /* arrivals per phase */
    unsigned pending;            /* arrivals the current phase still needs */
    long long tx;                /* tx-count: expected minus completed bytes */
    unsigned long phase;         /* phases completed */
    std::vector<pending_tx> deferred;
};

/* One block of the running cluster. */
struct block_state {
    unsigned char *dyn_shared;   /* its own allocation, kept until the cluster ends */
    named_barrier_state named[16];
    unsigned long serial;        /* block_serial */
    size_t live;                 /* fibers not yet DONE: 0, it exited */
};

struct launch_state {
    std::vector<fiber> fibers;   /* the cluster's blocks' threads, block after block */
    std::vector<warp> warps;
    std::vector<warpgroup> warpgroups;
    std::vector<block_state> blocks;
    size_t per_block;            /* threads a block */
    std::map<uint64_t *, mbarrier> mbarriers;   /* the cluster's, by address */
    size_t dyn_bytes;
    const std::function<void()> *body;
    fiber *running;
    ucontext_t scheduler;
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
    L->blocks[f->blk].live--;
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

block_state &running_block() { return L->blocks[L->running->blk]; }

/* Releases warp w if every lane of its collective's mask has reached it. */
bool release_warp(size_t w)
{
    size_t n = L->fibers.size();
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

/* Releases the fibers of [first, first + n) waiting at `at` when every live
 * one there waits at it. */
bool release_all(size_t first, size_t n, state at)
{
    bool any_waiting = false;
    for (size_t i = first; i < first + n; i++) {
        const fiber &f = L->fibers[i];
        if (f.st != at && f.st != DONE)
            return false;
        any_waiting |= f.st == at;
    }
    for (size_t i = first; i < first + n; i++)
        if (L->fibers[i].st == at)
            L->fibers[i].st = RUNNABLE;
    return any_waiting;
}

/* Releases a block when every live thread of it waits at __syncthreads. */
bool release_block()
{
    bool any = false;
    for (size_t b = 0; b < L->blocks.size(); b++)
        any |= release_all(b * L->per_block, L->per_block, AT_SYNCTHREADS);
    return any;
}

/* Releases the cluster when every live thread of it waits at the cluster
 * barrier. */
bool release_cluster() { return release_all(0, L->fibers.size(), AT_CLUSTER); }

/* ---- mbarriers -------------------------------------------------------- */

landing copies_land = AT_WAIT;

mbarrier &find_mbarrier(uint64_t *bar)
{
    auto it = L->mbarriers.find(bar);
    if (it == L->mbarriers.end())
        fail("an mbarrier used before mbar_init in this block");
    return it->second;
}

/* The phase completes when its arrivals and its tx bytes are all in. */
void try_complete(mbarrier &m)
{
    if (m.pending == 0 && m.tx == 0) {
        m.phase++;
        m.pending = m.count;
    }
}

/* Lands the copies held back for AT_WAIT once nothing else (no arrival) is
 * missing: the latest moment at which the phase could complete. */
void land_deferred(mbarrier &m)
{
    if (m.pending != 0 || m.deferred.empty())
        return;
    std::vector<pending_tx> copies;
    copies.swap(m.deferred);
    for (pending_tx &c : copies) {
        c.land();
        m.tx -= c.bytes;
    }
    try_complete(m);
}

bool mbar_ready(fiber &f)
{
    mbarrier &m = find_mbarrier(f.bar);
    land_deferred(m);
    return (m.phase & 1u) != f.bar_parity;
}

/* Wakes every fiber whose awaited mbarrier phase has completed. */
bool release_mbar_waiters()
{
    bool any = false;
    for (fiber &f : L->fibers)
        if (f.st == AT_MBAR && mbar_ready(f)) {
            f.st = RUNNABLE;
            any = true;
        }
    return any;
}

/* Wakes the fibers waiting for their bulk stores to have read shared
 * memory: called when nothing else can move, so that every other thread
 * has gone as far as it could before the stores read (the latest legal
 * moment: a write to their source that no barrier orders after the wait
 * then lands first, and shows). */
bool release_bulk_waiters()
{
    bool any = false;
    for (fiber &f : L->fibers)
        if (f.st == AT_BULK) {
            f.st = RUNNABLE;
            any = true;
        }
    return any;
}

/* Starts the next block of the cluster in the run order, once nothing of
 * the started ones can move: each block runs as far as it can before its
 * peers start, so that reaching into a peer before a cluster barrier says
 * the peer is ready (its mbarriers initialized) shows. */
bool start_block()
{
    size_t n = L->fibers.size();
    for (size_t k = 0; k < n; k++) {
        size_t first = (run_order == FORWARD ? k : n - 1 - k) / L->per_block * L->per_block;
        if (L->fibers[first].st != UNSTARTED)
            continue;
        for (size_t i = first; i < first + L->per_block; i++)
            L->fibers[i].st = RUNNABLE;
        return true;
    }
    return false;
}

/* Says which barrier the first blocked fiber waits at, and aborts. */
[[noreturn]] void report_deadlock()
{
    for (fiber &f : L->fibers)
        if (f.st != DONE) {
            L->running = &f;
            break;
        }
    fiber &f = *L->running;
    char msg[320];
    switch (f.st) {
    case AT_WARP:
        fail("deadlock: a warp collective waits for a lane that exited or is at "
             "__syncthreads (divergent collective)");
    case AT_WARPGROUP:
        fail("deadlock: a warpgroup collective (wgmma, setmaxnreg) waits for threads of its "
             "warpgroup that exited or wait at another barrier");
    case AT_NAMED: {
        const named_barrier_state &nb = L->blocks[f.blk].named[f.named_id];
        std::snprintf(msg, sizeof msg, "deadlock: named barrier %u waits with %u of its %u threads arrived",
                      f.named_id, nb.arrived, nb.expected);
        fail(msg);
    }
    case AT_MBAR: {
        const mbarrier &m = find_mbarrier(f.bar);
        unsigned window = 2;
        uint32_t offset = 0;
        shared_window(f.bar, &window, &offset);
        char where[64];
        if (window < 2)
            std::snprintf(where, sizeof where, "%s shared offset %u", window == 0 ? "dynamic" : "static", offset);
        else
            std::snprintf(where, sizeof where, "%p", static_cast<void *>(f.bar));
        std::snprintf(msg, sizeof msg,
                      "deadlock: mbarrier at %s waits for its phase of parity %u: %lu phases completed, "
                      "the current one lacks %u of %u arrivals and %lld tx bytes",
                      where, f.bar_parity, m.phase, m.pending, m.count, m.tx);
        fail(msg);
    }
    default: {
        size_t at[DONE + 1] = {};
        for (const fiber &o : L->fibers)
            at[o.st]++;
        std::snprintf(msg, sizeof msg,
                      "deadlock: __syncthreads or the cluster barrier waits for threads stuck at another "
                      "barrier (%zu at __syncthreads, %zu at the cluster barrier, %zu at warp collectives, %zu at "
                      "warpgroup collectives, %zu at named barriers, %zu at mbarriers, %zu done)",
                      at[AT_SYNCTHREADS], at[AT_CLUSTER], at[AT_WARP], at[AT_WARPGROUP], at[AT_NAMED],
                      at[AT_MBAR], at[DONE]);
        fail(msg);
    }
    }
}

/* ---- one cluster of blocks (one block, unless the launch asks for more) -- */

/* The cluster's blocks' shared memory and barriers, fresh: static shared
 * memory starts every block as garbage, as on the GPU; each block gets an
 * exact-size dynamic shared allocation filled with 0xff bytes (a NaN as
 * fp32, bf16 and fp16) so that reading it before writing shows (ASan
 * reports any access past smem), 1024-byte aligned as kernels that use the
 * 128-byte swizzle align their tiles (the swizzle is a function of the
 * address bits), and kept until the whole cluster ends, so that an access
 * by a block to a peer that exited is reported (check_alive), not a use
 * after free. */
void start_blocks(unsigned cluster, size_t smem)
{
    unsigned char *lo = __start_cudasim_shared, *hi = __stop_cudasim_shared;
    if (lo && hi > lo)
        std::memset(lo, 0xff, (size_t)(hi - lo));
    L->dyn_bytes = smem;
    L->mbarriers.clear();
    for (unsigned b = 0; b < cluster; b++) {
        block_state &bs = L->blocks[b];
        void *dyn = nullptr;
        if (posix_memalign(&dyn, 1024, smem ? smem : 1) != 0)
            fail("out of memory for dynamic shared memory");
        bs.dyn_shared = static_cast<unsigned char *>(dyn);
        std::memset(bs.dyn_shared, 0xff, smem);
        for (named_barrier_state &nb : bs.named)
            nb = named_barrier_state{0, 0};
        bs.serial = ++blocks_started;
        bs.live = L->per_block;
    }
    for (warpgroup &g : L->warpgroups)
        g.generation = 0, g.arrived = 0;
    for (warp &w : L->warps)
        w.generation = 0;
}

/* Every fiber at its thread's start; the first block in the run order
 * runnable, its peers once it cannot move (start_block). */
void start_fibers(dim3 grid, dim3 block, dim3 first, unsigned cluster)
{
    for (size_t t = 0; t < L->fibers.size(); t++) {
        fiber &f = L->fibers[t];
        size_t i = t % L->per_block;
        f.blk = (unsigned)(t / L->per_block);
        f.pos.thread_idx = dim3((unsigned)(i % block.x), (unsigned)(i / block.x % block.y),
                                (unsigned)(i / block.x / block.y));
        f.pos.block_idx = dim3(first.x + f.blk, first.y, first.z);
        f.pos.block_dim = block;
        f.pos.grid_dim = grid;
        f.st = (run_order == FORWARD ? f.blk == 0 : f.blk + 1 == cluster) ? RUNNABLE : UNSTARTED;
        f.fake_stack = nullptr;
        f.bulk_open.clear();
        f.bulk_groups.clear();
        f.fences = f.fences_seen = 0;
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
}

void run_cluster(dim3 grid, dim3 block, dim3 first, unsigned cluster, size_t smem)
{
    start_blocks(cluster, smem);
    size_t n = L->fibers.size();
    /* Bank statistics count offsets from the first block's base. */
    access_block_begin(n, L->blocks[0].dyn_shared, smem);
    start_fibers(grid, block, first, cluster);

    /* Fibers run in the chosen order, each to its next barrier. A warp is
     * released the moment its last lane reaches its collective, and the
     * scan starts over: the first warp in the order runs on, collective
     * after collective, until __syncthreads (or its end) before a later
     * one moves at all. Warps drift as far apart as barriers allow, so a
     * shared-memory race between warps that only a missing __syncthreads
     * would order shows in one of the two orders even where warp
     * collectives sit between the write and the read. A cluster's blocks
     * run so too, the first in the order ahead of the other. */
    for (;;) {
        for (size_t k = 0; k < n; k++) {
            fiber &f = L->fibers[run_order == FORWARD ? k : n - 1 - k];
            if (f.st == AT_MBAR && mbar_ready(f))
                f.st = RUNNABLE;
            if (f.st != RUNNABLE)
                continue;
            resume(&f);
            if (f.st == AT_WARP && release_warp((size_t)(&f - L->fibers.data()) / 32))
                k = (size_t)-1;                /* start over: the released warp goes on first */
        }
        /* Warpgroup collectives and named barriers release their waiters
         * from the last arriving fiber, possibly behind the scan. */
        bool runnable = false;
        for (const fiber &f : L->fibers)
            runnable |= f.st == RUNNABLE;
        if (runnable || release_warps() || release_mbar_waiters() || release_block() || release_cluster() ||
            release_bulk_waiters() || start_block())
            continue;
        size_t done = 0;
        for (const fiber &f : L->fibers)
            done += f.st == DONE;
        if (done == n)
            break;
        report_deadlock();
    }
    for (auto &b : L->mbarriers)
        if (!b.second.deferred.empty())
            fail("the block ended with TMA copies that never landed: no thread waited on their "
                 "mbarrier's phase");
    for (const fiber &f : L->fibers)
        if (!f.bulk_open.empty() || !f.bulk_groups.empty())
            fail("the block ended with bulk stores still reading its shared memory: no "
                 "cp.async.bulk.wait_group.read let them go");
    access_block_end();
    for (block_state &bs : L->blocks) {
        std::free(bs.dyn_shared);
        bs.dyn_shared = nullptr;
    }
}

/* The block of the running cluster whose dynamic shared memory holds p, or
 * null. */
block_state *owner(const void *p)
{
    const unsigned char *c = static_cast<const unsigned char *>(p);
    for (block_state &bs : L->blocks)
        if (bs.dyn_shared && c >= bs.dyn_shared && c < bs.dyn_shared + L->dyn_bytes)
            return &bs;
    return nullptr;
}

/* A block reaching into p's block: refused once that block has exited
 * (its shared memory is gone on a GPU; a cluster barrier before the exit
 * keeps it). */
void check_alive(const void *p, const char *what)
{
    const block_state *bs = owner(p);
    if (bs && bs->live == 0) {
        char msg[200];
        std::snprintf(msg, sizeof msg,
                      "%s in the shared memory of block %zu of the cluster, which has exited (a cluster "
                      "barrier before its exit is missing)",
                      what, (size_t)(bs - L->blocks.data()));
        fail(msg);
    }
}

}  // namespace

/* ---- what cudasim.h declares ------------------------------------------ */

void set_order(order o) { run_order = o; }

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
    if (L && L->blocks.size() > 1)
        fail("CUDA_STATIC_SHARED in a cluster launch (the model's static shared memory is one copy: "
             "unsupported)");
    unsigned long &last = static_shared_blocks()[p];
    if (last != blocks_started) {
        std::memset(p, 0xff, bytes);
        last = blocks_started;
    }
}

void *dynamic_shared()
{
    if (!L || !L->running)
        fail("dynamic shared memory outside a kernel");
    return running_block().dyn_shared;
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

void run_grid(const void *kernel, dim3 grid, dim3 block, size_t smem, const std::function<void()> &body,
              unsigned cluster)
{
    /* CUDA's limits (compute capability 8.0 and 9.0): the launch fails and
     * cudaGetLastError says so, as it would on a GPU. */
    size_t threads = (size_t)block.x * block.y * block.z;
    auto opted = max_dynamic_shared.find(kernel);
    size_t smem_limit = opted != max_dynamic_shared.end() && opted->second > (48u << 10) ? opted->second : 48u << 10;
    if (threads == 0 || threads > 1024 || block.z > 64 || grid.x == 0 || grid.y == 0 ||
        grid.z == 0 || grid.y > 65535 || grid.z > 65535 || smem > smem_limit || cluster == 0 || cluster > 8 ||
        grid.x % cluster != 0) {
        last_error = cudaErrorInvalidConfiguration;
        return;
    }
    /* The model's warps and warpgroups are runs of the cluster's fibers. */
    if (cluster > 1 && threads % 128 != 0)
        fail("a cluster launch of blocks that are not whole warpgroups (unsupported)");
    if (L)
        fail("a launch from inside a kernel (dynamic parallelism is unsupported)");

    launch_state state;
    L = &state;
    state.body = &body;
    state.running = nullptr;
    state.sched_stack_bottom = nullptr;
    state.sched_stack_size = 0;
    state.per_block = threads;
    state.blocks.resize(cluster);
    state.fibers.resize(threads * cluster);
    state.warps.resize((threads * cluster + 31) / 32);
    state.warpgroups.resize((threads * cluster + 127) / 128);
    state.dyn_bytes = 0;
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
            for (unsigned x = 0; x < grid.x; x += cluster)
                run_cluster(grid, block, dim3(x, y, z), cluster, smem);
    for (fiber &f : state.fibers)
        munmap(f.stack - page, STACK_BYTES + page);
    L = nullptr;
    current = nullptr;
}

/* ---- Hopper support (cudasim.h) --------------------------------------- */

unsigned long block_serial() { return L && L->running ? running_block().serial : blocks_started; }

static fiber *running_fiber(const char *what)
{
    fiber *f = L ? L->running : nullptr;
    if (!f) {
        std::fprintf(stderr, "cudasim: %s outside a kernel\n", what);
        std::abort();
    }
    return f;
}

unsigned fiber_index() { return (unsigned)(running_fiber("fiber_index") - L->fibers.data()); }

unsigned thread_index() { return (unsigned)(fiber_index() % L->per_block); }

/* As warp_exchange, over the 128 threads of a warpgroup; the last to arrive
 * releases the others and goes on. */
const uint64_t *warpgroup_exchange(uint64_t mine)
{
    fiber *f = running_fiber("a warpgroup collective");
    size_t t = (size_t)(f - L->fibers.data()), g = t / 128;
    if ((g + 1) * 128 > L->fibers.size())
        fail("a warpgroup collective in a warpgroup the block does not fill (128 threads)");
    warpgroup &w = L->warpgroups[g];
    f->parity = w.generation & 1u;
    w.slots[f->parity][t % 128] = mine;
    if (++w.arrived < 128) {
        wait_here(AT_WARPGROUP);
        return w.slots[f->parity];
    }
    w.arrived = 0;
    w.generation++;
    for (size_t i = g * 128; i < g * 128 + 128; i++)
        if (L->fibers[i].st == AT_WARPGROUP)
            L->fibers[i].st = RUNNABLE;
    return w.slots[f->parity];
}

void named_barrier(unsigned id, unsigned threads, bool wait)
{
    fiber *f = running_fiber("a named barrier");
    if (id == 0 || id > 15)
        fail("named barrier id outside 1..15 (0 is __syncthreads's)");
    if (threads == 0 || threads % 32 != 0 || threads > L->per_block)
        fail("named barrier thread count is not a positive multiple of 32 within the block");
    named_barrier_state &nb = L->blocks[f->blk].named[id];
    if (nb.arrived != 0 && nb.expected != threads)
        fail("threads arrive at one named barrier with different thread counts");
    nb.expected = threads;
    if (++nb.arrived == threads) {
        nb.arrived = 0;
        for (fiber &o : L->fibers)
            if (o.st == AT_NAMED && o.named_id == id && o.blk == f->blk)
                o.st = RUNNABLE;
        return;
    }
    if (wait) {
        f->named_id = id;
        wait_here(AT_NAMED);
    }
}

void mbar_init(uint64_t *bar, unsigned count)
{
    running_fiber("mbar_init");
    /* CUDA_STATIC_SHARED arrays are plain statics here, so any 8-byte
     * aligned address is accepted as shared memory. */
    if ((uintptr_t)bar % 8 != 0)
        fail("mbar_init on an address that is not 8-byte aligned");
    if (count == 0 || count >= (1u << 20))
        fail("mbar_init count outside 1..2^20-1");
    L->mbarriers[bar] = mbarrier{count, count, 0, 0, {}};
    *bar = 0;   /* the hardware's opaque state: no longer garbage */
}

void mbar_arrive(uint64_t *bar, unsigned expect_tx)
{
    running_fiber("mbar_arrive");
    check_alive(bar, "an mbarrier arrival");
    mbarrier &m = find_mbarrier(bar);
    if (m.pending == 0)
        fail("an mbarrier arrival beyond its count in one phase (the phase waits only for tx bytes)");
    m.tx += expect_tx;
    m.pending--;
    try_complete(m);
}

void mbar_complete_tx(uint64_t *bar, unsigned bytes, std::function<void()> land)
{
    running_fiber("an asynchronous copy");
    check_alive(bar, "an asynchronous copy");
    mbarrier &m = find_mbarrier(bar);
    if (copies_land == AT_ISSUE) {
        land();
        m.tx -= bytes;
        try_complete(m);
    } else {
        m.deferred.push_back(pending_tx{bytes, std::move(land)});
    }
}

void mbar_wait(uint64_t *bar, unsigned parity)
{
    fiber *f = running_fiber("mbar_wait");
    f->bar = bar;
    f->bar_parity = parity & 1u;
    if (mbar_ready(*f))
        return;
    wait_here(AT_MBAR);
}

void bulk_store(std::function<void()> read)
{
    fiber *f = running_fiber("a bulk store");
    size_t t = (size_t)(f - L->fibers.data()), g = t / 128 * 128;
    for (size_t i = g; i < g + 128 && i < L->fibers.size(); i++)
        if (L->fibers[i].fences == L->fibers[i].fences_seen) {
            char msg[200];
            std::snprintf(msg, sizeof msg,
                          "a bulk store with no fence.proxy.async by thread %zu of its warpgroup since the "
                          "warpgroup's last bulk group: its shared-memory writes are not visible to the copy",
                          i);
            fail(msg);
        }
    if (copies_land == AT_ISSUE) {
        read();
        read = [] {};
    }
    f->bulk_open.push_back(std::move(read));
}

void bulk_commit()
{
    fiber *f = running_fiber("cp.async.bulk.commit_group");
    size_t g = (size_t)(f - L->fibers.data()) / 128 * 128;
    for (size_t i = g; i < g + 128 && i < L->fibers.size(); i++)
        L->fibers[i].fences_seen = L->fibers[i].fences;
    f->bulk_groups.push_back(std::move(f->bulk_open));
    f->bulk_open.clear();
}

void bulk_wait_read(unsigned n)
{
    fiber *f = running_fiber("cp.async.bulk.wait_group.read");
    if (f->bulk_groups.size() > n)
        wait_here(AT_BULK);
    while (f->bulk_groups.size() > n) {
        for (std::function<void()> &read : f->bulk_groups.front())
            read();
        f->bulk_groups.erase(f->bulk_groups.begin());
    }
}

void async_proxy_fence() { running_fiber("fence.proxy.async")->fences++; }

bool shared_window(const void *p, unsigned *window, uint32_t *offset)
{
    const unsigned char *c = static_cast<const unsigned char *>(p);
    const unsigned char *mine = L && L->running ? running_block().dyn_shared : nullptr;
    if (mine && c >= mine && c < mine + L->dyn_bytes) {
        *window = 0;
        *offset = (uint32_t)(c - mine);
        return true;
    }
    if (__start_cudasim_shared && c >= __start_cudasim_shared && c < __stop_cudasim_shared) {
        *window = 1;
        *offset = (uint32_t)(c - __start_cudasim_shared);
        return true;
    }
    return false;
}

unsigned char *shared_window_base(unsigned window)
{
    if (window == 0 && L && L->running)
        return running_block().dyn_shared;
    if (window == 1 && __start_cudasim_shared)
        return __start_cudasim_shared;
    fail("a shared-memory window that does not exist here");
}

/* ---- clusters (cudasim.h) --------------------------------------------- */

unsigned cluster_rank() { return running_fiber("%cluster_ctarank")->blk; }

unsigned cluster_size()
{
    running_fiber("%cluster_nctarank");
    return (unsigned)L->blocks.size();
}

void cluster_sync() { running_fiber("barrier.cluster"), wait_here(AT_CLUSTER); }

void *map_shared(const void *p, unsigned rank)
{
    running_fiber("mapa");
    unsigned window;
    uint32_t offset;
    if (!shared_window(p, &window, &offset) || window != 0)
        fail("mapa of an address outside this block's dynamic shared memory");
    if (rank >= L->blocks.size())
        fail("mapa to a block rank outside the cluster");
    return L->blocks[rank].dyn_shared + offset;
}

}  // namespace cudasim

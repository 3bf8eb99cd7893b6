/* access_stats.cc - cudasim's memory accounting (cudasim.h: memory
 * accounting): groups the lanes' reported addresses into warp requests and
 * costs each in shared-memory wavefronts or global-memory sectors, so that a
 * test can require a kernel's tiles to be read without bank conflicts and
 * loaded in whole sectors on a machine with no GPU. */
#include "cudasim.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <vector>

namespace cudasim {

namespace {

struct request {
    uintptr_t addr[32];
    unsigned bytes[32];
    unsigned reported;            /* lanes that have reported */
    unsigned active;              /* lanes that touch memory */
};

/* The running block: each thread's count of reports per kind, and the
 * requests some lanes have reported and others not yet, by (warp, kind, n). */
struct block_state {
    size_t threads;
    uintptr_t shared_lo, shared_hi;
    std::vector<unsigned> count[ACCESS_KINDS];
    std::map<std::tuple<size_t, int, unsigned>, request> open;
};

block_state block;
access_totals sums[ACCESS_KINDS];

unsigned long long div_up(unsigned long long a, unsigned long long b) { return (a + b - 1) / b; }

/* The 4-byte words a lane's bytes cover; shared addresses relative to
 * dynamic shared memory's start. */
void add_words(std::set<uintptr_t> &words, uintptr_t addr, unsigned bytes, bool shared)
{
    if (shared && addr >= block.shared_lo && addr < block.shared_hi)
        addr -= block.shared_lo;
    for (uintptr_t w = addr / 4; w <= (addr + bytes - 1) / 4; w++)
        words.insert(w);
}

void cost_shared(access_totals &t, const request &r)
{
    unsigned widest = 4;
    for (int l = 0; l < 32; l++)
        if (r.active >> l & 1u)
            widest = std::max(widest, r.bytes[l]);
    const int lanes_per_phase = (int)std::max(1u, 128 / widest);
    for (int first = 0; first < 32; first += lanes_per_phase) {
        std::set<uintptr_t> words;
        for (int l = first; l < first + lanes_per_phase && l < 32; l++)
            if (r.active >> l & 1u)
                add_words(words, r.addr[l], r.bytes[l], true);
        if (words.empty())
            continue;
        unsigned per_bank[32] = {};
        for (uintptr_t w : words)
            per_bank[w % 32]++;
        t.passes += *std::max_element(per_bank, per_bank + 32);
        t.ideal += div_up(words.size(), 32);
    }
}

void cost_global(access_totals &t, const request &r)
{
    std::set<uintptr_t> words, sectors;
    for (int l = 0; l < 32; l++)
        if (r.active >> l & 1u) {
            add_words(words, r.addr[l], r.bytes[l], false);
            for (uintptr_t s = r.addr[l] / 32; s <= (r.addr[l] + r.bytes[l] - 1) / 32; s++)
                sectors.insert(s);
        }
    t.passes += sectors.size();
    t.ideal += div_up(words.size() * 4, 32);
}

void close(access_kind kind, const request &r)
{
    access_totals &t = sums[kind];
    t.requests++;
    if (kind == CP_ASYNC_GLOBAL)
        cost_global(t, r);
    else
        cost_shared(t, r);
}

/* The lanes of warp w: 32, fewer in a block's last partial warp. */
unsigned warp_lanes(size_t w)
{
    size_t n = std::min<size_t>(32, block.threads - w * 32);
    return n == 32 ? 0xffffffffu : (1u << n) - 1;
}

}  // namespace

void record_access(access_kind kind, const void *addr, unsigned bytes, bool active)
{
    const thread_pos *p = current;
    size_t tid = p->thread_idx.x + (size_t)p->block_dim.x * (p->thread_idx.y + (size_t)p->block_dim.y * p->thread_idx.z);
    size_t warp = tid / 32;
    unsigned lane = (unsigned)(tid % 32);
    unsigned n = block.count[kind][tid]++;
    auto key = std::make_tuple(warp, (int)kind, n);
    request &r = block.open[key];
    r.addr[lane] = (uintptr_t)addr;
    r.bytes[lane] = bytes ? bytes : 1;
    r.reported |= 1u << lane;
    if (active)
        r.active |= 1u << lane;
    if (r.reported == warp_lanes(warp)) {
        close(kind, r);
        block.open.erase(key);
    }
}

access_totals totals(access_kind kind) { return sums[kind]; }

void reset_totals()
{
    for (access_totals &t : sums)
        t = access_totals{};
}

void access_block_begin(size_t threads, const void *dyn_shared, size_t dyn_bytes)
{
    block.threads = threads;
    block.shared_lo = (uintptr_t)dyn_shared;
    block.shared_hi = block.shared_lo + dyn_bytes;
    for (std::vector<unsigned> &c : block.count)
        c.assign(threads, 0);
    block.open.clear();
}

/* Requests some lanes never reported (they returned first) are costed with
 * the lanes that did, as the hardware serves a partial warp. */
void access_block_end()
{
    for (const auto &entry : block.open)
        close((access_kind)std::get<1>(entry.first), entry.second);
    block.open.clear();
}

}  // namespace cudasim

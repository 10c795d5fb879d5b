"""The kit's own patterns: what the classic suite never asked for (realloc of many
blocks both ways, realloc(NULL, n), realloc(p, 0)) and textbook stress shapes."""
from __future__ import annotations

import math
import random

from ..trace import MAX_HEAP
from .builder import LiveSet, PatternError, TraceBuilder


def realloc_many(rng: random.Random, steps: int = 20000, buffers: int = 300,
                 max_size: int = 65536, max_live: int = 12_000_000) -> TraceBuilder:
    """Many buffers that grow and shrink by realloc, born by realloc(NULL, n) and often
    killed by realloc(p, 0), with short-lived small blocks in between."""
    b = TraceBuilder(rng)
    slots: dict[int, int | None] = {}   # the buffers drawn so far: a list of all (10**12) did not fit
    small: int | None = None
    for _ in range(steps):
        k = rng.randrange(buffers)
        i = slots.get(k)
        if i is None:
            slots[k] = b.realloc_null(rng.randint(1, 512))
        else:
            cur = b.live[i]
            r = rng.random()
            if r < 0.40:
                new = min(max_size, int(cur * rng.uniform(1.1, 2.0)) + 1)
            elif r < 0.65:
                new = max(1, int(cur * rng.uniform(0.2, 0.9)))
            elif r < 0.85:
                new = min(max_size, cur + rng.randint(1, 64))
            else:
                new = 0
            if b.live_bytes + new - cur > max_live:
                new = 0
            if new == 0 and rng.random() < 0.5:
                b.free(i)
            else:
                b.realloc(i, new)
            slots[k] = None if new == 0 else i
        if small is not None:
            b.free(small)
        small = b.alloc(rng.randint(8, 96)) if rng.random() < 0.5 else None
    if small is not None:
        b.free(small)
    b.free_all()
    return b


def realloc_strings(rng: random.Random, appends: int = 30000, builders: int = 1500,
                    finish: float = 0.02) -> TraceBuilder:
    """String builders appending 1-80 bytes at a time by realloc; finished strings are
    sometimes kept, sometimes dropped with realloc(p, 0)."""
    b = TraceBuilder(rng)
    open_ = [b.realloc_null(rng.randint(1, 16)) for _ in range(builders)]
    done = LiveSet(rng)
    for _ in range(appends):
        k = rng.randrange(builders)
        i = open_[k]
        b.realloc(i, b.live[i] + rng.randint(1, 80))
        if rng.random() < finish:
            if rng.random() < 0.5:
                b.realloc(i, 0)
            else:
                done.add(i)
                if len(done) > builders:
                    b.free(done.pop_random())
            open_[k] = b.realloc_null(rng.randint(1, 16))
    b.free_all()
    return b


def realloc_vectors(rng: random.Random, vectors: int = 40, rounds: int = 6,
                    max_elems: int = 16384, small_per_push: float = 0.3) -> TraceBuilder:
    """Vectors that double their capacity as they fill, shrink to fit when done, and
    are freed later, with small allocations interleaved."""
    b = TraceBuilder(rng)
    smalls = LiveSet(rng)
    kept: list[int] = []
    for _ in range(rounds):
        vecs = [(b.realloc_null(16 * rng.choice([1, 2, 4])), rng.randint(64, max_elems))
                for _ in range(vectors)]
        state = [[v, 1, n] for v, n in vecs]     # id, length, target length
        while state:
            at = rng.randrange(len(state))
            v, length, target = state[at]
            step = max(1, length // 8)
            length += step
            if 16 * length > b.live[v]:
                b.realloc(v, 2 * b.live[v])
            if rng.random() < small_per_push:
                smalls.add(b.alloc(rng.randint(16, 200)))
                if len(smalls) > 2000:
                    b.free(smalls.pop_random())
            if length >= target:
                b.realloc(v, 16 * length)      # shrink to fit
                kept.append(v)
                state.pop(at)
            else:
                state[at][1] = length
        rng.shuffle(kept)
        for v in kept[: len(kept) // 2]:
            b.free(v)
        kept = kept[len(kept) // 2:]
    b.free_all()
    return b


def fit_stress(rng: random.Random, big: int = 14_680_064, blocks: int = 14000,
               first: int = 10000, size: int = 1024) -> TraceBuilder:
    """The operating-systems course's fit-policy stress test: a big block freed first,
    blocks of 1 KiB with every tenth swapped for 100 bytes, a 10- and a 1-byte block,
    nine of every ten of the first 10,000 freed with 150 bytes at every tenth, then
    the 100-byte blocks freed."""
    if first > blocks:          # it frees among the first `first` of the `blocks` allocated
        raise PatternError(f"'first' ({first}) is above 'blocks' ({blocks})")
    b = TraceBuilder(rng)
    b.free(b.alloc(big))
    kib: dict[int, int] = {}
    hundreds = []
    for n in range(blocks):
        kib[n] = b.alloc(size)
        if n % 10 == 9:
            b.free(kib.pop(n))
            hundreds.append(b.alloc(100))
    b.free(b.alloc(10))
    b.free(b.alloc(1))
    for n in range(first):
        if n % 10 == 9:
            b.alloc(150)
        else:
            b.free(kib.pop(n))
    for i in hundreds:
        b.free(i)
    b.free_all(order="fifo")
    return b


def size_sweep(rng: random.Random, max_heap: int = MAX_HEAP, rounds: int = 3) -> TraceBuilder:
    """Powers of two from 2 bytes to the largest the heap allows, each alone and with
    its neighbours (2^k - 1, 2^k + 1), then all the small ones live at once."""
    b = TraceBuilder(rng)
    limit = int(max_heap * 0.8)          # room for the allocator's own bytes
    top = int(math.log2(limit))
    for _ in range(rounds):
        for k in range(1, top + 1):
            for s in (2**k - 1, 2**k, 2**k + 1):
                if 0 < s <= limit:
                    b.free(b.alloc(s))
    held = [b.alloc(2**k) for k in range(1, top - 2)]
    for k in range(1, top - 2):
        held.append(b.alloc(2**k + rng.randint(1, 2**k)))
    rng.shuffle(held)
    for i in held:
        b.free(i)
    for k in range(top, 0, -1):
        b.free(b.alloc(2**k))
    return b


def tiny_flood(rng: random.Random, allocs: int = 50000, max_size: int = 16,
               live: int = 30000) -> TraceBuilder:
    """Blocks of 1 to 16 bytes by the tens of thousands: per-block overhead is all there is."""
    b = TraceBuilder(rng)
    ids = LiveSet(rng)
    for k in range(allocs):
        ids.add(b.alloc(rng.randint(1, max_size)))
        if len(ids) > live or (k > live and rng.random() < 0.5):
            b.free(ids.pop_random())
    b.free_all(order="fifo")
    return b


def large_churn(rng: random.Random, allocs: int = 3000, min_size: int = 65536,
                max_size: int = 2 << 20, max_live: int = 12_000_000) -> TraceBuilder:
    """Blocks of 64 KiB to 2 MiB allocated and freed at random: large-block placement,
    coalescing and giving room back to the next large request."""
    b = TraceBuilder(rng)
    ids = LiveSet(rng)
    lo, hi = math.log(min_size), math.log(max_size)
    for _ in range(allocs):
        size = int(math.exp(rng.uniform(lo, hi)))
        while len(ids) and (b.live_bytes + size > max_live or rng.random() < 0.35):
            b.free(ids.pop_random())
        ids.add(b.alloc(size))
    b.free_all()
    return b


def long_short(rng: random.Random, allocs: int = 25000, long_share: float = 0.08,
               burst: int = 40) -> TraceBuilder:
    """Long-lived blocks sprinkled among bursts of short-lived ones: each long-lived block
    pins the space around it, so freed bursts leave holes between survivors."""
    b = TraceBuilder(rng)
    long_ids = LiveSet(rng)
    sizes = [16, 32, 48, 64, 100, 128, 256, 512, 1000, 2048, 4096]
    k = 0
    while k < allocs:
        n = rng.randint(1, burst)
        batch = []
        for _ in range(n):
            i = b.alloc(rng.choice(sizes) + rng.randint(0, 15))
            (long_ids.add if rng.random() < long_share else batch.append)(i)
            k += 1
        rng.shuffle(batch)
        for i in batch:
            b.free(i)
        if len(long_ids) > 1500:
            for _ in range(300):
                b.free(long_ids.pop_random())
    b.free_all()
    return b


PEAK_DRAIN_RANGES = [(256, 4096), (2048, 32768), (128, 2048), (4096, 65536)]    # each phase's sizes, in turn


def peak_drain(rng: random.Random, phases: int = 3, peak: int = 12_000_000,
               keep: float = 0.1) -> TraceBuilder:
    """Build up to a peak, drain to a tenth, build again with other sizes, and so on:
    later phases must reuse the holes the earlier ones left."""
    b = TraceBuilder(rng)
    ids = LiveSet(rng)
    for p in range(phases):
        lo, hi = PEAK_DRAIN_RANGES[p % len(PEAK_DRAIN_RANGES)]
        while True:
            size = int(math.exp(rng.uniform(math.log(lo), math.log(hi))))
            if b.live_bytes + size > peak:
                break
            ids.add(b.alloc(size))
        while b.live_bytes > keep * peak and len(ids):
            b.free(ids.pop_random())
    b.free_all()
    return b

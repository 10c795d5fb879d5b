"""Patterns shaped like the later 64-bit lab's scored traces: many small blocks
(1 to a few hundred bytes) with long-lived sets, plus the odd large table."""
from __future__ import annotations

import heapq
import math
import random

from .builder import LiveSet, TraceBuilder


def bdd(rng: random.Random, allocs: int = 44000, gc_every: int = 8000,
        gc_keep: float = 0.7, death: float = 0.15, table_start: int = 1024) -> TraceBuilder:
    """A BDD package: 24- and 32-byte nodes that live long and die in garbage
    collections, short strings, and a unique table that doubles (old copy freed)."""
    b = TraceBuilder(rng)
    nodes = LiveSet(rng)
    cap = table_start
    table = b.alloc(8 * cap + 24)
    sizes, weights = [6, 9, 16, 24, 32], [0.05, 0.07, 0.05, 0.66, 0.17]
    for k in range(1, allocs):
        nodes.add(b.alloc(rng.choices(sizes, weights)[0]))
        if len(nodes) > 2 and rng.random() < death:
            b.free(nodes.pop_random())
        if len(nodes) > 4 * cap and cap < 4 * table_start:
            cap *= 2
            bigger = b.alloc(8 * cap + 24)
            b.free(table)
            table = bigger
        if k % gc_every == 0:
            for _ in range(int(len(nodes) * (1 - gc_keep))):
                b.free(nodes.pop_random())
    b.free_all()
    return b


def cbit(rng: random.Random, allocs: int = 45000, long_share: float = 0.3,
         mean_life: float = 12.0, phase: int = 9000, vectors: int = 6) -> TraceBuilder:
    """Bit-vector circuit code: mostly 1-, 8- and 56-byte temporaries that die soon,
    a long-lived set pruned by phase, and a few arrays grown by realloc."""
    b = TraceBuilder(rng)
    sizes = [1, 4, 8, 16, 24, 40, 56, 72, 128, 256, 1024, 3072]
    weights = [0.14, 0.04, 0.33, 0.08, 0.06, 0.07, 0.18, 0.04, 0.03, 0.01, 0.01, 0.01]
    due: list[tuple[int, int]] = []          # (op index to free at, id)
    keep = LiveSet(rng)
    grow = {b.alloc(8): 8 for _ in range(vectors)}
    grow_every = allocs // (3 * vectors) + 1
    for k in range(allocs):
        i = b.alloc(rng.choices(sizes, weights)[0])
        if rng.random() < long_share:
            keep.add(i)
        else:
            heapq.heappush(due, (k + 1 + int(rng.expovariate(1 / mean_life)), i))
        while due and due[0][0] <= k:
            b.free(heapq.heappop(due)[1])
        if k % grow_every == grow_every - 1:
            v = rng.choice(list(grow))
            if grow[v] < 4024:
                grow[v] = min(4024, grow[v] * 2 + 8)
                b.realloc(v, grow[v])
        if k % phase == phase - 1:
            for _ in range(len(keep) // 2):
                b.free(keep.pop_random())
    b.free_all()
    return b


def _zipf_words(rng: random.Random, vocab: int) -> tuple[list[int], list[float]]:
    lengths = [max(1, min(14, int(rng.gauss(4.5, 2.2)))) for _ in range(vocab)]
    weights = [1.0 / (r + 1) for r in range(vocab)]
    return lengths, weights


def ngram(rng: random.Random, tokens: int = 14000, vocab: int = 900, n: int = 2,
          table_start: int = 64) -> TraceBuilder:
    """Counting n-grams of a Zipf text: each n-gram string is read into a fresh block,
    kept with a 24-byte node if new and freed if seen; one hash table doubles, its old
    copy freed, and the hole it leaves is hard to reuse for tiny strings."""
    b = TraceBuilder(rng)
    lengths, weights = _zipf_words(rng, vocab)
    seen: set[tuple[int, ...]] = set()
    cap = table_start
    table = b.alloc(8 * cap)
    window: list[int] = []
    words = rng.choices(range(vocab), weights, k=tokens)
    for w in words:
        window = (window + [w])[-n:]
        key = tuple(window)
        s = b.alloc(sum(lengths[x] for x in key) + len(key))
        if key in seen:
            b.free(s)
            continue
        seen.add(key)
        b.alloc(24)
        if len(seen) > cap:
            cap = 2 * cap + 1
            bigger = b.alloc(8 * cap)
            b.free(table)
            table = bigger
    b.free_all(order="lifo")
    return b


def _struct_size(rng: random.Random) -> int:
    return 8 * max(1, min(31, int(rng.expovariate(1 / 9.0)) + 1))


def _string_size(rng: random.Random) -> int:
    return max(1, min(255, int(rng.triangular(1, 256, 40))))


def _array_size(rng: random.Random) -> int:
    count = int(math.exp(rng.uniform(0, math.log(3000))))
    return min(24988, max(8, count * rng.choice([1, 2, 4, 8, 8, 16])))


SYN_KINDS = {"struct": [_struct_size], "string": [_string_size], "array": [_array_size],
             "mix": [_struct_size, _string_size, _array_size]}


def syn(rng: random.Random, kind: str = "mix", allocs: int = 40000, live: int = 10000,
        max_live: int = 14_000_000) -> TraceBuilder:
    """Synthetic: fill to a live set, then free-one-allocate-one at random, then drain.
    The live set is trimmed to fit max_live bytes (the lab's array trace peaked at 31 MB)."""
    b = TraceBuilder(rng)
    makers = SYN_KINDS[kind]
    ids = LiveSet(rng)
    for k in range(allocs):
        size = rng.choice(makers)(rng)
        if k >= live:
            b.free(ids.pop_random())
        while b.live_bytes + size > max_live:
            b.free(ids.pop_random())
        ids.add(b.alloc(size))
    b.free_all()
    return b

"""Patterns shaped like the eleven classic CS:APP traces (see traces/README.md).

Classic traces gave every block a fresh id (ids = mallocs); these do too.
"""
from __future__ import annotations

import math
import random

from .builder import LiveSet, PatternError, TraceBuilder


SMALLEST = 7        # the least of the palette's spread sizes


def _palette(rng: random.Random, hot: list[tuple[int, float]], n_sizes: int,
             max_size: int) -> tuple[list[int], list[float]]:
    """A few hot sizes with fixed shares, the rest spread log-uniformly up to max_size."""
    sizes = [s for s, _ in hot]
    weights = [w for _, w in hot]
    rest = 1.0 - sum(weights)
    # the others are drawn from [SMALLEST, max_size] until enough differ: too few there drew forever
    wanted = n_sizes - len(sizes)
    there = max_size - SMALLEST + 1 - sum(SMALLEST <= s <= max_size for s in sizes)
    if wanted > 0 and there < wanted:
        raise PatternError(f"'sizes' ({n_sizes}) wants {wanted} sizes besides the hot ones, and only "
                           f"{max(there, 0)} lie from {SMALLEST} to 'max_size' ({max_size})")
    others = {max_size}
    while len(others) < n_sizes - len(sizes):
        s = int(math.exp(rng.uniform(math.log(SMALLEST), math.log(max_size))))
        if s not in sizes:
            others.add(s)
    others_l = sorted(others)
    sizes += others_l
    weights += [rest / len(others_l)] * len(others_l)
    return sizes, weights


def program(rng: random.Random, allocs: int = 2800, hot_share: float = 0.74,
            sizes: int = 26, max_size: int = 21604, peak_blocks: int = 900,
            lifo: float = 0.7) -> TraceBuilder:
    """A compiler-like mix: mostly 4072-byte obstack chunks, then 72 and 160 bytes;
    the live set rises and falls in waves (build a structure, drop most of it)."""
    b = TraceBuilder(rng, reuse_ids=False)
    rest = (1.0 - hot_share) / 2
    palette, weights = _palette(rng, [(4072, hot_share), (72, rest * 0.55), (160, rest * 0.3)],
                                sizes, max_size)
    stack: list[int] = []            # live ids, most recent last
    left = allocs
    for s in (2040, 2040, 48, 4072):  # how all four classic program traces begin
        stack.append(b.alloc(s))
        left -= 1
    while left > 0:
        target = rng.randint(peak_blocks // 4, peak_blocks)
        while left > 0 and len(stack) < target:
            stack.append(b.alloc(rng.choices(palette, weights)[0]))
            left -= 1
            if stack and rng.random() < 0.15:   # a short-lived temporary
                b.free(stack.pop())
        low = rng.randint(0, max(1, target // 3))
        while len(stack) > low:
            at = len(stack) - 1 if rng.random() < lifo else rng.randrange(len(stack))
            b.free(stack.pop(at))
    while stack:
        b.free(stack.pop())
    return b


def coalescing(rng: random.Random, rounds: int = 2400, size: int = 4095) -> TraceBuilder:
    """Two neighbours allocated and freed, then one block of their sum, repeated."""
    b = TraceBuilder(rng, reuse_ids=False)
    for _ in range(rounds):
        x, y = b.alloc(size), b.alloc(size)
        b.free(x)
        b.free(y)
        b.free(b.alloc(2 * size))
    return b


def uniform_random(rng: random.Random, allocs: int = 2400, max_size: int = 32768,
                   alloc_bias: float = 0.62, max_live: int = 15_000_000) -> TraceBuilder:
    """Sizes uniform in [1, max_size); each block freed at a random later point."""
    b = TraceBuilder(rng, reuse_ids=False)
    live = LiveSet(rng)
    left = allocs
    top = min(max_size, max_live + 1)   # a larger size never fits: drawn, it only spun (max_live=1)
    while left > 0 or len(live):
        size = rng.randrange(1, top)
        want = left > 0 and (not len(live) or rng.random() < alloc_bias)
        if want and b.live_bytes + size <= max_live:
            live.add(b.alloc(size))
            left -= 1
        elif len(live):
            b.free(live.pop_random())
    return b


def binary(rng: random.Random, pairs: int = 2000, small: int = 64, large: int = 448,
           new: int = 512) -> TraceBuilder:
    """Alternate small and large, free every large, then ask for blocks just too big for
    the holes: the fragmentation trap."""
    b = TraceBuilder(rng, reuse_ids=False)
    smalls, larges = [], []
    for _ in range(pairs):
        smalls.append(b.alloc(small))
        larges.append(b.alloc(large))
    for i in larges:
        b.free(i)
    news = [b.alloc(new) for _ in range(pairs)]
    for i in smalls + news:
        b.free(i)
    return b


def growing_buffer(rng: random.Random, start: int = 512, step: int = 128, steps: int = 4799,
                   small: int = 128) -> TraceBuilder:
    """One buffer grown by realloc, step by step, with a short-lived small block between."""
    b = TraceBuilder(rng, reuse_ids=False)
    buf = b.alloc(start)
    prev = b.alloc(small)
    for k in range(1, steps + 1):
        b.realloc(buf, start + step * k)
        b.free(prev)
        prev = b.alloc(small)
    b.free(buf)
    b.free(prev)
    return b

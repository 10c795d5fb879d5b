"""TraceBuilder: the bookkeeping every pattern needs, so patterns read as the workload.

It hands out ids (the lowest free one, so ids are reused only after a free; or a
fresh id per block, as the classic traces did), tracks live blocks and their
sizes, and refuses, by assertion, any op the driver would reject.
"""
from __future__ import annotations

import heapq
import random

# MAX_OPS: the most ops one generated trace may have (make bench-traces makes 10 M; the suite's
# largest generated trace has under 100 k).
from ..trace import CLASSIC, LAB64, MAX_HEAP, MAX_OPS, SUGGESTED_HEAP, Header, Trace, new_ops


class PatternError(ValueError):
    """An unknown pattern or parameter, or parameters that make no valid trace; the
    message says which and what is allowed."""


def too_many_ops(least: int = 0) -> PatternError | None:
    """The error for a trace of LEAST ops, or of one op past the limit (0); None when it fits.
    MAX_OPS is looked up here at each call, so the limit has one home."""
    if least and least <= MAX_OPS:
        return None
    at_least = f" (at least {least:,})" if least else ""
    return PatternError(f"the trace would have more than {MAX_OPS:,} ops{at_least}, the most mmtrace "
                        "gen makes; use smaller counts")


class TraceBuilder:
    def __init__(self, rng: random.Random, reuse_ids: bool = True):
        self.rng = rng
        self.reuse_ids = reuse_ids
        self.kinds, self.ids, self.sizes = new_ops()
        self.live: dict[int, int] = {}       # id -> size, in allocation order
        self._free_ids: list[int] = []
        self._next_id = 0
        self.live_bytes = 0
        self.peak_bytes = 0

    # ---------------------------------------------------------------- ids
    def _new_id(self) -> int:
        if self.reuse_ids and self._free_ids:
            return heapq.heappop(self._free_ids)
        self._next_id += 1
        return self._next_id - 1

    def _retire(self, i: int) -> None:
        self.live_bytes -= self.live.pop(i)
        if self.reuse_ids:
            heapq.heappush(self._free_ids, i)

    def _emit(self, kind: str, i: int, size: int) -> None:
        if len(self.kinds) >= MAX_OPS:
            raise too_many_ops()
        if size > MAX_HEAP:
            raise PatternError(f"a request of {size:,} bytes is larger than the driver's heap "
                               f"({MAX_HEAP:,} bytes); use smaller sizes")
        if self.live_bytes > MAX_HEAP:       # no allocator could hold it: alloc_failed for all
            raise PatternError(f"the live payload would reach {self.live_bytes:,} bytes, more than "
                               f"the driver's heap ({MAX_HEAP:,} bytes); use a smaller live set")
        self.kinds.append(ord(kind))
        self.ids.append(i)
        self.sizes.append(size)
        self.peak_bytes = max(self.peak_bytes, self.live_bytes)

    # ---------------------------------------------------------------- ops
    def alloc(self, size: int) -> int:
        assert size > 0
        i = self._new_id()
        self.live[i] = size
        self.live_bytes += size
        self._emit("a", i, size)
        return i

    def realloc_null(self, size: int) -> int:
        assert size > 0
        i = self._new_id()
        self.live[i] = size
        self.live_bytes += size
        self._emit("n", i, size)
        return i

    def free(self, i: int) -> None:
        self._retire(i)
        self._emit("f", i, 0)

    def realloc(self, i: int, size: int) -> None:
        """realloc(p, size); size 0 frees the block."""
        old = self.live[i]
        if size == 0:
            self._retire(i)
        else:
            self.live[i] = size
            self.live_bytes += size - old
        self._emit("r", i, size)

    def free_all(self, order: str = "random") -> None:
        ids = list(self.live)
        if order == "random":
            self.rng.shuffle(ids)
        elif order == "lifo":
            ids.reverse()
        for i in ids:
            self.free(i)

    # ---------------------------------------------------------------- result
    def __len__(self) -> int:
        return len(self.kinds)

    def trace(self, order: str = CLASSIC, weight: int = 1) -> Trace:
        assert order in (CLASSIC, LAB64)
        n_ids = max(self.ids) + 1 if len(self.ids) else 0
        extra = SUGGESTED_HEAP if order == CLASSIC else self.peak_bytes
        return Trace(Header(order, weight, n_ids, len(self.kinds), extra),
                     self.kinds, self.ids, self.sizes)


class LiveSet:
    """A set of ids with O(1) add, remove and uniform random pick (swap-remove)."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self._items: list[int] = []
        self._where: dict[int, int] = {}

    def __len__(self) -> int:
        return len(self._items)

    def __contains__(self, i: int) -> bool:
        return i in self._where

    def add(self, i: int) -> None:
        self._where[i] = len(self._items)
        self._items.append(i)

    def remove(self, i: int) -> None:
        at = self._where.pop(i)
        last = self._items.pop()
        if last != i:
            self._items[at] = last
            self._where[last] = at

    def pick(self) -> int:
        return self._items[self.rng.randrange(len(self._items))]

    def pop_random(self) -> int:
        i = self.pick()
        self.remove(i)
        return i

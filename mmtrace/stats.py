"""What a trace asks of an allocator: counts, request sizes, and live payload over time.

Pure: `measure` takes a Trace and returns a frozen TraceStats; the CLI prints it.
Live payload and live blocks are computed with numpy in one vectorised pass: in
a valid trace the op before any f or r on an id is the one that set its size,
so a stable sort by id gives every op's previous size without a replay loop.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from .trace import Trace

_A, _F, _R, _N = (ord(c) for c in "afrn")
PERCENTILES = (10, 50, 90)


@dataclass(frozen=True)
class TraceStats:
    ops: int
    ids: int                 # ids the ops use (max id + 1)
    mallocs: int             # a
    frees: int               # f
    reallocs: int            # r with a size > 0
    realloc_null: int        # n: realloc(NULL, size)
    realloc_zero: int        # r ID 0: realloc(p, 0)
    size_min: int
    size_p10: int
    size_median: int
    size_p90: int
    size_max: int
    distinct_sizes: int
    share_le_32: float       # fraction of requests of at most 32 bytes
    peak_live_bytes: int
    peak_live_blocks: int
    never_freed: int

    def to_json(self) -> dict:
        return asdict(self)

    @staticmethod
    def from_json(d: dict) -> "TraceStats":
        return TraceStats(**d)


def arrays(trace: Trace) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    kinds = np.frombuffer(bytes(trace.kinds), dtype=np.uint8)
    ids = np.frombuffer(trace.ids, dtype=np.int64) if len(trace) else np.zeros(0, np.int64)
    sizes = np.frombuffer(trace.sizes, dtype=np.int64) if len(trace) else np.zeros(0, np.int64)
    return kinds, ids, sizes


def id_order(ids: np.ndarray) -> np.ndarray:
    """Op indices sorted by id, stable.  Ids are below 2^32, so two 16-bit radix passes
    (numpy's stable sort on uint16 is a radix sort) beat one comparison sort."""
    order = np.argsort((ids & 0xFFFF).astype(np.uint16), kind="stable")
    if len(ids) and ids.max() > 0xFFFF:
        high = (ids[order] >> 16).astype(np.uint16)
        order = order[np.argsort(high, kind="stable")]
    return order


def live_series(trace: Trace) -> tuple[np.ndarray, np.ndarray]:
    """Live payload bytes and live blocks after each op."""
    kinds, ids, sizes = arrays(trace)
    order = id_order(ids)
    sorted_sizes = sizes[order]
    prev = np.empty_like(sorted_sizes)
    if len(prev):
        prev[0] = 0
        prev[1:] = sorted_sizes[:-1]
        same = np.empty(len(order), dtype=bool)
        same[0] = False
        same[1:] = ids[order][1:] == ids[order][:-1]
        prev[~same] = 0
    before = np.empty_like(sizes)
    before[order] = prev
    starts = (kinds == _A) | (kinds == _N)
    before[starts] = 0
    after = np.where(kinds == _F, 0, sizes)
    live_bytes = np.cumsum(after - before)
    ends = (kinds == _F) | ((kinds == _R) & (sizes == 0))
    live_blocks = np.cumsum(starts.astype(np.int64) - ends.astype(np.int64))
    return live_bytes, live_blocks


def request_sizes(trace: Trace) -> np.ndarray:
    kinds, _, sizes = arrays(trace)
    asked = (kinds == _A) | (kinds == _N) | ((kinds == _R) & (sizes > 0))
    return sizes[asked]


def measure(trace: Trace) -> TraceStats:
    kinds, ids, sizes = arrays(trace)
    req = request_sizes(trace)
    live_bytes, live_blocks = live_series(trace)
    pct = np.percentile(req, PERCENTILES, method="lower") if len(req) else [0, 0, 0]
    is_r = kinds == _R
    return TraceStats(
        ops=len(trace),
        ids=int(ids.max()) + 1 if len(ids) else 0,
        mallocs=int(np.count_nonzero(kinds == _A)),
        frees=int(np.count_nonzero(kinds == _F)),
        reallocs=int(np.count_nonzero(is_r & (sizes > 0))),
        realloc_null=int(np.count_nonzero(kinds == _N)),
        realloc_zero=int(np.count_nonzero(is_r & (sizes == 0))),
        size_min=int(req.min()) if len(req) else 0,
        size_p10=int(pct[0]),
        size_median=int(pct[1]),
        size_p90=int(pct[2]),
        size_max=int(req.max()) if len(req) else 0,
        distinct_sizes=int(len(np.unique(req))),
        share_le_32=round(float(np.count_nonzero(req <= 32)) / len(req), 4) if len(req) else 0.0,
        peak_live_bytes=int(live_bytes.max()) if len(live_bytes) else 0,
        peak_live_blocks=int(live_blocks.max()) if len(live_blocks) else 0,
        never_freed=int(live_blocks[-1]) if len(live_blocks) else 0,
    )


def render(name: str, s: TraceStats) -> list[str]:
    """Lines for one trace, for people."""
    return [
        f"{name}",
        f"  ops {s.ops:,}  ids {s.ids:,}  mallocs {s.mallocs:,}  frees {s.frees:,}  "
        f"reallocs {s.reallocs:,}  realloc(NULL) {s.realloc_null:,}  realloc(p,0) {s.realloc_zero:,}",
        f"  sizes min {s.size_min:,}  p10 {s.size_p10:,}  median {s.size_median:,}  "
        f"p90 {s.size_p90:,}  max {s.size_max:,}  distinct {s.distinct_sizes:,}  "
        f"<=32 B {100 * s.share_le_32:.0f}%",
        f"  peak live {s.peak_live_bytes:,} B in at most {s.peak_live_blocks:,} blocks; "
        f"never freed {s.never_freed:,}",
    ]

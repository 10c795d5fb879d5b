"""Turn the recorder's raw event log into a trace the driver can replay.

The log holds real addresses; a trace holds ids.  Conversion gives each live
address the lowest free id (so an id is reused only after its block is freed),
and it makes the recording fit the simulated heap:
  - a request larger than max_size is cut to max_size ("capped");
  - a block that would push live payload past max_live is left out, with every
    later op on it ("over budget");
  - a free or realloc of an address the log never handed out (memory from before
    the recorder started) is dropped ("unknown");
  - realloc(NULL, 0) is written as malloc(0) (`a ID 0`), which the driver allows;
  - blocks still live at the end are freed, so the trace is balanced;
  - with skip=N the first N events (say, an interpreter's start-up) are ignored, so
    later frees of what they allocated count as "unknown".
Everything changed or dropped is counted in the ConvertReport.
"""
from __future__ import annotations

import heapq
import os
from dataclasses import asdict, dataclass
from functools import cached_property
from pathlib import Path

import numpy as np

from .trace import LAB64, MAX_HEAP, MAX_OPS, SUGGESTED_HEAP, Header, Trace, new_ops

MAGIC = b"MMTRAW01"
RECORD = np.dtype([("kind", "<u4"), ("tid", "<u4"), ("result", "<u8"), ("size", "<u8"),
                   ("arg", "<u8")])
EV_MALLOC, EV_CALLOC, EV_REALLOC, EV_FREE = 1, 2, 3, 4
EV_ALIGNED = (5, 6, 7, 8, 9)   # memalign, posix_memalign, aligned_alloc, valloc, pvalloc
LOG_CUT = 1                    # a header flag: the log could not grow (recorder.c)
LOG_FULL = 2                   # a header flag: the log reached its most events (MMTRACE_MAX_EVENTS)
# Default budget: a fifth of the heap is left for the allocator's overhead.
DEFAULT_MAX_LIVE = MAX_HEAP * 4 // 5
DEFAULT_MAX_SIZE = 4 << 20


class RawLogError(ValueError):
    pass


@dataclass(frozen=True)
class RawLog:
    path: str
    pid: int
    ppid: int
    count: int                 # events logged
    cut: bool = False          # the recorder stopped: the log could not grow (a full disk)
    image: int = 0             # 0, or n for the n-th program the process exec'd (raw.<pid>.<n>)
    full: bool = False         # the recorder stopped: the log reached its most events

    @cached_property
    def events(self) -> np.ndarray:
        """The events, mapped from the file (not read) on first use, while it exists: only the
        chosen log's are, so a build's thousands of logs hold no descriptor and no memory."""
        if not self.count:
            return np.zeros(0, dtype=RECORD)
        return np.memmap(self.path, dtype=RECORD, mode="r", offset=RECORD.itemsize,
                         shape=(self.count,))

    @property
    def threads(self) -> int:
        return int(len(np.unique(self.events["tid"]))) if self.count else 0


# Events converted per step: a long recording's log (32 bytes an event) is mapped, not read,
# and only this many events at a time become Python numbers.
CHUNK = 1 << 20


def _logged(fd: int, records: int) -> int:
    """How many events follow the header: the log is appended in order under one lock, so its
    records are events up to the first of kind 0 (the end), found by halving with pread. The
    file past the end is never read through a mapping: on a full tmpfs its sparse tail would
    fault (SIGBUS) even when read."""
    lo, hi = 1, records                  # the first record of kind 0 is in [lo, hi]
    while lo < hi:
        mid = (lo + hi) // 2
        if int.from_bytes(os.pread(fd, 4, mid * RECORD.itemsize), "little"):
            lo = mid + 1
        else:
            hi = mid
    return lo - 1


def read_raw(path: Path) -> RawLog:
    with open(path, "rb") as f:
        first = f.read(RECORD.itemsize)
        if len(first) < RECORD.itemsize or first[:len(MAGIC)] != MAGIC:
            raise RawLogError(f"{path}:1: not a recorder log (no {MAGIC.decode()} header)")
        count = _logged(f.fileno(), os.fstat(f.fileno()).st_size // RECORD.itemsize)
    head = np.frombuffer(first, dtype=RECORD)[0]
    suffix = Path(path).name.split(".")[2:]
    image = int(suffix[0]) if suffix and suffix[0].isdigit() else 0
    return RawLog(str(path), int(head["result"]), int(head["size"]), count,
                  bool(int(head["arg"]) & LOG_CUT), image, bool(int(head["arg"]) & LOG_FULL))


@dataclass(frozen=True)
class ConvertReport:
    events: int = 0            # events converted (after the skipped ones)
    skipped: int = 0
    threads: int = 0
    ops: int = 0
    capped: int = 0            # requests cut to max_size
    over_budget: int = 0       # blocks left out to stay under max_live (and their ops)
    unknown: int = 0           # frees/reallocs of addresses never seen
    failed: int = 0            # calls that returned NULL (nothing to replay)
    zero_sizes: int = 0        # malloc(0) and friends (kept: the driver allows size 0)
    missed_frees: int = 0      # an address handed out again while still live here
    freed_at_end: int = 0
    truncated: bool = False    # stopped at max_ops
    log_cut: bool = False      # the recorder's log could not grow: later events are missing
    log_full: int = 0          # the events the log stopped at, its most (0: it did not)

    def to_json(self) -> dict:
        return asdict(self)

    @staticmethod
    def from_json(d: dict) -> "ConvertReport":
        return ConvertReport(**d)

    def summary(self) -> str:
        parts = [f"{self.events:,} events from {self.threads} thread(s) -> {self.ops:,} ops"]
        if self.skipped:
            parts.append(f"first {self.skipped:,} events skipped")
        for label, n in (("capped", self.capped), ("over budget", self.over_budget),
                         ("unknown pointers", self.unknown), ("failed calls", self.failed),
                         ("zero-size", self.zero_sizes), ("missed frees", self.missed_frees),
                         ("freed at end", self.freed_at_end)):
            if n:
                parts.append(f"{label} {n:,}")
        if self.truncated:
            parts.append("truncated at max ops")
        elif self.log_full:
            parts.append(f"the recorder stopped at its most, {self.log_full:,} events: later "
                         "calls missing")
        if self.log_cut:
            parts.append("the recorder's log could not grow: later calls missing")
        return "; ".join(parts)


class _Converter:
    def __init__(self, max_size: int, max_live: int):
        self.max_size, self.max_live = max_size, max_live
        self.kinds, self.ids, self.sizes = new_ops()
        self.where: dict[int, tuple[int, int]] = {}   # address -> (id, size)
        self.left_out: set[int] = set()
        self.free_ids: list[int] = []
        self.next_id = 0
        self.live = self.peak = 0
        self.n = dict.fromkeys(("capped", "over_budget", "unknown", "failed", "zero_sizes",
                                "missed_frees"), 0)

    def emit(self, k: str, i: int, s: int) -> None:
        self.kinds.append(ord(k))
        self.ids.append(i)
        self.sizes.append(s)
        self.peak = max(self.peak, self.live)

    def size(self, s: int) -> int:
        if s == 0:
            self.n["zero_sizes"] += 1
        if s > self.max_size:
            self.n["capped"] += 1
            return self.max_size
        return s

    def release(self, addr: int, kind: str = "f") -> None:
        i, s = self.where.pop(addr)
        self.live -= s
        heapq.heappush(self.free_ids, i)
        self.emit(kind, i, 0)

    def start(self, addr: int, size: int, kind: str) -> None:
        if addr in self.where:               # freed behind the recorder's back
            self.n["missed_frees"] += 1
            self.release(addr)
        self.left_out.discard(addr)
        s = self.size(size)
        if self.live + s > self.max_live:
            self.n["over_budget"] += 1
            self.left_out.add(addr)
            return
        i = heapq.heappop(self.free_ids) if self.free_ids else self.next_id
        self.next_id = max(self.next_id, i + 1)
        self.where[addr] = (i, s)
        self.live += s
        self.emit(kind, i, s)

    def free(self, addr: int) -> None:
        if addr in self.where:
            self.release(addr)
        elif addr in self.left_out:
            self.left_out.discard(addr)
        else:
            self.n["unknown"] += 1

    def realloc(self, old: int, new: int, size: int) -> None:
        if old == 0:
            if new == 0:
                self.n["failed"] += 1
            else:
                self.start(new, size, "n" if size else "a")
            return
        if new == 0 and size > 0:
            self.n["failed"] += 1           # the old block is still there
            return
        if old in self.left_out:
            self.left_out.discard(old)
            if new:
                self.left_out.add(new)
            return
        if old not in self.where:
            self.n["unknown"] += 1
            if new:
                self.start(new, size, "n" if size else "a")
            return
        if new == 0:                         # realloc(p, 0) freed p
            self.release(old, "r")
            return
        i, s_old = self.where.pop(old)
        s = self.size(size)
        if new in self.where:
            self.n["missed_frees"] += 1
            self.release(new)
        if self.live - s_old + s > self.max_live:
            self.n["over_budget"] += 1
            self.where[old] = (i, s_old)
            self.release(old)
            self.left_out.add(new)
            return
        self.where[new] = (i, s)
        self.live += s - s_old
        self.emit("r", i, s)


def convert(log: RawLog, max_size: int = DEFAULT_MAX_SIZE, max_live: int = DEFAULT_MAX_LIVE,
            max_ops: int = 0, skip: int = 0, weight: int = 1,
            order: str = LAB64) -> tuple[Trace, ConvertReport]:
    c = _Converter(min(max_size, max_live), max_live)
    ev = log.events[skip:]
    most = min(max_ops, MAX_OPS) if max_ops else MAX_OPS    # what the driver can read
    truncated = False
    for start in range(0, len(ev), CHUNK):
        part = ev[start:start + CHUNK]
        for kind, result, size, arg in zip(part["kind"].tolist(), part["result"].tolist(),
                                           part["size"].tolist(), part["arg"].tolist()):
            if len(c.kinds) + len(c.where) + 2 > most:      # room for the final frees
                truncated = True
                break
            if kind == EV_FREE:
                c.free(arg)
            elif kind == EV_REALLOC:
                c.realloc(arg, result, size)
            elif result == 0:
                c.n["failed"] += 1
            else:
                c.start(result, size, "a")
        if truncated:
            break
    freed = sorted(c.where.items(), key=lambda kv: kv[1][0])
    for addr, _ in freed:
        c.release(addr)
    n_ids = max(c.ids) + 1 if len(c.ids) else 0
    extra = c.peak if order == LAB64 else SUGGESTED_HEAP
    trace = Trace(Header(order, weight, n_ids, len(c.kinds), extra), c.kinds, c.ids, c.sizes)
    report = ConvertReport(events=len(ev), skipped=min(skip, log.count), threads=log.threads, ops=len(c.kinds),
                           freed_at_end=len(freed), truncated=truncated, log_cut=log.cut,
                           log_full=log.count if log.full else 0, **c.n)
    return trace, report

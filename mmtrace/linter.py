"""Read a trace the way the driver does, and say what is wrong with it.

One pass does both jobs: `lint` collects every problem (errors the driver would
reject, and warnings it would not), `read_trace` stops at the first error.  The
ops that make sense are kept, so `fixed` can write a corrected copy: counts
recomputed, ops that cannot be replayed dropped, never-freed blocks freed.
"""
from __future__ import annotations

import gzip
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .fastread import fast_trace
from .oneline import one_line
from .stats import live_series
from .trace import (CLASSIC, HEADER_MAX, HEAP_LIMIT, LAB64, MAX_HEAP, Header, TooBig, Trace, bounded_int, meant_file,
                    new_ops, read_bytes)

ERROR, WARNING = "error", "warning"
_OK_BYTES = bytes(range(32, 127)) + b"\t\n\r"
# The driver's limit on the header's number of ids, and its names for the header's numbers (driver/trace.c).
MAX_IDS = 1 << 26
FIXED_WEIGHT = 1     # a fixed copy's weight when the file's is out of range: scored both ways
HEADER_FIELDS = ("header field 1", "the number of ids", "the number of ops", "header field 4")
HEADER_MOST = (HEADER_MAX, MAX_IDS, HEADER_MAX, HEADER_MAX)     # each one's real limit, as the driver names it
_SHORT = 19          # digits int() reads at once with no risk: the rest go through bounded_int
WEIGHT_RANGE = "(0 check only, 1 both, 2 utilization, 3 throughput)"   # the driver's words for a weight's limit


@dataclass(frozen=True)
class Problem:
    path: str
    line: int
    severity: str
    message: str

    def __str__(self) -> str:
        tag = "" if self.severity == ERROR else "warning: "
        return f"{one_line(self.path)}:{self.line}: {tag}{self.message}"

    def to_json(self) -> dict:
        return {"path": self.path, "line": self.line, "severity": self.severity,
                "message": self.message}

    @staticmethod
    def from_json(d: dict) -> "Problem":
        return Problem(d["path"], d["line"], d["severity"], d["message"])


class TraceError(Exception):
    """A trace the driver would reject; str() is `FILE:LINE: message`."""

    def __init__(self, problem: Problem):
        super().__init__(str(problem))
        self.problem = problem


@dataclass(frozen=True)
class LintResult:
    problems: tuple[Problem, ...]
    trace: Trace | None      # header as written and the replayable ops (None: no header)
    never_freed: tuple[int, ...]
    used_ids: int = 0
    peak_bytes: int = 0
    unreadable: bool = False    # the file could not be read at all (missing, a folder, a device)

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.problems if p.severity == ERROR]


class _Lint:
    def __init__(self, path: Path, max_heap: int, stop_at_error: bool, heap_option: str = ""):
        self.name = str(path)
        self.max_heap = max_heap
        self.heap_option = heap_option      # the caller's name for max_heap, as the driver names -M
        self.stop = stop_at_error
        self.problems: list[Problem] = []
        self.unreadable = False

    def say(self, line: int, severity: str, message: str) -> None:
        p = Problem(self.name, line, severity, message)
        self.problems.append(p)
        if severity == ERROR and self.stop:
            raise TraceError(p)

    def larger(self) -> str:
        """The driver's advice after a size past the heap, naming the caller's option for it."""
        o = self.heap_option
        return f" ({o}); the trace needs a larger {o}" if o else ""

    def data(self, path: Path) -> bytes | None:
        try:
            return read_bytes(path)
        except TooBig as e:
            self.say(0, ERROR, str(e))     # line 0: the whole file, as the driver says it
            return None
        except (OSError, EOFError, zlib.error) as e:
            # gzip's BadGzipFile is an OSError, but the file was read: its content is bad
            self.unreadable = isinstance(e, OSError) and not isinstance(e, gzip.BadGzipFile)
            what = "cannot read" if self.unreadable else "damaged gzip data"
            meant = meant_file(path) if isinstance(e, FileNotFoundError) else None
            hint = f"; did you mean {meant}?" if meant else ""
            self.say(0, ERROR, f"{what}: {getattr(e, 'strerror', None) or e}{hint}")
            return None

    def text(self, data: bytes) -> tuple[list[str], int, int]:
        """The lines up to the first that holds a byte no trace holds outside a comment (control
        bytes, non-ASCII), that line's number and the byte (0, 0: none).  The driver reads up to
        it, so an error on an earlier line is the one it names."""
        if data.translate(None, _OK_BYTES):
            for lineno, line in enumerate(data.split(b"\n"), 1):
                bad = line.split(b"#", 1)[0].translate(None, _OK_BYTES)
                if bad:
                    return data.decode("latin-1").split("\n")[:lineno - 1], lineno, bad[0]
        return data.decode("latin-1").split("\n"), 0, 0

    def binary(self, lineno: int, byte: int) -> None:
        self.say(lineno, ERROR, f"binary data (byte 0x{byte:02x}): not a trace file")

    def errors(self) -> bool:
        return any(p.severity == ERROR for p in self.problems)

    def header(self, lines: list[str], binary_line: int = 0) -> tuple[Header, int, str] | None:
        """The header, the line it ends on and what follows it there: the driver reads the
        four numbers across lines and the first op may share the last number's line.  LINES
        that stop short of a BINARY_LINE end in it, not in a truncated header: None, unsaid."""
        nums: list[int] = []
        lineno = 0
        for lineno, raw in enumerate(lines, 1):
            words = raw.split("#", 1)[0].split()
            for at, word in enumerate(words):
                if not word.isdigit():
                    self.say(lineno, ERROR, f"bad token '{word[:24]}' in the header (4 "
                             "non-negative integers: see the trace format)")
                    return None
                most = HEADER_MOST[len(nums)]
                value = bounded_int(word, most)
                if value is None and len(nums) == 3 and nums[0] > 3:
                    value = HEADER_MAX + 1      # the classic order's weight: past 2^64 out of range as 9 is
                if value is None:
                    self.say(lineno, ERROR, f"{HEADER_FIELDS[len(nums)]} {word[:24]} out of range "
                             f"(at most {most})")
                    return None
                nums.append(value)
                if len(nums) == 4:
                    return self._checked(Header.from_numbers(nums), lineno, " ".join(words[at + 1:]), word)
        if not binary_line:
            self.say(max(len(lines), 1), ERROR, f"truncated: the header needs 4 numbers, found {len(nums)}")
        return None

    def _checked(self, h: Header, lineno: int, rest: str, last: str) -> tuple[Header, int, str] | None:
        if h.weight > 3:    # classic order: the weight is the last word, shown as the driver shows it
            shown = last[:24] if h.weight > HEADER_MAX else h.weight
            self.say(lineno, ERROR, f"weight {shown} out of range {WEIGHT_RANGE}")
        return h, lineno, rest


def _fast(data: bytes, max_heap: int, stop: bool) -> LintResult | None:
    """The numpy reader's result, when it applies and there is nothing to report."""
    t = fast_trace(data, max_heap, MAX_IDS)
    if t is None:
        return None
    live_bytes, live_blocks = live_series(t)
    used = int(np.frombuffer(t.ids, dtype=np.int64).max()) + 1
    peak = int(live_bytes.max())
    clean = (used == t.header.ids and int(live_blocks[-1]) == 0 and peak <= max_heap
             and (t.header.order != LAB64 or t.header.extra == peak))
    # read_trace ignores warnings; lint must report them, so only a clean file is done here
    return LintResult((), t, (), used, peak) if clean or stop else None


def _run(path: Path, max_heap: int, stop: bool, heap_option: str) -> LintResult:
    L = _Lint(path, max_heap, stop, heap_option)
    data = L.data(path)
    if data is None:
        return LintResult(tuple(L.problems), None, (), unreadable=L.unreadable)
    fast = _fast(data, max_heap, stop)
    if fast is not None:
        return fast
    lines, binary_line, byte = L.text(data)
    got = L.header(lines, binary_line)
    if got is None:
        if binary_line and not L.errors():      # the header runs into the binary line
            L.binary(binary_line, byte)
        return LintResult(tuple(L.problems), None, ())
    header, start, rest = got
    kinds, ids, sizes = new_ops()
    live: dict[int, tuple[int, int]] = {}   # id -> (size, line it became live)
    n_ops = used_ids = live_bytes = peak = 0
    past_heap = 0                           # the line where live payload first outgrew the heap
    over_reported = False
    last = start
    declared_ops, declared_ids = header.ops, header.ids     # locals: this loop runs once per line
    lines[start - 1] = rest                                 # an op may follow the header
    for lineno, raw in enumerate(lines[start - 1:], start):
        if "#" in raw:
            raw = raw.split("#", 1)[0]
        w = raw.split()
        if not w:
            continue
        last = lineno
        n_ops += 1
        if n_ops > declared_ops and not over_reported:
            L.say(lineno, ERROR, f"op count: the header says {declared_ops} ops, the file has more")
            over_reported = True
        k = w[0]
        want = 2 if k == "f" else 3
        if k not in ("a", "f", "r", "n"):
            L.say(lineno, ERROR, f"bad token '{k[:20]}': an op is a, f, r or n")
            continue
        if len(w) != want or not (w[1].isdigit() and w[-1].isdigit()):     # w[-1]: the size, or the id again
            shape = "f ID" if k == "f" else f"{k} ID SIZE"
            L.say(lineno, ERROR, f"bad token in '{raw.strip()[:40]}': expected '{shape}' "
                  "with non-negative integers")
            continue
        # judged as the driver reads them: leading zeros, and no int() of a 5000-digit token;
        # int() alone for the usual short token, as bounded_int's call per token was a third of the time
        i = int(w[1]) if len(w[1]) < _SHORT else None
        if i is None or i > MAX_IDS:
            i = bounded_int(w[1], MAX_IDS)
        s = (int(w[2]) if len(w[2]) < _SHORT else None) if want == 3 else 0
        if s is None or s > max_heap:
            s = bounded_int(w[2], max_heap)
        if i is None or i >= declared_ids:
            declared = (f"the header says {header.ids} ids (0..{header.ids - 1})" if header.ids
                        else "the header declares no ids")
            L.say(lineno, ERROR, f"id {w[1][:24] if i is None else i} out of range: {declared}")
            if i is None or i >= MAX_IDS:       # no header may declare it, so a fixed copy cannot keep it
                continue
        if s is None:       # in the driver's words (driver/trace.c, read_size)
            if bounded_int(w[2], HEAP_LIMIT) is None:     # past -M's maximum: no --max-heap would do
                L.say(lineno, ERROR, f"size {w[2][:24]} cannot fit in the heap: no heap the driver can make "
                      f"holds it (-M is at most {HEAP_LIMIT} bytes)")
            else:
                L.say(lineno, ERROR, f"size {w[2][:24]} cannot fit in the heap: this run's maximum heap "
                      f"is {max_heap} bytes{L.larger()}")
            continue
        now = live.get(i)
        if k in ("a", "n"):
            if now is not None:
                L.say(lineno, ERROR, f"{'alloc' if k == 'a' else 'realloc(NULL)'} of id {i}, "
                      f"which is already live (since line {now[1]})")
                continue
            live[i] = (s, lineno)
            live_bytes += s
        else:
            if now is None:
                L.say(lineno, ERROR, f"{'free' if k == 'f' else 'realloc'} of id {i}, "
                      "which is not live")
                continue
            live_bytes -= now[0]
            if k == "f" or s == 0:
                del live[i]
            else:
                live[i] = (s, now[1])
                live_bytes += s
        if live_bytes > peak:
            peak = live_bytes
            if live_bytes > max_heap and not past_heap:
                past_heap = lineno
        if i >= used_ids:
            used_ids = i + 1
        kinds.append(ord(k))
        ids.append(i)
        sizes.append(s)
    if binary_line:     # the driver reads no further: no counts or warnings past it
        L.binary(binary_line, byte)
        return LintResult(tuple(L.problems), None, ())
    eof = len(lines)   # the driver names the line where the file ends
    if n_ops < header.ops:
        L.say(eof, ERROR, f"truncated: the header says {header.ops} ops, the file has {n_ops}")
    if n_ops == 0 == header.ops:      # driver/score.c: a trace of no ops is in neither average
        L.say(start, WARNING, "no ops: the driver lists this trace as ok with no figures and leaves it out "
              "of the score (run alone: no perf index)")
    if used_ids < header.ids:
        L.say(start, WARNING, f"the header says {header.ids} ids, the ops use {used_ids}")
    if header.order == LAB64 and header.extra != peak and not L.problems:
        L.say(start, WARNING, f"the header's peak bytes {header.extra} != measured {peak}")
    if past_heap:     # the driver replays it, and every allocator fails it (alloc_failed)
        L.say(past_heap, WARNING, f"live payload reaches {peak} bytes, more than this run's maximum "
              f"heap ({max_heap} bytes): no allocator can replay this trace")
    if live:
        first = min(live.items(), key=lambda kv: kv[1][1])
        L.say(last, WARNING, f"unbalanced: {len(live)} blocks never freed (first: id "
              f"{first[0]} from line {first[1][1]})")
    return LintResult(tuple(L.problems), Trace(header, kinds, ids, sizes), tuple(sorted(live)),
                      used_ids, peak)


def lint(path: Path, max_heap: int = MAX_HEAP, heap_option: str = "") -> LintResult:
    """Every problem in the file, errors and warnings, in line order.  HEAP_OPTION is what the
    caller calls MAX_HEAP (`--max-heap`): a size past it is worded as the driver words -M."""
    return _run(Path(path), max_heap, False, heap_option)


def read_measured(path: Path, max_heap: int = MAX_HEAP, heap_option: str = "") -> LintResult:
    """read_trace's reading with what it measured on the way (peak_bytes: the peak live payload,
    as the driver's utilization counts it); TraceError at the first error."""
    r = _run(Path(path), max_heap, True, heap_option)
    assert r.trace is not None
    return r


def read_trace(path: Path, max_heap: int = MAX_HEAP, heap_option: str = "") -> Trace:
    """The trace as the driver would replay it; TraceError at the first error."""
    trace = read_measured(path, max_heap, heap_option).trace
    assert trace is not None
    return trace


def fixed(result: LintResult) -> Trace | None:
    """A replayable copy: the kept ops, frees for never-freed blocks, counts recomputed, a
    weight out of range replaced by FIXED_WEIGHT."""
    t = result.trace
    if t is None:
        return None
    kinds, ids, sizes = bytearray(t.kinds), t.ids[:], t.sizes[:]
    for i in result.never_freed:
        kinds.append(ord("f"))
        ids.append(i)
        sizes.append(0)
    h = t.header
    extra = result.peak_bytes if h.order == LAB64 else h.extra
    weight = h.weight if h.weight <= 3 else FIXED_WEIGHT
    return Trace(Header(h.order, weight, result.used_ids, len(kinds), extra), kinds, ids, sizes)


__all__ = ["CLASSIC", "LAB64", "LintResult", "Problem", "TraceError", "fixed", "lint",
           "read_measured", "read_trace"]

"""The trace model and its text form (.rep, optionally gzip-compressed).

A trace is a header and a list of ops.  Ops are kept as three parallel compact
arrays (kind letter, id, size) rather than one object per op, so a ten-million-op
recording fits in memory and numpy can look at it without copying.

Header orders (the driver tells them apart by the first number):
  classic: suggested heap size, ids, ops, weight
  lab64:   weight, ids, ops, peak live bytes
"""
from __future__ import annotations

import errno
import gzip
import io
import os
import stat
import zlib
from array import array
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

CLASSIC = "classic"
LAB64 = "lab64"
ORDERS = (CLASSIC, LAB64)
# What a classic header's first line says when the kit writes it (the driver ignores it).
SUGGESTED_HEAP = 20000000
# The driver's default simulated heap (config.h MDRIVER_DEFAULT_MAX_HEAP); -M goes up to HEAP_LIMIT.
MAX_HEAP = 20 << 20
# The largest heap the driver's -M takes (driver/heap.h HEAP_LIMIT: 4 GiB).
HEAP_LIMIT = 4 << 30
# The largest number the driver reads in a header (driver/trace.c: uint64_t).
HEADER_MAX = (1 << 64) - 1
# The most bytes a trace may hold or unpack to (driver/trace.h TRACE_MAX_BYTES).
TRACE_MAX_BYTES = 256 << 20
# The most ops mmtrace writes in one trace (generated or recorded): an op line is at most 20
# bytes (ids under 2^26, sizes under the heap), so such a trace stays under TRACE_MAX_BYTES, and
# a pattern or a recording asked for more stops there, with well under 1 GB in use.
MAX_OPS = 12_000_000

ALLOC, FREE, REALLOC, REALLOC_NULL = "a", "f", "r", "n"

# A trace's weight: which parts of the driver's score it counts in (driver/trace.h).
WEIGHT_CHECK_ONLY, WEIGHT_BOTH, WEIGHT_UTIL_ONLY, WEIGHT_THROUGHPUT_ONLY = 0, 1, 2, 3
SCORES_UTILIZATION = (WEIGHT_BOTH, WEIGHT_UTIL_ONLY)
SCORES_THROUGHPUT = (WEIGHT_BOTH, WEIGHT_THROUGHPUT_ONLY)
KINDS = (ALLOC, FREE, REALLOC, REALLOC_NULL)


@dataclass(frozen=True)
class Header:
    order: str      # CLASSIC or LAB64
    weight: int     # 0 check only, 1 util and speed, 2 util only, 3 speed only
    ids: int
    ops: int
    extra: int      # classic: suggested heap size; lab64: peak live bytes

    def lines(self) -> list[int]:
        if self.order == CLASSIC:
            return [self.extra, self.ids, self.ops, self.weight]
        return [self.weight, self.ids, self.ops, self.extra]

    @staticmethod
    def from_numbers(nums: list[int]) -> "Header":
        if nums[0] <= 3:
            return Header(LAB64, nums[0], nums[1], nums[2], nums[3])
        return Header(CLASSIC, nums[3], nums[1], nums[2], nums[0])

    def to_json(self) -> dict:
        return {"order": self.order, "weight": self.weight, "ids": self.ids,
                "ops": self.ops, "extra": self.extra}

    @staticmethod
    def from_json(d: dict) -> "Header":
        return Header(d["order"], d["weight"], d["ids"], d["ops"], d["extra"])


@dataclass(frozen=True)
class Trace:
    header: Header
    kinds: bytearray = field(default_factory=bytearray)   # ord of a/f/r/n per op
    ids: array = field(default_factory=lambda: array("q"))
    sizes: array = field(default_factory=lambda: array("q"))  # 0 for f

    def __len__(self) -> int:
        return len(self.kinds)

    def ops(self) -> Iterator[tuple[str, int, int]]:
        for k, i, s in zip(self.kinds, self.ids, self.sizes):
            yield chr(k), i, s


def bounded_int(digits: str | bytes, most: int) -> int | None:
    """The ASCII decimal DIGITS as a number if it is at most MOST, else None, as the driver reads
    it: leading zeros allowed, however many, and a digit string far too long for int() (Python
    refuses more than 4300 digits) judged by its length, never converted."""
    text = digits.decode("ascii") if isinstance(digits, bytes) else digits
    text = text.lstrip("0") or "0"
    if len(text) > len(str(most)):
        return None
    value = int(text)
    return value if value <= most else None


def ascii_digits(text: str) -> bool:
    """TEXT is one or more ASCII digits and nothing else, as the driver and docs/traces.md write a
    number: str.isdigit() also takes '\u0663' and '\u00b2', and int() '1_000', '+5', ' 5' and '\u0663'."""
    return text.isascii() and text.isdigit()


class TooBig(ValueError):
    """More bytes than any trace holds (a gzip bomb, a huge file); str() says how it was found."""


def new_ops() -> tuple[bytearray, array, array]:
    return bytearray(), array("q"), array("q")


def _anonymous_pipe(fd: int) -> bool:
    """A shell's pipe (`<(zcat t.rep.gz)`), which driver/trace.c reads, not a named FIFO, which
    it refuses: only the former's link in /proc is 'pipe:[N]'."""
    try:
        return os.readlink(f"/proc/self/fd/{fd}").startswith("pipe:")
    except OSError:
        return False


def _raw_bytes(path: Path) -> bytes:
    """PATH's bytes without ever waiting for nobody: a shell's pipe no one writes to reads as
    empty (one from `<(zcat t.rep.gz)` has its writer and is read whole); a named FIFO, which may
    never get a writer, and a device such as /dev/zero, which would be read forever, are refused
    as the driver refuses them."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    with os.fdopen(fd, "rb") as handle:
        mode = os.fstat(fd).st_mode
        if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
            raise OSError("a device, not a trace")
        if stat.S_ISFIFO(mode) and not _anonymous_pipe(fd):
            raise OSError("a named pipe (FIFO), not a trace file (a trace is a regular file or a "
                          "shell's pipe)")
        if not stat.S_ISFIFO(mode):
            return handle.read(TRACE_MAX_BYTES + 1)
        try:
            first = os.read(fd, 1 << 16)
        except BlockingIOError:          # a writer is there and has not written yet
            first = None
        if first == b"":                 # no writer at all (or an empty stream)
            return b""
        os.set_blocking(fd, True)
        return (first or b"") + handle.read(TRACE_MAX_BYTES + 1 - len(first or b""))


def trace_stem(name: str) -> str:
    """A trace file's NAME without its .gz, then .rep, as the driver drops them
    (driver/tracename.c, strip_suffixes), never the whole name: gcc.report.rep is gcc.report."""
    for suffix in (".gz", ".rep"):
        if len(name) > len(suffix) and name.endswith(suffix):
            name = name[:-len(suffix)]
    return name


def meant_file(path: Path | str) -> str | None:
    """The trace a missing PATH was likely meant for, as the driver guesses it (driver/trace.c,
    meant_file): PATH.rep or PATH.rep.gz for a name given without its suffix, x.rep.gz for x.rep,
    x.rep for x.rep.gz; None when no such regular file is there."""
    text = str(path)
    tries = [text + ".rep", text + ".rep.gz"]
    if text.endswith(".rep"):
        tries.append(text + ".gz")
    if text.endswith(".gz") and len(text) > 3:
        tries.append(text[:-3])
    return next((t for t in tries if os.path.isfile(t)), None)


def read_bytes(path: Path) -> bytes:
    """The file's bytes, decompressed when it is gzip (by its magic, not its name); TooBig past
    TRACE_MAX_BYTES, found without reading or unpacking more than that."""
    data = _raw_bytes(Path(path))
    if len(data) > TRACE_MAX_BYTES:
        raise TooBig(f"more than {TRACE_MAX_BYTES} bytes: not a trace")
    if data[:2] == b"\x1f\x8b":
        data = _gunzip(data)
    return data


_PIECE = 16 << 20        # bytes unpacked per zlib call


def _gunzip(data: bytes) -> bytes:
    """DATA's gzip members unpacked as `gzip -dc` (which the driver reads through) unpacks them:
    zlib checks each member's header (reserved flags, the header CRC), data, CRC and length, which
    Python's gzip module does not all do, and nothing but zeros may follow the last member (gzip
    module: zeros between members too). zlib.error or EOFError when damaged; TooBig past
    TRACE_MAX_BYTES, found without unpacking more than that."""
    out: list[bytes] = []
    size = 0
    while data and (not out or data.strip(b"\0")):
        member = zlib.decompressobj(wbits=31)      # 16 + 15: a gzip wrapper, checked
        while True:     # in pieces: one call's output is built, then copied, twice its size
            piece = member.decompress(data, _PIECE)
            size += len(piece)
            out.append(piece)
            if size > TRACE_MAX_BYTES:
                raise TooBig(f"unpacks to more than {TRACE_MAX_BYTES} bytes: not a trace")
            data = member.unconsumed_tail
            if member.eof or not (data or len(piece) == _PIECE):
                break
        if not member.eof:
            raise EOFError("Compressed file ended before the end-of-stream marker was reached")
        data = member.unused_data
    return b"".join(out)


def format_trace(trace: Trace, comments: list[str] | None = None) -> str:
    out = io.StringIO()
    for c in comments or []:
        # one line each: a newline in a comment (a recorded `sh -c` script, a recipe's text)
        # would start a line that is not a comment, and the trace could not be read
        out.write("# " + c.replace("\r", "\\r").replace("\n", "\\n") + "\n")
    for n in trace.header.lines():
        out.write(f"{n}\n")
    lines = []
    for k, i, s in zip(trace.kinds, trace.ids, trace.sizes):
        lines.append(f"f {i}" if k == 102 else f"{chr(k)} {i} {s}")
    out.write("\n".join(lines))
    if lines:
        out.write("\n")
    return out.getvalue()


def encode_trace(text: str) -> bytes:
    """A trace's bytes: the ops are ASCII; a comment may name a program or a path in any
    language (UTF-8, which the driver and the linter read in comments), or hold bytes that
    are no text at all (an argument Python read as surrogates), written as escapes."""
    return text.encode("utf-8", "backslashreplace")


def write_trace(path: Path, trace: Trace, comments: list[str] | None = None) -> None:
    """Write the trace; a name ending in .gz is compressed, reproducibly (no name, no time).
    TooBig, nothing written, past TRACE_MAX_BYTES (a .gz by the bytes it unpacks to, as the
    driver counts them): a file the driver refuses is no trace to write."""
    text = encode_trace(format_trace(trace, comments))
    if len(text) > TRACE_MAX_BYTES:
        raise TooBig(f"{len(text):,} bytes, more than the {TRACE_MAX_BYTES:,} the driver reads")
    path = Path(path)
    if path.name.endswith(".gz"):
        buf = io.BytesIO()
        with gzip.GzipFile(filename="", mode="wb", fileobj=buf, mtime=0, compresslevel=9) as gz:
            gz.write(text)
        text = buf.getvalue()
    replace_file(path, text)


def _write_special(path: Path, data: bytes) -> None:
    """DATA written to the device or FIFO PATH; a FIFO no one reads is an OSError (ENXIO), not a
    wait for a reader that may never come."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as e:
        if e.errno == errno.ENXIO:
            raise OSError(e.errno, "a named pipe (FIFO) that no one is reading", str(path)) from None
        raise
    os.set_blocking(fd, True)
    with os.fdopen(fd, "wb") as out:
        out.write(data)


def replace_file(path: Path, data: bytes) -> None:
    """Write DATA as PATH whole or not at all: beside it, then renamed over it, so a write that
    fails (a full disk) leaves an earlier file as it was. A device or FIFO (/dev/stdout,
    /dev/full) is written directly: it has no contents to keep, and is never replaced."""
    path = Path(path)
    try:
        special = not stat.S_ISREG(os.stat(path).st_mode)
    except FileNotFoundError:
        special = False
    if special:
        _write_special(path, data)
        return
    real = Path(os.path.realpath(path))          # a symlink's target is replaced, not the link
    tmp = real.with_name(f".{real.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "xb") as out:
            out.write(data)
        os.replace(tmp, real)
    except OSError as e:             # named as PATH, which the caller knows, not the file beside it
        tmp.unlink(missing_ok=True)
        raise OSError(e.errno, e.strerror, str(path)) from None
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise

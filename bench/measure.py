"""Running one program under one allocator, and summarising repeated figures."""
from __future__ import annotations

import json
import os
import signal
import statistics
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from bench.allocators import Allocator

RUSAGE = Path(__file__).resolve().parent.parent / "build" / "bench" / "rusage"   # bench/c/rusage.c


@dataclass(frozen=True)
class Summary:
    """Median with the range over repetitions."""

    median: float
    lo: float
    hi: float
    n: int

    def to_json(self) -> dict:
        return {"median": self.median, "lo": self.lo, "hi": self.hi, "n": self.n}

    @classmethod
    def from_json(cls, data: dict) -> "Summary":
        return cls(data["median"], data["lo"], data["hi"], data["n"])


def summarize(values: list[float]) -> Summary | None:
    if not values:
        return None
    return Summary(statistics.median(values), min(values), max(values), len(values))


@dataclass(frozen=True)
class Run:
    """One finished process: exit code, wall seconds, peak RSS (KiB), its stdout."""

    returncode: int
    wall: float
    maxrss_kb: int
    stdout: str
    stderr: str
    stats: tuple[dict, ...] = ()      # MMSHIM_STATS lines, for shims


def run(argv: list[str], alloc: Allocator, timeout: float = 300, stdin: Path | None = None,
        cwd: Path | None = None, shim_stats: bool = False, extra_env: dict[str, str] | None = None) -> Run:
    """Run argv under alloc; wall time from here, peak RSS from wait4 in build/bench/rusage,
    which starts the command (a command started from this process would count our RSS).

    shim_stats: for a shim, collect the MMSHIM_STATS lines of every process it ran.
    """
    if not RUSAGE.exists():
        raise FileNotFoundError(f"{RUSAGE} is missing: run `make bench-progs` first")
    with tempfile.TemporaryDirectory(prefix="bench-") as tmp:
        out, err, rss = Path(tmp) / "out", Path(tmp) / "err", Path(tmp) / "rss"
        env = alloc.env()
        env.update(extra_env or {})
        stats_path = Path(tmp) / "stats.jsonl"
        if shim_stats and alloc.kind == "shim":
            env["MMSHIM_STATS"] = str(stats_path)
        with open(out, "wb") as fo, open(err, "wb") as fe, \
                open(stdin or os.devnull, "rb") as fi:
            start = time.perf_counter()
            proc = subprocess.Popen([str(RUSAGE), str(rss), *argv], stdin=fi, stdout=fo, stderr=fe, env=env, cwd=cwd,
                                    start_new_session=True)
            timer = threading.Timer(timeout, lambda: os.killpg(proc.pid, signal.SIGKILL))
            timer.start()
            try:
                _, status, _ = os.wait4(proc.pid, 0)
            finally:
                timer.cancel()
            wall = time.perf_counter() - start
            proc.returncode = os.waitstatus_to_exitcode(status)
        stats = ()
        if stats_path.exists():
            stats = tuple(json.loads(line) for line in stats_path.read_text().splitlines() if line.strip())
        maxrss = int(parse_kv(rss.read_text()).get("maxrss_kb", 0)) if rss.exists() else 0
        return Run(proc.returncode, wall, maxrss, out.read_text(errors="replace"),
                   err.read_text(errors="replace"), stats)


def parse_kv(line: str) -> dict[str, str]:
    """`a=1 b=x` -> {"a": "1", "b": "x"}; words without '=' are ignored."""
    return dict(word.split("=", 1) for word in line.split() if "=" in word)


def ratio(value: float | None, base: float | None) -> float | None:
    if value is None or not base:
        return None
    return value / base

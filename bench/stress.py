"""Study `stress`: the fit-policy stress trace replayed with the real malloc."""
from __future__ import annotations

import subprocess
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from bench import plot, report
from bench.allocators import Allocator
from bench.measure import Repetitions, Study, Summary, not_served, parse_kv, run, summarize

FIT_POLICIES = ("implicit-first", "implicit-next", "implicit-best", "implicit-worst")
# (column, mm_stats field) in the order the issue lists them
COUNTERS = (("mallocs", "mallocs"), ("frees", "frees"), ("reuses", "reuses"), ("grows", "extensions"),
            ("splits", "splits"), ("coalesces", "coalesces"), ("blocks", "free_blocks"),
            ("requested bytes", "bytes_requested"), ("max heap", "peak_heap"))


@dataclass(frozen=True)
class Row:
    allocator: str
    seconds: Summary | None
    counters: dict[str, int]
    failures: int = 0

    def to_json(self) -> dict:
        return {"allocator": self.allocator, "seconds": self.seconds and self.seconds.to_json(),
                "counters": self.counters, "failures": self.failures}

    @classmethod
    def from_json(cls, d: dict) -> "Row":
        return cls(d["allocator"], d["seconds"] and Summary.from_json(d["seconds"]), d["counters"],
                   d.get("failures", 0))


@dataclass(frozen=True)
class Result(Study):
    trace: str
    ops: int
    reps: int
    rows: tuple[Row, ...]

    def to_json(self) -> dict:
        return {"study": "stress", "trace": self.trace, "ops": self.ops, "reps": self.reps,
                "rows": [r.to_json() for r in self.rows], **self.notes_json()}

    @classmethod
    def from_json(cls, d: dict) -> "Result":
        return cls(d["trace"], d["ops"], d["reps"], tuple(Row.from_json(r) for r in d["rows"]),
                   **Study.notes_from(d))


def parse(text: str) -> dict[str, float] | None:
    for line in text.splitlines():
        kv = parse_kv(line)
        if "ops" in kv and "seconds" in kv:
            return {"ops": int(kv["ops"]), "seconds": float(kv["seconds"])}
    return None


def program_counters(stats: tuple[dict, ...]) -> dict[str, int]:
    """The variant's counters from the replay process's MMSHIM_STATS line."""
    for line in stats:
        if line.get("comm") == "replay" and "mm" in line:
            return {col: int(line["mm"].get(field, 0)) for col, field in COUNTERS}
    return {}


def collect(prog: Path, trace: Path, allocs: list[Allocator], reps: int,
            log: Callable[[str], None] = lambda s: None, label: str | None = None) -> Result:
    times: dict[str, list[float]] = defaultdict(list)
    counters: dict[str, dict[str, int]] = {}
    failures: dict[str, int] = defaultdict(int)
    unserved: dict[str, str] = {}
    ops = 0
    with Repetitions(reps) as stop:
        for rep in stop:
            for a in allocs:
                done = run([str(prog), str(trace)], a, shim_stats=True, timeout=600)
                row = parse(done.stdout)
                if done.returncode != 0 or row is None:
                    failures[a.name] += 1
                    log(f"stress: {a.name} failed (exit {done.returncode}): {done.stderr.strip()[:200]}")
                    continue
                if not_served(unserved, a, done, "stress", log):
                    failures[a.name] += 1
                    continue
                ops = row["ops"]
                times[a.name].append(row["seconds"])
                counters.setdefault(a.name, program_counters(done.stats))
            log(f"stress: repetition {rep + 1}/{reps} done")
    rows = tuple(Row(a.name, summarize(times[a.name]), counters.get(a.name, {}), failures[a.name]) for a in allocs)
    return Result(label or str(trace), ops, reps, rows, unserved=unserved, partial=stop.partial)


def tables(res: Result) -> list[str]:
    base = next((r.seconds for r in res.rows if r.allocator == "glibc"), None)
    time_rows = [[r.allocator, report.cell(r.seconds, base, 4), str(r.failures)] for r in res.rows]
    counter_rows = [[r.allocator] + [f"{r.counters[c]:,}" if c in r.counters else "–" for c, _ in COUNTERS]
                    for r in res.rows]
    return [f"### Time for one replay (s), median [min–max] over {res.reps}, ×glibc\n\n"
            + report.table(["allocator", "seconds", "failed runs"], time_rows),
            "### The variant's counters (mm_stats) for one replay\n\n"
            "glibc keeps no such counters.  The shim adds its 16-byte header to every request, so "
            "the variant sees each size + 16 (requested bytes include it).\n\n"
            + report.table(["allocator"] + [c for c, _ in COUNTERS], counter_rows)]


def plots(res: Result, out: Path) -> Path:
    fig, axes = plot.figure(1)
    ax = axes[0]
    rows = [r for r in res.rows if r.seconds]
    ax.bar([r.allocator for r in rows], [r.seconds.median for r in rows],
           yerr=[[r.seconds.median - r.seconds.lo for r in rows], [r.seconds.hi - r.seconds.median for r in rows]],
           capsize=4)
    ax.set(yscale="log", ylabel="seconds per replay (median, min–max)", title=f"{res.trace}, {res.ops:,} ops")
    ax.tick_params(axis="x", labelrotation=20)
    return plot.save(fig, out / "bench-stress.png")


DEFAULT_TRACE = "traces/fit-stress.rep"
# What the default trace is; another one (--trace) is named without a description.
DEFAULT_ABOUT = (" (the trace suite's fit-policy stress pattern: a large block freed first, then\n"
                 "thousands of 1 KiB blocks with small holes punched between them)")

INTRO = """
`{trace}`{about} replayed for real by
`build/bench/replay` (bench/c/replay.c, which reads it with the driver's parser), which calls
malloc/free/realloc as the trace says and writes one byte per 4 KiB of each block.  {reps}
per allocator, interleaved.  The four fit policies are the implicit-list variants run
as the process malloc through the shim.
Command: `{command}` (`python -m bench stress --help`).
"""


class StressError(Exception):
    """The trace is refused, or no run succeeded: one line, and no page."""


def trace_label(trace: Path, kit: Path) -> str:
    """The trace as the page names it: relative to the kit when inside it, else as given."""
    try:
        return str(trace.resolve().relative_to(kit.resolve()))
    except ValueError:
        return str(trace)


def check_trace(prog: Path, trace: Path) -> None:
    """The replay program reads the trace without replaying it (`-r 0`): a trace it refuses
    is refused here, before any run, with its one-line message."""
    done = subprocess.run([str(prog), str(trace), "-r", "0"], capture_output=True, text=True,
                          errors="replace", timeout=600)
    if done.returncode != 0:
        lines = done.stderr.strip().splitlines() or [f"{trace}: refused (exit {done.returncode})"]
        raise StressError(lines[-1].removeprefix("replay: "))


def check_some_run(res: Result) -> None:
    if not any(r.seconds for r in res.rows):
        raise StressError(f"{res.trace}: every run failed ({', '.join(r.allocator for r in res.rows)}): "
                          f"no page written")


def write(res: Result, out: Path, skipped: list[str]) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    m = report.measured()
    png = plots(res, out)
    default = res.trace == DEFAULT_TRACE
    intro = INTRO.format(trace=res.trace, about=DEFAULT_ABOUT if default else "", reps=report.count(res.reps, "repetition"),
                         command="make bench-stress" if default else f"python -m bench stress --trace {res.trace}")
    text = report.page("Fit-policy stress, run for real", intro,
                       tables(res) + [f"![stress]({png.name})"], skipped, m, res)
    report.save_json(out / "bench-stress.json", res.to_json(), m)
    path = out / "bench-stress.md"
    path.write_text(text)
    return path

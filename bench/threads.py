"""Study `threads`: threadtest at 1, 2, 4, 8 threads: time, heap, peak RSS."""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from bench import plot, report
from bench.allocators import Allocator
from bench.measure import Repetitions, Study, Summary, not_served, parse_kv, run, summarize

METRICS = ("seconds", "heap_kb", "hwm_kb", "region_kb")


@dataclass(frozen=True)
class Cell:
    allocator: str
    threads: int
    values: dict[str, Summary | None]
    errors: int = 0

    def to_json(self) -> dict:
        return {"allocator": self.allocator, "threads": self.threads, "errors": self.errors,
                "values": {k: v and v.to_json() for k, v in self.values.items()}}

    @classmethod
    def from_json(cls, d: dict) -> "Cell":
        return cls(d["allocator"], d["threads"],
                   {k: v and Summary.from_json(v) for k, v in d["values"].items()}, d.get("errors", 0))


@dataclass(frozen=True)
class Result(Study):
    allocators: tuple[str, ...]
    threads: tuple[int, ...]
    reps: int
    args: tuple[str, ...]
    cells: tuple[Cell, ...]

    def to_json(self) -> dict:
        return {"study": "threads", "allocators": list(self.allocators), "threads": list(self.threads),
                "reps": self.reps, "args": list(self.args), "cells": [c.to_json() for c in self.cells], **self.notes_json()}

    @classmethod
    def from_json(cls, d: dict) -> "Result":
        return cls(tuple(d["allocators"]), tuple(d["threads"]), d["reps"], tuple(d["args"]),
                   tuple(Cell.from_json(c) for c in d["cells"]), **Study.notes_from(d))

    def get(self, alloc: str, threads: int) -> Cell | None:
        return next((c for c in self.cells if (c.allocator, c.threads) == (alloc, threads)), None)

    def value(self, alloc: str, threads: int, metric: str) -> Summary | None:
        c = self.get(alloc, threads)
        return c.values.get(metric) if c else None


def parse(text: str) -> dict[str, float] | None:
    """threadtest's result line as numbers, or None if it printed none."""
    for line in text.splitlines():
        kv = parse_kv(line)
        if "threads" in kv and "seconds" in kv:
            return {k: float(v) for k, v in kv.items()}
    return None


def collect(prog: Path, allocs: list[Allocator], threads: list[int], reps: int, args: list[str],
            log: Callable[[str], None] = lambda s: None) -> Result:
    raw: dict[tuple, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    errors: dict[tuple, int] = defaultdict(int)
    unserved: dict[str, str] = {}
    with Repetitions(reps) as stop:
        for rep in stop:
            for t in threads:
                for a in allocs:
                    done = run([str(prog), "-t", str(t), *args], a, shim_stats=True)
                    row = parse(done.stdout)
                    if done.returncode != 0 or row is None or row.get("errors"):
                        errors[(a.name, t)] += 1
                        log(f"threads: {a.name} at {t} threads failed (exit {done.returncode}): {done.stderr.strip()[:200]}")
                        continue
                    if not_served(unserved, a, done, "threads", log):
                        errors[(a.name, t)] += 1
                        continue
                    slot = raw[(a.name, t)]
                    for m in ("seconds", "heap_kb", "hwm_kb"):
                        slot[m].append(row[m])
                    main = [s for s in done.stats if "region_high_water" in s]
                    if main:
                        slot["region_kb"].append(max(s["region_high_water"] for s in main) / 1024)
            log(f"threads: repetition {rep + 1}/{reps} done")
    cells = tuple(Cell(a.name, t, {m: summarize(raw[(a.name, t)].get(m, [])) for m in METRICS},
                       errors[(a.name, t)]) for t in threads for a in allocs)
    return Result(tuple(a.name for a in allocs), tuple(threads), reps, tuple(args), cells,
                  unserved=unserved, partial=stop.partial)


def tables(res: Result) -> list[str]:
    out = []
    titles = {"seconds": "time (s) until every thread finished, median [min–max], ×glibc",
              "heap_kb": "heap (KiB): growth of VmData with every block live, thread stacks excluded",
              "hwm_kb": "peak RSS (KiB, VmHWM)",
              "region_kb": "shims only: the region's high-water mark (KiB), exact heap of the variant"}
    for m in METRICS:
        names = [a for a in res.allocators if any(res.value(a, t, m) for t in res.threads)]
        rows = []
        for t in res.threads:
            base = res.value("glibc", t, m) if m == "seconds" else None
            row = [str(t)]
            for a in names:
                c = res.get(a, t)
                row.append(f"{c.errors} failed" if c and c.errors else report.cell(res.value(a, t, m), base))
            rows.append(row)
        out.append(f"### {titles[m]}\n\n" + report.table(["threads"] + names, rows))
    return out


def thread_axis(threads: tuple[int, ...], cores: int) -> str:
    """The x label: the machine's cores, and which thread counts run oversubscribe them (a label
    fixed at "2 cores: 4 and 8" had been wrong on any other machine or --threads)."""
    over = [str(t) for t in threads if t > cores]
    if not over:
        return f"threads ({report.count(cores, 'core')})"
    counts = over[0] if len(over) == 1 else f"{', '.join(over[:-1])} and {over[-1]}"
    return f"threads ({report.count(cores, 'core')}: {counts} oversubscribe{'s' if len(over) == 1 else ''})"


def plots(res: Result, out: Path, cores: int) -> Path:
    fig, axes = plot.figure(2)
    for ax, m, label in ((axes[0], "seconds", "time (s), median"), (axes[1], "hwm_kb", "peak RSS (KiB), median")):
        for a in res.allocators:
            pts = [(t, res.value(a, t, m)) for t in res.threads if res.value(a, t, m)]
            if pts:
                ax.plot([p[0] for p in pts], [p[1].median for p in pts], marker="o", label=a)
        ax.set(xscale="log", yscale="log" if m == "seconds" else "linear",
               xlabel=thread_axis(res.threads, cores), ylabel=label)
        ax.set_xticks(list(res.threads), [str(t) for t in res.threads])
        ax.minorticks_off()
        ax.grid(True, alpha=0.3)
    axes[0].legend(fontsize=7)
    return plot.save(fig, out / "bench-threads.png")


INTRO = """
`build/bench/threadtest` (bench/c/threadtest.c), in the style of the classic thread test: each
thread keeps a set of live blocks of random size and replaces each one every round, checking its
contents before freeing it; 10% of the old blocks pass through shared slots and are checked and
freed by another thread.  Arguments: `-t THREADS {args}`; the total work grows with the thread
count.  {reps}, allocators interleaved.  A run whose check failed is counted as failed.
Command: `make bench-threads` (`python -m bench threads --help`).
"""


def verdict(res: Result) -> str:
    """The kit's target: ts-nolock faster than ts-lock at 4+ threads with under 1.5x its heap."""
    lines = []
    for t in (t for t in res.threads if t >= 4):
        lock, nolock = res.value("ts-lock", t, "seconds"), res.value("ts-nolock", t, "seconds")
        hl, hn = res.value("ts-lock", t, "region_kb"), res.value("ts-nolock", t, "region_kb")
        if lock and nolock and hl and hn:
            lines.append(f"- {t} threads: ts-nolock takes {nolock.median / lock.median:.2f}× ts-lock's time "
                         f"with {hn.median / hl.median:.2f}× its heap (region high-water).")
    return "### ts-nolock against ts-lock\n\n" + ("\n".join(lines) if lines else "(not measured)")


def write(res: Result, out: Path, skipped: list[str]) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    m = report.measured()
    png = plots(res, out, m["cores"])
    intro = INTRO.format(args=" ".join(res.args), reps=report.count(res.reps, "repetition"))
    text = report.page("Threads: time and memory by thread count", intro,
                       [verdict(res)] + tables(res) + [f"![threads]({png.name})"], skipped, m, res)
    report.save_json(out / "bench-threads.json", res.to_json(), m)
    path = out / "bench-threads.md"
    path.write_text(text)
    return path

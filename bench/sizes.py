"""Study `sizes`: one malloc+free (calloc+free) pair's cost from 2 B to 1 GiB."""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from bench import plot, report
from bench.allocators import Allocator
from bench.measure import Repetitions, Study, Summary, not_served, parse_kv, run, summarize

KINDS = ("malloc", "calloc")


@dataclass(frozen=True)
class Point:
    allocator: str
    kind: str
    size: int
    first: Summary | None      # ns of the first pair at this size in a process
    steady: Summary | None     # ns per pair over many pairs
    failed: bool = False       # the allocator returned NULL
    crashed: int = 0           # processes that ended abnormally at this size (the sizes above: not reached)

    def to_json(self) -> dict:
        return {"allocator": self.allocator, "kind": self.kind, "size": self.size, "failed": self.failed,
                "crashed": self.crashed,
                "first": self.first and self.first.to_json(), "steady": self.steady and self.steady.to_json()}

    @classmethod
    def from_json(cls, d: dict) -> "Point":
        return cls(d["allocator"], d["kind"], d["size"], d["first"] and Summary.from_json(d["first"]),
                   d["steady"] and Summary.from_json(d["steady"]), d.get("failed", False), d.get("crashed", 0))


@dataclass(frozen=True)
class Result(Study):
    allocators: tuple[str, ...]
    reps: int
    points: tuple[Point, ...]

    def to_json(self) -> dict:
        return {"study": "sizes", "allocators": list(self.allocators), "reps": self.reps,
                "points": [p.to_json() for p in self.points], **self.notes_json()}

    @classmethod
    def from_json(cls, d: dict) -> "Result":
        return cls(tuple(d["allocators"]), d["reps"], tuple(Point.from_json(p) for p in d["points"]),
                   **Study.notes_from(d))

    def point(self, alloc: str, kind: str, size: int) -> Point | None:
        return next((p for p in self.points if (p.allocator, p.kind, p.size) == (alloc, kind, size)), None)

    def sizes(self) -> list[int]:
        return sorted({p.size for p in self.points})


def parse(text: str) -> list[dict]:
    """The program's lines as dicts with kind, size and either the times or failed."""
    rows = []
    for line in text.splitlines():
        kv = parse_kv(line)
        if "kind" not in kv or "size" not in kv:
            continue
        row = {"kind": kv["kind"], "size": int(kv["size"]), "failed": kv.get("failed") == "1"}
        if not row["failed"]:
            row["first_ns"] = float(kv["first_ns"])
            row["steady_ns"] = float(kv["steady_ns"])
        rows.append(row)
    return rows


def collect(prog: Path, allocs: list[Allocator], reps: int, lo: int, hi: int, pairs: int,
            budget: float, log: Callable[[str], None] = lambda s: None) -> Result:
    raw: dict[tuple, dict] = defaultdict(lambda: {"first": [], "steady": [], "failed": False, "crashed": 0})
    unserved: dict[str, str] = {}
    with Repetitions(reps) as stop:
        for rep in stop:
            for a in allocs:
                for kind in KINDS:
                    done = run([str(prog), "-k", kind, "-a", str(lo), "-b", str(hi), "-n", str(pairs),
                                "-B", str(budget)], a)
                    if done.returncode != 0:
                        log(f"sizes: {a.name} {kind} exited with {done.returncode}")
                    if not_served(unserved, a, done, "sizes", log):
                        continue
                    rows = parse(done.stdout)
                    if done.returncode != 0:    # it walks the sizes upwards: it ended at the next one
                        at = rows[-1]["size"] * 2 if rows else 1 << lo
                        if at <= 1 << hi:
                            raw[(a.name, kind, at)]["crashed"] += 1
                    for row in rows:
                        slot = raw[(a.name, kind, row["size"])]
                        if row["failed"]:
                            slot["failed"] = True
                        else:
                            slot["first"].append(row["first_ns"])
                            slot["steady"].append(row["steady_ns"])
                log(f"sizes: repetition {rep + 1}/{reps}: {a.name} done")
    points = tuple(Point(k[0], k[1], k[2], summarize(v["first"]), summarize(v["steady"]), v["failed"], v["crashed"])
                   for k, v in sorted(raw.items()))
    return Result(tuple(a.name for a in allocs), reps, points, unserved=unserved, partial=stop.partial)


def size_label(n: int) -> str:
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return f"{n >> shift} {unit}"
    return f"{n} B"


def steady_cell(p: Point | None, base: Point | None, reps: int) -> str:
    if p and p.failed:
        return "failed"
    text = report.cell(p and p.steady, base and base.steady)
    if p and p.crashed:
        crashed = f"crashed in {p.crashed} of {report.count(reps, 'run')}"
        return crashed if text == "–" else f"{text}, {crashed}"
    return text


def tables(res: Result) -> list[str]:
    out = []
    crashes = ("\n\nA process that ended abnormally (a crash, a signal) is shown at the size where it did "
               "(`crashed in N of M runs`); that run did not reach the sizes above it."
               if any(p.crashed for p in res.points) else "")
    for kind in KINDS:
        rows = []
        for size in res.sizes():
            base = res.point("glibc", kind, size)
            row = [size_label(size)]
            for a in res.allocators:
                row.append(steady_cell(res.point(a, kind, size), base, res.reps))
            rows.append(row)
        out.append(f"### {kind}+free, steady state: ns per pair, median [min–max], ×glibc{crashes}\n\n"
                   + report.table(["size"] + list(res.allocators), rows))
    rows = []
    for size in res.sizes():
        row = [size_label(size)]
        for kind in KINDS:
            p = res.point("glibc", kind, size)
            row += [report.cell(p and p.first), report.cell(p and p.steady)]
        rows.append(row)
    out.append("### glibc: the first pair at each size vs the steady state (ns)\n\n"
               "glibc serves a request at or above its mmap threshold (128 KiB at start) with mmap; "
               "freeing such a block raises the threshold to its size (up to 32 MiB), so the next "
               "requests of that size come from the heap.  The first pair pays for the mmap, the "
               "steady state does not, until the threshold stops adapting at 32 MiB.  calloc shows the "
               "other side: a block from the heap must be cleared (its time grows with the size), a "
               "fresh mapping is already zero, so above 32 MiB glibc's calloc is cheaper than at 16 MiB; "
               "the shims show the same drop where they hand requests to mmap.\n\n"
               + report.table(["size", "malloc first", "malloc steady", "calloc first", "calloc steady"], rows))
    return out


def plots(res: Result, out: Path) -> list[Path]:
    fig, axes = plot.figure(2)
    for ax, kind in zip(axes, KINDS):
        for a in res.allocators:
            pts = [p for p in (res.point(a, kind, s) for s in res.sizes()) if p and p.steady]
            if pts:
                ax.plot([p.size for p in pts], [p.steady.median for p in pts], marker=".",
                        linestyle="--" if a != "glibc" and not a.startswith(("jemalloc", "tcmalloc", "mimalloc")) else "-",
                        label=a)
        ax.set(xscale="log", yscale="log", xlabel="request size (bytes)", ylabel="ns per pair (median)",
               title=f"{kind} + free, steady state")
        ax.grid(True, which="both", alpha=0.3)
    axes[0].legend(fontsize=7)
    first = plot.save(fig, out / "bench-sizes.png")
    fig, axes = plot.figure(1)
    ax = axes[0]
    for kind in KINDS:
        pts = [p for p in (res.point("glibc", kind, s) for s in res.sizes()) if p and p.steady]
        ax.plot([p.size for p in pts], [p.first.median for p in pts], marker="o", label=f"{kind}: first pair")
        ax.plot([p.size for p in pts], [p.steady.median for p in pts], marker=".", label=f"{kind}: steady state")
    ax.axvline(128 << 10, color="grey", linestyle=":", label="initial mmap threshold 128 KiB")
    ax.axvline(32 << 20, color="black", linestyle=":", label="threshold maximum 32 MiB")
    ax.set(xscale="log", yscale="log", xlabel="request size (bytes)", ylabel="ns per pair (median)",
           title="glibc: adaptive mmap threshold")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)
    return [first, plot.save(fig, out / "bench-sizes-glibc.png")]


INTRO = """
Cost of one `malloc(n)` + `free` pair (and one `calloc(1, n)` + `free`) for n = 2^{lo} … 2^{hi}
bytes, measured by `build/bench/sizes` (bench/c/sizes.c) under each allocator, {reps}
per allocator, interleaved.  Each process walks the sizes upwards and times {pairs} pairs per
size (fewer for large sizes: calloc at most {budget_mib} MiB of clearing per size).  The shims
serve requests above half their 2 GiB region, and anything the variant cannot, from mmap.
Command: `make bench-sizes` (`python -m bench sizes --help`).
"""


def write(res: Result, out: Path, skipped: list[str], lo: int, hi: int, pairs: int, budget: float) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    m = report.measured()
    pngs = plots(res, out)
    figures = "\n\n".join(f"![{p.stem}]({p.name})" for p in pngs)
    intro = INTRO.format(lo=lo, hi=hi, reps=report.count(res.reps, "process", "processes"), pairs=pairs, budget_mib=int(budget) >> 20)
    text = report.page("Allocation cost by request size", intro, tables(res) + [figures], skipped, m, res)
    report.save_json(out / "bench-sizes.json", res.to_json(), m)
    path = out / "bench-sizes.md"
    path.write_text(text)
    return path

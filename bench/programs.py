"""Study `programs`: real programs under each allocator: wall time and peak RSS."""
from __future__ import annotations

import hashlib
import json
import os
import random
import sys
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from bench import plot, report
from bench.allocators import Allocator
from bench.measure import Repetitions, Study, Summary, not_served, run, summarize

PY_WORKLOAD = """
import json, random
random.seed(7)
table = {}
for i in range(SCALE):
    key = "k%d" % random.randrange(SCALE)
    table.setdefault(key, []).append(str(i) * (i % 13))
blob = json.dumps(table)
back = json.loads(blob)
words = sorted(w for v in back.values() for w in v)
print(len(blob), len(words), sum(map(len, words)) % 1000003)
"""


@dataclass(frozen=True)
class Workload:
    name: str
    argv: tuple[str, ...]
    output: str | None = None      # file whose bytes must match glibc's (else stdout)


@dataclass(frozen=True)
class Row:
    allocator: str
    workload: str
    wall: Summary | None
    rss_kb: Summary | None
    failures: int = 0
    wrong: int = 0
    unchecked: int = 0      # runs whose output had no glibc output to be compared with

    def to_json(self) -> dict:
        return {"allocator": self.allocator, "workload": self.workload, "failures": self.failures,
                "wrong": self.wrong, "unchecked": self.unchecked, "wall": self.wall and self.wall.to_json(),
                "rss_kb": self.rss_kb and self.rss_kb.to_json()}

    @classmethod
    def from_json(cls, d: dict) -> "Row":
        return cls(d["allocator"], d["workload"], d["wall"] and Summary.from_json(d["wall"]),
                   d["rss_kb"] and Summary.from_json(d["rss_kb"]), d.get("failures", 0), d.get("wrong", 0),
                   d.get("unchecked", 0))


@dataclass(frozen=True)
class Result(Study):
    allocators: tuple[str, ...]
    workloads: tuple[str, ...]
    descriptions: dict[str, str]
    reps: int
    rows: tuple[Row, ...]

    def to_json(self) -> dict:
        return {"study": "programs", "allocators": list(self.allocators), "workloads": list(self.workloads),
                "descriptions": self.descriptions, "reps": self.reps, "rows": [r.to_json() for r in self.rows], **self.notes_json()}

    @classmethod
    def from_json(cls, d: dict) -> "Result":
        return cls(tuple(d["allocators"]), tuple(d["workloads"]), d["descriptions"], d["reps"],
                   tuple(Row.from_json(r) for r in d["rows"]), **Study.notes_from(d))

    def get(self, alloc: str, workload: str) -> Row | None:
        return next((r for r in self.rows if (r.allocator, r.workload) == (alloc, workload)), None)


def make_inputs(work: Path, scale: float) -> tuple[list[Workload], dict[str, str]]:
    """Write the seeded inputs into work/ and return the workloads."""
    work.mkdir(parents=True, exist_ok=True)
    rng = random.Random(2024)
    lines = int(400_000 * scale)
    sort_in = work / "sort-input.txt"
    sort_in.write_text("".join(f"{rng.randrange(10**9):09d} {rng.choice('abcdefgh') * rng.randrange(1, 30)}\n"
                               for _ in range(lines)))
    funcs = int(250 * scale) or 1
    csrc = work / "compile-input.c"
    body = []
    for f in range(funcs):
        cases = "".join(f"case {c}: acc = acc * {c + 3} + (x >> {c % 7}); break;\n" for c in range(12))
        body.append(f"long f{f}(long x) {{ long acc = {f}; for (int i = 0; i < x; i++) {{ switch ((x + i) % 12) {{\n"
                    f"{cases} }} }} return acc; }}\n")
    csrc.write_text("".join(body))
    python = os.path.realpath(sys.executable)
    sort_out = work / "sort-output.txt"
    obj = work / "compile-output.o"
    workloads = [
        Workload("python", (python, "-c", PY_WORKLOAD.replace("SCALE", str(int(200_000 * scale))))),
        Workload("sort", ("sort", "-o", str(sort_out), str(sort_in)), str(sort_out)),
        Workload("gcc", ("gcc", "-O2", "-c", "-o", str(obj), str(csrc)), str(obj)),
    ]
    desc = {"python": f"python3 building a {int(200_000 * scale):,}-key dict of lists, JSON round trip, sort",
            "sort": f"sort (LC_ALL=C) of {lines:,} seeded lines ({sort_in.stat().st_size >> 20} MiB)",
            "gcc": f"gcc -O2 -c of a generated file of {funcs} switch-heavy functions"}
    return workloads, desc


def fingerprint(w: Workload, stdout: str) -> str:
    data = Path(w.output).read_bytes() if w.output and Path(w.output).exists() else stdout.encode()
    return hashlib.sha256(data).hexdigest()


def collect(work: Path, allocs: list[Allocator], reps: int, scale: float,
            log: Callable[[str], None] = lambda s: None) -> Result:
    workloads, desc = make_inputs(work, scale)
    walls: dict[tuple, list[float]] = defaultdict(list)
    rss: dict[tuple, list[float]] = defaultdict(list)
    failures: dict[tuple, int] = defaultdict(int)
    outputs: dict[tuple, list[str]] = defaultdict(list)     # each timed run's output, by its checksum
    unserved: dict[str, str] = {}
    with Repetitions(reps) as stop:
        for rep in stop:
            for w in workloads:
                for a in allocs:                      # glibc first: its output is the reference
                    if w.output:
                        Path(w.output).unlink(missing_ok=True)
                    done = run(list(w.argv), a, timeout=300, cwd=work, extra_env={"LC_ALL": "C"})
                    key = (a.name, w.name)
                    if done.returncode != 0:
                        failures[key] += 1
                        log(f"programs: {w.name} under {a.name} failed (exit {done.returncode}): {done.stderr.strip()[:200]}")
                        continue
                    if not_served(unserved, a, done, "programs", log):
                        failures[key] += 1
                        continue
                    outputs[key].append(fingerprint(w, done.stdout))
                    walls[key].append(done.wall)
                    rss[key].append(done.maxrss_kb)
            log(f"programs: repetition {rep + 1}/{reps} done")
    wrong, unchecked = check_outputs(outputs, allocs, workloads, log)
    rows = tuple(Row(a.name, w.name, summarize(walls[(a.name, w.name)]), summarize(rss[(a.name, w.name)]),
                     failures[(a.name, w.name)], wrong[(a.name, w.name)], unchecked[(a.name, w.name)])
                 for w in workloads for a in allocs)
    return Result(tuple(a.name for a in allocs), tuple(w.name for w in workloads), desc, reps, rows,
                  unserved=unserved, partial=stop.partial)


def check_outputs(outputs: dict[tuple, list[str]], allocs: list[Allocator], workloads: list[Workload],
                  log: Callable[[str], None]) -> tuple[dict[tuple, int], dict[tuple, int]]:
    """Each run's output against glibc's first (wrong), or not checked when no glibc run of the
    workload succeeded: the first output of any allocator is no reference (unchecked)."""
    wrong: dict[tuple, int] = defaultdict(int)
    unchecked: dict[tuple, int] = defaultdict(int)
    for w in workloads:
        ref = next(iter(outputs.get(("glibc", w.name), [])), None)
        for a in allocs:
            key = (a.name, w.name)
            if ref is None:
                unchecked[key] = len(outputs.get(key, []))
            else:
                wrong[key] = sum(fp != ref for fp in outputs.get(key, []))
                if wrong[key]:
                    log(f"programs: {w.name} under {a.name} gave a different result from glibc "
                        f"in {wrong[key]} of its runs")
    return wrong, unchecked


def tables(res: Result) -> list[str]:
    out = []
    for metric, title in (("wall", "wall time (s)"), ("rss_kb", "peak RSS (KiB)")):
        rows = []
        for a in res.allocators:
            row = [a]
            for w in res.workloads:
                r, base = res.get(a, w), res.get("glibc", w)
                if r and (r.failures or r.wrong):
                    row.append(f"{r.failures} failed, {r.wrong} wrong")
                else:
                    text = report.cell(r and getattr(r, metric), base and getattr(base, metric))
                    row.append(text + (" (output not checked: no glibc run succeeded)" if r and r.unchecked else ""))
            rows.append(row)
        out.append(f"### {title}, median [min–max] over {res.reps}, ×glibc\n\n"
                   + report.table(["allocator"] + list(res.workloads), rows))
    return out


def plots(res: Result, out: Path) -> Path:
    fig, axes = plot.figure(2)
    width = 0.8 / max(1, len(res.allocators))
    for ax, metric, label in ((axes[0], "wall", "wall time ×glibc"), (axes[1], "rss_kb", "peak RSS ×glibc")):
        for i, a in enumerate(res.allocators):
            xs, ys = [], []
            for j, w in enumerate(res.workloads):
                r, base = res.get(a, w), res.get("glibc", w)
                v, b = r and getattr(r, metric), base and getattr(base, metric)
                if v and b and b.median:
                    xs.append(j + i * width)
                    ys.append(v.median / b.median)
            ax.bar(xs, ys, width, label=a)
        ax.set_xticks([j + 0.4 - width / 2 for j in range(len(res.workloads))], list(res.workloads))
        ax.axhline(1, color="black", linewidth=0.8)
        ax.set(ylabel=label)
    axes[0].legend(fontsize=6, ncol=2)
    return plot.save(fig, out / "bench-programs.png")


INTRO = """
Real programs run with each allocator preloaded (`LD_PRELOAD`; glibc runs with none but
bench/c/preload/witness.c, which every run preloads last and whose line per process says which file served
malloc: a run the allocator did not serve is counted as failed, not timed), wall time and
peak RSS taken from `wait4` on the program (which covers the children it waited for, such as
cc1 under gcc), as mimalloc-bench reports them.  The program is started by a small helper
(bench/c/rusage.c), not by the Python bench: peak RSS keeps what a process had before exec, so
figures taken before this was fixed (ec96d1c and earlier) were the bench's own RSS, about 115 MB
under every allocator.  Every output is compared with glibc's (same
bytes), so a wrong result is reported, not timed.  {reps}, allocators interleaved.
Command: `make bench-programs` (`python -m bench programs --help`).

{workloads}
"""


def write(res: Result, out: Path, skipped: list[str]) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    m = report.measured()
    png = plots(res, out)
    listing = "\n".join(f"- `{w}`: {res.descriptions[w]}" for w in res.workloads)
    text = report.page("Real programs under each allocator", INTRO.format(reps=report.count(res.reps, "repetition"), workloads=listing),
                       tables(res) + [f"![programs]({png.name})"], skipped, m, res)
    report.save_json(out / "bench-programs.json", res.to_json(), m)
    path = out / "bench-programs.md"
    path.write_text(text)
    return path

"""Study `align`: pipe-write throughput from malloc'd vs page-aligned buffers."""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from bench import plot, report
from bench.allocators import Allocator
from bench.measure import Repetitions, Study, Summary, not_served, parse_kv, run, summarize

KINDS = ("malloc", "page", "odd")
SIZES = (4096, 8192, 16384, 32768)


@dataclass(frozen=True)
class Point:
    allocator: str
    kind: str
    size: int
    mbps: Summary | None
    offsets: tuple[int, ...]        # buffer address mod page size, as seen in each run
    failures: int = 0               # runs that crashed or printed no result

    def to_json(self) -> dict:
        return {"allocator": self.allocator, "kind": self.kind, "size": self.size,
                "mbps": self.mbps and self.mbps.to_json(), "offsets": list(self.offsets),
                "failures": self.failures}

    @classmethod
    def from_json(cls, d: dict) -> "Point":
        return cls(d["allocator"], d["kind"], d["size"], d["mbps"] and Summary.from_json(d["mbps"]),
                   tuple(d["offsets"]), d.get("failures", 0))


@dataclass(frozen=True)
class Result(Study):
    allocators: tuple[str, ...]
    sizes: tuple[int, ...]
    reps: int
    megabytes: float
    points: tuple[Point, ...]

    def to_json(self) -> dict:
        return {"study": "align", "allocators": list(self.allocators), "sizes": list(self.sizes),
                "reps": self.reps, "megabytes": self.megabytes, "points": [p.to_json() for p in self.points],
                **self.notes_json()}

    @classmethod
    def from_json(cls, d: dict) -> "Result":
        return cls(tuple(d["allocators"]), tuple(d["sizes"]), d["reps"], d["megabytes"],
                   tuple(Point.from_json(p) for p in d["points"]), **Study.notes_from(d))

    def get(self, alloc: str, kind: str, size: int) -> Point | None:
        return next((p for p in self.points if (p.allocator, p.kind, p.size) == (alloc, kind, size)), None)


def parse(text: str) -> dict | None:
    for line in text.splitlines():
        kv = parse_kv(line)
        if "mbps" in kv:
            return {"kind": kv["kind"], "size": int(kv["size"]), "offset": int(kv["offset"]),
                    "mbps": float(kv["mbps"])}
    return None


def collect(prog: Path, allocs: list[Allocator], sizes: tuple[int, ...], reps: int, megabytes: float,
            log: Callable[[str], None] = lambda s: None) -> Result:
    raw: dict[tuple, list[float]] = defaultdict(list)
    offsets: dict[tuple, list[int]] = defaultdict(list)
    failures: dict[tuple, int] = defaultdict(int)
    unserved: dict[str, str] = {}
    with Repetitions(reps) as stop:
        for rep in stop:
            for size in sizes:
                for a in allocs:
                    for kind in KINDS:
                        done = run([str(prog), "-s", str(size), "-k", kind, "-m", str(megabytes)], a)
                        row = parse(done.stdout)
                        if done.returncode != 0 or row is None:
                            log(f"align: {a.name} {kind} {size} failed (exit {done.returncode})")
                            failures[(a.name, kind, size)] += 1
                            continue
                        if not_served(unserved, a, done, "align", log):
                            failures[(a.name, kind, size)] += 1
                            continue
                        raw[(a.name, kind, size)].append(row["mbps"])
                        offsets[(a.name, kind, size)].append(row["offset"])
            log(f"align: repetition {rep + 1}/{reps} done")
    points = tuple(Point(a.name, k, s, summarize(raw[(a.name, k, s)]), tuple(sorted(set(offsets[(a.name, k, s)]))),
                         failures[(a.name, k, s)])
                   for a in allocs for k in KINDS for s in sizes)
    return Result(tuple(a.name for a in allocs), tuple(sizes), reps, megabytes, points,
                  unserved=unserved, partial=stop.partial)


def mbps_cell(p: Point | None, base: Point | None, reps: int) -> str:
    text = report.cell(p and p.mbps, base and base.mbps)
    if p and p.failures:
        failed = f"failed in {p.failures} of {report.count(reps, 'run')}"
        return failed if text == "–" else f"{text}, {failed}"
    return text


def tables(res: Result) -> list[str]:
    out = []
    rows = []
    for a in res.allocators:
        for s in res.sizes:
            m, p, o = (res.get(a, k, s) for k in KINDS)
            base = res.get("glibc", "malloc", s)
            ratio = f"{m.mbps.median / p.mbps.median:.2f}" if m and p and m.mbps and p.mbps else "–"
            offset = f" (offset {','.join(map(str, m.offsets))})" if m and m.offsets else ""
            rows.append([a, f"{s >> 10} KiB", mbps_cell(m, base, res.reps) + offset,
                         mbps_cell(p, base, res.reps), mbps_cell(o, base, res.reps), ratio])
    out.append("### MB/s written to a pipe, median [min–max], ×glibc's malloc buffer of that size\n\n"
               "Offset: the malloc buffer's address modulo 4096.  `page`: posix_memalign(4096).  "
               "`odd`: the malloc buffer plus one byte.\n\n"
               + report.table(["allocator", "buffer", "malloc", "page-aligned", "odd (+1)", "malloc / page"], rows))
    return out


def plots(res: Result, out: Path) -> Path:
    fig, axes = plot.figure(1)
    ax = axes[0]
    for a in res.allocators:
        for kind, style in (("malloc", "-"), ("page", "--")):
            pts = [res.get(a, kind, s) for s in res.sizes]
            pts = [p for p in pts if p and p.mbps]
            if pts and (a == "glibc" or kind == "malloc"):
                ax.plot([p.size for p in pts], [p.mbps.median for p in pts], linestyle=style, marker="o",
                        label=f"{a} {kind}")
    ax.set(xscale="log", xlabel="buffer size (bytes)", ylabel="MB/s into a pipe (median)",
           title="write(2) throughput by buffer alignment")
    ax.set_xticks(list(res.sizes), [f"{s >> 10}K" for s in res.sizes])
    ax.minorticks_off()
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=6)
    return plot.save(fig, out / "bench-align.png")


INTRO = """
`build/bench/alignpipe` (bench/c/alignpipe.c) writes {mb:g} MiB into a pipe from one buffer
(4–32 KiB) while a second thread drains it: the buffer comes from malloc as returned, from
posix_memalign(4096), or from malloc plus one byte.  {reps}, interleaved.  The kernel
copies the buffer into pipe pages; a buffer that starts mid-page spans one more page per write,
and the copy's source alignment changes.
Command: `make bench-align` (`python -m bench align --help`).
"""


def write(res: Result, out: Path, skipped: list[str]) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    m = report.measured()
    png = plots(res, out)
    text = report.page("Buffer alignment and write throughput", INTRO.format(mb=res.megabytes, reps=report.count(res.reps, "repetition")),
                       tables(res) + [f"![align]({png.name})"], skipped, m, res)
    report.save_json(out / "bench-align.json", res.to_json(), m)
    path = out / "bench-align.md"
    path.write_text(text)
    return path

"""results.py - measure every allocator in variants/ and write docs/results.md.

Each variant is built (`make driver`) and run by the kit's driver on the trace
suite, which times libc on every trace in the same run; the JSON results are kept
under build/results/ and turned into tables, plots and a check of what the
textbook predicts.  Only main() prints; the rest returns values or text.

    .venv/bin/python tools/results.py                      # everything (slow: the implicit lists)
    .venv/bin/python tools/results.py --reuse --rerun best # re-measure one, reuse the rest

One run's ratio to libc moves with the machine (libc's own Kops on the same traces varied by
1.3-1.9x between variants' rows of one run), so each variant is run several times, in rounds
(every variant once per round, so that a slow spell touches them alike), and the tables show
its median run by that ratio, with the ratios' range beside it.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from statistics import mean, median
from typing import Callable

import click
from filelock import FileLock

KIT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(1, str(KIT))

from bench.hostload import Window, shared  # noqa: E402
from bench.report import commit_text, source_facts  # noqa: E402
from grader.build import first_error  # noqa: E402
from grader.runs import median_index  # noqa: E402
from mmtrace.driver_result import PartialRun, whole_run  # noqa: E402
from mmtrace.oneline import FloatRange, IntRange, Interrupted, NonEmptyPath, OneLineCommand  # noqa: E402
from mmtrace.recipe import RecipeError, load_recipe  # noqa: E402
from mmtrace.trace import replace_file, trace_stem  # noqa: E402
from options import SAMPLES, TIME_LIMIT, kit_path, writable_folder  # noqa: E402
from results_claims import claims_section, speedup  # noqa: E402
from results_plots import plot_all  # noqa: E402

# The progression, in the order a course walks it; other variants follow.
ORDER = ["implicit-first", "implicit-next", "implicit-best", "implicit-worst",
         "explicit-lifo", "explicit-fifo", "explicit-addr", "segregated",
         "segregated-realloc", "best"]
LAYOUTS = 16      # best's placement layouts (MM_LAYOUT) whose mean the targets table shows
STAT_SUMS = ["mallocs", "frees", "reallocs", "reallocs_in_place", "reuses", "extensions",
             "splits", "coalesces", "bytes_requested"]


@dataclass(frozen=True)
class TraceResult:
    name: str
    group: str
    outcome: str
    utilization: float | None
    kops: float | None
    libc_kops: float | None
    stats: dict[str, int] = field(default_factory=dict)
    ideal: float | None = None
    seconds: float | None = None       # the variant's time on the trace ...
    libc_seconds: float | None = None  # ... and libc's, timed in the same run

    @property
    def ratio(self) -> float | None:
        """Throughput over libc's on this trace, both from this one run (a libc figure from
        another run would carry that run's noise: libc's own Kops moves by a fifth between runs)."""
        if not (self.seconds and self.libc_seconds):
            return None
        return self.libc_seconds / self.seconds

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, d: dict) -> "TraceResult":
        return cls(**d)


@dataclass(frozen=True)
class Run:
    """One variant at one alignment on one set of traces."""
    variant: str
    alignment: int
    traces: tuple[TraceResult, ...]
    utilization: float
    kops: float | None
    libc_kops: float | None
    ratio: float | None
    perf_index: float
    failed: int
    machine: str = ""
    date: str = ""
    ratios: tuple[float | None, ...] = ()   # each run's ratio to libc (None: every trace failed), if run more than once
    loads: tuple[float, ...] = ()    # the cores other processes kept busy during each run (none in older caches)
    commits: tuple[str, ...] = ()    # the kit's commit each run was built from

    def to_json(self) -> dict:
        d = asdict(self)
        d["traces"] = [t.to_json() for t in self.traces]
        return d

    @classmethod
    def from_json(cls, d: dict) -> "Run":
        return cls(**{**d, "traces": tuple(TraceResult.from_json(t) for t in d["traces"]),
                      **{k: tuple(d.get(k, ())) for k in ("ratios", "loads", "commits")}})

    def group_util(self, group: str) -> float | None:
        us = [t.utilization or 0.0 for t in self.traces if t.group == group]
        return mean(us) if us else None

    def trace(self, name: str) -> TraceResult | None:
        return next((t for t in self.traces if t.name == name), None)

    def measured_ratios(self) -> list[float]:
        """The ratios the runs measured: a run where every trace failed has none, not a 0."""
        return [x for x in self.ratios if x is not None]


def trace_groups(traces_dir: Path) -> dict[str, str]:
    """trace name -> group, from the suite's recipe.toml; by name prefix otherwise."""
    recipe = traces_dir / "recipe.toml"
    if not recipe.exists():
        return {}
    try:
        return {e.name: e.group for e in load_recipe(recipe).entries}
    except RecipeError as e:
        raise click.ClickException(str(e)) from None


def group_of(name: str, groups: dict[str, str]) -> str:
    if name in groups:
        return groups[name]
    for prefix, group in (("classic-", "classic"), ("lab64-", "lab64"), ("rec-", "recorded")):
        if name.startswith(prefix):
            return group
    return "kit"


def median_run(runs: list[Run]) -> Run:
    """The run whose ratio to libc is the median of RUNS' (the lower middle of an even count),
    carrying every run's ratio; a run without a ratio (every trace failed) counts as lowest.
    Its tables are one real run's, not a mix of figures from several."""
    if len(runs) == 1:
        return runs[0]
    ratios = tuple(r.ratio for r in runs)
    return replace(runs[median_index(tuple(x or 0.0 for x in ratios))], ratios=ratios, loads=tuple(x for r in runs for x in r.loads),
                   commits=tuple(c for r in runs for c in r.commits))


def trace_results(d: dict, groups: dict[str, str]) -> tuple[TraceResult, ...]:
    """Each trace of a driver's JSON, its timing beside libc's from the same run."""
    def kops(timing: dict | None) -> float | None:
        return timing["ops_per_sec"] / 1000 if timing else None

    def seconds(timing: dict | None) -> float | None:
        return timing["seconds"] if timing else None

    return tuple(TraceResult(name=t["name"], group=group_of(t["name"], groups), outcome=t["outcome"],
                             utilization=t["utilization"], kops=kops(t["timing"]),
                             libc_kops=kops(t["libc"]), stats=t["stats"] or {},
                             ideal=t.get("ideal_utilization"), seconds=seconds(t["timing"]),
                             libc_seconds=seconds(t["libc"]))
                 for t in d["traces"])


def run_from_driver_json(variant: str, alignment: int, d: dict, groups: dict[str, str]) -> Run:
    traces = trace_results(d, groups)
    s = d["summary"]
    return Run(variant=variant, alignment=alignment, traces=traces, utilization=s["utilization"],
               kops=s["throughput_ops_per_sec"] and s["throughput_ops_per_sec"] / 1000,
               libc_kops=s["libc_ops_per_sec"] and s["libc_ops_per_sec"] / 1000,
               ratio=s["throughput_ratio"], perf_index=s["perf_index"], failed=s["failed"],
               machine=d["machine"]["cpu"], date=d["machine"]["date"],
               loads=(float(d[LOAD]),) if d.get(LOAD) is not None else (),
               commits=(str(d[COMMIT]),) if d.get(COMMIT) else ())


# ---------------------------------------------------------------- measuring

JOBS = min(8, len(os.sched_getaffinity(0)))    # make's jobs: a build is most of a --fast compare

def make_driver(alloc_args: list[str], alignment: int, what: str, target: str = "driver") -> Path:
    """`make driver` (or TARGET: `replay` builds mmreplay) with ALLOC_ARGS (VARIANT=... or MM=...);
    WHAT names the allocator in errors."""
    (KIT / "build").mkdir(exist_ok=True)
    with FileLock(str(KIT / "build" / ".make.lock")):   # the tests build in the same folders
        done = subprocess.run(["make", "-s", f"-j{JOBS}", "-C", str(KIT), target, *alloc_args,
                               f"ALIGNMENT={alignment}"], capture_output=True, text=True, errors="replace")
    if done.returncode != 0:            # the compiler's error, not make's closing "*** Error 1"
        raise click.ClickException(f"{what} does not build at alignment {alignment}: "
                                   + (first_error(done.stderr) or "?"))
    return KIT / done.stdout.strip().splitlines()[-1]


def build(variant: str, alignment: int) -> Path:
    return make_driver([f"VARIANT={variant}"], alignment, f"variants/{variant}.c")


ELAPSED = "results_elapsed_seconds"    # added to the driver's JSON in the cache: the run's wall time
LOAD = "results_other_cores"           # ... the cores other processes kept busy meanwhile (bench/hostload.py)
COMMIT = "results_commit"              # ... the kit's commit, and what in it was edited
MEASURED_SOURCES = ("variants", "driver", "mdriver.c", "memlib.c", "memlib.h", "mm.h", "config.h", "Makefile")


def run_driver(driver: Path, label: str, files: list[Path], time_limit: int, samples: int | None, out: Path) -> dict:
    """Run DRIVER on FILES into OUT (JSON); LABEL names the allocator in errors.  SAMPLES None: no
    timing to ask for (mmreplay, which takes mdriver's -T and --json but not -r)."""
    partial = out.with_suffix(".partial")
    args = [str(driver), "-T", str(time_limit), *(["-r", str(samples)] if samples is not None else []), "--json", str(partial)]
    for f in files:
        args += ["-f", str(f)]
    head, edited = source_facts(KIT, MEASURED_SOURCES)
    window = Window()
    started = time.monotonic()
    done = subprocess.run(args, capture_output=True, text=True, errors="replace")
    if done.returncode not in (0, 1) or not partial.exists():
        raise click.ClickException(f"{'mmreplay' if samples is None else 'mdriver'} failed for {label}: "
                                   + (done.stderr.strip().splitlines() or ["no output"])[-1])
    try:
        result = json.loads(partial.read_text())
        whole_run(result, str(partial))
    except PartialRun as err:
        raise click.ClickException(str(err)) from None
    except (OSError, ValueError) as err:      # the driver's last word, then what is wrong with its file
        said = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise click.ClickException(f"{label}: {partial} is not the driver's JSON ({err}); the driver said: {said}") from None
    result[ELAPSED] = round(time.monotonic() - started, 3)   # whether the run is worth repeating
    result[LOAD] = window.other_cores()
    result[COMMIT] = commit_text(head, edited) if head else None
    partial.write_text(json.dumps(result))
    partial.replace(out)            # only a finished run lands in the cache
    return result


def measure(variant: str, alignment: int, files: list[Path], time_limit: int, samples: int, out: Path) -> dict:
    return run_driver(build(variant, alignment), variant, files, time_limit, samples, out)


@dataclass(frozen=True)
class Setup:
    """What a run is to be measured on, and with which driver settings: a cached run of other
    traces (another --traces) or settings (-T, -r) would be published as this one."""
    files: tuple[Path, ...]
    time_limit: int
    samples: int

    def differs(self, d: dict) -> str | None:
        """How the driver's JSON D was measured otherwise than planned, or None."""
        if [t["path"] for t in d["traces"]] != [str(f) for f in self.files]:
            return "measured on other traces than this run's (another --traces?)"
        s = d["settings"]
        if (s["time_limit"], s["min_samples"]) != (self.time_limit, self.samples):
            return (f"measured with -T {s['time_limit']} -r {s['min_samples']}, not -T {self.time_limit} "
                    f"-r {self.samples}")
        return None


def cached(path: Path, variant: str, alignment: int, groups: dict[str, str],
           setup: Setup | None = None) -> tuple[Run, float] | None:
    """The run cached at PATH and how long it took, or None when there is none, it cannot be read
    (a file from another version of the kit, or edited), it is of an interrupted run or it was not
    measured as SETUP says: then it is measured again."""
    if not path.exists():
        return None
    try:
        d = whole_run(json.loads(path.read_text()), str(path))
        if setup and (why := setup.differs(d)):
            click.echo(f"warning: {path}: {why}; measuring again", err=True)
            return None
        return run_from_driver_json(variant, alignment, d, groups), float(d.get(ELAPSED, 0))
    except PartialRun as e:
        click.echo(f"warning: {e}; measuring again", err=True)
        return None
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
        click.echo(f"warning: {path}: not a result this kit can read ({type(e).__name__}: {e}); measuring again",
                   err=True)
        return None


def cached_or_run(path: Path, variant: str, alignment: int, groups: dict[str, str], reuse: bool,
                  announce: str, run, setup: Setup) -> tuple[Run, float]:
    """VARIANT's result at PATH: read from the cache when REUSE and it is readable and measured as
    SETUP says, else measured by RUN(path) (which returns the driver's JSON) after printing ANNOUNCE;
    with its seconds."""
    found = cached(path, variant, alignment, groups, setup) if reuse else None
    if found:
        return found
    click.echo(announce, err=True)
    d = run(path)
    return run_from_driver_json(variant, alignment, d, groups), d[ELAPSED]


def cache_file(cache_dir: Path, variant: str, alignment: int, run: int) -> Path:
    """The cached JSON of VARIANT's RUN-th run (0 first) at ALIGNMENT."""
    return cache_dir / f"{variant}-a{alignment}{f'-r{run + 1}' if run else ''}.json"


def measure_rounds(names: list[str], plan: list[tuple[int, list[Path]]], cache_dir: Path, groups: dict[str, str],
                   reuse: bool, rerun: tuple[str, ...], repeats: int, repeat_limit: float,
                   time_limit: int, samples: int) -> dict[int, list[Run]]:
    """Run every variant REPEATS times at each (alignment, files) of PLAN, in rounds, and return
    each one's median run per alignment.  A variant whose first run took over REPEAT_LIMIT
    seconds runs once (the implicit lists on the whole suite: their ratio is far from any target).
    With REUSE, a run already in the cache is read, not measured, unless its variant is in RERUN."""
    taken: dict[tuple[str, int], list[Run]] = {}
    slow: set[tuple[str, int]] = set()
    for run in range(repeats):
        for alignment, files in plan:
            for name in names:
                if (name, alignment) in slow:
                    continue
                found = cached_or_run(
                    cache_file(cache_dir, name, alignment, run), name, alignment, groups, reuse and name not in rerun,
                    f"measuring {name} at {alignment}-byte alignment on {len(files)} trace{'s' * (len(files) > 1)}"
                    + (f" (run {run + 1} of {repeats})" if repeats > 1 else ""),
                    lambda path: measure(name, alignment, files, time_limit, samples, path),
                    Setup(tuple(files), time_limit, samples))
                taken.setdefault((name, alignment), []).append(found[0])
                if run == 0 and found[1] > repeat_limit:
                    slow.add((name, alignment))
    medians: dict[int, list[Run]] = {alignment: [] for alignment, _ in plan}
    for (name, alignment), runs in taken.items():
        if len({r.utilization for r in runs}) > 1:
            click.echo(f"warning: {name} at {alignment}-byte alignment scored different utilizations in its "
                       f"{len(runs)} runs ({', '.join(pct(r.utilization) for r in runs)}); the tables show its "
                       "median run's", err=True)
        medians[alignment].append(median_run(runs))
    return medians


def suite_files(traces_dir: Path, groups: dict[str, str], group: str | None = None) -> list[Path]:
    files = sorted([*traces_dir.glob("*.rep"), *traces_dir.glob("*.rep.gz")])
    if group:
        files = [f for f in files if group_of(trace_stem(f.name), groups) == group]
    return files


# ---------------------------------------------------------------- rendering

def pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.1f}%"


def num(x: float | None, digits: int = 0) -> str:
    return "-" if x is None else f"{x:,.{digits}f}"


def table(header: list[str], rows: list[list[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    return lines + ["| " + " | ".join(r) + " |" for r in rows]


def summary_table(runs: list[Run], groups: list[str]) -> list[str]:
    header = ["variant", "util", *[f"{g} util" for g in groups], "Kops", "libc Kops", "ratio to libc",
              "perf index", "failed traces"]
    rows = [[f"`{r.variant}`", pct(r.utilization), *[pct(r.group_util(g)) for g in groups],
             num(r.kops), num(r.libc_kops), num(r.ratio, 2) + ratio_range(r), num(r.perf_index, 1),
             ", ".join(t.name + " (" + t.outcome + ")" for t in r.traces if t.outcome != "ok") or "0"]
            for r in runs]
    return table(header, rows)


def ratio_range(r: Run) -> str:
    """ " (lo-hi over n runs)" for a variant run more than once, naming the runs without a
    ratio; "" otherwise."""
    if len(r.ratios) < 2:
        return ""
    measured = r.measured_ratios()
    missing = len(r.ratios) - len(measured)
    if not measured:
        return f" (no ratio in any of {len(r.ratios)} runs: every trace failed)"
    spread = f"{min(measured):.2f}-{max(measured):.2f}" if len(measured) > 1 else f"{measured[0]:.2f}"
    runs = f"{len(measured)} run" + ("s" if len(measured) > 1 else "")
    return f" ({spread} over {runs}" + (f"; {missing} more had no ratio: every trace failed" if missing else "") + ")"


def per_trace_table(runs: list[Run], value, last: tuple[str, Callable[[str], str]] | None = None) -> list[str]:
    """A row per trace, VALUE(trace result) under each run; LAST, (header, trace name -> cell),
    adds a column."""
    names = [t.name for t in runs[0].traces]
    rows = [[n, *[value(r.trace(n)) if r.trace(n) else "-" for r in runs], *([last[1](n)] if last else [])]
            for n in names]
    return table(["trace", *[f"`{r.variant}`" for r in runs], *([last[0]] if last else [])], rows)


def small_times(ratio: float | None) -> str:
    """A ratio to libc, with two significant digits below 0.1x (the implicit lists: not all 0.00x)."""
    if ratio is None:
        return "-"
    return f"{ratio:.2g}x" if ratio < 0.1 else times(ratio)


def trace_ratio(t: TraceResult) -> str:
    if t.ratio is not None:
        return small_times(t.ratio)
    return t.outcome if t.outcome != "ok" else "-"


def libc_spread(runs: list[Run], name: str) -> str:
    """libc's Kops on trace NAME over RUNS (each variant's own run): the median and the range."""
    ks = sorted(t.libc_kops for r in runs if (t := r.trace(name)) and t.libc_kops)
    return f"{num(median(ks))} ({num(ks[0])}-{num(ks[-1])})" if ks else "-"


def libc_moved(runs: list[Run]) -> str:
    """The page's warning that two variants' figures are two runs, with how far libc moved between them."""
    ks = sorted(r.libc_kops for r in runs if r.libc_kops)
    if len(ks) < 2:
        return ""
    return ("  Each variant's figures come from its own run, libc's beside them included, so its ratio to libc"
            " compares two figures of one run; two variants' figures (their Kops, or one's Kops and another"
            f" row's libc) come from different runs, between which libc's own Kops on the whole suite moved from"
            f" {num(ks[0])} to {num(ks[-1])} on this page.")


def stats_table(runs: list[Run]) -> list[str]:
    rows = []
    for r in runs:
        sums = [sum(t.stats.get(k, 0) for t in r.traces) for k in STAT_SUMS]
        peak = max((t.stats.get("peak_heap", 0) for t in r.traces), default=0)
        left = sum(t.stats.get("free_blocks", 0) for t in r.traces)
        rows.append([f"`{r.variant}`", *[f"{s:,}" for s in sums], f"{left:,}", f"{peak:,}"])
    return table(["variant", *STAT_SUMS, "free_blocks (end)", "peak_heap (max)"], rows)



def pct_near(value: float | None, goal: float) -> str:
    """A utilization against its goal: one decimal, two when one would round it onto the goal."""
    if value is None or abs(value - goal) >= 0.0005:
        return pct(value)
    return f"{100 * value:.2f}%"


def times(ratio: float | None) -> str:
    """A ratio to libc: two decimals, three when two would round it onto 1x."""
    digits = 3 if ratio is not None and 0.995 <= ratio < 1.005 else 2
    return num(ratio, digits) + "x"

def targets_section(best16: Run | None, best8: Run | None, seg: Run | None, implicit: Run | None,
                    others: list[Run], layouts: list[float] | None = None) -> list[str]:
    """The issue's targets; LAYOUTS, best's suite average at its placement layouts 0..n-1
    (MM_LAYOUT), adds the same utilization target judged on their mean."""
    out = ["## Targets of `best` (issue 3)", ""]
    if not best16:
        return out + ["`best` was not measured.", ""]
    rows = []

    def row(what: str, measured: str, ok: bool) -> None:
        rows.append([what, measured, "met" if ok else "**not met**"])

    if best8:
        row("classic group, 8-byte alignment: utilization >= 97.2%", pct_near(best8.utilization, 0.972),
            best8.utilization >= 0.972)
        row("classic group, 8-byte alignment: throughput >= 1x libc", times(best8.ratio) + ratio_range(best8),
            (best8.ratio or 0) >= 1)
    lab = best16.group_util("lab64")
    row("whole suite, 16-byte alignment: utilization >= 90%", pct_near(best16.utilization, 0.90),
        best16.utilization >= 0.90)
    if layouts and len(layouts) > 1:
        m, hit = mean(layouts), sum(u >= 0.90 for u in layouts)
        row(f"the same, mean over {len(layouts)} placement layouts (`MM_LAYOUT`, config.h)",
            f"{pct_near(m, 0.90)} ({100 * min(layouts):.2f}-{100 * max(layouts):.2f}%; >= 90% at {hit})", m >= 0.90)
    row("lab64 group, 16-byte alignment: utilization >= 75%", pct(lab), (lab or 0) >= 0.75)
    row("whole suite, 16-byte alignment: throughput >= 1x libc", times(best16.ratio) + ratio_range(best16),
        (best16.ratio or 0) >= 1)
    if seg:
        row("`segregated-realloc` throughput >= 1x libc", times(seg.ratio) + ratio_range(seg), (seg.ratio or 0) >= 1)
    for r in others:
        x = speedup(r, implicit) if r.variant.startswith(("explicit", "segregated")) else None
        if x is not None:  # each against libc in its own run (results_claims.speedup)
            row(f"`{r.variant}` >= 10x `implicit-first` throughput", f"{x:,.0f}x", x >= 10)
    return out + table(["target", "measured", ""], rows) + [""]


# The prose of docs/results.md's "How `best` gets there": the rounds of measurement behind
# best's rules, kept as Markdown beside this script.
BEST_NOTES = (Path(__file__).resolve().parent / "results-best-notes.md").read_text().split("\n")[:-1]


def gaps_section(best: Run | None, count: int = 10) -> list[str]:
    """Where `best` is furthest from the driver's ideal (payload rounded to the alignment)."""
    if not best:
        return []
    rows = sorted((t for t in best.traces if t.outcome == "ok" and t.ideal is not None and t.utilization is not None),
                  key=lambda t: t.utilization - t.ideal)[:count]
    out = ["## Where `best` still loses space (16-byte alignment)", "",
           "The ideal is the driver's bound: peak payload over the same payload with every block rounded to",
           "the alignment, so no header and no fragmentation.  The gap below it is header overhead (4 bytes,",
           "which costs a whole 16-byte unit for sizes just under a multiple of 16 that runs do not cover)",
           "and fragmentation: holes that the next requests cannot use.", ""]
    out += table(["trace", "group", "utilization", "ideal", "gap"],
                 [[t.name, t.group, pct(t.utilization), pct(t.ideal), f"{100 * (t.ideal - t.utilization):.1f} pts"]
                  for t in rows])
    return out + [""]


def provenance(runs: list[Run]) -> str:
    """What the runs were built from and how busy other work kept the host while they ran, from
    the cache's records (older caches have none: then nothing is claimed)."""
    commits = sorted({c for r in runs for c in r.commits})
    loads = sorted(x for r in runs for x in r.loads)
    note = []
    if commits:
        note.append(f"Built from commit {commits[0]}." if len(commits) == 1 else
                    f"Built from {len(commits)} commits ({'; '.join(commits)}): a cache reused across commits.")
    if loads:
        cores = len(os.sched_getaffinity(0))
        note.append(f"Other processes kept a median of {loads[(len(loads) - 1) // 2]:g} of the host's {cores} "
                    f"core{'s' * (cores > 1)} busy during a run (at most {loads[-1]:g} over "
                    f"{len(loads)} runs; /proc/stat less the driver's own CPU time)"
                    + (": some runs shared the host with other work, and their figures carry its noise."
                       if shared(loads[-1], cores) else "."))
    return "  ".join(note)


def render(runs16: list[Run], runs8: list[Run], traces_dir: str, settings: str = "",
           layouts: list[float] | None = None, rounds: str = "") -> str:
    by16 = {r.variant: r for r in runs16}
    by8 = {r.variant: r for r in runs8}
    groups = sorted({t.group for r in runs16 for t in r.traces})
    first = runs16[0] if runs16 else None
    out = ["# Results: the reference allocators, measured", "",
           "Generated by `make results` (tools/results.py; the notes on `best` come from",
           "tools/results-best-notes.md); do not edit by hand.  Every figure comes from the kit's",
           "driver, which times libc's malloc on the same traces in the same run, so the ratio to",
           "libc is measured side by side." + libc_moved(runs16),
           "",
           f"Machine: {first.machine if first else '?'}; measured {first.date if first else '?'};"
           f" traces: `{traces_dir}`.  Utilization is peak live payload over the heap's high-water"
           " mark; Kops is thousands of operations per second over the whole suite (total ops /"
           " total time); perf index = 100 (0.6 U + 0.4 min(1, T / T_libc)), 0 when a trace fails."
           + (f"  Driver settings: `{settings}`." if settings else "") + (f"  {rounds}" if rounds else "")
           + (f"  {note}" if (note := provenance(runs16 + runs8)) else ""),
           ""]
    out += ["## The progression at 16-byte alignment (whole suite)", ""]
    out += summary_table(runs16, groups) + [""]
    if runs8:
        out += ["## The classic group at 8-byte alignment (the 2002 lab's setting)", ""]
        out += summary_table(runs8, ["classic"]) + [""]
    out += targets_section(by16.get("best"), by8.get("best"), by16.get("segregated-realloc"),
                           by16.get("implicit-first"), runs16, layouts)
    out += ["![utilization vs throughput](results-util-vs-throughput.png)", "",
            "![utilization per trace](results-util-per-trace.png)", "",
            "![throughput per trace, ratio to libc in the same run](results-ratio-per-trace.png)", ""]
    out += claims_section(by16, by8)
    if "best" in by16:
        out += BEST_NOTES
    out += gaps_section(by16.get("best"))
    out += ["## Utilization per trace (16-byte alignment)", ""]
    out += per_trace_table(runs16, lambda t: pct(t.utilization) if t.outcome == "ok" else t.outcome) + [""]
    if runs16:
        out += ["## Throughput per trace, ratio to libc in the same run (16-byte alignment)", "",
                "Each cell is libc's time over the variant's on that trace, both timed in the variant's own",
                "run (its median run, the one the tables above show): above 1x the variant is the faster.  The",
                "last row is the whole suite's ratio (total ops over total time), the summary table's, in",
                "which the long traces weigh more than in the rows.", ""]
        out += per_trace_table(runs16, trace_ratio)
        out += ["| **whole suite** | " + " | ".join(small_times(r.ratio) for r in runs16) + " |", ""]
        out += ["## Throughput per trace, Kops (16-byte alignment)", "",
                "Each column is its variant's own median run, so two columns are two runs, and libc's speed",
                f"moved between them: the last column is libc's median Kops over these {len(runs16)} runs with",
                "their range, not any one variant's libc.  A variant against libc is the table above.", ""]
        out += per_trace_table(runs16, lambda t: num(t.kops),
                               (f"libc, median (range) of {len(runs16)} runs", lambda n: libc_spread(runs16, n)))
        out += [""]
    if runs8:
        out += ["## Utilization per classic trace (8-byte alignment)", ""]
        out += per_trace_table(runs8, lambda t: pct(t.utilization) if t.outcome == "ok" else t.outcome) + [""]
    out += ["## Statistics counters (summed over the suite, 16-byte alignment)", ""]
    out += stats_table(runs16) + [""]
    return "\n".join(out)


def ordered(names: list[str]) -> list[str]:
    return sorted(names, key=lambda n: (ORDER.index(n) if n in ORDER else len(ORDER), n))


def measured(names: list[str], plan: list[tuple[int, list[Path]]], cache_dir: Path, groups: dict[str, str],
             reuse: bool, rerun: tuple[str, ...], repeats: int, repeat_limit: float, time_limit: int, samples: int,
             layouts: int, traces_dir: Path) -> tuple[dict[int, list[Run]], list[float] | None]:
    """Each variant's median run per alignment (measure_rounds), and best's suite average at its
    placement layouts 0..LAYOUTS-1 (None: not measured)."""
    runs = {16: [], 8: [], **measure_rounds(names, [(a, f) for a, f in plan if f], cache_dir, groups, reuse,
                                            rerun, repeats, repeat_limit, time_limit, samples)}
    at_layouts = None
    if layouts > 1 and any(r.variant == "best" for r in runs[16]):
        files = suite_files(traces_dir, groups)
        at_layouts = [next(r for r in runs[16] if r.variant == "best").utilization]
        for layout in range(1, layouts):
            found = cached_or_run(
                cache_dir / f"best-a16-l{layout}.json", "best", 16, groups, reuse and "best" not in rerun,
                f"measuring best at placement layout {layout} (of 1-{layouts - 1}; utilization only)",
                lambda path: run_driver(make_driver(["VARIANT=best", f"LAYOUT={layout}"], 16, "variants/best.c"),
                                        f"best (layout {layout})", files, time_limit, 1, path),
                Setup(tuple(files), time_limit, 1))
            at_layouts.append(found[0].utilization)
    return runs, at_layouts


# ---------------------------------------------------------------- the CLI

@click.command(cls=OneLineCommand, epilog="example: .venv/bin/python tools/results.py --reuse --rerun best")
@click.option("--traces", "traces_dir", type=NonEmptyPath(file_okay=False, path_type=Path),
              help="the trace suite (default: the kit's traces/)")
@click.option("--out", "out_dir", type=NonEmptyPath(file_okay=False, path_type=Path),
              help="where results.md and the plots go (default: the kit's docs/)")
@click.option("--cache", "cache_dir", type=NonEmptyPath(file_okay=False, path_type=Path),
              help="the driver's JSON results are kept here (default: the kit's build/results/)")
@click.option("--variant", "variants", multiple=True, help="measure only these (default: every variants/*.c)")
@click.option("--reuse", is_flag=True, help="use results already in the cache instead of measuring again "
              "(not one of other traces, -T or -r: that is measured again)")
@click.option("--rerun", multiple=True, help="with --reuse: measure these again anyway")
@click.option("--samples", default=1, show_default=True, type=SAMPLES,
              help="minimum timing samples per trace (-r); the driver still takes the best 3 when time allows")
@click.option("--time-limit", default=60, show_default=True, type=TIME_LIMIT,
              help="per-trace limit in seconds (-T); the implicit lists time out on the big recorded traces")
@click.option("--repeats", default=5, show_default=True, type=IntRange(1, 99),
              help="run each variant this many times, in rounds, and show its median run by ratio to libc")
@click.option("--repeat-limit", default=60.0, show_default=True, type=FloatRange(0),
              help="seconds: a variant whose first run takes longer runs once")
@click.option("--layouts", default=LAYOUTS, show_default=True, type=IntRange(1, 16),
              help="also measure best's utilization at its placement layouts 1..N-1 (MM_LAYOUT); 1: not")
def main(traces_dir: Path, out_dir: Path, cache_dir: Path, variants: tuple[str, ...], reuse: bool,
         rerun: tuple[str, ...], samples: int, time_limit: int, repeats: int, repeat_limit: float,
         layouts: int) -> None:
    """Measure the variants on the trace suite with libc alongside; write docs/results.md and plots."""
    traces_dir, out_dir, cache_dir = (kit_path(traces_dir, "traces"), kit_path(out_dir, "docs"),
                                      kit_path(cache_dir, "build/results"))
    if not traces_dir.is_dir():
        raise click.ClickException(f"{traces_dir}: no such trace directory")
    # a variant named twice would run twice a round, its runs pooled as one variant's (as results_seeds.py)
    names = ordered(list(dict.fromkeys(variants)) or [p.stem for p in (KIT / "variants").glob("*.c")])
    unknown = [n for n in names if not (KIT / "variants" / f"{n}.c").exists()]
    if unknown:
        raise click.ClickException(f"no such variant: {', '.join(unknown)}")
    stray = [n for n in rerun if n not in names]
    if stray:
        raise click.ClickException(f"--rerun {', '.join(stray)}: not among the variants measured")
    groups = trace_groups(traces_dir)
    if not suite_files(traces_dir, groups):
        raise click.ClickException(f"{traces_dir}: no .rep traces")
    writable_folder(cache_dir)
    writable_folder(out_dir)
    plan = [(alignment, suite_files(traces_dir, groups, group)) for alignment, group in ((16, None), (8, "classic"))]
    try:
        runs, at_layouts = measured(names, plan, cache_dir, groups, reuse, rerun, repeats, repeat_limit, time_limit,
                                    samples, layouts, traces_dir)
    except KeyboardInterrupt:       # click's own word was `Aborted!`, status 1
        raise Interrupted(f": the runs that finished are kept in {cache_dir} (`--reuse` measures only the "
                          f"rest); {out_dir / 'results.md'} is left as it was") from None
    rel = traces_dir.relative_to(KIT) if traces_dir.is_relative_to(KIT) else traces_dir
    settings = f"mdriver -T {time_limit} -r {samples}" + ("" if time_limit >= 600 else
                                                        " (a run over the limit counts as a timeout)")
    rounds = "" if repeats == 1 else (
        f"Each variant ran {repeats} times, in rounds (once if its first run took over {repeat_limit:g} s);"
        " every table shows its median run by ratio to libc, and the ratio's range over its runs is"
        " given beside that ratio.")
    page = render(runs[16], runs[8], str(rel), settings, at_layouts, rounds) + "\n"
    try:
        replace_file(out_dir / "results.md", page.encode("utf-8"))       # whole or not at all
    except OSError as e:          # a full disk: every run is kept in the cache
        raise click.ClickException(f"{out_dir / 'results.md'}: cannot write it ({e.strerror or e}); the runs are "
                                   f"kept in {cache_dir} (`--reuse` writes the page from them)") from None
    try:
        plots = plot_all(runs[16], out_dir)
    except OSError as e:          # a full disk: results.md is written, every run kept
        raise click.ClickException(f"{e.filename or out_dir}: cannot write the plots ({e.strerror or e}); "
                                   f"{out_dir / 'results.md'} is written") from None
    for path in plots:
        click.echo(f"wrote {path}", err=True)
    click.echo(f"wrote {out_dir / 'results.md'}")


if __name__ == "__main__":
    main()

"""compare.py - did a change to an allocator help, or did it only move the dice?

Builds two allocators (variant names or .c files), runs both on the trace suite
and on K other seeds of every generated trace (held-out traces, made as
results_seeds.py makes them), and prints per-trace utilization changes, the
suite's and the held-out traces' averages with a paired standard error, and
throughput from runs of A and B that alternate, as medians, for the suite and per trace.

Why the held-out traces: a generated trace is one draw of its pattern, and an
allocator's figure on it moves with the addresses its blocks happen to get.
Moving every address by a few bytes moves best's suite average by 0.3 points
with no rule changed (docs/results.md), so a suite gain that the held-out traces
do not repeat is layout, not policy.  An allocator that reads MM_LAYOUT
(config.h; best does) can also be run at --layouts N of its placement layouts:
the means over them are its design's figures, free of one layout's luck.
Only main() prints.

    .venv/bin/python tools/compare.py mm-old.c mm.c
    .venv/bin/python tools/compare.py segregated best --seeds 8 --speed-runs 5
    .venv/bin/python tools/compare.py best my-best.c --layouts 16 --speed-runs 0
    .venv/bin/python tools/compare.py best my-best.c --layouts 16 --speed-runs 0 --fast

--fast measures utilization with mmreplay (make replay): the allocator called in-process,
each result given only the cheap checks, for an allocator already known to pass mdriver.
It gives mdriver's figures (tests/test_replay.py holds it to that) in a fraction of the time;
mdriver remains the judge, and times the speed runs either way.
"""
from __future__ import annotations

import json
import shutil
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path
from statistics import mean, median, stdev

import click
from filelock import FileLock, Timeout

sys.path.insert(0, str(Path(__file__).resolve().parent))

from options import TIME_LIMIT, OutputFile, kit_path, writable_file, writable_folder  # noqa: E402
from results import KIT, make_driver, run_driver, trace_results  # noqa: E402
from results_seeds import chosen_entries, other_seeds, seed_file  # noqa: E402

sys.path.insert(0, str(KIT))
from mmtrace.oneline import IntRange, Interrupted, NonEmptyPath, OneLineCommand  # noqa: E402
from mmtrace.recipe import RecipeError  # noqa: E402
from mmtrace.regular import special_kind  # noqa: E402
from mmtrace.trace import SCORES_THROUGHPUT, SCORES_UTILIZATION, trace_stem  # noqa: E402

SPEED_SAMPLES = 5                 # -r for the timed runs: each trace's median of at least 5
SHOWN_CHANGE = 0.0005             # per-trace changes below 0.05 points are listed as unchanged
# what the drivers' summary throughput_ratio is (driver/score.c; README, Score): not a plain speed
SCORED_RATIO = ("(the score's: libc's time over the allocator's on the traces it passed, times the share "
                "of traces it passed)")


# ---------------------------------------------------------------- the two allocators

@dataclass(frozen=True)
class Allocator:
    label: str                    # as the user named it
    make_args: tuple[str, ...]    # VARIANT=... or MM=/abs/file.c
    source: str                   # the file, for messages


def allocator(spec: str) -> Allocator:
    """A variant name (variants/NAME.c) or a path to a .c file; else a one-line error."""
    if spec.endswith(".c") or "/" in spec:
        path = Path(spec).expanduser().resolve()
        if path.is_dir():
            raise click.ClickException(f"{spec}: a folder, not an allocator's .c file")
        if kind := special_kind(path):     # else is_file() would call it missing
            raise click.ClickException(f"{spec}: {kind}, not a regular file, so not an allocator's .c file")
        if not path.is_file():
            raise click.ClickException(f"no such allocator file: {spec}")
        return Allocator(spec, (f"MM={path}",), str(path))
    if (KIT / "variants" / f"{spec}.c").is_file():
        return Allocator(spec, (f"VARIANT={spec}",), f"variants/{spec}.c")
    known = ", ".join(sorted(p.stem for p in (KIT / "variants").glob("*.c")))
    raise click.ClickException(f"{spec}: neither a .c file nor a variant (variants: {known})")


@dataclass(frozen=True)
class Tool:
    """What measures utilization: mdriver, the judge, or mmreplay (--fast), in-process."""
    target: str                   # the make target that builds it
    program: str
    samples: int | None           # -r for a utilization run; None: the program takes none


JUDGE = Tool("driver", "mdriver", 1)
FAST = Tool("replay", "mmreplay", None)


def build_both(a: Allocator, b: Allocator, alignment: int, folder: Path, layout: int = 0,
               tool: Tool = JUDGE) -> tuple[Path, Path]:
    """Build A and B at LAYOUT, each program copied to FOLDER: two files of one basename share a
    build folder, so the second build would replace the first's program."""
    folder.mkdir(parents=True, exist_ok=True)
    drivers = []
    for tag, alloc in (("a", a), ("b", b)):
        built = make_driver([*alloc.make_args, f"LAYOUT={layout}"], alignment, alloc.source, tool.target)
        copy = folder / (f"{tool.program}-{tag}" + (f"-l{layout}" if layout else ""))
        shutil.copy2(built, copy)
        drivers.append(copy)
    return drivers[0], drivers[1]


def hold(folder: Path) -> None:
    """FOLDER locked until the command ends: two runs sharing a work dir (the default build/compare)
    would overwrite each other's drivers and JSON, and each report figures of the other's allocators."""
    lock = FileLock(str(folder / ".compare.lock"))
    try:
        lock.acquire(timeout=0)
    except Timeout:
        raise click.ClickException(f"{folder}: another compare.py is using it; wait for it to end or give "
                                   "another --work-dir") from None
    click.get_current_context().call_on_close(lock.release)


# ---------------------------------------------------------------- the traces

def suite_traces(traces_dir: Path) -> list[Path]:
    files = sorted([*traces_dir.glob("*.rep"), *traces_dir.glob("*.rep.gz")])
    if not files:
        raise click.ClickException(f"{traces_dir}: no .rep or .rep.gz traces")
    return files


def held_out_traces(recipe: Path, names: tuple[str, ...], k: int, folder: Path) -> list[Path]:
    """K other seeds of each generated trace of RECIPE (or of the named ones)."""
    if k == 0:
        return []
    try:
        entries = chosen_entries(recipe, names)
    except RecipeError as e:
        raise click.ClickException(str(e)) from None
    folder.mkdir(parents=True, exist_ok=True)
    return [seed_file(e, s, folder) for e in entries for s in other_seeds(e.seed, k)]


# ---------------------------------------------------------------- the figures

@dataclass(frozen=True)
class Outcome:
    outcome: str
    utilization: float | None
    scored: bool                  # does the driver's score count its utilization?
    name: str = ""                # as the driver names it: x.rep and x.rep.gz when both are run

    @property
    def score(self) -> float:
        """What the driver's score counts: a failed run counts 0."""
        return (self.utilization or 0.0) if self.outcome == "ok" else 0.0

    def cell(self) -> str:
        return f"{100 * self.utilization:.1f}%" if self.outcome == "ok" else self.outcome


def outcomes(driver_json: dict) -> dict[str, Outcome]:
    """trace path -> its outcome, from the driver's JSON."""
    return {t["path"]: Outcome(t["outcome"], t["utilization"], t["weight"] in SCORES_UTILIZATION and t.get("peak_payload") != 0,
                               t["name"])
            for t in driver_json["traces"]}


@dataclass(frozen=True)
class Paired:
    """One set of traces run by both: per trace (name, A, B)."""
    rows: list[tuple[str, Outcome, Outcome]]

    @property
    def scored(self) -> list[tuple[str, Outcome, Outcome]]:
        return [r for r in self.rows if r[1].scored]

    def averages(self) -> tuple[float | None, float | None]:
        """A's and B's mean over the scored traces (None, None: no trace scores utilization)."""
        rows = self.scored
        if not rows:
            return None, None
        return mean(a.score for _, a, _ in rows), mean(b.score for _, _, b in rows)

    def diff(self) -> tuple[float | None, float | None]:
        """Mean of B - A over the traces (None: none scored), and its standard error (None below 2)."""
        d = [b.score - a.score for _, a, b in self.scored]
        if not d:
            return None, None
        return mean(d), (stdev(d) / len(d) ** 0.5 if len(d) > 1 else None)


def paired(files: list[Path], got_a: dict[str, Outcome], got_b: dict[str, Outcome]) -> Paired:
    """The driver's names: x.rep and x.rep.gz would both be "x" by their stems."""
    return Paired([(got_a[str(f)].name or trace_name(f), got_a[str(f)], got_b[str(f)]) for f in files])


def trace_name(path: Path) -> str:
    """The trace's name as the driver gives it: gcc.report.rep is gcc.report."""
    return trace_stem(path.name)


def pattern_of(name: str) -> str:
    """realloc-many-s300101 -> realloc-many (the held-out file names of seed_file)."""
    return name.rsplit("-s", 1)[0]


@dataclass(frozen=True)
class Speed:
    ratio_a: float | None         # median over runs of A's scored T/T_libc, SCORED_RATIO (None: no run timed a trace)
    ratio_b: float | None
    b_over_a: float | None        # median over runs of B's ops/s / A's ops/s, adjacent runs, on the
                                  # traces both timed (None: none)
    runs: int
    b_over_a_runs: tuple[float, ...] = ()    # each round's B / A: their spread is the noise
    per_trace: dict[str, float] = field(default_factory=dict)  # median over rounds of B's ratio to
                                                               # libc over A's, each of its own run
    left_out: tuple[str, ...] = ()           # traces one side did not run in some round: not in B / A

    def line(self) -> str:
        """The throughput line, B / A with the min-max of its rounds so noise shows as such."""
        def ratio(side: str, r: float | None) -> str:
            return f"{side} T/T_libc {r:.2f}" if r is not None else f"{side}: no trace timed"
        scored = f" {SCORED_RATIO}" if (self.ratio_a, self.ratio_b) != (None, None) else ""
        text = (f"Throughput ({self.runs} alternating runs of the suite, medians): {ratio('A', self.ratio_a)}, "
                f"{ratio('B', self.ratio_b)}{scored}, ")
        if self.b_over_a is None:
            return text + "B's ops/s / A's: no trace that both ran was timed"
        text += f"B's ops/s / A's {self.b_over_a:.3f}"
        if self.left_out:      # a failed trace is no time at all: the suite's ops/s would be of other traces
            text += f" (on the traces both ran; left out: {', '.join(self.left_out)})"
        each = self.b_over_a_runs
        if len(each) < 2:
            return text + " (one run: no spread to tell noise by; --speed-runs 3 or more)"
        lo, hi = min(each), max(each)
        text += f" [{lo:.3f}-{hi:.3f} over the {len(each)} runs]"
        if lo <= 1 <= hi:
            text += ": the runs disagree on which is faster, so no difference is shown"
        return text

    def trace_lines(self, shown: int = 5) -> list[str]:
        """The traces B sped up and slowed down most: where a change of speed comes from."""
        ranked = sorted(self.per_trace.items(), key=lambda kv: kv[1])
        if not ranked:
            return []
        picked = ranked if len(ranked) <= 2 * shown else ranked[:shown] + ranked[-shown:]
        out = ["Throughput per trace, B's ratio to libc over A's (medians over the runs; "
               + ("every trace" if picked is ranked else f"the {shown} slowed and the {shown} sped up most") + "):"]
        out += [f"  {name:<24}{ratio:7.3f}" for name, ratio in picked]
        return out


def timed_seconds(driver_json: dict) -> dict[str, float]:
    """trace path -> seconds, for each trace the driver's throughput counts in this run
    (driver/score.c: scored for throughput, with ops, run correctly, timed beside libc)."""
    return {t["path"]: t["timing"]["seconds"] for t in driver_json["traces"]
            if t["weight"] in SCORES_THROUGHPUT and t["ops"] and t["outcome"] == "ok" and t["timing"] and t["libc"]}


def speed(drivers: tuple[Path, Path], labels: tuple[str, str], files: list[Path], runs: int,
          time_limit: int, folder: Path) -> Speed:
    """RUNS rounds of A then B on the suite, each timed against libc in its own run.  Ctrl-C after
    a round has finished ends the timing there: the figures are the finished rounds' (Speed.runs
    says how many); before that, it is raised.  B / A is of the traces both timed: the drivers'
    ops/s are over the traces each ran, so one that B fails would make B / A compare two suites."""
    ra, rb, rel = [], [], []
    traces: dict[str, list[float]] = {}
    left_out: set[str] = set()
    for i in range(runs):
        try:
            ja, jb = (run_driver(d, label, files, time_limit, SPEED_SAMPLES, folder / f"speed-{tag}{i}.json")
                      for d, label, tag in zip(drivers, labels, "ab"))
        except KeyboardInterrupt:
            if not ra:
                raise
            runs = i
            break
        sa, sb = ja["summary"], jb["summary"]
        ta, tb = ({t.name: t.ratio for t in trace_results(j, {}) if t.ratio} for j in (ja, jb))
        ra.append(sa["throughput_ratio"])
        rb.append(sb["throughput_ratio"])
        sec_a, sec_b = timed_seconds(ja), timed_seconds(jb)
        both = sec_a.keys() & sec_b.keys()
        named = {t["path"]: t["name"] for t in ja["traces"] + jb["traces"]}   # the driver's, as in ta and tb
        left_out |= {named.get(p) or trace_name(Path(p)) for p in sec_a.keys() ^ sec_b.keys()}
        if both:        # the same ops on both sides: B's ops/s over A's is A's seconds over B's
            rel.append(sum(sec_a[p] for p in both) / sum(sec_b[p] for p in both))
        for name in ta.keys() & tb.keys():
            traces.setdefault(name, []).append(tb[name] / ta[name])
    per_trace = {name: median(r) for name, r in sorted(traces.items())}
    return Speed(median_of(ra), median_of(rb), median(rel) if rel else None, runs, tuple(rel), per_trace,
                 tuple(sorted(left_out)))


def median_of(values: list[float | None]) -> float | None:
    """The median of the rounds that gave a figure (a driver gives none when no trace was timed)."""
    given = [v for v in values if v is not None]
    return median(given) if given else None


@dataclass(frozen=True)
class Layouts:
    """Averages at layouts 0..n-1: per layout (suite, held-out or None), for A and for B."""
    a: list[tuple[float, float | None]]
    b: list[tuple[float, float | None]]

    def figures(self, side: str, which: int) -> list[float]:
        return [x[which] for x in getattr(self, side) if x[which] is not None]

    def diff(self, which: int) -> tuple[float, float] | None:
        """Mean of B's figures minus mean of A's, and its standard error (layouts are not paired)."""
        fa, fb = self.figures("a", which), self.figures("b", which)
        if len(fa) < 2 or len(fb) < 2:
            return None
        return mean(fb) - mean(fa), (stdev(fa) ** 2 / len(fa) + stdev(fb) ** 2 / len(fb)) ** 0.5

    def fixed(self, side: str) -> bool:
        """Does this side give the same figures at every layout (it ignores MM_LAYOUT)?"""
        return len(set(getattr(self, side))) == 1


def utilization(programs: tuple[Path, Path], a: Allocator, b: Allocator, files: list[Path], time_limit: int,
                folder: Path, tool: Tool, tag: str = "") -> tuple[dict[str, Outcome], dict[str, Outcome]]:
    """A's and B's outcomes on FILES, run by TOOL's programs (A first)."""
    return tuple(outcomes(run_driver(p, alloc.label, files, time_limit, tool.samples,
                                     folder / f"util-{side}{tag}.json"))
                 for p, alloc, side in zip(programs, (a, b), "ab"))


def at_layouts(a: Allocator, b: Allocator, alignment: int, suite: list[Path], held: list[Path],
               first: tuple[Paired, Paired | None], n: int, time_limit: int, folder: Path,
               tool: Tool = JUDGE) -> Layouts:
    """Both allocators' averages at layouts 0..N-1 (layout 0's are FIRST, already measured)."""
    def averages(s: Paired, h: Paired | None, side: int) -> tuple[float, float | None]:
        return s.averages()[side], (h.averages()[side] if h is not None and h.scored else None)

    got_a, got_b = [averages(*first, 0)], [averages(*first, 1)]
    for layout in range(1, n):
        click.echo(f"layout {layout} (of 0-{n - 1}): A then B", err=True)
        programs = build_both(a, b, alignment, folder, layout, tool)
        ra, rb = utilization(programs, a, b, suite + held, time_limit, folder, tool, f"-l{layout}")
        s, h = paired(suite, ra, rb), (paired(held, ra, rb) if held else None)
        got_a.append(averages(s, h, 0))
        got_b.append(averages(s, h, 1))
    return Layouts(got_a, got_b)


# ---------------------------------------------------------------- the verdict

def verdict(suite: Paired, held: Paired | None) -> str:
    """One sentence: does the held-out set confirm what the suite says?"""
    d_suite, _ = suite.diff()
    if d_suite is None:     # a suite of throughput-only traces (weight 0 or 3), or of no payload
        if held is None or not held.scored:
            return "no trace scores utilization, so there is no utilization to compare"
        d, se = held.diff()
        return (f"held-out {d * 100:+.2f}" + (f" ± {se * 100:.2f}" if se is not None else "")
                + " points; no trace of the suite scores utilization")
    if held is None or not held.scored:
        return (f"suite: {d_suite * 100:+.2f} points; no held-out traces were run, so this cannot tell "
                "a better policy from a luckier layout")
    d, se = held.diff()
    if se is None or se == 0:
        return f"suite {d_suite * 100:+.2f} points, held-out {d * 100:+.2f} points"
    if abs(d) < 2 * se:
        return (f"no measurable difference: held-out {d * 100:+.2f} ± {se * 100:.2f} points (within 2 standard "
                f"errors); the suite's {d_suite * 100:+.2f} is what layout alone can move")
    better = "better" if d > 0 else "worse"
    agree = "the suite agrees" if d_suite * d > 0 else "the suite says otherwise, which is layout"
    return f"B is {better}: held-out {d * 100:+.2f} ± {se * 100:.2f} points; {agree} ({d_suite * 100:+.2f})"


def layout_verdict(lay: Layouts) -> str:
    """One sentence on the means over layouts, suite and held-out together."""
    n = len(lay.a)
    if lay.fixed("a") and lay.fixed("b"):
        return f"neither allocator reads MM_LAYOUT: the {n} layouts give the figures above"
    ds = [d for d in (lay.diff(0), lay.diff(1)) if d is not None]
    if not ds:              # all([]) would have called B better
        return f"no set scores utilization at {n} layouts, so there is nothing to compare"
    if all(d > 2 * se for d, se in ds):
        return f"B is better on the mean over {n} layouts, by more than 2 standard errors on every set"
    if all(d < -2 * se for d, se in ds):
        return f"B is worse on the mean over {n} layouts, by more than 2 standard errors on every set"
    return f"no difference over {n} layouts that exceeds 2 standard errors on every set"


# ---------------------------------------------------------------- rendering

def pts(x: float) -> str:
    return f"{x * 100:+.2f}"


def suite_lines(suite: Paired) -> list[str]:
    changed = [(n, a, b) for n, a, b in suite.rows
               if a.outcome != b.outcome or abs(b.score - a.score) >= SHOWN_CHANGE]
    width = max([len(n) for n, _, _ in suite.rows] + [5])
    out = [f"  {'trace':<{width}}  {'A':>9}  {'B':>9}  {'B - A':>7}"]
    for n, a, b in changed:
        note = "" if a.scored else "   (not scored for utilization)"
        out.append(f"  {n:<{width}}  {a.cell():>9}  {b.cell():>9}  {pts(b.score - a.score):>7}{note}")
    if len(changed) < len(suite.rows):
        out.append(f"  ({len(suite.rows) - len(changed)} other traces within 0.05 points)")
    return out


def held_lines(held: Paired) -> list[str]:
    groups: dict[str, list[float]] = {}
    for n, a, b in held.scored:
        groups.setdefault(pattern_of(n), []).append(b.score - a.score)
    moved = [(p, d) for p, d in groups.items() if abs(mean(d)) >= SHOWN_CHANGE]
    width = max([len(p) for p in groups] + [5])
    out = []
    for p, d in sorted(moved, key=lambda x: mean(x[1])):
        se = f" ± {stdev(d) / len(d) ** 0.5 * 100:.2f}" if len(d) > 1 else ""
        out.append(f"  {p:<{width}}  {pts(mean(d))}{se} over {len(d)} seeds")
    if len(moved) < len(groups):
        out.append(f"  ({len(groups) - len(moved)} other patterns within 0.05 points on average)")
    return out


def layout_lines(lay: Layouts) -> list[str]:
    n = len(lay.a)
    out = [f"Over {n} layouts (MM_LAYOUT 0-{n - 1}), mean (range); B - A with its standard error:"]
    for which, name in ((0, "suite"), (1, "held-out")):
        fa, fb, d = lay.figures("a", which), lay.figures("b", which), lay.diff(which)
        if not fa:
            continue
        cells = [f"{side} {mean(f) * 100:.2f}% ({min(f) * 100:.2f}-{max(f) * 100:.2f})" for side, f in (("A", fa), ("B", fb))]
        tail = f"   B - A {pts(d[0])} ± {d[1] * 100:.2f}" if d else ""
        out.append(f"  {name + ' average':<19}  {cells[0]}   {cells[1]}{tail}")
    for side in ("a", "b"):
        if lay.fixed(side):
            out.append(f"  ({side.upper()} gives the same figures at every layout: it does not read MM_LAYOUT)")
    return out


def report(a: Allocator, b: Allocator, alignment: int, suite: Paired, held: Paired | None, k: int,
           fast: Speed | None, lay: Layouts | None = None) -> str:
    sa, sb = suite.averages()
    average = (f"A {sa * 100:.2f}%   B {sb * 100:.2f}%   B - A {pts(sb - sa)} points" if sa is not None else
               "none: no trace of the suite scores utilization (weight 0 or 3, or no payload)")
    out = [f"A = {a.label}   B = {b.label}   ({alignment}-byte alignment)", "",
           f"Utilization on the suite ({len(suite.rows)} traces), traces that changed:", *suite_lines(suite), "",
           f"  suite average        {average}"]
    if held is not None and held.scored:
        ha, hb = held.averages()
        d, se = held.diff()
        patterns = len({pattern_of(n) for n, _, _ in held.rows})
        # one held-out trace has no standard error: "± 0.00" would claim an exact figure
        error = f"± {se * 100:.2f} points" if se is not None else "points (one trace: no standard error)"
        out += [f"  held-out average     A {ha * 100:.2f}%   B {hb * 100:.2f}%   B - A {pts(d)} "
                f"{error} (paired, {k} other seeds of {patterns} generated traces)", "",
                "Held-out traces by pattern, mean B - A:", *held_lines(held)]
    if lay is not None:
        out += ["", *layout_lines(lay)]
    if fast is not None:
        out += ["", fast.line(), *fast.trace_lines()]
    out += ["", "Verdict: " + verdict(suite, held)]
    if lay is not None:
        out.append("Over layouts: " + layout_verdict(lay))
    return "\n".join(out)


def as_json(a: Allocator, b: Allocator, alignment: int, suite: Paired, held: Paired | None,
            fast: Speed | None, lay: Layouts | None = None) -> dict:
    def rows(p: Paired) -> list[dict]:
        return [{"trace": n, "a": {"outcome": x.outcome, "utilization": x.utilization},
                 "b": {"outcome": y.outcome, "utilization": y.utilization}, "scored": x.scored}
                for n, x, y in p.rows]

    def summary(p: Paired) -> dict:
        (ua, ub), (d, se) = p.averages(), p.diff()
        return {"a": ua, "b": ub, "diff": d, "stderr": se}

    return {"a": a.label, "b": b.label, "alignment": alignment,
            "suite": {"summary": summary(suite), "traces": rows(suite)},
            "held_out": ({"summary": summary(held), "traces": rows(held)} if held and held.scored else None),
            "speed": (asdict(fast) if fast else None), "verdict": verdict(suite, held),
            "layouts": ({"a": [{"suite": s, "held_out": h} for s, h in lay.a],
                         "b": [{"suite": s, "held_out": h} for s, h in lay.b],
                         "verdict": layout_verdict(lay)} if lay else None)}


# ---------------------------------------------------------------- the CLI

@click.command(cls=OneLineCommand, epilog="example: .venv/bin/python tools/compare.py mm-old.c mm.c  (or: make compare A=mm-old.c B=mm.c)")
@click.argument("a_spec", metavar="A")
@click.argument("b_spec", metavar="B")
@click.option("--traces", "traces_dir", type=NonEmptyPath(file_okay=False, path_type=Path),
              help="the suite (default: the kit's traces/)")
@click.option("--recipe", "recipe_path", type=NonEmptyPath(dir_okay=False, path_type=Path),
              help="where the held-out traces' patterns come from (default: the kit's traces/recipe.toml)")
@click.option("--seeds", "k", default=4, show_default=True, type=IntRange(0, 99),
              help="K other seeds of each generated trace (0: the suite only)")
@click.option("--trace", "names", multiple=True, help="held-out seeds of this generated trace only (repeatable)")
@click.option("--alignment", default="16", show_default=True, type=click.Choice(["16", "8"]))
@click.option("--speed-runs", default=3, show_default=True, type=IntRange(0, 99),
              help="alternating timed runs of the suite (0: utilization only)")
@click.option("--layouts", default=1, show_default=True, type=IntRange(1, 16),
              help="also run layouts 1..N-1 of allocators that read MM_LAYOUT (config.h) and average")
@click.option("--fast", is_flag=True,
              help="utilization (suite, held-out, layouts) from mmreplay, in-process, instead of mdriver: "
                   "the same figures for an allocator that passes mdriver, in a fraction of the time; "
                   "throughput still from mdriver, which remains the judge")
@click.option("--time-limit", default=60, show_default=True, type=TIME_LIMIT,
              help="per-trace limit in seconds (-T)")
@click.option("--work-dir", type=NonEmptyPath(file_okay=False, path_type=Path),
              help="drivers, held-out traces and JSON (default: the kit's build/compare/)")
@click.option("--json", "json_out", type=OutputFile(),
              help="also write the comparison as JSON here")
def main(a_spec: str, b_spec: str, traces_dir: Path | None, recipe_path: Path | None, k: int,
         names: tuple[str, ...], alignment: str, speed_runs: int, layouts: int, fast: bool, time_limit: int,
         work_dir: Path | None, json_out: Path | None) -> None:
    """Compare allocators A and B (variant names or .c files) on the suite and on held-out seeds."""
    traces_dir, recipe_path, work_dir = (kit_path(traces_dir, "traces"), kit_path(recipe_path, "traces/recipe.toml"),
                                         kit_path(work_dir, "build/compare"))
    a, b = allocator(a_spec), allocator(b_spec)
    suite = suite_traces(traces_dir)
    writable_folder(work_dir)
    hold(work_dir)
    if json_out:
        writable_file(json_out)
    tool = FAST if fast else JUDGE
    try:
        held = held_out_traces(recipe_path, names, k, work_dir / "seeds")
        programs = build_both(a, b, int(alignment), work_dir, tool=tool)
        click.echo(f"{len(suite)} suite traces and {len(held)} held-out traces, A then B"
                   + (" (utilization by mmreplay)" if fast else ""), err=True)
        got_a, got_b = utilization(programs, a, b, suite + held, time_limit, work_dir, tool)
    except KeyboardInterrupt:
        raise Interrupted(" before A and B were both measured: nothing to compare") from None
    suite_p = paired(suite, got_a, got_b)
    held_p = paired(held, got_a, got_b) if held else None
    lay = None
    stopped = ""             # what a Ctrl-C left out of the report, which still shows what was measured
    if layouts > 1:
        try:
            lay = at_layouts(a, b, int(alignment), suite, held, (suite_p, held_p), layouts, time_limit, work_dir,
                             tool)
        except KeyboardInterrupt:
            stopped = "while measuring the layouts: the report above leaves them and the timing out"
    timed = None
    if speed_runs and not stopped:
        click.echo(f"timing: {speed_runs} rounds of A then B on the suite", err=True)
        try:
            drivers = programs if tool == JUDGE else build_both(a, b, int(alignment), work_dir)
            timed = speed(drivers, (a.label, b.label), suite, speed_runs, time_limit, work_dir)
        except KeyboardInterrupt:
            stopped = "before a timing round finished: the report above has no throughput"
        if timed and timed.runs < speed_runs:
            stopped = (f"after {timed.runs} of {speed_runs} timing rounds: the report's throughput is "
                       f"{'theirs' if timed.runs > 1 else 'that one round'}")
    click.echo(report(a, b, int(alignment), suite_p, held_p, k, timed, lay))
    if json_out:
        try:
            json_out.write_text(json.dumps(as_json(a, b, int(alignment), suite_p, held_p, timed, lay), indent=1)
                                + "\n")
        except OSError as e:
            raise click.ClickException(f"{json_out}: cannot write it ({e.strerror or e}); the report above "
                                       "is the comparison") from None
    if stopped:
        raise Interrupted(f" {stopped}")


if __name__ == "__main__":
    main()

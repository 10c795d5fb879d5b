"""`python -m bench STUDY`: run one benchmark study and write docs/bench-STUDY.md."""
from __future__ import annotations

import dataclasses
import signal
from pathlib import Path

import click

from mmtrace.oneline import IntRange, NonEmptyPath, OneLineGroup

from bench import align, measure, programs, report, sizes, stress, summary, threads
from bench.allocators import Allocator, discover

KIT = Path(__file__).resolve().parent.parent


def log(message: str) -> None:
    click.echo(message, err=True)


# Shims each study runs by default: the list-scanning variants would take minutes
# on the thread and program workloads (`--only all` runs every one anyway).
FAST_SHIMS = ["best", "segregated", "segregated-realloc", "ts-lock", "ts-nolock"]


PACKAGES = ("glibc", "jemalloc", "tcmalloc", "mimalloc")


def only_names(kit: Path, only: str | None) -> list[str] | None:
    """--only as the names it gives (None: not given, or `all`), each one known; an empty
    list would otherwise read as "not given" and run every allocator."""
    if only is None or only == "all":
        return None
    names = [n.strip() for n in only.split(",") if n.strip()]
    if not names:
        raise click.UsageError(f"--only '{only}' names no allocator (give names separated by commas, or `all`)")
    known = set(PACKAGES) | {p.stem for p in (kit / "variants").glob("*.c")}
    unknown = [n for n in names if n not in known]
    if unknown:
        raise click.UsageError(f"--only: no allocator named {', '.join(unknown)}")
    # a name given twice would run twice and pool both runs' samples as one allocator's
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise click.UsageError(f"--only: {', '.join(twice)} given twice (name each allocator once)")
    return names


def pick(kit: Path, only: str | None, default_shims: list[str] | None = None,
         packages: bool = True, why: str = "not in this study's default set (`--only all` runs it)"
         ) -> tuple[list[Allocator], list[str]]:
    """The allocators to run: --only names them (glibc is always first; `all`: every one
    found), else glibc, the packages and default_shims (None: every variant)."""
    wanted = only_names(kit, only)
    if only == "all":
        default_shims = None
    shims = None
    if wanted is not None:
        shims = [n for n in wanted if n not in PACKAGES]
    elif default_shims is not None:
        shims = default_shims
    measure.RUSAGE = program(kit, "rusage")     # every run starts its command through it
    measure.WITNESS = program(kit, "witness.so")   # ... and says which file served malloc
    found, skipped = discover(kit, shims, packages=packages)
    if wanted is not None:
        found = [a for a in found if a.name == "glibc" or a.name in wanted]
        # an allocator asked for by name that cannot run fails the study: a page
        # without it would answer another question than the one asked
        missing = [s.removesuffix(", skipped") for s in skipped if s.split(":")[0] in wanted]
        if missing:
            raise click.ClickException(f"--only: cannot run {'; '.join(missing)}")
        skipped = []
    for s in skipped:
        log(f"bench: {s}")
    if wanted is None and default_shims is not None:
        left_out = sorted(p.stem for p in (kit / "variants").glob("*.c") if p.stem not in default_shims)
        if left_out:
            skipped = skipped + [f"{', '.join(left_out)}: {why}"]
    return found, skipped


def show(write, res, allocs: list[Allocator], out: Path, *args) -> None:
    """Write the study's page and print it (its tables: medians, min–max, ratios to glibc,
    the version of each allocator), then where it went; a write that fails (a full disk) is
    one line naming the file.  A study a signal stopped writes what it measured, marked
    partial, and exits 128 + the signal."""
    res = dataclasses.replace(res, versions={a.name: a.version for a in allocs})
    if res.partial and not measure.FINISHED:
        raise stopped(f"{res.partial}: no run had finished, nothing written")
    try:
        page = write(res, out, *args)
    except OSError as err:
        raise click.ClickException(f"{err.filename or out}: cannot write it ({err.strerror})") from None
    click.echo(page.read_text())
    click.echo(f"written: {page}")
    if res.partial:
        raise stopped(f"{res.partial}: the runs finished so far are in {page}, marked partial")


def stopped(message: str) -> click.ClickException:
    err = click.ClickException(message)
    name = message.split("interrupted by ", 1)[1].split()[0]
    err.exit_code = 128 + signal.Signals[name].value
    return err


def on_signal(signum, frame) -> None:
    raise measure.Stopped(signal.Signals(signum).name)


def writable_out(ctx, param, out: Path) -> Path:
    """--out is tried before any run: a folder the study cannot write fails now, in one line."""
    problem = report.check_out(out)
    if problem:
        raise click.BadParameter(problem, ctx=ctx, param=param)
    return out


def program(kit: Path, name: str) -> Path:
    path = kit / "build" / "bench" / name
    if not path.exists():
        raise click.ClickException(f"{path} is missing: run `make bench-progs` first")
    return path


def common(f):
    f = click.option("--kit", type=NonEmptyPath(file_okay=False, resolve_path=True, path_type=Path), default=KIT,
                     show_default=True,
                     help="the kit's root (build/ and variants/ are read from it)")(f)
    f = click.option("--out", type=NonEmptyPath(file_okay=False, path_type=Path), default=Path("docs"),
                     show_default=True, callback=writable_out,
                     help="where the .md, .png and .json go (tried before any run)")(f)
    f = click.option("--only", help="comma-separated allocators to run (glibc always runs; one named here that cannot run is an error), or `all`")(f)
    f = click.option("--reps", type=IntRange(1, 100), help="repetitions (default: study's)")(f)
    f = click.option("--quick", is_flag=True, help="short runs for development")(f)
    return f


@click.group(name="python -m bench", cls=OneLineGroup, context_settings={"help_option_names": ["-h", "--help"]})
def main() -> None:
    """Benchmark studies: allocators side by side in real processes.

    \b
    Example:
      python -m bench sizes --quick --only ts-lock,best --out /tmp/b
      make bench BENCH_ARGS=--quick
    """
    for sig in (signal.SIGTERM, signal.SIGHUP):       # stop as Ctrl-C does: what was measured is kept
        signal.signal(sig, on_signal)
    report.start_study()                              # other work on the host is counted from here


@main.command("sizes")
@common
@click.option("--max-log2", type=IntRange(1, 34), help="largest size 2^N (default 30, quick 24)")
def sizes_cmd(kit, out, only, reps, quick, max_log2):
    """malloc+free and calloc+free time per size, 2 B to 1 GiB.

    \b
    Example: python -m bench sizes --quick --only best
    """
    allocs, skipped = pick(kit, only)
    hi = max_log2 or (24 if quick else 30)
    pairs, budget = (2000, 16 << 20) if quick else (20000, 64 << 20)
    res = sizes.collect(program(kit, "sizes"), allocs, reps or (1 if quick else 5), 1, hi, pairs, budget, log)
    show(sizes.write, res, allocs, out, skipped, 1, hi, pairs, budget)


@main.command("threads")
@common
@click.option("--threads", "counts", default="1,2,4,8", show_default=True, help="thread counts")
def threads_cmd(kit, out, only, reps, quick, counts):
    """threadtest at 1, 2, 4, 8 threads: time, heap and peak RSS.

    \b
    Example: python -m bench threads --quick --only ts-lock,ts-nolock
    """
    try:
        ts = [int(t) for t in counts.split(",")]
    except ValueError:
        raise click.BadParameter(f"not a list of numbers: {counts}", param_hint="--threads")
    if any(t < 1 or t > 256 for t in ts):
        raise click.BadParameter("thread counts must be 1..256", param_hint="--threads")
    # a count given twice would run twice and pool both runs' samples as one count's, as --only's names
    twice = sorted({t for t in ts if ts.count(t) > 1})
    if twice:
        raise click.BadParameter(f"{', '.join(map(str, twice))} given twice (name each count once)",
                                 param_hint="--threads")
    allocs, skipped = pick(kit, only, default_shims=FAST_SHIMS,
                           why="a linear search over every thread's blocks takes minutes here "
                               "(`--only all` runs them)")
    args = ["-r", "20", "-b", "200", "-s", "256"] if quick else ["-r", "300", "-b", "1000", "-s", "256"]
    res = threads.collect(program(kit, "threadtest"), allocs, ts, reps or (1 if quick else 7), args, log)
    show(threads.write, res, allocs, out, skipped)


@main.command("stress")
@common
@click.option("--trace", type=NonEmptyPath(dir_okay=False, path_type=Path), help="any trace mdriver accepts, plain or gzip (default: traces/fit-stress.rep); checked before any run")
def stress_cmd(kit, out, only, reps, quick, trace):
    """The fit-stress trace replayed for real: glibc and the four fit policies.

    \b
    Example: python -m bench stress --reps 3
    """
    trace = trace or kit / "traces" / "fit-stress.rep"
    if not trace.is_file():              # a FIFO or a device had been "no such trace" too
        raise click.ClickException(f"{trace}: " + ("not a regular file, so not a trace the replay reads"
                                                   if trace.exists() else "no such trace"))
    allocs, skipped = pick(kit, only, default_shims=list(stress.FIT_POLICIES), packages=False,
                           why="not one of the four fit policies")
    prog = program(kit, "replay")
    try:
        stress.check_trace(prog, trace)
        res = stress.collect(prog, trace, allocs, reps or (2 if quick else 15), log, stress.trace_label(trace, kit))
        if not res.partial:
            stress.check_some_run(res)
    except stress.StressError as err:
        raise click.ClickException(str(err)) from None
    show(stress.write, res, allocs, out, skipped)


# The skipped shims' reason names the ones run: "these three", after a list of nine skipped
# ones, read as if it meant those.
ALIGN_SHIMS = ["best", "segregated", "ts-lock"]
ALIGN_WHY = (f"every shim puts the same 16-byte header in front of the buffer, so {', '.join(ALIGN_SHIMS[:-1])} "
             f"and {ALIGN_SHIMS[-1]} show the shims' offsets (`--only all` runs them)")


@main.command("align")
@common
def align_cmd(kit, out, only, reps, quick):
    """Pipe-write throughput of malloc'd vs page-aligned 4-32 KiB buffers.

    \b
    Example: python -m bench align --quick --only best
    """
    allocs, skipped = pick(kit, only, default_shims=ALIGN_SHIMS, why=ALIGN_WHY)
    mb = 8 if quick else 128
    res = align.collect(program(kit, "alignpipe"), allocs, align.SIZES, reps or (1 if quick else 5), mb, log)
    show(align.write, res, allocs, out, skipped)


@main.command("programs")
@common
def programs_cmd(kit, out, only, reps, quick):
    """python, sort and gcc under each allocator: wall time and peak RSS.

    \b
    Example: python -m bench programs --quick --only best,ts-lock
    """
    allocs, skipped = pick(kit, only, default_shims=FAST_SHIMS + ["explicit-lifo"],
                           why="the list-scanning variants add minutes and show nothing new "
                               "(`--only all` runs them)")
    res = programs.collect(kit / "build" / "bench" / "work", allocs, reps or (1 if quick else 5),
                           0.1 if quick else 1.0, log)
    show(programs.write, res, allocs, out, skipped)


@main.command("summary")
@click.option("--out", type=NonEmptyPath(file_okay=False, path_type=Path), default=Path("docs"), show_default=True,
              help="where the studies' .json are and the summary goes")
def summary_cmd(out):
    """Headline figures and the kit's targets, from the studies' JSON files.

    \b
    Example: python -m bench summary --out docs
    """
    try:
        results = summary.load(out)
    except summary.SummaryError as err:
        raise click.ClickException(str(err)) from None
    if not results:
        raise click.ClickException(f"{out}: no bench-*.json here: run a study first (make bench)")
    path = out / "bench-summary.md"
    try:
        path.write_text(summary.render(results))
    except OSError as err:
        raise click.ClickException(f"{path}: cannot write it ({err.strerror})") from None
    click.echo(path)

"""make bench-traces: how fast the kit reads and replays a ten-million-op trace.

Generates (once) a 10M-op trace into build/bench-traces/, then measures, each as
the median of a few runs side by side:
  - the driver's parse rate (`mdriver --parse-only`, CPU time);
  - the driver's replay rate with a reference allocator and with libc (timing pass);
  - `mmtrace stats` and `mmtrace check` wall time on the same file.
Prints the figures; asserts nothing (speed goals belong in reports, not tests).
"""
from __future__ import annotations

import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

import click

from .driver_result import PartialRun, whole_run
from .gen import generate
from .oneline import IntRange, OneLineCommand
from .trace import LAB64, MAX_OPS, write_trace

KIT = Path(__file__).resolve().parent.parent


def _big_trace(out: Path, ops: int) -> Path:
    # The count names the file exactly: a cached trace of another length must not be reused.
    path = out / (f"syn-mix-{ops // 1_000_000}M.rep" if ops % 1_000_000 == 0 else f"syn-mix-{ops}.rep")
    if not path.exists():
        trace = generate("syn", 1, {"kind": "mix", "allocs": ops // 2, "live": 20000}, LAB64)
        write_trace(path, trace, ["make bench-traces: syn-mix, seed 1"])
    return path


def _driver(variant: str) -> Path:
    done = subprocess.run(["make", "-s", "-C", str(KIT), "driver", f"VARIANT={variant}"],
                          capture_output=True, text=True, errors="replace")
    if done.returncode != 0:
        said = (done.stderr.strip() or done.stdout.strip() or f"make exited with {done.returncode}").splitlines()[0]
        raise click.ClickException(f"--variant {variant}: the driver does not build: {said}")
    return KIT / done.stdout.strip().splitlines()[-1]


def _parse_rate(driver: Path, trace: Path) -> float:
    done = subprocess.run([str(driver), "--parse-only", "-f", str(trace)], capture_output=True,
                          text=True, errors="replace", check=True)
    total = [line for line in done.stdout.splitlines() if line.startswith("total")][0]
    return float(total.split("Mops/s (cpu)")[0].split()[-1])


def _wall(cmd: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, capture_output=True, check=True)
    return time.perf_counter() - start


def _even(ctx, param, ops: int) -> int:
    """--ops as the trace has them: each block allocated and freed, an even count."""
    if ops % 2:
        raise click.BadParameter(f"{ops} is odd: the trace allocates and frees each block, so its ops "
                                 f"are even (try {ops - 1})", ctx, param)
    return ops


@click.command(cls=OneLineCommand)
@click.option("--variant", default="segregated-realloc", show_default=True)
@click.option("--ops", type=IntRange(2, MAX_OPS), default=10_000_000, show_default=True, callback=_even,
              help="Ops in the trace (even: each block is allocated and freed).")
@click.option("--runs", type=IntRange(1, 99), default=3, show_default=True, help="Runs per figure (median).")
def main(variant: str, ops: int, runs: int) -> None:
    """Measure parse, replay and stats rates on a generated trace of --ops ops.

    \b
    Example:
      python -m mmtrace.bench --variant best --ops 1000000 --runs 1
      make bench-traces BENCH_VARIANT=best
    """
    out = KIT / "build" / "bench-traces"
    out.mkdir(parents=True, exist_ok=True)
    driver = _driver(variant)          # first: a mistyped variant costs no trace generation
    trace = _big_trace(out, ops)
    mb = trace.stat().st_size / 1e6
    click.echo(f"trace: {trace.relative_to(KIT)} ({ops:,} ops, {mb:.0f} MB)")
    parse = statistics.median(_parse_rate(driver, trace) for _ in range(runs))
    click.echo(f"driver parse:    {parse:8.2f} Mops/s (CPU, median of {runs}; goal >= 20)")
    res = out / "replay.json"
    start = time.perf_counter()
    subprocess.run([str(driver), "-T", "900", "-r", "3", "--json", str(res), "-f", str(trace)],
                   capture_output=True, check=False)
    whole = time.perf_counter() - start
    try:
        t = whole_run(json.loads(res.read_text()), str(res))["traces"][0]
    except PartialRun as err:
        raise click.ClickException(str(err)) from None
    if t["outcome"] != "ok":
        click.echo(f"driver replay:   {t['outcome']}: {t['message']}")
    else:
        mine, libc = t["timing"]["ops_per_sec"] / 1e6, t["libc"]["ops_per_sec"] / 1e6
        click.echo(f"driver replay:   {mine:8.2f} Mops/s {variant}, {libc:.2f} Mops/s libc "
                   f"(timing pass, K-best); whole run with checks {whole:.1f} s "
                   f"= {ops / whole / 1e6:.2f} Mops/s")
    py = [sys.executable, "-m", "mmtrace"]
    stats = statistics.median(_wall(py + ["stats", str(trace)]) for _ in range(runs))
    click.echo(f"mmtrace stats:   {stats:8.2f} s wall = {ops / stats / 1e6:.2f} Mops/s "
               f"(median of {runs})")
    check = _wall(py + ["check", str(trace)])
    click.echo(f"mmtrace check:   {check:8.2f} s wall = {ops / check / 1e6:.2f} Mops/s (one run)")


if __name__ == "__main__":
    main()

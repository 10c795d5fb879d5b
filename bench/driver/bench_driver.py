"""bench-driver: what the driver itself costs, and how steady its score is.

Prints three figures, each measured here and now:
  1. the timing pass's cost per op, replaying a 1M-op trace with a trivial
     allocator (goal: under 10 ns/op);
  2. the correctness pass's wall time on a 1M-op trace holding 100,000 live
     blocks (goal: under 3 s), with the trivial allocator (the driver alone) and
     with a real variant;
  3. the perf index over 5 runs of the same allocator on the default suite
     (goal: every run within +-1 point of the median).
"""
from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

KIT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(Path(__file__).parent), str(KIT)]
from gen_big import big_trace  # noqa: E402

from mmtrace.driver_result import PartialRun, whole_run  # noqa: E402


def build(*args: str) -> Path:
    out = subprocess.run(["make", "-s", "-C", str(KIT), "driver", *args], check=True, capture_output=True, text=True)
    return KIT / out.stdout.strip().splitlines()[-1]


def run_json(driver: Path, *args: str, env: dict | None = None) -> tuple[dict, float]:
    """The driver's JSON for ARGS and the run's wall time; SystemExit, one line, for a run that
    wrote none or was interrupted (its figures are part of a suite: no index, no spread)."""
    command = " ".join([driver.name, *args])
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        began = time.monotonic()
        done = subprocess.run([str(driver), *args, "--json", out.name], capture_output=True, text=True,
                              errors="replace", env=env)
        took = time.monotonic() - began
        try:
            return whole_run(json.loads(Path(out.name).read_text()), f"the JSON of `{command}`"), took
        except PartialRun as err:
            raise SystemExit(f"bench-driver: {err}") from None
        except ValueError:
            said = (done.stderr.strip().splitlines() or [f"exit status {done.returncode}"])[-1]
            raise SystemExit(f"bench-driver: `{command}` wrote no result: {said}") from None


def placed(placement: str | None) -> dict:
    """The environment that fixes where the trace's child runs (driver/cpus.h); None: the driver decides."""
    env = {k: v for k, v in os.environ.items() if k != "MDRIVER_CPUS"}
    if placement:
        env["MDRIVER_CPUS"] = placement
    return env


def pick_variant() -> str:
    for name in ("best", "segregated-realloc", "segregated"):
        if (KIT / "variants" / f"{name}.c").exists():
            return name
    raise SystemExit("bench-driver: no variant to measure in variants/")


def main(args: list[str]) -> None:
    # It takes no options: --help had been ignored like any other word, and ran the whole
    # benchmark, minutes of a shared machine.
    if args in (["-h"], ["--help"]):
        print(__doc__.strip() + "\n\nexample: make bench-driver   (or .venv/bin/python bench/driver/bench_driver.py)")
        return
    if args:
        print(f"bench-driver: takes no arguments, got {' '.join(args)!r} (--help says what it measures)", file=sys.stderr)
        raise SystemExit(2)
    variant = pick_variant()
    trivial = build("MM=bench/driver/trivial.c")
    real = build(f"VARIANT={variant}")
    with tempfile.TemporaryDirectory() as tmp:
        timed = Path(tmp) / "timed-1m.rep"
        big_trace(str(timed), 1_000_000, 1_000, seed=7, weight=3)
        doc, _ = run_json(trivial, "-M", "1G", "-r", "11", "-f", str(timed))
        trace = doc["traces"][0]
        per_op = [s / trace["ops"] * 1e9 for s in trace["timing"]["samples"]]
        libc_per_op = [s / trace["ops"] * 1e9 for s in trace["libc"]["samples"]]
        print("1. timing pass, trivial allocator, 1,000,000 ops (11+ samples)")
        print(f"   per op: median {statistics.median(per_op):.2f} ns, best {min(per_op):.2f} ns, "
              f"worst {max(per_op):.2f} ns   (libc malloc on the same loop: median "
              f"{statistics.median(libc_per_op):.2f} ns)   goal < 10 ns")

        checked = Path(tmp) / "checked-1m.rep"
        big_trace(str(checked), 1_000_000, 100_000, seed=11, weight=0)
        parse = subprocess.run([str(trivial), "--parse-only", "-f", str(checked)], capture_output=True, text=True)
        print("2. correctness pass, 1,000,000 ops, 100,000 live blocks (two passes: check, recheck);")
        print("   the child where the driver puts it, and on the parent's CPU (MDRIVER_CPUS=together),")
        print("   runs alternating")
        for label, driver in (("trivial allocator (driver alone)", trivial), (f"variant {variant}", real)):
            walls: dict[str | None, list[float]] = {None: [], "together": []}
            for _ in range(3):
                for placement in walls:
                    d, took = run_json(driver, "-M", "1G", "-f", str(checked), env=placed(placement))
                    assert d["traces"][0]["outcome"] == "ok", d["traces"][0]["message"]
                    walls[placement].append(took)
            default, together = walls[None], walls["together"]
            print(f"   {label}: median {statistics.median(default):.2f} s (min {min(default):.2f}, "
                  f"max {max(default):.2f}) for the whole run   goal < 3 s;   together: median "
                  f"{statistics.median(together):.2f} s ({statistics.median(together) / statistics.median(default):.2f}x)")
        print("   parse alone: " + parse.stdout.strip().splitlines()[-1].split("ops", 1)[1].strip())

    traces = KIT / "traces"
    if not any(traces.glob("*.rep*")):
        print("3. perf index spread: skipped, traces/ is empty (run make traces)")
        return
    # best runs at about libc's speed, where timing noise moves its throughput term across
    # the cap; segregated sits near half of libc, where the term is never capped.
    for name in dict.fromkeys((variant, "segregated")):
        driver = real if name == variant else build(f"VARIANT={name}")
        spread(name, driver, traces)


def spread(name: str, driver: Path, traces: Path) -> None:
    indices, ratios = [], []
    for run in range(5):
        d, _ = run_json(driver, "-t", str(traces))
        s = d["summary"]
        indices.append(s["perf_index"])
        ratios.append(s["throughput_ratio"])
        failed = [f"{t['name']} ({t['outcome']}: {t['message']})" for t in d["traces"] if t["outcome"] != "ok"]
        print(f"   {name} run {run + 1}: utilization {s['utilization']:.4f}, throughput {s['throughput_ratio']:.3f}x "
              f"libc, index {s['perf_index']:.2f}" + (f"; failed: {'; '.join(failed)}" if failed else ""))
    med = statistics.median(indices)
    print(f"3. perf index of {name} over 5 runs on traces/: " + ", ".join(f"{p:.1f}" for p in indices))
    print(f"   median {med:.2f}, spread {min(indices) - med:+.2f} / {max(indices) - med:+.2f} points "
          f"(throughput ratio {min(ratios):.3f}-{max(ratios):.3f})   goal within +-1")


if __name__ == "__main__":
    main(sys.argv[1:])

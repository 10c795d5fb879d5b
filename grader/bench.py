"""`make bench-grader`: grade a generated class and print what it cost.

The class is COUNT copies of the kit's variants and starter (each copy made
unique by a comment, so nothing is reused), plus a few broken hand-ins.  Prints
the wall time, the cost per submission, and how far apart the performance
indices of identical copies lie (the reproducibility of the timing).

example: python -m grader.bench --count 20 --only classic-bin   (or make bench-grader
         BENCH_GRADER_ARGS='--count 20')
"""
from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from collections import Counter, defaultdict
from dataclasses import replace
from pathlib import Path

from .cli import default_kit
from .grade import grade_batch, prepare
from .policy import load_policy
from .sandbox import probe
from .submissions import discover

BROKEN = "int mm_init(void) { return 0 }\n"


def make_class(kit: Path, folder: Path, count: int) -> dict[str, str]:
    """COUNT submissions named NNN-origin; returns name -> origin."""
    sources = {p.stem: p.read_text() for p in sorted((kit / "variants").glob("*.c"))}
    sources["starter"] = (kit / "mm.c").read_text()
    sources["broken"] = BROKEN
    names = sorted(sources)
    origins = {}
    for index in range(count):
        origin = names[index % len(names)]
        name = f"{index:03d}-{origin}"
        (folder / name).mkdir(parents=True)
        (folder / name / "mm.c").write_text(sources[origin] + f"\n/* copy {index} */\n")
        origins[name] = origin
    return origins


class _OneLineParser(argparse.ArgumentParser):
    """A usage mistake (`--count x`) in one line, as the checks below say theirs, not argparse's
    usage block of three."""

    def error(self, message: str):
        self.exit(2, f"grader bench: {message}\n")


def main(argv: list[str] | None = None) -> int:
    # named as it is run: argparse's default, the script's file name, is no command that runs it
    parser = _OneLineParser(prog="python -m grader.bench", description=__doc__,
                            formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--count", type=int, default=100, help="submissions in the class (at least 1; default: %(default)s)")
    parser.add_argument("-j", "--jobs", type=int, default=2, help="as mmgrade grade -j (1 to 64; default: %(default)s)")
    parser.add_argument("--traces", type=Path, default=None, help="trace folder (default: the kit's)")
    parser.add_argument("--only", default="classic-", help="use the traces whose names start with this (default: %(default)s)")
    parser.add_argument("--pin", action="store_true", help="time in parallel, one run pinned per CPU")
    args = parser.parse_args(argv)
    kit = default_kit()
    policy = load_policy(kit)
    folder = args.traces or kit / policy.traces.dir
    # Checked before the class is made: each was a traceback, or a division by zero at the end.
    problem = ("--count must be at least 1" if args.count < 1 else
               "-j must be from 1 to 64" if not 1 <= args.jobs <= 64 else
               f"--traces {folder}: not a folder" if not folder.is_dir() else None)
    chosen = () if problem else tuple(sorted(p.name for p in folder.iterdir() if p.name.startswith(args.only)
                                             and p.name.endswith((".rep", ".rep.gz"))))
    problem = problem or (None if chosen else f"--only {args.only}: no trace in {folder} starts with it")
    if problem:
        print(f"grader bench: {problem}", file=sys.stderr)
        return 2
    timing = replace(policy.timing, serialize=not args.pin, pin=args.pin)
    # The variants stand in for students under the course's own rules: each keeps its state in
    # the heap, within the 128-byte allowance of writable globals (tests/test_variants_globals.py).
    policy = replace(policy, traces=replace(policy.traces, files=chosen), timing=timing)
    work = Path(tempfile.mkdtemp(prefix="mmgrade-bench-"))
    work.chmod(0o755)                   # the sandbox's uid must reach the folders inside
    try:
        origins = make_class(kit, work / "class", args.count)
        start = time.monotonic()
        ctx = prepare(kit, policy, probe(), folder, work / "grader")
        ready = time.monotonic()
        batch = grade_batch(ctx, discover(work / "class"), work / "out", jobs=args.jobs,
                            notice=lambda line: print(f"grader bench: {line}", file=sys.stderr))
        end = time.monotonic()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    subs = batch.submissions
    by_origin: dict[str, list[float]] = defaultdict(list)
    for sub in subs:
        if sub.verdict == "ok":
            by_origin[origins[sub.name]].append(sub.summary.perf_index)
    print(f"grader bench: {len(subs)} submissions, {len(chosen)} traces ({args.only}*), -j {args.jobs}, "
          f"timing {'pinned per CPU' if args.pin else 'serialized'}")
    print(f"  sandbox: {', '.join(ctx.protections)}")
    print(f"  setup (template build, self-check, trace check): {ready - start:.1f} s")
    print(f"  grading wall time: {end - ready:.1f} s = {(end - ready) / len(subs):.2f} s per submission")
    print(f"  per-submission time (build + checks + run, incl. waiting for the timing lock): "
          f"median {statistics.median(s.seconds for s in subs):.2f} s, max {max(s.seconds for s in subs):.2f} s")
    print(f"  verdicts: {dict(sorted(Counter(s.verdict for s in subs).items()))}")
    print("  perf index of identical copies (min / max / spread, points):")
    for origin, values in sorted(by_origin.items()):
        if len(values) > 1:
            print(f"    {origin:20} {min(values):6.1f} {max(values):6.1f} {max(values) - min(values):5.1f}  ({len(values)} copies)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

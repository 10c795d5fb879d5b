"""Several driver runs per submission (timing.runs): which one counts, and how the runs read.

One run's throughput ratio to libc moves with the host's load, so a course may run the driver
N times.  The worst run decides correctness (a run that is not ok is the verdict); when every run
is ok, the run with the median performance index gives all the figures, so the trace table,
U, T/T_libc, P and the points all come from one real run.  tools/results.py picks its median
runs with the same chooser.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Sequence

from .model import RunFigure, Submission


def median_index(values: Sequence[float]) -> int:
    """The index of the median of VALUES (not empty): the lower middle of an even count; among
    equal values, run order decides, so the choice never depends on anything but VALUES."""
    ranked = sorted(range(len(values)), key=values.__getitem__)
    return ranked[(len(values) - 1) // 2]


def figure(sub: Submission) -> RunFigure:
    summary = sub.summary
    return RunFigure(verdict=sub.verdict, perf_index=summary.perf_index, utilization=summary.utilization,
                     throughput_ratio=summary.throughput_ratio)


def combine(graded: list[Submission], total: int) -> Submission:
    """The record of a submission whose runs, in order, were graded as GRADED out of TOTAL planned:
    every one ok, or all but the last, which ended the runs."""
    if total == 1:
        return graded[0]
    figures = tuple(figure(s) for s in graded)
    last = graded[-1]
    if last.verdict != "ok":
        reason = last.reason if len(graded) == 1 else f"run {len(graded)} of {total} failed: {last.reason}"
        return replace(last, reason=reason, runs=figures)
    chosen = graded[median_index([s.summary.perf_index for s in graded])]
    return replace(chosen, reason="; ".join([chosen.reason, median_note(figures), *_nondeterminism(figures)]),
                   runs=figures)


def perf_range(figures: Sequence[RunFigure]) -> tuple[float, float]:
    indices = [f.perf_index for f in figures]
    return min(indices), max(indices)


def median_note(figures: Sequence[RunFigure]) -> str:
    """'median of 3 runs by performance index (P 60.1 to 64.0)'."""
    low, high = perf_range(figures)
    return f"median of {len(figures)} runs by performance index (P {low:.1f} to {high:.1f})"


def _nondeterminism(figures: Sequence[RunFigure]) -> list[str]:
    """A note when utilization, which a deterministic allocator repeats exactly, differed."""
    utils = [f.utilization for f in figures if f.utilization is not None]
    if len(set(utils)) < 2:
        return []
    return [f"utilization differed between runs ({100 * min(utils):.1f}% to {100 * max(utils):.1f}%): "
            "the allocator is not deterministic, and the median run's figures count"]

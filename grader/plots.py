"""The report's figures, drawn with matplotlib (Agg: no display needed) into PNG files."""
from __future__ import annotations

import math
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (the backend must be chosen first)
from matplotlib.ticker import MaxNLocator  # noqa: E402

from .exports import counted, earned  # noqa: E402
from .model import Submission  # noqa: E402
from .scoring import shown, shown_trace  # noqa: E402
from .store import writing  # noqa: E402

_COLORS = {"ok": "#2a7f3f", "failed": "#c0392b", "rejected": "#8e44ad", "compile_error": "#7f8c8d",
           "link_error": "#95a5a6", "bad_submission": "#bdc3c7", "grader_error": "#e67e22"}


def _save(fig, path: Path) -> str:
    try:
        with writing(path):
            path.parent.mkdir(parents=True, exist_ok=True)
            fig.savefig(path, dpi=90, bbox_inches="tight")
    finally:
        plt.close(fig)
    return path.name


def _finite(values) -> list[float]:
    """VALUES without None, inf and NaN (a record from an older grader may hold them)."""
    return [v for v in values if v is not None and math.isfinite(v)]


def _known(value: float | None) -> bool:
    return value is not None and math.isfinite(value)


def histograms(subs: list[Submission], path: Path) -> str:
    """Distributions of points, performance index, utilization and throughput ratio.  Utilization
    and throughput only of the submissions that earned them (exports.earned; the caption says how
    many others had them); a grader_error in none (exports.counted)."""
    students = [shown(s.summary) for s in subs if not s.reference and counted(s)]
    passed = [shown(s.summary) for s in subs if not s.reference and earned(s)]
    series = [("points", _finite(s.points for s in students)),
              ("performance index", _finite(s.perf_index for s in students)),
              ("utilization %", _finite(100 * s.utilization for s in passed if _known(s.utilization))),
              ("throughput / libc", _finite(s.throughput_ratio for s in passed))]
    fig, axes = plt.subplots(1, 4, figsize=(14, 2.8))
    for ax, (title, values) in zip(axes, series):
        values = [v for v in values if math.isfinite(v)]   # a results.json written under a nan policy
        if values:
            ax.hist(values, bins=min(20, max(5, len(values))), color="#3465a4", edgecolor="white")
            ax.yaxis.set_major_locator(MaxNLocator(integer=True))    # counts: no 0.2 of a submission
        else:       # no bar: one drawn at 0 read as a submission there, in a class with none
            ax.text(0.5, 0.5, "no submission has this figure", ha="center", va="center",
                    transform=ax.transAxes, fontsize=8, color="#777")
            ax.set_xticks([])
            ax.set_yticks([])
        ax.set_title(title, fontsize=10)
        ax.set_ylabel("submissions", fontsize=8)
    return _save(fig, path)


def scatter(subs: list[Submission], path: Path) -> str:
    """Utilization against throughput ratio; reference variants marked and named.  A submission
    without both figures is left out: drawn at throughput 0 it read as measured there."""
    fig, ax = plt.subplots(figsize=(6.5, 4.5))
    for verdict, color in _COLORS.items():
        pts = [shown(s.summary) for s in subs if not s.reference and s.verdict == verdict]
        pts = [s for s in pts if s.utilization is not None and s.throughput_ratio is not None]
        if pts:
            ax.scatter([s.throughput_ratio for s in pts], [100 * s.utilization for s in pts],
                       s=22, color=color, alpha=0.75, label=verdict)
    for ref in (s for s in subs if s.reference):
        figures = shown(ref.summary)
        if figures.utilization is None or figures.throughput_ratio is None:
            continue
        x, y = figures.throughput_ratio, 100 * figures.utilization
        ax.scatter([x], [y], marker="*", s=160, color="black", zorder=3)
        ax.annotate(ref.name, (x, y), textcoords="offset points", xytext=(6, 4), fontsize=8)
    ax.set_xlabel("throughput relative to libc (same machine, same run)")
    ax.set_ylabel("utilization %")
    ax.grid(alpha=0.3)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=8, loc="best")
    return _save(fig, path)


def traces_figure(sub: Submission, path: Path) -> str:
    """One submission: utilization and throughput ratio per trace."""
    traces = [shown_trace(t) for t in sub.traces]     # no figure (an older grader's inf or NaN): no bar
    names = [t.name for t in traces]
    util = [100 * t.utilization if t.utilization is not None else 0 for t in traces]
    ratio = [t.ops_per_sec / t.libc_ops_per_sec if t.ops_per_sec is not None and t.libc_ops_per_sec else 0
             for t in traces]
    ratio = [r if r < 1e6 else 0 for r in ratio]
    fig, axes = plt.subplots(1, 2, figsize=(11, 0.5 + 0.3 * max(4, len(names))))
    colors = ["#2a7f3f" if t.outcome == "ok" else "#c0392b" for t in traces]
    axes[0].barh(names, util, color=colors)
    axes[0].set_xlabel("utilization %")
    axes[1].barh(names, ratio, color=colors)
    axes[1].set_xlabel("throughput / libc")
    axes[1].set_yticklabels([])
    for ax in axes:
        ax.set_xlim(left=0, right=max(ax.get_xlim()[1], 1e-9))
        ax.invert_yaxis()
        ax.grid(axis="x", alpha=0.3)
    return _save(fig, path)

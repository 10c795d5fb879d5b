"""results_plots.py - the plots of docs/results.md (matplotlib, no display needed)."""
from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

# The variants drawn per trace: one of each step of the progression.
PER_TRACE = ["implicit-first", "explicit-lifo", "segregated", "segregated-realloc", "best"]


def plot_all(runs: list, out_dir: Path) -> list[Path]:
    if not runs:
        return []
    return [util_vs_throughput(runs, out_dir / "results-util-vs-throughput.png"),
            per_trace(runs, out_dir / "results-util-per-trace.png", "utilization"),
            per_trace(runs, out_dir / "results-ratio-per-trace.png", "ratio")]


def util_vs_throughput(runs: list, path: Path) -> Path:
    fig, ax = plt.subplots(figsize=(8, 5.5))
    for r in runs:
        if not r.ratio:
            continue
        dots = ax.scatter(r.ratio, 100 * r.utilization, s=40)
        measured = r.measured_ratios()   # a run with no ratio has no place on a log scale
        if len(measured) > 1:       # the median run's ratio, and the range over its runs
            ax.errorbar(r.ratio, 100 * r.utilization, xerr=[[r.ratio - min(measured)], [max(measured) - r.ratio]],
                        color=dots.get_facecolor()[0], capsize=3, linewidth=1)
        ax.annotate(r.variant, (r.ratio, 100 * r.utilization), textcoords="offset points",
                    xytext=(5, 4), fontsize=8)
    ax.axvline(1.0, color="grey", linestyle="--", linewidth=1)
    ax.text(1.02, ax.get_ylim()[0] + 1, "libc", color="grey", fontsize=8)
    ax.set_xscale("log")
    ax.set_xlabel("throughput / libc's (same run, log scale; bars: the range over a variant's runs)")
    ax.set_ylabel("average utilization, %")
    ax.set_title("Each variant on the whole suite, 16-byte alignment")
    ax.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def per_trace(runs: list, path: Path, what: str) -> Path:
    """WHAT per trace, one bar per variant: "utilization", or "ratio", its throughput over libc's
    timed in its own run (libc's Kops from one variant's run beside another's would compare two runs)."""
    shown = [r for name in PER_TRACE for r in runs if r.variant == name] or runs[:5]
    names = [t.name for t in shown[0].traces]
    width = 0.8 / len(shown)
    fig, ax = plt.subplots(figsize=(max(10, 0.45 * len(names)), 5.5))
    for i, r in enumerate(shown):
        values = []
        for n in names:
            t = r.trace(n)
            v = None if t is None else (t.utilization if what == "utilization" else t.ratio)
            # no bar for a trace without a figure: 0 has no place on a log scale
            values.append((0 if v is None else 100 * v) if what == "utilization" else (v or float("nan")))
        ax.bar([x + i * width for x in range(len(names))], values, width, label=r.variant)
    if what == "ratio":
        ax.axhline(1.0, color="grey", linestyle="--", linewidth=1)
        ax.set_yscale("log")
        ax.set_ylabel("throughput / libc's in the same run (log scale)")
    else:
        ax.set_ylabel("utilization, %")
        ax.set_ylim(0, 105)
    ax.set_xticks([x + 0.4 - width / 2 for x in range(len(names))])
    ax.set_xticklabels(names, rotation=70, ha="right", fontsize=7)
    ax.legend(fontsize=8, ncol=3)
    ax.set_title(("Utilization" if what == "utilization" else "Throughput over libc's")
                 + " per trace, 16-byte alignment")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path

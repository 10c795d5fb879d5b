"""tools/results_plots.py: the data each plot hands matplotlib (its series, their labels and
values, its axes), read from the figures before they are closed, not from pixels."""
from __future__ import annotations

import math
import sys

import pytest

from results_common import made_run
from variants_common import KIT

sys.path.insert(0, str(KIT / "tools"))
import results  # noqa: E402
import results_plots  # noqa: E402


@pytest.fixture
def figures(monkeypatch):
    """The figures plot_all draws, in order, kept open (plt.close only records them)."""
    drawn: list = []
    monkeypatch.setattr(results_plots.plt, "close", drawn.append)
    yield drawn
    for fig in drawn:
        fig.clf()


def _with_ratios(run: results.Run, ratios: dict[str, float | None]) -> results.Run:
    """RUN whose traces ran at RATIOS to libc (libc's seconds over the variant's; None: no timing)."""
    return results.replace(run, traces=tuple(
        results.replace(t, seconds=None if ratios[t.name] is None else 1.0,
                        libc_seconds=ratios[t.name]) for t in run.traces))


def test_util_vs_throughput_puts_each_variant_at_its_ratio_and_utilization(figures, tmp_path):
    """x: the median run's ratio to libc, log scale, with a bar over the range of its runs and a
    line at libc (1x); y: its whole-suite utilization in %.  A variant with no ratio has no place."""
    seg = results.replace(made_run("segregated", {"a": 0.6, "b": 0.8}, 500.0), ratios=(0.4, 0.5, 0.7))
    best = made_run("best", {"a": 0.9, "b": 0.95}, 2000.0)
    failed = results.replace(made_run("implicit-first", {"a": 0.1}, 1.0), ratio=None)
    results_plots.util_vs_throughput([seg, failed, best], tmp_path / "p.png")
    ax = figures[0].axes[0]
    assert [c.get_offsets().tolist() for c in ax.collections if hasattr(c, "get_sizes") and len(c.get_sizes())] \
        == [[[0.5, 70.0]], [[2.0, 92.5]]]
    assert [(a.get_text(), a.xy) for a in ax.texts if a.get_text() != "libc"] == [
        ("segregated", (0.5, 70.0)), ("best", (2.0, 92.5))]        # each name beside its own dot
    bars = [c for c in ax.containers]
    assert len(bars) == 1          # best ran once: no range to draw
    (segments,) = [lc.get_segments() for lc in bars[0].lines[2]]
    assert [list(p) for p in segments[0]] == [[0.4, 70.0], [0.7, 70.0]]
    assert ax.get_xscale() == "log" and ax.get_yscale() == "linear"
    assert [line.get_xdata() for line in ax.lines if list(line.get_xdata()) == [1.0, 1.0]]
    assert ax.get_xlabel().startswith("throughput / libc's") and ax.get_ylabel() == "average utilization, %"


def test_a_range_is_drawn_from_two_runs(figures, tmp_path):
    seg = results.replace(made_run("segregated", {"a": 0.6}, 500.0), ratios=(0.4, 0.5))
    results_plots.util_vs_throughput([seg], tmp_path / "p.png")
    (bar,) = figures[0].axes[0].containers
    assert [list(p) for p in bar.lines[2][0].get_segments()[0]] == [[0.4, 60.0], [0.5, 60.0]]


def test_a_range_leaves_out_a_run_without_a_ratio(figures, tmp_path):
    """A run where every trace failed has no ratio: the bar spans the runs that measured one,
    not down to 0, which a log axis cannot show."""
    seg = results.replace(made_run("segregated", {"a": 0.6}, 500.0), ratios=(0.4, None, 0.5))
    results_plots.util_vs_throughput([seg], tmp_path / "p.png")
    (bar,) = figures[0].axes[0].containers
    assert [list(p) for p in bar.lines[2][0].get_segments()[0]] == [[0.4, 60.0], [0.5, 60.0]]


def test_per_trace_plots_show_the_progression_in_order(figures, tmp_path):
    """One bar per trace for each step of the progression, in its order (not the runs' order):
    utilization in %, a failed trace at 0; then the ratio to libc in the variant's own run, on a
    log scale with a line at 1x, and no bar where a trace has no ratio."""
    names = ["implicit-first", "explicit-lifo", "segregated", "segregated-realloc", "best"]
    runs = [_with_ratios(made_run(v, {"t1": 0.5 + 0.1 * i, "t2": 0.4}, 100.0), {"t1": 0.1 * (i + 1), "t2": 2.0})
            for i, v in enumerate(names)]
    runs[1] = _with_ratios(results.replace(runs[1], traces=(
        results.replace(runs[1].traces[0], outcome="out_of_heap", utilization=None), runs[1].traces[1])),
        {"t1": None, "t2": 2.0})
    others = [made_run(v, {"t1": 0.9, "t2": 0.9}, 100.0) for v in ("explicit-addr", "implicit-best")]
    shuffled = [runs[4], others[0], runs[2], runs[0], others[1], runs[3], runs[1]]
    paths = results_plots.plot_all(shuffled, tmp_path)
    assert [p.name for p in paths] == ["results-util-vs-throughput.png", "results-util-per-trace.png",
                                       "results-ratio-per-trace.png"]
    util, ratio = figures[1].axes[0], figures[2].axes[0]
    for ax in (util, ratio):
        assert [b.get_label() for b in ax.containers] == names
        assert [t.get_text() for t in ax.get_xticklabels()] == ["t1", "t2"]
    heights = [[r.get_height() for r in b] for b in util.containers]
    assert heights == [pytest.approx([50.0, 40.0]), [0, pytest.approx(40.0)], pytest.approx([70.0, 40.0]),
                       pytest.approx([80.0, 40.0]), pytest.approx([90.0, 40.0])]
    assert util.get_yscale() == "linear" and util.get_ylabel() == "utilization, %"
    ratios = [[r.get_height() for r in b] for b in ratio.containers]
    assert math.isnan(ratios[1][0])
    assert ratios[:1] + ratios[2:] == [pytest.approx([0.1 * (i + 1), 2.0]) for i in (0, 2, 3, 4)]
    assert ratio.get_yscale() == "log" and ratio.get_ylabel().startswith("throughput / libc's")
    assert [list(line.get_ydata()) for line in ratio.lines] == [[1.0, 1.0]]


def test_per_trace_plots_show_the_first_five_runs_without_the_progression(figures, tmp_path):
    runs = [made_run(f"mine-{i}", {"t1": 0.5}, 100.0) for i in range(7)]
    results_plots.per_trace(runs, tmp_path / "p.png", "utilization")
    assert [b.get_label() for b in figures[0].axes[0].containers] == [f"mine-{i}" for i in range(5)]
    assert results_plots.plot_all([], tmp_path) == []


def test_each_traces_bars_stand_side_by_side_under_its_name(figures, tmp_path):
    """Per trace, the variants' bars in order left to right, none over another or over the next
    trace's, and the trace's name at the middle of its group."""
    runs = [made_run(v, {"t1": 0.5, "t2": 0.6, "t3": 0.7}, 100.0) for v in results_plots.PER_TRACE]
    results_plots.per_trace(runs, tmp_path / "p.png", "utilization")
    ax = figures[0].axes[0]
    groups = [[(b[j].get_x(), b[j].get_x() + b[j].get_width()) for b in ax.containers] for j in range(3)]
    edges = [e for group in groups for span in group for e in span]
    assert all(a <= b + 1e-9 for a, b in zip(edges, edges[1:])), groups
    for group, tick in zip(groups, ax.get_xticks(), strict=True):
        assert (group[0][0] + group[-1][1]) / 2 == pytest.approx(tick)

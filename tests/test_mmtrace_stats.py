"""mmtrace.stats on hand-made traces whose figures can be worked out by hand."""
from __future__ import annotations

from pathlib import Path

from mmtrace.linter import read_trace
from mmtrace.stats import TraceStats, live_series, measure


def _trace(tmp: Path, body: str, ids: int, ops: int):
    p = tmp / "t.rep"
    p.write_text(f"1\n{ids}\n{ops}\n0\n{body}")
    return read_trace(p)


def test_counts_sizes_and_peak(tmp_path):
    # live bytes after each op: 100 300 200 700 500 0 ... peak 700 (ids 0+2 after r 0 500)
    body = "a 0 100\na 1 200\nf 0\nn 2 500\nr 1 0\nf 2\n"
    s = measure(_trace(tmp_path, body, 3, 6))
    assert (s.ops, s.ids, s.mallocs, s.frees) == (6, 3, 2, 2)
    assert (s.reallocs, s.realloc_null, s.realloc_zero) == (0, 1, 1)
    assert (s.size_min, s.size_median, s.size_max, s.distinct_sizes) == (100, 200, 500, 3)
    assert s.peak_live_bytes == 700
    assert s.peak_live_blocks == 2
    assert s.never_freed == 0


def test_realloc_shrink_and_grow_move_live_bytes(tmp_path):
    body = "a 0 1000\nr 0 10\na 1 20\nr 0 5000\nr 1 1\nf 0\nf 1\n"
    t = _trace(tmp_path, body, 2, 7)
    live, blocks = live_series(t)
    assert live.tolist() == [1000, 10, 30, 5020, 5001, 1, 0]
    assert blocks.tolist() == [1, 1, 2, 2, 2, 1, 0]
    s = measure(t)
    assert s.reallocs == 3 and s.peak_live_bytes == 5020


def test_id_reuse_after_free(tmp_path):
    body = "a 0 64\nf 0\na 0 32\na 1 16\nf 1\nf 0\n"
    s = measure(_trace(tmp_path, body, 2, 6))
    assert s.peak_live_bytes == 64 and s.peak_live_blocks == 2
    # percentiles are request sizes themselves: the one at floor(q (n - 1)) of the sorted list
    assert (s.size_p10, s.size_median, s.size_p90) == (16, 32, 32)
    assert s.share_le_32 == round(2 / 3, 4)


def test_never_freed_and_json_round_trip(tmp_path):
    s = measure(_trace(tmp_path, "a 0 7\na 1 9\nf 1\n", 2, 3))
    assert s.never_freed == 1
    assert TraceStats.from_json(s.to_json()) == s


def test_empty_trace(tmp_path):
    s = measure(_trace(tmp_path, "", 0, 0))
    assert s.ops == 0 and s.peak_live_bytes == 0 and s.size_max == 0


def test_the_size_plot_says_how_many_zero_byte_requests_its_log_axis_leaves_out(tmp_path, monkeypatch):
    """malloc(0), which a recording keeps, has no place on the histogram's log axis: its requests
    had vanished from a plot labelled 'request sizes'. The axis now says how many are not shown."""
    import matplotlib.figure
    from mmtrace.plot import plot_trace
    seen = []
    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", lambda fig, *a, **k: seen.append(fig))
    plot_trace("t", _trace(tmp_path, "a 0 0\na 1 0\na 2 8\nf 0\nf 1\nf 2\n", 3, 6), tmp_path / "t.png")
    assert seen[0].axes[0].get_xlabel() == "request size (bytes); 2 of 0 bytes not shown"
    seen.clear()
    plot_trace("t", _trace(tmp_path, "a 0 8\nf 0\n", 1, 2), tmp_path / "t.png")
    assert seen[0].axes[0].get_xlabel() == "request size (bytes)"

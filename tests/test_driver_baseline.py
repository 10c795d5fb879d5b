"""The libc baseline is measured in the run, with the allocator's own method; a
cached one is used only when asked, and the output says where and when it was taken."""
from __future__ import annotations

import pytest

from driver_common import kbest, run, write_trace


def small(tmp, name="small"):
    return write_trace(tmp, name, ["a 0 64", "a 1 128", "f 0", "r 1 512", "f 1"], weight=1)


def large(tmp, n=4000):
    ops = [f"a {i} {16 + i % 200}" for i in range(n)] + [f"f {i}" for i in range(n)]
    return write_trace(tmp, "large", ops, weight=3)


def test_libc_is_timed_in_this_run(tmp_path, driver):
    r = run(driver, "-f", small(tmp_path), "-f", large(tmp_path), tmp=tmp_path)
    assert r.rc == 0, r.err
    assert r.doc["settings"]["baseline"] == "measured" and r.doc["settings"]["baseline_source"] is None
    m = r.doc["machine"]
    assert f"libc baseline: timed in this run on {m['hostname']} ({m['cpu']})" in r.out
    min_samples = r.doc["settings"]["min_samples"]
    for name in ("small", "large"):
        libc = r.trace(name)["libc"]
        assert len(libc["samples"]) >= min_samples and all(s > 0 for s in libc["samples"])
        assert libc["seconds"] == pytest.approx(kbest(libc["samples"]), rel=1e-6)
    # A measurement, not a constant: 1600 times the ops take far longer.
    assert r.trace("large")["libc"]["seconds"] > 10 * r.trace("small")["libc"]["seconds"]


def test_saved_baseline_is_reused_and_says_where_from(tmp_path, driver):
    cache = tmp_path / "libc.baseline"
    files = ["-f", small(tmp_path), "-f", large(tmp_path)]
    saved = run(driver, "--save-baseline", cache, *files, tmp=tmp_path)
    assert saved.rc == 0, saved.err
    m = saved.doc["machine"]
    lines = cache.read_text().splitlines()
    assert lines[:4] == ["mdriver-baseline 1", f"machine {m['hostname']} | {m['cpu']}", f"date {m['date']}",
                         "alignment 16"]
    timed = {line.split()[1]: float(line.split()[3]) for line in lines if line.startswith("trace ")}
    assert timed == pytest.approx({n: saved.trace(n)["libc"]["seconds"] for n in ("small", "large")}, rel=1e-6)

    cached = run(driver, "--baseline", cache, *files, tmp=tmp_path)
    assert cached.rc == 0, cached.err
    source = f"cached in {cache}, taken on {m['hostname']} | {m['cpu']} at {m['date']}"
    assert f"libc baseline: {source}" in cached.out
    assert cached.doc["settings"]["baseline"] == "cached"
    assert cached.doc["settings"]["baseline_source"].startswith(f"cached in {cache}")
    for name in ("small", "large"):
        assert cached.trace(name)["libc"]["seconds"] == pytest.approx(timed[name], rel=1e-6)
        assert len(cached.trace(name)["libc"]["samples"]) == 1  # not re-timed
    assert cached.summary["throughput_ratio"] is not None


def test_baseline_without_a_trace_is_an_error(tmp_path, driver):
    cache = tmp_path / "libc.baseline"
    assert run(driver, "--save-baseline", cache, "-f", small(tmp_path), tmp=tmp_path).rc == 0
    r = run(driver, "--baseline", cache, "-f", small(tmp_path), "-f", small(tmp_path, "other"), tmp=tmp_path)
    assert r.rc == 2
    assert "no timing for trace other with 5 ops" in r.err


@pytest.mark.parametrize("content,fragment", [
    ("not a baseline\n", ":1: not an mdriver baseline file"),
    ("mdriver-baseline 1\nalignment 8\ntrace small 5 0.001\n", ":2: the baseline was taken with 8-byte alignment"),
    ("mdriver-baseline 1\nwhat is this\n", ":2: cannot read this line"),
])
def test_damaged_baseline(tmp_path, driver, content, fragment):
    cache = tmp_path / "bad.baseline"
    cache.write_text(content)
    r = run(driver, "--baseline", cache, "-f", small(tmp_path), tmp=tmp_path)
    assert r.rc == 2
    assert f"mdriver: {cache}{fragment}" in r.err


def test_missing_baseline_file(tmp_path, driver):
    r = run(driver, "--baseline", tmp_path / "nope", "-f", small(tmp_path), tmp=tmp_path)
    assert r.rc == 2
    assert f"{tmp_path / 'nope'}:0: cannot open the baseline" in r.err

"""Utilization and the performance index on tiny traces computed by hand, with
the starter mm.c: a bump allocator whose every block takes 16 + round_up(size, 16)
bytes of heap and is never reused.  The scoring constants come from
`mdriver --describe`, never from a copy here.
"""
from __future__ import annotations

import copy
from pathlib import Path

import jsonschema
import pytest

from conftest import KIT
from driver_common import broken, describe, kbest, run, schema_validator, variant, write_trace


def bump(size: int) -> int:
    return 16 + (size + 15) // 16 * 16


def a16(size: int) -> int:
    return (size + 15) // 16 * 16


# Trace A (weight 1): live payload after each op in the comments.
TRACE_A = ["a 0 10",    # 10
           "a 1 100",   # 110
           "f 0",       # 100
           "a 2 33",    # 133
           "r 1 300",   # 333  <- peak; aligned live 48 + 304 = 352
           "f 2",       # 300
           "f 1"]       # 0
A_PEAK, A_PEAK_ALIGNED = 33 + 300, a16(33) + a16(300)
A_HEAP = bump(10) + bump(100) + bump(33) + bump(300)  # every request takes new heap, realloc included

# Trace B (weight 2): malloc(0), a shrinking realloc, an id reused.
TRACE_B = ["a 0 0",     # 0
           "a 1 50",    # 50   <- peak; aligned 64
           "r 1 20",    # 20
           "f 0",       # 20
           "a 0 5",     # 25
           "f 1",
           "f 0"]
B_PEAK, B_PEAK_ALIGNED = 50, a16(50)
B_HEAP = bump(0) + bump(50) + bump(20) + bump(5)


def test_hand_computed_utilization(tmp_path, driver):
    assert (A_HEAP, B_HEAP) == (544, 176)  # the arithmetic above, spelled out once
    r = run(driver, "-f", write_trace(tmp_path, "A", TRACE_A, weight=1), "-f",
            write_trace(tmp_path, "B", TRACE_B, weight=2), tmp=tmp_path)
    assert r.rc == 0, r.err
    a, b = r.trace("A"), r.trace("B")
    assert (a["peak_payload"], a["heap_high_water"]) == (A_PEAK, A_HEAP)
    assert (b["peak_payload"], b["heap_high_water"]) == (B_PEAK, B_HEAP)
    assert a["utilization"] == pytest.approx(A_PEAK / A_HEAP)
    assert a["ideal_utilization"] == pytest.approx(A_PEAK / A_PEAK_ALIGNED)
    assert b["utilization"] == pytest.approx(B_PEAK / B_HEAP)
    assert b["ideal_utilization"] == pytest.approx(B_PEAK / B_PEAK_ALIGNED)
    # The table shows both, as percentages.
    assert r.row("A")[0].split()[3:5] == [f"{100 * A_PEAK / A_HEAP:.1f}%", f"{100 * A_PEAK / A_PEAK_ALIGNED:.1f}%"]

    # The score, from the JSON's own fields and the constants --describe gives.
    d = describe(driver)
    w, cap = d["util_weight"], d["throughput_cap"]
    s = r.summary
    u = (A_PEAK / A_HEAP + B_PEAK / B_HEAP) / 2
    ratio = a["libc"]["seconds"] / a["timing"]["seconds"]  # only A is timed (weight 1)
    assert s["utilization"] == pytest.approx(u)
    assert s["throughput_ratio"] == pytest.approx(ratio, rel=1e-6)
    assert s["throughput_ops_per_sec"] == pytest.approx(len(TRACE_A) / a["timing"]["seconds"], rel=1e-6)
    assert s["libc_ops_per_sec"] == pytest.approx(len(TRACE_A) / a["libc"]["seconds"], rel=1e-6)
    assert s["util_points"] == pytest.approx(100 * w * u)
    assert s["throughput_points"] == pytest.approx(100 * (1 - w) * min(cap, ratio), rel=1e-6)
    assert s["perf_index"] == pytest.approx(s["util_points"] + s["throughput_points"])
    assert (f"Perf index = {s['util_points']:.1f} (util) + {s['throughput_points']:.1f} (thru) = "
            f"{s['perf_index']:.1f}/100") in r.out
    assert f"[throughput {s['throughput_ratio']:.2f}x libc]" in r.out


def test_only_utilization_traces_score_on_utilization_alone(tmp_path, driver):
    r = run(driver, "-f", write_trace(tmp_path, "B", TRACE_B, weight=2), tmp=tmp_path)
    assert r.summary["throughput_ratio"] is None
    assert r.summary["perf_index"] == pytest.approx(100 * B_PEAK / B_HEAP)


def test_only_throughput_traces_score_on_throughput_alone(tmp_path, driver):
    r = run(driver, "-f", write_trace(tmp_path, "A", TRACE_A, weight=3), tmp=tmp_path)
    a = r.trace("A")
    assert a["utilization"] is None
    cap = describe(driver)["throughput_cap"]
    assert r.summary["perf_index"] == pytest.approx(100 * min(cap, a["libc"]["seconds"] / a["timing"]["seconds"]),
                                                    rel=1e-6)


@pytest.mark.parametrize("weight", [1, 3])
def test_a_trace_with_no_ops_earns_no_throughput_from_0_over_0(tmp_path, driver, weight):
    """Its ratio would be 0/0 (NaN), which the cap once let through as full credit:
    it counts for correctness only, and leaves the other traces' score as it was."""
    empty = write_trace(tmp_path, "empty", [], ids=1, weight=weight)
    r = run(driver, "-g", "-f", empty, tmp=tmp_path)
    assert r.rc == 0, r.out + r.err
    s = r.summary
    assert (s["valid"], s["throughput_ratio"], s["throughput_points"], s["perf_index"]) == (1, None, None, None)
    assert r.out.splitlines()[-2:] == ["correct:1", "perfidx:0"]   # the line autograders read
    alone = run(driver, "-f", write_trace(tmp_path, "A", TRACE_A, weight=1), tmp=tmp_path).summary
    both = run(driver, "-f", empty, "-f", tmp_path / "A.rep", tmp=tmp_path).summary
    assert both["valid"] == 2 and both["utilization"] == pytest.approx(alone["utilization"])
    assert both["util_points"] == pytest.approx(alone["util_points"])
    assert 0 < both["throughput_points"] <= 100 * (1 - describe(driver)["util_weight"])


def test_a_failed_trace_scores_zero_and_is_named(tmp_path):
    """segv.c crashes on a 777-byte request; its trace counts 0 for utilization and throughput."""
    files = ["-f", write_trace(tmp_path, "good", TRACE_A, weight=1),
             "-f", write_trace(tmp_path, "bad", ["a 0 16", "a 1 777"], weight=1)]
    r = run(broken("segv"), *files, tmp=tmp_path)
    assert r.rc == 1
    good = r.trace("good")
    s = r.summary
    assert s["utilization"] == pytest.approx(good["utilization"] / 2)
    assert s["throughput_ratio"] == pytest.approx(good["libc"]["seconds"] / good["timing"]["seconds"] / 2, rel=1e-6)
    assert r.trace("bad")["timing"] is None and r.trace("bad")["utilization"] is None
    assert "1 trace(s) failed and score 0 (first: bad, crashed)." in r.out


def test_timing_estimate_is_the_documented_k_best(tmp_path, driver):
    r = run(driver, "-f", write_trace(tmp_path, "A", TRACE_A, weight=1), tmp=tmp_path)
    t = r.trace("A")
    assert "3 fastest" in r.doc["scoring"]["estimator"]
    for timing in (t["timing"], t["libc"]):
        fastest = sorted(timing["samples"])[:3]
        assert timing["seconds"] == pytest.approx(sum(fastest) / 3, rel=1e-6)
        assert timing["ops_per_sec"] == pytest.approx(len(TRACE_A) / timing["seconds"], rel=1e-6)


def test_libc_and_the_allocator_are_timed_as_many_times(tmp_path):
    """The fastest 3 of more samples are faster: libc, which settles later, is topped
    up to the allocator's count, and the allocator takes at least libc's."""
    kit = Path(__file__).resolve().parent.parent / "traces"
    names = ["classic-amptjp", "classic-cccp", "classic-random", "classic-expr", "size-sweep"]
    r = run(variant("segregated"), "-r", "1", *[a for n in names for a in ("-f", kit / f"{n}.rep")], tmp=tmp_path)
    assert r.rc == 0, r.err
    for name in names:
        t = r.trace(name)
        assert len(t["timing"]["samples"]) == len(t["libc"]["samples"]) >= 3, name
        assert len(t["libc"]["page_faults"]) == len(t["libc"]["samples"])
        assert t["libc"]["seconds"] == pytest.approx(kbest(t["libc"]["samples"]), rel=1e-6)
    assert "topped up" in r.doc["scoring"]["estimator"]


def test_schema_rejects_what_the_driver_must_never_write(tmp_path, driver):
    """The validator used on every run in these tests is a real one."""
    doc = run(driver, "-f", write_trace(tmp_path, "A", TRACE_A, weight=1), tmp=tmp_path).doc
    schema_validator().validate(doc)
    for damage in (lambda d: d["traces"][0].__setitem__("outcome", "fine"),
                   lambda d: d["summary"].pop("perf_index"),
                   lambda d: d.__setitem__("extra", 1),
                   lambda d: d.__setitem__("schema", 2)):
        bad = copy.deepcopy(doc)
        damage(bad)
        with pytest.raises(jsonschema.ValidationError):
            schema_validator().validate(bad)


def test_team_and_allocator_identity_in_the_json(tmp_path, driver):
    doc = run(driver, "-f", write_trace(tmp_path, "A", TRACE_A), tmp=tmp_path).doc
    assert doc["allocator"]["name"] == "mm.c" and doc["allocator"]["team"] is None
    assert doc["schema"] == 1 and doc["tool"] == "mdriver"


def test_libc_is_timed_on_the_replay_alone_not_on_giving_back_its_blocks(tmp_path, driver):
    """libc's sample is its replay, as the allocator's is: the walk over every id that gives back
    the blocks a trace leaves live comes after it, untimed.  Timed, an id count of millions made
    libc thousands of times slower than on the same two ops with one id (5431x libc, once)."""
    few = write_trace(tmp_path, "few", ["a 0 16", "f 0", "a 1 16"], weight=1)
    many = write_trace(tmp_path, "many", ["a 0 16", "f 0", "a 1 16"], weight=1, ids=8_000_000)
    r = run(driver, "-f", few, "-f", many, tmp=tmp_path, timeout=300)
    assert r.rc == 0, r.err
    libc_few, libc_many = r.trace("few")["libc"]["seconds"], r.trace("many")["libc"]["seconds"]
    assert libc_many < 20 * libc_few, (libc_few, libc_many)      # the walk alone took ~1000x


@pytest.mark.parametrize("heap", ["1", "20M"])
def test_a_trace_with_no_payload_has_no_utilization(tmp_path, driver, heap):
    """a 0 0 / f 0: with -M 1 mm.c returned NULL for malloc(0) and the row showed 100% (perf index
    92.7), at 20M it handed out a block and showed 0.0%, and either way the total left it out.
    Now it has no utilization whatever the allocator returns: '-', null, left out of the mean."""
    from grader.scoring import recompute
    size0 = write_trace(tmp_path, "size0", ["a 0 0", "f 0"], weight=1)
    r = run(driver, "-M", heap, "-f", size0, tmp=tmp_path)
    assert r.rc == 0, r.out + r.err
    t = r.trace("size0")
    assert (t["utilization"], t["ideal_utilization"], t["peak_payload"]) == (None, None, 0)
    row, _ = r.row("size0")
    assert row.split()[2:5] == ["ok", "-", "-"]
    total = next(line for line in r.out.splitlines() if line.split()[:1] == ["total"])
    assert total.split()[5] == "-", total
    assert r.summary["util_points"] == 0 and r.summary["perf_index"] == r.summary["throughput_points"]
    # beside a trace with payload, the average is that trace's alone; the grader's reader agrees
    a = write_trace(tmp_path, "A", TRACE_A, weight=1)
    alone = run(driver, "-f", a, tmp=tmp_path).summary
    both = run(driver, "-f", size0, "-f", a, tmp=tmp_path)
    assert both.summary["utilization"] == pytest.approx(alone["utilization"]) and alone["utilization"] > 0
    assert recompute(both.doc["traces"])[0] == pytest.approx(both.summary["utilization"])


# Trace C (weight 2): the payload peaks at op 0 (32 bytes, aligned 32), the aligned payload at
# op 4 (three 1-byte blocks, 3 bytes that take 48 aligned).
TRACE_C = ["a 0 32", "f 0", "a 1 1", "a 2 1", "a 3 1", "f 1", "f 2", "f 3"]
C_PEAK, C_PEAK_ALIGNED, C_HEAP = 32, 3 * a16(1), bump(32) + 3 * bump(1)


def as_written(x: float) -> float:
    """A figure as the driver's JSON writes it: nine significant digits."""
    return float(f"{x:.9g}")


def test_ideal_utilization_takes_the_aligned_peak_where_it_falls(tmp_path, driver):
    """The ideal is the peak payload over the peak of the aligned payload, each at its own op: taking
    the aligned payload at the payload's peak (32 of 32: an ideal of 100%) left every test passing,
    as did writing the figures to 7 digits; both are exact here."""
    assert (C_PEAK_ALIGNED, C_HEAP) == (48, 144)
    r = run(driver, "-f", write_trace(tmp_path, "C", TRACE_C, weight=2), tmp=tmp_path)
    assert r.rc == 0, r.err
    c = r.trace("C")
    assert (c["peak_payload"], c["heap_high_water"]) == (C_PEAK, C_HEAP)
    assert c["utilization"] == as_written(C_PEAK / C_HEAP)
    assert c["ideal_utilization"] == as_written(C_PEAK / C_PEAK_ALIGNED)
    assert r.summary["utilization"] == as_written(C_PEAK / C_HEAP)
    assert r.row("C")[0].split()[3:5] == [f"{100 * C_PEAK / C_HEAP:.1f}%", f"{100 * C_PEAK / C_PEAK_ALIGNED:.1f}%"]


def with_libc_seconds(cache: Path, seconds: float) -> None:
    """Every timing in a saved baseline set to SECONDS: libc's side of the ratio, chosen."""
    lines = cache.read_text().splitlines()
    cache.write_text("".join((" ".join(line.split()[:4] + [repr(seconds)]) if line.startswith("trace ") else line)
                             + "\n" for line in lines))


TRACE_D = [f"a {i} {8 + 24 * i}" for i in range(12)] + [f"f {i}" for i in range(12)]


@pytest.mark.parametrize("libc_seconds", [1e9, 1e-9])
def test_throughput_figures_are_sums_over_the_timed_traces_and_capped(tmp_path, driver, libc_seconds):
    """T and T_libc are the timed traces' ops over their summed seconds, whatever the weight (1 or 3);
    the ratio is their quotient, and its credit is capped.  libc's seconds come from a baseline, so
    that the ratio is far above the cap (1e9 s) or far below it (1e-9 s, the least a baseline takes)
    whatever the machine:
    only a ratio the allocator happened to beat libc by exercised the cap before."""
    files = ["-f", write_trace(tmp_path, "A", TRACE_A, weight=1), "-f", write_trace(tmp_path, "D", TRACE_D, weight=3),
             "-f", write_trace(tmp_path, "B", TRACE_B, weight=2)]
    cache = tmp_path / "libc.baseline"
    assert run(driver, "-r", "3", "--save-baseline", cache, *files, tmp=tmp_path).rc == 0
    with_libc_seconds(cache, libc_seconds)
    r = run(driver, "-r", "3", "--baseline", cache, *files, tmp=tmp_path)
    assert r.rc == 0, r.err
    a, d = r.trace("A"), r.trace("D")
    assert a["libc"]["seconds"] == d["libc"]["seconds"] == libc_seconds
    ops = len(TRACE_A) + len(TRACE_D)
    mm = a["timing"]["seconds"] + d["timing"]["seconds"]
    s = r.summary
    assert s["throughput_ops_per_sec"] == pytest.approx(ops / mm, rel=1e-6)
    assert s["libc_ops_per_sec"] == pytest.approx(ops / (2 * libc_seconds), rel=1e-6)
    assert s["throughput_ratio"] == pytest.approx(2 * libc_seconds / mm, rel=1e-6)
    dsc = describe(driver)
    w, cap = dsc["util_weight"], dsc["throughput_cap"]
    credit = cap if libc_seconds > 1 else s["throughput_ratio"]
    assert s["throughput_points"] == pytest.approx(100 * (1 - w) * credit, rel=1e-6)
    assert s["util_points"] == pytest.approx(100 * w * (A_PEAK / A_HEAP + B_PEAK / B_HEAP) / 2)
    assert s["perf_index"] == pytest.approx(s["util_points"] + s["throughput_points"])


@pytest.mark.parametrize("traces", [[(0, ["a 0 10", "a 1 20", "f 0", "f 1"])], [(1, [])], [(3, [])],
                                    [(2, ["a 0 0", "f 0"])], [(0, ["a 0 8"]), (2, ["a 0 0"]), (1, [])]],
                         ids=["weight-0", "no-ops-1", "no-ops-3", "weight-2-no-payload", "mixed"])
def test_a_run_where_no_trace_scores_has_no_index_and_no_utilization(tmp_path, driver, traces):
    """Only weight-0, empty or payload-free weight-2 traces: nothing was measured, yet the table
    said 'Perf index = 0.0 (util) + 0.0 (thru) = 0.0/100' and the JSON gave a utilization, its
    points and an index of 0, where the total row showed '-'."""
    files = [write_trace(tmp_path, f"t{i}", ops, weight=w, ids=4) for i, (w, ops) in enumerate(traces)]
    r = run(driver, *[a for f in files for a in ("-f", f)], tmp=tmp_path)
    assert r.rc == 0 and r.summary["valid"] == len(traces), r.out + r.err
    s = r.summary
    assert [s[k] for k in ("utilization", "util_points", "throughput_points", "perf_index")] == [None] * 4
    assert r.out.splitlines()[-1] == ("Perf index: none: no trace scores utilization or throughput (weight 0, "
                                      "no ops, or weight 2 with no payload)"), r.out
    assert "Perf index =" not in r.out


def test_a_failed_trace_in_a_run_with_no_index_is_not_said_to_score_0(tmp_path):
    """A weight-0 trace that crashed: the table said it 'failed and score 0', above 'Perf index: none'."""
    r = run(broken("segv"), "-f", write_trace(tmp_path, "bad", ["a 0 16", "a 1 777"], weight=0), tmp=tmp_path)
    assert r.rc == 1 and r.summary["perf_index"] is None
    assert "1 trace(s) failed (first: bad, crashed).\n\nPerf index: none: " in r.out, r.out


def test_a_run_whose_traces_score_only_throughput_has_no_utilization(tmp_path, driver):
    """A weight-3 trace scores throughput alone: its index is measured, its utilization is not."""
    r = run(driver, "-f", write_trace(tmp_path, "t", ["a 0 10", "f 0"], weight=3), tmp=tmp_path)
    assert r.summary["utilization"] is None and r.summary["util_points"] == 0
    assert r.summary["perf_index"] == pytest.approx(r.summary["throughput_points"]) and r.summary["perf_index"] > 0


def test_a_run_whose_utilization_traces_all_failed_shows_a_utilization_of_zero(tmp_path):
    """Such a run has a utilization, of 0: the total row showed it as '-' (none to show) once the
    test for having one was on the sum, and no test noticed."""
    r = run(broken("segv"), "-f", write_trace(tmp_path, "bad", ["a 0 16", "a 1 777"], weight=2), tmp=tmp_path)
    assert r.rc == 1
    assert r.summary["utilization"] == 0 and r.summary["perf_index"] == 0
    total = next(line for line in r.out.splitlines() if line.split()[:1] == ["total"])
    assert total.split()[5] == "0.0%", total


@pytest.mark.parametrize("weight", [1, 3])
def test_a_trace_with_no_ops_leaves_the_others_ratio_as_it_was(tmp_path, driver, weight):
    """An empty trace is in neither sum: beside trace A the ratio is A's own, libc's seconds over
    the allocator's, from the same run's JSON.  Counting the empty trace's timings in (its replay
    of nothing, a few microseconds) left every test passing: they only bounded the points."""
    empty = write_trace(tmp_path, "empty", [], ids=1, weight=weight)
    r = run(driver, "-f", empty, "-f", write_trace(tmp_path, "A", TRACE_A, weight=1), tmp=tmp_path)
    assert r.rc == 0, r.err
    a = r.trace("A")
    assert r.summary["throughput_ratio"] == pytest.approx(a["libc"]["seconds"] / a["timing"]["seconds"], rel=1e-6)


def test_the_allocator_is_sampled_until_its_fastest_agree(tmp_path, driver):
    """Sampling stops once the K fastest lie within the tolerance, or at the most samples (a trace
    this small never spends the time budget): the samples the JSON lists say which.  Stopping at
    -r's count whatever the spread left every test passing, each estimate being still the mean of
    its K fastest."""
    from grader.kitconfig import read_kit_config
    config = read_kit_config(KIT)
    k, most, tolerance = config["MDRIVER_BEST_K"], config["MDRIVER_MAX_SAMPLES"], config["MDRIVER_BEST_K_TOLERANCE"]
    files = ["-f", write_trace(tmp_path, "A", TRACE_A, weight=1), "-f", write_trace(tmp_path, "D", TRACE_D, weight=3)]
    for _ in range(3):
        r = run(driver, "-r", "3", *files, tmp=tmp_path)
        assert r.rc == 0, r.err
        for name in ("A", "D"):
            samples = r.trace(name)["timing"]["samples"]
            fastest = sorted(samples)[:k]
            assert len(samples) == most or fastest[-1] <= fastest[0] * (1 + tolerance), (name, samples)


def test_a_trace_without_utilization_still_gives_its_own_peak_payload(tmp_path):
    """peak_payload is the trace's own when the allocator's utilization is not given: a trace that
    scores throughput only, and one whose allocator failed (segv.c on 777 bytes).  Writing 0 there
    (which says "scores no utilization") left every test passing."""
    files = ["-f", write_trace(tmp_path, "A", TRACE_A, weight=3),
             "-f", write_trace(tmp_path, "bad", ["a 0 16", "a 1 777", "f 0", "f 1"], weight=1)]
    r = run(broken("segv"), *files, tmp=tmp_path)
    assert r.rc == 1
    a, bad = r.trace("A"), r.trace("bad")
    assert (a["outcome"], a["utilization"], a["peak_payload"], a["heap_high_water"]) == ("ok", None, A_PEAK, None)
    assert (bad["outcome"], bad["utilization"], bad["peak_payload"]) == ("crashed", None, 16 + 777)


def test_the_table_gives_the_json_figures(tmp_path, driver):
    """Each row's Kops are its ops over the estimate, in thousands, and its ratio the allocator's
    over libc's; the total row gives T and T_libc the same way.  Only the ratio of the summary was
    checked in the text: Kops ten times too small left every test passing."""
    files = ["-f", write_trace(tmp_path, "A", TRACE_A, weight=1), "-f", write_trace(tmp_path, "D", TRACE_D, weight=3)]
    r = run(driver, *files, tmp=tmp_path)
    assert r.rc == 0, r.err
    for name in ("A", "D"):
        t = r.trace(name)
        mine, libc = t["timing"]["ops_per_sec"] / 1e3, t["libc"]["ops_per_sec"] / 1e3
        assert r.row(name)[0].split()[-3:] == [f"{mine:.0f}", f"{libc:.0f}", f"{mine / libc:.2f}"]
    s = r.summary
    total = next(line for line in r.out.splitlines() if line.split()[:1] == ["total"])
    assert total.split()[-3:] == [f"{s['throughput_ops_per_sec'] / 1e3:.0f}", f"{s['libc_ops_per_sec'] / 1e3:.0f}",
                                  f"{s['throughput_ratio']:.2f}"]


def test_the_closing_lines_of_a_run_with_a_failed_and_a_malformed_trace(tmp_path):
    """Beside a good trace, one that fails (segv.c) and one that cannot be read: one failure named,
    the malformed file counted apart, the index's ratio the summary's (scaled by validity), and -g's
    correct: the valid traces.  The bracket's ratio was checked only on runs with no failure:
    taking it unscaled (twice the summary's here) left every test passing, as did counting the
    malformed file among the failures."""
    malformed = tmp_path / "broken.rep"
    malformed.write_text("not a trace\n")
    files = ["-f", write_trace(tmp_path, "good", TRACE_A, weight=1),
             "-f", write_trace(tmp_path, "bad", ["a 0 16", "a 1 777"], weight=1), "-f", malformed]
    r = run(broken("segv"), "-g", *files, tmp=tmp_path)
    assert r.rc == 2
    s = r.summary
    assert (s["valid"], s["failed"], s["bad_traces"]) == (1, 1, 1)
    assert "1 trace(s) failed and score 0 (first: bad, crashed)." in r.out
    assert "1 trace file(s) could not be run" in r.out
    assert f"= {s['perf_index']:.1f}/100   [throughput {s['throughput_ratio']:.2f}x libc]" in r.out
    assert r.out.splitlines()[-2:] == ["correct:1", f"perfidx:{s['perf_index']:.0f}"]


def test_a_run_whose_traces_all_failed_has_an_index_of_zero(tmp_path):
    """Traces ran and failed: the index is 0.0, not "none" (which says that no trace could be run);
    testing the valid traces alone for that left every test passing."""
    r = run(broken("segv"), "-f", write_trace(tmp_path, "bad", ["a 0 16", "a 1 777"], weight=1), tmp=tmp_path)
    assert r.rc == 1 and r.summary["perf_index"] == 0
    assert "\nPerf index = 0.0 (util) + 0.0 (thru) = 0.0/100\n" in r.out


def test_the_total_row_gives_the_mean_utilization(tmp_path, driver):
    """The total row's util is the mean over the utilization traces, whatever weight it has in the
    index (all of it here: no trace is timed).  Showing the index's util points over 0.6 agreed on
    every run of both kinds of trace, and no test looked at another run's total."""
    files = ["-f", write_trace(tmp_path, "B", TRACE_B, weight=2), "-f", write_trace(tmp_path, "C", TRACE_C, weight=2)]
    r = run(driver, *files, tmp=tmp_path)
    assert r.rc == 0, r.err
    u = (B_PEAK / B_HEAP + C_PEAK / C_HEAP) / 2
    assert r.summary["utilization"] == pytest.approx(u) and r.summary["perf_index"] == pytest.approx(100 * u)
    total = next(line for line in r.out.splitlines() if line.split()[:1] == ["total"])
    assert total.split()[5] == f"{100 * u:.1f}%", total


def test_a_trace_failed_in_the_timing_pass_shows_no_kops_of_its_own(tmp_path):
    """util-overlap.c fails once timed (inconsistent) after timed runs that measured something: the
    row gives libc's Kops, none of the allocator's and no ratio, as the JSON gives no timing.
    Showing the failed runs' Kops and ratio left every test passing."""
    r = run(broken("util-overlap"), "-f", write_trace(tmp_path, "A", TRACE_A, weight=1), tmp=tmp_path)
    a = r.trace("A")
    assert (a["outcome"], a["timing"]) == ("inconsistent", None)
    cells = r.row("A")[0].split()
    assert cells[2] == "inconsistent" and cells[5:] == [str(len(TRACE_A)), "-", f"{a['libc']['ops_per_sec'] / 1e3:.0f}"]

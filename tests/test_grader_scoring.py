"""grader.scoring: pure functions from measurements and policy to points."""
import dataclasses

import pytest

from grader.policy import load_policy
from grader.scoring import perf_index, scale, spread, summarize
from grader_fixtures.helpers import KIT, TRACES, by_name, run_batch
from grader_fixtures.submissions import write_all


@pytest.fixture(scope="module")
def policy(kit):
    return load_policy(kit)


def test_classic_formula(policy):
    w = policy.scoring.util_weight
    assert perf_index(0.8, 0.5, policy) == pytest.approx(100 * (w * 0.8 + (1 - w) * 0.5))
    assert perf_index(0.8, 3.0, policy) == pytest.approx(100 * (w * 0.8 + (1 - w) * policy.scoring.throughput_cap))
    assert perf_index(None, None, policy) == 0


def test_scaled_formula(policy):
    scaled = dataclasses.replace(policy, scoring=dataclasses.replace(policy.scoring, formula="scaled"))
    lo, hi = scaled.scoring.util_range
    assert scale(lo, lo, hi) == 0 and scale(hi, lo, hi) == 1 and scale((lo + hi) / 2, lo, hi) == pytest.approx(0.5)
    assert perf_index(hi, 10.0, scaled) == pytest.approx(100)
    assert perf_index(0.1, 0.1, scaled) == 0


def test_scaled_formula_ramps_each_part_over_its_own_range(policy):
    """U is scaled over util_range and T / T_libc over throughput_range: a part halfway up its own
    ramp is worth half of its weight, whatever the other part's range is."""
    scaled = dataclasses.replace(policy, scoring=dataclasses.replace(
        policy.scoring, formula="scaled", util_range=(0.55, 0.74), throughput_range=(0.5, 0.9)))
    w = scaled.scoring.util_weight
    assert perf_index(0.55, 0.7, scaled) == pytest.approx(100 * (1 - w) * 0.5)     # U at its floor, T halfway
    assert perf_index(0.645, 0.5, scaled) == pytest.approx(100 * w * 0.5)          # U halfway, T at its floor
    assert perf_index(0.74, 0.9, scaled) == pytest.approx(100)


def test_points_and_all_or_nothing(policy):
    ok = summarize(["ok"] * 4, 0.7, 0.9, policy)
    assert ok.valid == 4 and ok.correctness_points == policy.points.correctness
    assert ok.performance_points == pytest.approx(policy.points.performance * perf_index(0.7, 0.9, policy) / 100, abs=1e-3)
    one_bad = summarize(["ok", "ok", "ok", "crashed"], 0.7, 0.9, policy)
    assert one_bad.correctness_points == pytest.approx(policy.points.correctness * 3 / 4)
    assert one_bad.perf_index == 0 and one_bad.performance_points == 0
    lenient = dataclasses.replace(policy, scoring=dataclasses.replace(policy.scoring, all_or_nothing=False))
    assert summarize(["ok", "crashed"], 0.7, 0.9, lenient).perf_index > 0


def test_only_a_trace_that_ran_ok_is_valid_whatever_else_went_wrong(policy):
    """valid (grades.csv's column, Gradescope's 'it passed 1 of 4 traces') counts the ok
    traces: a timeout, a wrong payload or an overlap is a failed trace as much as a crash is."""
    summary = summarize(["ok", "timeout", "payload_corrupted", "overlap"], 0.7, 0.9, policy)
    assert (summary.valid, summary.traces) == (1, 4)
    assert summary.correctness_points == pytest.approx(policy.points.correctness / 4, abs=1e-3)
    assert summary.perf_index == 0 and summary.performance_points == 0      # all_or_nothing


def test_points_are_the_sum_of_the_parts_shown(policy):
    """Points were rounded apart from their parts: correctness 26.667 (40 points, 2 of 3 traces) and
    performance 7.672 made 34.338 points in grades.csv, on Gradescope and in Autolab; and the
    performance points came from P before it was rounded to the P shown beside them."""
    course = dataclasses.replace(policy, points=dataclasses.replace(policy.points, correctness=40.0, performance=15.0),
                                 scoring=dataclasses.replace(policy.scoring, all_or_nothing=False))
    w = course.scoring.util_weight
    for outcomes in (["ok", "ok", "crashed"], ["ok"] * 3, ["ok"] * 6 + ["timeout"]):
        for step in range(200):
            util = 0.5 + step / 997
            summary = summarize(outcomes, util, 0.5, course)
            assert summary.perf_index == pytest.approx(100 * (w * util + (1 - w) * 0.5), abs=1e-3)
            assert summary.points == round(summary.correctness_points + summary.performance_points, 3), (outcomes, util)
            assert summary.performance_points == round(15.0 * summary.perf_index / 100, 3), (outcomes, util)


def test_correctness_points_are_stored_to_the_3_places_every_output_shows(policy):
    """The record's correctness points are the figure grades.csv, Gradescope and Autolab show, to 3
    places: a sum of shares such as 2.857 + 2.857 + 2.858 is not kept with a float's stray digits."""
    course = dataclasses.replace(policy, points=dataclasses.replace(policy.points, correctness=20.0))
    for count in range(1, 13):
        for passed in range(count + 1):
            outcomes = ["ok"] * passed + ["crashed"] * (count - passed)
            points = summarize(outcomes, 0.7, 0.9, course).correctness_points
            assert points == round(points, 3), (count, passed, points)
            assert points == pytest.approx(20.0 * passed / count, abs=1e-3), (count, passed)


def test_bad_trace_is_left_out_as_the_drivers_score_c_leaves_it_out(policy):
    summary = summarize(["ok", "ok", "bad_trace"], 0.7, 0.9, policy)
    assert summary.traces == 2 and summary.valid == 2
    assert summary.correctness_points == policy.points.correctness and summary.perf_index > 0


@pytest.mark.parametrize("weights, expected", [
    ([2, 2], lambda u, r, w, cap: 100 * u),                                # utilization only: w = 1
    ([3, 3], lambda u, r, w, cap: 100 * min(cap, r)),                      # throughput only: w = 0
    ([2, 3], lambda u, r, w, cap: 100 * (w * u + (1 - w) * min(cap, r))),  # one of each: both parts
    ([2, 0], lambda u, r, w, cap: 100 * u),                                # a check-only trace counts for neither
    ([2, 2, 3], lambda u, r, w, cap: 100 * u),                             # a bad trace counts for nothing
])
def test_trace_weights_pick_the_parts_of_p_as_the_driver_does(policy, weights, expected):
    outcomes = ["ok"] * 2 + ["bad_trace"] * (len(weights) - 2)
    summary = summarize(outcomes, 0.7, 0.9, policy, weights)
    want = expected(0.7, 0.9, policy.scoring.util_weight, policy.scoring.throughput_cap)
    assert summary.perf_index == pytest.approx(want, abs=1e-3)


def test_a_utilization_trace_with_no_payload_leaves_p_to_throughput_as_the_driver_does(policy):
    """A weight-1 trace of 0-byte blocks only: the driver has no U (null) and scores T / T_libc alone,
    100 min(cap, T / T_libc); the grader weighed the missing U as 0 and gave 1 - w of that."""
    summary = summarize(["ok"], None, 0.5, policy, [1])
    assert summary.perf_index == pytest.approx(100 * min(policy.scoring.throughput_cap, 0.5))
    assert summary.utilization is None and summary.throughput_ratio == 0.5


@pytest.mark.parametrize("weights, absent", [([2, 2], "throughput_ratio"), ([3, 3], "utilization"),
                                             ([2, 0], "throughput_ratio"), ([2, 3], None)])
def test_a_part_no_trace_counts_for_has_no_figure_in_the_summary(policy, weights, absent):
    """Given a figure for a part no scored trace counts for (the driver's U of 0.0 on throughput-only
    traces), summarize keeps none: the summary is what grades.csv, Gradescope and the report show."""
    summary = summarize(["ok", "ok"], 0.7, 0.9, policy, weights)
    for part, figure in (("utilization", 0.7), ("throughput_ratio", 0.9)):
        assert getattr(summary, part) == (None if part == absent else figure), (part, summary)


def _weighted_traces(folder, weight):
    """The fixture traces with their header weight (lab64 order: the first number) set to WEIGHT."""
    folder.mkdir()
    for path in TRACES.glob("*.rep"):
        lines = path.read_text().splitlines(keepends=True)
        first = next(i for i, line in enumerate(lines) if not line.startswith("#"))
        lines[first] = f"{weight}\n"
        (folder / path.name).write_text("".join(lines))
    return folder


@pytest.mark.parametrize("weight", [2, 3])
def test_grader_p_equals_the_drivers_on_util_only_and_throughput_only_traces(tmp_path, weight):
    subs = write_all(tmp_path / "subs", ["good"])
    traces = _weighted_traces(tmp_path / f"traces{weight}", weight)
    sub = by_name(run_batch(KIT, subs, tmp_path / "out", traces=traces))["good"]
    assert sub.verdict == "ok", sub.reason
    policy = load_policy(KIT)
    if weight == 2:          # the driver: no throughput trace, so P = 100 U and no ratio
        assert sub.summary.throughput_ratio is None
        assert sub.summary.perf_index == pytest.approx(100 * sub.summary.utilization, abs=1e-3)
    else:                    # no utilization trace: P = 100 min(cap, T/T_libc)
        want = 100 * min(policy.scoring.throughput_cap, sub.summary.throughput_ratio)
        assert sub.summary.perf_index == pytest.approx(want, abs=1e-3)


@pytest.mark.parametrize("weight", [1, 2, 3])
def test_the_report_states_the_weight_p_was_computed_with(tmp_path, weight):
    """On traces that count for utilization only, P is 100 U, but the report said 'utilization weight
    0.6' (the policy's), a formula that gives other figures than the grades."""
    import re
    from grader.report import render
    subs = write_all(tmp_path / "subs", ["good"])
    batch = run_batch(KIT, subs, tmp_path / "out", traces=_weighted_traces(tmp_path / f"traces{weight}", weight))
    sub = by_name(batch)["good"]
    assert sub.verdict == "ok", sub.reason
    text = re.sub(r"\s+", " ", render(batch, tmp_path / "out").read_text())
    shown = re.search(r"utilization weight ([0-9.]+)", text).group(1)
    w = float(shown)
    cap = load_policy(KIT).scoring.throughput_cap
    assert sub.summary.perf_index == pytest.approx(
        100 * (w * (sub.summary.utilization or 0) + (1 - w) * min(cap, sub.summary.throughput_ratio or 0)), abs=1e-3)
    why = {1: "", 2: ", not the policy's 0.6: no trace counts for throughput",
           3: ", not the policy's 0.6: no trace counts for utilization"}[weight]
    assert f"(utilization weight {shown}{why})" in text


@pytest.mark.parametrize("weight, absent", [(3, "utilization"), (2, "throughput_ratio")])
def test_a_figure_no_trace_counts_for_is_shown_nowhere(tmp_path, weight, absent):
    """On traces that all count for throughput only, the driver's utilization 0.0 was stored and shown
    in the report's table, grades.csv and Gradescope as if measured.  A part no trace counts for now
    has no figure in any output, as the throughput of utilization-only traces already had none."""
    import csv
    import io
    import re
    from grader import exports
    from grader.report import render
    subs = write_all(tmp_path / "subs", ["good"])
    batch = run_batch(KIT, subs, tmp_path / "out", traces=_weighted_traces(tmp_path / f"traces{weight}", weight))
    sub = by_name(batch)["good"]
    assert sub.verdict == "ok" and getattr(sub.summary, absent) is None, sub.summary
    kept = "throughput_ratio" if absent == "utilization" else "utilization"
    assert getattr(sub.summary, kept) is not None and getattr(sub.summary, kept) > 0
    row = next(csv.DictReader(io.StringIO(exports.grades_csv(batch))))
    assert row[absent] == "" and row[kept] != ""
    perf = exports.gradescope_results(sub, load_policy(KIT))["tests"][-1]["output"]
    assert ("utilization" not in perf) == (absent == "utilization") and ("libc" not in perf) == (absent != "utilization")
    index = render(batch, tmp_path / "out").read_text()
    cells = [re.sub(r"<[^>]+>|\s+", " ", c).strip() for c in re.findall(
        r"<td[^>]*>(.*?)</td>", re.search(r'<tr[^>]*>\s*<td><a href="sub/good.html">.*?</tr>', index, re.S).group(0), re.S)]
    util, ratio = cells[3], cells[4]
    assert (util == "") == (absent == "utilization") and (ratio == "") == (absent != "utilization"), cells


@pytest.mark.parametrize("weight, absent", [(3, 1), (2, 2)], ids=["throughput-only", "utilization-only"])
def test_a_leaderboard_shows_no_figure_no_trace_measures(tmp_path, weight, absent):
    """On utilization-only traces Gradescope's leaderboard and Autolab's scoreboard gave every student
    Throughput / libc 0.0 (and on throughput-only ones Utilization % 0.0), a figure nothing measured.
    Gradescope's entry is left out now, Autolab's cell empty; a compile error, whose record has no
    trace to tell, is given the batch's parts (exports.batch_parts, as mmgrade gradescope/autolab do)."""
    import json
    from grader import exports
    subs = write_all(tmp_path / "subs", ["good", "compile_error"])
    batch = run_batch(KIT, subs, tmp_path / "out", traces=_weighted_traces(tmp_path / f"traces{weight}", weight))
    good, broken = by_name(batch)["good"], by_name(batch)["compile_error"]
    assert (good.verdict, broken.verdict, broken.traces) == ("ok", "compile_error", ())
    parts = exports.measured_parts(good)
    assert parts == ((True, False) if weight == 2 else (False, True))
    names = ["Performance index", "Utilization %", "Throughput / libc"]
    del names[absent]
    policy = load_policy(KIT)
    for sub in (good, broken):
        board = exports.gradescope_results(sub, policy, parts)["leaderboard"]
        assert [e["name"] for e in board] == names, sub.name
        row = json.loads(exports.autolab_line(sub, parts))["scoreboard"]
        assert row[absent] == "" and all(isinstance(v, float) for i, v in enumerate(row) if i != absent), row


def test_gradescope_and_autolab_give_a_compile_error_the_batchs_parts(tmp_path):
    """mmgrade gradescope and autolab pass the traces' parts to the exports: a compile error on
    utilization-only traces had Throughput / libc 0.0 on both boards."""
    import json
    from grader_fixtures.helpers import run_grader, write_policy
    traces = _weighted_traces(tmp_path / "traces2", 2)
    config = write_policy(tmp_path, f'[traces]\ndir = "{traces}"\n')
    handin = tmp_path / "mm.c"
    handin.write_text(write_all(tmp_path / "subs", ["compile_error"]).joinpath("compile_error", "mm.c").read_text())
    done = run_grader("autolab", handin, "--kit", KIT, "--config", config, capture_output=True, text=True,
                      cwd=tmp_path, timeout=300)
    assert done.returncode == 0 and done.stdout.startswith("compile_error"), done.stderr
    assert json.loads(done.stdout.splitlines()[-1])["scoreboard"] == [0.0, 0.0, ""]
    root = tmp_path / "autograder"
    (root / "submission").mkdir(parents=True)
    (root / "submission" / "mm.c").write_text(handin.read_text())
    done = run_grader("gradescope", "--root", root, "--kit", KIT, "--config", config, capture_output=True,
                      text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    board = json.loads((root / "results" / "results.json").read_text())["leaderboard"]
    assert [e["name"] for e in board] == ["Performance index", "Utilization %"]


def test_a_failed_submissions_throughput_is_marked_on_throughput_only_traces(tmp_path):
    """The report's table marks a failed submission's figures * (with a footnote saying what they
    are); on throughput-only traces, where it has a throughput and no utilization, its throughput
    was shown unmarked beside the passing ones', and the histogram caption pointed to a * not there."""
    import re
    from grader.report import render
    subs = write_all(tmp_path / "subs", ["good", "loop_at_100"])      # loop_at_100 times out on grow
    batch = run_batch(KIT, subs, tmp_path / "out", traces=_weighted_traces(tmp_path / "traces3", 3))
    failed = by_name(batch)["loop_at_100"]
    assert failed.verdict == "failed" and failed.summary.utilization is None and failed.summary.throughput_ratio
    index = render(batch, tmp_path / "out").read_text()
    row = re.search(r'<tr[^>]*>\s*<td><a href="sub/loop_at_100.html">.*?</tr>', index, re.S).group(0)
    cells = re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)
    assert (cells[3], cells[4]) == ("", f"{failed.summary.throughput_ratio:.2f}*"), cells
    assert "<p class=\"muted\">* not every trace passed: " in index


def test_an_old_records_runaway_index_is_no_figure_even_with_finite_points(policy):
    """An older grader stored P = 1.02e308 for rtcrash.c; with its performance points finite, the
    record still reads as insane, and every output shows its correctness points alone."""
    from grader.scoring import MAX_SANE_INDEX, sane, shown
    honest = summarize(["ok"] * 4, 0.7, 0.9, policy)
    assert sane(honest) and shown(honest) == honest
    for index in (MAX_SANE_INDEX * 1.01, 1.02e308):
        runaway = dataclasses.replace(honest, perf_index=index, performance_points=policy.points.performance * index / 100,
                                      points=honest.correctness_points + policy.points.performance * index / 100)
        assert not sane(runaway)
        seen = shown(runaway)
        assert (seen.perf_index, seen.performance_points, seen.points) == (0.0, 0.0, honest.correctness_points)


def test_a_perfect_utilization_is_shown_as_measured():
    """U = 1 (a heap no larger than the peak payload) is a figure a correct run produces: every
    output shows it, on a trace and on a run, and only a figure past 1 is no figure."""
    from grader.model import RunFigure, TraceResult
    from grader.scoring import shown_run, shown_trace
    trace = TraceResult(name="t", weight=1, ops=4, outcome="ok", message="", explanation="", op_index=None, op=None,
                        utilization=1.0, ops_per_sec=1e6, libc_ops_per_sec=2e6, spread=0.01, output="", points=5.0)
    assert shown_trace(trace) == trace
    assert shown_trace(dataclasses.replace(trace, utilization=1.0000001)).utilization is None
    run = RunFigure("ok", 100.0, 1.0, 1.0)
    assert shown_run(run) == run
    assert shown_run(dataclasses.replace(run, perf_index=1.02e308)).perf_index == 0.0


def test_spread_of_the_k_best():
    assert spread([1.0, 1.01, 1.02, 5.0], 3) == pytest.approx(0.02)
    assert spread([2.0], 3) is None


def _stopped_record(utilization):
    """A record of a run stopped at its limit in its third trace, two traces at U 0.81 before it."""
    from grader.model import Submission, Summary, TraceResult
    ok = dict(weight=1, ops=6, outcome="ok", message="", explanation="", op_index=None, op=None, utilization=0.81,
              ops_per_sec=1e6, libc_ops_per_sec=1e6, spread=None, output="", points=6.667)
    unfinished = {**ok, "outcome": "timeout", "utilization": None, "ops_per_sec": None, "libc_ops_per_sec": None,
                  "points": 0.0, "message": "not finished: the whole run's time limit (8 s, limits.wall_clock) "
                                             "ran out during this trace"}
    traces = (TraceResult(name="a", **ok), TraceResult(name="b", **ok), TraceResult(name="c", **unfinished))
    summary = Summary(traces=3, valid=2, utilization=utilization, throughput_ratio=0.5, perf_index=50.0,
                      correctness_points=13.333, performance_points=17.5, points=30.833, max_points=55.0)
    return Submission(name="s", origin="s", sha256="x", verdict="failed", reason="", build_log="", rules=(),
                      traces=traces, summary=summary, stdout="", stderr="", protections=(), policy_digest="p",
                      kit_digest="k")


def test_a_stopped_runs_record_that_left_its_unfinished_traces_out_is_regraded():
    """A record from before stall-at-limit.c's fix has U over the finished traces only (0.81, not
    0.54): reused, it would keep the figures the stall bought.  It is regraded; a record whose U
    counts the unfinished trace as 0 is reused."""
    from grader import store
    from grader.scoring import unfinished_left_out
    old, new = _stopped_record(0.81), _stopped_record(0.81 * 2 / 3)
    assert unfinished_left_out(old) and not unfinished_left_out(new)
    assert not store.reusable(old, "x", "p", "k") and store.reusable(new, "x", "p", "k")

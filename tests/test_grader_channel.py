"""grader.runner: results only from the driver's descriptor, carrying this run's secret.

Uses the fake kit, whose driver (tests/grader_fixtures/fakekit/driver/fake.py)
misbehaves on request, to show each way a result can be untrustworthy.
"""
import json
import os
import threading
import time

import pytest

from grader import runner
from grader.policy import load_policy
from grader.runner import MAX_JSON, ChannelError, _read_all, check_result, load_schema
from grader.sandbox import RunResult
from grader_fixtures.helpers import KIT, by_name, make_fake_kit, run_batch, write_policy
from grader_fixtures.submissions import source

SECRET = "s3cret"


def _valid(kit):
    rows = {"name": "t", "path": "t.rep", "weight": 1, "ops": 2, "outcome": "ok", "message": "", "op_index": None,
            "op": None, "utilization": 0.5, "ideal_utilization": 1.0, "peak_payload": 8, "heap_high_water": 16,
            "timing": None, "libc": None, "stats": None, "output": ""}
    return {"schema": 1, "tool": "mdriver", "secret": SECRET,
            "allocator": {"name": "mm", "team": None, "has_checkheap": False, "has_stats": False},
            "settings": {"alignment": 16, "max_heap": 1, "time_limit": 1, "min_samples": 1, "check_heap": False,
                         "baseline": "measured"},
            "scoring": {"util_weight": 0.6, "throughput_cap": 1, "estimator": "x"},
            "machine": {"hostname": "h", "cpu": "c", "date": "d"}, "traces": [rows],
            "summary": {"traces": 1, "valid": 1, "failed": 0, "bad_traces": 0, "utilization": 0.5,
                        "throughput_ops_per_sec": None, "libc_ops_per_sec": None, "throughput_ratio": None,
                        "util_points": 30, "throughput_points": 0, "perf_index": 30}}


def test_check_result_accepts_only_valid_json_with_the_secret():
    schema = load_schema(KIT)
    good = _valid(KIT)
    assert check_result(json.dumps(good).encode(), SECRET, schema)["secret"] == SECRET
    cases = [(b"", "no result"), (b"{", "not JSON"), (b"[1]", "not a JSON object"),
             (json.dumps({**good, "secret": "guess"}).encode(), "secret"),
             (json.dumps({**good, "secret": None}).encode(), "secret"),
             (json.dumps({**good, "traces": [{"outcome": "ok"}]}).encode(), "schema")]
    for raw, message in cases:
        with pytest.raises(ChannelError, match=message):
            check_result(raw, SECRET, schema)


def test_the_allocators_output_in_a_result_is_bounded():
    """output and output_tail are the allocator's bytes: longer than the driver keeps them, the
    result is refused, not carried into the page and Gradescope."""
    schema = load_schema(KIT)
    good = _valid(KIT)
    row = good["traces"][0]
    kept = {**good, "traces": [{**row, "output": "x" * 4096, "output_cut": 9, "output_tail": "y" * 1024}]}
    assert check_result(json.dumps(kept).encode(), SECRET, schema)["traces"][0]["output_tail"] == "y" * 1024
    for field, size in (("output", 4097), ("output_tail", 1025)):
        with pytest.raises(ChannelError, match="schema"):
            check_result(json.dumps({**good, "traces": [{**row, field: "z" * size}]}).encode(), SECRET, schema)


def test_an_interrupted_result_is_not_graded():
    """A driver stopped by a signal writes the traces it completed, marked interrupted, with no
    index: that is never a complete run, with the kit's schema or without one."""
    schema = load_schema(KIT)
    good = _valid(KIT)
    assert check_result(json.dumps({**good, "interrupted": None}).encode(), SECRET, schema)["secret"] == SECRET
    cut = {**good, "interrupted": {"signal": "SIGTERM", "signal_number": 15, "during": "u.rep", "planned": 3},
           "summary": {**good["summary"], "util_points": None, "throughput_points": None, "perf_index": None}}
    for checked_with in (schema, None):
        with pytest.raises(ChannelError, match=r"interrupted by SIGTERM after 1 of 3 traces: a partial run is not graded"):
            check_result(json.dumps(cut).encode(), SECRET, checked_with)


MARKED = {"honest": "", "forger": "/* FAKE:forge */", "silent": "/* FAKE:nojson */",
          "garbled": "/* FAKE:badjson */", "sleeper": "/* FAKE:hang */", "confused": "/* FAKE:usage */",
          "boaster": "/* FAKE:print */", "crasher": "/* FAKE:fail=tiny */",
          # an allocator that rewrote its failing trace's outcome to bad_trace, which the driver leaves out
          "unread": "/* FAKE:bad=tiny */",
          # an allocator that wrote over the driver's record of its figures (red team's rtcrash.c)
          "inflated": "/* FAKE:util=1.7e306 */", "overideal": "/* FAKE:util=1 */",
          "instant": "/* FAKE:mmsec=0 */", "nan": "/* FAKE:mmsec=nan */", "summary": "/* FAKE:sumutil=0.99 */",
          # an allocator that rewrote the driver's argv before main (red team's rtargv.c)
          "argv": "/* FAKE:same */",
          # an allocator that wrote over the first trace's figures, which the grader reads in the trace itself
          "peak": "/* FAKE:peak=30 */", "ops": "/* FAKE:ops=1 */", "weight": "/* FAKE:weight=0 */",
          "ideal": "/* FAKE:ideal=1 */", "inconsistent": "/* FAKE:high=300 */", "below": "/* FAKE:high=100 */",
          "over": "/* FAKE:util=1.5 */",
          # ... or over the list of traces run
          "dropped": "/* FAKE:drop */", "extra": "/* FAKE:extra */", "twice": "/* FAKE:twice */",
          # a driver that stopped itself at the run's limit (4 s here), and one that says so too soon
          "stopped": "/* FAKE:stop=4.3 */", "early": "/* FAKE:stop=0 */"}


@pytest.fixture(scope="module")
def batch(tmp_path_factory):
    root = tmp_path_factory.mktemp("channel")
    kit = make_fake_kit(root / "kit")
    subs = root / "subs"
    for name, mark in MARKED.items():
        (subs / name).mkdir(parents=True)
        (subs / name / "mm.c").write_text(source("good") + mark + "\n")
    return by_name(run_batch(kit, subs, root / "out", limits={"wall_clock": 4}))


def test_honest_driver_result_is_used(batch):
    sub = batch["honest"]
    assert sub.verdict == "ok" and sub.summary.valid == 2
    assert sub.summary.utilization == 0.5 and sub.summary.throughput_ratio == 0.8


@pytest.mark.parametrize("name, message", [("forger", "secret"), ("silent", "no result"),
                                           ("garbled", "not JSON"), ("sleeper", "longer than 4 s")])
def test_untrustworthy_results_fail_with_the_reason(batch, name, message):
    sub = batch[name]
    assert sub.verdict == "failed" and message in sub.reason
    assert sub.summary.points == 0 and not sub.traces


def test_a_driver_usage_error_is_the_graders_fault(batch):
    assert batch["confused"].verdict == "grader_error"


def test_printed_scores_are_kept_but_never_believed(batch):
    sub = batch["boaster"]
    assert "perfidx:100" in sub.stdout
    assert sub.summary.perf_index == batch["honest"].summary.perf_index < 100


def test_a_failed_trace_is_named_with_its_explanation(batch):
    sub = batch["crasher"]
    assert sub.verdict == "failed" and "tiny: crashed" in sub.reason
    crashed = [t for t in sub.traces if t.outcome == "crashed"][0]
    assert crashed.points == 0 and "crashed" in crashed.explanation and crashed.message


def test_a_bad_trace_in_a_run_counts_for_no_one_silently(batch):
    """The grader read every trace at setup, so bad_trace in a run is tampering or a sandbox failure:
    it had dropped the trace from the count, and the submission was ok with every trace correct."""
    sub = batch["unread"]
    assert sub.verdict == "grader_error", sub.reason
    assert "read at setup as unreadable (tiny: bad_trace (SIGSEGV at op 2))" in sub.reason
    assert "tampered" in sub.reason and "\n" not in sub.reason
    assert sub.summary.points == 0 and all(t.points == 0 for t in sub.traces)
    assert [t.outcome for t in sub.traces] == ["ok", "bad_trace"]      # kept for the TA


def test_a_run_stopped_at_its_limit_is_graded_on_the_traces_it_finished(batch):
    """limits.wall_clock is the driver's --run-limit: a driver that reaches it stops, as Ctrl-C stops
    it, and reports the traces before the one in progress; those keep their points, and the rest
    fail as timeouts, instead of the whole run being lost to the kill."""
    sub = batch["stopped"]
    assert sub.verdict == "failed", sub.reason
    assert [(t.name, t.outcome) for t in sub.traces] == [("grow", "ok"), ("tiny", "timeout")]
    assert sub.traces[0].points > 0 and sub.traces[0].utilization == 0.5
    assert sub.traces[1].points == 0 and sub.traces[1].message == \
        "not finished: the whole run's time limit (4 s, limits.wall_clock) ran out during this trace"
    assert "1 of 2 traces failed: tiny: timeout (not finished" in sub.reason
    assert sub.summary.valid == 1 and sub.summary.traces == 2
    assert sub.summary.correctness_points == sub.traces[0].points


def test_a_stop_at_the_limit_before_the_limit_is_not_believed(batch):
    """Only the driver's own clock stops it at --run-limit, so a result that says so before the grader's
    clock has seen the limit pass did not come from an honest stop: nothing in it is graded."""
    sub = batch["early"]
    assert sub.verdict == "failed" and not sub.traces
    assert "stopped at its time limit (--run-limit 4) after 1 of 2 traces: a partial run is not graded" in sub.reason


def test_an_interrupted_result_is_graded_only_when_it_stopped_at_the_runs_limit():
    schema = load_schema(KIT)
    good = _valid(KIT)
    stop = {**good, "interrupted": {"signal": "SIGALRM", "signal_number": 14, "during": "u.rep", "planned": 3},
            "settings": {**good["settings"], "run_limit": 9},
            "summary": {**good["summary"], "util_points": None, "throughput_points": None, "perf_index": None}}
    assert check_result(json.dumps(stop).encode(), SECRET, schema, limit=9)["interrupted"]["signal"] == "SIGALRM"
    for limit in (None, 8):      # the grader's clock did not see the limit pass, or another limit
        with pytest.raises(ChannelError, match=r"stopped at its time limit \(--run-limit 9\) after 1 of 3 traces"):
            check_result(json.dumps(stop).encode(), SECRET, schema, limit=limit)
    term = {**stop, "interrupted": {**stop["interrupted"], "signal": "SIGTERM", "signal_number": 15}}
    with pytest.raises(ChannelError, match="interrupted by SIGTERM"):
        check_result(json.dumps(term).encode(), SECRET, schema, limit=9)


def test_default_wall_clock_follows_the_traces(kit):
    import dataclasses
    from grader.policy import load_policy
    from grader.runner import run_limit, wall_clock
    policy = load_policy(kit)
    assert policy.limits.wall_clock == 0
    assert wall_clock(policy, 3) == run_limit(policy, 3) == 3 * policy.limits.trace_seconds + 60
    fixed = dataclasses.replace(policy, limits=dataclasses.replace(policy.limits, wall_clock=7))
    assert wall_clock(fixed, 3) == run_limit(fixed, 3) == 7
    # the driver's --run-limit is whole seconds, never under the policy's limit
    assert run_limit(dataclasses.replace(policy, limits=dataclasses.replace(policy.limits, wall_clock=7.2)), 3) == 8
    # ... and never past what the driver takes (a policy may give a year per trace)
    huge = dataclasses.replace(policy, limits=dataclasses.replace(policy.limits, trace_seconds=86400))
    assert run_limit(huge, 100000) == 2**31 - 1


@pytest.mark.parametrize("name, words", [
    ("inflated", "utilization 1.7e+306 is outside [0, 1]"),
    ("overideal", "above what disjoint 16-byte-aligned blocks allow"),
    ("instant", "timing figure inf"),
    ("nan", "timing figure nan"),
])
def test_an_impossible_trace_figure_fails_the_trace_and_is_never_propagated(batch, name, words):
    sub = batch[name]
    assert sub.verdict == "failed", sub.reason
    assert sub.reason.startswith("impossible figure: the allocator tampered with the driver's report") and words in sub.reason
    assert all(t.outcome == "impossible" and t.points == 0 and words in t.message for t in sub.traces)
    assert "tampered" in sub.traces[0].explanation
    assert sub.summary.utilization is None and sub.summary.throughput_ratio is None
    assert sub.summary.perf_index == 0 and sub.summary.points == 0
    json.dumps(sub.to_json(), allow_nan=False)


def test_a_summary_that_disagrees_with_its_traces_earns_no_performance_points(batch):
    sub = batch["summary"]
    assert sub.verdict == "failed" and "impossible figure" in sub.reason and "is not the mean" in sub.reason
    assert sub.summary.perf_index == 0 and sub.summary.utilization is None


def test_a_report_about_other_traces_than_those_given_is_refused(batch):
    sub = batch["argv"]
    assert sub.verdict == "failed" and "not about the traces it was given" in sub.reason, sub.reason
    assert "grow.rep is reported twice (traces 1 and 2), and tiny.rep not at all" in sub.reason
    assert sub.summary.points == 0 and not sub.traces


@pytest.mark.parametrize("name, words", [
    ("dropped", "1 traces reported for the 2 given: tiny.rep is missing"),
    ("extra", "3 traces reported for the 2 given: extra (/traces/extra.rep), which was not given"),
    ("twice", "grow.rep is reported twice (traces 1 and 2)"),
])
def test_a_trace_missing_extra_or_twice_in_the_report_is_refused(batch, name, words):
    sub = batch[name]
    assert sub.verdict == "failed" and "not about the traces it was given" in sub.reason, sub.reason
    assert words in sub.reason and "tampered" in sub.reason, sub.reason
    assert sub.summary.points == 0 and not sub.traces


@pytest.mark.parametrize("name, words", [
    ("peak", "grow: peak_payload 30 is not the trace's (108)"),
    ("ops", "grow: ops 1 is not the trace's (5)"),
    ("weight", "grow: weight 0 is not the trace's (1)"),
    ("ideal", "grow: ideal_utilization 1 is not the trace's (0.84375)"),
    ("inconsistent", "grow: utilization 0.5 is not peak payload / heap high-water (108 / 300 = 0.36)"),
    ("below", "grow: heap high-water 100 is below the peak payload 108"),
    ("over", "grow: utilization 1.5 is outside [0, 1]"),
])
def test_a_trace_figure_other_than_the_graders_own_reading_is_refused(batch, name, words):
    sub = batch[name]
    assert sub.verdict == "failed" and sub.reason.startswith("impossible figure: the allocator tampered"), sub.reason
    assert words in sub.reason, sub.reason
    grow = sub.traces[0]
    assert grow.outcome == "impossible" and grow.points == 0 and grow.utilization is None
    assert (grow.weight, grow.ops) == (1, 5)          # the grader's own figures, not the forged ones
    assert sub.summary.utilization is None and sub.summary.perf_index == 0


def test_utilization_must_rest_on_a_heap_that_holds_the_peak_payload():
    """Within the 1e-6 slack a utilization of 1 once passed for a heap one byte short of the payload."""
    from grader.scoring import trace_problem
    row = {"utilization": 1.0, "peak_payload": 1000001, "heap_high_water": 1000000, "ideal_utilization": None}
    assert "below the peak payload" in trace_problem(row, 16, 1 << 30)
    assert "without its peak payload" in trace_problem({**row, "peak_payload": None}, 16, 1 << 30)
    assert trace_problem({**row, "heap_high_water": 1000001}, 16, 1 << 30) == ""


def test_a_summary_throughput_ratio_must_follow_from_the_traces_timings():
    """A forged T / T_libc in the summary, beside honest trace rows, earns throughput points the
    allocator never had: the summary must agree with what the rows' timings give."""
    from grader.scoring import recompute, summary_problem

    def row(name, seconds, libc):
        return {"name": name, "outcome": "ok", "weight": 1, "ops": 1000, "peak_payload": 800, "utilization": 0.8,
                "timing": {"seconds": seconds, "samples": [seconds]}, "libc": {"seconds": libc, "samples": [libc]}}
    rows = [row("a", 0.004, 0.001), row("b", 0.006, 0.002)]
    util, ratio = recompute(rows)
    assert 0 < ratio < 1
    assert summary_problem({"utilization": util, "throughput_ratio": ratio}, rows) == ""
    for forged in (2 * ratio, ratio * 1.01, 1.0, None):
        problem = summary_problem({"utilization": util, "throughput_ratio": forged}, rows)
        assert "throughput ratio" in problem and "does not follow from the traces' timings" in problem, forged


def test_a_summary_with_no_utilization_is_honest_only_when_no_trace_scores_it():
    """The driver gives "utilization": null when no trace scores it (weight 0, no ops, no payload);
    the grader called that null out of [0, 1] and failed the submission for a forged figure."""
    from grader.scoring import recompute, summary_problem
    unscored = [{"name": "w0", "outcome": "ok", "weight": 0, "ops": 2, "peak_payload": 8, "utilization": None,
                 "timing": None, "libc": None}]
    assert recompute(unscored) == (None, None)
    assert summary_problem({"utilization": None, "throughput_ratio": None}, unscored) == ""
    assert "not the mean of the traces' (none, as no trace scores it)" in \
        summary_problem({"utilization": 0.0, "throughput_ratio": None}, unscored)
    scored = [{**unscored[0], "weight": 2, "utilization": 0.5}]
    assert "not the mean of the traces' (0.5)" in summary_problem({"utilization": None, "throughput_ratio": None},
                                                                 scored)


def test_a_negative_or_endless_timing_is_refused():
    """A negative time in a trace's timing or libc figures lowers the summed time and so raises
    T / T_libc, which the summary then agrees with: no correct run measures one."""
    from grader.scoring import trace_problem
    row = {"utilization": None, "timing": {"seconds": 0.004, "ops_per_sec": 250000.0, "samples": [0.004, 0.005]},
           "libc": {"seconds": 0.002, "ops_per_sec": 500000.0, "samples": [0.002]}}
    assert trace_problem(row, 16, 1 << 30) == ""
    for key in ("timing", "libc"):
        for field, bad in (("seconds", -0.001), ("ops_per_sec", -1.0), ("samples", [0.004, -0.004]),
                           ("seconds", float("inf"))):
            forged = {**row, key: {**row[key], field: bad}}
            assert f"{key} figure" in trace_problem(forged, 16, 1 << 30), (key, field, bad)


def test_the_honest_fake_still_passes_every_check(batch):
    assert batch["honest"].verdict == "ok" and batch["crasher"].reason.startswith("1 of 2 traces failed")
    assert [(t.name, t.weight, t.ops) for t in batch["honest"].traces] == [("grow", 1, 5), ("tiny", 1, 4)]


def test_listed_traces_problem_checks_names_order_and_count():
    from grader.scoring import listed_traces_problem
    rows = [{"name": "a", "path": "/traces/a.rep"}, {"name": "b", "path": "/traces/b.rep.gz"}]
    assert listed_traces_problem(rows, ("a.rep", "b.rep.gz")) == ""
    assert "2 traces reported for the 1" in listed_traces_problem(rows, ("a.rep",))
    assert "trace 1 should be b.rep.gz" in listed_traces_problem(rows, ("b.rep.gz", "a.rep"))
    assert "should be b.rep" in listed_traces_problem(rows, ("a.rep", "b.rep"))
    assert listed_traces_problem(rows, ("a.rep", "b.rep.gz"), ["/traces/a.rep", "/traces/b.rep.gz"]) == ""
    assert "should be a.rep" in listed_traces_problem(rows, ("a.rep", "b.rep.gz"), ["/t/a.rep", "/traces/b.rep.gz"])
    assert listed_traces_problem(rows[:1], ("a.rep", "b.rep.gz")).endswith("given: b.rep.gz is missing")
    assert "a.rep is reported twice (traces 1 and 3)" in listed_traces_problem([*rows, rows[0]], ("a.rep", "b.rep.gz"))
    assert "b (/traces/b.rep.gz), which was not given" in listed_traces_problem(rows * 5000, ("a.rep",))


def test_a_trace_the_graders_reader_refuses_stops_the_batch(tmp_path):
    """The fake driver reads anything not 'malformed'; mmtrace's reader, whose figures the reports
    are held to, refuses an id the header does not declare: the kit's readers disagree."""
    from grader.grade import BatchError, prepare
    from grader.policy import load_policy
    from grader.sandbox import probe
    from grader_fixtures.helpers import write_policy
    kit, traces = make_fake_kit(tmp_path / "kit"), tmp_path / "traces"
    traces.mkdir()
    (traces / "odd.rep").write_text("1\n2\n1\n0\na 7 32\n")
    with pytest.raises(BatchError, match=f"^{traces}/odd.rep:5: the grader's own reading .* id 7 out of range"):
        prepare(kit, load_policy(kit, write_policy(tmp_path)), probe(), traces)


def test_a_trace_file_name_that_is_not_utf8_matches_the_drivers_report():
    """The driver writes a non-UTF-8 byte of a path as that byte's code point (\\u00e9); Python holds it
    as a surrogate: the real driver's report of caf\\xe9.rep had failed every submission."""
    import os
    from grader.scoring import listed_traces_problem
    want = os.fsdecode(b"caf\xe9.rep")
    rows = [{"name": "caf\u00e9", "path": "/traces/caf\u00e9.rep"}]
    assert listed_traces_problem(rows, (want,), [f"/traces/{want}"]) == ""
    assert listed_traces_problem(rows, (want,)) == ""
    assert "should be" in listed_traces_problem([{"name": "cafe", "path": "/traces/cafe.rep"}], (want,))


def _kept_of(size: int) -> int:
    """How many of SIZE bytes written to the driver's result pipe the grader's reader keeps."""
    read, write = os.pipe()
    sink: list[bytes] = []
    reader = threading.Thread(target=_read_all, args=(read, sink))
    reader.start()
    with os.fdopen(write, "wb") as stream:
        stream.write(b"x" * size)
    reader.join(timeout=60)
    return sum(map(len, sink))


def test_the_drivers_result_is_read_whole_up_to_its_cap():
    """A result of exactly MAX_JSON bytes is read whole and one byte more is cut (then refused as no
    JSON), and an honest big result (a class trace set with every trace's 4 KiB of output) fits:
    reading on past the cap, stopping short of it (total < MAX_JSON) or a cap of 32 KiB left every
    test passing."""
    assert _kept_of(MAX_JSON) == MAX_JSON
    assert _kept_of(MAX_JSON + 1) < MAX_JSON + 1
    assert _kept_of(1 << 20) == 1 << 20


class _Recorder:
    """A sandbox and a `run` that record what run_driver asks of them, read the secret it sends as
    the driver does, and answer with RESULT (its secret filled in) after SECONDS."""

    def __init__(self, result, seconds=1.0, timed_out=False):
        self.result, self.seconds, self.timed_out, self.secrets = result, seconds, timed_out, []

    def prepare(self, folder, slot, writable):
        self.writable = writable

    def path_of(self, mount):
        return str(mount.host)

    def command(self, argv, mounts, chdir, limits, slot=0, cpu=None):
        self.argv, self.cpu = argv, cpu
        return argv

    def run(self, cmd, wall_clock, keep, pass_fds=(), cwd=None):
        self.wall_clock, self.keep, self.pass_fds = wall_clock, keep, pass_fds
        json_fd = int(cmd[cmd.index("--json") + 1].removeprefix("fd:"))
        secret_fd = int(cmd[cmd.index("--secret-fd") + 1])
        secret = os.read(secret_fd, 4096).decode().strip()
        os.set_blocking(secret_fd, False)
        self.secret_closed = os.read(secret_fd, 1) == b""     # the grader closed its end: no forged line follows
        self.secrets.append(secret)
        os.write(json_fd, json.dumps({**self.result, "secret": secret}).encode())
        return RunResult(0, "", "", self.timed_out, self.seconds)


def _run_recorded(tmp_path, monkeypatch, recorder, cpu=None):
    """run_driver on one trace, under write_policy's limits, with RECORDER as sandbox and `run`."""
    policy = load_policy(KIT, write_policy(tmp_path))
    (tmp_path / "sub").mkdir(exist_ok=True)
    monkeypatch.setattr(runner, "run", recorder.run)
    return policy, runner.run_driver(tmp_path / "sub", tmp_path / "sub" / "mdriver", tmp_path, ["t.rep"], policy,
                                     recorder, 3, load_schema(KIT), cpu)


def test_the_driver_is_run_read_only_with_the_policys_limits_and_a_fresh_secret(tmp_path, monkeypatch):
    """What run_driver gives the sandbox and the driver, checked without either: a lost -l, -T or
    -M, no CPU pin, an uncapped output or the secret pipe's write end left open each left every test
    passing, and a result pipe left open made every run wait 30 s for its reader unnoticed."""
    recorder = _Recorder(_valid(KIT))
    start = time.monotonic()
    policy, done = _run_recorded(tmp_path, monkeypatch, recorder, cpu=1)
    assert time.monotonic() - start < 10, "the reader waited for a pipe the grader left open"
    assert done.problem == "" and done.result["secret"] == recorder.secrets[0] and not done.stopped
    assert recorder.writable is False and recorder.cpu == 1
    limit = 60      # write_policy's wall_clock
    argv = recorder.argv
    assert argv[1] == "-l" and argv[argv.index("-T") + 1] == "2"
    assert argv[argv.index("-M") + 1] == str(policy.limits.max_heap)
    assert argv[argv.index("--run-limit") + 1] == str(limit)
    assert recorder.wall_clock == limit + 5 and recorder.keep == policy.limits.output_keep
    fds = {int(argv[argv.index("--json") + 1].removeprefix("fd:")), int(argv[argv.index("--secret-fd") + 1])}
    assert set(recorder.pass_fds) == fds and recorder.secret_closed
    _run_recorded(tmp_path, monkeypatch, recorder)
    first, second = recorder.secrets
    assert first != second and len(first) >= 32 and int(first, 16) >= 0


def test_a_stop_at_the_run_limit_is_believed_from_the_limit_on(tmp_path, monkeypatch):
    """A run that stopped itself at --run-limit is graded, marked stopped, when the grader's clock
    saw exactly the limit pass (believing it only past the limit, process.seconds > limit, left every
    test passing); a run the grader had to kill is refused however its result reads."""
    good = _valid(KIT)
    stop = {**good, "interrupted": {"signal": "SIGALRM", "signal_number": 14, "during": "u.rep", "planned": 3},
            "settings": {**good["settings"], "run_limit": 60},
            "summary": {**good["summary"], "util_points": None, "throughput_points": None, "perf_index": None}}
    _, done = _run_recorded(tmp_path, monkeypatch, _Recorder(stop, seconds=60.0))
    assert done.problem == "" and done.stopped
    _, killed = _run_recorded(tmp_path, monkeypatch, _Recorder(good, seconds=65.0, timed_out=True))
    assert killed.result is None and "did not stop at that limit, and was killed" in killed.problem

"""End to end with the real driver: every verdict and trace outcome, from purpose-built submissions.

One batch grades them all (in the real sandbox, with the tiny fixture traces and
short limits); each test then checks one submission's verdict and reason.
"""
import os
import re
import socket

import pytest

from grader_fixtures.helpers import FAST, KIT, TRACES, by_name, run_batch
from grader_fixtures.submissions import write_all

VERDICT_CASES = ["good", "fake_scores", "compile_error", "link_error", "clock", "fork_system", "writes",
                 "memhog", "globals", "loop", "crash", "misaligned", "overlap", "corrupt", "out_of_heap",
                 "alloc_failed", "init_failed", "exited", "ifunc", "asserts", "chatty_crash"]


@pytest.fixture(scope="module")
def batch(tmp_path_factory):
    root = tmp_path_factory.mktemp("outcomes")
    subs = write_all(root / "subs", VERDICT_CASES)
    # The kit's own best allocator handed in as a student's: cc1's temporaries at -O2 -g pass 1 MiB.
    (subs / "kitbest").mkdir()
    (subs / "kitbest" / "mm.c").write_text((KIT / "variants" / "best.c").read_text())
    (subs / "empty").mkdir()
    (subs / "empty" / "mm.c").write_text("")
    # Builds run in the sandbox too: an endless include meets the memory limit, a host secret is not there.
    (subs / "dev_zero.c").write_text('#include "/dev/zero"\n')
    (subs / "etc_shadow.c").write_text('#include "/etc/shadow"\nint mm_init(void) { return 0; }\n')
    # exit is allowed here only so that an allocator can reach the driver and be caught exiting.
    text = '[rules]\nextra_allowed_symbols = ["exit"]\n[timing]\nreference_variants = ["segregated"]\n'
    return by_name(run_batch(KIT, subs, root / "out", text, limits={"trace_seconds": 1}))


def test_the_honest_allocator_is_ok(batch):
    sub = batch["good"]
    assert sub.verdict == "ok", sub.reason
    assert sub.summary.valid == sub.summary.traces == 2
    assert 0 < sub.summary.utilization < 1 and sub.summary.throughput_ratio > 0
    assert sub.summary.points == pytest.approx(sub.summary.correctness_points + sub.summary.performance_points, abs=0.01)
    assert all(t.spread is not None for t in sub.traces)


def test_the_kits_best_allocator_builds_and_is_ok(batch):
    sub = batch["kitbest"]
    assert sub.verdict == "ok", sub.reason
    assert sub.summary.valid == sub.summary.traces


def test_fake_score_lines_change_nothing(batch):
    sub, good = batch["fake_scores"], batch["good"]
    assert sub.verdict == "ok"
    assert "perfidx:100" in "".join(t.output for t in sub.traces) + sub.stdout
    assert sub.summary.utilization == good.summary.utilization
    assert sub.summary.perf_index < 90


@pytest.mark.parametrize("name, verdict, words", [
    ("compile_error", "compile_error", "error"),
    ("link_error", "link_error", "link"),
    ("clock", "rejected", "clock_gettime"),
    ("fork_system", "rejected", "fork"),
    ("writes", "rejected", "fopen"),
    ("memhog", "rejected", "malloc"),
    ("globals", "rejected", "writable"),
    ("ifunc", "rejected", "IFUNC"),
    ("empty", "bad_submission", "empty"),
    ("dev_zero", "compile_error", "memory"),
    ("etc_shadow", "compile_error", "No such file"),
])
def test_submissions_stopped_before_running(batch, name, verdict, words):
    sub = batch[name]
    assert sub.verdict == verdict and words in sub.reason, sub.reason
    assert not sub.traces and sub.summary.points == 0


def test_compile_errors_show_the_compilers_first_lines(batch):
    log = batch["compile_error"].build_log
    assert "mm.c:" in log and "error" in log and len(log.splitlines()) <= 25


def test_non_static_globals_are_warned_about(batch):
    rules = {r.rule: r for r in batch["globals"].rules}
    assert rules["other_globals"].verdict == "warn" and "big_table" in rules["other_globals"].items


@pytest.mark.parametrize("name, outcome", [
    ("loop", "timeout"), ("crash", "crashed"), ("misaligned", "misaligned"), ("overlap", "overlap"),
    ("corrupt", "payload_corrupted"), ("out_of_heap", "out_of_heap"), ("alloc_failed", "alloc_failed"),
    ("init_failed", "init_failed"), ("exited", "exited"),
])
def test_each_trace_outcome(batch, name, outcome):
    sub = batch[name]
    assert sub.verdict == "failed" and outcome in sub.reason
    failed = [t for t in sub.traces if t.outcome == outcome]
    assert failed, [t.outcome for t in sub.traces]
    assert all(t.points == 0 and t.explanation and t.message for t in failed)
    assert sub.summary.perf_index == 0                      # classic: any failure, no performance points


def test_a_failing_assert_is_reported_as_one(batch):
    """assert is on the course's allow-list, but glibc's maps a page for its message, which the
    driver's sandbox refuses: a student's failing assert was 'it made the system call mmap (9), ...
    an allocator gets memory only from mem_sbrk', blaming a call the student never wrote."""
    sub = batch["asserts"]
    assert sub.verdict == "failed" and "crashed with SIGABRT" in sub.reason and "mmap" not in sub.reason, sub.reason
    crashed = [t for t in sub.traces if t.outcome == "crashed"]
    assert crashed and all("Assertion `ptr == NULL' failed." in t.output for t in crashed)


def test_reference_variants_are_graded_alongside(batch):
    ref = batch["_ref-segregated"]
    assert ref.reference and ref.verdict == "ok" and ref.summary.utilization > 0
    # an unknown variant is refused when the policy loads (tests/test_grader_policy.py), not graded
    students = [s for s in batch.values() if not s.reference]
    assert len(students) == len(VERDICT_CASES) + 4          # + empty, dev_zero, etc_shadow, kitbest


def test_every_record_states_the_sandbox(batch):
    """The default policy builds the driver with its seccomp filter, and every record says so."""
    for sub in batch.values():
        assert {"no_network", "unprivileged_user", "driver_seccomp", "driver_audit"} <= set(sub.protections), \
            sub.protections


ESCAPES = ["writes", "network", "memhog", "fork_system"]
MARKER = "/tmp/mmgrade-host-marker"
RELAXED = '[rules.action]\nundefined_symbols = "warn"\n'


def _escape_batch(tmp_path_factory, name: str, policy_text: str = "", host_port: int = 9):
    """The cheats with the symbol rule only warning, so that they run."""
    root = tmp_path_factory.mktemp(name)
    subs = write_all(root / "subs", ESCAPES, host_port)
    if os.path.exists(MARKER):
        os.unlink(MARKER)
    return by_name(run_batch(KIT, subs, root / "out", RELAXED + policy_text)), subs


@pytest.fixture(scope="module")
def escapes(tmp_path_factory):
    """The driver's sandbox (seccomp, in the trace's process) refuses each first, inside the grader's."""
    return _escape_batch(tmp_path_factory, "escapes")


@pytest.fixture(scope="module")
def unfiltered(tmp_path_factory):
    """The same cheats in a driver built without its filter: only the grader's own sandbox
    stands in their way, and must hold.  A listener on the host's loopback waits for
    a connection that only a process outside the sandbox's network could make."""
    with socket.create_server(("127.0.0.1", 0)) as listener:
        port = listener.getsockname()[1]
        return _escape_batch(tmp_path_factory, "unfiltered", "[sandbox]\ndriver_seccomp = false\n", port)


def _printed(sub):
    return "".join(t.output for t in sub.traces)


def _refused(sub, calls: tuple[str, ...]) -> None:
    """Every trace ended at the driver's own sandbox, which refused one of `calls`
    before the grader's sandbox had anything to hold."""
    assert sub.traces, sub.reason
    for t in sub.traces:
        assert t.outcome == "crashed", (t.name, t.outcome, t.message)
        assert "may not make" in t.message and any(f"the system call {c} (" in t.message for c in calls), t.message


def _ran(sub) -> str:
    """The cheat ran unfiltered and printed what it met.  What its calls left in libc's
    memory (fopen's FILE, malloc's blocks) the driver's audit may then call tampered:
    another layer of the driver's, after the fact; the grader's sandbox held before."""
    assert "driver_seccomp" not in sub.protections, sub.protections
    assert sub.traces, sub.reason
    for t in sub.traces:
        assert t.outcome in ("ok", "tampered"), (t.name, t.outcome, t.message)
    return _printed(sub)


def test_writes_outside_private_tmp_are_refused(escapes):
    batch, subs = escapes
    _refused(batch["writes"], ("openat", "open"))
    assert not list(subs.rglob("pwned"))


def test_writes_outside_private_tmp_are_denied_by_the_grader(unfiltered):
    batch, subs = unfiltered
    out = _ran(batch["writes"])
    assert "open /sub/pwned: denied" in out and "open /usr/pwned: denied" in out and "/traces/pwned: denied" in out
    assert "open /tmp/scratch: WRITABLE" in out             # the private /tmp: the opens were really made
    assert not list(subs.rglob("pwned"))


def test_no_network(escapes):
    _refused(escapes[0]["network"], ("socket",))


def test_no_network_from_the_grader(unfiltered):
    out = _ran(unfiltered[0]["network"])
    assert "connect host: failed" in out and "connect: failed" in out
    assert "CONNECTED" not in out


def test_memory_is_refused(escapes):
    """malloc of 1 MiB blocks asks the kernel for memory: the trace's process may
    have none but the heap's."""
    _refused(escapes[0]["memhog"], ("mmap", "brk"))


def test_memory_is_capped_by_the_grader(unfiltered):
    """Unfiltered, libc's malloc gets memory until the sandbox's address-space limit
    (FAST's memory_bytes) refuses more."""
    out = _ran(unfiltered[0]["memhog"])
    got = int(out.split("memhog got ")[1].split()[0])
    assert 0 < got * (1 << 20) <= FAST["memory_bytes"]


def test_fork_and_system_stay_inside(escapes):
    _refused(escapes[0]["fork_system"], ("clone", "fork", "clone3"))
    assert not os.path.exists(MARKER)


def test_fork_and_system_stay_inside_the_grader(unfiltered):
    """The shell ran and touched the marker, in the sandbox's private /tmp, never the host's."""
    out = _ran(unfiltered[0]["fork_system"])
    assert "system: 0" in out and "system: -1" not in out
    assert not os.path.exists(MARKER)


def _crashed_chatty(batch):
    sub = batch["chatty_crash"]
    crashed = [t for t in sub.traces if t.outcome == "crashed"]
    assert sub.verdict == "failed" and crashed, sub.reason
    return sub, crashed


def _shown(sub, trace):
    """TRACE's part of SUB's page, and its Gradescope test's output."""
    from grader import exports, report
    from grader.policy import load_policy
    page = report._environment().get_template("submission.html.j2").render(sub=sub, figure=None)
    tests = {t["name"]: t["output"] for t in exports.gradescope_results(sub, load_policy(KIT, None))["tests"]}
    return page.split(f"<b>{trace.name}</b>", 1)[1].split("</li>", 1)[0], tests[f"Trace: {trace.name}"]


def test_a_trace_output_cut_by_the_driver_says_how_much_was_cut(batch):
    """A trace's output is kept to the driver's first MDRIVER_OUTPUT_KEEP (4096) bytes: it was cut
    with no mark, so the record, the page and Gradescope showed 4096 bytes as all it printed."""
    sub, crashed = _crashed_chatty(batch)
    for trace in crashed:
        kept = len(trace.output.encode())
        assert kept == 4096 and trace.output_cut > 0
        # 10000 bytes per mm_init, then 28 before the crash
        assert (kept + trace.output_cut + len(trace.output_tail)) % 10000 == 28, (kept, trace.output_cut)
    first = crashed[0]
    assert sub.to_json()["traces"][sub.traces.index(first)]["output_cut"] == first.output_cut     # the record
    page, gradescope = _shown(sub, first)
    assert f"[... {first.output_cut:,} bytes not shown ...]\n" in page
    assert f"[... {len(first.output) - 2000:,} characters and {first.output_cut:,} bytes not shown ...]\n" \
        in gradescope


def test_the_page_and_gradescope_show_the_last_lines_printed_before_a_crash(batch):
    """They showed the first 4096 bytes only, never the line printed just before the crash: what a
    student debugging with printf looks for."""
    sub, crashed = _crashed_chatty(batch)
    first = crashed[0]
    assert first.output_tail.endswith("0249\nlast words before the crash\n")
    assert sub.to_json()["traces"][sub.traces.index(first)]["output_tail"] == first.output_tail     # the record
    page, gradescope = _shown(sub, first)
    for shown in (page, gradescope):        # the mark, then the last whole lines, to the end
        assert re.search(r"\n\[\.\.\. [\d,]+ (characters and [\d,]+ )?bytes not shown \.\.\.\]\n"
                         r"(0{36}\d{3}\n)+last words before the crash\n(</pre>)?\Z", shown), shown


def test_a_run_stopped_at_its_limit_keeps_the_traces_it_finished(tmp_path):
    """The real driver under limits.wall_clock (its --run-limit): a submission that loops in the
    second of three traces keeps the first trace's points; the loop and the trace never begun fail
    as timeouts, each saying why.  Before, the whole run was killed and every point lost."""
    traces = tmp_path / "traces"
    traces.mkdir()
    for name, source_trace in (("a-tiny", "tiny"), ("b-grow", "grow"), ("c-tiny", "tiny")):
        (traces / f"{name}.rep").write_text((TRACES / f"{source_trace}.rep").read_text())
    subs = write_all(tmp_path / "subs", ["loop_at_100"])
    sub = by_name(run_batch(KIT, subs, tmp_path / "out", limits={"trace_seconds": 60, "wall_clock": 5},
                            traces=traces))["loop_at_100"]
    assert sub.verdict == "failed", sub.reason
    assert [(t.name, t.outcome) for t in sub.traces] == [("a-tiny", "ok"), ("b-grow", "timeout"),
                                                        ("c-tiny", "timeout")]
    limit = "the whole run's time limit (5 s, limits.wall_clock) ran out"
    assert sub.traces[1].message == f"not finished: {limit} during this trace"
    assert sub.traces[2].message == f"not finished: {limit} before this trace began"
    assert sub.traces[0].points > 0 and sub.traces[0].utilization > 0 and sub.traces[0].ops_per_sec > 0
    assert sub.summary.valid == 1 and sub.summary.traces == 3
    assert sub.summary.correctness_points == sub.traces[0].points > 0
    assert sub.summary.perf_index == 0                      # classic: any failure, no performance points
    assert "2 of 3 traces failed: b-grow: timeout (not finished" in sub.reason



def _broken(name: str) -> str:
    """tests/c/broken/NAME.c as one mm.c, its bump.h inlined."""
    broken = KIT / "tests" / "c" / "broken"
    return (broken / f"{name}.c").read_text().replace('#include "bump.h"', (broken / "bump.h").read_text())


def test_stalling_until_the_runs_limit_scores_no_better_than_failing(tmp_path):
    """tests/c/broken/stall-at-limit.c spins on the request segv.c crashes on, until the run's
    limit stops the run: the trace it stalled in and those after it are not finished.  A failed
    trace counts 0 in U and T/T_libc; an unfinished one was left out of both, so without
    all_or_nothing the staller scored 44.1 to the crasher's 33.9.  They now score the same."""
    traces = tmp_path / "traces"
    traces.mkdir()
    for name in ("a", "b"):
        (traces / f"{name}.rep").write_text("1\n3\n6\n1\na 0 100\na 1 200\na 2 50\nf 1\nf 0\nf 2\n")
    (traces / "c.rep").write_text("1\n2\n4\n1\na 0 100\na 1 777\nf 0\nf 1\n")
    subs = tmp_path / "subs"
    for name in ("segv", "stall-at-limit"):
        (subs / name).mkdir(parents=True)
        (subs / name / "mm.c").write_text(_broken(name))
    graded = by_name(run_batch(KIT, subs, tmp_path / "out", "[scoring]\nall_or_nothing = false\n",
                               limits={"trace_seconds": 60, "wall_clock": 6}, traces=traces))
    crasher, staller = graded["segv"], graded["stall-at-limit"]
    assert [t.outcome for t in crasher.traces] == ["ok", "ok", "crashed"], crasher.reason
    assert [t.outcome for t in staller.traces] == ["ok", "ok", "timeout"], staller.reason
    assert "not finished" in staller.traces[2].message
    both = (crasher.summary, staller.summary)
    assert all(s.valid == 2 and s.traces == 3 and s.perf_index > 0 for s in both)
    # the same two traces passed, so the same figures: U is theirs over three traces, not two
    assert staller.summary.utilization == pytest.approx(crasher.summary.utilization, rel=1e-6)
    assert staller.summary.utilization == pytest.approx(
        sum(t.utilization for t in staller.traces[:2]) / 3, rel=1e-6)
    # T/T_libc is timed, so each is checked against its own traces' timings: 2 of 3 traces' worth
    for sub in (crasher, staller):
        ok = sub.traces[:2]
        mm_sec = sum(t.ops / t.ops_per_sec for t in ok)
        libc_sec = sum(t.ops / t.libc_ops_per_sec for t in ok)
        assert sub.summary.throughput_ratio == pytest.approx(
            libc_sec / mm_sec * 2 / 3, rel=1e-3)

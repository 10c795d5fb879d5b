"""tools/compare.py (make compare): its figures are the drivers', two files of one
basename stay two allocators, failures show per trace and count 0, and bad input is
one line, not a traceback."""
from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from statistics import mean

import click
import pytest

from conftest import build_driver
from variants_common import KIT

SUITE = ("classic-random.rep", "realloc-vectors.rep")   # small and quick
HELD = "realloc-vectors"                                 # its seeds move utilization
K = 2


def _python() -> str:
    return str(KIT / ".venv" / "bin" / "python") if (KIT / ".venv" / "bin" / "python").exists() else sys.executable


def _compare(tmp, a: str, b: str, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run([_python(), "tools/compare.py", "--traces", str(tmp / "suite"), "--trace", HELD,
                           "--seeds", str(K), "--work-dir", str(tmp / "work"), "--json", str(tmp / "out.json"),
                           *extra, a, b], cwd=KIT, capture_output=True, text=True, timeout=300)


def _suite(tmp):
    (tmp / "suite").mkdir(exist_ok=True)
    for name in SUITE:
        shutil.copy(KIT / "traces" / name, tmp / "suite" / name)


def _by_hand(variant: str, files, extra: tuple[str, ...] = ()) -> dict[str, float | None]:
    """Each trace's utilization as the variant's own driver reports it."""
    out = {}
    driver = build_driver(variant, extra=extra)
    for f in files:
        done = subprocess.run([str(driver), "-f", str(f), "-r", "1", "--json", "-"],
                              capture_output=True, text=True)
        t = json.loads(done.stdout)["traces"][0]
        out[f.name.split(".rep")[0]] = t["utilization"] if t["outcome"] == "ok" else None
    return out


@pytest.fixture(scope="module")
def compared(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("compare")
    _suite(tmp)
    done = _compare(tmp, "segregated", "segregated-realloc", "--speed-runs", "1")
    assert done.returncode == 0, done.stderr
    return tmp, done.stdout, json.loads((tmp / "out.json").read_text())


def test_figures_are_the_drivers(compared):
    tmp, _, got = compared
    files = sorted((tmp / "suite").iterdir()) + sorted((tmp / "work" / "seeds").glob("*.rep"))
    assert len(files) == len(SUITE) + K
    want_a, want_b = _by_hand("segregated", files), _by_hand("segregated-realloc", files)
    rows = got["suite"]["traces"] + got["held_out"]["traces"]
    assert {r["trace"] for r in rows} == set(want_a)
    for r in rows:
        assert r["a"]["utilization"] == want_a[r["trace"]]
        assert r["b"]["utilization"] == want_b[r["trace"]]
    for part in ("suite", "held_out"):
        s, t = got[part]["summary"], got[part]["traces"]
        assert s["a"] == pytest.approx(mean(r["a"]["utilization"] for r in t))
        assert s["b"] == pytest.approx(mean(r["b"]["utilization"] for r in t))
        assert s["diff"] == pytest.approx(s["b"] - s["a"])


def test_report_shows_averages_speed_and_a_verdict(compared):
    _, text, got = compared
    s = got["suite"]["summary"]
    assert f"A {s['a'] * 100:.2f}%   B {s['b'] * 100:.2f}%" in text
    assert "held-out average" in text and f"{K} other seeds of 1 generated traces" in text
    assert got["speed"]["runs"] == 1 and got["speed"]["ratio_a"] > 0 and got["speed"]["ratio_b"] > 0
    assert "alternating runs" in text and "(one run: no spread to tell noise by" in text
    assert len(got["speed"]["b_over_a_runs"]) == 1
    assert text.strip().splitlines()[-1] == "Verdict: " + got["verdict"]


def test_speed_is_given_per_trace_from_the_timed_runs(compared):
    """The suite's B / A alone did not say where a change of speed came from: each trace's ratio to
    libc in B's run over that in A's, as the timed runs' own JSON gives them."""
    tmp, text, got = compared
    runs = [json.loads((tmp / "work" / f"speed-{side}0.json").read_text()) for side in "ab"]
    a, b = ({t["name"]: t["timing"]["ops_per_sec"] / t["libc"]["ops_per_sec"] for t in r["traces"]} for r in runs)
    assert set(got["speed"]["per_trace"]) == {name.split(".rep")[0] for name in SUITE} == set(a)
    for name, ratio in got["speed"]["per_trace"].items():
        assert ratio == pytest.approx(b[name] / a[name])
        assert f"  {name:<24}{ratio:7.3f}" in text
    assert "Throughput per trace, B's ratio to libc over A's (medians over the runs; every trace):" in text


def test_per_trace_speed_shows_the_extremes_of_a_long_suite():
    Speed = _compare_module().Speed
    fast = Speed(1.0, 1.0, 1.0, 3, (1.0, 1.0, 1.0), {f"t{i:02}": 0.9 + i / 100 for i in range(20)})
    lines = fast.trace_lines(shown=2)
    assert lines[0].endswith("the 2 slowed and the 2 sped up most):")
    assert [line.split()[0] for line in lines[1:]] == ["t00", "t01", "t18", "t19"]
    assert Speed(1.0, 1.0, 1.0, 1).trace_lines() == []


def test_a_trace_is_named_as_the_driver_names_it():
    """Only a .gz, then a .rep, is dropped: gcc.report.rep was 'gcc', and two such traces one row."""
    name = _compare_module().trace_name
    assert [name(KIT / f) for f in ("gcc.report.rep", "gcc.report.rep.gz", "x.rep")] == ["gcc.report"] * 2 + ["x"]


def _compare_module():
    sys.path.insert(0, str(KIT / "tools"))
    try:
        import compare
    finally:
        sys.path.remove(str(KIT / "tools"))
    return compare


@pytest.mark.parametrize("option, what", [("--work-dir", "folder"), ("--traces", "folder"), ("--recipe", "file"),
                                          ("--json", "file")])
def test_an_empty_path_is_refused_before_any_work(option, what):
    """Path("") is the current folder: `--work-dir ''` had built both programs there, `--traces ''`
    taken it for the suite.  Parsed only (make_context): the old code would have measured."""
    with pytest.raises(click.ClickException) as refused:
        _compare_module().main.make_context("compare.py", ["segregated", "best", option, ""])
    assert refused.value.exit_code == 2
    assert refused.value.format_message() == f"{option}: an empty {what} name; name one"


def test_the_speed_ratio_shows_its_spread_over_the_runs():
    """Two byte-identical files had printed "B's ops/s / A's 1.101" alone, a 10% difference that
    was noise: the runs' min-max is shown, and called noise when it spans 1."""
    Speed = _compare_module().Speed
    noisy = Speed(2.00, 2.01, 1.101, 3, (0.93, 1.101, 1.18)).line()
    assert noisy.endswith("B's ops/s / A's 1.101 [0.930-1.180 over the 3 runs]: the runs disagree on which "
                          "is faster, so no difference is shown")
    clear = Speed(2.0, 3.0, 1.5, 3, (1.45, 1.5, 1.6)).line()
    assert clear.endswith("B's ops/s / A's 1.500 [1.450-1.600 over the 3 runs]")


def test_fast_gives_the_same_figures(compared, tmp_path):
    """--fast: utilization from mmreplay, every figure and the verdict as mdriver's; the timed runs
    are still mdriver's."""
    _, _, judged = compared
    _suite(tmp_path)
    done = _compare(tmp_path, "segregated", "segregated-realloc", "--speed-runs", "1", "--fast")
    assert done.returncode == 0, done.stderr
    fast = json.loads((tmp_path / "out.json").read_text())
    for part in ("suite", "held_out", "verdict"):
        assert fast[part] == judged[part]
    assert "(utilization by mmreplay)" in done.stderr
    work = tmp_path / "work"
    assert {p.name for p in work.glob("mm*")} == {"mmreplay-a", "mmreplay-b"}
    assert {p.name for p in work.glob("mdriver*")} == {"mdriver-a", "mdriver-b"} and fast["speed"]["runs"] == 1


def test_same_allocator_twice_shows_no_difference(tmp_path):
    _suite(tmp_path)
    done = _compare(tmp_path, "segregated", "segregated", "--speed-runs", "0")
    assert done.returncode == 0, done.stderr
    got = json.loads((tmp_path / "out.json").read_text())
    assert got["suite"]["summary"]["diff"] == 0 and got["held_out"]["summary"]["diff"] == 0
    assert "traces within 0.05 points" in done.stdout and got["speed"] is None


def test_two_files_of_one_basename_stay_two_allocators(tmp_path):
    _suite(tmp_path)
    for who, variant in (("alice", "implicit-first"), ("bob", "explicit-lifo")):
        (tmp_path / who).mkdir()
        shutil.copy(KIT / "variants" / f"{variant}.c", tmp_path / who / "cmpsame.c")
    done = _compare(tmp_path, str(tmp_path / "alice" / "cmpsame.c"), str(tmp_path / "bob" / "cmpsame.c"),
                    "--seeds", "0", "--speed-runs", "0")
    assert done.returncode == 0, done.stderr
    rows = json.loads((tmp_path / "out.json").read_text())["suite"]["traces"]
    files = sorted((tmp_path / "suite").iterdir())
    want_a, want_b = _by_hand("implicit-first", files), _by_hand("explicit-lifo", files)
    assert {r["trace"]: r["a"]["utilization"] for r in rows} == want_a
    assert {r["trace"]: r["b"]["utilization"] for r in rows} == want_b
    assert want_a != want_b
    assert "cannot tell" in done.stdout       # no held-out traces: no verdict on policy


def test_layouts_are_each_allocators_own_builds_at_that_layout(tmp_path):
    """--layouts N: layout j is the driver `make LAYOUT=j` builds; best reads MM_LAYOUT and
    moves, segregated does not and is reported as fixed."""
    _suite(tmp_path)
    done = _compare(tmp_path, "segregated", "best", "--speed-runs", "0", "--layouts", "3")
    assert done.returncode == 0, done.stderr
    got = json.loads((tmp_path / "out.json").read_text())
    files = sorted((tmp_path / "suite").iterdir())
    held = sorted((tmp_path / "work" / "seeds").glob("*.rep"))
    lay = got["layouts"]
    assert len(lay["a"]) == len(lay["b"]) == 3
    assert lay["a"][0]["suite"] == got["suite"]["summary"]["a"]
    assert lay["b"][0]["held_out"] == got["held_out"]["summary"]["b"]
    for j in range(3):
        suite_b = _by_hand("best", files, (f"LAYOUT={j}",))
        held_b = _by_hand("best", held, (f"LAYOUT={j}",))
        assert lay["b"][j]["suite"] == pytest.approx(mean(suite_b.values()))
        assert lay["b"][j]["held_out"] == pytest.approx(mean(held_b.values()))
    assert len({(x["suite"], x["held_out"]) for x in lay["a"]}) == 1
    assert len({(x["suite"], x["held_out"]) for x in lay["b"]}) > 1
    assert "(A gives the same figures at every layout" in done.stdout
    assert "(B gives the same" not in done.stdout
    assert done.stdout.strip().splitlines()[-1] == "Over layouts: " + lay["verdict"]


def test_a_failing_allocator_shows_its_outcomes_and_counts_zero(tmp_path):
    _suite(tmp_path)
    done = _compare(tmp_path, "segregated", "tests/c/broken/segv.c", "--speed-runs", "0")
    assert done.returncode == 0, done.stderr
    got = json.loads((tmp_path / "out.json").read_text())
    failed = {r["b"]["outcome"] for r in got["suite"]["traces"]}
    assert "ok" not in failed                 # a bump allocator: out of heap on these traces
    assert got["suite"]["summary"]["b"] == 0
    assert all(f in done.stdout for f in failed) and "B is worse" in done.stdout


@pytest.mark.parametrize("a, b, extra, fragment", [
    ("nosuch.c", "best", (), "no such allocator file: nosuch.c"),
    ("segregated", "no-such-variant", (), "no-such-variant: neither a .c file nor a variant"),
    ("segregated", "tests/c/classic/does-not-build.c", (), "does-not-build.c:2:"),
    ("segregated", "best", ("--trace", "rec-perl"), "rec-perl is recorded, not generated"),
    ("segregated", "best", ("--seeds", "100"), "--seeds"),
    ("segregated", "best", ("--seeds", "x"), "Error: Invalid value for '--seeds': 'x' is not a valid integer."),
    ("segregated", "best", ("--layouts", "17"), "--layouts"),
    ("segregated", "best", ("--time-limit", "0"), "Invalid value for '--time-limit': 0 is not in the range"),
    ("segregated", "best", ("--json", "/proc/mmtrace-x/out.json"), "/proc/mmtrace-x: cannot make the folder"),
    # a file where --json's folder would be: mkdir's "File exists" had been all the message said
    ("segregated", "best", ("--json", "/etc/passwd/out.json"),
     "Error: /etc/passwd: cannot make the folder: it exists and is not a folder"),
    # click's Path had dropped the slash: the JSON would have been written as a file named new
    ("segregated", "best", ("--json", "/proc/new/"),
     "Error: Invalid value for '--json': /proc/new/: names a folder (ends in /); name a file in it"),
    # a folder given as A had been "no such allocator file"
    ("/tmp", "best", (), "Error: /tmp: a folder, not an allocator's .c file"),
])
def test_bad_input_is_one_line(tmp_path, a, b, extra, fragment):
    _suite(tmp_path)
    if "does-not-build" in b:
        bad = tmp_path / "does-not-build.c"
        bad.write_text("#include \"mm.h\"\nint mm_init(void) { return syntax error; }\n")
        b = str(bad)
    done = _compare(tmp_path, a, b, *extra)
    assert done.returncode != 0
    assert fragment in done.stderr, done.stderr
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr
    if "does-not-build" in b:           # the compiler's error, not make's "*** ... Error 1"
        assert "does not build" in done.stderr and "error:" in done.stderr and "***" not in done.stderr


@pytest.mark.parametrize("special", ["fifo", "device"])
def test_an_allocator_that_is_no_regular_file_is_named_so(tmp_path, special):
    """A FIFO given as A had been "no such allocator file", as if it were missing."""
    _suite(tmp_path)
    if special == "fifo":
        spec = str(tmp_path / "fifo.c")
        os.mkfifo(spec)                  # no one will ever write to it
    else:
        spec = "/dev/null"               # never read: refused on what it is
    done = _compare(tmp_path, spec, "best", "--seeds", "0", "--speed-runs", "0")
    kind = "a named pipe (FIFO)" if special == "fifo" else "a device"
    assert done.returncode == 1 and done.stderr.splitlines() == [
        f"Error: {spec}: {kind}, not a regular file, so not an allocator's .c file"], done.stderr
    assert not (tmp_path / "work").exists()


@pytest.mark.parametrize("source", [
    b'#include "mm.h"\nint mm_init(void) { return "caf\xe9" syntax error; }\n',   # Latin-1 in the error line
    bytes(range(256)) * 8,                                                          # not C at all
])
def test_compiler_output_that_is_not_utf8_is_one_line(tmp_path, source):
    _suite(tmp_path)
    bad = tmp_path / "latin.c"
    bad.write_bytes(source)
    done = _compare(tmp_path, str(bad), "segregated", "--seeds", "0", "--speed-runs", "0")
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"Error: {bad} does not build") and "error" in lines[0]


def test_an_empty_suite_folder_is_one_line(tmp_path):
    (tmp_path / "suite").mkdir()
    done = _compare(tmp_path, "segregated", "best")
    assert done.returncode != 0 and "no .rep or .rep.gz traces" in done.stderr
    assert "Traceback" not in done.stderr


def test_make_compare_needs_both(tmp_path):
    done = subprocess.run(["make", "-s", "-C", str(KIT), "compare", "A=segregated"], capture_output=True, text=True)
    assert done.returncode == 2 and "name two allocators" in done.stderr


@pytest.mark.parametrize("tool", ["tools/compare.py", "tools/results.py", "tools/results_seeds.py"])
def test_h_is_help_as_for_the_kits_other_commands(tool):
    """`tools/compare.py -h` was "Error: No such option '-h'" (mdriver, mmtrace and mmgrade take it)."""
    done = subprocess.run([_python(), tool, "-h"], cwd=KIT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    assert done.stdout.startswith("Usage:") and "example:" in done.stdout


def _interrupt_when(tmp, path, *argv: str) -> subprocess.CompletedProcess:
    """compare.py ARGV in its own process group, SIGINT at its default (a background `&` ignores
    it), sent to the group as a terminal's Ctrl-C is once PATH exists."""
    def default_sigint():
        signal.signal(signal.SIGINT, signal.SIG_DFL)
    proc = subprocess.Popen([_python(), "tools/compare.py", *argv], cwd=KIT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True, preexec_fn=default_sigint)
    try:
        deadline = time.monotonic() + 240
        while not path.exists() and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        os.killpg(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def test_ctrl_c_while_timing_keeps_the_measured_comparison(tmp_path):
    """Ctrl-C had been click's `Aborted!`, status 1, and no report: the utilization measured and
    the timing rounds finished were lost."""
    _suite(tmp_path)
    done = _interrupt_when(tmp_path, tmp_path / "work" / "speed-b0.json", "--traces", str(tmp_path / "suite"),
                           "--seeds", "0", "--speed-runs", "99", "--work-dir", str(tmp_path / "work"),
                           "--json", str(tmp_path / "out.json"), "segregated", "best")
    assert done.returncode == 130, done.stderr
    errors = [line for line in done.stderr.splitlines() if line.startswith("Error")]
    assert len(errors) == 1 and "Traceback" not in done.stderr, done.stderr
    rounds = re.fullmatch(r"Error: interrupted by SIGINT after (\d+) of 99 timing rounds: the report's throughput is "
                          r"(theirs|that one round)", errors[0])
    assert rounds and errors[0] == done.stderr.strip().splitlines()[-1], done.stderr
    assert "suite average" in done.stdout and f"Throughput ({rounds[1]} alternating runs" in done.stdout
    saved = json.loads((tmp_path / "out.json").read_text())
    assert saved["speed"]["runs"] == int(rounds[1]) and len(saved["suite"]["traces"]) == len(SUITE)


def test_ctrl_c_before_both_are_measured_is_one_line(tmp_path):
    _suite(tmp_path)
    done = _interrupt_when(tmp_path, tmp_path / "work" / "mdriver-b", "--traces", str(tmp_path / "suite"),
                           "--seeds", "0", "--work-dir", str(tmp_path / "work"), "segregated", "best")
    assert done.returncode == 130 and done.stdout == "", done.stderr
    assert done.stderr.strip().splitlines()[-1] == ("Error: interrupted by SIGINT before A and B were both measured: "
                                                    "nothing to compare")
    assert "Traceback" not in done.stderr and "Aborted" not in done.stderr


def test_ctrl_c_anywhere_else_is_one_line(monkeypatch):
    """Ctrl-C before the measuring (here, while A is looked up) had been an empty line, then
    click's `Aborted!`, status 1."""
    from click.testing import CliRunner
    sys.path.insert(0, str(KIT / "tools"))
    import compare

    def stop(spec):
        raise KeyboardInterrupt

    monkeypatch.setattr(compare, "allocator", stop)
    done = CliRunner().invoke(compare.main, ["segregated", "best"])
    assert done.exit_code == 130 and done.output.splitlines() == ["Error: interrupted by SIGINT"], done.output



def _paired(compare, diffs: list[float], base: float = 0.5, prefix: str = "t") -> object:
    """Traces on which A scored BASE and B BASE + each of DIFFS."""
    ok = lambda u: compare.Outcome("ok", u, True)  # noqa: E731
    return compare.Paired([(f"{prefix}{i}", ok(base), ok(base + d)) for i, d in enumerate(diffs)])


def test_verdict_weighs_the_held_out_mean_by_its_standard_error():
    """Mean +1.5 points with a standard error of 0.87 (stdev over the square root of 4): under two
    errors, so no difference; the same mean with half the spread is a difference."""
    compare = _compare_module()
    suite = _paired(compare, [0.01])
    noisy = compare.verdict(suite, _paired(compare, [0.03, 0.0, 0.03, 0.0]))
    assert noisy.startswith("no measurable difference: held-out +1.50 ± 0.87 points")
    clear = compare.verdict(suite, _paired(compare, [0.02, 0.01, 0.02, 0.01]))
    assert clear == "B is better: held-out +1.50 ± 0.29 points; the suite agrees (+1.00)"
    assert compare.verdict(_paired(compare, [0.0]), _paired(compare, [0.02, 0.01, 0.02, 0.01])).endswith(
        "the suite says otherwise, which is layout (+0.00)")


def test_averages_leave_out_unscored_traces_and_count_a_failed_one_as_zero():
    compare = _compare_module()
    rows = [("a", compare.Outcome("ok", 0.5, True), compare.Outcome("timeout", 0.9, True)),
            ("b", compare.Outcome("ok", 0.7, True), compare.Outcome("ok", 0.7, True)),
            ("c", compare.Outcome("ok", 0.1, False), compare.Outcome("ok", 0.9, False))]
    p = compare.Paired(rows)
    assert p.averages() == pytest.approx((0.6, 0.35)) and p.diff()[0] == pytest.approx(-0.25)
    text = compare.report(compare.Allocator("old", (), "old"), compare.Allocator("new", (), "new"), 16, p, None, 0, None)
    assert "suite average        A 60.00%   B 35.00%   B - A -25.00 points" in text


def test_held_out_patterns_are_named_and_weighed_by_their_seeds():
    compare = _compare_module()
    assert compare.pattern_of("small-sizes-s300101") == "small-sizes"
    lines = compare.held_lines(_paired(compare, [0.03, 0.0, 0.03, 0.0], prefix="small-sizes-s"))
    assert lines == ["  small-sizes  +1.50 ± 0.87 over 4 seeds"]
    quiet = compare.held_lines(_paired(compare, [0.0006, 0.0004], prefix="p-s"))
    assert quiet == ["  p      +0.05 ± 0.01 over 2 seeds"]
    suite = compare.suite_lines(_paired(compare, [0.001, 0.0]))
    assert suite[1].split() == ["t0", "50.0%", "50.1%", "+0.10"] and suite[2] == "  (1 other traces within 0.05 points)"


def test_layouts_give_mean_range_and_an_unpaired_standard_error():
    """A at 2 layouts, B at 3: each side's variance over its own count."""
    compare = _compare_module()
    lay = compare.Layouts([(0.50, None), (0.52, None)], [(0.60, None), (0.62, None), (0.64, None)])
    d, se = lay.diff(0)
    assert d == pytest.approx(0.11) and se == pytest.approx((0.0002 / 2 + 0.0004 / 3) ** 0.5)
    assert compare.layout_lines(lay)[1] == ("  suite average        A 51.00% (50.00-52.00)   B 62.00% (60.00-64.00)"
                                            f"   B - A +11.00 ± {se * 100:.2f}")
    near = compare.Layouts([(0.50, None), (0.52, None)], [(0.52, None), (0.54, None)])  # +2 points, se 1.41
    assert compare.layout_verdict(near) == "no difference over 2 layouts that exceeds 2 standard errors on every set"
    worse = compare.Layouts([(0.52, None), (0.54, None)], [(0.50, None), (0.52, None)])
    assert compare.layout_verdict(worse).startswith("no difference")


def test_a_run_at_exactly_one_b_over_a_is_a_disagreement():
    Speed = _compare_module().Speed
    assert Speed(2.0, 2.1, 1.05, 3, (1.0, 1.05, 1.1)).line().endswith("so no difference is shown")


def test_speed_takes_medians_of_the_rounds_b_over_a(monkeypatch, tmp_path):
    """Three rounds with one outlier: the medians, not the means, and B over A, not A over B."""
    compare = _compare_module()
    rounds = iter([(1.0, 1.0, 2.0), (1.0, 1.0, 2.2), (9.0, 1.0, 2.4)])     # A's ratio, A's s, B's s per round
    got: list = []

    def fake(driver, label, files, time_limit, samples, out):
        if label == "A":
            got.append(next(rounds))
        ratio, a_s, b_s = got[-1]
        s = a_s if label == "A" else b_s
        r = ratio if label == "A" else 1.0
        t = {"name": "t", "path": "t.rep", "weight": 1, "ops": 1000, "outcome": "ok", "utilization": 0.9, "stats": {},
             "timing": {"seconds": s, "ops_per_sec": 1000 / s}, "libc": {"seconds": s * r, "ops_per_sec": 1000 / (s * r)}}
        return {"traces": [t], "summary": {"throughput_ratio": r, "throughput_ops_per_sec": 1000 / s}}

    monkeypatch.setattr(compare, "run_driver", fake)
    sp = compare.speed((tmp_path, tmp_path), ("A", "B"), [], 3, 60, tmp_path)
    assert sp.ratio_a == 1.0 and sp.ratio_b == 1.0 and sp.runs == 3
    assert sp.b_over_a_runs == pytest.approx((0.5, 1 / 2.2, 1 / 2.4)) and sp.b_over_a == pytest.approx(1 / 2.2)
    assert sp.per_trace == {"t": pytest.approx(1.0)}


def _timed_run(traces: dict[str, float | None], ratio: float | None) -> dict:
    """A driver's JSON: each trace's seconds (None: it failed), and its summary's ratio to libc."""
    def trace(name, s):
        timing = {"seconds": s, "ops_per_sec": 1000 / s} if s else None
        return {"name": name, "path": f"{name}.rep", "weight": 1, "ops": 1000, "outcome": "ok" if s else "segfault",
                "utilization": 0.5 if s else None, "stats": None, "timing": timing,
                "libc": {"seconds": 1.0, "ops_per_sec": 1000.0}}
    ran = [s for s in traces.values() if s]
    return {"traces": [trace(n, s) for n, s in traces.items()],
            "summary": {"throughput_ratio": ratio, "throughput_ops_per_sec": len(ran) * 1000 / sum(ran) if ran else None}}


def test_b_over_a_is_of_the_traces_both_ran(monkeypatch, tmp_path):
    """B failing the long trace had made its ops/s that of the short one alone: against A's over
    both, "B's ops/s / A's 0.020" for a B as fast as A on every trace it ran."""
    compare = _compare_module()
    runs = {"A": _timed_run({"long": 4.0, "short": 1.0}, 1.0), "B": _timed_run({"long": None, "short": 1.0}, 0.5)}
    monkeypatch.setattr(compare, "run_driver", lambda driver, label, *rest: runs[label])
    sp = compare.speed((tmp_path, tmp_path), ("A", "B"), [], 1, 60, tmp_path)
    assert sp.b_over_a == pytest.approx(1.0) and sp.left_out == ("long",)
    assert "B's ops/s / A's 1.000 (on the traces both ran; left out: long)" in sp.line()


def test_a_side_that_fails_every_trace_leaves_the_timing_without_a_figure(monkeypatch, tmp_path):
    """B failing every trace had been a TypeError traceback (None / float), after the utilization
    had been measured: the report was lost."""
    compare = _compare_module()
    runs = {"A": _timed_run({"t": 1.0}, 1.0), "B": _timed_run({"t": None}, None)}
    monkeypatch.setattr(compare, "run_driver", lambda driver, label, *rest: runs[label])
    sp = compare.speed((tmp_path, tmp_path), ("A", "B"), [], 2, 60, tmp_path)
    assert (sp.ratio_a, sp.ratio_b, sp.b_over_a) == (1.0, None, None)
    assert sp.line() == ("Throughput (2 alternating runs of the suite, medians): A T/T_libc 1.00, B: no trace timed "
                         f"{compare.SCORED_RATIO}, B's ops/s / A's: no trace that both ran was timed")


def test_the_libc_figures_are_labelled_as_the_scores_ratio_not_a_speed(monkeypatch, tmp_path):
    """B as fast as A on every trace it ran, failing one of two, was shown "A 1.00x libc, B 0.50x
    libc": the driver's scored T/T_libc, scaled by the share of traces passed, read as B running
    at half libc's speed. The figures are the same; their label now says what they are (README,
    Score)."""
    compare = _compare_module()
    runs = {"A": _timed_run({"long": 4.0, "short": 1.0}, 1.0), "B": _timed_run({"long": None, "short": 1.0}, 0.5)}
    monkeypatch.setattr(compare, "run_driver", lambda driver, label, *rest: runs[label])
    line = compare.speed((tmp_path, tmp_path), ("A", "B"), [], 1, 60, tmp_path).line()
    assert "x libc" not in line
    assert line.startswith("Throughput (1 alternating runs of the suite, medians): A T/T_libc 1.00, B T/T_libc 0.50 "
                           "(the score's: libc's time over the allocator's on the traces it passed, times the share "
                           "of traces it passed), B's ops/s / A's 1.000")


def test_timing_an_allocator_that_fails_every_trace_still_reports(tmp_path):
    _suite(tmp_path)
    done = _compare(tmp_path, "segregated", "tests/c/broken/segv.c", "--seeds", "0", "--speed-runs", "1")
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    got = json.loads((tmp_path / "out.json").read_text())
    assert got["speed"]["ratio_b"] is None and got["speed"]["b_over_a"] is None
    assert "B: no trace timed" in done.stdout and "suite average" in done.stdout


def test_a_suite_that_scores_no_utilization_is_said_so():
    """A suite of throughput-only traces (weight 3) had been a StatisticsError traceback (the mean of
    no scored trace), after both allocators were built and run."""
    compare = _compare_module()
    unscored = compare.Outcome("ok", 0.5, False)
    suite = compare.Paired([("t", unscored, unscored)])
    assert suite.averages() == (None, None) and suite.diff() == (None, None)
    text = compare.report(compare.Allocator("a", (), "a"), compare.Allocator("b", (), "b"), 16, suite, None, 0, None)
    assert "  suite average        none: no trace of the suite scores utilization" in text
    assert text.splitlines()[-1] == "Verdict: no trace scores utilization, so there is no utilization to compare"
    got = compare.as_json(compare.Allocator("a", (), "a"), compare.Allocator("b", (), "b"), 16, suite, None, None)
    assert got["suite"]["summary"] == {"a": None, "b": None, "diff": None, "stderr": None}
    held = _paired(compare, [0.02, 0.01, 0.02, 0.01])
    assert compare.verdict(suite, held) == "held-out +1.50 ± 0.29 points; no trace of the suite scores utilization"
    nothing = compare.Layouts([(None, None), (None, None)], [(None, None), (0.5, None)])
    assert compare.layout_verdict(nothing).startswith("no set scores utilization at 2 layouts")


def test_one_held_out_trace_claims_no_standard_error():
    """`--seeds 1` on one trace had printed "± 0.00 points", an exact figure, while the JSON said
    null: one trace has no standard error."""
    compare = _compare_module()
    held = _paired(compare, [0.01], prefix="p-s")
    text = compare.report(compare.Allocator("a", (), "a"), compare.Allocator("b", (), "b"), 16,
                          _paired(compare, [0.0]), held, 1, None)
    line = next(x for x in text.splitlines() if "held-out average" in x)
    assert "±" not in line and "B - A +1.00 points (one trace: no standard error) (paired, 1 other seeds" in line


@pytest.mark.parametrize("name", ["John's mm.c", 'a"b.c'])
def test_make_compare_passes_a_name_with_a_quote_as_it_is(name):
    """A quote in A had been `/bin/sh: 1: Syntax error: Unterminated quoted string`: the name
    reaches compare.py whole, which says what is wrong with it."""
    done = subprocess.run(["make", "-s", "-C", str(KIT), "compare", f"A=/nonexistent/{name}", "B=best"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode != 0 and done.stderr.splitlines()[0] == f"Error: no such allocator file: /nonexistent/{name}"


def test_the_default_paths_are_the_kits_from_any_folder(monkeypatch, tmp_path):
    """Run from outside the kit, compare took its default --traces, --recipe and --work-dir from
    the current folder and said "<cwd>/traces: no .rep or .rep.gz traces", where results.py and
    results_seeds.py take the kit's. Now compare does too, and --help says so; a relative path
    that is given is still the current folder's."""
    from click.testing import CliRunner
    compare = _compare_module()
    seen = {}

    def held_out(recipe, names, k, folder):
        seen.update(recipe=recipe, folder=folder)
        raise click.ClickException("stop here")

    monkeypatch.setattr(compare, "held_out_traces", held_out)
    monkeypatch.chdir(tmp_path)
    done = CliRunner().invoke(compare.main, ["segregated", "best"])
    assert done.output.splitlines() == ["Error: stop here"], done.output
    assert seen == {"recipe": KIT / "traces" / "recipe.toml", "folder": KIT / "build" / "compare" / "seeds"}
    (tmp_path / "mine").mkdir()
    shutil.copy(KIT / "traces" / SUITE[0], tmp_path / "mine" / SUITE[0])
    suite = []
    monkeypatch.setattr(compare, "suite_traces", lambda d: suite.append(d) or [d])
    done = CliRunner().invoke(compare.main, ["segregated", "best", "--traces", "mine", "--work-dir", "w"])
    assert suite == [tmp_path / "mine"] and seen["folder"] == tmp_path / "w" / "seeds", done.output
    text = " ".join(CliRunner().invoke(compare.main, ["-h"]).output.split())
    assert "default: the kit's traces/" in text and "default: the kit's build/compare/" in text


def test_traces_of_one_stem_keep_the_drivers_names(tmp_path):
    """x.rep and x.rep.gz (or a/x.rep and b/x.rep) in one suite were both listed as "x" in the
    utilization table, which could not be told apart, while the per-trace throughput lines,
    from the driver's JSON, said x.rep and x.rep.gz. The table now takes the driver's names."""
    compare = _compare_module()
    suite = tmp_path / "suite"
    suite.mkdir()
    shutil.copy(KIT / "traces" / SUITE[0], suite / "x.rep")
    import gzip
    (suite / "x.rep.gz").write_bytes(gzip.compress((KIT / "traces" / SUITE[1]).read_bytes()))
    files = compare.suite_traces(suite)
    driver = build_driver("segregated")
    done = subprocess.run([str(driver), "-r", "1", "--json", "-", *[a for f in files for a in ("-f", str(f))]],
                          capture_output=True, text=True)
    got = compare.outcomes(json.loads(done.stdout))
    names = [n for n, _, _ in compare.paired(files, got, got).rows]
    assert names == [t["name"] for t in json.loads(done.stdout)["traces"]] == ["x.rep", "x.rep.gz"]


def test_a_work_dir_in_use_by_another_compare_is_refused(tmp_path):
    """Two compare.py runs on one --work-dir (two terminals, the default build/compare) had
    overwritten each other's mdriver-a, mdriver-b and JSON: each could time and report the
    other's allocators, without a word. A run now holds the folder; a second is one line."""
    from filelock import FileLock
    _suite(tmp_path)
    (tmp_path / "work").mkdir()
    with FileLock(str(tmp_path / "work" / ".compare.lock")):
        done = subprocess.run([_python(), "tools/compare.py", "--traces", str(tmp_path / "suite"), "--seeds", "0",
                               "--speed-runs", "0", "--work-dir", str(tmp_path / "work"), "segregated", "best"],
                              cwd=KIT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 1
    assert done.stderr.splitlines() == [f"Error: {tmp_path / 'work'}: another compare.py is using it; wait for it "
                                        "to end or give another --work-dir"]
    assert not (tmp_path / "work" / "mdriver-a").exists()

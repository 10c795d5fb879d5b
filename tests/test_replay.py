"""mmreplay (make replay): utilization only, in-process, for trusted allocators.  Its figures
are mdriver's to the last bit, its cheap checks say what mdriver's say in the same words, a
crash costs one trace, and bad input is one line and exit status 2."""
from __future__ import annotations

import functools
import json
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from conftest import KIT, build_driver
from driver_common import TRIGGER, broken, run, write_trace
from test_driver_options import BAD_ARGS

sys.path.insert(0, str(KIT / "tools"))
from compare import outcomes  # noqa: E402

CLEAN = ["a 0 16", "a 1 40", "r 0 100", "f 1", "f 0"]


@functools.cache
def replay(alloc: str, extra: tuple[str, ...] = ()) -> Path:
    """mmreplay around a variant or a broken fixture (tests/c/broken/NAME.c)."""
    if (KIT / "tests" / "c" / "broken" / f"{alloc}.c").exists():
        return build_driver(extra=(f"MM=tests/c/broken/{alloc}.c", *extra), target="replay")
    return build_driver(alloc, extra=extra, target="replay")


@functools.cache
def schema() -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(json.loads((KIT / "schema" / "mmreplay-result.schema.json").read_text()))


def run_replay(binary: Path, *args: str | Path, tmp: Path) -> tuple[subprocess.CompletedProcess, dict | None]:
    """Run mmreplay with args, its JSON written to tmp and checked against its schema."""
    dest = tmp / f"replay-{len(list(tmp.glob('replay-*')))}.json"
    done = subprocess.run([str(binary), *map(str, args), "--json", str(dest)], capture_output=True, text=True,
                          timeout=120)
    doc = json.loads(dest.read_text()) if dest.exists() and dest.stat().st_size else None
    if doc is not None:
        schema().validate(doc)
    return done, doc


def by_name(doc: dict) -> dict[str, dict]:
    return {t["name"]: t for t in doc["traces"]}


# ------------------------------------------------------------ the figures are mdriver's

# best at two layouts (it reads MM_LAYOUT); segregated, which does not, at one
@pytest.mark.parametrize("name, layout", [("best", 0), ("best", 5), ("segregated", 0)])
def test_utilization_is_mdrivers_on_the_suite(tmp_path, name, layout):
    """Both are ratios of the same integers (peak payload / heap high-water): equal, not close."""
    extra = (f"LAYOUT={layout}",)
    judged = run(build_driver(name, extra=extra), "-r", "1", "-t", KIT / "traces", tmp=tmp_path, timeout=600)
    done, fast = run_replay(replay(name, extra), "-t", KIT / "traces", tmp=tmp_path)
    assert judged.rc == 0 and done.returncode == 0, judged.err + done.stderr
    want, got = by_name(judged.doc), by_name(fast)
    assert list(got) == list(want) and len(got) >= 30
    for trace, t in got.items():
        for key in ("path", "weight", "ops", "outcome", "utilization", "ideal_utilization", "peak_payload",
                    "heap_high_water"):
            assert t[key] == want[trace][key], (trace, key)
    assert fast["summary"] == {k: judged.summary[k] for k in fast["summary"]}
    assert outcomes(fast) == outcomes(judged.doc)          # what tools/compare.py reads
    assert f"{100 * fast['summary']['utilization']:6.1f}%" in done.stdout


# ------------------------------------------------------------ the cheap checks, as mdriver words them

@pytest.mark.parametrize("fixture, ops, outcome", [
    ("null-early", ["a 0 16", f"a 1 {TRIGGER}"], "alloc_failed"),
    ("misaligned", ["a 0 16", f"a 1 {TRIGGER}", "f 0"], "misaligned"),
    ("below-heap", ["a 0 16", f"a 1 {TRIGGER}"], "out_of_heap"),
    ("past-break", ["a 0 16", f"a 1 {TRIGGER}"], "out_of_heap"),
    ("straddle", ["a 0 16", f"a 1 {TRIGGER}"], "out_of_heap"),
    ("past-one", ["a 0 16", f"a 1 {TRIGGER}"], "out_of_heap"),
    ("overlap-contains", ["a 0 16", "a 1 16", f"a 2 {TRIGGER}"], "overlap"),
    ("overlap-contained", [f"a 0 {TRIGGER}", "a 1 16"], "overlap"),
    ("overlap-below", ["a 0 2000", "a 1 16", f"a 2 {TRIGGER}"], "overlap"),
    ("overlap-above", ["a 0 16", "a 1 64", f"a 2 {TRIGGER}"], "overlap"),
    ("realloc0-overlap", ["a 0 100", "a 1 100", "r 0 0", "f 1"], "overlap"),  # the block realloc(p, 0) returned
    # the break lowered below live blocks (mem_reset_brk, mem_init) when the TRIGGER block is freed
    ("reset-live", ["a 0 100", f"a 1 {TRIGGER}", "a 2 50", "f 1", "f 0", "f 2"], "out_of_heap"),
    ("init-live", ["a 0 100", f"a 1 {TRIGGER}", "a 2 50", "f 1", "f 0", "f 2"], "out_of_heap"),
    ("touching", [f"a {i} {8 + 16 * i}" for i in range(12)] + ["f 3", "r 5 300", "a 3 1", "f 0", "r 7 0", "n 0 48"],
     "ok"),
])
def test_each_check_fires_as_mdrivers_does(tmp_path, fixture, ops, outcome):
    files = ["-f", write_trace(tmp_path, "bad", ops, weight=1), "-f", write_trace(tmp_path, "clean", CLEAN, weight=1)]
    done, doc = run_replay(replay(fixture), *files, tmp=tmp_path)
    judged = run(broken(fixture), *files, "-r", "1", tmp=tmp_path)
    got, want = by_name(doc)["bad"], judged.trace("bad")
    assert got["outcome"] == outcome
    for key in ("outcome", "op_index", "op", "message", "utilization"):
        assert got[key] == want[key], key
    assert by_name(doc)["clean"]["outcome"] == "ok"
    assert done.returncode == (0 if outcome == "ok" else 1) == judged.rc
    line = next(x for x in done.stdout.splitlines() if x.split()[1:2] == ["bad"])
    assert line.split()[2] == outcome
    if outcome != "ok":
        assert got["message"] in done.stdout


# ------------------------------------------------------------ a death costs one trace

@pytest.mark.parametrize("fixture, outcome, fragment", [
    ("segv", "crashed", f"crashed with SIGSEGV (Segmentation fault) at op 1 (a 1 {TRIGGER})"),
    ("aborts", "crashed", "SIGABRT"),
    ("exits", "exited", f"the process exited with status 3 at op 1 (a 1 {TRIGGER})"),
    ("hangs", "timeout", f"did not finish within 1 s; it was at op 1 (a 1 {TRIGGER})"),
    # its pipe closed, as at its exit, but alive: mmreplay waited for its end with no limit
    ("closes-hangs", "timeout", f"did not finish within 1 s; it was at op 1 (a 1 {TRIGGER})"),
    ("init-fails", "init_failed", "mm_init returned -1 before the first op"),
])
def test_a_death_names_the_trace_and_the_rest_still_run(tmp_path, fixture, outcome, fragment):
    files = ["-f", write_trace(tmp_path, "before", CLEAN, weight=1),
             "-f", write_trace(tmp_path, "dies", ["a 0 16", f"a 1 {TRIGGER}", "f 0"], weight=1),
             "-f", write_trace(tmp_path, "after", CLEAN, weight=1)]
    done, doc = run_replay(replay(fixture), "-T", "1", *files, tmp=tmp_path)
    assert done.returncode == 1, done.stderr
    traces = by_name(doc)
    assert traces["dies"]["outcome"] == outcome and fragment in traces["dies"]["message"]
    assert traces["dies"]["utilization"] is None
    others = "ok" if fixture != "init-fails" else "init_failed"
    assert traces["before"]["outcome"] == traces["after"]["outcome"] == others
    assert doc["summary"]["failed"] == (1 if others == "ok" else 3)
    assert "core dumped" not in done.stderr
    judged = run(broken(fixture), "-T", "1", "-r", "1", *files, tmp=tmp_path)
    assert judged.trace("dies")["outcome"] == outcome      # mdriver's name for it


def test_what_the_allocator_printed_before_it_died_reaches_stderr(tmp_path):
    """The child's stdout was a stream buffered for a file or pipe (`| less`, `--json -`), and a
    crash or an exit ended the child with its lines in the buffer: debug-crash.c's printf
    debugging, the last line before the crash above all, was lost without a word."""
    dies = write_trace(tmp_path, "dies", ["a 0 16", f"a 1 {TRIGGER}", "f 0"], weight=1)
    done, doc = run_replay(replay("debug-crash"), "-f", dies, tmp=tmp_path)
    assert by_name(doc)["dies"]["outcome"] == "crashed"
    assert "mm_malloc #1 (16 bytes)\n" in done.stderr
    assert "last words before the crash\n" in done.stderr
    assert "last words" not in done.stdout


# ------------------------------------------------------------ bad input

def test_a_bad_trace_is_one_line_and_the_rest_still_count(tmp_path):
    good = write_trace(tmp_path, "good", CLEAN, weight=1)
    bad = tmp_path / "broken.rep"
    bad.write_text("20000\n2\n3\n1\na 0 16\nx 1 2\nf 0\n")
    missing = tmp_path / "missing.rep"
    done, doc = run_replay(replay("best"), "-f", good, "-f", bad, "-f", missing, tmp=tmp_path)
    assert done.returncode == 2
    assert done.stderr.splitlines() == [f"mmreplay: {bad}:6: bad token 'x': expected an op (a, f, r or n)",
                                        f"mmreplay: {missing}:0: cannot open: No such file or directory"]
    traces = by_name(doc)
    assert traces["good"]["outcome"] == "ok" and traces["good"]["utilization"] > 0
    assert traces["broken"]["outcome"] == traces["missing"]["outcome"] == "bad_trace"
    assert doc["summary"]["bad_traces"] == 2 and doc["summary"]["utilization"] == traces["good"]["utilization"]
    assert "good" in done.stdout and "total" in done.stdout


def test_a_missing_trace_names_the_file_it_was_likely_meant_for(tmp_path):
    """mmreplay reads traces with mdriver's reader: `-f x` for x.rep says so as mdriver does."""
    good = write_trace(tmp_path, "x", CLEAN, weight=1)
    done, doc = run_replay(replay("best"), "-f", tmp_path / "x", tmp=tmp_path)
    assert done.returncode == 2
    assert done.stderr.splitlines() == [f"mmreplay: {tmp_path}/x:0: cannot open: No such file or directory; "
                                        f"did you mean {good}?"]
    assert doc["traces"][0]["outcome"] == "bad_trace"


def test_a_trace_of_no_ops_is_replayed_clean_under_the_sanitizers(tmp_path):
    """Its ops array was NULL, which the replay copied with memcpy: UBSan stopped mmreplay (exit 1)."""
    binary = build_driver(sanitize=True, target="replay")
    empty = write_trace(tmp_path, "empty", [], weight=1)
    done, doc = run_replay(binary, "-f", empty, "-f", write_trace(tmp_path, "good", CLEAN, weight=1), tmp=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "Sanitizer" not in done.stderr and "runtime error" not in done.stderr
    assert [t["outcome"] for t in doc["traces"]] == ["ok", "ok"]


# mdriver's own bad command lines, where mmreplay takes the flag too: the same parser says the same
SHARED_BAD_ARGS = [(args, fragment) for args, fragment in BAD_ARGS
                   if not {"-r", "--secret-fd", "--baseline", "--save-baseline", "--parse-only", "--describe",
                           "--run-limit"}
                   & {arg.split("=")[0] for arg in args}]


@pytest.mark.parametrize("args, fragment", SHARED_BAD_ARGS + [
    (["-c"], "unknown option -c (mmreplay -h for help)"),
    (["-r", "1"], "unknown option -r"),
    (["--baseline", "x"], "unknown option --baseline"),
    (["--run-limit", "5"], "unknown option --run-limit"),
])
def test_bad_flags_are_one_line_and_exit_2(tmp_path, args, fragment):
    done = subprocess.run([str(replay("best")), *args], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("mmreplay: " + fragment) and len(done.stderr.splitlines()) == 1, done.stderr


def test_help_and_json_on_stdout(tmp_path):
    helped = subprocess.run([str(replay("best")), "-h"], capture_output=True, text=True)
    assert helped.returncode == 0 and "usage: mmreplay" in helped.stdout and "mdriver is the judge" in helped.stdout
    trace = write_trace(tmp_path, "clean", CLEAN, weight=1)
    done = subprocess.run([str(replay("best")), "-f", str(trace), "--json", "-"], capture_output=True, text=True)
    doc = json.loads(done.stdout)                          # the lines went to stderr
    assert doc["tool"] == "mmreplay" and doc["traces"][0]["outcome"] == "ok" and "clean" in done.stderr
    # fd:1 is stdout too: the table went there as well, before the JSON, as mdriver's does not.
    one = subprocess.run([str(replay("best")), "-f", str(trace), "--json", "fd:1"], capture_output=True, text=True)
    assert one.returncode == 0, one.stderr
    assert json.loads(one.stdout)["traces"][0]["outcome"] == "ok" and "clean" in one.stderr
    assert "fd:N" in helped.stdout


def test_a_table_that_cannot_be_written_is_a_failure(tmp_path):
    """`mmreplay -f t.rep > /dev/full` exited 0 with the table lost."""
    trace = write_trace(tmp_path, "clean", CLEAN, weight=1)
    for args in (["-f", str(trace)], ["-h"]):
        with open("/dev/full", "w") as full:
            done = subprocess.run([str(replay("best")), *args], stdout=full, stderr=subprocess.PIPE, text=True)
        assert done.returncode == 2
        assert done.stderr.splitlines()[-1] == "mmreplay: stdout: write failed: No space left on device"


def test_best_fills_a_large_heap_to_alloc_failed_in_linear_time(tmp_path):
    """Three 64 MiB blocks, then 16-byte requests until the 256 MiB heap is full.  Runs of
    16-byte slots leave thousands of equal 992-byte holes in one range class, and best fit
    walked them all per request once the heap stopped growing: the trace timed out (97 s of
    work).  It must end as the full heap it is, alloc_failed, well inside -T 60."""
    small = 3_200_000              # more than fit: about 2.1 million do
    path = tmp_path / "fill.rep"
    with path.open("w") as out:
        out.write(f"20000\n{small + 3}\n{small + 3}\n0\n")
        out.writelines(f"a {i} {64 << 20}\n" for i in range(3))
        out.writelines(f"a {i} 16\n" for i in range(3, small + 3))
    done, doc = run_replay(replay("best"), "-M", "256M", "-T", "60", "-f", path, tmp=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    fill = by_name(doc)["fill"]
    assert fill["outcome"] == "alloc_failed", fill["message"]


def test_a_replay_where_no_trace_scores_utilization_has_none_in_the_json(tmp_path):
    """Its table said '(no trace scores utilization)' while its JSON gave a utilization of 0."""
    w0 = write_trace(tmp_path, "w0", CLEAN, weight=0)
    done, doc = run_replay(replay("best"), "-f", w0, tmp=tmp_path)
    assert done.returncode == 0 and "(no trace scores utilization)" in done.stdout, done.stdout + done.stderr
    assert doc["summary"]["utilization"] is None

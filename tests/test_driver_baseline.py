"""The libc baseline is measured in the run, with the allocator's own method; a
cached one is used only when asked, and the output says where and when it was taken."""
from __future__ import annotations

import gzip
import os
import subprocess
import sys

import pytest

from conftest import KIT
from driver_common import kbest, run, variant, write_trace


EXPECTED = "cannot read this line (expected: trace NAME OPS FINGERPRINT SECONDS)"
HEAD = "mdriver-baseline 3\nmachine m | cpu\ndate 2026-01-01T00:00:00Z\nalignment 16\n"


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
    assert lines[:4] == ["mdriver-baseline 3", f"machine {m['hostname']} | {m['cpu']}", f"date {m['date']}",
                         "alignment 16"]
    timed = {line.split()[1]: float(line.split()[4]) for line in lines if line.startswith("trace ")}
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
        assert "page_faults" not in cached.trace(name)["libc"] and "page_faults" in saved.trace(name)["libc"]
    assert cached.summary["throughput_ratio"] is not None


def test_baseline_without_a_trace_is_an_error(tmp_path, driver):
    cache = tmp_path / "libc.baseline"
    assert run(driver, "--save-baseline", cache, "-f", small(tmp_path), tmp=tmp_path).rc == 0
    r = run(driver, "--baseline", cache, "-f", small(tmp_path), "-f", small(tmp_path, "other"), tmp=tmp_path)
    assert r.rc == 2
    assert r.err == f"mdriver: {cache}:0: no timing for trace other (taken on other traces?)\n"
    assert r.out == "" and r.doc is None  # found before any trace ran: no table, no Perf index, no JSON


@pytest.mark.parametrize("content,fragment", [
    ("not a baseline\n", ":1: not an mdriver baseline file"),
    ("mdriver-baseline 3\nalignment 8\ntrace small 5 {FP} 0.001\n", ":2: the baseline was taken with 8-byte alignment"),
    ("mdriver-baseline 3\nwhat is this\n", ":2: cannot read this line"),
    ("mdriver-baseline 3\ntrace small 5\n", f":2: {EXPECTED}"),
    ("mdriver-baseline 3\ntrace small 5 0.001\n", f":2: {EXPECTED}"),     # version 2's line
    ("mdriver-baseline 3\ntrace small 5 {FP} -1\n", f":2: {EXPECTED}"),
    # seconds a timing cannot have: 0 and NaN divide into nothing, past 1e9 s (inf) is no measurement
    ("mdriver-baseline 3\ntrace small 5 {FP} 0\n", f":2: {EXPECTED}"),
    ("mdriver-baseline 3\ntrace small 5 {FP} nan\n", f":2: {EXPECTED}"),
    ("mdriver-baseline 3\ntrace small 5 {FP} 1e10\n", f":2: {EXPECTED}"),
    ("mdriver-baseline 3\ntrace small 5 {FP} inf\n", f":2: {EXPECTED}"),
    # under a nanosecond no replay takes (a sample has microseconds of wake-ups): 1e-320 was
    # taken, and the table showed libc at "inf" Kops and the trace's ratio as 0.00
    ("mdriver-baseline 3\ntrace small 5 {FP} 1e-320\n", f":2: {EXPECTED}"),
    ("mdriver-baseline 3\ntrace small 5 {FP} 1e-10\n", f":2: {EXPECTED}"),
    ("mdriver-baseline 3\ntrace small 5 12ab 0.001\n", f":2: {EXPECTED}"),   # 16 hex digits
    ("mdriver-baseline 3\ntrace small 5 +0000000000012ab 0.001\n", f":2: {EXPECTED}"),
    ("mdriver-baseline 3\ntrace small 5 00000000000012ag 0.001\n", f":2: {EXPECTED}"),
    ("mdriver-baseline 3\ntrace small -5 {FP} 0.001\n", f":2: {EXPECTED}"),
    ("mdriver-baseline 1\nalignment 16\ntrace small 5 0.001\n",
     ":1: an older mdriver's baseline, whose libc timings paid for page faults this driver's do not"),
    ("mdriver-baseline 2\nalignment 16\ntrace small 5 0.001\n",
     ":1: an older mdriver's baseline, which knows a trace only by its name and op count, not its ops: "
     "time libc again, or save a new baseline with --save-baseline"),
    ("", ":0: the baseline is empty"),
    # What an interrupted save or `head -c` leaves: the last timing may be cut short (4.2113 of 4.2113e-05).
    (HEAD + "trace small 5 {FP} 4.2113", ":5: the line does not end (a baseline cut short"),
    # A NUL byte was taken for the line's end: "the line does not end (a baseline cut short ...)".
    (HEAD + "trace sm\0all 5 {FP} 0.001\n", ":5: the line holds a NUL byte (a baseline is text)\n"),
    ("mdriver-baseline 3\0\n" + HEAD[19:], ":1: the line holds a NUL byte (a baseline is text)\n"),
    ("mdriver-baseline 3\ntrace small 5 {FP} 0.001\n", ":2: a trace line before the machine, date and alignment lines"),
    (HEAD.replace("alignment 16\n", "") + "trace small 5 {FP} 0.001\n",
     ":4: a trace line before the machine, date and alignment lines"),
    ("mdriver-baseline 3\n", ":1: no machine line (--save-baseline writes machine, date and alignment lines)"),
    (HEAD + "alignment 16\n", ":5: a second alignment line (the first is line 4)"),
    (HEAD.replace("alignment 16", "alignment 16x"), ":4: cannot read this line"),
    # sscanf's %d wrapped these: "taken with -1-byte alignment", "with -16-byte alignment"
    (HEAD.replace("alignment 16", "alignment 99999999999999999999"), ":4: cannot read this line\n"),
    (HEAD.replace("alignment 16", "alignment -16"), ":4: cannot read this line\n"),
    (HEAD.replace("alignment 16", "alignment 4294967312"), ":4: the baseline was taken with 4294967312-byte "
     "alignment, this driver uses 16"),
    (HEAD + "trace small 5 {FP} 0.001\ntrace small 6 {FP} 0.000001\n",
     ":6: a second timing for trace small (the first is line 5)"),
])
def test_damaged_baseline(tmp_path, driver, content, fragment):
    """Reported in one line before any trace runs (it used to come after all of them,
    under a Perf index with no throughput)."""
    cache = tmp_path / "bad.baseline"
    cache.write_text(content.replace("{FP}", "0123456789abcdef"))
    r = run(driver, "--baseline", cache, "-f", small(tmp_path), tmp=tmp_path)
    assert r.rc == 2
    assert r.err.startswith(f"mdriver: {cache}{fragment}") and r.err.count("\n") == 1
    assert r.out == "" and r.doc is None


def test_trace_names_with_spaces_round_trip(tmp_path, driver):
    """`mdriver -f "my trace.rep" --save-baseline F` wrote `trace my trace 5 ...`, which --baseline F could not read."""
    cache = tmp_path / "sp.baseline"
    spaced = write_trace(tmp_path, "my  trace", ["a 0 64", "a 1 128", "f 0", "r 1 512", "f 1"], weight=1)
    saved = run(driver, "--save-baseline", cache, "-f", spaced, tmp=tmp_path)
    assert saved.rc == 0, saved.err
    assert cache.read_text().splitlines()[4].startswith("trace my  trace 5 ")
    cached = run(driver, "--baseline", cache, "-f", spaced, tmp=tmp_path)
    assert cached.rc == 0, cached.err
    t = cached.trace("my  trace")
    assert t["libc"]["seconds"] == pytest.approx(saved.trace("my  trace")["libc"]["seconds"], rel=1e-6)
    assert cached.summary["throughput_ratio"] is not None


def test_trace_names_with_control_characters_round_trip(tmp_path, driver):
    """A trace file named new<LF>line.rep was saved as `trace new` and `line 5 ...`, two lines
    that --baseline refused (exit 2): the saved run's timings were lost.  Names are kept as the
    table shows them, escaped."""
    cache = tmp_path / "cc.baseline"
    ops = ["a 0 64", "a 1 128", "f 0", "r 1 512", "f 1"]
    odd = [write_trace(tmp_path, name, ops, weight=1) for name in ("new\nline", "tab\there")]
    args = [a for t in odd for a in ("-f", t)]
    saved = run(driver, "--save-baseline", cache, *args, tmp=tmp_path)
    assert saved.rc == 0, saved.err
    lines = cache.read_text().splitlines()[4:]
    assert [line.rsplit(" ", 3)[0] for line in lines] == ["trace new\\nline", "trace tab\\there"], lines
    cached = run(driver, "--baseline", cache, *args, tmp=tmp_path)
    assert cached.rc == 0, cached.err
    for name in ("new\nline", "tab\there"):
        assert cached.trace(name)["libc"]["seconds"] == pytest.approx(saved.trace(name)["libc"]["seconds"], rel=1e-6)


def test_traces_that_are_not_timed_need_no_baseline(tmp_path, driver):
    """A utilization-only trace has no libc timing to save, so none is asked of the baseline."""
    cache = tmp_path / "libc.baseline"
    util_only = write_trace(tmp_path, "u", ["a 0 64", "f 0"], weight=2)
    assert run(driver, "--save-baseline", cache, "-f", small(tmp_path), "-f", util_only, tmp=tmp_path).rc == 0
    r = run(driver, "--baseline", cache, "-f", small(tmp_path), "-f", util_only, tmp=tmp_path)
    assert r.rc == 0, r.err
    assert r.trace("u")["outcome"] == "ok" and r.summary["throughput_ratio"] is not None


def test_missing_baseline_file(tmp_path, driver):
    r = run(driver, "--baseline", tmp_path / "nope", "-f", small(tmp_path), tmp=tmp_path)
    assert r.rc == 2 and r.out == ""
    assert f"{tmp_path / 'nope'}:0: cannot open the baseline" in r.err


def test_baseline_that_is_a_named_pipe(tmp_path, driver):
    import os
    os.mkfifo(tmp_path / "fifo")
    r = run(driver, "--baseline", tmp_path / "fifo", "-f", small(tmp_path), tmp=tmp_path, timeout=30)
    assert r.rc == 2 and r.out == ""
    assert r.err == f"mdriver: {tmp_path / 'fifo'}:0: cannot open the baseline: not a regular file\n"


@pytest.fixture(scope="module")
def mmapped_frees(tmp_path_factory):
    """A preloadable free() that logs every block glibc had mmapped (tests/c/libc)."""
    out = tmp_path_factory.mktemp("shim") / "mmapped-frees.so"
    subprocess.run(["cc", "-std=gnu11", "-O1", "-Wall", "-Wextra", "-Werror", "-shared", "-fPIC", "-o", str(out),
                    str(KIT / "tests" / "c" / "libc" / "mmapped-frees.c")], check=True)
    return out


def frees_logged(driver, shim, tmp, *files):
    log = tmp / f"frees-{len(list(tmp.glob('frees-*')))}.log"
    env = dict(os.environ, LD_PRELOAD=str(shim), MMAPPED_FREES_LOG=str(log))
    r = run(driver, *[a for f in files for a in ("-f", f)], "-r", "1", tmp=tmp, env=env)
    assert r.rc == 0, r.out + r.err
    return log.read_text().splitlines() if log.exists() else []


def test_libc_heap_is_not_retuned_by_the_driver(tmp_path, mmapped_frees):
    """glibc raises its mmap and trim thresholds when a block it mmapped is freed, and
    children inherit that: a driver freeing its own large arrays made classic-binary's
    libc 2.7x faster after rec-gcc than alone.  The driver must free no such block,
    in the parent or in a trace's child, so each trace's libc starts as a fresh process's;
    and libc's child keeps the memory it gets, so its replay mmaps (and frees) none either."""
    best = variant("best")
    n = 40000  # the driver's per-op and per-id arrays are far above glibc's 128 KiB mmap threshold
    ops = [f"a {i} {16 + i % 200}" for i in range(n)] + [f"f {i}" for i in range(n)]
    plain = write_trace(tmp_path, "many", ops, weight=1)
    packed = tmp_path / "many-gz.rep.gz"
    packed.write_bytes(gzip.compress(plain.read_bytes()))
    again = tmp_path / "many-again.rep"   # a copy: the same file twice is refused
    again.write_bytes(plain.read_bytes())
    assert frees_logged(best, mmapped_frees, tmp_path, plain, packed, again) == []
    big = write_trace(tmp_path, "big", ["a 0 300000", "f 0"], weight=1)
    assert frees_logged(best, mmapped_frees, tmp_path, big) == []
    # The shim sees such frees where glibc mmaps: a 300 KB block of Python's.
    log = tmp_path / "python.log"
    subprocess.run([sys.executable, "-c", "b = bytearray(300000); del b"], check=True,
                   env=dict(os.environ, LD_PRELOAD=str(mmapped_frees), MMAPPED_FREES_LOG=str(log)))
    assert log.exists() and any(int(line.split()[1]) >= 300000 for line in log.read_text().splitlines())


def test_timed_runs_replay_on_memory_already_mapped(tmp_path):
    """The allocator's timed runs take no page fault (its heap's pages stay resident between
    runs), and neither do libc's after its first: with glibc's defaults each run mmapped and
    unmapped the large blocks again (large-churn: 2,961 faults a run), and libc's time on such a
    trace was mostly the kernel's."""
    ops = []
    for _ in range(3):
        ops += [f"a {i} {100_000 + 37_000 * i}" for i in range(20)] + [f"f {i}" for i in range(20)]
    r = run(variant("segregated"), "-f", write_trace(tmp_path, "big-blocks", ops, weight=3), tmp=tmp_path)
    assert r.rc == 0, r.err
    t = r.trace("big-blocks")
    libc, mm = t["libc"]["page_faults"], t["timing"]["page_faults"]
    assert len(libc) == len(t["libc"]["samples"]) >= 5 and len(mm) == len(t["timing"]["samples"]) >= 5
    assert libc[0] >= 20                      # a page at least for each block in the first run ...
    assert libc[1:] == [0] * (len(libc) - 1)  # ... and the same pages again in the others
    assert mm == [0] * len(mm)


def test_trace_from_a_pipe_with_a_baseline(tmp_path, driver):
    """`cat t.rep | mdriver -f /dev/stdin --baseline F`: the baseline's check read the pipe
    before the run, which then found it empty (a bad_trace, "found 0").  It is read once."""
    cache = tmp_path / "pipe.baseline"
    text = small(tmp_path).read_text()
    saved = run(driver, "-r", "1", "-f", "/dev/stdin", "--save-baseline", cache, input=text, tmp=tmp_path)
    assert saved.rc == 0, saved.err
    cached = run(driver, "-r", "1", "-f", "/dev/stdin", "--baseline", cache, input=text, tmp=tmp_path)
    assert cached.rc == 0, cached.err
    t = cached.trace("stdin")
    assert t["outcome"] == "ok" and t["ops"] == 5 and len(t["libc"]["samples"]) == 1
    assert t["libc"]["seconds"] == pytest.approx(saved.trace("stdin")["libc"]["seconds"], rel=1e-6)
    # A broken trace from a pipe is still reported once, at its turn, as what it is.
    bad = run(driver, "-r", "1", "-f", "/dev/stdin", "--baseline", cache, input="1\n2\n", tmp=tmp_path)
    assert bad.rc == 2 and bad.trace("stdin")["outcome"] == "bad_trace"
    assert bad.err.count("/dev/stdin:") == 1 and "found 2" in bad.err, bad.err


def test_baseline_is_saved_whole_or_not_at_all(tmp_path, driver):
    """--save-baseline wrote its file in place: a save cut short left a truncated baseline,
    which --baseline then read.  It is written beside and renamed in: a second name for the
    earlier file keeps the earlier content, and no temporary file stays.  A copy of a trace run
    beside it is saved under a name of its own (the reader refuses a second timing of one name)."""
    cache = tmp_path / "libc.baseline"
    assert run(driver, "-r", "1", "--save-baseline", cache, "-f", small(tmp_path), tmp=tmp_path).rc == 0
    earlier = cache.read_text()
    os.link(cache, tmp_path / "alias")
    (tmp_path / "copy").mkdir()   # the same trace twice: one file may not be given twice, a copy may
    again = run(driver, "-r", "1", "--save-baseline", cache, "-f", small(tmp_path), "-f", small(tmp_path / "copy"),
                tmp=tmp_path)
    assert again.rc == 0, again.err
    assert (tmp_path / "alias").read_text() == earlier and cache.read_text() != earlier
    assert [line.split()[1] for line in cache.read_text().splitlines() if line.startswith("trace ")] == \
        [f"{tmp_path.name}/small", "copy/small"]
    assert sorted(p.name for p in tmp_path.iterdir() if "libc.baseline" in p.name) == ["libc.baseline"]
    assert oct(cache.stat().st_mode & 0o777) == oct(0o666 & ~current_umask())
    assert run(driver, "-r", "1", "--baseline", cache, "-f", small(tmp_path), "-f", small(tmp_path / "copy"),
               tmp=tmp_path).rc == 0


def current_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_traces_of_one_name_in_two_folders_keep_their_own_timings(tmp_path, driver):
    """a/x.rep and b/x.rep were both "x": --save-baseline kept the first one's timing only, and
    --baseline gave it to both, or a baseline of one of them to the other.  Named a/x and b/x, each
    has its own line and gets its own timing back; a baseline of a lone x matches neither."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    ax = write_trace(tmp_path / "a", "x", [f"a {i} {16 + i}" for i in range(50)] + [f"f {i}" for i in range(50)],
                     weight=1)
    bx = write_trace(tmp_path / "b", "x", [f"a 0 {4096 * (i + 1)}" if i % 2 == 0 else "f 0" for i in range(100)],
                     weight=1)
    files = ["-f", ax, "-f", bx]
    cache = tmp_path / "both.baseline"
    saved = run(driver, "--save-baseline", cache, *files, tmp=tmp_path)
    assert saved.rc == 0, saved.out + saved.err
    timed = {line.split()[1]: (int(line.split()[2]), float(line.split()[4]))
             for line in cache.read_text().splitlines() if line.startswith("trace ")}
    assert timed == {"a/x": (100, pytest.approx(saved.trace("a/x")["libc"]["seconds"], rel=1e-6)),
                     "b/x": (100, pytest.approx(saved.trace("b/x")["libc"]["seconds"], rel=1e-6))}
    cached = run(driver, "--baseline", cache, *files, tmp=tmp_path)
    assert cached.rc == 0, cached.out + cached.err
    for name in ("a/x", "b/x"):
        assert cached.trace(name)["libc"]["seconds"] == pytest.approx(timed[name][1], rel=1e-6)

    alone = tmp_path / "a.baseline"
    assert run(driver, "--save-baseline", alone, "-f", ax, tmp=tmp_path).rc == 0
    r = run(driver, "--baseline", alone, *files, tmp=tmp_path)
    assert r.rc == 2 and r.out == "" and r.doc is None
    assert r.err == f"mdriver: {alone}:0: no timing for trace a/x (taken on other traces?)\n"


SMALL_OPS = ["a 0 64", "a 1 128", "f 0", "r 1 512", "f 1"]


@pytest.mark.parametrize("edited,why", [
    (["a 0 64", "a 1 128", "f 0", "r 1 513", "f 1"], "(5 then, 5 now, but not the same ones)"),   # a size
    (["a 0 64", "a 2 128", "f 0", "r 2 512", "f 2"], "(5 then, 5 now, but not the same ones)"),   # an id
    (["a 0 64", "a 1 128", "f 0", "a 2 512", "f 1"], "(5 then, 5 now, but not the same ones)"),   # a kind
    (["a 0 64", "f 0", "a 1 128", "r 1 512", "f 1"], "(5 then, 5 now, but not the same ones)"),   # the order
    (SMALL_OPS + ["a 0 8"], "(5 then, 6 now)"),
])
def test_a_trace_edited_under_its_name_is_not_timed_by_its_old_self(tmp_path, driver, edited, why):
    """A baseline knew a trace by its name and op count: a trace regenerated or edited in place
    (other sizes, the same count) was scored against libc's timing of the old one.  Each timing
    now keeps a digest of the ops it was taken of, and any change of an op refuses it."""
    cache = tmp_path / "libc.baseline"
    assert run(driver, "--save-baseline", cache, "-f", small(tmp_path), tmp=tmp_path).rc == 0
    write_trace(tmp_path, "small", edited, weight=1)
    r = run(driver, "--baseline", cache, "-f", tmp_path / "small.rep", tmp=tmp_path)
    assert r.rc == 2 and r.out == "" and r.doc is None
    assert r.err == (f"mdriver: {cache}:5: the timing for trace small was taken of other ops {why}: the trace "
                     "changed since; save a new baseline with --save-baseline\n")


def test_what_libc_time_does_not_depend_on_keeps_the_timing(tmp_path, driver):
    """The digest is of the ops alone: comments, the header's order and heap hint, and the
    file being gzipped leave the timing valid."""
    cache = tmp_path / "libc.baseline"
    assert run(driver, "--save-baseline", cache, "-f", small(tmp_path), tmp=tmp_path).rc == 0
    saved = float(cache.read_text().splitlines()[4].split()[4])
    other = tmp_path / "other"
    other.mkdir()
    lab64 = write_trace(other, "small", SMALL_OPS, weight=1, order="lab64")
    lab64.write_text("# NAME: small\n# a comment\n" + lab64.read_text())
    zipped = other / "small.rep.gz"
    zipped.write_bytes(gzip.compress(lab64.read_bytes()))
    lab64.unlink()
    r = run(driver, "--baseline", cache, "-f", zipped, tmp=tmp_path)
    assert r.rc == 0, r.err
    assert r.trace("small")["libc"]["seconds"] == pytest.approx(saved, rel=1e-6)


def test_a_saved_timing_comes_back_as_the_json_gave_it(tmp_path, driver):
    """The baseline keeps libc's estimate to the JSON's nine digits, so a cached run gives back
    exactly the figure the saving run reported.  Every test compared them to a millionth, and a
    baseline written to seven digits passed."""
    cache = tmp_path / "libc.baseline"
    files = ["-f", small(tmp_path), "-f", large(tmp_path)]
    saved = run(driver, "--save-baseline", cache, *files, tmp=tmp_path)
    assert saved.rc == 0, saved.err
    cached = run(driver, "--baseline", cache, *files, tmp=tmp_path)
    assert cached.rc == 0, cached.err
    for name in ("small", "large"):
        assert cached.trace(name)["libc"]["seconds"] == saved.trace(name)["libc"]["seconds"], name


def test_two_names_shown_alike_are_saved_once(tmp_path, driver):
    """a<LF>b and a\\nb are both kept as `a\\nb`: the first one's timing is saved, the second left
    out, so that the file reads back (a second line for one name is refused).  Saving both left
    every test passing."""
    cache = tmp_path / "alike.baseline"
    files = ["-f", write_trace(tmp_path, "a\nb", ["a 0 64", "f 0"], weight=1),
             "-f", write_trace(tmp_path, "a\\nb", ["a 0 32", "a 1 32", "f 0"], weight=1)]
    saved = run(driver, "-r", "3", "--save-baseline", cache, *files, tmp=tmp_path)
    assert saved.rc == 0, saved.err
    first = saved.trace("a\nb")["libc"]["seconds"]
    kept = [line.split() for line in cache.read_text().splitlines() if line.startswith("trace ")]
    assert kept == [["trace", "a\\nb", "2", kept[0][3], f"{first:.9g}"]]
    again = run(driver, "-r", "3", "--baseline", cache, "-f", files[1], tmp=tmp_path)
    assert again.rc == 0, again.err
    assert again.trace("a\nb")["libc"]["seconds"] == first


def test_a_name_shown_alike_to_an_untimed_trace_keeps_its_timing(tmp_path, driver):
    """Only a timing saved before stands in the way: after an untimed a<LF>b (utilization only), a
    timed a\\nb is saved.  Leaving out any name met before, timed or not, left every test passing."""
    cache = tmp_path / "alike.baseline"
    files = ["-f", write_trace(tmp_path, "a\nb", ["a 0 64", "f 0"], weight=2),
             "-f", write_trace(tmp_path, "a\\nb", ["a 0 32", "a 1 32", "f 0"], weight=1)]
    saved = run(driver, "-r", "3", "--save-baseline", cache, *files, tmp=tmp_path)
    assert saved.rc == 0, saved.err
    kept = [line.split()[1:3] for line in cache.read_text().splitlines() if line.startswith("trace ")]
    assert kept == [["a\\nb", "3"]]

"""Trace files: every malformed case is `FILE:LINE: what` on stderr, outcome
bad_trace, the other traces still run, exit 2; and the format's features
(gzip, the 64-bit lab's header order, comments, weights, `n` and `r id 0`).
"""
from __future__ import annotations

import gzip
import random
import subprocess
from pathlib import Path

import pytest

from driver_common import run, variant, write_trace

HEADER = "20000\n2\n{ops}\n0\n"  # classic order: suggested heap, ids, ops, weight


def good(tmp: Path, name: str = "good") -> Path:
    return write_trace(tmp, name, ["a 0 10", "a 1 20", "f 0", "r 1 40", "f 1"])


def junk() -> bytes:
    rng = random.Random(1234)
    return bytes(rng.randrange(256) for _ in range(400)).replace(b"\n", b"\x00")


# (case id, file name, bytes or None to not create it, line, message fragment)
MALFORMED = [
    ("bad-op-letter", "t.rep", HEADER.format(ops=2) + "a 0 16\nx 1 5\n", 6,
     "bad token 'x': expected an op (a, f, r or n)"),
    ("bad-size-token", "t.rep", HEADER.format(ops=1) + "a 0 1x6\n", 5, "bad token '1x6': size must be a non-negative integer"),
    ("negative-size", "t.rep", HEADER.format(ops=1) + "a 0 -5\n", 5, "bad token '-5'"),
    ("bad-header-token", "t.rep", "20000\ntwo\n1\n0\na 0 1\n", 2, "bad token 'two': the number of ids must be"),
    ("trailing-token", "t.rep", HEADER.format(ops=1) + "a 0 16 zz\n", 5, "unexpected 'zz' after the op"),
    ("id-out-of-range", "t.rep", HEADER.format(ops=1) + "a 5 16\n", 5, "id 5 out of range (the header declares 2 ids)"),
    # Past 2^32 the message named uint32's limit, "(at most 4294967295)", not the header's.
    ("id-past-uint32", "t.rep", HEADER.format(ops=1) + "a 99999999999 16\n", 5,
     "id 99999999999 out of range (the header declares 2 ids)"),
    ("id-past-2^64", "t.rep", HEADER.format(ops=1) + "f 99999999999999999999999\n", 5,
     "id 99999999999999999999999 out of range (the header declares 2 ids)"),
    ("free-not-live", "t.rep", HEADER.format(ops=2) + "a 0 16\nf 1\n", 6, "free of id 1, which is not allocated"),
    ("free-twice", "t.rep", HEADER.format(ops=3) + "a 0 16\nf 0\nf 0\n", 7, "free of id 0, which is not allocated"),
    ("realloc-not-live", "t.rep", HEADER.format(ops=1) + "r 1 5\n", 5, "realloc of id 1, which is not allocated"),
    ("realloc-after-r0", "t.rep", HEADER.format(ops=3) + "a 0 8\nr 0 0\nr 0 8\n", 7,
     "realloc of id 0, which is not allocated"),
    ("alloc-live", "t.rep", HEADER.format(ops=2) + "a 0 16\na 0 16\n", 6, "id 0 is already allocated"),
    ("n-of-live", "t.rep", HEADER.format(ops=2) + "a 0 16\nn 0 16\n", 6, "id 0 is already allocated"),
    ("fewer-ops", "t.rep", HEADER.format(ops=3) + "a 0 16\nf 0\n", 7, "the header says 3 ops but the file has 2"),
    ("more-ops", "t.rep", HEADER.format(ops=1) + "a 0 16\nf 0\n", 7, "the header says 1 ops but the file has 2"),
    ("size-over-the-heap", "t.rep", HEADER.format(ops=1) + "a 0 99999999\n", 5,
     "size 99999999 cannot fit in the heap: this run's maximum heap is 20971520 bytes (-M)"),
    ("size-overflow", "t.rep", HEADER.format(ops=1) + "a 0 99999999999999999999999\n", 5,
     "size 99999999999999999999999 cannot fit in the heap: no heap the driver can make holds it"),
    ("weight-out-of-range", "t.rep", "20000\n2\n1\n9\na 0 1\n", 4, "weight 9 out of range"),
    ("truncated-header", "t.rep", "20000\n2\n", 3, "truncated: the header needs 4 numbers, found 2"),
    ("truncated-op", "t.rep", HEADER.format(ops=1) + "a 0", 5, "truncated: size missing"),
    ("truncated-op-id", "t.rep", HEADER.format(ops=1) + "f\n", 5, "truncated: id missing"),
    ("binary-junk", "t.rep", junk(), 1, "binary data"),
    # A NUL (or other byte no trace holds) inside a token was shown as '?': "bad token '1??'".
    ("binary-in-op", "t.rep", HEADER.format(ops=1).encode() + b"a 0 1\x00\x02\n", 5,
     "binary data (byte 0x00): not a trace file"),
    ("nul-after-op-letter", "t.rep", HEADER.format(ops=1).encode() + b"a\x00 0 1\n", 5,
     "binary data (byte 0x00): not a trace file"),
    ("nul-in-header", "t.rep", b"20000\n2\x00\n1\n0\na 0 1\n", 2, "binary data (byte 0x00): not a trace file"),
    ("nul-after-the-op", "t.rep", HEADER.format(ops=1).encode() + b"a 0 1 x\x00\n", 5,
     "binary data (byte 0x00): not a trace file"),
    ("utf8-in-size", "t.rep", HEADER.format(ops=1) + "a 0 1\u00e9\n", 5, "binary data (byte 0xc3): not a trace file"),
    ("empty-file", "t.rep", "", 1, "truncated: the header needs 4 numbers, found 0"),
    ("missing-file", "t.rep", None, 0, "cannot open: No such file or directory"),
    ("not-gzip", "t.rep.gz", b"\x1f\x8b" + b"not really gzip" * 4, 0, "not a valid gzip file"),
]


@pytest.mark.parametrize("case,fname,content,line,fragment", MALFORMED, ids=[c[0] for c in MALFORMED])
def test_malformed_trace(tmp_path, driver, case, fname, content, line, fragment):
    bad = tmp_path / fname
    if isinstance(content, str):
        bad.write_text(content)
    elif isinstance(content, bytes):
        bad.write_bytes(content)
    r = run(driver, "-f", good(tmp_path, "first"), "-f", bad, "-f", good(tmp_path, "last"), tmp=tmp_path)
    assert r.rc == 2, r.out + r.err
    expected = f"{bad}:{line}: "
    err_lines = [x for x in r.err.splitlines() if x.startswith(f"mdriver: {expected}")]
    assert len(err_lines) == 1 and fragment in err_lines[0], r.err
    name = fname.split(".")[0]
    t = r.trace(name)
    assert t["outcome"] == "bad_trace"
    assert t["message"].startswith(expected) and fragment in t["message"]
    assert t["op_index"] is None and t["op"] is None
    row, msg = r.row(name)
    assert row.split()[2] == "bad_trace" and msg.strip() == t["message"]
    assert r.trace("first")["outcome"] == r.trace("last")["outcome"] == "ok"
    assert (r.summary["valid"], r.summary["failed"], r.summary["bad_traces"]) == (2, 0, 1)
    assert "1 trace file(s) could not be run (malformed, or too big for the -M heap) and were left out of the score." \
        in r.out
    assert "Traceback" not in r.err + r.out


# (the file there, the path given, the path suggested or None)
MEANT = [("x.rep", "x", "x.rep"), ("x.rep.gz", "x", "x.rep.gz"), ("x.rep.gz", "x.rep", "x.rep.gz"),
         ("x.rep", "x.rep.gz", "x.rep"), ("x.rep", "y", None), ("x", "x.rep", None)]


@pytest.mark.parametrize("there,given,meant", MEANT, ids=[f"{g}-for-{t}" for t, g, _ in MEANT])
def test_a_missing_trace_names_the_file_it_was_likely_meant_for(tmp_path, driver, there, given, meant):
    """`-f traces/classic-binary` said only that no such file exists, when traces/classic-binary.rep does."""
    ops = HEADER.format(ops=1) + "a 0 16\n"
    (tmp_path / there).write_bytes(gzip.compress(ops.encode()) if there.endswith(".gz") else ops.encode())
    r = run(driver, "-f", tmp_path / given, tmp=tmp_path)
    said = f"{tmp_path}/{given}:0: cannot open: No such file or directory" + \
        (f"; did you mean {tmp_path}/{meant}?" if meant else "")
    assert r.rc == 2 and r.err == f"mdriver: {said}\n", r.err
    assert r.doc["traces"][0]["message"] == said


def test_a_run_of_only_bad_traces_gives_no_perf_index(tmp_path, driver):
    """'Perf index = 0.0 ... = 0.0/100' was printed when no trace could be run: a score the
    allocator never earned nor lost; the classic -g lines stay as autograders read them."""
    bad = [write_trace(tmp_path, "bad1", ["x 0 8"]), tmp_path / "bad2.rep"]
    bad[1].write_text("junk\n")
    r = run(driver, "-g", *[a for b in bad for a in ("-f", b)], tmp=tmp_path)
    assert r.rc == 2 and r.summary["bad_traces"] == 2
    assert "\nPerf index: none: no trace could be run\n" in r.out and "Perf index =" not in r.out, r.out
    assert r.out.splitlines()[-2:] == ["correct:0", "perfidx:0"]
    assert [r.summary[k] for k in ("utilization", "util_points", "throughput_points", "perf_index")] == [None] * 4
    scored = write_trace(tmp_path, "scored", ["a 0 10", "f 0"], weight=1)
    one = run(driver, "-f", bad[0], "-f", scored, tmp=tmp_path)   # one that runs and scores: an index
    assert one.rc == 2 and "Perf index = " in one.out


def test_directory_given_as_a_trace(tmp_path, driver):
    folder = tmp_path / "dir.rep"
    folder.mkdir()
    r = run(driver, "-f", folder, "-f", good(tmp_path), tmp=tmp_path)
    assert r.rc == 2
    assert f"mdriver: {folder}:0: is a directory, not a trace" in r.err
    assert r.trace("dir")["outcome"] == "bad_trace" and r.trace("good")["outcome"] == "ok"


def test_device_given_as_a_trace(tmp_path, driver):
    """/dev/zero is endless binary junk: refused at once, not read until memory runs out."""
    r = run(driver, "-f", "/dev/zero", "-f", good(tmp_path), tmp=tmp_path, timeout=30)
    assert r.rc == 2
    assert "mdriver: /dev/zero:0: is a device, not a trace" in r.err
    assert r.trace("zero")["outcome"] == "bad_trace" and r.trace("good")["outcome"] == "ok"


def test_named_pipe_is_refused_at_once(tmp_path, driver):
    """A FIFO named like a trace, in a -t folder or given to -f, has no writer: opening
    it to read used to wait forever.  Refused with one line; the rest still runs."""
    import os
    folder = tmp_path / "fifo_dir"
    folder.mkdir()
    good(folder, "a")
    os.mkfifo(folder / "b.rep")
    line = f"mdriver: {folder / 'b.rep'}:0: is a named pipe (FIFO), not a trace file"
    for args in (["-t", folder], ["-f", folder / "b.rep", "-f", folder / "a.rep"]):
        r = run(driver, *args, tmp=tmp_path, timeout=30)
        assert r.rc == 2
        assert [l for l in r.err.splitlines() if l.startswith("mdriver: ")] == \
            [line + " (a trace is a regular file or a shell's pipe)"]
        assert r.trace("b")["outcome"] == "bad_trace" and r.trace("a")["outcome"] == "ok"
    done = run(driver, "--parse-only", "-f", folder / "b.rep", tmp=tmp_path, timeout=30, json_out=False)
    assert done.rc == 2 and line in done.err


def test_trace_from_a_pipe(tmp_path, driver):
    """A pipe (as from `-f <(zcat x.rep.gz)`) is read like a file."""
    import os
    read_end, write_end = os.pipe()
    os.write(write_end, good(tmp_path).read_bytes())
    os.close(write_end)
    try:
        r = run(driver, "-f", f"/dev/fd/{read_end}", tmp=tmp_path, pass_fds=(read_end,))
    finally:
        os.close(read_end)
    assert r.rc == 0, r.err
    assert r.doc["traces"][0]["outcome"] == "ok" and r.doc["traces"][0]["ops"] == 5


def test_gzip_trace_from_a_pipe(tmp_path, driver):
    """`-f <(gzip -c t.rep)`: a gzip stream through a pipe, which cannot be read twice,
    is unpacked as a gzip file is; a broken one is one line naming the pipe."""
    import os
    for payload, ok in ((gzip.compress(good(tmp_path).read_bytes()), True),
                        (b"\x1f\x8b" + b"not really gzip" * 4, False)):
        read_end, write_end = os.pipe()
        os.write(write_end, payload)
        os.close(write_end)
        try:
            r = run(driver, "-f", f"/dev/fd/{read_end}", tmp=tmp_path, pass_fds=(read_end,))
        finally:
            os.close(read_end)
        if ok:
            assert r.rc == 0, r.err
            assert r.doc["traces"][0]["outcome"] == "ok" and r.doc["traces"][0]["ops"] == 5
        else:
            assert r.rc == 2
            assert f"mdriver: /dev/fd/{read_end}:0: cannot read: not a valid gzip file" in r.err


def test_size_limit_follows_M(tmp_path, driver):
    """A request over -M: the heap is too small, and the message says so, not that the file is bad."""
    bad = write_trace(tmp_path, "big", ["a 0 2000000"])
    r = run(driver, "-M", "1M", "-f", bad, tmp=tmp_path)
    assert r.rc == 2
    said = (f"{bad}:5: size 2000000 cannot fit in the heap: this run's maximum heap is 1048576 bytes (-M); "
            "the trace needs a larger -M")
    assert f"mdriver: {said}" in r.err.splitlines()
    assert r.trace("big")["outcome"] == "bad_trace" and r.trace("big")["message"] == said
    assert "out of range" not in r.err
    assert run(driver, "-f", bad, tmp=tmp_path).rc == 0


def refused_alike(tmp_path, driver, bad, said, *args):
    """mdriver --parse-only refuses BAD in the one line SAID, and mmtrace check in the same words."""
    from mmtrace.linter import lint
    r = run(driver, "--parse-only", *args, "-f", bad, tmp=tmp_path, json_out=False)
    assert r.rc == 2 and r.err == f"mdriver: {said}\n", r.err
    assert [str(p) for p in lint(bad).errors] == [said]


@pytest.mark.parametrize("size", ["4294967297", "5000000000", "99999999999999999999"])
@pytest.mark.parametrize("heap", [None, "4G"])
def test_a_size_past_Ms_maximum_names_it(tmp_path, driver, size, heap):
    """A size past 2^64 was 'out of range (at most 18446744073709551615)', and one past 4G said
    'the trace needs a larger -M', though -M goes no higher than 4G (driver/heap.h HEAP_LIMIT):
    past it, whatever -M says, no heap holds it, in the same words as mmtrace check."""
    bad = write_trace(tmp_path, "huge", [f"a 0 {size}"])
    said = (f"{bad}:5: size {size} cannot fit in the heap: no heap the driver can make holds it "
            "(-M is at most 4294967296 bytes)")
    refused_alike(tmp_path, driver, bad, said, *(["-M", heap] if heap else []))


def test_a_size_of_Ms_maximum_needs_a_larger_M(tmp_path, driver):
    """4G itself fits the largest heap: below it, the advice of a larger -M holds."""
    fits = write_trace(tmp_path, "fits", ["a 0 4294967296"])
    r = run(driver, "--parse-only", "-f", fits, tmp=tmp_path, json_out=False)
    assert r.rc == 2 and r.err.endswith("(-M); the trace needs a larger -M\n"), r.err
    assert run(driver, "--parse-only", "-M", "4G", "-f", fits, tmp=tmp_path, json_out=False).rc == 0


def test_parse_only_reports_each_trace_and_fails_on_a_bad_one(tmp_path, driver):
    bad = tmp_path / "bad.rep"
    bad.write_text(HEADER.format(ops=1) + "f 0\n")
    r = run(driver, "--parse-only", "-f", good(tmp_path), "-f", bad, tmp=tmp_path, json_out=False)
    assert r.rc == 2
    assert f"{bad}:5: free of id 0, which is not allocated" in r.err
    names = [line.split()[0] for line in r.out.splitlines()]
    assert names == ["good", "total"]
    assert r.out.splitlines()[0].split()[1] == "5"  # ops parsed
    ok = run(driver, "--parse-only", "-f", good(tmp_path), tmp=tmp_path, json_out=False)
    assert ok.rc == 0


def test_a_long_path_keeps_the_line_and_the_reason(tmp_path, driver):
    """The message of a trace in a deep folder (a path of some 700 bytes) was cut at 511
    bytes, inside the path: no line, no reason, on stderr, in the table and in the JSON."""
    folder = tmp_path.joinpath(*["d" * 200] * 3)
    folder.mkdir(parents=True)
    bad = folder / "bad.rep"
    bad.write_text(HEADER.format(ops=1) + "a 0 1x6\n")
    said = f"{bad}:5: bad token '1x6': size must be a non-negative integer"
    assert len(str(bad)) > 600
    r = run(driver, "-f", good(tmp_path), "-f", bad, tmp=tmp_path)
    assert r.rc == 2
    assert [x for x in r.err.splitlines() if x.startswith("mdriver: ")] == [f"mdriver: {said}"], r.err
    assert r.trace("bad")["outcome"] == "bad_trace" and r.trace("bad")["message"] == said
    assert r.row("bad")[1].strip() == said and r.trace("good")["outcome"] == "ok"
    p = run(driver, "--parse-only", "-f", bad, tmp=tmp_path, json_out=False)
    assert p.rc == 2 and p.err == f"mdriver: {said}\n", p.err


@pytest.mark.parametrize("ids", ["99999999999999999999", "67108865"])
def test_too_many_ids_names_the_real_limit(tmp_path, driver, ids):
    """A header's id count past 2^64 was refused 'at most 18446744073709551615', though no header
    may declare more than 2^26 ids (driver/trace.c MAX_IDS): each side of 2^64 names the real
    limit, on the number's own line, in the same words as mmtrace check."""
    bad = tmp_path / "many.rep"
    bad.write_text(f"20000\n{ids}\n1\n1\na 0 8\n")
    said = f"{bad}:2: the number of ids {ids} out of range (at most 67108864)"
    refused_alike(tmp_path, driver, bad, said)


@pytest.mark.parametrize("weight, shown", [("9", "9"), ("0009", "9"), ("99999999999999999999", "99999999999999999999"),
                                           ("9" * 30, "9" * 24)])
def test_a_classic_weight_names_the_weights_range(tmp_path, driver, weight, shown):
    """A classic header's 4th number, its weight, past 2^64 was 'header field 4 N out of range (at
    most 18446744073709551615)', though a weight's limit is 3: it is refused as a weight of 9 is,
    and mmtrace check says the same (it said '(0..3)')."""
    bad = tmp_path / "heavy.rep"
    bad.write_text(f"20000\n1\n2\n{weight}\na 0 8\nf 0\n")
    said = f"{bad}:4: weight {shown} out of range (0 check only, 1 both, 2 utilization, 3 throughput)"
    refused_alike(tmp_path, driver, bad, said)


def test_a_lab64_fourth_number_is_no_weight(tmp_path, driver):
    """In the 64-bit lab's order the weight comes first and the 4th number is the peak bytes, read
    as any number: past 2^64 it is not called a weight, in the driver nor in mmtrace check."""
    bad = tmp_path / "peak.rep"
    bad.write_text("1\n1\n2\n99999999999999999999\na 0 8\nf 0\n")
    said = f"{bad}:4: header field 4 99999999999999999999 out of range (at most 18446744073709551615)"
    refused_alike(tmp_path, driver, bad, said)


# ------------------------------------------------------------ the format's features

def test_gzip_trace_read_directly(tmp_path, driver):
    plain = good(tmp_path, "zipped")
    packed = tmp_path / "zipped.rep.gz"
    packed.write_bytes(gzip.compress(plain.read_bytes()))
    plain.unlink()
    r = run(driver, "-f", packed, tmp=tmp_path)
    assert r.rc == 0, r.err
    t = r.trace("zipped")
    assert (t["outcome"], t["ops"], t["path"]) == ("ok", 5, str(packed))


def test_lab64_header_order(tmp_path, driver):
    """weight, ids, ops, peak bytes: told apart by a first number <= 3."""
    ops = ["a 0 10", "a 1 20", "f 0", "f 1"]
    for weight in (0, 1, 2, 3):
        path = write_trace(tmp_path, f"w{weight}", ops, weight=weight, order="lab64")
        assert path.read_text().splitlines()[:4] == [str(weight), "2", "4", "4096"]
    r = run(driver, "-t", tmp_path, tmp=tmp_path)
    assert r.rc == 0, r.err
    assert [t["weight"] for t in r.doc["traces"]] == [0, 1, 2, 3]
    assert all(t["ops"] == 4 for t in r.doc["traces"])


def test_comments_and_blank_lines_anywhere(tmp_path, driver):
    path = tmp_path / "commented.rep"
    path.write_text("# a trace with remarks\n\n20000   # suggested heap\n2\n\n# ops next\n5\n1\n"
                    "a 0 10   # first\n\n# between ops\na 1 20\n\tf 0\nr 1 40\r\nf 1\n\n# the end\n")
    r = run(driver, "-f", path, tmp=tmp_path)
    assert r.rc == 0, r.err
    assert r.trace("commented")["ops"] == 5 and r.trace("commented")["weight"] == 1


def test_realloc_null_and_realloc_to_zero(tmp_path, driver):
    """`n id size` makes id live; `r id 0` frees it so it can be allocated again."""
    ops = ["n 0 24", "r 0 48", "r 0 0", "a 0 8", "n 1 0", "f 1", "f 0"]
    r = run(driver, "-f", write_trace(tmp_path, "ext", ops, weight=2), tmp=tmp_path)
    assert r.rc == 0, r.err
    t = r.trace("ext")
    assert t["outcome"] == "ok"
    assert t["peak_payload"] == 48


def test_weights_choose_the_passes(tmp_path, driver):
    """0: correctness only; 1: utilization and throughput; 2: utilization; 3: throughput."""
    ops = ["a 0 100", "a 1 200", "f 0", "f 1"]
    files = []
    for weight in range(4):
        files += ["-f", write_trace(tmp_path, f"w{weight}", ops, weight=weight)]
    r = run(driver, *files, tmp=tmp_path)
    assert r.rc == 0, r.err
    has = {w: (r.trace(f"w{w}")["utilization"] is not None, r.trace(f"w{w}")["timing"] is not None,
               r.trace(f"w{w}")["libc"] is not None) for w in range(4)}
    assert has == {0: (False, False, False), 1: (True, True, True), 2: (True, False, False), 3: (False, True, True)}
    # Summary: utilization over weights 1 and 2, throughput over 1 and 3.
    u1, u2 = r.trace("w1")["utilization"], r.trace("w2")["utilization"]
    assert r.summary["utilization"] == pytest.approx((u1 + u2) / 2)
    t1, t3 = r.trace("w1"), r.trace("w3")
    mm_sec = t1["timing"]["seconds"] + t3["timing"]["seconds"]
    libc_sec = t1["libc"]["seconds"] + t3["libc"]["seconds"]
    assert r.summary["throughput_ratio"] == pytest.approx(libc_sec / mm_sec, rel=1e-6)


def test_weight_zero_alone_scores_nothing(tmp_path, driver):
    r = run(driver, "-f", write_trace(tmp_path, "w0", ["a 0 1", "f 0"], weight=0), tmp=tmp_path)
    assert r.rc == 0
    assert r.summary["valid"] == 1
    assert r.summary["throughput_ratio"] is None and r.summary["perf_index"] is None


def test_trace_directory_takes_rep_and_rep_gz_in_name_order(tmp_path, driver):
    folder = tmp_path / "suite"
    folder.mkdir()
    good(folder, "b")
    (folder / "a.rep.gz").write_bytes(gzip.compress(good(tmp_path, "x").read_bytes()))
    (folder / "notes.txt").write_text("not a trace")
    (folder / "c.rep.bak").write_text("not a trace either")
    r = run(driver, "-t", folder, tmp=tmp_path)
    assert r.rc == 0, r.err
    assert [t["name"] for t in r.doc["traces"]] == ["a", "b"]


def test_odd_file_names_round_trip_through_the_json(tmp_path, driver):
    """Quotes, backslashes, a tab and UTF-8 in a path: the JSON names the same file."""
    folder = tmp_path / 'we"ird\\dir-café'
    folder.mkdir()
    path = good(folder, 'a\\b"c\td-é')
    r = run(driver, "-f", path, tmp=tmp_path)
    assert r.rc == 0, r.err
    t = r.doc["traces"][0]
    assert t["path"] == str(path) and t["name"] == 'a\\b"c\td-é'


def test_last_line_without_a_newline(tmp_path, driver):
    path = tmp_path / "noeol.rep"
    path.write_text(HEADER.format(ops=2) + "a 0 16\nf 0")
    r = run(driver, "-f", path, tmp=tmp_path)
    assert r.rc == 0, r.err
    assert r.trace("noeol")["ops"] == 2


def decorated(line: str, rng: random.Random) -> str:
    """LINE as the format also allows it: other blanks, leading zeros, a comment, CRLF."""
    tokens = line.split()
    pick = rng.randrange(6)
    if pick == 0:
        return "\t" + "  ".join(tokens)
    if pick == 1:   # 10 and 11 digits, 19 and 20 digits: each side of the common line's widths
        return " ".join([tokens[0], tokens[1].zfill(rng.choice([10, 11])),
                         *[t.zfill(rng.choice([19, 20])) for t in tokens[2:]]])
    if pick == 2:
        return line + "#remark" if rng.random() < 0.5 else line + "  # remark"
    if pick == 3:
        return line + "\r"
    if pick == 4:
        return line + "\n\n# between ops"
    return line


def test_every_spelling_of_an_op_reads_the_same(tmp_path):
    """The parser's common-line fast path and its general path give the same ops: a random
    trace written plainly and with every spelling the format allows scores the same."""
    rng = random.Random(2026)
    live: dict[int, int] = {}
    ops = []
    for _ in range(4000):
        free_ids = [i for i in range(300) if i not in live]
        kind = rng.random()
        if live and kind < 0.35:
            ops.append(f"f {(i := rng.choice(list(live)))}")
            del live[i]
        elif live and kind < 0.5:
            i, size = rng.choice(list(live)), rng.choice([0, rng.randrange(1, 5000)])
            ops.append(f"r {i} {size}")
            if size:
                live[i] = size
            else:
                del live[i]
        elif free_ids:
            i, size = rng.choice(free_ids), rng.randrange(0, 5000)
            ops.append(f"{rng.choice('an')} {i} {size}")
            live[i] = size
    plain = write_trace(tmp_path, "plain", ops, weight=2, ids=300)
    lines = plain.read_text().splitlines()
    head, body = lines[:4], lines[4:]
    other = tmp_path / "spelled.rep"
    other.write_text("\n".join(head + [decorated(x, rng) for x in body]) + "\n")
    assert other.read_text().count("\n") > plain.read_text().count("\n")
    r = run(variant("segregated"), "-f", plain, "-f", other, tmp=tmp_path)
    assert r.rc == 0, r.err
    a, b = r.trace("plain"), r.trace("spelled")
    assert a["outcome"] == b["outcome"] == "ok"
    keys = ("ops", "peak_payload", "heap_high_water", "utilization")
    assert [a[k] for k in keys] == [b[k] for k in keys]
    assert a["ops"] == len(ops)


def test_a_utf8_trace_name_keeps_the_table_in_line(tmp_path, driver):
    """The name column is cut and padded by characters: byte counts had shifted a UTF-8 name's row."""
    names = ["plain", "café-ünïcode", "é" * 30]
    for name in names:
        good(tmp_path, name)
    r = run(driver, "-t", tmp_path, tmp=tmp_path)
    assert r.rc == 0, r.err
    rows = [line for line in r.out.splitlines() if line[:3].strip().isdigit()]
    assert len(rows) == 3
    assert {row.index(" ok ") for row in rows} == {5 + 22}              # the result column starts alike
    assert any(("é" * 10) + "\u2026" + ("é" * 11) + " ok " in row for row in rows)  # cut in the middle, none split


def _zeros_gz(path, total):
    """A gzip file of `total` zero bytes, written a chunk at a time (a few MB on disk)."""
    import zlib
    z = zlib.compressobj(1, zlib.DEFLATED, 31)
    chunk = bytes(1 << 20)
    with open(path, "wb") as f:
        for _ in range(total >> 20):
            f.write(z.compress(chunk))
        f.write(z.flush())
    return path


def test_a_gzip_bomb_is_refused_without_unpacking_it_whole(driver, tmp_path):
    """1 GB of zeros (4 MB packed) took 0.98 GB in mdriver before it was refused: what is read or
    unpacked now stops at the largest trace the driver takes (trace.h's TRACE_MAX_BYTES, 256 MiB)."""
    import sys
    bomb = _zeros_gz(tmp_path / "bomb.rep.gz", 1 << 30)
    limit = 256 << 20
    probe = ("import resource, subprocess, sys\n"
             "d = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
             "print(d.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
             "sys.stderr.write(d.stderr)\n")
    for args in (["-f", bomb], ["--parse-only", "-f", bomb]):
        done = subprocess.run([sys.executable, "-c", probe, str(driver), *map(str, args)], capture_output=True,
                              text=True, timeout=120)
        rc, rss_kb = map(int, done.stdout.split())
        assert rc == 2
        assert done.stderr == f"mdriver: {bomb}:0: unpacks to more than {limit} bytes: not a trace\n"
        assert rss_kb < 400 << 10, rss_kb
    big = tmp_path / "big.rep"
    with open(big, "wb") as f:
        f.truncate(limit + 1)
    r = run(driver, "-f", big, tmp=tmp_path)
    assert r.rc == 2 and r.err == f"mdriver: {big}:0: more than {limit} bytes: not a trace\n"

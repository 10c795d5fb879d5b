"""mmtrace.linter: one file per defect the driver rejects, each caught on the same line
as the driver; warnings; --fix gives a copy both accept."""
from __future__ import annotations

import gzip
import re
import subprocess
import sys
from pathlib import Path

import pytest

from grader_fixtures.helpers import run_python
from mmtrace.linter import ERROR, WARNING, TraceError, fixed, lint, read_measured, read_trace
from mmtrace.trace import HEAP_LIMIT, MAX_HEAP, write_trace

HEAD = "20000000\n{ids}\n{ops}\n1\n"

# name -> (file bytes, line of the first error, words the message must contain,
#          line the driver names, when it differs)
DEFECTS = {
    "bad-op-letter": (HEAD.format(ids=2, ops=2) + "a 0 8\nx 0\n", 6, "bad token 'x'", None),
    "bad-number": (HEAD.format(ids=2, ops=2) + "a 0 8\nf zero\n", 6, "bad token", None),
    "missing-size": (HEAD.format(ids=2, ops=2) + "a 0\nf 0\n", 5, "bad token", None),
    "id-out-of-range": (HEAD.format(ids=2, ops=2) + "a 2 8\nf 2\n", 5, "id 2 out of range", None),
    "free-not-live": (HEAD.format(ids=2, ops=2) + "a 0 8\nf 1\n", 6, "not live", None),
    "realloc-not-live": (HEAD.format(ids=2, ops=2) + "a 0 8\nr 1 9\n", 6, "not live", None),
    "realloc-after-r0": (HEAD.format(ids=1, ops=3) + "a 0 8\nr 0 0\nr 0 5\n", 7, "not live",
                         None),
    "alloc-live": (HEAD.format(ids=2, ops=3) + "a 0 8\na 0 9\nf 0\n", 6, "already live", None),
    "realloc-null-live": (HEAD.format(ids=2, ops=3) + "a 0 8\nn 0 9\nf 0\n", 6,
                          "already live", None),
    "too-many-ops": (HEAD.format(ids=2, ops=1) + "a 0 8\nf 0\n", 6, "op count", 7),
    "too-few-ops": (HEAD.format(ids=2, ops=3) + "a 0 8\nf 0\n", 7, "header says 3 ops", None),
    "size-out-of-range": (HEAD.format(ids=1, ops=2) + "a 0 99999999\nf 0\n", 5,
                          "size 99999999 cannot fit in the heap", None),
    "truncated-header": ("20000000\n2\n", 3, "header needs 4 numbers", None),
    "truncated-mid-file": (HEAD.format(ids=2, ops=4) + "a 0 8\na 1", 6, "bad token", None),
    "binary-junk": (HEAD.format(ids=2, ops=2) + "a 0 8\n\x00\x01\x7f\xff\n", 6, "binary data",
                    None),
    # the driver stops at the first error, and binary junk further down is never reached: the
    # linter had named the junk's line alone (and read_trace too), not the bad op before it
    "binary-after-a-bad-op": (HEAD.format(ids=2, ops=3) + "a 0 8\nx 0\nf 0\n\x00\n", 6, "bad token 'x'", None),
    "binary-after-a-bad-header": ("20000000\n-2\n2\n1\n\x00\n", 2, "bad token '-2'", None),
    "binary-where-the-header-ends": ("20000000 2 2 1 \x00\na 0 8\nf 0\n", 1, "binary data (byte 0x00)", None),
    # a header of no ids: no range to name ('0..-1' had been shown), as the driver words it
    "no-ids-declared": (HEAD.format(ids=0, ops=2) + "a 0 8\nf 0\n", 5,
                        "id 0 out of range: the header declares no ids", None),
    # DEL (0x7f) is a control byte: binary, not text, outside a comment (in the driver too)
    "del-byte": (HEAD.format(ids=1, ops=2) + "a 0 8\x7f\nf 0\n", 5, "binary data (byte 0x7f): not a trace file", None),
    "bad-weight": ("20000000\n2\n2\n7\na 0 8\nf 0\n", 4,
                   "weight 7 out of range (0 check only, 1 both, 2 utilization, 3 throughput)", None),
    # a classic weight past 2^64 is out of the weight's range, as 7 is (and --fix sets it to 1)
    "weight-past-2^64": ("20000000\n2\n2\n99999999999999999999\na 0 8\nf 0\n", 4,
                         "weight 99999999999999999999 out of range (0 check only, 1 both, 2 utilization, "
                         "3 throughput)", None),
    # the largest number a header holds, with leading zeros: shown as the driver shows it, without them
    "weight-2^64-1-with-zeros": ("20000000\n2\n2\n000018446744073709551615\na 0 8\nf 0\n", 4,
                                 "weight 18446744073709551615 out of range (0 check", None),
    # in the lab64 order the 4th number is the peak bytes, not the weight
    "lab64-peak-past-2^64": ("1\n2\n2\n99999999999999999999\na 0 8\nf 0\n", 4,
                             "header field 4 99999999999999999999 out of range (at most 18446744073709551615)",
                             None),
    # weight 3 is the largest lab64 weight: its 4th number is still the peak, not a classic weight
    "lab64-weight-3-peak-past-2^64": ("3\n2\n2\n99999999999999999999\na 0 8\nf 0\n", 4,
                                      "header field 4 99999999999999999999 out of range (at most 18446744073709551615)",
                                      None),
    "header-number-past-2^64": ("99999999999999999999\n1\n2\n1\na 0 5\nf 0\n", 1,
                                "header field 1 99999999999999999999 out of range", None),
    "ids-past-the-drivers-limit": ("20000000\n67108865\n2\n1\na 0 5\nf 0\n", 2,
                                   "the number of ids 67108865 out of range (at most 67108864)", None),
    "ids-past-2^64": ("20000000\n99999999999999999999\n2\n1\na 0 5\nf 0\n", 2,
                      "the number of ids 99999999999999999999 out of range (at most 67108864)", None),
    # past Python's 4300-digit int() limit: judged by length, as the driver does
    "header-number-of-5000-digits": ("9" * 5000 + "\n1\n2\n1\na 0 5\nf 0\n", 1,
                                     "header field 1 " + "9" * 24 + " out of range", None),
    "size-of-5000-digits": (HEAD.format(ids=1, ops=2) + "a 0 " + "9" * 5000 + "\nf 0\n", 5,
                            "size " + "9" * 24 + " cannot fit in the heap: no heap the driver can make", None),
    "id-of-5000-digits": (HEAD.format(ids=1, ops=2) + "a " + "9" * 5000 + " 5\nf 0\n", 5,
                          "id " + "9" * 24 + " out of range", None),
}


def _write(tmp: Path, name: str, text: str) -> Path:
    p = tmp / f"{name}.rep"
    p.write_bytes(text.encode("latin-1"))
    return p


def _driver_line(driver: Path, path: Path) -> int | None:
    done = subprocess.run([str(driver), "--parse-only", "-f", str(path)], capture_output=True,
                          text=True)
    assert done.returncode == 2, done.stdout + done.stderr
    m = re.search(re.escape(str(path)) + r":(\d+):", done.stderr)
    return int(m.group(1)) if m else None


@pytest.mark.parametrize("name", sorted(DEFECTS))
def test_each_defect_is_an_error_on_the_drivers_line(tmp_path, driver, name):
    text, line, words, driver_line = DEFECTS[name]
    path = _write(tmp_path, name, text)
    errors = lint(path).errors
    assert errors, f"{name}: no error found"
    assert errors[0].line == line
    assert words in errors[0].message
    assert str(errors[0]).startswith(f"{path}:{line}: ")
    with pytest.raises(TraceError) as caught:
        read_trace(path)
    assert str(caught.value) == str(errors[0])
    assert _driver_line(driver, path) == (driver_line or line)


@pytest.mark.parametrize("size, heap", [(2_000_000, 1 << 20), (99999999, None)])
def test_a_request_past_the_heap_is_worded_as_the_driver_words_it(tmp_path, driver, size, heap):
    """read_measured (the grader's reader) said 'size N out of range: larger than the maximum heap
    (M bytes)' where the driver says the size cannot fit in this run's heap: both now name the
    file, the line, the size and the limit in the same words (the driver adds its -M)."""
    path = _write(tmp_path, "big", HEAD.format(ids=2, ops=4) + f"a 0 8\nf 0\na 1 {size}\nf 1\n")
    limit = heap or MAX_HEAP
    with pytest.raises(TraceError) as caught:
        read_measured(path, limit)
    ours = f"{path}:7: size {size} cannot fit in the heap: this run's maximum heap is {limit} bytes"
    assert str(caught.value) == ours
    done = subprocess.run([str(driver), "--parse-only", *(["-M", str(heap)] if heap else []), "-f", str(path)],
                          capture_output=True, text=True)
    assert done.returncode == 2
    assert done.stderr.splitlines() == [f"mdriver: {ours} (-M); the trace needs a larger -M"]


def test_check_names_its_max_heap_option_as_the_driver_names_M(tmp_path, driver):
    """check said 'this run's maximum heap is 1000000 bytes' and stopped there, where the driver
    adds '(-M); the trace needs a larger -M': check now says the same of its --max-heap."""
    path = _write(tmp_path, "big", HEAD.format(ids=1, ops=2) + "a 0 2000000\nf 0\n")
    done = run_python("-m", "mmtrace", "check", "--max-heap", "1000000", path, capture_output=True, text=True)
    said = (f"{path}:5: size 2000000 cannot fit in the heap: this run's maximum heap is 1000000 bytes "
            "({}); the trace needs a larger {}")
    assert done.returncode == 1 and done.stdout.splitlines()[0] == said.format("--max-heap", "--max-heap")
    driven = subprocess.run([str(driver), "--parse-only", "-M", "1000000", "-f", str(path)],
                            capture_output=True, text=True)
    assert driven.stderr.splitlines() == ["mdriver: " + said.format("-M", "-M")]


@pytest.mark.parametrize("size", [HEAP_LIMIT + 1, 1 << 64, "9" * 5000])
@pytest.mark.parametrize("heap", [None, HEAP_LIMIT])
def test_a_request_past_every_heap_names_Ms_maximum(tmp_path, driver, size, heap):
    """A size past 2^64 was 'out of range (at most 18446744073709551615)', in the linter as in the
    driver, and one past 4G 'cannot fit' this run's heap, though no -M or --max-heap goes past 4G:
    both now say no heap the driver can make holds it, naming -M's maximum, in the same words."""
    path = _write(tmp_path, "huge", HEAD.format(ids=2, ops=4) + f"a 0 8\nf 0\na 1 {size}\nf 1\n")
    ours = (f"{path}:7: size {str(size)[:24]} cannot fit in the heap: no heap the driver can make holds it "
            f"(-M is at most {HEAP_LIMIT} bytes)")
    with pytest.raises(TraceError) as caught:
        read_measured(path, heap or MAX_HEAP)
    assert str(caught.value) == ours
    check = run_python("-m", "mmtrace", "check", *(["--max-heap", str(heap)] if heap else []), path,
                       capture_output=True, text=True)
    assert ours in check.stdout.splitlines(), check.stdout + check.stderr
    done = subprocess.run([str(driver), "--parse-only", *(["-M", str(heap)] if heap else []), "-f", str(path)],
                          capture_output=True, text=True)
    assert done.returncode == 2
    assert done.stderr.splitlines() == [f"mdriver: {ours}"]


# Tokens either side of the line reader's short cut (int() below 19 digits, bounded_int past it):
# id, size, and the message of the first error, or None where the driver reads the trace.
PAST_HEAP = f"cannot fit in the heap: this run's maximum heap is {MAX_HEAP} bytes"
NO_HEAP = f"cannot fit in the heap: no heap the driver can make holds it (-M is at most {HEAP_LIMIT} bytes)"
SHORT_AND_LONG = [
    ("0" * 30 + "1", "8", None),
    ("1", "0" * 30 + "8", None),
    ("1", "0" * 11 + str(MAX_HEAP), None),
    ("1", "0" * 11 + str(MAX_HEAP + 1), f"size {'0' * 11 + str(MAX_HEAP + 1)} {PAST_HEAP}"),
    ("1", "0" * 8 + str(HEAP_LIMIT), f"size {'0' * 8 + str(HEAP_LIMIT)} {PAST_HEAP}"),
    ("1", "9" * 18, f"size {'9' * 18} {NO_HEAP}"),
    ("1", "9" * 19, f"size {'9' * 19} {NO_HEAP}"),
    ("0" * 20 + "67108864", "8", "id 67108864 out of range: the header says 2 ids (0..1)"),
    ("9" * 18, "8", "id 999999999999999999 out of range: the header says 2 ids (0..1)"),
]


@pytest.mark.parametrize("ident, size, message", SHORT_AND_LONG)
def test_short_and_long_tokens_are_judged_as_the_driver_judges_them(tmp_path, driver, ident, size, message):
    """The line reader reads a token under 19 digits with int() alone (speed); one longer, or past
    the limit, is still judged by bounded_int, so every message is the one it always was."""
    path = _write(tmp_path, "t", HEAD.format(ids=2, ops=2) + f"a {ident} {size}\nf {ident}\n")
    got = [(p.line, p.message) for p in lint(path).errors][:1]
    if message is None:
        assert got == [] and subprocess.run([str(driver), "--parse-only", "-f", str(path)]).returncode == 0
    else:
        assert got == [(5, message)] and _driver_line(driver, path) == 5


def test_damaged_gzip_is_an_error(tmp_path, driver):
    good = gzip.compress((HEAD.format(ids=1, ops=2) + "a 0 8\nf 0\n").encode())
    path = tmp_path / "cut.rep.gz"
    path.write_bytes(good[: len(good) - 9])
    result = lint(path)
    error = result.errors[0]
    assert "gzip" in error.message
    assert error.line == 0 == _driver_line(driver, path)      # the whole file, in both
    assert not result.unreadable      # read, and bad: a trace's error (check: exit 1), not unreadable (exit 2)
    path.write_bytes(b"\x1f\x8bnot gzip at all")     # gzip.BadGzipFile: an OSError, but the file was read
    result = lint(path)
    assert not result.unreadable and result.errors[0].message.startswith("damaged gzip data")


def _gzip_header(flags: int, extra: bytes = b"") -> bytes:
    return b"\x1f\x8b\x08" + bytes([flags]) + bytes(4) + b"\x02\xff" + extra


@pytest.mark.parametrize("damage", ["reserved-flag", "high-flag", "header-crc", "zeros-between-members",
                                    "junk-after-zeros"])
def test_gzip_the_driver_refuses_is_damaged_for_the_linter_too(tmp_path, driver, damage):
    """gzip -dc, which the driver reads through, refuses a member header with a reserved flag
    bit set or a wrong header CRC (FHCRC), and bytes after the last member other than zeros;
    Python's gzip module took all three, so `mmtrace check` said nothing of a file the driver
    cannot read."""
    text = (HEAD.format(ids=1, ops=2) + "a 0 8\nf 0\n").encode()
    good = gzip.compress(text, mtime=0)
    deflated = good[10:]
    data = {"reserved-flag": _gzip_header(0x20) + deflated,
            "high-flag": _gzip_header(0x80) + deflated,
            "header-crc": _gzip_header(0x02, b"\x00\x00") + deflated,
            "zeros-between-members": gzip.compress(text[:10]) + b"\0\0" + gzip.compress(text[10:]),
            "junk-after-zeros": good + b"\0\0junk"}[damage]
    path = tmp_path / "bad.rep.gz"
    path.write_bytes(data)
    result = lint(path)
    assert result.errors and result.errors[0].message.startswith("damaged gzip data"), result.problems
    assert not result.unreadable
    assert _driver_line(driver, path) == 0


def test_gzip_the_driver_reads_is_read_alike(tmp_path, driver):
    """What gzip -dc takes, the linter takes: members one after another, zeros after the last,
    a header CRC that is right."""
    import zlib
    text = (HEAD.format(ids=1, ops=2) + "a 0 8\nf 0\n").encode()
    head = _gzip_header(0x02)
    crc = (zlib.crc32(head) & 0xFFFF).to_bytes(2, "little")
    for data in (gzip.compress(text[:10]) + gzip.compress(text[10:]), gzip.compress(text) + bytes(9),
                 head + crc + gzip.compress(text, mtime=0)[10:], gzip.compress(b"") + gzip.compress(text)):
        path = tmp_path / "ok.rep.gz"
        path.write_bytes(data)
        assert not lint(path).problems
        assert subprocess.run([str(driver), "--parse-only", "-f", str(path)], capture_output=True).returncode == 0


def test_an_unreadable_file_is_line_0_in_both(tmp_path, driver):
    path = tmp_path / "missing.rep"
    error = lint(path).errors[0]
    assert "cannot read" in error.message
    assert error.line == 0 == _driver_line(driver, path)


def test_valid_oddities_are_accepted_by_both(tmp_path, driver):
    text = ("# comment: café\n20000000 2\n\n4   # ops\n1\n"
            "a 0 0\n  n 1 16\t# realloc(NULL, 16)\nr 1 0\n\nf 0\n")
    path = _write(tmp_path, "odd", text)
    r = lint(path)
    assert not r.problems, r.problems
    assert len(r.trace) == 4
    done = subprocess.run([str(driver), "--parse-only", "-f", str(path)], capture_output=True)
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("header", ["20000000\n2\n4\n{w}\n", "{w}\n2\n4\n8\n"], ids=["classic", "lab64"])
@pytest.mark.parametrize("weight", [0, 1, 2, 3])
def test_every_weight_the_driver_takes_is_accepted(tmp_path, driver, header, weight):
    """Weights 0 to 3, in either order: no trace of weight 3 (throughput only) was ever linted."""
    path = _write(tmp_path, "w", header.format(w=weight) + "a 0 8\na 1 0\nf 0\nf 1\n")
    r = lint(path)
    assert r.problems == () and r.trace.header.weight == weight
    assert subprocess.run([str(driver), "--parse-only", "-f", str(path)], capture_output=True).returncode == 0
    # and in the line reader, which a warning (an id unused) sends the file to
    path = _write(tmp_path, "w", header.format(w=weight).replace("\n2\n", "\n3\n", 1) + "a 0 8\na 1 0\nf 0\nf 1\n")
    assert [p.message for p in lint(path).problems] == ["the header says 3 ids, the ops use 2"]


def test_an_op_on_the_headers_line_is_accepted_by_both(tmp_path, driver):
    path = _write(tmp_path, "opsonheader", "20000 1 2 1 a 0 5\nf 0\n")
    r = lint(path)
    assert not r.problems, r.problems
    assert list(r.trace.ops()) == [("a", 0, 5), ("f", 0, 0)]
    done = subprocess.run([str(driver), "--parse-only", "-f", str(path)], capture_output=True)
    assert done.returncode == 0, done.stderr


def test_warnings_for_unbalanced_and_counts(tmp_path):
    path = _write(tmp_path, "w", HEAD.format(ids=9, ops=3) + "a 0 8\na 1 8\nf 0\n")
    r = lint(path)
    assert not r.errors
    msgs = [p.message for p in r.problems if p.severity == WARNING]
    assert any("1 blocks never freed (first: id 1 from line 6)" in m for m in msgs)
    assert any("header says 9 ids, the ops use 2" in m for m in msgs)


@pytest.mark.parametrize("header, line", [("20000\n0\n0\n1\n", 4), ("1 0 0 0\n# nothing\n", 1)])
def test_a_trace_of_no_ops_is_a_warning(tmp_path, driver, header, line):
    """A trace of 0 ops passed check in silence, while the driver lists it as ok with no figures and
    scores nothing from it (alone, no perf index): check now warns, in those terms."""
    path = _write(tmp_path, "empty", header)
    r = lint(path)
    assert [(p.line, p.severity, p.message) for p in r.problems] == [
        (line, WARNING, "no ops: the driver lists this trace as ok with no figures and leaves it out of the "
                     "score (run alone: no perf index)")]
    done = subprocess.run([str(driver), "-f", str(path)], capture_output=True, text=True)
    row = next(line.split() for line in done.stdout.splitlines() if line.split()[1:2] == ["empty"])
    assert done.returncode == 0 and row[2:] == ["ok", "-", "-", "0", "-", "-"], done.stdout
    assert "Perf index: none: no trace scores utilization or throughput" in done.stdout


def test_a_live_set_past_the_heap_is_a_warning(tmp_path):
    """Each request fit, so check passed it silently; every allocator fails it (alloc_failed)."""
    path = _write(tmp_path, "l", HEAD.format(ids=3, ops=6) + "a 0 8000000\na 1 8000000\nf 0\n"
                  "a 2 8000000\nf 1\nf 2\n")
    assert [str(p) for p in lint(path).problems] == []
    path = _write(tmp_path, "l", HEAD.format(ids=3, ops=6) + "a 0 8000000\na 1 8000000\n"
                  "a 2 8000000\nf 0\nf 1\nf 2\n")
    r = lint(path)
    assert not r.errors
    assert [(p.line, p.message) for p in r.problems] == [
        (7, f"live payload reaches 24000000 bytes, more than this run's maximum heap ({MAX_HEAP} bytes): "
            "no allocator can replay this trace")]
    assert [p.line for p in lint(path, 30_000_000).problems] == []


def test_the_first_block_never_freed_is_the_earliest_left(tmp_path):
    path = _write(tmp_path, "w", HEAD.format(ids=3, ops=4) + "a 2 8\na 0 8\na 1 8\nf 0\n")
    assert [p.message for p in lint(path).problems] == ["unbalanced: 2 blocks never freed (first: id 2 from line 5)"]


def test_a_file_with_no_ops_that_declares_some_is_truncated_not_empty(tmp_path):
    """Its error is the whole story: 'no ops' is for a trace that says it has none."""
    path = _write(tmp_path, "cut", HEAD.format(ids=0, ops=2))
    assert [(p.severity, p.message) for p in lint(path).problems] == [
        (ERROR, "truncated: the header says 2 ops, the file has 0")]


def test_a_lab64_peak_is_not_judged_in_a_trace_with_errors(tmp_path):
    """The ops dropped for an error change the peak measured: only a clean trace's is compared."""
    path = _write(tmp_path, "p", "1\n2\n3\n999\na 0 100\nf 1\nf 0\n")
    assert [p.message for p in lint(path).problems] == ["free of id 1, which is not live",
                                                        "the header says 2 ids, the ops use 1"]


@pytest.mark.parametrize("header", ["20000000\n2\n1\n{w}\n", "{w}\n2\n1\n0\n"], ids=["classic", "lab64"])
@pytest.mark.parametrize("weight", [0, 1, 2, 3])
def test_a_fixed_copy_keeps_a_weight_in_range(tmp_path, header, weight):
    path = _write(tmp_path, "w", header.format(w=weight) + "a 0 8\n")
    assert fixed(lint(path)).header.weight == weight


def test_a_live_set_of_exactly_the_heap_is_no_warning(tmp_path):
    """Only more than the heap is warned of; the unused id sends the file to the line reader."""
    path = _write(tmp_path, "l", HEAD.format(ids=3, ops=4) + f"a 0 {MAX_HEAP - 8}\na 1 8\nf 0\nf 1\n")
    assert [p.message for p in lint(path).problems] == ["the header says 3 ids, the ops use 2"]
    assert [p.message for p in lint(path, MAX_HEAP - 1).problems][-1].startswith(
        f"live payload reaches {MAX_HEAP} bytes, more than this run's maximum heap ({MAX_HEAP - 1} bytes)")


def test_lab64_header_peak_is_checked(tmp_path):
    path = _write(tmp_path, "p", "1\n1\n2\n999\na 0 100\nf 0\n")
    msgs = [p.message for p in lint(path).problems]
    assert msgs == ["the header's peak bytes 999 != measured 100"]


def test_fix_makes_a_trace_both_accept(tmp_path, driver):
    text = (HEAD.format(ids=50, ops=9) + "a 0 8\nf 3\na 1 16\na 0 4\nr 1 32\nbogus\na 2 5\n")
    path = _write(tmp_path, "broken", text)
    r = lint(path)
    assert {p.severity for p in r.problems} == {ERROR, WARNING}
    t = fixed(r)
    out = tmp_path / "fixed.rep"
    write_trace(out, t)
    again = lint(out)
    assert not again.problems, again.problems
    assert list(again.trace.ops()) == [("a", 0, 8), ("a", 1, 16), ("r", 1, 32), ("a", 2, 5),
                                       ("f", 0, 0), ("f", 1, 0), ("f", 2, 0)]
    assert again.trace.header.ids == 3 and again.trace.header.ops == 7
    done = subprocess.run([str(driver), "--parse-only", "-f", str(out)], capture_output=True)
    assert done.returncode == 0, done.stderr


# Defects --fix cannot repair (no header to keep, or no text): it writes nothing for them.
UNFIXABLE = {"truncated-header", "binary-junk", "del-byte", "header-number-past-2^64", "header-number-of-5000-digits",
             "ids-past-the-drivers-limit", "ids-past-2^64", "lab64-peak-past-2^64",
             "lab64-weight-3-peak-past-2^64", "binary-after-a-bad-op", "binary-after-a-bad-header",
             "binary-where-the-header-ends"}
# Beyond DEFECTS: more the linter reports, each with something for --fix to repair.
MORE_TO_FIX = {
    "bad-weight-9": "20000\n2\n2\n9\na 0 16\nf 0\n",
    "id-past-the-drivers-limit": HEAD.format(ids=2, ops=3) + "a 0 8\na 70000000 8\nf 70000000\n",
    "id-past-uint32": HEAD.format(ids=2, ops=2) + "a 99999999999 8\nf 0\n",
    # 2^26 itself is past the driver's ids (0..2^26 - 1): a copy that kept it would declare 2^26 + 1
    "id-at-the-drivers-limit": HEAD.format(ids=2, ops=3) + "a 0 8\na 67108864 8\nf 67108864\n",
    "never-freed": HEAD.format(ids=2, ops=2) + "a 0 8\na 1 8\n",
    "ids-count": HEAD.format(ids=9, ops=2) + "a 0 8\nf 0\n",
    "lab64-peak": "1\n1\n2\n999\na 0 100\nf 0\n",
    "op-on-the-header-line": "20000000 2 3 1 a 0 8\nf 0\n",
    "gzip": HEAD.format(ids=2, ops=1) + "a 0 8\nf 0\n",
}
FIXABLE = {**{k: v[0] for k, v in DEFECTS.items() if k not in UNFIXABLE}, **MORE_TO_FIX}


@pytest.mark.parametrize("name", sorted(FIXABLE))
def test_check_fix_writes_a_copy_the_driver_accepts(tmp_path, driver, name):
    path = _write(tmp_path, name, FIXABLE[name])
    assert lint(path).problems
    out = tmp_path / ("fixed.rep.gz" if name == "gzip" else "fixed.rep")
    done = subprocess.run([sys.executable, "-m", "mmtrace", "check", "--fix", "-o", str(out), str(path)],
                          capture_output=True, text=True)
    assert done.returncode == 0 and f"fixed copy written to {out}" in done.stdout, done.stdout + done.stderr
    # a copy whose every op was dropped is still accepted, and warned of as a trace of no ops
    got = lint(out)
    expected = ["no ops"] if not len(got.trace) else []
    assert [p.message[:6] for p in got.problems] == expected, got.problems
    parsed = subprocess.run([str(driver), "--parse-only", "-f", str(out)], capture_output=True, text=True)
    assert parsed.returncode == 0, parsed.stderr


@pytest.mark.parametrize("name", sorted(UNFIXABLE))
def test_check_fix_writes_nothing_when_there_is_no_header(tmp_path, name):
    path = _write(tmp_path, name, DEFECTS[name][0])
    result = lint(path)
    assert fixed(result) is None
    # the refusal gives the linter's reason (binary data, a number out of range, ...), not a guess
    out = tmp_path / "fixed.rep"
    done = run_python("-m", "mmtrace", "check", "--fix", "-o", out, path, capture_output=True, text=True)
    reason = result.errors[-1].message      # what stopped the reading: binary data after a bad op
    assert done.returncode == 1 and not out.exists()
    assert f"{path}: cannot fix: {reason}; nothing written" in done.stderr.splitlines(), done.stderr


def test_the_numpy_reader_agrees_with_the_line_reader(tmp_path, monkeypatch):
    import mmtrace.linter as lint_module
    from mmtrace.fastread import fast_trace
    from mmtrace.gen import generate
    from mmtrace.trace import read_bytes
    path = tmp_path / "g.rep"
    write_trace(path, generate("realloc-many", 4, {"steps": 3000, "buffers": 50}, "lab64"),
                ["a comment line on top"])
    fast = fast_trace(read_bytes(path), 20 << 20, 1 << 26)
    assert fast is not None
    monkeypatch.setattr(lint_module, "_fast", lambda *a: None)
    slow = lint(path)
    assert not slow.problems
    assert (fast.header, fast.kinds, fast.ids, fast.sizes) == \
        (slow.trace.header, slow.trace.kinds, slow.trace.ids, slow.trace.sizes)


@pytest.mark.parametrize("chunk", [61, 64, 4096])
def test_the_numpy_reader_reads_across_its_chunks(monkeypatch, chunk):
    """A trace past one chunk (8 MiB) is cut at a newline: cut a byte short, every chunk was
    declined and a ten-million-op trace went to the line reader.  Small chunks show it here."""
    import mmtrace.fastread as fastread
    from mmtrace.gen import generate
    from mmtrace.trace import encode_trace, format_trace
    data = encode_trace(format_trace(generate("realloc-many", 4, {"steps": 300, "buffers": 20})))
    whole = fastread.fast_trace(data, 20 << 20, 1 << 26)
    monkeypatch.setattr(fastread, "_CHUNK", chunk)
    cut = fastread.fast_trace(data, 20 << 20, 1 << 26)
    assert whole is not None and cut is not None
    assert (cut.kinds, cut.ids, cut.sizes) == (whole.kinds, whole.ids, whole.sizes)


def test_the_numpy_reader_declines_what_it_cannot_vouch_for():
    from mmtrace.fastread import fast_trace
    head = b"20000000\n2\n2\n1\n"
    for body in (b"a 0 8\nf 0",            # no final newline
                 b"a 0 8\n\nf 0\n",        # a blank line
                 b"a 0  8\nf 0\n",         # two spaces
                 b"a 0 8\nf 1\n",          # free of a dead id
                 b"a 0 8\na 0 8\n",        # alloc of a live id
                 b"a0 8 0\nf 0\n",        # no space after the letter: its three numbers read as 'a 0 8'
                 b"a 0 \nf 0\n",          # a space before the newline, and a size missing
                 b"a 0 8,\nf 0\n",         # a byte no trace has, which the numbers' reading skipped
                 b"a 0 8\nf 0\n5"):         # a number after the last newline, no op's
        assert fast_trace(head + body, 20 << 20, 1 << 26) is None, body
    # a header of two numbers to a line (the driver takes it): the line reader's, not int()'s
    assert fast_trace(b"20000000 2\n2\n1\na 0 8\nf 0\n", 20 << 20, 1 << 26) is None
    # the last line's missing size, after a space, had been read from its id: 'a 1 1'
    assert fast_trace(b"20000000\n2\n3\n1\na 0 8\nf 0\na 1 \n", 20 << 20, 1 << 26) is None
    assert fast_trace(head + b"a 0 8\nf 0\n", 20 << 20, 1 << 26) is not None


@pytest.mark.parametrize("line", ["1 a 0", "1 0 a"])
def test_a_line_that_starts_with_a_digit_is_refused_by_every_reader(tmp_path, driver, line):
    """`1 a 0` after `a 1 5`: the numpy reader had checked that each line held one letter, not
    that it came first, so read_trace (stats, convert, readme) took the line as an op of kind
    '1' and convert wrote `1 1 0`; the driver and check refuse it."""
    path = tmp_path / "digit.rep"
    path.write_text(f"1\n2\n2\n5\na 1 5\n{line}\n")
    with pytest.raises(TraceError) as err:
        read_trace(path)
    assert f"{path}:6: bad token '1'" in str(err.value)
    done = subprocess.run([str(driver), "--parse-only", "-f", str(path)], capture_output=True, text=True)
    assert done.returncode == 2 and "digit.rep:6: bad token '1'" in done.stderr


@pytest.mark.parametrize("field", ["size", "id", "header"])
def test_leading_zeros_are_read_as_the_driver_reads_them(tmp_path, driver, field):
    """`a 0 000...05` with 2 million zeros: the driver takes size 5; mmtrace crashed in int()."""
    zeros = "0" * 2_000_000
    text = {"size": HEAD.format(ids=1, ops=2) + f"a 0 {zeros}5\nf 0\n",
            "id": HEAD.format(ids=1, ops=2) + f"a {zeros}0 5\nf {zeros}\n",
            "header": f"{zeros}20000000\n{zeros}1\n2\n{zeros}1\na 0 5\nf 0\n"}[field]
    path = _write(tmp_path, field, text)
    done = subprocess.run([str(driver), "--parse-only", "-f", str(path)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    r = lint(path)
    assert r.errors == [] and r.peak_bytes == 5
    t = read_trace(path)
    assert (t.header.ids, t.header.ops, t.header.weight, list(t.sizes)) == (1, 2, 1, [5, 0])


def test_huge_numbers_are_one_line_errors_in_every_command(tmp_path):
    bad = _write(tmp_path, "huge", HEAD.format(ids=1, ops=2) + "a 0 " + "9" * 5000 + "\nf 0\n")
    for args in (["check"], ["stats"], ["check", "--fix"], ["convert", "--to", "lab64", "-o", str(tmp_path / "o.rep")]):
        done = subprocess.run([sys.executable, "-m", "mmtrace", *args, str(bad)], capture_output=True, text=True,
                              cwd=Path(__file__).resolve().parent.parent)
        assert "Traceback" not in done.stderr, done.stderr
        assert (done.returncode == 0) == (args[-1] == "--fix")     # --fix drops the op and writes a copy
        assert f"{bad}:5: size {'9' * 24} cannot fit in the heap" in done.stdout + done.stderr

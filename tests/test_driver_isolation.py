"""Every trace runs in its own child: a crash, an abort, an exit, a hang or a
flood of output from the allocator is reported for that trace only, and the
remaining traces still run and are scored.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import time

import pytest

from conftest import build_driver
from driver_common import KIT, TRIGGER, broken, describe, run, variant, write_trace

CLEAN = ["a 0 64", "a 1 200", "r 0 300", "f 1", "a 2 40", "f 0", "f 2"]


def three_traces(tmp):
    """A trace that fires the defect between two clean ones, all scored (weight 1)."""
    return ["-f", write_trace(tmp, "before", CLEAN, weight=1),
            "-f", write_trace(tmp, "bad", ["a 0 16", f"a 1 {TRIGGER}", "f 0", "f 1"], weight=1),
            "-f", write_trace(tmp, "after", CLEAN, weight=1)]


def assert_others_scored(r) -> None:
    for name in ("before", "after"):
        t = r.trace(name)
        assert t["outcome"] == "ok"
        assert t["utilization"] > 0 and t["timing"]["seconds"] > 0 and t["libc"]["seconds"] > 0
        assert r.row(name)[0].split()[2] == "ok"
    s = r.summary
    assert (s["traces"], s["valid"], s["failed"], s["bad_traces"]) == (3, 2, 1, 0)
    # The failing trace counts 0 in the mean utilization.
    assert s["utilization"] == pytest.approx((r.trace("before")["utilization"] + r.trace("after")["utilization"]) / 3)
    assert s["perf_index"] > 0
    assert f"1 trace(s) failed and score 0 (first: bad, {r.trace('bad')['outcome']})" in r.out


@pytest.mark.parametrize("name,outcome,fragments", [
    ("segv", "crashed", ["crashed with SIGSEGV", f"at op 1 (a 1 {TRIGGER}) of the correctness pass",
                         "it touched 0x10, which is not in the heap (a NULL pointer dereferenced?)"]),
    ("aborts", "crashed", ["crashed with SIGABRT", f"at op 1 (a 1 {TRIGGER}) of the correctness pass",
                           "did the allocator call abort"]),
    ("exits", "exited", ["exited with status 3", f"at op 1 (a 1 {TRIGGER}) of the correctness pass",
                         "did the allocator call exit"]),
    # glibc's assert maps a page for its message, which the sandbox refuses: a failed assert was
    # 'crashed with SIGSYS ...: it made the system call mmap'; the driver's own assert aborts
    ("asserts", "crashed", ["crashed with SIGABRT", f"at op 1 (a 1 {TRIGGER}) of the correctness pass",
                            "fail an assert"]),
    # the signal is named for floating point, which a student whose allocator has none looked for
    ("divides", "crashed", ["crashed with SIGFPE", f"at op 1 (a 1 {TRIGGER}) of the correctness pass",
                            ": an integer division by zero"]),
])
def test_death_is_reported_and_the_run_goes_on(tmp_path, name, outcome, fragments):
    r = run(broken(name), *three_traces(tmp_path), tmp=tmp_path)
    assert r.rc == 1, r.out + r.err
    t = r.trace("bad")
    if name == "asserts":
        assert "Assertion `size != TRIGGER' failed." in t["output"] and "mmap" not in t["message"], t
    assert (t["outcome"], t["op_index"], t["op"]) == (outcome, 1, f"a 1 {TRIGGER}")
    row, msg = r.row("bad")
    assert row.split()[1:3] == ["bad", outcome]
    for fragment in fragments:
        assert fragment in msg and fragment in t["message"]
    assert_others_scored(r)




def test_a_garbage_pointer_is_not_called_null(tmp_path):
    """wild.c writes through 0xdeadbeefdeadbeef: the CPU faults on an address no process may
    hold without saying which, and the kernel reports 0, so the message said 'it touched 0
    (a NULL pointer dereferenced?)' of a pointer read from a payload or a broken header."""
    r = run(broken("wild"), *three_traces(tmp_path), tmp=tmp_path)
    assert r.rc == 1, r.out + r.err
    t = r.trace("bad")
    assert (t["outcome"], t["op_index"]) == ("crashed", 1), t["message"]
    assert t["message"].startswith(f"crashed with SIGSEGV (Segmentation fault) at op 1 (a 1 {TRIGGER}) of the "
                                   "correctness pass: it used a garbage pointer"), t["message"]
    assert "NULL" not in t["message"] and "touched 0," not in t["message"]
    assert_others_scored(r)

@pytest.mark.parametrize("extra,signal", [(2, "SIGFPE"), (3, "SIGSEGV")])
def test_a_fault_signal_the_allocator_sends_itself_crashes(tmp_path, extra, signal):
    """raises.c raise()s SIGFPE or kill()s itself with SIGSEGV: the driver's fault handler
    noted the signal and returned, as it does for a fault, so the allocator went on and the
    audit called the noted fields 'tampered', blaming metadata outside the heap."""
    bad = write_trace(tmp_path, "bad", ["a 0 16", f"a 1 {TRIGGER + extra}", "f 0", "f 1"], weight=1)
    r = run(broken("raises"), "-f", bad, "-f", write_trace(tmp_path, "after", CLEAN, weight=1), tmp=tmp_path)
    assert r.rc == 1, r.out + r.err
    t = r.trace("bad")
    assert (t["outcome"], t["op_index"]) == ("crashed", 1), t["message"]
    assert t["message"].startswith(f"crashed with {signal} "), t["message"]
    assert f"at op 1 (a 1 {TRIGGER + extra}) of the correctness pass" in t["message"]
    assert "touched" not in t["message"]   # sent, not a fault: no address to blame
    assert r.trace("after")["outcome"] == "ok"

def test_hang_times_out(tmp_path):
    r = run(broken("hangs"), "-T", "2", *three_traces(tmp_path), tmp=tmp_path, timeout=60)
    assert r.rc == 1, r.out + r.err
    t = r.trace("bad")
    assert (t["outcome"], t["op_index"], t["op"]) == ("timeout", 1, f"a 1 {TRIGGER}")
    row, msg = r.row("bad")
    assert row.split()[1:3] == ["bad", "timeout"]
    assert f"did not finish within 2 s; it was at op 1 (a 1 {TRIGGER}) of the correctness pass" in msg
    assert r.doc["settings"]["time_limit"] == 2
    assert_others_scored(r)


def test_a_hang_after_closing_every_descriptor_times_out(tmp_path):
    """closes-hangs.c closes its output and the channel's doorbells, then spins: the parent took
    the closed ends for the child's exit and waited for it with no limit, so the driver hung for
    good, past -T, deaf to Ctrl-C and SIGTERM."""
    r = run(broken("closes-hangs"), "-T", "2", *three_traces(tmp_path), tmp=tmp_path, timeout=30)
    assert r.rc == 1, r.out + r.err
    t = r.trace("bad")
    assert (t["outcome"], t["op_index"], t["op"]) == ("timeout", 1, f"a 1 {TRIGGER}")
    assert t["message"] == f"did not finish within 2 s; it was at op 1 (a 1 {TRIGGER}) of the correctness pass"
    assert_others_scored(r)


def test_a_stopped_process_is_told_at_once_not_as_a_timeout(tmp_path):
    """stops.c raises SIGSTOP: the trace fails as soon as that is seen, well before -T."""
    began = time.monotonic()
    r = run(broken("stops"), "-T", "30", *three_traces(tmp_path), tmp=tmp_path, timeout=120)
    assert time.monotonic() - began < 25, "waited for the time limit"
    assert r.rc == 1, r.out + r.err
    t = r.trace("bad")
    assert (t["outcome"], t["op_index"], t["op"]) == ("crashed", 1, f"a 1 {TRIGGER}")
    assert t["message"].startswith(f"stopped by SIGSTOP at op 1 (a 1 {TRIGGER}) of the correctness pass: "
                                   "the process was stopped, not slow"), t["message"]
    assert r.row("bad")[1].strip() == t["message"]
    assert_others_scored(r)


FAKE = re.compile(r"perfidx:100|correct:99")


def test_allocator_output_cannot_reach_the_table_or_the_json(tmp_path):
    """chatty.c prints fake grade lines, a fake total row and JSON-looking text, a lot of it."""
    ops = [f"a {i} {16 + i}" for i in range(300)] + [f"f {i}" for i in range(300)]
    traces = ["-f", write_trace(tmp_path, "loud", ops, weight=1), "-f", write_trace(tmp_path, "loud2", CLEAN, weight=2)]
    r = run(broken("chatty"), "-g", *traces, tmp=tmp_path)
    assert r.rc == 0, r.out + r.err
    t = r.trace("loud")
    assert t["outcome"] == "ok" and r.summary["valid"] == 2
    # Everything it printed was kept apart: a bounded excerpt, escaped into one JSON string.
    assert "perfidx:100" in t["output"] and '{"schema": 1' in t["output"]
    assert 0 < len(t["output"]) <= 4096
    # UTF-8 comes through as text; bytes that are not UTF-8 come through one by one.
    assert '"\\\x01\x7fé\n' in t["output"]
    assert "bytes:\xff|\xc0\x80|\xed\xa0\x80|\U0001f980|\n" in t["output"]
    assert not FAKE.search(r.out) and not FAKE.search(r.err)
    grade = [line for line in r.out.splitlines() if line.startswith(("perfidx:", "correct:"))]
    assert grade == ["correct:2", f"perfidx:{r.summary['perf_index']:.0f}"]
    assert r.out.splitlines()[-3].startswith("Perf index = ") and r.out.splitlines()[-2:] == grade
    assert [line.split()[1] for line in r.out.splitlines() if re.match(r"\s+\d+\s", line)] == ["loud", "loud2"]


def test_c1_controls_in_the_output_or_a_name_are_escaped(tmp_path):
    """The 8-bit controls as UTF-8 text (CSI U+009B, OSC U+009D) went to the terminal as they were,
    in -v's quotes of what prints-c1.c printed and in a trace's name: where a terminal takes them
    as ESC [ and ESC ], they clear it or retitle it, as the C0 controls the table escapes would."""
    name = "t\u009b2J"
    trace = write_trace(tmp_path, name, CLEAN)
    r = run(broken("prints-c1"), "-v", "-f", trace, tmp=tmp_path)
    assert r.rc == 0, r.out + r.err
    assert r.trace(name)["output"].startswith("before\u009b2J|\u009d0;pwned")   # the JSON keeps the text
    assert "\u009b" not in r.out + r.err and "\u009d" not in r.out + r.err
    assert "        | before?2J|?0;pwned?|after" in r.out.splitlines()
    assert "t\\u009b2J" in r.out


def test_allocator_output_with_json_on_stdout(tmp_path):
    """--json - puts the document alone on stdout; the table moves to stderr; -v quotes the output."""
    traces = ["-f", write_trace(tmp_path, "loud", CLEAN, weight=1)]
    r = run(broken("chatty"), "-v", "-g", "--json", "-", *traces, tmp=tmp_path, json_out=False)
    assert r.rc == 0, r.err
    doc = json.loads(r.out)  # the whole of stdout is one JSON document
    assert doc["traces"][0]["outcome"] == "ok"
    assert doc["summary"]["valid"] == 1 and doc["summary"]["failed"] == 0
    assert r.out.isascii()
    quoted = [line for line in r.err.splitlines() if "perfidx:100" in line]
    assert quoted and all(line.startswith("        | ") for line in quoted)
    assert [line for line in r.err.splitlines() if line.startswith("perfidx:")] == \
        [f"perfidx:{doc['summary']['perf_index']:.0f}"]
    assert "the allocator printed" in r.err
    # Quoted with control bytes defused: nothing can move the cursor or cut a line.
    assert "        | ?[2J?[1A?clear screen, up a line, back to column 0" in r.err
    assert not any(c in r.err + r.out for c in "\x1b\r\x00")



@pytest.mark.parametrize("before", [30, 3000])
def test_v_shows_the_last_lines_an_allocator_printed_before_it_crashed(tmp_path, before):
    """debug-crash.c prints a line per mm_malloc and crashes at op BEFORE: -v showed only the
    first 12 lines of the first 4 KiB, never the ones a student debugging with printf needs."""
    ops = [f"a {i} 16" for i in range(before)] + [f"a {before} {TRIGGER}"]
    r = run(broken("debug-crash"), "-v", "-f", write_trace(tmp_path, "bad", ops, weight=1), tmp=tmp_path)
    assert r.rc == 1 and r.trace("bad")["outcome"] == "crashed", r.out
    quoted = [line for line in r.out.splitlines() if line.startswith("        | ")]
    assert quoted[0] == "        | mm_malloc #1 (16 bytes)", quoted
    assert quoted[-2:] == [f"        | mm_malloc #{before + 1} ({TRIGGER} bytes)",
                           "        | last words before the crash"], quoted
    assert len(quoted) <= 13 and re.fullmatch(r"        \| \[\.\.\. [\d,]+ bytes not shown \.\.\.\]", quoted[4])
    t = r.trace("bad")
    assert f"the allocator printed {len(t['output']) + t['output_cut'] + len(t['output_tail'])} bytes (the first and " \
           "the last lines shown):" in r.out


@pytest.mark.parametrize("before", [30, 3000])
def test_v_counts_the_bytes_it_leaves_out_between_first_and_last_lines(tmp_path, before):
    """What debug-crash.c printed is known to the byte: -v's "[... N bytes not shown ...]" is all of
    it but the 4 first lines and the 8 last ones it quotes.  Only the line's form was checked, and
    counting the quoted last lines as not shown left every test passing."""
    ops = [f"a {i} 16" for i in range(before)] + [f"a {before} {TRIGGER}"]
    r = run(broken("debug-crash"), "-v", "-f", write_trace(tmp_path, "bad", ops, weight=1), tmp=tmp_path)
    assert r.rc == 1 and r.trace("bad")["outcome"] == "crashed", r.out
    lines = [f"mm_malloc #{i + 1} (16 bytes)\n" for i in range(before)] + \
        [f"mm_malloc #{before + 1} ({TRIGGER} bytes)\n", "last words before the crash\n"]
    hidden = sum(map(len, lines)) - sum(map(len, lines[:4])) - sum(map(len, lines[-8:]))
    assert f"        | [... {hidden} bytes not shown ...]\n" in r.out, r.out


@pytest.mark.parametrize("before", [30, 3000])
def test_json_carries_the_last_lines_an_allocator_printed_before_it_crashed(tmp_path, before):
    """The JSON kept only the first 4 KiB of debug-crash.c's lines (output), so the grader's page
    and Gradescope never showed the last ones, printed just before the crash."""
    ops = [f"a {i} 16" for i in range(before)] + [f"a {before} {TRIGGER}"]
    r = run(broken("debug-crash"), "-f", write_trace(tmp_path, "bad", ops, weight=1), tmp=tmp_path)
    t = r.trace("bad")
    assert r.rc == 1 and t["outcome"] == "crashed", r.out
    printed = "".join(f"mm_malloc #{i + 1} (16 bytes)\n" for i in range(before)) + \
        f"mm_malloc #{before + 1} ({TRIGGER} bytes)\nlast words before the crash\n"
    head, cut, tail = t["output"], t["output_cut"], t["output_tail"]
    assert head == printed[:4096] and len(head) + cut + len(tail) == len(printed)
    if len(printed) <= 4096:
        assert cut == 0 and tail == ""
        return
    # the last whole lines of the last KiB, those past the bytes left out
    assert printed.endswith(tail) and printed[-len(tail) - 1] == "\n" and 1024 - 40 < len(tail) <= 1024
    assert tail.startswith("mm_malloc #") and tail.endswith(f"({TRIGGER} bytes)\nlast words before the crash\n")


def test_the_schema_bounds_the_output_as_config_h_does():
    """output and output_tail are the allocator's bytes: the grader refuses them longer than the
    driver keeps (a character is a byte or more)."""
    config = (KIT / "config.h").read_text()
    kept = {name: int(re.search(rf"{name} = (\d+)", config).group(1))
            for name in ("MDRIVER_OUTPUT_KEEP", "MDRIVER_OUTPUT_TAIL")}
    fields = json.loads((KIT / "schema" / "mdriver-result.schema.json").read_text())["$defs"]["trace"]["properties"]
    assert fields["output"]["maxLength"] == kept["MDRIVER_OUTPUT_KEEP"]
    assert fields["output_tail"]["maxLength"] == kept["MDRIVER_OUTPUT_TAIL"]

def test_outcome_vocabulary_is_the_schema_vocabulary(driver):
    """Every outcome this file and the checks provoke is one the driver describes."""
    names = [o["name"] for o in describe(driver)["outcomes"]]
    assert {"crashed", "exited", "timeout", "ok"} <= set(names)
    assert all(o["explanation"] for o in describe(driver)["outcomes"])


def test_a_sanitizer_report_is_not_taken_for_an_exit_call(tmp_path):
    """In a SANITIZE=1 build UBSan ends the process with status 1 after its report: the
    message asked "did the allocator call exit?" of a file that never calls it."""
    driver = build_driver(sanitize=True, extra=("MM=tests/c/broken/overflow.c",))
    r = run(driver, "-v", "-f", write_trace(tmp_path, "bad", ["a 0 16", f"a 1 {TRIGGER}", "f 0"]), tmp=tmp_path)
    t = r.trace("bad")
    assert r.rc == 1 and (t["outcome"], t["op"]) == ("exited", f"a 1 {TRIGGER}")
    assert t["message"].endswith("(a sanitizer's report? -v shows what the process printed)"), t["message"]
    assert "runtime error: signed integer overflow" in t["output"]


def test_crash_in_the_timing_pass_names_the_pass(tmp_path):
    """timing-crash.c passes every checked run and aborts once timing starts."""
    files = ["-f", write_trace(tmp_path, "timed", CLEAN, weight=1), "-f", write_trace(tmp_path, "util", CLEAN, weight=2)]
    r = run(broken("timing-crash"), *files, tmp=tmp_path)
    assert r.rc == 1
    t = r.trace("timed")
    assert (t["outcome"], t["op_index"], t["op"]) == ("crashed", None, None)
    assert t["message"].startswith("crashed with SIGABRT (Aborted) in the timing pass")
    assert r.row("timed")[1].strip() == t["message"]
    assert r.trace("util")["outcome"] == "ok" and r.trace("util")["utilization"] > 0


def test_crash_in_the_timing_pass_keeps_the_utilization_measured(tmp_path):
    """The checked runs had measured it: the outcome scores the trace 0, the figure stays."""
    files = ["-f", write_trace(tmp_path, "timed", CLEAN, weight=1), "-f", write_trace(tmp_path, "util", CLEAN, weight=2)]
    r = run(broken("timing-crash"), *files, tmp=tmp_path)
    timed, util = r.trace("timed"), r.trace("util")
    assert timed["outcome"] == "crashed" and util["outcome"] == "ok"
    assert timed["utilization"] == util["utilization"] > 0  # the same ops, the same allocator
    assert timed["heap_high_water"] == util["heap_high_water"] > 0
    assert timed["timing"] is None
    assert r.summary["utilization"] == pytest.approx(util["utilization"] / 2)  # the crashed trace counts 0


def test_crash_in_mm_stats_names_the_hook(tmp_path):
    """stats-crash.c is correct but its mm_stats faults: said to be there, not in the timing pass."""
    r = run(broken("stats-crash"), "-f", write_trace(tmp_path, "t", CLEAN, weight=1), tmp=tmp_path)
    assert r.rc == 1
    t = r.trace("t")
    assert (t["outcome"], t["op_index"], t["op"]) == ("crashed", None, None)
    assert t["message"].startswith("crashed with SIGSEGV (Segmentation fault) in mm_stats (called after the "
                                   "checked runs, before the timed ones): it touched 0x10"), t["message"]
    assert "timing pass" not in t["message"]
    assert t["utilization"] > 0  # measured before the hook ran


# ------------------------------------------------------------ forged reports

FORGE_CLEAN = ["a 0 16", "a 1 40", "f 0", "f 1"]


def test_a_forged_report_is_only_bytes_on_a_doorbell(tmp_path):
    """forge.c writes a made-up report into every pipe it can and ends the process
    cleanly.  The old driver read its child's verdict from such a pipe (and had to
    reject forged ones); now the parent concludes everything itself: the trace ended
    where the process did."""
    files = ["-f", write_trace(tmp_path, "forged", ["a 0 16", f"a 1 {TRIGGER}", "f 0"], weight=1),
             "-f", write_trace(tmp_path, "clean", FORGE_CLEAN, weight=1)]
    r = run(broken("forge"), "-g", *files, tmp=tmp_path)
    assert r.rc == 1, r.out + r.err
    t = r.trace("forged")
    assert (t["outcome"], t["op_index"], t["utilization"], t["timing"]) == ("exited", 1, None, None)
    assert t["message"] == (f"the process exited with status 0 at op 1 (a 1 {TRIGGER}) of the correctness pass "
                            "(did the allocator call exit?)")
    assert r.trace("clean")["outcome"] == "ok"
    assert (r.summary["valid"], r.summary["failed"]) == (1, 1)
    assert "correct:1" in r.out


def test_a_forged_report_changes_no_figure(tmp_path):
    """forge.c writes its report and carries on: the trace scores exactly what the
    same bump allocator scores without the forgery."""
    ops = ["a 0 16", f"a 1 {TRIGGER + 1}", "f 0"]
    forged = run(broken("forge"), "-f", write_trace(tmp_path, "forged", ops, weight=1), tmp=tmp_path)
    honest = run(broken("segv"), "-f", write_trace(tmp_path, "forged", ops, weight=1), tmp=tmp_path)  # bump.h
    assert forged.rc == honest.rc == 0, forged.out + forged.err
    assert forged.trace("forged")["outcome"] == "ok"
    assert forged.trace("forged")["utilization"] == honest.trace("forged")["utilization"]


def test_the_childs_only_fds_past_stderr_are_the_doorbells(tmp_path):
    """The trace's process keeps 0-2 and the channel's two doorbells; every other fd
    of the driver (the trace files, the output) is closed."""
    files = [a for i in range(4) for a in ("-f", write_trace(tmp_path, f"t{i}", FORGE_CLEAN, weight=0))]
    r = run(broken("forge"), *files, tmp=tmp_path)
    assert r.rc == 0, r.out + r.err
    seen = {tuple(t["output"].split("\n")[0].split()[1:]) for t in r.doc["traces"]}
    assert seen == {("3", "4")}, seen


# ------------------------------------------------------------ forged figures in the driver's memory

STATE_FAULT = r"it touched 0x[0-9a-f]+, in memlib's own state \(the break and its high-water mark\), which is " \
              r"read-only while the allocator runs"


def test_memlibs_state_is_read_only_in_the_checked_runs(tmp_path):
    """forge-heap.c scans down from its own statics for memlib's state (no system call,
    no driver header) and lowers the heap high-water mark that utilization is scored
    on, at the free of its TRIGGER-byte block.  The state is read-only while allocator
    code runs in a checked run, so the write faults there; before, the trace scored
    the forged mark."""
    r = run(broken("forge-heap"), *three_traces(tmp_path), tmp=tmp_path)
    assert r.rc == 1, r.out + r.err
    t = r.trace("bad")
    assert (t["outcome"], t["op_index"], t["utilization"]) == ("crashed", 3, None)
    assert re.fullmatch(r"crashed with SIGSEGV \(Segmentation fault\) at op 3 \(f 1\) of the correctness pass: "
                        + STATE_FAULT, t["message"]), t["message"]
    assert_others_scored(r)


def test_the_scored_high_water_mark_is_out_of_reach_in_the_timed_runs(tmp_path):
    """forge-late.c, once timed (memlib's state is writable there, so that mem_sbrk stays
    a pointer bump), overwrites every word of the driver's writable data that holds the
    checked run's high-water mark with its peak payload: before, that reached the copy
    in the child's report.  The mark scored is kept in a page that stays read-only, and
    the report reads it only after the allocator's last call."""
    r = run(broken("forge-late"), *three_traces(tmp_path), tmp=tmp_path)
    assert r.rc == 1, r.out + r.err
    t = r.trace("bad")
    assert (t["outcome"], t["op_index"]) == ("crashed", None)
    # the checked run's figures stay, unforged: its bump heap's break, not the peak payload
    high_water = (16 + 16) + (16 + (TRIGGER + 15) // 16 * 16)
    assert t["heap_high_water"] == high_water and t["peak_payload"] == 16 + TRIGGER
    assert t["utilization"] == pytest.approx((16 + TRIGGER) / high_water)
    assert re.fullmatch(r"crashed with SIGSEGV \(Segmentation fault\) in the timing pass: " + STATE_FAULT,
                        t["message"]), t["message"]
    assert_others_scored(r)


def test_heap_pages_past_the_break_made_writable_are_seen_by_the_parent(tmp_path):
    """forge-mprotect.c makes the page after its break's page writable with mprotect
    (a system call the grader forbids; the child's sandbox allows mprotect inside the
    heap) and keeps a header there, outside the heap it is scored on.  The parent
    shares the heap and asks mincore which pages the first checked run touched."""
    bad = ["a 0 8000", "f 0", f"a 1 {TRIGGER}", "f 1"]
    files = ["-f", write_trace(tmp_path, "before", CLEAN, weight=1), "-f", write_trace(tmp_path, "bad", bad, weight=1),
             "-f", write_trace(tmp_path, "after", CLEAN, weight=1)]
    r = run(broken("forge-mprotect"), *files, tmp=tmp_path)
    assert r.rc == 1, r.out + r.err
    t = r.trace("bad")
    assert (t["outcome"], t["utilization"]) == ("tampered", None)
    assert re.fullmatch(r"the heap's break was reported at most \d+ bytes above the heap's start, but the first "
                        r"checked run touched heap pages up to \d+ bytes above it \(was memlib's state changed\?\)",
                        t["message"]), t["message"]
    assert_others_scored(r)


def test_the_drivers_got_is_read_only(tmp_path):
    """got-write.c rewrites a slot of the driver's GOT from mm_init.  Linked with lazy
    binding the GOT stayed writable, and an allocator redirected the driver's
    clock_gettime to shrink its own timings; the driver is linked -z relro -z now, so
    the write faults at the first mm_init."""
    r = run(broken("got-write"), "-f", write_trace(tmp_path, "any", ["a 0 16", "f 0"], weight=1), tmp=tmp_path)
    assert r.rc == 1, r.out + r.err
    t = r.trace("any")
    assert (t["outcome"], t["utilization"], t["timing"]) == ("crashed", None, None)
    assert re.match(r"crashed with SIGSEGV \(Segmentation fault\) in mm_init, before the first op of the correctness "
                    r"pass: it touched 0x[0-9a-f]+, which is not "
                    r"in the heap", t["message"]), t["message"]


# Both sides of every placement: the default tries apart first and may fall back.
PLACEMENTS = ["together", "apart", None]


def placed(placement: str | None) -> dict:
    """The environment that puts the child there (None: where the driver decides)."""
    env = {k: v for k, v in os.environ.items() if k != "MDRIVER_CPUS"}
    if placement:
        env["MDRIVER_CPUS"] = placement
    return env


def figures(r) -> list[tuple]:
    """What a run found, per trace: all but the timing."""
    return [(t["name"], t["outcome"], t["op_index"], t["utilization"], t["heap_high_water"]) for t in r.doc["traces"]]


def test_the_childs_cpu_changes_no_figure(tmp_path):
    """The child on the parent's CPU (each side yields), on another (each side
    spins first), or wherever the driver decides (cpus.h): the same outcomes and
    utilization on suite traces that realloc, churn and fill the heap, and no lost
    call (a lost wake-up would end in the time limit, raised here: apart, each side spins, and on
    a machine loaded past its cores a trace took over the default 60 s)."""
    names = ["classic-realloc", "classic-random", "lab64-ngram-b", "realloc-many", "size-sweep"]
    args = [a for n in names for a in ("-f", str(KIT / "traces" / f"{n}.rep"))]
    found = {}
    for placement in PLACEMENTS:
        r = run(variant("best"), *args, "-r", "1", "-T", "240", tmp=tmp_path, env=placed(placement), timeout=1300)
        assert r.rc == 0, (placement, r.out + r.err)
        found[placement] = figures(r)
    assert found["together"] == found["apart"] == found[None]
    assert [f[1] for f in found[None]] == ["ok"] * len(names)


def test_a_misspelt_placement_is_one_line_before_any_trace(tmp_path, driver):
    """MDRIVER_CPUS=togther used to leave the choice to the driver without a word, so a
    measurement meant to be made together was not."""
    t = write_trace(tmp_path, "t", ["a 0 100", "f 0"], weight=0)
    r = run(driver, "-f", t, tmp=tmp_path, env=placed("togther"))
    assert r.rc == 2, r.out + r.err
    assert r.err == "mdriver: MDRIVER_CPUS=togther: together or apart (unset: the driver chooses)\n"
    assert r.out == "" and r.doc is None
    r = run(driver, "-f", t, tmp=tmp_path, env=placed("apart"))
    assert r.rc == 0 and r.doc["traces"][0]["outcome"] == "ok", r.out + r.err


def test_calls_too_slow_to_spin_for_are_served_in_every_placement(tmp_path):
    """slow-calls.c takes 40 us a call, longer than a spin: apart, every wait
    falls back to yielding, and by default the child is brought to the parent's
    CPU after a window of such waits.  Same figures every way."""
    ops = [f"a {i} {16 + i}" for i in range(200)] + [f"r {i} {40 + i}" for i in range(200)] + \
          [f"f {i}" for i in range(200)]
    trace = write_trace(tmp_path, "slow", ops, weight=1)
    found = {}
    for placement in PLACEMENTS:
        r = run(broken("slow-calls"), "-f", trace, "-r", "1", tmp=tmp_path, env=placed(placement))
        assert r.rc == 0, (placement, r.out + r.err)
        found[placement] = figures(r)
    assert found["together"] == found["apart"] == found[None]
    assert found[None][0][1] == "ok"


def shared_mappings(pid: int) -> set[tuple[str, str]]:
    """The address ranges a process maps shared (the `s` of /proc/PID/maps)."""
    spans = set()
    with open(f"/proc/{pid}/maps") as maps:
        for line in maps:
            fields = line.split()
            if fields[1][3] == "s":
                spans.add((fields[0], fields[1]))
    return spans


def test_the_allocators_child_gets_none_of_libcs_idle_child(tmp_path):
    """libc's child waits, unsandboxed, while the allocator's runs (its samples are topped up
    after): the allocator's child must share no memory with it but the driver's progress page,
    least of all its serving stack, which would let an allocator take it over."""
    trace = write_trace(tmp_path, "t", CLEAN, weight=1)
    driver = broken("slow-first-init")   # its first mm_init sleeps 3 s
    proc = subprocess.Popen([str(driver), "-f", str(trace)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        children: list[str] = []
        deadline = time.monotonic() + 20
        while len(children) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
            with open(f"/proc/{proc.pid}/task/{proc.pid}/children") as f:
                children = f.read().split()
        assert len(children) == 2, "libc's child and the allocator's were never alive together"
        time.sleep(0.3)   # the allocator's child past its start, into mm_init
        libc_child, allocator_child = sorted(children, key=int)
        common = shared_mappings(int(libc_child)) & shared_mappings(int(allocator_child))
        page = os.sysconf("SC_PAGE_SIZE")
        sizes = [int(end, 16) - int(start, 16) for (start, end) in (span.split("-") for span, _ in common)]
        assert sizes == [page], common   # the progress page alone
        assert len(shared_mappings(int(libc_child))) >= 6   # its stack, channel and arrays: what it keeps apart
    finally:
        assert proc.wait(timeout=60) == 0

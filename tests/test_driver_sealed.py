"""What the child reports, and the trace it replays, are out of the allocator's
reach: the red team's rules-clean allocators (no system call) forged their scores
through the report (found by its shape, or through the pointer handed to
mm_stats), through libc's tunables, and through the child's copy of the trace.
Each test below fails on the driver before these fixes.
"""
from __future__ import annotations

import re

import pytest

from driver_common import TRIGGER, broken, run, write_trace

FORGED = 7.77e-8  # the time stats-keep.c and report-scan.c claim for each timed run
CLEAN = ["a 0 16", "a 1 200", "r 0 300", "f 1", "a 2 40", "f 0", "f 2"]
SEALED_FAULT = (r"it touched 0x[0-9a-f]+, in the driver's report and its copy of the trace, which are read-only "
                r"while the allocator runs")


def test_mm_stats_gets_no_pointer_into_the_report(tmp_path):
    """stats-keep.c keeps the pointer mm_stats is given and, when timed, sets the
    samples of the report it would lie in.  mm_stats now fills a struct of the
    driver's stack, copied into the report: the timing is the allocator's own."""
    r = run(broken("stats-keep"), "-f", write_trace(tmp_path, "clean", CLEAN, weight=1), tmp=tmp_path)
    assert r.rc == 0, r.out + r.err
    t = r.trace("clean")
    assert t["outcome"] == "ok"
    assert t["timing"]["seconds"] != pytest.approx(FORGED) and FORGED not in t["timing"]["samples"]
    assert t["stats"]["mallocs"] == 1, t.get("stats")


def test_the_report_is_read_only_while_the_allocator_runs(tmp_path):
    """report-scan.c finds the report in the program's writable data by its shape
    once timed and writes its samples there: the write faults, and the message
    says where it landed."""
    files = ["-f", write_trace(tmp_path, "scan", CLEAN, weight=1)]
    r = run(broken("report-scan"), *files, tmp=tmp_path)
    assert r.rc == 1, r.out + r.err
    t = r.trace("scan")
    assert (t["outcome"], t["timing"]) == ("crashed", None)
    assert re.fullmatch(r"crashed with SIGSEGV \(Segmentation fault\) in the timing pass: " + SEALED_FAULT,
                        t["message"]), t["message"]
    assert r.row("scan")[1].strip() == t["message"]


def test_libc_is_timed_before_any_allocator_code_runs(tmp_path):
    """slow-libc.c's first mm_init makes glibc mmap every heap growth and trim at every
    free: timed after it, libc ran many times slower.  Timed first, libc runs as
    fast as beside an allocator that leaves it alone (measured: 74x slower before,
    the same after; timing noise is far below the 4x allowed here)."""
    ops = [f"a {i} {64 + i % 300}" for i in range(3000)] + [f"f {i}" for i in range(3000)]
    trace = write_trace(tmp_path, "grow", ops, weight=1)
    slowed = run(broken("slow-libc"), "-f", trace, tmp=tmp_path).trace("grow")
    honest = run(broken("segv"), "-f", trace, tmp=tmp_path).trace("grow")  # bump.h, no TRIGGER here
    assert slowed["outcome"] == honest["outcome"] == "ok"
    assert slowed["libc"]["seconds"] < 4 * honest["libc"]["seconds"], (slowed["libc"], honest["libc"])


def test_the_trace_is_read_only_in_the_childs_process(tmp_path):
    """trace-rewrite.c finds the trace up the stack and rewrites it to one op of the
    trace's peak payload: utilization would be the ideal, the timed runs one op.
    The ops are read-only in the trace's process; the write faults."""
    ops = [op for i in range(50) for op in (f"a {i} 1000", f"f {i}")]
    files = ["-f", write_trace(tmp_path, "rewritten", ops, weight=1)]
    r = run(broken("trace-rewrite"), *files, tmp=tmp_path)
    assert r.rc == 1, r.out + r.err
    t = r.trace("rewritten")
    assert (t["outcome"], t["utilization"]) == ("crashed", None)
    assert re.fullmatch(r"crashed with SIGSEGV \(Segmentation fault\) in the correctness pass: it touched 0x[0-9a-f]+, "
                        r"in the driver's copy of the trace's ops, which is read-only while the allocator runs",
                        t["message"]), t["message"]


def test_a_replay_faster_than_any_allocator_is_tampered(tmp_path):
    """forge-nonce.c steals the nonce and sends a report whose timed replays took a
    picosecond: no allocator replays an op in less than 0.25 ns."""
    files = ["-f", write_trace(tmp_path, "forged", ["a 0 16", f"a 1 {TRIGGER + 3}", "f 0"], weight=1)]
    r = run(broken("forge-nonce"), *files, tmp=tmp_path)
    assert r.rc == 1, r.out + r.err
    t = r.trace("forged")
    assert t["outcome"] == "tampered"
    assert re.fullmatch(r"the report claims a timed replay of the trace's 3 ops in 1e-12 s, 0\.000 ns an op: no "
                        r"allocator is that fast \(was what the driver timed changed\?\)", t["message"]), t["message"]
    assert r.summary["perf_index"] == 0


def test_the_stack_is_limited_in_the_childs_process(tmp_path):
    """stack-deep.c writes to a 4 MiB local array: the stack (storage no check sees)
    is limited to a few MiB in the trace's process, and the message says so."""
    files = ["-f", write_trace(tmp_path, "deep", ["a 0 16", f"a 1 {TRIGGER}", "f 0", "f 1"], weight=1)]
    r = run(broken("stack-deep"), *files, tmp=tmp_path)
    assert r.rc == 1, r.out + r.err
    t = r.trace("deep")
    assert (t["outcome"], t["op_index"]) == ("crashed", 1)
    assert re.fullmatch(r"crashed with SIGSEGV \(Segmentation fault\) at op 1 \(a 1 777\) of the correctness pass: "
                        r"it touched 0x[0-9a-f]+, past the end of the stack, which is limited to \d+ KiB in the "
                        r"trace's process \(a large local array, or deep recursion\?\)", t["message"]), t["message"]

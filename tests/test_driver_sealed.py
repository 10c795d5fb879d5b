"""The trace and libc's timing are out of the allocator's reach: the red team's
rules-clean allocators (no system call) forged their scores through libc's
tunables and through the child's copy of the trace.  (They also forged the child's
report; there is no report any more: the parent concludes everything itself.)
Each test below fails on the driver before its fix.
"""
from __future__ import annotations

import re

from driver_common import TRIGGER, broken, run, write_trace

CLEAN = ["a 0 16", "a 1 200", "r 0 300", "f 1", "a 2 40", "f 0", "f 2"]


def test_libc_is_timed_before_any_allocator_code_runs(tmp_path):
    """slow-libc.c's first mm_init makes glibc mmap every heap growth and trim at every
    free: timed after it, libc ran many times slower.  Timed first, libc runs as
    fast as beside an allocator that leaves it alone (measured: 74x slower before,
    the same after; timing noise is far below the 4x allowed here).  Writing libc's
    settings is itself a change of memory outside the heap: the audit calls it
    tampered, and libc's timing is still there for the record."""
    ops = [f"a {i} {64 + i % 300}" for i in range(3000)] + [f"f {i}" for i in range(3000)]
    trace = write_trace(tmp_path, "grow", ops, weight=1)
    slowed = run(broken("slow-libc"), "-f", trace, tmp=tmp_path).trace("grow")
    honest = run(broken("segv"), "-f", trace, tmp=tmp_path).trace("grow")  # bump.h, no TRIGGER here
    assert (slowed["outcome"], honest["outcome"]) == ("tampered", "ok")
    assert re.fullmatch(r"it changed \d+ bytes of memory outside the heap, in libc's data \(its malloc's settings among "
                        r"them\) \(the first at 0x[0-9a-f]+\); allocator metadata belongs in the heap, or in mm\.c's "
                        r"own globals", slowed["message"]), slowed["message"]
    assert slowed["libc"]["seconds"] < 4 * honest["libc"]["seconds"], (slowed["libc"], honest["libc"])


def test_the_trace_is_not_in_the_childs_process(tmp_path):
    """trace-rewrite.c looks for the driver's trace_t up the stack and would rewrite the
    ops it points to into one op of the trace's peak payload (utilization the ideal,
    the timed runs one op); the red team did.  The trace is the parent's alone: the
    child serves calls on a stack of its own, with no driver frame that names the
    trace above the allocator's, and the ops are in pages a child does not inherit.
    The search runs off the stack, or reads the ops' address, and faults."""
    ops = [op for i in range(50) for op in (f"a {i} 1000", f"f {i}")]
    files = ["-f", write_trace(tmp_path, "rewritten", ops, weight=1)]
    r = run(broken("trace-rewrite"), *files, tmp=tmp_path)
    assert r.rc == 1, r.out + r.err
    t = r.trace("rewritten")
    assert (t["outcome"], t["utilization"]) == ("crashed", None)
    assert re.fullmatch(r"crashed with SIGSEGV \(Segmentation fault\) in mm_init, before the first op of the "
                        r"correctness pass: it touched 0x[0-9a-f]+, "
                        r"(which is not in the heap|where the parent keeps the trace's ops: the trace's process has "
                        r"no copy of them)", t["message"]), t["message"]


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

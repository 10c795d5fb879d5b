"""The timed runs are the checked runs: the utilization comes from a checked run, and each
timed run must place every block where the checked run did, keep every payload, and start
with nothing of an earlier run in reach -- each shown by a purpose-built allocator
(tests/c/broken/) that behaves when checked and cheats when timed.

Addresses are computed by hand from the bump layout of tests/c/broken/bump.h (bump_block).
"""
from __future__ import annotations

import re

import pytest

from driver_common import TRIGGER, broken, bump_block as block, heap_base, run, write_trace

LO = heap_base()


# ------------------------------------------------------------ utilization comes from a checked run

UTIL_OPS = [f"a {i} {100 + 10 * i}" for i in range(20)] + [f"f {i}" for i in range(0, 20, 2)] + \
    [f"a {i} 50" for i in range(0, 20, 2)]


def bump_utilization(ops: list[str]) -> tuple[int, int]:
    """Peak live payload and heap of the honest bump allocator (it never reuses a byte)."""
    live, peak, heap, sizes = 0, 0, 0, {}
    for op in ops:
        kind, ident, *size = op.split()
        if kind == "f":
            live -= sizes.pop(ident)
            continue
        sizes[ident] = int(size[0])
        live += int(size[0])
        heap += block(int(size[0]))
        peak = max(peak, live)
    return peak, heap


@pytest.mark.parametrize("name", ["util-overlap", "util-cheat"])
def test_utilization_is_measured_in_the_checked_run(tmp_path, name):
    """util-overlap.c packs every block at the heap's start and util-cheat.c serves them
    from outside the heap, both from the third mm_init on, where an unchecked
    utilization pass used to run (QA: 83.5% -> 100% on realloc-vectors, below 100% so
    never caught).  The utilization is now the checked run's: the honest bump figure."""
    trace = write_trace(tmp_path, "util", UTIL_OPS, weight=2)
    r = run(broken(name), "-f", trace, tmp=tmp_path)
    assert r.rc == 0, r.out + r.err
    t = r.trace("util")
    peak, heap = bump_utilization(UTIL_OPS)
    assert (t["outcome"], t["peak_payload"], t["heap_high_water"]) == ("ok", peak, heap)
    assert t["utilization"] == pytest.approx(peak / heap)


# ------------------------------------------------------------ timed runs must behave as checked ones

TIMED = (r"op {op} \({text}\): the timed run placed the block at heap offset {timed}, the checked run at {checked} "
         r"\(mm_init must reset all state; an allocator must not behave differently when timed\)")


def assert_inconsistent(r, name: str, op: int, text: str, timed: str, checked: str) -> None:
    assert r.rc == 1
    t = r.trace(name)
    assert (t["outcome"], t["op_index"], t["op"], t["timing"]) == ("inconsistent", op, text, None)
    assert re.fullmatch(TIMED.format(op=op, text=text, timed=timed, checked=checked), t["message"]), t["message"]
    assert r.row(name)[0].split()[2] == "inconsistent" and r.row(name)[1].strip() == t["message"]


def test_blocks_packed_when_timed_are_caught_at_the_first_moved_block(tmp_path):
    """util-overlap.c packs every block at the heap's start once it is timed: its
    first block lands where the checked run's did, its second does not."""
    r = run(broken("util-overlap"), "-f", write_trace(tmp_path, "both", UTIL_OPS, weight=1), tmp=tmp_path)
    assert_inconsistent(r, "both", 1, "a 1 110", "0x10", f"{block(100) + 16:#x}")
    assert r.summary["perf_index"] == 0


def test_blocks_outside_the_heap_when_timed_are_caught_at_the_first_op(tmp_path):
    """util-cheat.c serves the timed runs from a static array outside the heap."""
    r = run(broken("util-cheat"), "-f", write_trace(tmp_path, "both", UTIL_OPS, weight=1), tmp=tmp_path)
    assert_inconsistent(r, "both", 0, "a 0 100", "0x[0-9a-f]+", "0x10")


def test_timing_runs_served_from_one_static_buffer(tmp_path):
    """timing-cheat.c is honest until the timed runs, which all get one static buffer."""
    ops = [f"a {i} {16 + i}" for i in range(200)] + [f"f {i}" for i in range(0, 200, 2)]
    files = ["-f", write_trace(tmp_path, "bad", ops, weight=1), "-f", write_trace(tmp_path, "w0", ops, weight=0)]
    r = run(broken("timing-cheat"), *files, tmp=tmp_path)
    assert_inconsistent(r, "bad", 0, "a 0 16", "0x[0-9a-f]+", "0x10")
    assert r.trace("w0")["outcome"] == "ok"  # never timed, so never caught: the checked runs are honest
    assert r.summary["throughput_ratio"] is None and r.summary["perf_index"] == 0


def test_null_when_timed_for_a_block_at_the_heaps_start_is_caught(tmp_path):
    """timing-null.c's timed runs return NULL where the checked runs got the block at the
    heap's start, freed before the end: NULL's placement was the offset of that block (the
    heap's start is 4 GiB-aligned), so the timed runs skipped the work unseen."""
    ops = ["a 0 16", "a 1 100", "f 0", "a 2 32", "f 2", "f 1"]
    r = run(broken("timing-null"), "-f", write_trace(tmp_path, "bad", ops, weight=1), tmp=tmp_path)
    assert r.rc == 1
    t = r.trace("bad")
    assert (t["outcome"], t["op_index"], t["op"]) == ("inconsistent", 0, "a 0 16"), t
    assert t["message"] == ("op 0 (a 0 16): the timed run got NULL, the checked run a block at heap offset 0 (mm_init "
                            "must reset all state; an allocator must not behave differently when timed)")



def test_a_block_when_timed_for_a_checked_null_is_caught(tmp_path):
    """timing-zero.c answers malloc(0) with NULL when checked and with a block when timed: the
    message names the checked run's NULL, not an offset of 0xffffffff."""
    ops = ["a 0 0", "a 1 16", "f 0", "f 1"]
    r = run(broken("timing-zero"), "-f", write_trace(tmp_path, "zero", ops, weight=1), tmp=tmp_path)
    assert r.rc == 1
    t = r.trace("zero")
    assert (t["outcome"], t["op_index"]) == ("inconsistent", 0), t
    assert t["message"].startswith("op 0 (a 0 0): the timed run placed a block at heap offset "), t
    assert t["message"].endswith(", the checked run got NULL (mm_init must reset all state; an allocator "
                                 "must not behave differently when timed)"), t

REALLOC_OPS = [f"a {i} {100 + i}" for i in range(50)] + [f"r {i} {300 + i}" for i in range(50)] + \
              [f"f {i}" for i in range(50)]


def assert_timed_realloc_lost_payload(name: str, tmp_path) -> None:
    r = run(broken(name), "-f", write_trace(tmp_path, "bad", REALLOC_OPS, weight=1), tmp=tmp_path)
    assert r.rc == 1
    t = r.trace("bad")
    assert t["outcome"] == "inconsistent" and t["timing"] is None and 50 <= t["op_index"] < 100
    assert t["message"] == (f"op {t['op_index']} ({t['op']}): the timed run's realloc lost the block's payload (a "
                            "byte the driver had written into it was not in the block it returned; an allocator "
                            "must not behave differently when timed)")
    # The same allocator is honest when only checked.
    r = run(broken(name), "-f", write_trace(tmp_path, "checked", REALLOC_OPS, weight=0), tmp=tmp_path)
    assert r.rc == 0 and r.trace("checked")["outcome"] == "ok"


def test_timing_runs_whose_realloc_skips_the_copy(tmp_path):
    """timing-nocopy.c places every block as in the checked runs, but when timed its
    realloc does not copy: the byte each timed run writes into a block is gone."""
    assert_timed_realloc_lost_payload("timing-nocopy", tmp_path)


def test_timing_runs_with_the_right_places_past_the_break(tmp_path):
    """timing-nosbrk.c places every timed block where the checked run did, without
    growing the heap: caught by the blocks still live at the end."""
    ops = [f"a {i} {16 + i}" for i in range(200)] + [f"f {i}" for i in range(0, 200, 2)]
    r = run(broken("timing-nosbrk"), "-f", write_trace(tmp_path, "bad", ops, weight=1), tmp=tmp_path)
    assert r.rc == 1
    t = r.trace("bad")
    assert t["outcome"] == "out_of_heap" and t["timing"] is None
    assert re.match(r"in the timing pass, a \d+-byte block still live at the end, at 0x[0-9a-f]+, ", t["message"])
    assert t["message"].endswith(f"is outside the heap [{LO:#x}, {LO:#x})")
    assert r.row("bad")[1].strip() == t["message"]


def test_timing_runs_that_write_far_past_the_break(tmp_path):
    """timing-past-break.c is honest but, when timed, writes two bytes 1 MiB and
    1 MiB + 40 KiB above the heap's start without growing it: a timed run's heap is
    writable to its maximum, so only the parent's look at the pages it touched
    (mincore, untimed) finds it."""
    ops = ["a 0 100", "a 1 200", "f 0", "f 1"]
    r = run(broken("timing-past-break"), "-f", write_trace(tmp_path, "bad", ops, weight=1), tmp=tmp_path)
    assert r.rc == 1, r.out + r.err
    t = r.trace("bad")
    assert t["outcome"] == "out_of_heap" and t["timing"] is None and t["op_index"] is None
    high = block(100) + block(200)
    far = 1 << 20
    assert t["message"] == (f"in the timing pass, the allocator touched the heap at {LO + far:#x} ({far} bytes above "
                            f"its start), past the break: the checked runs' highest break was {high} bytes above it "
                            "(bytes past the break are not the allocator's, timed or not)")
    assert t["utilization"] == pytest.approx(300 / high)  # the checked runs' figure is kept
    assert r.row("bad")[1].strip() == t["message"]
    # Only checked: honest.
    r = run(broken("timing-past-break"), "-f", write_trace(tmp_path, "checked", ops, weight=0), tmp=tmp_path)
    assert r.rc == 0 and r.trace("checked")["outcome"] == "ok"


def test_timing_runs_that_write_into_the_break_pages_slack(tmp_path):
    """timing-slack.c, when timed, writes the last byte of the break's page at each
    free: in a timed run there is no canary, but the scrub left those bytes zero."""
    ops = ["a 0 100", "a 1 200", "f 0", "f 1"]
    r = run(broken("timing-slack"), "-f", write_trace(tmp_path, "bad", ops, weight=1), tmp=tmp_path)
    assert r.rc == 1, r.out + r.err
    t = r.trace("bad")
    assert t["outcome"] == "out_of_heap" and t["timing"] is None
    high, last = block(100) + block(200), 4095
    assert t["message"].startswith(f"in the timing pass, the allocator touched the heap at {LO + last:#x} ({last} "
                                   f"bytes above its start), past the break: the checked runs' highest break was "
                                   f"{high} bytes"), t["message"]


# A timed run must start with nothing of an earlier run in reach (rt_replay.c, red team #6):
# a table of the checked run's placements, replayed instead of allocating.
MEMO_OPS = [f"a {i} {16 + i}" for i in range(200)] + [f"f {i}" for i in range(0, 200, 2)] + \
           [f"a {i} {30 + i}" for i in range(0, 200, 2)]


@pytest.mark.parametrize("name", ["replay-stack", "replay-state"])
def test_a_table_of_placements_kept_between_runs_is_gone_when_timed(tmp_path, name):
    """replay-stack.c keeps its table in the stack below its frame, replay-state.c in
    the unused rest of memlib's state pages; each answers every timed malloc from it.
    Each timed run now starts with the stack below the loop and memlib's spare state
    bytes scrubbed: the table reads as zeros.  The rest of memlib's state pages is
    audited too, so replay-state's first timed run, which writes the table, is
    tampered before a second one can read it."""
    r = run(broken(name), "-f", write_trace(tmp_path, "memo", MEMO_OPS, weight=1), tmp=tmp_path)
    if name == "replay-state":
        t = r.trace("memo")
        assert r.rc == 1 and (t["outcome"], t["timing"]) == ("tampered", None), t["message"]
        assert "in the unused rest of memlib's state pages" in t["message"], t["message"]
    else:
        assert_inconsistent(r, "memo", 0, "a 0 16", "0", "0x10")
    # Honest when only checked.
    r = run(broken(name), "-f", write_trace(tmp_path, "checked", MEMO_OPS, weight=0), tmp=tmp_path)
    assert r.rc == 0 and r.trace("checked")["outcome"] == "ok"


def test_a_timed_run_starts_on_a_clean_heap_wherever_memlib_says_the_heap_is(tmp_path):
    """timing-unscrubbed.c points memlib's kept copy of the heap's start at its end
    (opened with the mprotect the sandbox allows there), so that the next run's clean
    start zeroed nothing, and says so when an earlier run's bytes are still there
    (red team, 2026-11-24).  The clean start now takes the heap's range from the
    parent's call: every timed run finds a zeroed heap."""
    ops = [f"a {i} {16 + i}" for i in range(50)] + [f"f {i}" for i in range(50)]
    r = run(broken("timing-unscrubbed"), "-f", write_trace(tmp_path, "clean", ops, weight=1), "-r", "3", tmp=tmp_path)
    t = r.trace("clean")
    assert r.rc == 0 and t["outcome"] == "ok" and len(t["timing"]["samples"]) >= 3, t["message"]
    assert "earlier timed run's heap" not in t["output"], t["output"]


def test_a_table_of_placements_kept_past_the_break_is_out_of_heap_when_timed(tmp_path):
    """replay-heap.c keeps its table 8 MiB above the heap's start, past the break,
    written by its first timed run (honest otherwise): that run is caught touching
    the heap past the checked runs' highest break."""
    r = run(broken("replay-heap"), "-f", write_trace(tmp_path, "memo", MEMO_OPS, weight=1), tmp=tmp_path)
    assert r.rc == 1
    t = r.trace("memo")
    assert (t["outcome"], t["op_index"], t["timing"]) == ("out_of_heap", None, None)
    at = 8 << 20
    assert t["message"].startswith(f"in the timing pass, the allocator touched the heap at {LO + at:#x} ({at} bytes "
                                   "above its start), past the break"), t["message"]
    r = run(broken("replay-heap"), "-f", write_trace(tmp_path, "checked", MEMO_OPS, weight=0), tmp=tmp_path)
    assert r.rc == 0 and r.trace("checked")["outcome"] == "ok"


def test_the_drivers_record_of_the_checked_run_is_out_of_reach_when_timed(tmp_path):
    """replay-driver.c keeps no table: it looks in the driver's frames above its own
    for a pointer to the driver's record of the checked run's placements, and would
    replay it.  The child serves calls on a stack of its own, whose frames above the
    allocator's are the serving loop's, and the record is the parent's alone (pages a
    child does not inherit): the search finds nothing and its mm_init fails the
    timed run (or, had it followed a stray pointer, the read faults)."""
    trace = write_trace(tmp_path, "memo", MEMO_OPS, weight=1)
    r = run(broken("replay-driver"), "-f", trace, tmp=tmp_path)
    assert r.rc == 1
    t = r.trace("memo")
    assert t["outcome"] in ("init_failed", "crashed") and t["timing"] is None, (t["outcome"], t["message"])
    if t["outcome"] == "init_failed":
        assert t["message"] == "mm_init returned -1 before a timing run", t["message"]


def test_the_timing_pass_plan_of_checked_bytes_is_out_of_reach(tmp_path):
    """timing-untag.c skips the copy of its timed reallocs, as timing-nocopy.c does, and
    would hide it: it looks in the driver's frames above its own for the plan of the
    bytes checked after each realloc, to mark every op "not checked".  The child serves
    calls on a stack of its own, and the parent alone keeps what it expects: the plan
    is not found, and the lost payload is caught as timing-nocopy.c's is."""
    assert_timed_realloc_lost_payload("timing-untag", tmp_path)


def test_timed_runs_are_compared_past_a_realloc_to_zero_that_returns_a_block(tmp_path):
    """realloc0-late.c's realloc(p, 0) returns a block; when timed, after that op, a
    request of TRIGGER bytes gets a fresh block instead of the one it reuses when checked.
    The checked runs free such a block at once; the timed runs used to keep it, so the
    runs were compared only up to that op.  Now the timed runs free it too, and every op
    compares: the honest trace passes and the other is caught at the TRIGGER request."""
    ops = ["a 0 100", "a 1 1000", "r 0 0", "a 2 40", "f 2", "f 1"]
    files = ["-f", write_trace(tmp_path, "bad", ops + [f"a 3 {TRIGGER}", "f 3"], weight=1),
             "-f", write_trace(tmp_path, "honest", ops + ["a 3 700", "f 3"], weight=1)]
    r = run(broken("realloc0-late"), *files, tmp=tmp_path)
    assert_inconsistent(r, "bad", 6, f"a 3 {TRIGGER}", f"{block(100) + block(1000) + 16:#x}", f"{block(100) + 16:#x}")
    assert r.trace("honest")["outcome"] == "ok" and r.trace("honest")["timing"] is not None


def test_mm_init_is_part_of_each_timed_run(tmp_path):
    """timing-init.c spends ~20 ms of arithmetic in each timed run's mm_init: work an
    allocator could move there (answers computed untimed, then replayed) now counts."""
    r = run(broken("timing-init"), "-f", write_trace(tmp_path, "init", MEMO_OPS, weight=1), tmp=tmp_path)
    assert r.rc == 0, r.out + r.err
    timing = r.trace("init")["timing"]
    assert min(timing["samples"]) > 0.005, timing


def test_a_second_checked_run_that_places_blocks_elsewhere_is_inconsistent(tmp_path):
    """drift.c is correct in every run, but mm_init does not reset where blocks start."""
    r = run(broken("drift"), "-f", write_trace(tmp_path, "bad", ["a 0 16", "a 1 40", "f 0", "f 1"]), tmp=tmp_path)
    assert r.rc == 1
    t = r.trace("bad")
    assert (t["outcome"], t["op_index"], t["op"]) == ("inconsistent", 0, "a 0 16")
    assert t["message"] == ("op 0 (a 0 16): the second checked run placed the block at heap offset 0x30, the first "
                            "at 0x20 (mm_init must reset all state: the same ops from mm_init must give the same "
                            "blocks; does the allocator read heap bytes it never wrote?)")
    assert r.row("bad")[1].strip() == t["message"]


def test_a_checker_that_changes_the_allocators_state_is_named_as_a_cause(tmp_path):
    """checker-tidies.c's checker forgets the block its allocator would reuse: under -c, which runs
    it in the first checked run only, the second run places the block elsewhere.  The message sent
    the student to mm_init and to heap bytes never written, never to the checker."""
    trace = write_trace(tmp_path, "bad", ["a 0 16", "f 0", "a 1 16", "f 1"])
    r = run(broken("checker-tidies"), "-c", "-f", trace, tmp=tmp_path)
    t = r.trace("bad")
    assert r.rc == 1 and (t["outcome"], t["op_index"], t["op"]) == ("inconsistent", 2, "a 1 16")
    assert t["message"] == ("op 2 (a 1 16): the second checked run placed the block at heap offset 0x10, the first "
                            "at 0x30 (mm_init must reset all state: the same ops from mm_init must give the same "
                            "blocks; does the allocator read heap bytes it never wrote, or does mm_checkheap change "
                            "the allocator's state (-c runs it in the first run only)?)")
    assert r.row("bad")[1].strip() == t["message"]
    assert run(broken("checker-tidies"), "-f", trace, tmp=tmp_path).rc == 0  # without -c, correct

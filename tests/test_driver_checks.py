"""The correctness pass catches every defect, each in a purpose-built allocator
(tests/c/broken/), with the right outcome in the JSON, a message that names the
op and the addresses, and exit status 1 -- while a clean trace in the same run
still passes.

Addresses are computed by hand from the bump layout of tests/c/broken/bump.h:
a block of n bytes takes 16 + round_up(n, 16) bytes and its payload starts 16
bytes in; the heap starts at HEAP_BASE (driver/heap.h) in every run.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from driver_common import TRIGGER, broken, bump_block as block, heap_base, run, variant, write_trace

LO = heap_base()


def check(name: str, ops: list[str], tmp: Path, *flags: str, extra_ok: bool = True):
    """Run allocator `name` on the trace `ops` (and on a clean trace); return the bad trace's JSON, row, message."""
    bad = write_trace(tmp, "bad", ops)
    files = ["-f", bad]
    if extra_ok:
        files += ["-f", write_trace(tmp, "clean", ["a 0 16", "a 1 40", "r 0 100", "f 1", "f 0"])]
    r = run(broken(name), *files, *flags, tmp=tmp)
    assert r.rc == 1, r.out + r.err
    if extra_ok:
        assert r.trace("clean")["outcome"] == "ok"
        assert r.summary["valid"] == 1 and r.summary["failed"] == 1
    row, message = r.row("bad")
    return r.trace("bad"), row, message


def assert_reported(t: dict, row: str, message: str, outcome: str, op_index: int | None, op: str | None,
                    *fragments: str) -> None:
    assert t["outcome"] == outcome, t
    assert t["op_index"] == op_index
    assert t["op"] == op
    assert row.split()[1:3] == ["bad", outcome]
    if op_index is not None and op is not None:
        assert message.strip().startswith(f"op {op_index} ({op})"), message
    for fragment in fragments:
        assert fragment in message, f"{fragment!r} not in {message!r}"
        assert fragment in t["message"]
    assert t["message"] == message.strip()


def test_misaligned_by_a_word_is_not_only_sent_to_alignment_8(tmp_path):
    """A 16-byte allocator whose payload is one word off (a missing padding word) was told
    only "an 8-byte-aligned allocator? build with make ALIGNMENT=8", which hides the bug
    locally and fails every trace under a 16-byte grader: the hint names both causes."""
    t, row, msg = check("misaligned", ["a 0 16", f"a 1 {TRIGGER}", "f 0"], tmp_path)
    assert t["outcome"] == "misaligned"
    assert "build with make ALIGNMENT=8" in msg
    assert "an allocator meant for 16 has its payload one 8-byte word off" in msg, msg


@pytest.mark.parametrize("ops", [["a 0 100", "a 1 0", "f 1", "f 0"], ["a 1 0", "f 1"]])
def test_a_zero_byte_block_may_sit_at_the_break(tmp_path, ops):
    """malloc0-break.c's mm_malloc(0) returns the break without growing the heap, as
    a header-only block of the starter mm.c lands there: mm.h allows it (a unique
    block), even on an empty heap."""
    r = run(broken("malloc0-break"), "-f", write_trace(tmp_path, "zero", ops, weight=0), tmp=tmp_path)
    assert r.rc == 0 and r.trace("zero")["outcome"] == "ok", r.out


def test_null_for_a_zero_byte_request_is_accepted(tmp_path):
    """malloc0-null.c returns NULL for mm_malloc(0) and mm_realloc(NULL, 0): allowed."""
    ops = ["a 0 0", "a 1 16", "n 2 0", "r 1 0", "f 0", "f 2"]
    r = run(broken("malloc0-null"), "-f", write_trace(tmp_path, "zero", ops, weight=0), tmp=tmp_path)
    assert r.rc == 0 and r.trace("zero")["outcome"] == "ok", r.out


def test_misaligned(tmp_path):
    t, row, msg = check("misaligned", ["a 0 16", f"a 1 {TRIGGER}", "f 0"], tmp_path)
    addr = LO + block(16 + 16) + 16 + 8  # misaligned.c asks 16 bytes extra per block; then 8 off
    assert_reported(t, row, msg, "misaligned", 1, f"a 1 {TRIGGER}", f"mm_malloc({TRIGGER}) returned {addr:#x}",
                    "not a multiple of 16", "make ALIGNMENT=8")



def test_minus_one_is_told_as_mem_sbrks_failure_not_only_misaligned(tmp_path):
    """minus-one.c passes mem_sbrk's (void *)-1 on as mm_malloc's failure: the message said only
    'returned 0xffffffffffffffff, which is not a multiple of 16', sending the student to the
    alignment code."""
    t, row, msg = check("minus-one", ["a 0 16", f"a 1 {TRIGGER}", "f 0"], tmp_path)
    assert_reported(t, row, msg, "misaligned", 1, f"a 1 {TRIGGER}",
                    f"mm_malloc({TRIGGER}) returned 0xffffffffffffffff, (void *)-1: mem_sbrk's failure value; "
                    "mm_malloc returns NULL when it cannot serve a request")
    assert "ALIGNMENT=8" not in msg

def test_below_the_heap(tmp_path):
    t, row, msg = check("below-heap", ["a 0 16", f"a 1 {TRIGGER}"], tmp_path)
    brk = LO + block(16) + block(TRIGGER)
    assert_reported(t, row, msg, "out_of_heap", 1, f"a 1 {TRIGGER}", f"returned {LO - 64:#x}",
                    f"outside the heap [{LO:#x}, {brk:#x})")


def test_past_the_break(tmp_path):
    t, row, msg = check("past-break", ["a 0 16", f"a 1 {TRIGGER}"], tmp_path)
    brk = LO + block(16) + block(TRIGGER)
    assert_reported(t, row, msg, "out_of_heap", 1, f"a 1 {TRIGGER}", f"returned {brk + 4096:#x}",
                    f"outside the heap [{LO:#x}, {brk:#x})")


def test_block_that_straddles_the_break(tmp_path):
    t, row, msg = check("straddle", ["a 0 16", f"a 1 {TRIGGER}"], tmp_path)
    brk = LO + block(16) + block(TRIGGER)
    assert_reported(t, row, msg, "out_of_heap", 1, f"a 1 {TRIGGER}", f"returned {brk - 64:#x}",
                    f"a block which ends {TRIGGER - 64} bytes past the break {brk:#x}")


def test_block_one_byte_past_the_break(tmp_path):
    """past-one.c's block ends exactly one byte past the break."""
    t, row, msg = check("past-one", ["a 0 16", f"a 1 {TRIGGER}"], tmp_path)
    p1 = LO + block(16) + 16
    assert_reported(t, row, msg, "out_of_heap", 1, f"a 1 {TRIGGER}", f"returned {p1:#x}, a block which ends 1 byte "
                    f"past the break {p1 + TRIGGER - 1:#x}")


def test_block_at_the_break_is_told_by_how_far_it_ends_past_it(tmp_path):
    """at-break.c returns the break itself for a TRIGGER-byte request: where a 0-byte
    block may sit, so the message says how far past the break this one ends."""
    t, row, msg = check("at-break", ["a 0 16", f"a 1 {TRIGGER}"], tmp_path)
    brk = LO + block(16)
    assert_reported(t, row, msg, "out_of_heap", 1, f"a 1 {TRIGGER}", f"returned {brk:#x}, a block which ends "
                    f"{TRIGGER} bytes past the break {brk:#x}")


def test_a_realloc_is_named_with_its_pointer(tmp_path):
    """The call as the allocator got it: the old block's address, or NULL for an n op."""
    t, row, msg = check("straddle", ["a 0 16", f"r 0 {TRIGGER}"], tmp_path)
    brk = LO + block(16) + block(TRIGGER)
    assert_reported(t, row, msg, "out_of_heap", 1, f"r 0 {TRIGGER}",
                    f"mm_realloc({LO + 16:#x}, {TRIGGER}) returned {brk - 64:#x}, a block which ends "
                    f"{TRIGGER - 64} bytes past the break {brk:#x}")
    t, row, msg = check("null-early", ["a 0 16", f"n 1 {TRIGGER}"], tmp_path)
    assert_reported(t, row, msg, "alloc_failed", 1, f"n 1 {TRIGGER}", f"mm_realloc(NULL, {TRIGGER}) returned NULL")


def test_an_n_op_calls_realloc_not_malloc(tmp_path):
    """realloc-null.c's mm_realloc(NULL, n) alone is broken: the checked run must make
    that call for an n op, not mm_malloc's, or it passes what only the timing pass then
    sees as an inconsistency."""
    t, row, msg = check("realloc-null", ["a 0 16", f"n 1 {TRIGGER}", "f 0", "f 1"], tmp_path)
    assert_reported(t, row, msg, "misaligned", 1, f"n 1 {TRIGGER}",
                    f"mm_realloc(NULL, {TRIGGER}) returned {LO + block(16) + 16 + 8:#x}, which is not a multiple of 16")


# ------------------------------------------------------------ overlap geometries

def test_new_block_strictly_contains_an_old_one(tmp_path):
    """Ends of the new block in no old block, yet it swallows one: the classic hole."""
    t, row, msg = check("overlap-contains", ["a 0 16", "a 1 16", f"a 2 {TRIGGER}"], tmp_path)
    p1 = LO + block(16) + 16
    new = p1 - 16  # starts at id 1's header: right where id 0 ends, so id 0 only touches
    assert_reported(t, row, msg, "overlap", 2, f"a 2 {TRIGGER}", f"returned [{new:#x}, {new + TRIGGER:#x})",
                    f"overlaps id 1's live block [{p1:#x}, {p1 + 16:#x}) from op 1")


def test_new_block_inside_an_old_one(tmp_path):
    t, row, msg = check("overlap-contained", [f"a 0 {TRIGGER}", "a 1 16"], tmp_path)
    p0 = LO + 16
    assert_reported(t, row, msg, "overlap", 1, "a 1 16", f"returned [{p0 + 32:#x}, {p0 + 48:#x})",
                    f"overlaps id 0's live block [{p0:#x}, {p0 + TRIGGER:#x}) from op 0")


def test_new_block_whose_last_byte_is_a_live_blocks_first(tmp_path):
    """overlap-edge.c's 17-byte block at the heap's start ends one byte into id 0."""
    t, row, msg = check("overlap-edge", ["a 0 100", "a 1 17"], tmp_path)
    p0 = LO + 16
    assert_reported(t, row, msg, "overlap", 1, "a 1 17", f"returned [{LO:#x}, {LO + 17:#x})",
                    f"overlaps id 0's live block [{p0:#x}, {p0 + 100:#x}) from op 0")


def test_new_block_below_every_live_block(tmp_path):
    """Starts below all live blocks and overlaps the lowest without containing it."""
    t, row, msg = check("overlap-below", ["a 0 2000", "a 1 16", f"a 2 {TRIGGER}"], tmp_path)
    p0 = LO + 16
    assert_reported(t, row, msg, "overlap", 2, f"a 2 {TRIGGER}", f"returned [{LO:#x}, {LO + TRIGGER:#x})",
                    f"overlaps id 0's live block [{p0:#x}, {p0 + 2000:#x}) from op 0")


@pytest.mark.parametrize("size", [64, 17])  # 17: the two share one byte, id 1's last
def test_new_block_above_every_live_block(tmp_path, size):
    t, row, msg = check("overlap-above", ["a 0 16", f"a 1 {size}", f"a 2 {TRIGGER}"], tmp_path)
    p1 = LO + block(16) + 16
    assert_reported(t, row, msg, "overlap", 2, f"a 2 {TRIGGER}", f"returned [{p1 + 16:#x}, {p1 + 16 + TRIGGER:#x})",
                    f"overlaps id 1's live block [{p1:#x}, {p1 + size:#x}) from op 1")


@pytest.mark.parametrize("ops, old", [(["a 0 100", "a 1 0"], 100), (["a 0 0", "a 1 0"], 0)])
def test_a_zero_byte_block_inside_a_live_one_overlaps(tmp_path, ops, old):
    """zero-overlap.c's malloc(0) returns the last block, still live: a 0-byte block (new
    or live) counts as one byte, so it overlaps a live block it sits in, 0 bytes or not."""
    t, row, msg = check("zero-overlap", ops, tmp_path)
    p0 = LO + 16
    assert_reported(t, row, msg, "overlap", 1, "a 1 0", f"mm_malloc(0) returned [{p0:#x}, {p0 + 1:#x})",
                    f"overlaps id 0's live block [{p0:#x}, {p0 + max(old, 1):#x}) from op 0")


def test_blocks_that_only_touch_are_accepted(tmp_path):
    """tests/c/broken/touching.c packs blocks edge to edge, below and above: correct."""
    ops = [f"a {i} {8 + 16 * i}" for i in range(12)] + ["f 3", "r 5 300", "a 3 1", "f 0", "r 7 0", "n 0 48"]
    r = run(broken("touching"), "-f", write_trace(tmp_path, "touch", ops), tmp=tmp_path)
    assert r.rc == 0, r.out + r.err
    assert r.trace("touch")["outcome"] == "ok"
    assert r.row("touch")[0].split()[2] == "ok"


# ------------------------------------------------------------ payloads

def test_neighbour_corruption_found_when_the_block_is_freed(tmp_path):
    t, row, msg = check("neighbour", ["a 0 16", f"a 1 {TRIGGER}", "f 0", "f 1"], tmp_path)
    p0 = LO + 16
    assert_reported(t, row, msg, "payload_corrupted", 2, "f 0", f"the payload of id 0 (16 bytes at {p0:#x}, from op 0)",
                    f"changed at byte 15 ({p0 + 15:#x})", "found when it was freed")


def test_neighbour_corruption_found_before_a_realloc_that_drops_it(tmp_path):
    """Byte 15 of id 0 is broken, then id 0 shrinks to 8 bytes: the realloc keeps none of
    the broken byte, so only the check before the call can see it, and blames no realloc."""
    t, row, msg = check("neighbour", ["a 0 16", f"a 1 {TRIGGER}", "r 0 8", "f 0", "f 1"], tmp_path)
    p0 = LO + 16
    assert_reported(t, row, msg, "payload_corrupted", 2, "r 0 8", f"the payload of id 0 (16 bytes at {p0:#x}, from op 0)",
                    f"changed at byte 15 ({p0 + 15:#x})", "found before it was reallocated")


def test_neighbour_corruption_found_at_the_end(tmp_path):
    """The block is never freed or reallocated: only the end-of-trace sweep sees it."""
    t, row, msg = check("neighbour", ["a 0 16", f"a 1 {TRIGGER}", "a 2 16"], tmp_path)
    p0 = LO + 16
    assert t["outcome"] == "payload_corrupted"
    assert row.split()[1:3] == ["bad", "payload_corrupted"]
    for fragment in ("after the last op", f"16 bytes at {p0:#x}", f"changed at byte 15 ({p0 + 15:#x})",
                     "found at the end of the trace"):
        assert fragment in msg and fragment in t["message"]


def test_corruption_of_the_last_id_found_at_the_end(tmp_path):
    """The end-of-trace sweep reaches the trace's highest id too (here id 1, below the TRIGGER block)."""
    t, row, msg = check("neighbour", ["a 1 16", f"a 0 {TRIGGER}"], tmp_path)
    p1 = LO + 16
    assert t["outcome"] == "payload_corrupted"
    for fragment in (f"the payload of id 1 (16 bytes at {p1:#x}", f"changed at byte 15 ({p1 + 15:#x})",
                     "found at the end of the trace"):
        assert fragment in msg and fragment in t["message"]


def test_a_block_that_realloc_to_0_returns_is_checked(tmp_path):
    """realloc0-overlap.c's realloc(p, 0) returns id 1's live block: accepted as a
    malloc(0)'s would be only if it is one, and this one overlaps."""
    t, row, msg = check("realloc0-overlap", ["a 0 100", "a 1 100", "r 0 0", "f 1"], tmp_path)
    p0, p1 = LO + 16, LO + block(100) + 16
    assert_reported(t, row, msg, "overlap", 2, "r 0 0", f"mm_realloc({p0:#x}, 0) returned [{p1:#x}, {p1 + 1:#x})",
                    f"overlaps id 1's live block [{p1:#x}, {p1 + 100:#x}) from op 1")


def test_realloc_that_does_not_copy(tmp_path):
    t, row, msg = check("realloc-nocopy", ["a 0 100", "r 0 200", "f 0"], tmp_path, extra_ok=False)
    new = LO + block(100) + 16
    assert_reported(t, row, msg, "payload_corrupted", 1, "r 0 200", f"the payload of id 0 (200 bytes at {new:#x}",
                    "changed at byte 0", "so mm_realloc did not keep the old contents")


def test_realloc_onto_an_earlier_block_of_the_same_id_is_not_a_copy(tmp_path):
    """realloc-stale.c returns, uncopied, the block id 0 had before it was freed and
    allocated again: its bytes are id 0's, of the earlier generation, which a fill
    pattern of the id alone would take for the payload kept."""
    ops = ["a 0 800", "f 0", "a 0 100", f"r 0 {TRIGGER}", "f 0"]
    t, row, msg = check("realloc-stale", ops, tmp_path)
    assert_reported(t, row, msg, "payload_corrupted", 3, f"r 0 {TRIGGER}",
                    f"the payload of id 0 ({TRIGGER} bytes at {LO + 16:#x}, from op 2) changed at byte 0 ",
                    "so mm_realloc did not keep the old contents")


@pytest.mark.parametrize("old,new", [(100, 200), (100, 40)])
def test_realloc_that_copies_only_part(tmp_path, old, new):
    t, row, msg = check("realloc-partial", [f"a 0 {old}", f"r 0 {new}"], tmp_path, extra_ok=False)
    kept = min(old, new)
    assert_reported(t, row, msg, "payload_corrupted", 1, f"r 0 {new}", f"changed at byte {kept // 2} ",
                    "so mm_realloc did not keep the old contents")


def test_realloc_that_loses_one_byte(tmp_path):
    """realloc-skip.c loses only byte 0: the low byte of the payload's first word."""
    t, row, msg = check("realloc-skip", ["a 0 100", "r 0 200"], tmp_path, extra_ok=False)
    new = LO + block(100) + 16
    assert_reported(t, row, msg, "payload_corrupted", 1, "r 0 200", f"changed at byte 0 ({new:#x}): expected 0x",
                    "so mm_realloc did not keep the old contents")


def random_realloc_trace(folder: Path, seed: int, ids: int = 300, ops: int = 2000) -> Path:
    import random
    rng = random.Random(seed)
    live: dict[int, int] = {}
    out = []
    for _ in range(ops):
        roll = rng.random()
        if live and roll < 0.3:
            i = rng.choice(sorted(live))
            out.append(f"f {i}")
            del live[i]
        elif live and roll < 0.65:
            i = rng.choice(sorted(live))
            live[i] = rng.randint(1, 5000)
            out.append(f"r {i} {live[i]}")
        elif len(live) < ids:
            i = rng.choice([j for j in range(ids) if j not in live])
            live[i] = rng.randint(1, 5000)
            out.append(f"a {i} {live[i]}")
    return write_trace(folder, f"reallocs-{seed}", out, ids=ids)


def test_fill_bytes_at_or_above_0x80_go_through_a_correct_realloc(tmp_path):
    """high-bytes.c prints how many bytes >= 0x80 each realloc carries: about half."""
    trace = write_trace(tmp_path, "reallocs", ["a 0 64", "r 0 200", "r 0 100", "a 1 1000", "r 1 3000", "f 0", "f 1"])
    r = run(broken("high-bytes"), "-f", trace, tmp=tmp_path)
    assert r.rc == 0 and r.trace("reallocs")["outcome"] == "ok", r.out
    counts = [tuple(map(int, line.split()[1::2])) for line in r.trace("reallocs")["output"].splitlines()]
    assert counts[:3] == [(counts[0][0], 64), (counts[1][0], 100), (counts[2][0], 1000)]
    assert all(keep / 4 < high < 3 * keep / 4 for high, keep in counts[:3])


@pytest.mark.parametrize("allocator", ["segregated-realloc", "mm", "touching"])
def test_correct_realloc_passes_whatever_the_fill_bytes(tmp_path, allocator):
    """Fill bytes are all 256 values, half of them >= 0x80: a driver comparing them as
    signed chars against ints (the classic hole) would fail these correct reallocs."""
    driver = broken("touching") if allocator == "touching" else variant(None if allocator == "mm" else allocator)
    trace = random_realloc_trace(tmp_path, seed=2)
    r = run(driver, "-f", trace, tmp=tmp_path)
    assert r.rc == 0, r.out + r.err
    assert r.trace(trace.stem)["outcome"] == "ok"


# ------------------------------------------------------------ NULL, mm_init

def test_null_while_the_heap_can_grow(tmp_path):
    t, row, msg = check("null-early", ["a 0 16", f"a 1 {TRIGGER}"], tmp_path)
    room = 20 * 2**20 - block(16)
    assert_reported(t, row, msg, "alloc_failed", 1, f"a 1 {TRIGGER}",
                    f"mm_malloc({TRIGGER}) returned NULL although the heap could still grow by {room} bytes")


def test_null_when_the_heap_could_grow_by_exactly_the_request(tmp_path):
    """high-bytes.c (a bump allocator) cannot fit its header too, but the heap could still grow
    by the request's own size, which an allocator with no overhead could serve: said so."""
    room = 2**20 - block(16)
    r = run(broken("high-bytes"), "-M", "1M", "-f", write_trace(tmp_path, "bad", ["a 0 16", f"a 1 {room}"]),
            tmp=tmp_path)
    t = r.trace("bad")
    assert (t["outcome"], t["op_index"]) == ("alloc_failed", 1)
    assert t["message"].endswith(f"mm_malloc({room}) returned NULL although the heap could still grow by {room} bytes")


def test_null_at_the_heap_limit_names_the_limit(tmp_path, driver):
    # the kit's mm.c never reuses a freed block: 900,000 live bytes fit a 1 MiB heap, not its way
    trace = write_trace(tmp_path, "bad", ["a 0 600000", "f 0", "a 1 300000", "a 2 600000"])
    r = run(driver, "-M", "1M", "-f", trace, tmp=tmp_path)
    assert r.rc == 1
    t = r.trace("bad")
    assert (t["outcome"], t["op_index"], t["op"]) == ("alloc_failed", 3, "a 2 600000")
    assert "the heap reached its 1048576-byte limit with 300000 bytes live (too little" in t["message"]
    assert r.doc["settings"]["max_heap"] == 2**20


@pytest.mark.parametrize("ops", [["a 0 600000", "a 1 600000"], ["a 0 600000", "a 1 16", "r 1 600000"]])
def test_null_for_more_live_bytes_than_the_heap_holds_blames_the_trace(tmp_path, ops):
    """'too little of it holds live data' was said when the trace itself asked for more live
    bytes than the heap holds, which no allocator can serve; the verdict is unchanged."""
    r = run(variant("best"), "-M", "1M", "-f", write_trace(tmp_path, "big", ops), tmp=tmp_path)
    t = r.trace("big")
    assert r.rc == 1 and (t["outcome"], t["op"]) == ("alloc_failed", ops[-1])
    size = int(ops[-1].split()[2])
    assert t["message"].endswith(f"returned NULL: with it {600000 + size} bytes would be live, more than the "
                                 "1048576-byte heap holds, so no allocator could serve it (the trace needs a "
                                 "larger -M)"), t["message"]


def test_null_when_the_live_bytes_would_exactly_fill_the_heap_blames_the_allocator(tmp_path):
    """With the request, exactly 1 MiB would be live in a 1 MiB heap: an allocator with no
    overhead could serve it, so the trace is not what is blamed."""
    r = run(variant("best"), "-M", "1M", "-f", write_trace(tmp_path, "full", ["a 0 524288", "a 1 524288"]),
            tmp=tmp_path)
    t = r.trace("full")
    assert r.rc == 1 and (t["outcome"], t["op"]) == ("alloc_failed", "a 1 524288")
    assert t["message"].endswith("returned NULL: the heap reached its 1048576-byte limit with 524288 bytes live "
                                 "(too little of it holds live data)"), t["message"]


@pytest.mark.parametrize("ops, live", [(["a 1 16", "a 0 530000", "r 0 530001"], 530016),
                                       (["a 0 600000", "r 0 600001"], 600000)])
def test_a_failed_realloc_counts_its_old_block_as_live(tmp_path, driver, ops, live):
    """The old block is still the caller's when realloc returns NULL: the message said
    "with 16 bytes live", or "with nothing else live", leaving it out."""
    r = run(driver, "-M", "1M", "-f", write_trace(tmp_path, "bad", ops), tmp=tmp_path)
    t = r.trace("bad")
    assert r.rc == 1 and (t["outcome"], t["op"]) == ("alloc_failed", ops[-1])
    assert f"the heap reached its 1048576-byte limit with {live} bytes live (too little" in t["message"], t["message"]


def test_null_at_the_heap_limit_with_nothing_else_live_says_so(tmp_path, driver):
    """'too little of it holds live data' was said of a heap where nothing was live, even of a
    request the size of the whole heap; what is judged a failure is unchanged."""
    whole = write_trace(tmp_path, "whole", ["a 0 1048576", "f 0"])
    r = run(variant("best"), "-M", "1M", "-f", whole, tmp=tmp_path)
    t = r.trace("whole")
    assert r.rc == 1 and t["outcome"] == "alloc_failed"
    assert t["message"] == ("op 0 (a 0 1048576): mm_malloc(1048576) returned NULL: the request alone is 1048576 bytes "
                            "of a 1048576-byte heap, leaving no room for the allocator's own data")
    # the kit's mm.c never reuses a freed block: its heap fills with nothing live
    again = write_trace(tmp_path, "again", ["a 0 600000", "f 0", "a 1 600000", "f 1"])
    t = run(driver, "-M", "1M", "-f", again, tmp=tmp_path).trace("again")
    assert t["outcome"] == "alloc_failed" and t["message"] == (
        "op 2 (a 1 600000): mm_malloc(600000) returned NULL with nothing else live: the heap reached its "
        "1048576-byte limit, of which the request is 600000 bytes")


def test_init_failed(tmp_path):
    r = run(broken("init-fails"), "-f", write_trace(tmp_path, "bad", ["a 0 16"]), tmp=tmp_path)
    assert r.rc == 1
    t = r.trace("bad")
    assert (t["outcome"], t["op_index"], t["op"]) == ("init_failed", None, None)
    row, msg = r.row("bad")
    assert row.split()[2] == "init_failed"
    assert msg.strip() == t["message"] == "mm_init returned -1 before the first op"



def test_a_crash_in_mm_init_names_mm_init(tmp_path):
    """init-crash.c's mm_init writes through NULL: the message said only 'in the correctness
    pass', as if one of the ops had crashed, though none had run."""
    t, row, msg = check("init-crash", ["a 0 16", "f 0"], tmp_path, extra_ok=False)
    assert (t["outcome"], t["op_index"], t["op"]) == ("crashed", None, None)
    assert msg.strip() == t["message"] == (
        "crashed with SIGSEGV (Segmentation fault) in mm_init, before the first op of the correctness pass: "
        "it touched 0, which is not in the heap (a NULL pointer dereferenced?)")

def test_mm_init_that_works_only_once(tmp_path):
    r = run(broken("init-once"), "-f", write_trace(tmp_path, "bad", ["a 0 16", "f 0"]), tmp=tmp_path)
    assert r.rc == 1
    t = r.trace("bad")
    assert (t["outcome"], t["op_index"]) == ("init_failed", None)
    assert r.row("bad")[1].strip() == t["message"] == \
        "mm_init returned -1 before the second run (does it reset all its state?)"


def test_state_not_reset_by_mm_init_is_caught_by_the_second_pass(tmp_path):
    """stale-state.c hands out its old arena in the second run, past the new break:
    the second run (a replay in the child, pages past the break inaccessible)
    faults on the byte the driver writes into the first block (at a random place),
    named with its op: that run had named none."""
    ops = ["a 0 16", "a 1 100", "f 0"]
    t, row, msg = check("stale-state", ops, tmp_path, extra_ok=False)
    assert (t["outcome"], t["op_index"], t["op"]) == ("crashed", 0, "a 0 16")
    assert re.fullmatch(r"crashed with SIGSEGV \(Segmentation fault\) at op 0 \(a 0 16\) of the second correctness "
                        r"pass: it touched "
                        r"0x[0-9a-f]+, in the heap's unallocated space past the break \(the first pass went "
                        r"through; this one starts again from mm_init on an empty heap: does mm_init reset all the "
                        r"allocator's state\?\)", t["message"]), t["message"]
    assert msg.strip() == t["message"]


# ------------------------------------------------------------ writes past the break

def test_a_negative_mem_sbrk_is_told_in_the_output(tmp_path):
    """mem_sbrk(-n) is refused and changes nothing (memlib.h), silently: an allocator that took
    the heap for shrunk crashed thousands of ops later with nothing pointing at the call. Told
    once a trace in the allocator's output (-v), the run judged as before."""
    ops = ["a 0 16", f"a 1 {TRIGGER}", f"a 2 {TRIGGER}", "f 0", "f 1", "f 2"]
    r = run(broken("sbrk-negative"), "-v", "-f", write_trace(tmp_path, "shrinks", ops, weight=1), tmp=tmp_path)
    t = r.trace("shrinks")
    assert r.rc == 0 and t["outcome"] == "ok", r.out
    said = "memlib: mem_sbrk(-64) refused: the heap never shrinks; it returned (void *)-1 and changed nothing\n"
    assert t["output"] == said
    assert "| " + said.strip() in r.out



def test_mem_init_in_mm_init_is_told_not_failed_in_the_timed_runs(tmp_path):
    """init-meminit.c's mm_init calls mem_init: the checked runs passed, then the first timed
    run failed 'out_of_heap ... touched the heap past the break' (the call had put the fast
    heap back into checked mode, whose canary lies past the break), naming nothing the student
    wrote.  It is taken as mem_reset_brk and told once in the output, as a negative mem_sbrk."""
    ops = ["a 0 16", "a 1 200", "f 0", "f 1"]
    r = run(broken("init-meminit"), "-v", "-f", write_trace(tmp_path, "init", ops, weight=1), tmp=tmp_path)
    t = r.trace("init")
    assert r.rc == 0 and t["outcome"] == "ok" and t["timing"] is not None, r.out
    said = ("memlib: mem_init called by the allocator: it is the driver's, called before mm_init (memlib.h); "
            "taken as mem_reset_brk\n")
    assert t["output"] == said
    assert "| " + said.strip() in r.out

def test_write_past_the_break_within_the_page_hits_the_canary(tmp_path):
    t, row, msg = check("canary", ["a 0 16", f"a 1 {TRIGGER}", "f 0"], tmp_path)
    brk = LO + block(16) + block(TRIGGER)
    assert_reported(t, row, msg, "out_of_heap", 1, f"a 1 {TRIGGER}", "the allocator wrote past the heap's end",
                    f"the byte at {brk + 5:#x} (5 bytes past the break {brk:#x}) changed")



def test_a_write_at_the_break_itself_is_not_called_0_bytes_past_it(tmp_path):
    """mem_heap_hi()[1] = 0, an end marker one byte too far: the message said '(0 bytes past the
    break ...)', which reads as no write past it at all."""
    t, row, msg = check("canary", ["a 0 16", f"a 1 {TRIGGER + 1}", "f 0"], tmp_path)
    brk = LO + block(16) + block(TRIGGER + 1)
    assert_reported(t, row, msg, "out_of_heap", 1, f"a 1 {TRIGGER + 1}", "the allocator wrote past the heap's end",
                    f"the byte at {brk:#x} (the break itself, one past mem_heap_hi()) changed")
    assert "0 bytes past" not in msg


def test_far_write_in_the_last_page_found_at_the_end(tmp_path):
    """canary-far.c writes 1000 bytes past the break: beyond the per-op look, so the end-of-trace sweep finds it."""
    t, row, msg = check("canary-far", ["a 0 16", f"a 1 {TRIGGER}", "a 2 16"], tmp_path)
    brk = LO + block(16) + block(TRIGGER) + block(16)
    written = LO + block(16) + block(TRIGGER) + 1000
    assert t["outcome"] == "out_of_heap" and row.split()[1:3] == ["bad", "out_of_heap"]
    assert msg.strip() == t["message"] == (f"after the last op: the allocator wrote past the heap's end: the byte at "
                                           f"{written:#x} ({written - brk} bytes past the break {brk:#x}) changed")


def test_far_write_found_when_the_heap_grows_over_it(tmp_path):
    ops = ["a 0 16", f"a 1 {TRIGGER}", "a 2 16", "a 3 2000", "f 3"]
    t, row, msg = check("canary-far", ops, tmp_path)
    written = LO + block(16) + block(TRIGGER) + 1000
    assert_reported(t, row, msg, "out_of_heap", 3, "a 3 2000", "wrote past the heap's end at some earlier op",
                    f"the byte at {written:#x} changed while it lay past the break, found as the heap grew over it")


def test_write_a_page_past_the_break_crashes_naming_the_address(tmp_path):
    t, row, msg = check("past-page", ["a 0 16", f"a 1 {TRIGGER}", "f 0"], tmp_path)
    assert t["outcome"] == "crashed" and t["op_index"] == 1 and t["op"] == f"a 1 {TRIGGER}"
    assert row.split()[1:3] == ["bad", "crashed"]
    for fragment in ("SIGSEGV", f"at op 1 (a 1 {TRIGGER}) of the correctness pass",
                     f"touched {LO + 3 * 4096 + 100:#x}, in the heap's unallocated space past the break"):
        assert fragment in msg and fragment in t["message"]


# ------------------------------------------------------------ mm_checkheap

CHECKED_OPS = ["a 0 16", "a 1 32", "f 0", "a 2 48", "f 1"]


# checker-int: `int mm_checkheap(int)` was called as bool, so its 256 ("consistent") read as false at op 0;
# its 0 was then told as "returned false", which a handout's "0: no errors" checker cannot make sense of
@pytest.mark.parametrize("checker, said", [
    ("checker-false", "returned false after this op"),
    ("checker-int", "returned 0 after this op (an int mm_checkheap returns nonzero when the heap is consistent)"),
])
def test_checker_failure_under_c(tmp_path, checker, said):
    r = run(broken(checker), "-c", "-f", write_trace(tmp_path, "bad", CHECKED_OPS), tmp=tmp_path)
    assert r.rc == 1
    t = r.trace("bad")
    row, msg = r.row("bad")
    assert_reported(t, row, msg, "checker_failed", 2, "f 0", f"mm_checkheap(2) {said}")
    assert t["output"] == "mm_checkheap(0)\nmm_checkheap(1)\nmm_checkheap(2)\n"  # after every op, then stop
    assert r.doc["allocator"]["has_checkheap"] is True and r.doc["settings"]["check_heap"] is True
    assert "mm_checkheap after every op" in r.out.splitlines()[0]


def test_a_void_checker_with_no_parameter_is_run_as_the_void_form(tmp_path):
    """`void mm_checkheap(void)` matched neither probe (`void mm_checkheap(int)` conflicts with it),
    so it was called as the kit's bool form and whatever its return register held was its verdict:
    'returned false' at op 0 for a checker that returns nothing."""
    r = run(broken("checker-void-void"), "-c", "-f", write_trace(tmp_path, "bad", CHECKED_OPS), tmp=tmp_path)
    assert r.rc == 0, r.out
    t = r.trace("bad")
    assert t["outcome"] == "ok" and t["output"] == "checked\n" * len(CHECKED_OPS)
    assert r.doc["allocator"]["has_checkheap"] is True


def test_checker_sees_the_op_with_its_payload_written(tmp_path):
    """short-block.c's TRIGGER block is one word short: its footer lies in the payload, which
    the driver writes after the call. The checker ran before that write and so blamed the
    next op (a 2 16) for op 1's block; it runs once the op is over, payload written."""
    ops = ["a 0 16", f"a 1 {TRIGGER}", "a 2 16", "f 0", "f 1", "f 2"]
    r = run(broken("short-block"), "-c", "-f", write_trace(tmp_path, "bad", ops), tmp=tmp_path)
    t = r.trace("bad")
    row, msg = r.row("bad")
    assert_reported(t, row, msg, "checker_failed", 1, f"a 1 {TRIGGER}", "mm_checkheap(1) returned false after this op")
    assert t["output"] == f"line 1: footer of the block at {LO + block(16) + 16:#x} broken\n"


def test_checker_not_run_without_c(tmp_path):
    r = run(broken("checker-false"), "-f", write_trace(tmp_path, "bad", CHECKED_OPS), tmp=tmp_path)
    assert r.rc == 0
    assert r.trace("bad")["outcome"] == "ok"
    assert r.trace("bad")["output"] == ""
    assert r.doc["settings"]["check_heap"] is False


@pytest.mark.parametrize("name,outcome,fragment", [
    ("checker-crash", "crashed", "crashed with SIGSEGV (Segmentation fault) in mm_checkheap after op 2 (f 0)"),
    ("checker-exits", "exited", "exited with status 1 in mm_checkheap after op 2 (f 0) "
                                "(does mm_checkheap exit when it finds the heap broken?)"),
])
def test_a_checker_that_dies_is_named_not_the_op(tmp_path, name, outcome, fragment):
    r = run(broken(name), "-c", "-f", write_trace(tmp_path, "bad", CHECKED_OPS), tmp=tmp_path)
    assert r.rc == 1
    t = r.trace("bad")
    assert (t["outcome"], t["op_index"], t["op"]) == (outcome, 2, "f 0")
    assert fragment in t["message"] and "correctness pass" not in t["message"]
    assert r.row("bad")[1].strip() == t["message"]
    assert run(broken(name), "-f", write_trace(tmp_path, "bad", CHECKED_OPS), tmp=tmp_path).rc == 0  # not without -c


def test_a_checker_that_moves_the_break_is_told_so(tmp_path):
    r = run(broken("checker-sbrk"), "-c", "-f", write_trace(tmp_path, "bad", CHECKED_OPS), tmp=tmp_path)
    assert r.rc == 1
    t = r.trace("bad")
    row, msg = r.row("bad")
    brk = LO + block(16) + block(32)  # the break after op 2 (f 0): a bump heap never shrinks
    assert_reported(t, row, msg, "checker_failed", 2, "f 0",
                    f"mm_checkheap(2) moved the break from {brk:#x} to {brk + 4096:#x} (did it call mem_sbrk?)")


def test_a_checker_that_lowers_the_break_is_told_so(tmp_path):
    """checker-reset.c's checker calls mem_reset_brk after op 2: a fall is a move too, told at
    that op as the checker's, not later as an overlap when the next block lands on id 1."""
    r = run(broken("checker-reset"), "-c", "-f", write_trace(tmp_path, "bad", CHECKED_OPS), tmp=tmp_path)
    assert r.rc == 1
    t = r.trace("bad")
    row, msg = r.row("bad")
    brk = LO + block(16) + block(32)
    assert_reported(t, row, msg, "checker_failed", 2, "f 0", f"mm_checkheap(2) moved the break from {brk:#x} to {LO:#x}")
    assert run(broken("checker-reset"), "-f", write_trace(tmp_path, "bad", CHECKED_OPS), tmp=tmp_path).rc == 0


def test_c_without_a_checker_says_it_is_ignored(tmp_path, driver):
    r = run(driver, "-c", "-f", write_trace(tmp_path, "t", CHECKED_OPS), tmp=tmp_path)
    assert r.rc == 0
    assert r.doc["allocator"]["has_checkheap"] is False
    assert "-c ignored: no mm_checkheap" in r.out.splitlines()[0]


# ------------------------------------------------------------ mem_reset_brk cheat

def test_mem_reset_brk_after_the_last_free_does_not_raise_utilization(tmp_path, driver):
    """reset-brk.c is the starter allocator plus mem_reset_brk once nothing is live."""
    ops = ["a 0 100", "a 1 200", "a 2 50", "f 0", "f 1", "f 2"]
    trace = write_trace(tmp_path, "phase", ops, weight=2)
    honest = run(driver, "-f", trace, tmp=tmp_path).trace("phase")
    cheat = run(broken("reset-brk"), "-f", trace, tmp=tmp_path).trace("phase")
    heap = block(100) + block(200) + block(50)
    assert honest["outcome"] == cheat["outcome"] == "ok"
    assert honest["heap_high_water"] == cheat["heap_high_water"] == heap
    assert cheat["utilization"] == pytest.approx(350 / heap)
    assert cheat["utilization"] <= honest["utilization"] <= 1.0


def test_heap_growth_undone_within_mm_init_counts(tmp_path):
    """probe-init.c's mm_init grows the heap by 64 KiB, writes it, and empties it
    with mem_reset_brk: the break is 0 when mm_init returns, but memlib's high-water
    mark, which the driver scores, is 64 KiB (memlib.h, contract 4), and pages below
    it were the allocator's to touch."""
    ops = ["a 0 100", "a 1 200", "f 0", "f 1"]
    r = run(broken("probe-init"), "-f", write_trace(tmp_path, "probe", ops, weight=1), tmp=tmp_path)
    assert r.rc == 0, r.out + r.err
    t = r.trace("probe")
    assert t["outcome"] == "ok" and t["timing"] is not None
    assert t["heap_high_water"] == 64 << 10
    assert t["utilization"] == pytest.approx(300 / (64 << 10))


def test_heap_growth_undone_within_each_malloc_counts(tmp_path):
    """probe-malloc.c grows the heap by 1 MiB in every mm_malloc and takes it back
    (mem_reset_brk, then mem_sbrk to where it was): no 'tampered' for memlib's own
    canary on the top page, and the mark is the highest break any call reached."""
    ops = ["a 0 100", "a 1 200", "f 0", "f 1"]
    r = run(broken("probe-malloc"), "-f", write_trace(tmp_path, "probe", ops, weight=1), tmp=tmp_path)
    assert r.rc == 0, r.out + r.err
    t = r.trace("probe")
    assert t["outcome"] == "ok" and t["timing"] is not None
    high = block(100) + (1 << 20)
    assert t["heap_high_water"] == high
    assert t["utilization"] == pytest.approx(300 / high)


@pytest.mark.parametrize("name, call", [("reset-live", "mem_reset_brk"), ("init-live", "mem_init")])
def test_the_break_falling_below_live_blocks_is_out_of_heap_at_that_op(tmp_path, name, call):
    """reset-live.c calls mem_reset_brk, init-live.c mem_init, when freeing the
    TRIGGER-byte block with two others live: reported at that free, naming the
    highest live block now past the break, not later as a payload scribble."""
    ops = ["a 0 100", f"a 1 {TRIGGER}", "a 2 50", "f 1", "f 0", "f 2"]
    t, row, msg = check(name, ops, tmp_path)
    p = LO + block(100) + block(TRIGGER) + 16
    assert_reported(t, row, msg, "out_of_heap", 3, "f 1",
                    f"the break fell to {LO:#x} (0 bytes above the heap's start), below id 2's live block "
                    f"[{p:#x}, {p + 50:#x}) from op 2: the heap must not shrink under live blocks "
                    "(did the allocator call mem_reset_brk or mem_init?)")
    assert call in msg

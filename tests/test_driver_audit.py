"""Memory outside the heap is audited (driver/audit.h).

Utilization counts only the heap, so an allocator that kept its block sizes
anywhere else in its process would score near the ideal.  Each cheat below is
"ok" on the driver before the audit (measured with the commit before it) and fails
now; every allocator of the kit, the classic handout's shape and a chatty one
pass with an audit after every op.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from driver_common import CLASSIC, broken, describe, run, variant, write_trace
from variants_common import VARIANTS, make, present

from conftest import build_driver

HIDDEN = ("it changed \\d+ bytes of memory outside the heap, in {where} \\(the first at 0x[0-9a-f]+\\); allocator "
          "metadata belongs in the heap, or in mm\\.c's own globals")


def realloc_ops(n: int) -> list[str]:
    return [f"a {i} {8 + i % 40}" for i in range(n)] + [f"r {i} {100 + i % 50}" for i in range(n)] + \
           [f"f {i}" for i in range(n)]


def every_op() -> dict:
    return {"env": {**os.environ, "MDRIVER_AUDIT_WINDOW": "1"}}


def test_sizes_kept_in_the_dead_stack_are_lost_at_an_audit(tmp_path):
    """hide-stack.c keeps each block's size 256 KiB below mm_init's frame.  The audit
    that falls somewhere in the first 512 calls empties the stack below the idle
    child's frames, so the first realloc after it copies nothing: its payload is gone."""
    r = run(broken("hide-stack"), "-f", write_trace(tmp_path, "hide", realloc_ops(600), weight=1), tmp=tmp_path)
    assert r.rc == 1
    t = r.trace("hide")
    assert (t["outcome"], t["op_index"], t["op"]) == ("payload_corrupted", 600, "r 0 100"), (t["outcome"], t["message"])
    assert "mm_realloc did not keep the old contents" in t["message"]


@pytest.mark.parametrize("name, where", [
    ("hide-startup-stack", "the process's start-up stack"),
    ("hide-malloc", re.escape("libc's heap (did the allocator call malloc, calloc or realloc?)")),
    # the rest of memlib's state pages, opened with the mprotect the sandbox allows there: the audit
    # skipped those pages whole, and 2 x 64 KiB of sizes went unseen (red team, 2026-11-24)
    ("hide-memlib", re.escape("the unused rest of memlib's state pages")),
    # the first private mapping of the memory map, the last byte of one, the loader's data: a
    # compare that left out any of them passed every test
    ("hide-dso-handle", re.escape("the driver's own data")),
    ("hide-page-end", re.escape("the driver's own data")),
    ("hide-ld-data", r"the data of ld-linux\S*"),
])
def test_sizes_kept_in_private_memory_are_tampering(tmp_path, name, where):
    """hide-startup-stack.c keeps its sizes below the environment, where the driver's
    frames were before fork; hide-malloc.c in a table from libc's calloc; hide-memlib.c
    past memlib's fields in its state pages; hide-dso-handle.c in a word of the C
    runtime's; hide-page-end.c and hide-ld-data.c in the padding that ends the
    driver's and the loader's writable segments.  The parent
    compares the child's private memory with its copy from before mm_init: the audit
    at the end of the first checked run at the latest sees the change."""
    r = run(broken(name), "-f", write_trace(tmp_path, "hide", realloc_ops(100), weight=1), tmp=tmp_path)
    assert r.rc == 1
    t = r.trace("hide")
    assert (t["outcome"], t["utilization"], t["timing"]) == ("tampered", None, None), t["message"]
    assert re.fullmatch(HIDDEN.format(where=where), t["message"]), t["message"]
    assert t["op_index"] is not None and 0 <= t["op_index"] < 300


@pytest.mark.parametrize("name", ["hide-progress", "hide-channel"])
def test_sizes_kept_in_the_unused_rest_of_a_shared_page_are_tampering(tmp_path, name):
    """hide-progress.c keeps its sizes past the fields of the progress page,
    hide-channel.c past the answer on the channel page: pages the driver shares
    with the child, which the copy of private memory never holds.  The parent
    checks at each audit that those bytes are still zero (without the check, or
    without the channel page's gaps in it, every test passed)."""
    r = run(broken(name), "-f", write_trace(tmp_path, "hide", realloc_ops(100), weight=1), tmp=tmp_path)
    assert r.rc == 1
    t = r.trace("hide")
    assert (t["outcome"], t["utilization"], t["timing"]) == ("tampered", None, None), t["message"]
    assert re.fullmatch("it wrote into bytes of a page the driver shares with the trace's process that only the "
                        "driver may write \\(at 0x[0-9a-f]+\\): allocator metadata belongs in the heap",
                        t["message"]), t["message"]
    assert t["op_index"] is not None and 0 <= t["op_index"] < 300


def test_sizes_kept_in_the_timed_runs_arrays_are_tampering(tmp_path):
    """hide-timed-arrays.c keeps its sizes in the shared pages where the parent will
    write the timed runs' placements, untouched and zero during the first checked
    run: the audit's copy never holds them.  After that run the parent asks whether
    any of those pages was touched, every page (without the question, or asking
    about each array's first page alone, every test passed)."""
    ops = realloc_ops(100) + ["a 100 8", "f 100"] * 500  # 1,300 ops: the placements fill two pages
    r = run(broken("hide-timed-arrays"), "-f", write_trace(tmp_path, "hide", ops, weight=1), tmp=tmp_path)
    assert r.rc == 1
    t = r.trace("hide")
    assert (t["outcome"], t["utilization"], t["timing"]) == ("tampered", None, None), t["message"]
    assert t["message"] == ("the first checked run touched the pages where the driver will give the timed runs "
                            "their ops: allocator metadata belongs in the heap"), t["message"]


# Eight blocks, then each grown: the red team's tables hold 16 to 144 sizes.
SMALL_OPS = [f"a {i} {8 + 4 * i}" for i in range(8)] + [f"r {i} {40 + i}" for i in range(8)] + \
            [f"f {i}" for i in range(8)]


@pytest.mark.parametrize("name, outcome, where", [
    ("hide-thread-block", "tampered", re.escape("the thread's control block and thread-local data (glibc's)")),
    ("hide-file", "tampered", re.escape("libc's data (its malloc's settings among them)")),
    ("hide-near-stack", "payload_corrupted", None),
    ("hide-registers", "payload_corrupted", None),
    ("hide-gprs", "payload_corrupted", None),
    ("hide-answer", "payload_corrupted", None),
])
def test_the_red_teams_hiding_places_are_closed(tmp_path, name, outcome, where):
    """The red team kept sizes where the first audit did not look: glibc's thread
    descriptor (skipped whole), stdout's FILE (skipped whole), the 1 KiB the
    parent's wipe leaves below the idle frames, registers xmm8-15, register r8,
    the unused statistics of the answers the channel carries.  The audit now
    compares all but the bytes an honest run changes, and the child clears the
    near stack, the vector registers and the general ones after every call and
    writes each answer over zeros: the first two are tampered, the others lose
    their sizes before the first realloc (hide-answer's got through the first
    checked run before, and was caught only by the replay, as inconsistent)."""
    r = run(broken(name), "-f", write_trace(tmp_path, "small", SMALL_OPS, weight=1), tmp=tmp_path)
    assert r.rc == 1
    t = r.trace("small")
    assert t["outcome"] == outcome, (t["outcome"], t["message"])
    if where:
        assert re.fullmatch(HIDDEN.format(where=where), t["message"]), t["message"]
    else:
        assert t["op_index"] == 8 and "mm_realloc did not keep the old contents" in t["message"], t["message"]


# hide-k0.c and hide-kmask.c write k0-k7 with kmovq (AVX-512BW); hide-zmm.c xmm16 (AVX-512F); hide-ymm-upper.c ymm15 (AVX)
AVX512BW = "avx512bw" in Path("/proc/cpuinfo").read_text().split()
AVX512F = "avx512f" in Path("/proc/cpuinfo").read_text().split()
AVX = "avx" in Path("/proc/cpuinfo").read_text().split()


def fields_ops(slots: int, field_bits: int) -> list[str]:
    """A trace hide-fields.h keeps whole while its word survives: `slots` blocks of
    one alignment unit each (so each has a field of its own), sizes that fit a
    field, then each grown (the copy needs the old size), then all freed."""
    sizes = [4, 8, 12] if field_bits >= 4 else [1]
    return ([f"a {i} {sizes[i % len(sizes)]}" for i in range(slots)] + [f"r {i} {40 + i}" for i in range(slots)] +
            [f"f {i}" for i in range(slots)])


@pytest.mark.parametrize("name, slots, field_bits", [
    ("hide-gsbase", 8, 4),
    ("hide-selectors", 3, 4),
    ("hide-flags", 1, 1),
    ("hide-sigmask", 8, 4),
    ("hide-rbp", 8, 8),
    # ES, FS or GS alone, the NT, DF and AC flags, MXCSR, the MMX registers, the x87 control
    # word, r9 and r10, zmm16, the upper halves of ymm0-15: a scrub that left out any of them
    # passed every test
    ("hide-any-selector", 1, 4),
    ("hide-fsbase", 1, 4),
    ("hide-flag-nt", 1, 1),
    ("hide-flag-df", 1, 1),
    ("hide-flag-ac", 1, 1),
    ("hide-mxcsr", 1, 4),
    ("hide-mmx", 7, 8),
    ("hide-x87cw", 1, 4),
    ("hide-scratch-regs", 7, 8),
    ("hide-callee-regs", 7, 8),
    pytest.param("hide-k0", 8, 8, marks=pytest.mark.skipif(not AVX512BW, reason="no AVX-512BW here: no k0 to hide in")),
    pytest.param("hide-kmask", 7, 8, marks=pytest.mark.skipif(not AVX512BW, reason="no AVX-512BW here: no k1 to hide in")),
    pytest.param("hide-zmm", 8, 8, marks=pytest.mark.skipif(not AVX512F, reason="no AVX-512F here: no zmm16 to hide in")),
    pytest.param("hide-ymm-upper", 8, 8, marks=pytest.mark.skipif(not AVX, reason="no AVX here: no ymm15 to hide in")),
])
def test_the_processor_and_signal_state_a_call_leaves_is_put_back(tmp_path, name, slots, field_bits):
    """The red team kept its block sizes, with no header, in state outside memory
    that the kernel keeps for the process and the driver's code never touched: the
    GS segment's base (wrgsbase), the DS, ES and GS selectors, AVX-512's k0,
    RFLAGS's ID bit, the real-time signals' bits of the signal mask
    (rt_sigprocmask, which raise() needs), and rbp (callee-saved: a serving loop that keeps nothing in it would
    not notice).  The child puts each back as it found it after every call (the
    sandbox answers rt_sigprocmask without changing the mask): the first realloc
    copies nothing, and the payload check says so.  All but hide-rbp scored ok
    before; hide-rbp crashed the loop, which kept a pointer in rbp."""
    r = run(broken(name), "-f", write_trace(tmp_path, "fields", fields_ops(slots, field_bits), weight=1),
            tmp=tmp_path)
    assert r.rc == 1
    t = r.trace("fields")
    assert (t["outcome"], t["op_index"]) == ("payload_corrupted", slots), (t["outcome"], t["message"])
    assert "mm_realloc did not keep the old contents" in t["message"], t["message"]


def test_an_unsandboxed_child_puts_the_signal_mask_back(tmp_path):
    """Without the driver's seccomp filter (DRIVER_SECCOMP=off, behind the grader's
    own sandbox) rt_sigprocmask goes through: the child sets the mask it started
    with after each call instead, and hide-sigmask.c loses its sizes the same way."""
    unfiltered = build_driver(extra=("MM=tests/c/broken/hide-sigmask.c", "DRIVER_SECCOMP=off"))
    r = run(unfiltered, "-f", write_trace(tmp_path, "fields", fields_ops(8, 4), weight=1), tmp=tmp_path)
    t = r.trace("fields")
    assert (t["outcome"], t["op_index"]) == ("payload_corrupted", 8), (t["outcome"], t["message"])


@pytest.mark.parametrize("name, call", [("hide-sigaction", "rt_sigaction"), ("hide-altstack", "sigaltstack")])
def test_changing_signal_handling_is_refused(tmp_path, name, call):
    """A signal's action (handler, flags and mask) and the signal stack are state
    the kernel keeps for the process: the red team kept its sizes in them.  The
    sandbox lets a call read them, no longer change them, and the trace crashes at
    mm_init, the first call that tries."""
    r = run(broken(name), "-f", write_trace(tmp_path, "fields", fields_ops(8, 4), weight=1), tmp=tmp_path)
    assert r.rc == 1
    t = r.trace("fields")
    assert t["outcome"] == "crashed", (t["outcome"], t["message"])
    for text in ("SIGSYS", f"the system call {call} (", "may not", "signal"):
        assert text in t["message"], t["message"]


def test_memory_kept_outside_only_around_the_peak_is_seen(tmp_path):
    """hide-at-peak.c keeps a word outside the heap only while its payload is above
    150 KB: 100 ops of a 2,300-op trace, which one random audit in 512 would seldom
    hit.  The audits at each op where the payload has grown a few percent past the
    last such audit (3-6%: every 5 to 9 ops here) fall inside the burst."""
    ops = [f"a {i} 1000" for i in range(100)]                              # 100 KB
    ops += [op for k in range(1000) for op in (f"a 100 1000", "f 100")]     # steady
    ops += [f"a {i} 1000" for i in range(100, 200)]                        # to 200 KB
    ops += [f"f {i}" for i in range(200)]
    r = run(broken("hide-at-peak"), "-f", write_trace(tmp_path, "peak", ops, ids=201, weight=0), tmp=tmp_path)
    assert r.rc == 1
    t = r.trace("peak")
    assert t["outcome"] == "tampered", (t["outcome"], t["message"])
    assert re.fullmatch(HIDDEN.format(where="the process's start-up stack"), t["message"]), t["message"]
    assert 2100 + 50 <= t["op_index"] < 2100 + 100, t["op_index"]


def test_memory_kept_outside_only_at_the_very_peak_is_seen_there(tmp_path):
    """Over 150 KB for one op only (the trace's peak, 1 KB above the threshold):
    a payload mark seldom falls inside that last 0.7%, nor does one random audit in
    512.  The parent knows from the trace where the payload peaks, the child does
    not: the audit at the peak sees the word, at that very op, in every run."""
    ops = [f"a {i} 1000" for i in range(151)] + ["f 150"] + [f"f {i}" for i in range(150)]
    trace = write_trace(tmp_path, "top", ops, ids=151, weight=0)
    for _ in range(3):
        r = run(broken("hide-at-peak"), "-f", trace, tmp=tmp_path)
        assert r.rc == 1
        t = r.trace("top")
        assert (t["outcome"], t["op_index"]) == ("tampered", 150), (t["outcome"], t["message"])
        assert re.fullmatch(HIDDEN.format(where="the process's start-up stack"), t["message"]), t["message"]


def test_memory_kept_outside_only_at_a_lower_later_peak_is_seen_there(tmp_path):
    """The payload jumps to 300 KB and drains to 100 KB; long after, it climbs to a
    second, lower peak of 160 KB, over 150 KB for its last ten ops, where
    hide-at-peak.c (with HIDE_UPTO, only up to 160 KB) keeps its word out.  No
    payload mark falls there (the marks stay above 300 KB), and the random audits
    seldom do; the audit at the highest op of each 32nd of the run does."""
    ops = ["a 0 100000", "a 1 200000", "f 1"]
    ops += [op for _ in range(500) for op in ("a 2 1000", "f 2")]            # steady at 100 KB
    ops += [f"a {i} 1000" for i in range(3, 63)]                          # to 160 KB
    ops += [f"f {i}" for i in range(3, 63)]
    ops += [op for _ in range(500) for op in ("a 2 1000", "f 2")] + ["f 0"]
    trace = write_trace(tmp_path, "second", ops, ids=63, weight=0)
    climb_top = 3 + 1000 + 60 - 1                                          # op of the 160 KB peak
    for _ in range(3):
        r = run(broken("hide-at-peak"), "-f", trace, tmp=tmp_path, env={**os.environ, "HIDE_UPTO": "160000"})
        assert r.rc == 1
        t = r.trace("second")
        assert t["outcome"] == "tampered", (t["outcome"], t["message"])
        assert climb_top - 9 <= t["op_index"] <= climb_top, t["op_index"]
    # Above the band, the same allocator is honest: no false alarm at the peaks.
    r = run(broken("hide-at-peak"), "-f", trace, tmp=tmp_path, env={**os.environ, "HIDE_UPTO": "150000"})
    assert r.rc == 0 and r.trace("second")["outcome"] == "ok", r.trace("second")["message"]


def test_memory_kept_outside_only_on_the_way_up_to_a_peak_is_seen(tmp_path):
    """The payload climbs to 200 KB and falls, then stays small for 12,400 ops: the
    climb lies inside one of the 32 spans, whose peak audit falls at its top, and
    hide-at-peak.c (HIDE_UPTO: 150 to 160 KB) keeps its word out for ten ops of
    the climb only, which one random audit in 512 seldom hits.  Each payload mark
    lies 3-6% past the payload at the last, so one falls inside that band (without
    the payload audits every test passed)."""
    ops = [f"a {i} 1000" for i in range(200)] + [f"f {i}" for i in range(200)]
    ops += [op for _ in range(6200) for op in ("a 200 16", "f 200")]
    trace = write_trace(tmp_path, "climb", ops, ids=201, weight=0)
    r = run(broken("hide-at-peak"), "-f", trace, tmp=tmp_path, env={**os.environ, "HIDE_UPTO": "160000"})
    assert r.rc == 1
    t = r.trace("climb")
    assert t["outcome"] == "tampered", (t["outcome"], t["message"])
    assert 150 <= t["op_index"] < 160, t["op_index"]


@pytest.mark.parametrize("except_every", ["", "512"])
def test_memory_kept_outside_only_in_the_lulls_between_peaks_is_seen(tmp_path, except_every):
    """32 times a climb to 100 KB, down again, and 300 ops at a few bytes; the trace
    ends at a top.  hide-in-lull.c keeps its word out whenever the payload is under
    4 KB: never at a peak audit, a payload mark or the run's end, only the random
    audit of each window of 512 ops sees it (without it every test passed).  Nor
    does a word cleared after every 512th call escape: the window's audit falls at
    a random op of it, not at a fixed one (an audit at each window's end passed)."""
    climb = [f"a {i} 1000" for i in range(100)]
    ops = [op for _ in range(32) for op in climb + [f"f {i}" for i in range(100)] + ["a 100 16", "f 100"] * 150]
    trace = write_trace(tmp_path, "lulls", ops + climb, ids=101, weight=0)
    r = run(broken("hide-in-lull"), "-f", trace, tmp=tmp_path, env={**os.environ, "HIDE_EXCEPT_EVERY": except_every})
    assert r.rc == 1
    t = r.trace("lulls")
    assert t["outcome"] == "tampered", (t["outcome"], t["message"])
    assert re.fullmatch(HIDDEN.format(where="the process's start-up stack"), t["message"]), t["message"]


@pytest.mark.parametrize("hide_run", ["1", "2"])
def test_memory_changed_only_after_a_checked_runs_last_op_is_seen(tmp_path, hide_run):
    """hide-after-run.c changes a word outside the heap only once its run has freed
    everything, the trace's last op, and clears it at the next mm_init: in the
    first checked run (HIDE_RUN=1) or in the checked replay (2).  No op's audit
    falls there but seldom (each span's peak is at its highest payload, and the
    last span's is its first op); the audit after the run sees it.  Untimed, with
    no mm_stats: no later audit stands in (without either audit every test passed)."""
    ops = [f"a {i} 100" for i in range(1000)] + [f"f {i}" for i in range(1000)]
    trace = write_trace(tmp_path, "after", ops, weight=0)
    r = run(broken("hide-after-run"), "-f", trace, tmp=tmp_path, env={**os.environ, "HIDE_RUN": hide_run})
    assert r.rc == 1
    t = r.trace("after")
    assert t["outcome"] == "tampered", (t["outcome"], t["message"])
    assert re.fullmatch(HIDDEN.format(where="the process's start-up stack"), t["message"]), t["message"]


def test_scratch_memory_kept_only_when_timed_is_seen_after_the_timed_run(tmp_path):
    """timing-scratch.c is honest while checked and writes a counter outside the heap
    in every timed run: the audit after each timed run sees it."""
    ops = [f"a {i} {16 + i}" for i in range(50)] + [f"f {i}" for i in range(50)]
    r = run(broken("timing-scratch"), "-f", write_trace(tmp_path, "scratch", ops, weight=1), tmp=tmp_path)
    assert r.rc == 1
    t = r.trace("scratch")
    assert (t["outcome"], t["timing"]) == ("tampered", None), t["message"]
    assert re.fullmatch(HIDDEN.format(where="the process's start-up stack"), t["message"]), t["message"]
    # Checked only, it is honest.
    r = run(broken("timing-scratch"), "-f", write_trace(tmp_path, "checked", ops, weight=0), tmp=tmp_path)
    assert r.rc == 0 and r.trace("checked")["outcome"] == "ok"


def test_scratch_memory_kept_by_the_stats_hook_is_seen_after_its_call(tmp_path):
    """stats-scratch.c's mm_stats, called once after the checked runs, keeps a
    counter outside the heap; untimed, the audit after that call is the last (without
    it every test passed)."""
    ops = [f"a {i} {16 + i}" for i in range(50)] + [f"f {i}" for i in range(50)]
    r = run(broken("stats-scratch"), "-f", write_trace(tmp_path, "stats", ops, weight=0), tmp=tmp_path)
    assert r.rc == 1
    t = r.trace("stats")
    assert t["outcome"] == "tampered", (t["outcome"], t["message"])
    assert re.fullmatch(HIDDEN.format(where="the process's start-up stack"), t["message"]), t["message"]


@pytest.mark.parametrize("side", ["below", "above"])
def test_sizes_kept_in_a_guard_page_of_the_heap_are_out_of_heap(tmp_path, side):
    """hide-guard.c opens a guard page around the heap with the mprotect the sandbox
    allows there and keeps its sizes in it: memory outside the heap that utilization
    never counted (it was ok, red team 2026-11-24).  The parent asks, after the
    first checked run, whether either guard page was touched."""
    r = run(broken("hide-guard"), "-f", write_trace(tmp_path, "guard", realloc_ops(100), weight=1), tmp=tmp_path,
            env={**os.environ, "HIDE_GUARD": side})
    assert r.rc == 1
    t = r.trace("guard")
    assert (t["outcome"], t["utilization"], t["timing"]) == ("out_of_heap", None, None), t["message"]
    assert f"touched the guard page {side} the heap" in t["message"], t["message"]


def test_a_counter_kept_in_the_guard_page_only_when_timed_is_seen(tmp_path):
    """timing-guard.c is honest while checked and keeps a counter in the guard page
    below the heap in its timed runs, where each run's clean start never looked."""
    ops = [f"a {i} {16 + i}" for i in range(50)] + [f"f {i}" for i in range(50)]
    r = run(broken("timing-guard"), "-f", write_trace(tmp_path, "guard", ops, weight=1), tmp=tmp_path)
    assert r.rc == 1
    t = r.trace("guard")
    assert (t["outcome"], t["timing"]) == ("out_of_heap", None), t["message"]
    assert "touched the guard page below the heap" in t["message"], t["message"]
    r = run(broken("timing-guard"), "-f", write_trace(tmp_path, "checked", ops, weight=0), tmp=tmp_path)
    assert r.rc == 0 and r.trace("checked")["outcome"] == "ok"


# A short trace of each classic shape: growth, frees, reallocs.
AUDITED_TRACES = ["classic-amptjp.rep", "classic-realloc2.rep", "realloc-vectors.rep"]


# One variant of each family: the implicit fits share one core and differ in a fit function
# (next fit, with its rover global, stands for them); explicit-fifo and -addr differ from lifo
# in where a block is linked; segregated-realloc runs all of segregated's code and more.
AUDITED_VARIANTS = ["implicit-first", "implicit-next", "explicit-lifo", "segregated-realloc", "best", "ts-lock",
                    "ts-nolock"]


def test_audited_variants_are_the_kits():
    assert set(AUDITED_VARIANTS) <= set(VARIANTS)


@pytest.mark.parametrize("name", present(AUDITED_VARIANTS))
def test_every_variant_passes_with_an_audit_after_every_op(tmp_path, name):
    """No false alarm: the kit's allocators change nothing outside the heap but their
    own globals, on the checked, replayed and timed runs, with mm_checkheap after
    every op (-c) as well."""
    driver = variant(name)
    traces = [a for t in AUDITED_TRACES for a in ("-f", f"traces/{t}")]
    for extra in ([], ["-c"]):
        # -T 600: an audit after every op of an implicit list is slow on a loaded machine, not wrong
        r = run(driver, *traces, *extra, "-r", "1", "-T", "600", tmp=tmp_path, timeout=900, cwd=driver.parents[2],
                **every_op())
        assert r.rc == 0, [(t["name"], t["outcome"], t["message"]) for t in r.doc["traces"] if t["outcome"] != "ok"]


@pytest.mark.parametrize("source, alignment", [(CLASSIC / "classic_mm.c", 8), ("tests/c/broken/chatty.c", 16)])
def test_a_classic_handout_allocator_and_a_printing_one_pass_the_audit(tmp_path, source, alignment):
    """The classic handout's shape (its own globals, void mm_checkheap, 8-byte
    alignment) and one that prints on every call (stdio's state changes, and it is
    not metadata)."""
    driver = build_driver(alignment=alignment, extra=(f"MM={source}", "-j2"))
    ops = realloc_ops(200)
    r = run(driver, "-f", write_trace(tmp_path, "audited", ops, weight=1), "-r", "1", tmp=tmp_path, **every_op())
    assert r.rc == 0 and r.trace("audited")["outcome"] == "ok", r.trace("audited")["message"]


def without_own_proc(driver, tmp_path, *args: str) -> subprocess.CompletedProcess:
    """Run mdriver in a pid namespace whose /proc is the host's: there /proc/<pid>
    names another process, so the parent cannot audit its child."""
    argv = ["bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--unshare-pid", "--bind", str(tmp_path), str(tmp_path),
            str(driver), *args]
    return subprocess.run(argv, capture_output=True, text=True, timeout=120)


def test_without_its_own_proc_the_run_goes_on_unaudited_and_says_so(tmp_path):
    """The parent must not read another process's memory map as its child's.  The run
    goes on, unaudited, with one warning line."""
    trace = write_trace(tmp_path, "plain", realloc_ops(50), weight=0)
    done = without_own_proc(variant(None), tmp_path, "-f", str(trace))
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stderr.splitlines() == ["mdriver: warning: /proc here belongs to another pid namespace: memory an "
                                        "allocator keeps outside the heap goes unaudited in this run"], done.stderr


def test_unaudited_timed_runs_still_start_on_an_empty_stack(tmp_path):
    """replay-stack.c replays, when timed, placements it kept in the dead stack.  The
    parent empties the child's stack before each timed run whether or not it can
    audit (it once did so only as part of an audit, and unaudited this was ok)."""
    ops = [f"a {i} {16 + i}" for i in range(200)] + [f"f {i}" for i in range(0, 200, 2)] + \
          [f"a {i} {30 + i}" for i in range(0, 200, 2)]
    trace = write_trace(tmp_path, "memo", ops, weight=1)
    done = without_own_proc(broken("replay-stack"), tmp_path, "-f", str(trace), "--json", str(tmp_path / "r.json"))
    assert "goes unaudited" in done.stderr, done.stderr
    t = json.loads((tmp_path / "r.json").read_text())["traces"][0]
    assert t["outcome"] == "inconsistent", (t["outcome"], t["message"])


def test_describe_says_whether_the_driver_can_audit_here(tmp_path):
    """`mdriver --describe` tells the grader whether to list driver_audit among a
    record's protections: yes here, no in a sanitizer build, no where /proc is
    another pid namespace's."""
    assert describe(variant("best"))["audit"] is True
    assert describe(make("driver", "best", 16, sanitize=True))["audit"] is False
    inside = ["bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--unshare-pid", str(variant("best")), "--describe"]
    assert json.loads(subprocess.run(inside, capture_output=True, text=True, timeout=60).stdout)["audit"] is False


@pytest.mark.parametrize("value", ["abc", "0", "-3", "12x", "513", "100000", " 5", "\t5", "+5"])
def test_an_audit_window_the_driver_does_not_take_is_one_line_before_any_trace(tmp_path, value):
    """MDRIVER_AUDIT_WINDOW out of 1..512 (no run's window is shorter) used to be ignored
    without a word, so a test meant to audit every op audited every 512th.  " 5" and "+5" were
    taken as 5 (strtol skips blanks and takes a sign): a number is digits, as for -T."""
    t = write_trace(tmp_path, "t", ["a 0 100", "f 0"], weight=0)
    r = run(variant(None), "-f", t, tmp=tmp_path, env={**os.environ, "MDRIVER_AUDIT_WINDOW": value})
    assert r.rc == 2, r.out + r.err
    shown = value.replace("\t", "\\t")  # a message is one line: control characters escaped
    assert r.err == (f"mdriver: MDRIVER_AUDIT_WINDOW={shown}: a whole number of ops from 1 to 512, the most between "
                     "two audits (unset: 512, or 1/256 of a longer run)\n")
    assert r.out == "" and r.doc is None


@pytest.mark.parametrize("value", ["1", "512"])
def test_an_audit_window_in_range_runs(tmp_path, value):
    t = write_trace(tmp_path, "t", realloc_ops(300), weight=0)
    r = run(variant(None), "-f", t, tmp=tmp_path, env={**os.environ, "MDRIVER_AUDIT_WINDOW": value})
    assert r.rc == 0 and r.err == "" and r.trace("t")["outcome"] == "ok", r.out + r.err

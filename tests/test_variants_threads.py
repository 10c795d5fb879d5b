"""The thread-safe variants called by many threads at once, on the simulated heap
(tests/c/variants/threads.c): every block's bytes checked, the heap checker after
each round, the call counters adding up.

The shim's thread tests run programs whose frees and moves rarely meet another
thread mid-call; dropping ts-lock's lock around free or realloc left them passing.
"""
from __future__ import annotations

import os
import subprocess

import pytest

from variants_common import sanitized

THREADS, OPS = 8, 500_000   # 2-4 s under ASan; each locking mutant below was caught 10 runs in 10
# TSan runs 10-20 times slower and keeps shadow memory for each thread's heap (~600 MB here); it
# finds a race from the order of the calls, not from their meeting.  Ten threads carve the arena
# table's second page (ids 8-15) while others read the first.
TSAN_THREADS, TSAN_OPS = 10, 20_000


@pytest.fixture(scope="module")
def harness(tmp_path_factory):
    where = tmp_path_factory.mktemp("threads")

    def build(variant: str, sanitizers: str = "address,undefined"):
        binary = where / f"threads-{variant}-{sanitizers.replace(',', '-')}"
        if not binary.exists():
            sanitized(binary, ["tests/c/variants/threads.c", f"variants/{variant}.c"], sanitizers=sanitizers)
        return binary
    return build


@pytest.mark.parametrize("variant", ["ts-lock", "ts-nolock"])
def test_threads_mallocing_freeing_and_moving_each_others_blocks_keep_every_byte(harness, variant):
    done = subprocess.run([str(harness(variant)), str(THREADS), str(OPS)], capture_output=True, text=True,
                          timeout=120)
    assert (done.returncode, done.stdout) == (0, "ok\n"), done.stdout + done.stderr[-2000:]


@pytest.mark.parametrize("variant", ["ts-lock", "ts-nolock"])
def test_threads_share_no_field_but_under_a_lock_or_atomically(harness, variant):
    """ThreadSanitizer (memlib maps its heap at TSAN_HEAP_BASE then): a race is undefined behaviour
    even where the logic holds, as in ts-nolock's realloc, which read the last grower and the break
    outside `grow` and re-checked them under it.  It also catches what no ASan run sees on x86:
    ts-nolock's remote push made relaxed instead of release (5 runs in 5; ASan passed it), as it
    does ts-lock's free left unlocked (3 in 3).  TSAN_OPTIONS is set here, so that a caller's
    exitcode=0 cannot pass a race."""
    done = subprocess.run([str(harness(variant, "thread,undefined")), str(TSAN_THREADS), str(TSAN_OPS)],
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, "TSAN_OPTIONS": "exitcode=66:history_size=4"})
    assert (done.returncode, done.stdout) == (0, "ok\n"), done.stdout + done.stderr[:4000]   # the first race, whole


@pytest.mark.parametrize("variant", ["ts-lock", "ts-nolock"])
@pytest.mark.parametrize("sanitizers", ["address,undefined", "thread,undefined"])
def test_mm_stats_may_run_while_other_threads_allocate(harness, variant, sanitizers):
    """The shim's exit report calls mm_stats while other threads may still allocate.  ts-nolock's
    counted its free blocks by walking every arena's lists as their owners changed them: ASan saw
    a SEGV or a misaligned read in 3 runs of 4, and TSan a race on each counter."""
    threads, ops = (THREADS, OPS // 5) if sanitizers.startswith("address") else (TSAN_THREADS, TSAN_OPS)
    done = subprocess.run([str(harness(variant, sanitizers)), "--stats-while-busy", str(threads), str(ops)],
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, "TSAN_OPTIONS": "exitcode=66:history_size=4"})
    assert (done.returncode, done.stdout) == (0, "ok\n"), done.stdout + done.stderr[:4000]


def test_ts_lock_checker_may_run_while_other_threads_allocate(harness):
    """ts-lock's card: mm_checkheap runs under the lock, so it sees no call half-done."""
    done = subprocess.run([str(harness("ts-lock")), "--check-while-busy", "4", "20000"], capture_output=True,
                          text=True, timeout=120)
    assert (done.returncode, done.stdout) == (0, "ok\n"), done.stdout + done.stderr[-2000:]


@pytest.fixture(scope="module")
def ts_frees(tmp_path_factory):
    return sanitized(tmp_path_factory.mktemp("ts-frees") / "ts-frees",
                     ["tests/c/variants/ts_frees.c", "variants/ts-nolock.c"])


@pytest.mark.parametrize("case", ["kept", "remote", "returned", "adopted", "tail", "limit"])
def test_ts_nolock_does_what_its_card_says_with_another_threads_blocks(ts_frees, case):
    """kept: a small block of another arena is kept and reused whole (its bytes uncounted again);
    remote: a large one goes home and its owner reuses it; returned: a thread's kept blocks go home
    at its exit; adopted: an exited thread's arena is the next thread's; tail: the heap grows by what
    a request lacks; limit: the 4097th live thread gets no arena.  Sending every block home, never
    draining the remote stack, never pooling an arena, and the kept block's byte count or its reuse
    left uncounted each left every test passing.  (The owner's realloc in place, and its count, are
    unit_realloc.c's, which ts-nolock runs with --in-place.)"""
    done = subprocess.run([str(ts_frees), case], capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout) == (0, "ok\n"), done.stdout + done.stderr[-2000:]

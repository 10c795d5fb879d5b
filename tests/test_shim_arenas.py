"""Many threads alive at once on a thread-safe shim: every one gets a heap of its
own (an arena in ts-nolock), frees reach blocks of every other, and past
ts-nolock's MAX_ARENAS (4096) the variant says no and the shim serves from mmap;
the region's break is read by any thread while one moves it."""
from __future__ import annotations

import os
import subprocess

import pytest

from shim_common import KIT, compile_helper, preloaded, read_stats, shim


@pytest.fixture(scope="module")
def arenas(tmp_path_factory):
    return compile_helper("arenas", tmp_path_factory.mktemp("shim-arenas"))


@pytest.mark.parametrize("variant", ["ts-lock", "ts-nolock"])
def test_hundreds_of_live_threads_free_each_others_blocks(variant, arenas, tmp_path):
    # 600 arenas fill the first eight pages of ts-nolock's arena table.
    stats = tmp_path / "stats.jsonl"
    done = subprocess.run([str(arenas), "600", "50"], capture_output=True, text=True,
                          env=preloaded(shim(variant), stats))
    assert (done.returncode, done.stdout) == (0, "ok\n"), done.stderr
    line = read_stats(stats)[0]
    assert line["variant"] == variant and line["fallbacks"] == 0


def test_threads_past_the_arena_limit_fall_back_to_mmap(arenas, tmp_path):
    # 4200 threads want more arenas than ts-nolock has ids for: the rest get NULL
    # from mm_malloc, which the shim serves from mmap, and nothing breaks.
    stats = tmp_path / "stats.jsonl"
    done = subprocess.run([str(arenas), "4200", "50"], capture_output=True, text=True,
                          env=preloaded(shim("ts-nolock"), stats))
    assert (done.returncode, done.stdout) == (0, "ok\n"), done.stderr
    line = read_stats(stats)[0]
    assert line["fallbacks"] >= (4200 - 4096) * 50
    assert line["mm"]["mallocs"] >= 4096 * 50


def test_the_regions_break_is_read_atomically_while_another_thread_moves_it(tmp_path):
    """A free from any thread asks region_contains whether its block is in the region, without
    the region's lock; ThreadSanitizer reported that read of the break as a race while another
    thread's mem_sbrk wrote it.  TSAN_OPTIONS is set here, so that a caller's cannot pass a race."""
    exe = compile_helper("region_race", tmp_path, "shim/region.c",
                         flags=("-fsanitize=thread", f"-I{KIT}", f"-I{KIT / 'shim'}", f"-I{KIT / 'variants'}"))
    done = subprocess.run([str(exe)], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "TSAN_OPTIONS": "exitcode=66"})
    assert (done.returncode, done.stdout) == (0, "ok 1\n"), done.stderr[:4000]

"""Many threads alive at once on a thread-safe shim: every one gets a heap of its
own (an arena in ts-nolock), frees reach blocks of every other, and past
ts-nolock's MAX_ARENAS (4096) the variant says no and the shim serves from mmap."""
from __future__ import annotations

import subprocess

import pytest

from shim_common import compile_helper, preloaded, read_stats, shim


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

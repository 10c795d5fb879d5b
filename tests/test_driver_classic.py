"""A mm.c written for the classic handout (its own ALIGNMENT/WSIZE/DSIZE macros,
a `team_t team`, a `void mm_checkheap(int)`) builds unchanged and passes at
ALIGNMENT=8; so does one without team or checker."""
from __future__ import annotations

import random
import subprocess

import pytest

from conftest import build_driver
from driver_common import CLASSIC, KIT, run, write_trace

FILES = ["classic_mm", "classic_noteam"]


def classic(name: str, alignment: int = 8):
    return build_driver(alignment=alignment, extra=(f"MM=tests/c/classic/{name}.c",))


def mixed_trace(folder, seed: int = 11, ids: int = 120, ops: int = 1500):
    rng = random.Random(seed)
    live: dict[int, int] = {}
    out = []
    for _ in range(ops):
        roll = rng.random()
        if live and roll < 0.35:
            i = rng.choice(sorted(live))
            out.append(f"f {i}")
            del live[i]
        elif live and roll < 0.5:
            i = rng.choice(sorted(live))
            live[i] = rng.randint(1, 2000)
            out.append(f"r {i} {live[i]}")
        elif len(live) < ids:
            i = rng.choice([j for j in range(ids) if j not in live])
            live[i] = rng.randint(1, 2000)
            out.append(f"a {i} {live[i]}")
    return write_trace(folder, "mixed", out, ids=ids, weight=1)


@pytest.mark.parametrize("name", FILES)
def test_compiles_warning_free_against_the_kit_headers(name):
    """Unchanged: no edits, no kit-specific includes, and no warnings under -Wall -Wextra."""
    done = subprocess.run(["cc", "-std=gnu11", "-Wall", "-Wextra", "-Wno-unused-parameter", "-fsyntax-only",
                           "-DMM_ALIGNMENT=8", f"-I{KIT}", str(CLASSIC / f"{name}.c")], capture_output=True, text=True)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    assert "#define ALIGNMENT 8" in (CLASSIC / f"{name}.c").read_text()


@pytest.mark.parametrize("name", FILES)
def test_passes_at_alignment_8(tmp_path, name):
    r = run(classic(name), "-f", mixed_trace(tmp_path), "-f",
            write_trace(tmp_path, "small", ["a 0 1", "a 1 8", "a 2 9", "r 1 100", "f 0", "f 2", "f 1"], weight=2),
            tmp=tmp_path)
    assert r.rc == 0, r.out + r.err
    assert [t["outcome"] for t in r.doc["traces"]] == ["ok", "ok"]
    assert r.doc["settings"]["alignment"] == 8
    assert r.summary["perf_index"] > 0


def test_team_struct_is_reported(tmp_path):
    """Names as written, accents included (the JSON keeps UTF-8 text as text)."""
    r = run(classic("classic_mm"), "-f", mixed_trace(tmp_path), tmp=tmp_path)
    assert r.doc["allocator"]["team"] == {"teamname": "classic", "name1": "Ada Ñandú", "id1": "ada@example.edu",
                                          "name2": "", "id2": ""}
    assert r.doc["allocator"]["has_checkheap"] is True
    assert "(team classic: Ada Ñandú)" in r.out.splitlines()[0]
    bare = run(classic("classic_noteam"), "-f", mixed_trace(tmp_path), tmp=tmp_path)
    assert bare.doc["allocator"]["team"] is None and bare.doc["allocator"]["has_checkheap"] is False
    assert "(team" not in bare.out.splitlines()[0]


def test_8_byte_allocator_in_a_16_byte_build_gets_a_hint(tmp_path):
    r = run(classic("classic_mm", alignment=16), "-f", mixed_trace(tmp_path), tmp=tmp_path)
    assert r.rc == 1
    t = r.doc["traces"][0]
    assert t["outcome"] == "misaligned"
    assert "build with make ALIGNMENT=8" in t["message"] and "build with make ALIGNMENT=8" in r.out


def test_classic_void_checker_under_c(tmp_path):
    r = run(classic("classic_mm"), "-c", "-f", mixed_trace(tmp_path), tmp=tmp_path)
    assert r.doc["traces"][0]["outcome"] == "ok", r.doc["traces"][0]["message"]


def test_a_2016_handout_file_builds_unchanged(tmp_path):
    """`bool mm_init` (true on success) and the DRIVER aliases (functions named malloc, free, ...) were a
    conflicting-types error and undefined references to mm_malloc."""
    r = run(classic("lab2016_mm", alignment=16), "-c", "-f", mixed_trace(tmp_path), tmp=tmp_path)
    assert r.rc == 0, r.out + r.err
    t = r.doc["traces"][0]
    assert t["outcome"] == "ok" and t["utilization"] > 0
    assert r.doc["allocator"]["has_checkheap"] is True and t["output"].startswith("checked at 0\n")


def test_an_int_mm_init_returning_1_gets_a_hint(tmp_path):
    """A 1 (a bool's true) was 'init_failed: mm_init returned 1' with nothing said about 0 being success."""
    r = run(build_driver(extra=("MM=tests/c/broken/init-one.c",)), "-f", mixed_trace(tmp_path), tmp=tmp_path)
    t = r.doc["traces"][0]
    assert t["outcome"] == "init_failed"
    assert t["message"] == "mm_init returned 1 (0 is success here: int mm_init returns 0, or -1 on failure) " \
                           "before the first op"

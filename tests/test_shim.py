"""The shim: a variant, unchanged, as the malloc of real programs."""
from __future__ import annotations

import os
import random
import subprocess
import sys

import pytest

from shim_common import (ALL_VARIANTS, KIT, PROGRAM_VARIANTS, bench_program, compile_helper,
                         make, preloaded, read_stats, shim)

PYTHON = os.path.realpath(sys.executable)   # the interpreter itself, not a wrapper script
WORKLOAD = """
import json, random
random.seed(11)
d = {"k%d" % i: [str(j) * (j % 17) for j in range(i % 40)] for i in range(20000)}
s = json.dumps(d)
back = json.loads(s)
print(len(s), sum(len(v) for v in back.values()), sorted(back)[-1], "".join(back["k39"])[-30:])
"""


@pytest.fixture(scope="module")
def helpers(tmp_path_factory):
    where = tmp_path_factory.mktemp("shim-helpers")
    return {name: compile_helper(name, where) for name in ("contracts", "churn")}


@pytest.mark.parametrize("variant", PROGRAM_VARIANTS)
def test_python_runs_on_the_shim_and_the_shim_served_it(variant, tmp_path):
    stats = tmp_path / "stats.jsonl"
    expected = subprocess.run([PYTHON, "-c", WORKLOAD], capture_output=True, text=True, env=preloaded(None))
    got = subprocess.run([PYTHON, "-c", WORKLOAD], capture_output=True, text=True,
                         env=preloaded(shim(variant), stats))
    assert got.returncode == 0, got.stderr
    assert got.stdout == expected.stdout
    lines = read_stats(stats)
    mine = [line for line in lines if line["comm"].startswith("python")]
    assert len(mine) == 1
    # Proof that this variant served the program: its own counters moved.
    assert mine[0]["variant"] == variant
    assert mine[0]["mallocs"] > 100 and mine[0]["mm"]["mallocs"] >= mine[0]["mallocs"]
    assert mine[0]["mm"]["peak_heap"] > 0 and mine[0]["region_high_water"] > 0


@pytest.mark.parametrize("variant", PROGRAM_VARIANTS)
def test_sort_sorts_on_the_shim(variant, tmp_path):
    rng = random.Random(5)
    lines = [f"{rng.randrange(10**8)} {'x' * rng.randrange(60)}\n" for _ in range(30000)]
    src = tmp_path / "in.txt"
    src.write_text("".join(lines))
    stats = tmp_path / "stats.jsonl"
    done = subprocess.run(["sort", "--parallel=4", "-S", "1M", str(src)], capture_output=True, text=True,
                          env=preloaded(shim(variant), stats))
    assert done.returncode == 0, done.stderr
    assert done.stdout == "".join(sorted(lines))
    assert any(line["comm"] == "sort" and line["mallocs"] > 0 for line in read_stats(stats))


@pytest.mark.parametrize("variant", PROGRAM_VARIANTS)
def test_gcc_compiles_on_the_shim(variant, tmp_path):
    src = tmp_path / "hello.c"
    src.write_text('#include <stdio.h>\nstatic int sq(int x) { return x * x; }\n'
                   'int main(void) { int s = 0; for (int i = 0; i < 10; i++) s += sq(i); printf("%d\\n", s); }\n')
    exe, stats = tmp_path / "hello", tmp_path / "stats.jsonl"
    done = subprocess.run(["gcc", "-O2", "-o", str(exe), str(src)], capture_output=True, text=True,
                          env=preloaded(shim(variant), stats))
    assert done.returncode == 0, done.stderr
    assert subprocess.run([str(exe)], capture_output=True, text=True).stdout == "285\n"
    served = {line["comm"] for line in read_stats(stats) if line["mallocs"] > 0}
    assert {"gcc", "cc1"} <= served


@pytest.mark.parametrize("variant", PROGRAM_VARIANTS)
def test_threads_keep_their_blocks_intact(variant, tmp_path):
    stats = tmp_path / "stats.jsonl"
    done = subprocess.run([str(bench_program("threadtest")), "-t", "4", "-r", "30", "-b", "300", "-x", "25",
                           "-S", "9"], capture_output=True, text=True, env=preloaded(shim(variant), stats))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "errors=0" in done.stdout
    line = read_stats(stats)[0]
    assert line["variant"] == variant and line["mm"]["mallocs"] >= 4 * 31 * 300


FORKS = """
import json, os, threading
stop = False
def churn():
    while not stop:
        json.loads(json.dumps([{"a": str(i) * 20} for i in range(300)]))
threads = [threading.Thread(target=churn) for _ in range(3)]
for t in threads: t.start()
ok = 0
for i in range(30):
    pid = os.fork()
    if pid == 0:
        os._exit(0 if len([str(j) * 50 for j in range(5000)]) == 5000 else 1)
    ok += os.waitpid(pid, 0)[1] == 0
stop = True
for t in threads: t.join()
print("forks ok", ok)
"""


@pytest.mark.parametrize("variant", PROGRAM_VARIANTS)
def test_fork_while_other_threads_allocate(variant):
    # The fork handlers must leave the child no lock held by a thread it does not have.
    done = subprocess.run([PYTHON, "-c", FORKS], capture_output=True, text=True, timeout=120,
                          env=preloaded(shim(variant)))
    assert done.returncode == 0, done.stderr
    assert done.stdout == "forks ok 30\n"


@pytest.mark.parametrize("variant", ALL_VARIANTS)
def test_alignment_functions_keep_their_contracts(variant, helpers, tmp_path):
    # A 64 MiB region sends requests above 32 MiB to mmap: 40 MB exercises the fallback.
    stats = tmp_path / "stats.jsonl"
    done = subprocess.run([str(helpers["contracts"]), str(40 << 20)], capture_output=True, text=True,
                          env=preloaded(shim(variant), stats, MMSHIM_REGION_MB="64"))
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("ok ")
    line = read_stats(stats)[0]
    assert line["region_capacity"] == 64 << 20
    assert line["big_maps"] >= 3 and line["big_maps"] == line["big_unmaps"]
    assert line["aligned"] > 0


def test_requests_the_variant_cannot_serve_fall_back_to_mmap(helpers, tmp_path):
    # With a 1 MiB region the variant runs out early; the program still completes.
    stats = tmp_path / "stats.jsonl"
    done = subprocess.run([str(bench_program("threadtest")), "-t", "2", "-r", "5", "-b", "3000", "-s", "2000"],
                          capture_output=True, text=True,
                          env=preloaded(shim("ts-lock"), stats, MMSHIM_REGION_MB="1"))
    assert done.returncode == 0 and "errors=0" in done.stdout
    line = read_stats(stats)[0]
    assert line["fallbacks"] > 0 and line["region_high_water"] <= 1 << 20


@pytest.mark.parametrize("variant", PROGRAM_VARIANTS)
def test_exited_threads_memory_is_reused(variant, helpers, tmp_path):
    stats = tmp_path / "stats.jsonl"
    done = subprocess.run([str(helpers["churn"]), "300", "200"], capture_output=True, text=True,
                          env=preloaded(shim(variant), stats))
    assert done.returncode == 0, done.stdout
    # 300 threads each leave 200 blocks (~110 KiB) behind; a leak would need 30+ MiB.
    assert read_stats(stats)[0]["region_high_water"] < 2 << 20


def test_double_free_is_caught(tmp_path):
    src = tmp_path / "twice.c"
    src.write_text("#include <stdlib.h>\nint main(void) { void *volatile p = malloc(40); free(p); free(p); }\n")
    exe = tmp_path / "twice"
    subprocess.run(["gcc", "-O0", "-o", str(exe), str(src)], check=True)
    done = subprocess.run([str(exe)], capture_output=True, text=True, env=preloaded(shim("ts-lock")))
    assert done.returncode != 0 and "mmshim: free(): invalid pointer or double free" in done.stderr


@pytest.mark.parametrize("second,message", [("free(p)", "free(): invalid pointer or double free"),
                                            ("p = realloc(p, 10)", "realloc(): invalid pointer")])
def test_double_free_of_an_mmap_served_block_is_caught(second, message, tmp_path):
    """A block over half the region comes from mmap, and its header was unmapped with it:
    a second free (or a realloc) of it had been a bare SIGSEGV."""
    src = tmp_path / "twice.c"
    src.write_text("#include <stdlib.h>\nint main(void) { char *volatile p = malloc(12 << 20); p[0] = 1; "
                   f"free(p); {second}; return p == 0; }}\n")
    exe = tmp_path / "twice"
    subprocess.run(["gcc", "-O0", "-o", str(exe), str(src)], check=True)
    stats = tmp_path / "stats.jsonl"
    for variant in ("ts-lock", "best"):
        done = subprocess.run([str(exe)], capture_output=True, text=True,
                              env=preloaded(shim(variant), stats, MMSHIM_REGION_MB="16"))
        assert done.returncode == -6 and done.stderr == f"mmshim: {message}\n", (variant, done)
    assert not stats.exists()   # it stopped at once: no exit-time report


def test_make_shim_names_a_missing_variant():
    done = subprocess.run(["make", "-s", "-C", str(KIT), "shim", "VARIANT=no-such"], capture_output=True, text=True)
    assert done.returncode != 0
    assert "no allocator variants/no-such.c" in done.stderr


@pytest.mark.parametrize("value", ["0", "4096", "5000", "abc", "-1", "12abc",
                                   " 12", "+12", "12 ", "\t12", "99999999999999999999999"])
def test_a_region_size_out_of_range_is_named_on_stderr(value, tmp_path):
    """It had fallen back to 2048 MiB without a word; the shim runs inside any program, so it
    says so in one line and goes on with the default."""
    stats = tmp_path / "stats.jsonl"
    done = subprocess.run(["/bin/true"], capture_output=True, text=True,
                          env=preloaded(shim("ts-lock"), stats, MMSHIM_REGION_MB=value))
    assert done.returncode == 0
    assert done.stderr.splitlines() == [
        f"mmshim: MMSHIM_REGION_MB={value}: not a whole number of MiB from 1 to 4095; using the default 2048"]
    assert read_stats(stats)[0]["region_capacity"] == 2048 << 20


@pytest.mark.parametrize("value,mb", [("4095", 4095), ("1", 1), ("", 2048), ("0012", 12)])
def test_a_region_size_in_range_is_taken_quietly(value, mb, tmp_path):
    stats = tmp_path / "stats.jsonl"
    done = subprocess.run(["/bin/true"], capture_output=True, text=True,
                          env=preloaded(shim("ts-lock"), stats, MMSHIM_REGION_MB=value))
    assert done.returncode == 0 and done.stderr == ""
    assert read_stats(stats)[0]["region_capacity"] == mb << 20


@pytest.mark.parametrize("where, why", [("missing/stats.jsonl", "No such file or directory"),
                                        (".", "Is a directory"), ("/dev/full", "No space left on device")])
def test_stats_that_cannot_be_written_are_named_on_stderr(where, why, tmp_path):
    """An MMSHIM_STATS path the line could not be appended to had lost it without a word."""
    path = where if where.startswith("/") else str(tmp_path / where)
    done = subprocess.run(["/bin/true"], capture_output=True, text=True,
                          env=preloaded(shim("ts-lock"), None, MMSHIM_STATS=path))
    assert done.returncode == 0
    assert done.stderr.splitlines() == [f"mmshim: MMSHIM_STATS={path}: cannot append the stats line ({why})"]


def marked_allocator(where, name: str, mark: str):
    """The starter mm.c under another name, saying `mark` when its library loads."""
    where.mkdir(parents=True, exist_ok=True)
    src = where / name
    src.write_text((KIT / "mm.c").read_text() + "\n#include <unistd.h>\n"
                   "__attribute__((constructor)) static void say_mark(void) { "
                   f'write(2, "{mark}\\n", {len(mark) + 1}); }}\n')
    return src


def test_make_shim_mm_builds_that_file_even_when_a_variant_has_its_name(tmp_path):
    """MM=x/best.c had handed back build/libmm-best.so (variants/best.c's) and MM=x/mine.c
    failed with make's 'No rule to make target': the shim of any file is that file's."""
    variant_lib = shim("best")
    libs = {}
    for sub, name in (("alice", "best.c"), ("bob", "best.c"), ("carol", "mm.c"), ("dan", "mine.c")):
        src = marked_allocator(tmp_path / sub, name, f"built-from-{sub}")
        lib = KIT / make("shim", f"MM={src}").strip().splitlines()[-1]
        assert lib != variant_lib and lib != KIT / "build" / "libmm-mm.so"
        done = subprocess.run(["/bin/true"], capture_output=True, text=True, env=preloaded(lib))
        assert done.returncode == 0 and done.stderr == f"built-from-{sub}\n"
        libs[sub] = lib
    assert libs["alice"] == libs["bob"]   # one folder per name; the stamp rebuilt it for bob
    done = subprocess.run(["/bin/true"], capture_output=True, text=True, env=preloaded(shim("best")))
    assert done.returncode == 0 and done.stderr == ""


def test_make_shim_mm_names_a_missing_file(tmp_path):
    done = subprocess.run(["make", "-s", "-C", str(KIT), "shim", f"MM={tmp_path}/gone.c"],
                          capture_output=True, text=True)
    assert done.returncode == 2
    lines = done.stderr.splitlines()     # make's own 'make: *** [...] Error 2' no longer follows it
    assert len(lines) == 1 and lines[0].startswith("Makefile:"), done.stderr
    assert f": *** no allocator {tmp_path}/gone.c (variants: best " in lines[0]

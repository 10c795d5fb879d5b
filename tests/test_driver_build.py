"""What the build refuses in an allocator's object, in one line naming what is wrong: mdriver links
mm.c into its own process, so code there that runs before main or replaces a function the driver
calls would act inside the judge itself (mmgrade's rules refused it; `make` alone did not)."""
from __future__ import annotations

import re
import shutil
import subprocess

import pytest
from filelock import FileLock

from conftest import KIT
from driver_common import run, write_trace
from test_build_shared import KIT_DIRS, KIT_FILES


def make(*args: str) -> subprocess.CompletedProcess:
    (KIT / "build").mkdir(exist_ok=True)
    with FileLock(str(KIT / "build" / ".make.lock")):
        return subprocess.run(["make", "-s", "-C", str(KIT), "driver", *args], capture_output=True, text=True)


def refused(source: str, *args: str) -> str:
    done = make(f"MM={source}", *args)
    assert done.returncode == 2, done.stdout + done.stderr
    # less make's own "*** ... Error 2" trailer ("make[1]:" when the tests run under make test)
    lines = [ln for ln in done.stderr.splitlines() if not re.match(r"make(\[\d+\])?: \*\*\* ", ln)]
    assert len(lines) == 1, done.stderr
    return lines[0]


@pytest.mark.parametrize("name,says", [
    ("constructor", "has a constructor or destructor (section .init_array), which would run inside the driver"),
    ("shadow-clock", "defines C-library functions the driver itself calls (clock_gettime): make them static"),
])
def test_an_object_that_would_act_inside_the_driver_is_refused(name, says):
    """A constructor ran in the parent before main; a clock_gettime of mm.c timed the allocator."""
    line = refused(f"tests/c/broken/{name}.c")
    assert line == f"make: tests/c/broken/{name}.c {says}" + line.split(says, 1)[1], line



@pytest.mark.parametrize("missing", ["mm_realloc", "mm_init"])
def test_an_allocator_missing_a_call_is_refused_naming_it(tmp_path, missing):
    """An mm.c without mm_realloc (not written yet, or static) failed at the link with the
    linker's lines, 'undefined reference to mm_realloc' in the driver's replay and perform
    and their files, then 'collect2: error: ld returned 1 exit status'."""
    source = (KIT / "mm.c").read_text()
    start = source.index("int mm_init" if missing == "mm_init" else "void *mm_realloc")
    end = source.index("\n}\n", start) + 3
    mm = tmp_path / f"no-{missing.replace('_', '-')}.c"
    mm.write_text(source[:start] + source[end:])
    line = refused(str(mm))
    assert line == (f"make: {mm} does not define {missing}, which the driver calls (mm.h: mm_init, mm_malloc, "
                    "mm_free and mm_realloc, not static)"), line

@pytest.mark.parametrize("extra, names", [
    ("int main(void) { return 0; }", "main"),
    ("int main(void) { return 0; }\nvoid *mem_sbrk(intptr_t n) { (void)n; return 0; }", "main, mem_sbrk"),
], ids=["main", "main-and-mem_sbrk"])
def test_an_allocator_defining_the_drivers_own_names_is_refused_naming_them(tmp_path, extra, names):
    """An mm.c with a main of its own (a student's test harness) failed at the link with ld's lines,
    'in function main', 'multiple definition of main; ...mdriver.c:282: first defined here',
    'collect2: error: ld returned 1 exit status'."""
    source = (KIT / "mm.c").read_text()
    mm = tmp_path / "with-main.c"
    mm.write_text(source.replace('#include "memlib.h"', '#include "memlib.h"\n' + extra, 1))
    line = refused(str(mm))
    assert line == (f"make: {mm} defines names the driver itself defines ({names}): remove them, "
                    "make them static or rename them"), line


def test_the_grader_can_leave_the_check_to_its_own_rules():
    """mmgrade builds with ALLOC_CHECK=off: its rules refuse the same under the course's policy."""
    done = make("MM=tests/c/broken/constructor.c", "ALLOC_CHECK=off")
    assert done.returncode == 0, done.stderr
    from grader.build import _make_args
    from grader.policy import load_policy
    assert "ALLOC_CHECK=off" in _make_args(load_policy(KIT))


def test_globals_named_like_the_drivers_are_the_allocators_own(tmp_path):
    """heap_lo, progress, ... were multiple definitions at link time (the driver exported 146 names to mm.c)."""
    done = make("MM=tests/c/broken/driver-names.c")
    assert done.returncode == 0, done.stderr
    driver = KIT / done.stdout.strip().splitlines()[-1]
    r = run(driver, "-f", write_trace(tmp_path, "t", ["a 0 16", "a 1 40", "r 0 100", "f 1", "f 0"], weight=1),
            tmp=tmp_path)
    assert r.rc == 0 and r.trace("t")["outcome"] == "ok", r.out + r.err
    assert r.trace("t")["utilization"] > 0
    # what the driver's objects still offer an allocator to link against: main, memlib.h's functions
    # and the driver's assert (driver/assert.c)
    offered = subprocess.run(["nm", "-g", "--defined-only", str(driver.parent / "mdriver.r.o")],
                             capture_output=True, text=True, check=True).stdout.split()[2::3]
    assert "main" in offered and "mem_sbrk" in offered and "__assert_fail" in offered
    assert all(name in ("main", "__assert_fail") or name.startswith("mem_") for name in offered), offered


@pytest.mark.parametrize("mistake", ["return 0\n}", "return undefined_helper();\n}", None],
                         ids=["compile", "link", "cflags"])
def test_a_failed_make_leaves_no_old_mdriver_to_score(tmp_path, mistake):
    """After a make that failed on mm.c, ./mdriver was the last build's: run on its own (not
    after `make &&`) it scored the earlier file as mm.c, without a word. In a copy of the kit,
    whose ./mdriver no other test uses.  A CFLAGS the compiler refuses fails the driver's own
    objects first: the line said 'mm.c did not build', blaming a file that was never compiled."""
    for name in KIT_FILES:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(KIT / name, tmp_path / name)
    for name in KIT_DIRS:
        shutil.copytree(KIT / name, tmp_path / name)
    good = subprocess.run(["make", "-s", "-C", str(tmp_path)], capture_output=True, text=True)
    assert good.returncode == 0 and (tmp_path / "mdriver").exists(), good.stderr
    starter = (tmp_path / "mm.c").read_text()
    assert "int mm_init(void)\n{\n    return 0;\n}" in starter
    if mistake:
        (tmp_path / "mm.c").write_text(starter.replace("return 0;\n}", mistake, 1))
    flags = [] if mistake else ["CFLAGS=-O2 --no-such-flag"]
    bad = subprocess.run(["make", "-s", "-C", str(tmp_path), *flags], capture_output=True, text=True)
    assert bad.returncode != 0
    assert not (tmp_path / "mdriver").exists()
    assert "make: removed ./mdriver: the driver for mm.c did not build; the old one would score the file it was " \
        "built from" in bad.stderr.splitlines(), bad.stderr
    assert mistake or "no-such-flag" in bad.stderr      # the compiler's own line says what is wrong

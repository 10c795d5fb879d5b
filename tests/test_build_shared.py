"""The driver's objects that do not see the allocator are built once, in build/driver/a<N>/, for
every configuration: each configuration had built all of the driver's ~35 files in its own
folder (4 s each, ~13 min of a `make test` run spent holding the build lock).  The builds
here run in a copy of the kit, so that touching a header there rebuilds no other test's driver."""
from __future__ import annotations

import re
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from conftest import KIT

# What `make driver` reads; mk/ is optional to the Makefile and left out.
KIT_FILES = ("Makefile", "mdriver.c", "mmreplay.c", "memlib.c", "memlib.h", "mm.c", "mm.h", "config.h", "mm_stats.h",
             "tools/alloc_check.sh")
KIT_DIRS = ("driver", "variants")
# Settings of the allocator: none may reach a shared object's source.
ALLOC_SETTINGS = ("-DMM_STATS=0", "-DMM_DEBUG=1", "-DMM_LAYOUT=3", "-DMM_INIT_BOOL", "-DMDRIVER_CHECKHEAP_VOID",
                  "-DMDRIVER_CHECKHEAP_INT", '-DMDRIVER_ALLOCATOR="other.c"')


@pytest.fixture
def kit_copy(tmp_path: Path) -> Path:
    for name in KIT_FILES:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(KIT / name, tmp_path / name)
    for name in KIT_DIRS:
        shutil.copytree(KIT / name, tmp_path / name)
    return tmp_path


def make(kit: Path, *args: str) -> subprocess.CompletedProcess:
    done = subprocess.run(["make", "-C", str(kit), "--no-print-directory", "driver", *args],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    return done


def compiled(done: subprocess.CompletedProcess) -> list[str]:
    """The sources a make run compiled, from its echoed commands."""
    return re.findall(r"^\S*cc .* -c -o \S+ (\S+\.c)", done.stdout, re.M)


def shared_objects(kit: Path, alignment: int = 16) -> dict[Path, int]:
    return {p: p.stat().st_mtime_ns for p in (kit / "build" / "driver" / f"a{alignment}").rglob("*.o")}


def sees_allocator(kit: Path, source: str) -> bool:
    """A source whose object depends on the allocator: its name, or hooks.h and mm.h's forms."""
    text = (kit / source).read_text()
    return source == "driver/allocator.c" or re.search(r'^#include "(driver/hooks|mm)\.h"', text, re.M) is not None


def test_a_second_configuration_compiles_only_what_sees_the_allocator(kit_copy):
    first = make(kit_copy, "VARIANT=segregated")
    assert "driver/trace.c" in compiled(first)
    before = shared_objects(kit_copy)
    assert kit_copy / "build/driver/a16/driver/trace.o" in before

    second = make(kit_copy, "VARIANT=best", "LAYOUT=3", "STATS=0")
    again = compiled(second)
    assert "variants/best.c" in again and "driver/check.c" in again
    assert [s for s in again if not sees_allocator(kit_copy, s) and not s.startswith("driver/mark/")
            and s != "variants/best.c"] == [], second.stdout
    assert shared_objects(kit_copy) == before            # not one rewritten
    for args in (("VARIANT=segregated",), ("VARIANT=best", "LAYOUT=3", "STATS=0")):
        driver = kit_copy / make(kit_copy, "-s", *args).stdout.split()[-1]
        done = subprocess.run([str(driver), "-f", str(KIT / "traces" / "classic-random.rep"), "-r", "1"],
                              capture_output=True, text=True)
        assert done.returncode == 0, done.stdout + done.stderr
        assert f"variants/{args[0].split('=')[1]}.c" in done.stdout.splitlines()[0]   # its own allocator's name


def test_other_compiler_flags_build_in_folders_of_their_own(kit_copy):
    """`make CFLAGS=-O1` after a default build had linked the -O2 objects (no object depends on the
    flags): every source is compiled again with the new flags, in folders of their own, and the
    default build's objects are left for the next default make."""
    default = Path(make(kit_copy, "-s", "VARIANT=segregated").stdout.split()[-1])
    before = shared_objects(kit_copy)
    other = make(kit_copy, "VARIANT=segregated", "CFLAGS=-O1 -g")
    commands = [line for line in other.stdout.splitlines() if " -c -o " in line]
    assert {"driver/trace.c", "variants/segregated.c", "mdriver.c"} <= set(compiled(other)), other.stdout
    assert commands and all(line.split()[1:3] == ["-O1", "-g"] for line in commands), other.stdout
    driver = Path(other.stdout.split()[-1])
    assert driver.parent != default.parent and driver.parent.name.startswith("segregated-a16-c")
    assert shared_objects(kit_copy) == before            # the default's shared objects untouched
    assert compiled(make(kit_copy, "VARIANT=segregated")) == []
    assert compiled(make(kit_copy, "VARIANT=segregated", "CFLAGS=-O1 -g")) == []


def test_touching_a_driver_header_rebuilds_its_shared_dependents(kit_copy):
    make(kit_copy, "VARIANT=segregated")
    before = shared_objects(kit_copy)
    header = kit_copy / "driver" / "trace.h"
    header.touch()
    done = make(kit_copy, "VARIANT=segregated")
    after = shared_objects(kit_copy)
    rebuilt = {p.relative_to(kit_copy / "build/driver/a16").as_posix() for p in after if after[p] != before[p]}
    users = {p.with_suffix(".o").relative_to(kit_copy / "build/driver/a16").as_posix()
             for p in (kit_copy / "build/driver/a16").rglob("*.d") if "driver/trace.h" in p.read_text()}
    assert "driver/trace.o" in rebuilt and rebuilt == users, done.stdout


def test_shared_sources_see_no_allocator_setting(kit_copy):
    """What makes an object shareable, checked where it counts: the preprocessed source of every
    shared object is the same under each of the allocator's settings (the folder is the alignment's)."""
    make(kit_copy, "VARIANT=best")
    folder = kit_copy / "build" / "driver" / "a16"
    sources = sorted(p.relative_to(folder).with_suffix(".c").as_posix() for p in folder.rglob("*.o"))
    assert "mdriver.c" in sources and "driver/trace.c" in sources

    def preprocessed(source: str, *setting: str) -> str:
        return subprocess.run(["cc", "-E", "-P", "-std=gnu11", "-I.", "-Ivariants", "-DMM_ALIGNMENT=16", *setting,
                               source], cwd=kit_copy, capture_output=True, text=True, check=True).stdout

    for source in sources:
        text = preprocessed(source)
        for setting in ALLOC_SETTINGS:
            assert preprocessed(source, setting) == text, f"{source} sees {setting}: build it per configuration"


def test_two_makes_at_once_share_the_objects(kit_copy):
    """A user may build two configurations at once: both build, and both drivers run."""
    configs = (("VARIANT=segregated",), ("VARIANT=explicit-lifo",))
    with ThreadPoolExecutor(2) as pool:
        outs = list(pool.map(lambda args: make(kit_copy, "-s", *args), configs))
    for done in outs:
        driver = kit_copy / done.stdout.split()[-1]
        run = subprocess.run([str(driver), "-f", str(KIT / "traces" / "classic-random.rep"), "-r", "1"],
                             capture_output=True, text=True)
        assert run.returncode == 0, run.stdout + run.stderr
    assert not [p for p in (kit_copy / "build" / "driver").rglob("*") if re.search(r"\.[od]\.\d+$", p.name)]

"""The driver's objects are built once, in build/driver/a<N>/, for every configuration: each
configuration had built all of the driver's ~35 files in its own folder (4 s each, ~13 min of a
`make test` run spent holding the build lock).  Those that call the allocator's hooks see only
the hooks' forms, and are built once per set of forms, in build/driver/a<N>/hooks-<forms>/;
a configuration's own folder holds only its allocator, driver/allocator.c (its name) and the
marks.  The builds here run in a copy of the kit, so that touching a header there rebuilds no
other test's driver."""
from __future__ import annotations

import re
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from conftest import KIT
from driver_common import write_trace

# What `make driver` reads; mk/ is optional to the Makefile and left out.
KIT_FILES = ("Makefile", "mdriver.c", "mmreplay.c", "memlib.c", "memlib.h", "mm.c", "mm.h", "config.h", "mm_stats.h",
             "tools/alloc_check.sh")
KIT_DIRS = ("driver", "variants")
# The forms of the allocator's hooks the build tells the driver (the Makefile's probe).
HOOK_FORMS = ("-DMM_INIT_BOOL", "-DMDRIVER_CHECKHEAP_VOID", "-DMDRIVER_CHECKHEAP_INT")
# Settings of the allocator: none may reach a shared object's source, nor, but for the hooks'
# forms, the source of one built per set of forms.
OTHER_SETTINGS = ("-DMM_STATS=0", "-DMM_STATS=1", "-DMM_DEBUG=1", "-DMM_LAYOUT=3", '-DMDRIVER_ALLOCATOR="other.c"')
ALLOC_SETTINGS = OTHER_SETTINGS + HOOK_FORMS
# What a configuration's own folder compiles: the allocator, its name and the marks around it.
OWN_SOURCES = {"driver/allocator.c", "driver/mark/first.c", "driver/mark/last.c"}
# The starter mm.c in the forms of older handouts: `void mm_checkheap(int)`, and with `bool mm_init`.
CHECKHEAP_VOID = "\nvoid mm_checkheap(int lineno) { (void)lineno; }\n"


def starter_in_forms(kit: Path, name: str, bool_init: bool) -> str:
    text = (kit / "mm.c").read_text() + CHECKHEAP_VOID
    if bool_init:
        assert "int mm_init(void)\n{\n    return 0;" in text
        text = "#include <stdbool.h>\n" + text.replace("int mm_init(void)\n{\n    return 0;",
                                                       "bool mm_init(void)\n{\n    return true;")
    (kit / name).write_text(text)
    return f"MM={name}"


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


def test_a_second_configuration_compiles_only_its_allocator(kit_copy):
    """Another allocator with the same forms of hooks compiles its object, its name and the marks:
    the files that call the hooks are the first's, in build/driver/a16/hooks-default/."""
    first = make(kit_copy, "VARIANT=segregated")
    assert {"driver/trace.c", "driver/check.c"} <= set(compiled(first))
    before = shared_objects(kit_copy)
    assert kit_copy / "build/driver/a16/driver/trace.o" in before
    assert kit_copy / "build/driver/a16/hooks-default/driver/check.o" in before

    second = make(kit_copy, "VARIANT=best", "LAYOUT=3", "STATS=0")
    assert sorted(compiled(second)) == sorted(OWN_SOURCES | {"variants/best.c"}), second.stdout
    assert shared_objects(kit_copy) == before            # not one rewritten
    own = kit_copy / "build" / "best-a16-nostats-l3"
    assert {p.relative_to(own).as_posix() for p in own.rglob("*.o")} == \
        {"alloc.o", "mdriver.r.o", *(s.replace(".c", ".o") for s in OWN_SOURCES)}
    for args in (("VARIANT=segregated",), ("VARIANT=best", "LAYOUT=3", "STATS=0")):
        driver = kit_copy / make(kit_copy, "-s", *args).stdout.split()[-1]
        done = subprocess.run([str(driver), "-f", str(KIT / "traces" / "classic-random.rep"), "-r", "1"],
                              capture_output=True, text=True)
        assert done.returncode == 0, done.stdout + done.stderr
        assert f"variants/{args[0].split('=')[1]}.c" in done.stdout.splitlines()[0]   # its own allocator's name


def test_other_forms_of_hooks_build_their_own_shared_folder(kit_copy):
    """A classic handout's `void mm_checkheap(int)` (and with it a `bool mm_init`) changes what the
    files calling the hooks compile to: the first allocator of those forms compiles them once, into
    a folder named after the forms; the next one of the same forms compiles only its own."""
    make(kit_copy, "VARIANT=segregated")
    default = shared_objects(kit_copy)
    # mdriver's files that call the hooks (driver/replay.c is mmreplay's)
    hook_users = {s for s in (p.relative_to(kit_copy).as_posix() for p in [kit_copy / "mdriver.c",
                  *(kit_copy / "driver").glob("*.c")]) if sees_allocator(kit_copy, s)} - {"driver/allocator.c",
                                                                                          "driver/replay.c"}
    assert "driver/check.c" in hook_users and "driver/serve.c" in hook_users

    for forms, bool_init in (("checkheap-void", False), ("init-bool-checkheap-void", True)):
        first = make(kit_copy, starter_in_forms(kit_copy, f"first_{forms}.c", bool_init))
        assert sorted(compiled(first)) == sorted(hook_users | OWN_SOURCES | {f"first_{forms}.c"}), first.stdout
        folder = kit_copy / "build" / "driver" / "a16" / f"hooks-{forms}"
        assert {p.relative_to(folder).with_suffix(".c").as_posix() for p in folder.rglob("*.o")} == \
            hook_users
        after = shared_objects(kit_copy)
        assert {p: after[p] for p in default} == default     # the default forms' objects untouched

        second = make(kit_copy, starter_in_forms(kit_copy, f"second_{forms}.c", bool_init))
        assert sorted(compiled(second)) == sorted(OWN_SOURCES | {f"second_{forms}.c"}), second.stdout
        assert shared_objects(kit_copy) == after
        driver = kit_copy / second.stdout.split()[-1]
        trace = write_trace(kit_copy, "short", ["a 0 100", "a 1 2000", "r 0 300", "f 1", "f 0"])
        done = subprocess.run([str(driver), "-c", "-f", str(trace), "-r", "1"], capture_output=True, text=True)
        assert done.returncode == 0, done.stdout + done.stderr
        assert f"second_{forms}.c" in done.stdout.splitlines()[0]


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


def preprocessed(kit: Path, source: str, *setting: str) -> str:
    return subprocess.run(["cc", "-E", "-P", "-std=gnu11", "-I.", "-Ivariants", "-DMM_ALIGNMENT=16", *setting,
                           source], cwd=kit, capture_output=True, text=True, check=True).stdout


def test_shared_sources_see_no_allocator_setting(kit_copy):
    """What makes an object shareable, checked where it counts: the preprocessed source of every
    shared object is the same under each of the allocator's settings (the folder is the alignment's);
    that of every object built per set of hook forms (those calling the hooks, mdriver's and
    mmreplay's) is the same under each setting but the forms, under every set of forms, and each
    form does change what one of them compiles to."""
    make(kit_copy, "VARIANT=best", "replay")
    folder = kit_copy / "build" / "driver" / "a16"
    sources = {p.relative_to(folder).with_suffix(".c").as_posix() for p in folder.glob("*.o")} | \
        {p.relative_to(folder).with_suffix(".c").as_posix() for p in (folder / "driver").rglob("*.o")}
    assert {"mdriver.c", "mmreplay.c", "driver/trace.c"} <= sources and "driver/check.c" not in sources
    for source in sorted(sources):
        text = preprocessed(kit_copy, source)
        for setting in ALLOC_SETTINGS:
            assert preprocessed(kit_copy, source, setting) == text, \
                f"{source} sees {setting}: build it per configuration"

    hooked = sorted(p.relative_to(folder / "hooks-default").with_suffix(".c").as_posix()
                    for p in (folder / "hooks-default").rglob("*.o"))
    assert {"driver/check.c", "driver/serve.c", "driver/replay.c"} <= set(hooked)
    for forms in ((), ("-DMM_INIT_BOOL",), ("-DMDRIVER_CHECKHEAP_VOID",), ("-DMDRIVER_CHECKHEAP_INT",),
                  ("-DMM_INIT_BOOL", "-DMDRIVER_CHECKHEAP_VOID")):
        texts = {source: preprocessed(kit_copy, source, *forms) for source in hooked}
        for source in hooked:
            for setting in OTHER_SETTINGS:
                assert preprocessed(kit_copy, source, *forms, setting) == texts[source], \
                    f"{source} sees {setting}: build it per configuration"
    for form in HOOK_FORMS:
        assert any(preprocessed(kit_copy, s, form) != preprocessed(kit_copy, s) for s in hooked), form


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

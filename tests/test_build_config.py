"""A build asked for with a bad ALIGNMENT or an allocator that does not exist stops
with the kit's one-line message before any compiler runs (it used to build drivers
that failed every trace, fail inside driver/baseline.c, or say 'No rule to make target')."""
from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import KIT

# Every message lists the variants as the Makefile's VARIANT_NAMES holds them: $(sort) of the names.
NAMES = " ".join(sorted(p.stem for p in (KIT / "variants").glob("*.c")))


# What a bad setting adds to its line when the goal builds ./mdriver and an old one was there.
REMOVED = "; removed ./mdriver: the old one would score the file it was built from"
SETTINGS_KIT: Path | None = None


@pytest.fixture(scope="module", autouse=True)
def settings_kit(tmp_path_factory):
    """What the Makefile reads before it stops on a setting, copied: a bad setting for a goal that
    builds ./mdriver removes ./mdriver, and the tests must not remove the kit's own."""
    global SETTINGS_KIT
    SETTINGS_KIT = tmp_path_factory.mktemp("kit")
    for name in ("Makefile", "mm.c", "memlib.h"):
        shutil.copy2(KIT / name, SETTINGS_KIT / name)
    for name in ("mk", "variants"):
        shutil.copytree(KIT / name, SETTINGS_KIT / name)
    (SETTINGS_KIT / "tests").mkdir()


def _make(kit: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["make", "-s", "-C", str(kit), *args], capture_output=True, text=True)


def make(*args: str) -> subprocess.CompletedProcess:
    """make ARGS in the kit; for the goal that builds ./mdriver (always with a bad setting here), in
    the copy, whose stand-in ./mdriver it must remove, saying so: the line is returned without that."""
    if args[0] != "all":
        return _make(KIT, *args)
    old = SETTINGS_KIT / "mdriver"
    old.write_text("a driver built before\n")
    done = _make(SETTINGS_KIT, *args)
    assert done.returncode == 2 and not old.exists(), done.stderr
    assert done.stderr.endswith(f"{REMOVED}.  Stop.\n"), done.stderr
    done.stderr = done.stderr.replace(REMOVED, "")
    return done


def one_line(done: subprocess.CompletedProcess, message: str) -> None:
    """A bad setting is make's one line, `Makefile:N: *** MESSAGE.  Stop.`, exit 2 and nothing else:
    the recipe that printed `make: MESSAGE` and failed was followed by make's own
    `make: *** [Makefile:N: config-error] Error 2`."""
    assert done.returncode == 2 and done.stdout == "", done.stdout + done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and re.fullmatch(rf"Makefile:\d+: \*\*\* {re.escape(message)}\.  Stop\.", lines[0]), \
        done.stderr


@pytest.mark.parametrize("alignment", ["7", "0", "32", "abc", ""])
def test_alignment_must_be_8_or_16(alignment):
    done = make("driver", f"ALIGNMENT={alignment}", "VARIANT=best")
    one_line(done, f"ALIGNMENT={alignment}: the alignment must be 8 or 16")
    assert not list((KIT / "build" / f"best-a{alignment}").glob("**/*.o"))  # nothing was compiled
    assert not list((KIT / "build" / "driver" / f"a{alignment}").glob("**/*.o"))  # nor a shared object


def test_alignment_of_two_words():
    done = make("driver", "ALIGNMENT=8 16")
    assert done.returncode == 2
    assert done.stderr.strip().endswith("ALIGNMENT='8 16': the alignment must be 8 or 16.  Stop.")


@pytest.mark.parametrize("args,missing", [(("VARIANT=no-such-variant",), "variants/no-such-variant.c"),
                                          (("MM=/nonexistent/alloc.c",), "/nonexistent/alloc.c")])
def test_missing_allocator_lists_the_variants(args, missing):
    for target in ("driver", "variant-unit"):
        one_line(make(target, *args), f"no allocator {missing} (variants: {NAMES})")


@pytest.mark.parametrize("value", ["0", "yes", "on off", ""])
def test_driver_seccomp_must_be_on_or_off(value):
    one_line(make("driver", f"DRIVER_SECCOMP={value}", "VARIANT=best"),
             f"DRIVER_SECCOMP={value}: the driver's seccomp filter is on or off")


def test_good_settings_still_build():
    for alignment in ("8", "16"):
        done = make("driver", f"ALIGNMENT={alignment}", "VARIANT=best")
        assert done.returncode == 0, done.stderr
        assert Path(KIT / done.stdout.strip().splitlines()[-1]).name == "mdriver"


@pytest.mark.parametrize("setting,message", [
    ("SANITIZE=0", "SANITIZE=0: 1 builds with the sanitizers, empty without"),
    ("STATS=abc", "STATS=abc: the statistics are compiled in (1) or out (0)"),
    ("DEBUG=abc", "DEBUG=abc: MM_DEBUG is 0 or 1"),
    ("LAYOUT=abc", "LAYOUT=abc: the placement layout is a number from 0 to 15"),
    ("LAYOUT=-1", "LAYOUT=-1: the placement layout is a number from 0 to 15"),
    ("LAYOUT=16", "LAYOUT=16: the placement layout is a number from 0 to 15"),
    ("VARIANT=../mm", f"VARIANT=../mm: a variant is a name (variants: {NAMES})"),
    ("MM=tests", "tests is a folder: the allocator is one .c file"),
    ("MM=README.md", "README.md: the allocator is a .c file"),
    # the shell's "nonexistent-cc: not found", then "make: removed ./mdriver: mm.c did not build"
    ("CC=nonexistent-cc", "CC=nonexistent-cc: no compiler nonexistent-cc (not found as a command)"),
    ("CC=/nonexistent/gcc -m64", "CC=/nonexistent/gcc -m64: no compiler /nonexistent/gcc (not found as a command)"),
    ("CC=", "CC is empty: it names the C compiler (cc by default)"),
    # it built on to "make: mm.c has a constructor or destructor (section .init_array.00099)": ASan's
    ("CFLAGS=-O1 -g -fsanitize=address", "CFLAGS holds -fsanitize=address: build with make SANITIZE=1 for the "
     "sanitizers (in CFLAGS alone they give the allocator a constructor and memory maps, which the driver refuses)"),
])
def test_every_build_setting_is_checked_before_any_compiler_runs(setting, message):
    """SANITIZE=0 once built a sanitized driver (any non-empty value did), VARIANT=../mm built into a
    folder at the kit's top, and a folder as MM ended in a linker error."""
    for target in ("driver", "all", "replay", "shim"):
        one_line(make(target, setting), message)


def test_a_bad_setting_removes_the_old_mdriver_only_for_the_goals_that_build_it(tmp_path):
    """`make MM=mine.c` with mine.c missing (or any bad setting) stopped in one line and left the old
    ./mdriver, built from mm.c, to be run as if built from mine.c; a failed compile removed it."""
    old = SETTINGS_KIT / "mdriver"
    for args in (["MM=missing.c"], ["mdriver", "ALIGNMENT=32"], ["VARIANT=a b"]):   # the last: parsing
        old.write_text("a driver built before\n")
        done = _make(SETTINGS_KIT, *args)
        assert done.returncode == 2 and not old.exists(), (args, done.stderr)
        assert len(done.stderr.splitlines()) == 1 and done.stderr.endswith(f"{REMOVED}.  Stop.\n"), done.stderr
    for args in (["driver", "MM=missing.c"], ["-n", "MM=missing.c"], ["-n", "VARIANT=a b"]):   # it stays
        old.write_text("a driver built before\n")
        done = _make(SETTINGS_KIT, *args)
        assert done.returncode == 2 and old.exists() and REMOVED not in done.stderr, (args, done.stderr)
    old.unlink()
    done = _make(SETTINGS_KIT, "MM=missing.c")     # none to remove: none said removed
    assert done.returncode == 2 and REMOVED not in done.stderr and "no allocator missing.c" in done.stderr


def test_an_allocator_path_with_spaces_is_one_line(tmp_path):
    source = tmp_path / "sp ace.c"
    source.write_text((KIT / "mm.c").read_text())
    done = make("driver", f"MM={source}")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.strip().endswith(f"MM='{source}': make cannot build a path with spaces; copy the file to one "
                                        "without.  Stop.")
    assert "Circular" not in done.stderr


@pytest.mark.parametrize("name", ["mm:2.c", "mm;2.c", "it's.c", "mm$2.c", "a(b.c", "mm*.c", 'say"hi".c'])
def test_an_allocator_path_make_cannot_take_is_one_line(tmp_path, name):
    """As a variant's name: 'mm:2.c' gave make's "target pattern contains no '%'", 'mm;2.c' "missing
    separator", a quote the shell's error, 'mm$2.c' (make expands $2) "no allocator .../mm.c", a
    file not named; each left the old ./mdriver in place, to be run as if built from the new file."""
    source = tmp_path / name
    source.write_text((KIT / "mm.c").read_text())
    for target in ("driver", "all", "replay"):
        done = make(target, f"MM={source}")
        assert done.returncode == 2 and done.stdout == ""
        lines = done.stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith("Makefile:"), done.stderr
        assert lines[0].endswith(f": *** MM='{source}': make cannot build a path with characters other than "
                                 "letters, digits and - _ . + / ~ @ = , #; copy the file to such a name.  Stop.")


def test_an_allocator_path_with_the_other_characters_builds(tmp_path):
    for name in ("mm,2.c", "mm#2.c", "mm~2@x=y.c"):
        source = tmp_path / name
        source.write_text((KIT / "mm.c").read_text())
        done = make("driver", f"MM={source}")
        assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("variant", ["two words", "a:b", "a;b", "*", "?est", "it's", "a(b"])
def test_a_variant_that_is_not_a_name_is_one_line(variant):
    """VARIANT='two words' gave 27 lines of make's warnings before the kit's message, 'a:b' make's
    "target pattern contains no '%'", 'a;b' "missing separator", '*' and '?est' a shell's "cannot create
    build/*-a16/hooks.flags.new" (the wildcard had found best.c), a quote or a parenthesis the shell's
    syntax errors."""
    for target in ("driver", "all"):
        done = make(target, f"VARIANT={variant}")
        assert done.returncode == 2 and done.stdout == ""
        lines = done.stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith("Makefile:"), done.stderr
        assert lines[0].endswith(f": *** VARIANT='{variant}': a variant is a name (variants: {NAMES}).  Stop.")


@pytest.mark.parametrize("target", ["variant-unit", "variant-corrupt"])
def test_a_variant_test_without_a_variant_is_one_line(target):
    """Without VARIANT they were built against mm.c, which has no mm_checkheap or mm_stats:
    some 190 lines of the linker's undefined references."""
    done = make(target)
    assert done.returncode == 2 and done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("mk/variants.mk:"), done.stderr
    assert lines[0].endswith(f": *** {target} tests a variant: give VARIANT=name (variants: {NAMES}).  Stop.")




@pytest.mark.parametrize("setting,message", [
    ("CHECK_HEAP=abc", "CHECK_HEAP=abc: the maximum heap must be a size from 1 byte to 4G (e.g. 64M)"),
    ("CHECK_HEAP=0", "CHECK_HEAP=0: the maximum heap must be a size from 1 byte to 4G (e.g. 64M)"),
    ("CHECK_HEAP=5G", "CHECK_HEAP=5G: the maximum heap must be a size from 1 byte to 4G (e.g. 64M)"),
    ("CHECK_VARIANTS=nosuch", f"CHECK_VARIANTS=nosuch: no variant nosuch (variants: {NAMES})"),
    ("CHECK_VARIANTS=", f"CHECK_VARIANTS is empty: name variants (variants: {NAMES})"),
    ("CHECK_ALIGNMENTS=12", "CHECK_ALIGNMENTS=12: each alignment is 8 or 16"),
])
def test_variants_checked_settings_are_checked_before_any_build(setting, message, tmp_path):
    """A bad setting had built all 24 configurations, then printed 24 FAILED lines."""
    one_line(make("variants-checked", setting, f"BUILD={tmp_path}/build"), message)
    assert not (tmp_path / "build").exists()


def test_variants_checked_stops_at_a_driver_that_does_not_build(tmp_path):
    """The build's status had been lost in a pipe (tail's was tested): every run then failed
    with '/bin/sh: -c: not found'."""
    done = make("variants-checked", "CHECK_VARIANTS=best", "CHECK_ALIGNMENTS=16", "CC=false",
                f"BUILD={tmp_path}/build")
    assert done.returncode == 2 and "FAILED" not in done.stdout and "not found" not in done.stderr
    assert "make: variants-checked: the driver for best at 16 bytes does not build (its error above)" in done.stderr


def test_mm_and_variant_together_are_refused():
    """`make VARIANT=best MM=x.c` built x.c and said nothing of VARIANT."""
    one_line(make("driver", "VARIANT=best", "MM=mm.c"),
             "MM=mm.c and VARIANT=best: give one (MM builds that file, VARIANT variants/best.c)")

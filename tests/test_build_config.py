"""A build asked for with a bad ALIGNMENT or an allocator that does not exist stops
with the kit's one-line message before any compiler runs (it used to build drivers
that failed every trace, fail inside driver/baseline.c, or say 'No rule to make target')."""
from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from conftest import KIT

VARIANTS = " ".join(p.stem for p in sorted((KIT / "variants").glob("*.c")))  # make sorts file names


def make(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["make", "-s", "-C", str(KIT), *args], capture_output=True, text=True)


@pytest.mark.parametrize("alignment", ["7", "0", "32", "abc", ""])
def test_alignment_must_be_8_or_16(alignment):
    done = make("driver", f"ALIGNMENT={alignment}", "VARIANT=best")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.splitlines()[0] == f"make: ALIGNMENT={alignment}: the alignment must be 8 or 16"
    assert not list((KIT / "build" / f"best-a{alignment}").glob("**/*.o"))  # nothing was compiled


def test_alignment_of_two_words():
    done = make("driver", "ALIGNMENT=8 16")
    assert done.returncode == 2
    assert done.stderr.strip().endswith("ALIGNMENT='8 16': the alignment must be 8 or 16.  Stop.")


@pytest.mark.parametrize("args,missing", [(("VARIANT=no-such-variant",), "variants/no-such-variant.c"),
                                          (("MM=/nonexistent/alloc.c",), "/nonexistent/alloc.c")])
def test_missing_allocator_lists_the_variants(args, missing):
    for target in ("driver", "variant-unit"):
        done = make(target, *args)
        assert done.returncode == 2 and done.stdout == ""
        assert done.stderr.splitlines()[0] == f"make: no allocator {missing} (variants: {VARIANTS})"
        assert "No rule to make target" not in done.stderr


@pytest.mark.parametrize("value", ["0", "yes", "on off", ""])
def test_driver_seccomp_must_be_on_or_off(value):
    done = make("driver", f"DRIVER_SECCOMP={value}", "VARIANT=best")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.splitlines()[0] == f"make: DRIVER_SECCOMP={value}: the driver's seccomp filter is on or off"


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
    ("VARIANT=../mm", f"VARIANT=../mm: a variant is a name (variants: {VARIANTS})"),
    ("MM=tests", "tests is a folder: the allocator is one .c file"),
    ("MM=README.md", "README.md: the allocator is a .c file"),
])
def test_every_build_setting_is_checked_before_any_compiler_runs(setting, message):
    """SANITIZE=0 once built a sanitized driver (any non-empty value did), VARIANT=../mm built into a
    folder at the kit's top, and a folder as MM ended in a linker error."""
    done = make("driver", setting)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.splitlines()[0] == f"make: {message}"
    assert "No rule to make target" not in done.stderr


def test_an_allocator_path_with_spaces_is_one_line(tmp_path):
    source = tmp_path / "sp ace.c"
    source.write_text((KIT / "mm.c").read_text())
    done = make("driver", f"MM={source}")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.strip().endswith(f"MM='{source}': make cannot build a path with spaces; copy the file to one "
                                        "without.  Stop.")
    assert "Circular" not in done.stderr

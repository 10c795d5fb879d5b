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

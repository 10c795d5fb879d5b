"""What the build refuses in an allocator's object, in one line naming what is wrong: mdriver links
mm.c into its own process, so code there that runs before main or replaces a function the driver
calls would act inside the judge itself (mmgrade's rules refused it; `make` alone did not)."""
from __future__ import annotations

import subprocess

import pytest
from filelock import FileLock

from conftest import KIT


def make(*args: str) -> subprocess.CompletedProcess:
    (KIT / "build").mkdir(exist_ok=True)
    with FileLock(str(KIT / "build" / ".make.lock")):
        return subprocess.run(["make", "-s", "-C", str(KIT), "driver", *args], capture_output=True, text=True)


def refused(source: str, *args: str) -> str:
    done = make(f"MM={source}", *args)
    assert done.returncode == 2, done.stdout + done.stderr
    lines = [ln for ln in done.stderr.splitlines() if not ln.startswith("make: ***")]
    assert len(lines) == 1, done.stderr
    return lines[0]


@pytest.mark.parametrize("name,says", [
    ("constructor", "has a constructor or destructor (section .init_array), which would run inside the driver"),
    ("shadow-clock", "defines clock_gettime, a C-library function the driver itself calls: make yours static"),
])
def test_an_object_that_would_act_inside_the_driver_is_refused(name, says):
    """A constructor ran in the parent before main; a clock_gettime of mm.c timed the allocator."""
    line = refused(f"tests/c/broken/{name}.c")
    assert line == f"make: tests/c/broken/{name}.c {says}" + line.split(says, 1)[1], line


def test_the_grader_can_leave_the_check_to_its_own_rules():
    """mmgrade builds with ALLOC_CHECK=off: its rules refuse the same under the course's policy."""
    done = make("MM=tests/c/broken/constructor.c", "ALLOC_CHECK=off")
    assert done.returncode == 0, done.stderr
    from grader.build import _make_args
    from grader.policy import load_policy
    assert "ALLOC_CHECK=off" in _make_args(load_policy(KIT))

"""Shared fixtures: the kit's root, and drivers built per configuration.

Builds go through `make driver`, which puts each configuration in its own
build/ folder; a file lock keeps concurrent test workers from building the same
configuration at once.
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from filelock import FileLock

KIT = Path(__file__).resolve().parent.parent


def build_driver(variant: str | None = None, alignment: int = 16, sanitize: bool = False,
                 extra: tuple[str, ...] = (), target: str = "driver") -> Path:
    """Build the driver for one configuration and return its path (target "replay": mmreplay)."""
    args = ["make", "-s", "-C", str(KIT), target, f"ALIGNMENT={alignment}"]
    if variant:
        args.append(f"VARIANT={variant}")
    if sanitize:
        args.append("SANITIZE=1")
    args.extend(extra)
    (KIT / "build").mkdir(exist_ok=True)
    with FileLock(str(KIT / "build" / ".make.lock")):
        done = subprocess.run(args, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"make failed for {variant or 'mm.c'}:\n{done.stdout}\n{done.stderr}")
    return KIT / done.stdout.strip().splitlines()[-1]


@pytest.fixture(scope="session", autouse=True)
def own_timing_lock(tmp_path_factory):
    """Each pytest worker's graders share a timing lock file of their own (grader/timinglock.py):
    the machine's, in /tmp, would make the workers' graders wait for one another and for anyone
    grading on this machine.  tests/test_grader_timinglock.py shares one on purpose."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("MMGRADE_TIMING_LOCK", str(tmp_path_factory.mktemp("timing") / "timing.lock"))
        yield


@pytest.fixture(scope="session")
def kit() -> Path:
    return KIT


@pytest.fixture(scope="session")
def driver() -> Path:
    """The driver built from the starter mm.c."""
    return build_driver()


@pytest.fixture(scope="session")
def python() -> str:
    return sys.executable

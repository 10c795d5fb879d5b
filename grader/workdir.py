"""The batch's temporary folder (the kit's template, the traces, the builds), and the sweep of
folders whose grader was killed.

A grader that ends in any way it can see removes its folder; one killed with SIGKILL cannot.  So
each folder holds a lock for as long as its grader lives: the kernel drops it when the process
dies, and the next grader to start removes every such folder whose lock nobody holds.  The lock
file is locked before it takes its name, so no sweep ever sees a live folder's lock unlocked.
"""
from __future__ import annotations

import fcntl
import os
import shutil
import tempfile
from pathlib import Path

PREFIX = "mmgrade-"
ALIVE = ".alive"
_held: dict[Path, int] = {}      # our folders' lock descriptors, open for the process's life


def claim() -> Path:
    """A new work folder under the temporary directory, locked as ours, after removing those left
    by graders that were killed."""
    sweep()
    work = Path(tempfile.mkdtemp(prefix=PREFIX))
    pending = work / (ALIVE + ".new")
    fd = os.open(pending, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)
    os.rename(pending, work / ALIVE)
    _held[work] = fd
    return work


def release(work: Path) -> None:
    """Remove our work folder and drop its lock."""
    shutil.rmtree(work, ignore_errors=True)
    fd = _held.pop(Path(work), None)
    if fd is not None:
        os.close(fd)


def sweep() -> list[Path]:
    """Remove the work folders whose grader is gone (their lock free); the folders removed."""
    gone = []
    for lock in Path(tempfile.gettempdir()).glob(f"{PREFIX}*/{ALIVE}"):
        try:
            fd = os.open(lock, os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:           # held: its grader is alive
            continue
        finally:
            os.close(fd)
        shutil.rmtree(lock.parent, ignore_errors=True)
        gone.append(lock.parent)
    return gone

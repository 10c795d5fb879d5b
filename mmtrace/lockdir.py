"""Temporary folders that a SIGKILL leaves behind only until the next process of their kind starts.

A process that ends in any way it can see removes its folder; one killed with SIGKILL cannot.  So
each folder holds a lock for as long as its process lives: the kernel drops it when the process
dies, and the next process to claim a folder of the same prefix removes every such folder whose
lock nobody holds, if it is its own user's.  The lock file is locked before it takes its name, so
no sweep ever sees a live folder's lock unlocked.  Used for the grader's work folders
(grader/workdir.py) and `mmtrace record`'s log folders.
"""
from __future__ import annotations

import fcntl
import os
import shutil
import stat
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

ALIVE = ".alive"
_held: dict[Path, int] = {}      # our folders' lock descriptors, open for the process's life


def claim(prefix: str) -> Path:
    """A new folder PREFIX* under the temporary directory, locked as ours, after removing those
    left by processes of the same prefix that were killed."""
    sweep(prefix)
    work = Path(tempfile.mkdtemp(prefix=prefix))
    pending = work / (ALIVE + ".new")
    fd = os.open(pending, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)
    os.rename(pending, work / ALIVE)
    _held[work] = fd
    return work


def release(work: Path) -> None:
    """Remove our folder and drop its lock."""
    shutil.rmtree(work, ignore_errors=True)
    fd = _held.pop(Path(work), None)
    if fd is not None:
        os.close(fd)


@contextmanager
def claimed(prefix: str) -> Iterator[Path]:
    """claim(PREFIX) for the length of a with block, released however it ends."""
    work = claim(prefix)
    try:
        yield work
    finally:
        release(work)


def sweep(prefix: str) -> list[Path]:
    """Remove the folders PREFIX* of this user whose process is gone (their lock free); the
    folders removed."""
    gone = []
    for lock in Path(tempfile.gettempdir()).glob(f"{prefix}*/{ALIVE}"):
        try:
            folder = os.lstat(lock.parent)
            if not stat.S_ISDIR(folder.st_mode) or folder.st_uid != os.getuid():
                continue              # a link, or another user's: not ours to judge
            fd = os.open(lock, os.O_RDONLY | os.O_CLOEXEC | os.O_NOFOLLOW)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:           # held: its process is alive
            continue
        finally:
            os.close(fd)
        shutil.rmtree(lock.parent, ignore_errors=True)
        gone.append(lock.parent)
    return gone

"""The batch's temporary folder (the kit's template, the traces, the builds), and the sweep of
folders whose grader was killed: a folder locked for its grader's life, removed by the next
grader once the lock is free (mmtrace/lockdir.py, shared with `mmtrace record`'s log folders).
"""
from __future__ import annotations

from pathlib import Path

from mmtrace import lockdir

PREFIX = "mmgrade-"
ALIVE = lockdir.ALIVE


def claim() -> Path:
    """A new work folder under the temporary directory, locked as ours, after removing those left
    by graders that were killed."""
    return lockdir.claim(PREFIX)


def release(work: Path) -> None:
    """Remove our work folder and drop its lock."""
    lockdir.release(work)


def sweep() -> list[Path]:
    """Remove the work folders whose grader is gone (their lock free); the folders removed."""
    return lockdir.sweep(PREFIX)

"""regular.py - reading a file that must be a regular one, without ever waiting: a named pipe
(FIFO) may never get a writer and a device such as /dev/zero is read forever, so both (and a
socket) are refused before a byte is read.  A folder is left to read(), which says so."""
from __future__ import annotations

import errno
import os
import stat
from pathlib import Path


class NotRegular(OSError):
    """PATH is a FIFO, a device or a socket; `kind` says which ("a named pipe (FIFO)")."""

    def __init__(self, kind: str):
        super().__init__(errno.EINVAL, "not a regular file")
        self.kind = kind


def _special(mode: int) -> str | None:
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return None


def special_fd_kind(fd: int) -> str | None:
    """What the open FD is when it is a FIFO, a device or a socket; None for anything else: for a
    file opened with O_NONBLOCK that must be a regular one (a lock file)."""
    return _special(os.fstat(fd).st_mode)


def special_kind(path: Path | str) -> str | None:
    """What PATH is when it is a FIFO, a device or a socket ("a named pipe (FIFO)"); None for
    anything else, a missing path included: for a caller that hands PATH to another program."""
    try:
        return _special(os.stat(path).st_mode)
    except OSError:
        return None


def read_regular(path: Path | str, limit: int | None = None) -> bytes:
    """PATH's bytes (at most LIMIT + 1 of them, so that a caller can tell a file over LIMIT);
    NotRegular for a FIFO, a device or a socket, unread; OSError as open and read give it."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    with os.fdopen(fd, "rb") as handle:
        if kind := _special(os.fstat(fd).st_mode):
            raise NotRegular(kind)
        return handle.read() if limit is None else handle.read(limit + 1)

"""The timing lock every grader on the machine shares, so no two measure a driver run at once.

A threading.Lock serializes one grader's runs; two `mmgrade grade` runs into different output
folders (two sections, two TAs) would still time their drivers side by side, each student's
throughput measured under the other grader's load.  So a timed run also holds an flock on a lock
file all graders open: MMGRADE_TIMING_LOCK, else /tmp/mmgrade-timing.lock.  A serialized run
holds it exclusively; a pinned run (timing.pin) holds it shared and PATH.cpuN exclusively, so
that pinned runs on different CPUs go together and a serialized run waits for all of them.

flock is released by the kernel when the file is closed, kill -9 included, and the driver does
not inherit the descriptor.  A waiter polls (LOCK_NB), so an interrupt never waits on another
grader; it first takes PATH.gate (PATH.cpuN.gate), so two graders' runs alternate instead of
one grader's back-to-back runs starving the other.  A lock file that cannot be used (another
user's 0600 file, a symbolic link, a read-only /tmp) is said once and the grader falls back to
its own lock: never a traceback, never a silent stall.
"""
from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import re
import stat
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator

ENV = "MMGRADE_TIMING_LOCK"
DEFAULT = Path("/tmp/mmgrade-timing.lock")
POLL_SECONDS = 0.05
Notice = Callable[[str], None]


class Unusable(OSError):
    """A lock file this grader cannot open or lock; the message says why in a few words."""


def lock_path() -> Path:
    return Path(os.environ.get(ENV) or DEFAULT)


def open_lock(path: Path) -> int:
    """A descriptor on the regular file PATH, created mode 0666 when missing; Unusable otherwise.

    Opened without O_CREAT when it exists: with fs.protected_regular, O_CREAT on another user's
    file in a sticky /tmp is refused even when its mode allows.  flock needs no write access,
    so another user's 0644 file is opened read-only.  O_NONBLOCK: a FIFO planted there must not
    block the open."""
    flags = os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK
    for _ in range(3):
        try:
            try:
                fd = os.open(path, os.O_RDWR | flags)
            except PermissionError:
                fd = os.open(path, os.O_RDONLY | flags)
        except FileNotFoundError:
            try:
                fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL | flags, 0o666)
            except FileExistsError:         # another grader created it just now: open theirs
                continue
            except OSError as err:
                raise _unusable(err, "create it there") from None
        except OSError as err:
            raise _unusable(err, "open it, e.g. another user's file of mode 0600") from None
        return _checked(fd)
    raise Unusable("it keeps appearing and disappearing")


def _checked(fd: int) -> int:
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        raise Unusable("not a regular file")
    if info.st_uid == os.geteuid() and info.st_mode & 0o666 != 0o666:
        with contextlib.suppress(OSError):      # ours, made under a umask: every user's grader must open it
            os.fchmod(fd, 0o666)
    return fd


def _unusable(err: OSError, doing: str) -> Unusable:
    """ERR of an open that was to DOING, in a few words."""
    if err.errno == errno.ELOOP:
        return Unusable("a symbolic link, which the lock never follows")
    if err.errno in (errno.EACCES, errno.EPERM):
        return Unusable(f"{err.strerror}: this user cannot {doing}")
    if err.errno == errno.ENOENT:
        return Unusable("its folder does not exist")
    if err.errno == errno.EISDIR:
        return Unusable("a folder")
    return Unusable(err.strerror or str(err))


def holder(fd: int) -> str:
    """Who holds the lock, as it wrote itself into the file; '' when it could not, or when the
    process named there holds no lock on it: a holder killed with kill -9 never clears its line,
    and the file may be held now by a run that signs another (a pinned run signs FILE.cpuN)."""
    try:
        text = os.pread(fd, 200, 0).decode(errors="replace").strip()
    except OSError:
        return ""
    named = re.match(r"pid (\d+)\b", text)
    return text if named and _holds(int(named[1]), fd) else ""


def _holds(pid: int, fd: int) -> bool:
    """Whether process PID holds an flock on FD's file (/proc/locks, which the kernel keeps; a
    dead pid reused by another process holds none).  Without /proc/locks: whether PID lives."""
    info = os.fstat(fd)
    inode = f"{os.major(info.st_dev):02x}:{os.minor(info.st_dev):02x}:{info.st_ino}"
    try:
        with open("/proc/locks", encoding="ascii", errors="replace") as locks:
            return any(f[1:3] == ["FLOCK", "ADVISORY"] and f[4] == str(pid) and f[5] == inode
                       for f in (line.split() for line in locks) if len(f) > 5)
    except OSError:
        pass
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:         # another user's process: alive
        pass
    return True


def _write(fd: int, text: str) -> bool:
    try:
        os.ftruncate(fd, 0)
        os.pwrite(fd, text.encode(), 0)
        return True
    except OSError:
        return False


def _try(fd: int, how: int) -> bool:
    try:
        fcntl.flock(fd, how | fcntl.LOCK_NB)
        return True
    except BlockingIOError:
        return False
    except OSError as err:          # ENOLCK: a file system without flock
        raise Unusable(f"flock: {err.strerror or err}") from None


class MachineLock:
    """The machine-wide half of _Grader's timing lock (grade.py takes its own lock first: flock
    on one descriptor does not exclude the threads of one process)."""

    def __init__(self, path: Path, notice: Notice, stopping: Callable[[], bool]):
        self.path = Path(path)
        self.notice = notice
        self.stopping = stopping
        self.fallen_back = False
        self.waited = False
        self._said = threading.Lock()

    def check(self) -> None:
        """Open the lock file once before grading, so that a fallback is said up front."""
        try:
            os.close(open_lock(self.path))
        except Unusable as err:
            self._fall_back(self.path, err)

    @contextmanager
    def held(self, cpu: int | None = None) -> Iterator[None]:
        """Hold the lock for one timed run: PATH exclusively, or with CPU, PATH shared and
        PATH.cpuCPU exclusively.  Given up (the run goes unlocked) when the grader is stopping:
        the sandbox kills a run started then at once."""
        if self.fallen_back:
            yield
            return
        wanted = [(self.path, fcntl.LOCK_EX)] if cpu is None else \
            [(self.path, fcntl.LOCK_SH), (self.path.with_name(f"{self.path.name}.cpu{cpu}"), fcntl.LOCK_EX)]
        target = wanted[-1][0]
        wanted.insert(0, (target.with_name(f"{target.name}.gate"), fcntl.LOCK_EX))
        fds: list[int] = []
        signed = False
        try:
            try:
                for path, _ in wanted:
                    fds.append(open_lock(path))
                # the gate shows nobody: a waiter names the holder of the file behind it
                shown = [(fds[-1], target)] + [(fd, path) for fd, (path, _) in zip(fds[1:], wanted[1:])]
                if all(self._wait(fd, how, *seen) for fd, (_, how), seen in zip(fds, wanted, shown)):
                    fcntl.flock(fds[0], fcntl.LOCK_UN)      # the next waiter may queue now
                    signed = self._sign(fds[-1], cpu)
            except Unusable as err:
                self._fall_back(wanted[min(len(fds), len(wanted) - 1)][0], err)
            yield
        finally:
            if signed:
                _write(fds[-1], "")
            for fd in fds:
                os.close(fd)

    def _wait(self, fd: int, how: int, shown_fd: int, shown: Path) -> bool:
        """Take flock HOW on FD, polling; False when the grader stops first.  The first wait of
        the batch is said once, naming SHOWN and who holds it."""
        if _try(fd, how):
            return True
        if self._first("waited"):
            who = holder(shown_fd) or "its pid not recorded"
            self.notice(f"note: waiting for the machine-wide timing lock {shown}: another mmgrade ({who}) "
                        "is timing a driver run on this machine; each run here starts when the one "
                        "before it ends")
        while not self.stopping():
            time.sleep(POLL_SECONDS)
            if _try(fd, how):
                return True
        return False

    def _first(self, flag: str) -> bool:
        """Whether this is the first time FLAG is set (threads of one batch race for it)."""
        with self._said:
            first = not getattr(self, flag)
            setattr(self, flag, True)
        return first

    def _sign(self, fd: int, cpu: int | None) -> bool:
        """Write who holds the lock, for a waiting grader's note; False in another user's
        read-only file (the note then says the pid is not recorded)."""
        text = f"pid {os.getpid()}, a run since {time.strftime('%H:%M:%S')}"
        return _write(fd, text + (f" on CPU {cpu}" if cpu is not None else ""))

    def _fall_back(self, path: Path, err: Unusable) -> None:
        if not self._first("fallen_back"):
            return
        self.notice(f"warning: {path}: cannot use the machine-wide timing lock ({err}); runs are "
                    f"timed one at a time within this grader only, so another grader on this machine "
                    f"may time beside them; set {ENV} to a file every grader can open")

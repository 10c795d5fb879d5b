"""The processes a recording started that outlive its command's process group.

`record` runs the command in a process group of its own and signals that group; a process that
leaves it (a daemon's setsid) escaped every signal and the timeout, and ran on after `record`
returned.  Without root there is no cgroup or PID namespace to hold them all (a user namespace
would make the program root in it, and pid 1 ignores signals), so they are found by what they
carry: every process the recorder reached has this recording's MMTRACE_OUT in its environment
(/proc/PID/environ: the environment it was exec'd with, kept by fork and setsid), and one started
out of the recorder's reach left a note with its pid (raw-unrecorded.PID).  Their descendants
count too.  What none of these lead to (an unrecorded program's orphan) cannot be found.
"""
from __future__ import annotations

import os
import signal
import time
from collections import defaultdict
from pathlib import Path

PROC = Path("/proc")


def _stat(pid: int) -> list[str] | None:
    """/proc/PID/stat's fields after the command name (state, ppid, ...), or None if gone."""
    try:
        text = (PROC / str(pid) / "stat").read_text()
    except OSError:
        return None
    return text.rsplit(")", 1)[1].split()


def start_time(pid: int) -> int:
    """When PID started, in clock ticks since boot (0 if it is gone)."""
    fields = _stat(pid)
    return int(fields[19]) if fields else 0


def find(marker: str, notes: Path, since: int) -> list[int]:
    """The living processes started since SINCE (clock ticks since boot) that carry MARKER
    ("NAME=value") in their environment or are named by a note NOTES*.PID, and their
    descendants; never this process."""
    living: dict[int, int] = {}                      # pid -> ppid
    started: dict[int, int] = {}
    for entry in os.listdir(PROC):
        if entry.isdigit():
            fields = _stat(int(entry))
            if fields and fields[0] not in "ZX":     # a zombie is dead already
                living[int(entry)], started[int(entry)] = int(fields[1]), int(fields[19])
    want = marker.encode()
    roots = set()
    for pid in living:
        if started[pid] < since:
            continue
        try:
            if want in (PROC / str(pid) / "environ").read_bytes().split(b"\0"):
                roots.add(pid)
        except OSError:                              # another user's, or gone
            pass
    for note in notes.parent.glob(notes.name + ".*"):
        pid = note.suffix[1:]
        if pid.isdigit() and int(pid) in living and started[int(pid)] >= since:
            roots.add(int(pid))
    children = defaultdict(list)
    for pid, ppid in living.items():
        children[ppid].append(pid)
    found: set[int] = set()
    while roots:
        pid = roots.pop()
        if pid not in found:
            found.add(pid)
            roots.update(children[pid])
    found.discard(os.getpid())
    return sorted(found)


def kill(marker: str, notes: Path, since: int, rounds: int = 20) -> list[int]:
    """SIGKILL what find() finds, again while it finds more (a daemon may fork meanwhile); the
    pids still running at the end (another user's, say)."""
    left: list[int] = []
    for _ in range(rounds):
        left = find(marker, notes, since)
        if not left:
            break
        for pid in left:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:                          # gone, or not ours to kill
                pass
        time.sleep(0.02)
    return left

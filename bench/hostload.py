"""What else the host ran while we measured: the CPU time other processes used, in cores.

A load average counts the study's own processes too (a threads run of 8 on 2 cores reads
as a busy host), so it cannot say whether the figures shared the machine.  This takes the
host's busy CPU time from /proc/stat and subtracts this process's and its waited-for
children's (the programs measured and everything they waited for).
"""
from __future__ import annotations

import os
import resource
from time import monotonic


def host_busy() -> float | None:
    """CPU seconds every process on the host has used since boot (/proc/stat's first line:
    all but idle and iowait; guest time is inside user already), or None without /proc."""
    try:
        with open("/proc/stat") as f:
            fields = [int(x) for x in f.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    if len(fields) < 4:
        return None
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)
    return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")


def own_cpu() -> float:
    """CPU seconds of this process and of the children it has waited for."""
    mine = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return mine.ru_utime + mine.ru_stime + children.ru_utime + children.ru_stime


class Window:
    """From its creation on: how many cores other processes kept busy on average."""

    def __init__(self) -> None:
        self.busy, self.own, self.started = host_busy(), own_cpu(), monotonic()

    def other_cores(self) -> float | None:
        busy = host_busy()
        if self.busy is None or busy is None:
            return None
        elapsed = max(monotonic() - self.started, 1e-3)
        other = (busy - self.busy) - (own_cpu() - self.own)
        return round(max(0.0, other) / elapsed, 2)


def shared(other_cores: float, cores: int) -> bool:
    """Whether other work took enough of the host to show in the figures: a quarter of its cores."""
    return other_cores > 0.25 * max(cores, 1)

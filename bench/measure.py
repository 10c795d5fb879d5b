"""Running one program under one allocator, and summarising repeated figures."""
from __future__ import annotations

import json
import os
import signal
import statistics
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from bench.allocators import Allocator

RUSAGE = Path(__file__).resolve().parent.parent / "build" / "bench" / "rusage"   # bench/c/rusage.c
WITNESS = RUSAGE.parent / "witness.so"                                             # bench/c/preload/witness.c


@dataclass(frozen=True)
class Summary:
    """Median with the range over repetitions."""

    median: float
    lo: float
    hi: float
    n: int

    def to_json(self) -> dict:
        return {"median": self.median, "lo": self.lo, "hi": self.hi, "n": self.n}

    @classmethod
    def from_json(cls, data: dict) -> "Summary":
        return cls(data["median"], data["lo"], data["hi"], data["n"])


def summarize(values: list[float]) -> Summary | None:
    if not values:
        return None
    return Summary(statistics.median(values), min(values), max(values), len(values))


@dataclass(frozen=True, kw_only=True)
class Study:
    """What every study's result keeps beside its figures: the allocators whose runs were
    not timed because they did not serve malloc (allocator -> why); for a study that a
    signal stopped, what it had done (None: it ran to its end); which version of each
    allocator ran.  All shown on its page."""

    unserved: dict[str, str] = field(default_factory=dict)
    partial: str | None = None
    versions: dict[str, str | None] = field(default_factory=dict)     # allocator -> Allocator.version

    def notes_json(self) -> dict:
        return {"unserved": self.unserved, "partial": self.partial, "versions": self.versions}

    @staticmethod
    def notes_from(d: dict) -> dict:
        return {"unserved": dict(d.get("unserved") or {}), "partial": d.get("partial"),
                "versions": dict(d.get("versions") or {})}


class Stopped(KeyboardInterrupt):
    """SIGTERM or SIGHUP, taken as Ctrl-C is (cli installs the handler)."""


FINISHED = 0        # runs finished in this process (one study): did a stopped study measure anything


class Repetitions:
    """`with Repetitions(n) as reps: for rep in reps: ...`: a signal (Ctrl-C, SIGTERM, SIGHUP)
    ends the loop, not the study: what the runs finished so far measured is kept, and
    `partial` says where it stopped (None: every repetition ran)."""

    def __init__(self, count: int):
        self.count, self.rep, self.partial = count, 0, None

    def __enter__(self) -> "Repetitions":
        return self

    def __iter__(self):
        for self.rep in range(self.count):
            yield self.rep

    def __exit__(self, kind, value, tb) -> bool:
        if kind is None or not issubclass(kind, KeyboardInterrupt):
            return False
        name = value.args[0] if isinstance(value, Stopped) and value.args else "SIGINT"
        self.partial = f"interrupted by {name} during repetition {self.rep + 1} of {self.count}"
        return True


def not_served(notes: dict[str, str], alloc: Allocator, done: "Run", study: str,
               log: Callable[[str], None]) -> bool:
    """True when done was not alloc's run: noted once per allocator and logged, never timed."""
    if not done.unserved:
        return False
    if alloc.name not in notes:
        notes[alloc.name] = done.unserved
        log(f"{study}: {alloc.name}: not timed: {done.unserved}")
    return True


@dataclass(frozen=True)
class Run:
    """One finished process: exit code, wall seconds, peak RSS (KiB), its stdout."""

    returncode: int
    wall: float
    maxrss_kb: int
    stdout: str
    stderr: str
    stats: tuple[dict, ...] = ()      # MMSHIM_STATS lines, for shims
    unserved: str | None = None       # why the allocator did not serve this run (then it is not its run)


def run(argv: list[str], alloc: Allocator, timeout: float = 300, stdin: Path | None = None,
        cwd: Path | None = None, shim_stats: bool = False, extra_env: dict[str, str] | None = None) -> Run:
    """Run argv under alloc; wall time from here, peak RSS from wait4 in build/bench/rusage,
    which starts the command (a command started from this process would count our RSS).

    shim_stats: for a shim, collect the MMSHIM_STATS lines of every process it ran.
    """
    for helper in (RUSAGE, WITNESS):
        if not helper.exists():
            raise FileNotFoundError(f"{helper} is missing: run `make bench-progs` first")
    with tempfile.TemporaryDirectory(prefix="bench-") as tmp:
        out, err, rss = Path(tmp) / "out", Path(tmp) / "err", Path(tmp) / "rss"
        witness = Path(tmp) / "witness"
        env = alloc.env()
        env.update(extra_env or {})
        env["BENCH_PRELOAD"] = ":".join(filter(None, (alloc.preload, str(WITNESS))))
        env["BENCH_WITNESS"] = str(witness)
        stats_path = Path(tmp) / "stats.jsonl"
        if shim_stats and alloc.kind == "shim":
            env["MMSHIM_STATS"] = str(stats_path)
        with open(out, "wb") as fo, open(err, "wb") as fe, \
                open(stdin or os.devnull, "rb") as fi:
            proc = timer = None
            try:
                start = time.perf_counter()
                # A stop signal that came inside Popen, after the fork, raised there with `proc` unset,
                # and the command, started already, outlived us (seen under load): blocked until
                # Popen returns, it is raised below with `proc` known (rusage unblocks it for the command).
                old = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
                try:
                    proc = subprocess.Popen([str(RUSAGE), str(rss), *argv], stdin=fi, stdout=fo, stderr=fe,
                                            env=env, cwd=cwd, start_new_session=True)
                finally:
                    signal.pthread_sigmask(signal.SIG_SETMASK, old)
                timer = timeout_timer(timeout, proc.pid)
                start_unsignalled(timer)
                _, status, _ = os.wait4(proc.pid, 0)
            except BaseException:       # Ctrl-C: the command (a session of its own) must not outlive us
                if proc:
                    try:
                        os.killpg(proc.pid, signal.SIGKILL)
                        os.waitpid(proc.pid, 0)
                    except OSError:     # it had ended (and been reaped) just before the signal
                        pass
                raise
            finally:
                if timer:
                    timer.cancel()
            wall = time.perf_counter() - start
            proc.returncode = os.waitstatus_to_exitcode(status)
        stats = ()
        if stats_path.exists():
            stats = tuple(json.loads(line) for line in stats_path.read_text().splitlines() if line.strip())
        facts = parse_kv(rss.read_text()) if rss.exists() else {}
        unserved = None
        if "pid" in facts:            # the command started: its processes say who served malloc
            served = read_witness(witness, exclude=proc.pid)
            unserved = unserved_reason(alloc, argv[0], int(facts["pid"]), served)
        global FINISHED
        FINISHED += 1
        return Run(proc.returncode, wall, int(facts.get("maxrss_kb", 0)), out.read_text(errors="replace"),
                   err.read_text(errors="replace"), stats, unserved)


STOP_SIGNALS = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP}


def timeout_timer(timeout: float, pid: int) -> threading.Timer:
    """A timer, not yet started, that kills the command's session.  A daemon: one a stop signal
    left uncancelled must not hold the interpreter's exit until it fires."""
    timer = threading.Timer(timeout, lambda: os.killpg(pid, signal.SIGKILL))
    timer.daemon = True
    return timer


def start_unsignalled(thread: threading.Thread) -> None:
    """Start THREAD with the stop signals blocked in it, so that the kernel delivers them to the
    main thread and interrupts its wait4 (one taken by the thread would leave the main thread
    waiting for the command to end).  A signal that comes meanwhile is raised here, after the
    start: the caller holds the thread already, and cancels it."""
    old = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    try:
        thread.start()              # the thread takes the mask it starts with
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def read_witness(path: Path, exclude: int) -> list[tuple[int, str, str]]:
    """witness.so's lines (pid, program, the file serving malloc), but rusage's own (exclude)."""
    lines = []
    if path.exists():
        for line in path.read_text(errors="replace").splitlines():
            parts = line.split("\t", 2)
            if len(parts) == 3 and parts[0].isdigit() and int(parts[0]) != exclude:
                lines.append((int(parts[0]), parts[1], parts[2]))
    return lines


def serves(alloc: Allocator, file: str) -> bool:
    if alloc.preload:
        return os.path.realpath(file) == os.path.realpath(alloc.preload)
    return Path(file).name.startswith("libc.so")


def unserved_reason(alloc: Allocator, program: str, pid: int, served: list[tuple[int, str, str]]) -> str | None:
    """Why this run was not alloc's (None: it was).  The command's own process must say the
    allocator served it, and so must every child that loaded the witness (cc1 under gcc).  A
    process with no line ran no dynamic loader (a static or setuid program): for glibc that is
    still glibc's malloc, linked in; for a preload it means the preload never took effect."""
    name = Path(program).name
    if alloc.preload and not any(p == pid for p, _, _ in served):
        return (f"{name}: the preload did not take effect (no line from its loader: a static "
                f"or setuid program?)")
    wrong = next(((p, prog, file) for p, prog, file in served if not serves(alloc, file)), None)
    if wrong:
        p, prog, file = wrong
        return f"{prog} (pid {p}, under {name}): malloc is served by {file}, not {alloc.preload or 'libc.so'}"
    return None


def parse_kv(line: str) -> dict[str, str]:
    """`a=1 b=x` -> {"a": "1", "b": "x"}; words without '=' are ignored."""
    return dict(word.split("=", 1) for word in line.split() if "=" in word)

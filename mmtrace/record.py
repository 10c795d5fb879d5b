"""Run a real program under the LD_PRELOAD recorder and convert what it did.

The recorder library is built from recorder/ (recorder.c, launch.c; by `make recorder`, or
here on first use) into build/mmtrace/recorder.so of the kit.  Every process
the command starts writes its own log; the one with the most events is kept
unless another is asked for (a compiler driver's work is in cc1, not gcc). A program
started with an environment that drops the recorder leaves a note instead (Unrecorded).
"""
from __future__ import annotations

import os
import shutil
import signal
import stat
import struct
import subprocess
import threading
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Iterator

from . import lockdir, stragglers
from .rawlog import ConvertReport, RawLog, RawLogError, convert, read_raw
from .runnable import cannot_run
from .trace import MAX_OPS, Trace

SOURCE = Path(__file__).resolve().parent / "recorder"     # recorder.c, launch.c, recorder.h
KIT = SOURCE.parent.parent


class RecordError(RuntimeError):
    """The recording could not be made; the message is one line."""


def recorder_path() -> Path:
    env = os.environ.get("MMTRACE_RECORDER")
    return Path(env) if env else KIT / "build" / "mmtrace" / "recorder.so"


def build_recorder(out: Path | None = None) -> Path:
    """Compile the recorder if it is missing or older than its source."""
    out = out or recorder_path()
    files = sorted(SOURCE.glob("*.[ch]"))
    if out.exists() and all(out.stat().st_mtime >= f.stat().st_mtime for f in files):
        return out
    # Build beside the target and rename, so concurrent recorders never load a half-written file.
    tmp = out.with_name(f".{out.name}.{os.getpid()}")
    cc = os.environ.get("CC", "cc")
    cmd = [cc, "-O2", "-g", "-Wall", "-Wextra", "-fPIC", "-shared",
           "-o", str(tmp), *(str(f) for f in files if f.suffix == ".c"), "-lpthread", "-ldl"]
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        done = subprocess.run(cmd, capture_output=True, text=True, errors="replace")
        if done.returncode != 0:
            last = (done.stderr.strip().splitlines() or ["no output"])[-1]
            raise RecordError(f"cannot build the recorder: {last}")
        os.replace(tmp, out)
    except FileNotFoundError as e:
        what = f"no compiler '{cc}'" if e.filename == cc else f"no folder {out.parent}"
        raise RecordError(f"cannot build the recorder {out}: {what}") from None
    except OSError as e:                 # an unmakeable or unwritable folder
        raise RecordError(f"cannot build the recorder {out}: {e.strerror or e}"
                          f"{f' ({e.filename})' if e.filename else ''}") from None
    return out


@dataclass(frozen=True)
class Recording:
    trace: Trace
    report: ConvertReport
    processes: int
    kept_pid: int
    status: str          # "ok", "exited N" or "killed by SIGNAME"
    log_folder: str = ""  # where the logs were (a full disk there cuts them)
    programs: int = 0    # logs: a process that exec'd has one per program it ran
    kept_image: int = 0  # which of its pid's programs the trace is (0: the first)
    unrecorded: tuple["Unrecorded", ...] = ()   # programs started out of the recorder's reach
    left_running: tuple[int, ...] = ()  # pids of the command's processes still running at the end

    @property
    def ok(self) -> bool:
        return self.status == "ok"


@dataclass(frozen=True)
class Unrecorded:
    """A program a recorded process started out of the recorder's reach: with an environment that
    no longer preloads it (`env -i prog`), or one whose loader will not (statically linked,
    setuid): the recorder's note, $MMTRACE_OUT-unrecorded.<pid>."""
    pid: int
    program: str
    by: str            # the program that started it
    why: str = ""      # "static" or "setuid" (launch.c's words); "": its environment

    @property
    def cause(self) -> str:
        return {"static": "it is statically linked: no loader preloads anything",
                "setuid": "it is setuid or setgid: the loader ignores LD_PRELOAD for it"}.get(
            self.why, "its environment dropped the recorder")


def _unrecorded(folder: Path) -> tuple[Unrecorded, ...]:
    notes = []
    for p in sorted(folder.glob("raw-unrecorded.*"), key=lambda p: p.stat().st_mtime_ns):
        program, by, why = (p.read_text(errors="backslashreplace").splitlines() + ["", "", ""])[:3]
        notes.append(Unrecorded(int(p.suffix[1:]), program or "?", by or "?",
                                why if why in ("static", "setuid") else ""))
    return tuple(notes)


def running_note(pids: list[int] | tuple[int, ...]) -> str:
    """"; N process(es) ... still running (pids ...)", or "" when none is."""
    if not pids:
        return ""
    shown = ", ".join(str(p) for p in pids[:10]) + (", ..." if len(pids) > 10 else "")
    return (f"; {len(pids)} process(es) the command started still running, unrecorded from here "
            f"(pids {shown})")


def unrecorded_message(notes: tuple[Unrecorded, ...], recorded: str, also: str = "") -> str:
    """One line: which program ran unrecorded and why, what RECORDED is instead, what to do
    (and ALSO can be done)."""
    u = notes[0]
    more = f" (and {len(notes) - 1} more program(s) likewise)" if len(notes) > 1 else ""
    if u.why:
        fix = ("a dynamically linked build of it" if u.why == "static"
               else "a copy of it without the setuid and setgid bits")
        return (f"{u.by} (pid {u.pid}) started {u.program}, which the recorder cannot reach "
                f"({u.cause}), so {u.program} ran unrecorded{more}; {recorded}; record {fix}"
                f"{also}")
    return (f"{u.by} (pid {u.pid}) started {u.program} without the recorder in its environment "
            f"(LD_PRELOAD or MMTRACE_OUT dropped, as env -i does), so {u.program} ran "
            f"unrecorded{more}; {recorded}; pass the environment through or record {u.program} "
            f"directly{also}")


def _status(code: int) -> str:
    if code == 0:
        return "ok"
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exited {code}"


def statically_linked(program: str) -> bool:
    """True if PROGRAM (a path, or a name on PATH) is an ELF executable with no program
    interpreter: no dynamic loader, so no LD_PRELOAD, and nothing the recorder can see."""
    path = program if "/" in program else shutil.which(program)
    try:
        with open(path or program, "rb") as f:
            head = f.read(64)
            if head[:4] != b"\x7fELF" or head[4] not in (1, 2) or head[5] not in (1, 2):
                return False
            wide, end = head[4] == 2, "<" if head[5] == 1 else ">"
            # e_phoff, then e_phentsize and e_phnum (ELF64: at 32 and 54; ELF32: at 28 and 42)
            phoff = struct.unpack_from(end + ("Q" if wide else "I"), head, 32 if wide else 28)[0]
            phentsize, phnum = struct.unpack_from(end + "HH", head, 54 if wide else 42)
            f.seek(phoff)
            table = f.read(phentsize * phnum)
    except (OSError, struct.error, TypeError):
        return False
    kinds = [struct.unpack_from(end + "I", table, i * phentsize)[0] for i in range(phnum)
             if (i + 1) * phentsize <= len(table)]
    return bool(kinds) and 3 not in kinds                # PT_INTERP


def setuid_to_others(program: str) -> bool:
    """True if PROGRAM (a path, or a name on PATH) is an ELF executable whose setuid or setgid bit
    changes the ids it runs with: a secure exec, where the loader ignores LD_PRELOAD's paths
    (launch.c's secure_exec, for the programs a recorded one starts)."""
    path = program if "/" in program else shutil.which(program)
    try:
        with open(path or program, "rb") as f:
            st, elf = os.fstat(f.fileno()), f.read(4) == b"\x7fELF"
            nosuid = bool(os.fstatvfs(f.fileno()).f_flag & os.ST_NOSUID)
    except (OSError, TypeError):
        return False
    setgid = st.st_mode & stat.S_ISGID and st.st_mode & stat.S_IXGRP   # without x: not setgid
    return elf and not nosuid and not _no_new_privs() and bool(
        st.st_mode & stat.S_ISUID and st.st_uid != os.getuid() or setgid and st.st_gid != os.getgid())


def _no_new_privs() -> bool:
    """Whether this process (and so the command) runs with no_new_privs: setuid bits are ignored."""
    try:
        return "NoNewPrivs:\t1" in Path("/proc/self/status").read_text()
    except OSError:
        return False


PID_MAX = Path("/proc/sys/kernel/pid_max")
PID_LIMIT = 1 << 22            # Linux's largest pid_max, where /proc does not say


def pid_max() -> int:
    try:
        return int(PID_MAX.read_text())
    except (OSError, ValueError):
        return PID_LIMIT


def check_process(process: str) -> None:
    """Refuse a --process no recording could match, before the program runs."""
    if process in ("largest", "first"):
        return
    if not process.isdigit():
        raise RecordError(f"process '{process}' is not largest, first or a pid")
    if not 0 < int(process) <= pid_max():
        raise RecordError(f"process {process} is not a possible pid (1..{pid_max()})")


def _pick(logs: list[RawLog], process: str) -> RawLog:
    """The chosen log; a process that exec'd has a log per program, and a pid (or first)
    means the one of its programs with the most events."""
    def largest(of: list[RawLog]) -> RawLog:
        return max(of, key=lambda g: (g.count, -g.pid, -g.image))
    if process == "largest":
        return largest(logs)
    if process == "first":
        first = min(g.pid for g in logs)
        return largest([g for g in logs if g.pid == first])
    if process.isdigit() and any(g.pid == int(process) for g in logs):
        return largest([g for g in logs if g.pid == int(process)])
    raise RecordError(f"no recorded process '{process}' (pids: "
                      f"{', '.join(str(g.pid) for g in logs)})")


LOG_PREFIX = "mmtrace-rec-"    # the logs' folder in $TMPDIR, one a recording


def max_events(convert_args: dict) -> int:
    """The most events a process's log holds: the skipped ones, then twice the ops the trace can
    have (most calls are one op; some none: failed, over budget, an unknown pointer), so a
    program that runs for hours stops filling $TMPDIR at 32 bytes a call soon after its trace
    is full."""
    ops = convert_args.get("max_ops") or MAX_OPS
    return convert_args.get("skip", 0) + 2 * min(ops, MAX_OPS)

# Signals that stop a recording: passed on to the command, whose logs are then converted.
STOPS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def _run(command: list[str], env: dict[str, str],
         timeout: float | None, stdout: int | None = None) -> tuple[str, list[int], int]:
    """Run COMMAND in a process group of its own and return its status, the pids of its
    processes still running, and its own pid. A Ctrl-C, SIGTERM or SIGHUP to mmtrace is passed
    on to the whole group, as the timeout's SIGKILL is, and the processes of the command that
    left the group (a daemon's setsid) are killed then too (stragglers.py), so no process of the
    command outlives the recording, and what it logged is still converted. After a command that
    ends by itself, what it left running is left running, and its pids returned."""
    got: list[int] = []
    group: list[int] = []                            # the command's pid, once it has one
    out = env["MMTRACE_OUT"]
    marker, notes = f"MMTRACE_OUT={out}", Path(f"{out}-unrecorded")

    def stop(sig: int) -> None:
        for s in (sig, signal.SIGCONT) if group else ():   # SIGCONT: a stopped member takes it too
            try:
                os.killpg(group[0], s)
            except ProcessLookupError:
                pass

    def stop_all() -> list[int]:
        stop(signal.SIGKILL)
        return stragglers.kill(marker, notes, since)

    def pass_on(sig, _frame) -> None:
        got.append(sig)
        stop(sig)

    main = threading.current_thread() is threading.main_thread()   # where handlers can be set
    # set before the command starts: a signal between the two had ended mmtrace and left it running
    old = {s: signal.signal(s, pass_on) for s in STOPS} if main else {}
    try:
        proc = subprocess.Popen(command, env=env, stdin=subprocess.DEVNULL, stdout=stdout, process_group=0)
        group.append(proc.pid)
        if got:                                      # it came while the command was starting
            stop(got[0])
        since = stragglers.start_time(proc.pid)
        try:
            code = proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            left = stop_all()
            proc.wait()
            return f"timed out after {timeout:g} s", left, proc.pid
        if got:
            left = stop_all()                        # what is left of the command after the signal
            name = signal.Signals(got[0]).name
            return f"stopped by {name} ({_status(code)})", left, proc.pid
        return _status(code), stragglers.find(marker, notes, since), proc.pid
    finally:
        for s, handler in old.items():
            signal.signal(s, handler)


def record(command: list[str], process: str = "largest", timeout: float | None = None,
           env: dict[str, str] | None = None, stdout: int | None = None, **convert_args) -> Recording:
    """Run command with the recorder and convert the chosen process's log; STDOUT, when given,
    is the fd the command writes its standard output to."""
    check_process(process)
    lib = build_recorder()
    # locked while we live, so that the next recording removes it if we are SIGKILLed
    with _log_folder() as tmp:
        log_folder = str(Path(tmp).parent)
        run_env = dict(os.environ if env is None else env)
        # absolute: the recorder opens the log by this path again after the program may chdir
        run_env["MMTRACE_OUT"] = os.path.abspath(Path(tmp) / "raw")
        pre = run_env.get("LD_PRELOAD", "")
        run_env["LD_PRELOAD"] = f"{lib} {pre}".strip()
        run_env["MMTRACE_MAX_EVENTS"] = str(max_events(convert_args))
        try:
            status, left, pid = _run(command, run_env, timeout, stdout)
        except OSError as e:             # not there, a folder, not executable, not a program
            raise RecordError(cannot_run(command[0], e)) from None
        # converted while the logs exist: only the chosen one is mapped, when it is converted
        try:
            rec = _from_logs(Path(tmp), command, process, status, log_folder, convert_args, pid)
        except RecordError as e:
            raise RecordError(f"{e}{running_note(left)}") from None
        return replace(rec, left_running=tuple(left))


@contextmanager
def _log_folder() -> Iterator[Path]:
    """lockdir.claimed(LOG_PREFIX); a RecordError, before the command runs, when no folder can be
    made (a full $TMPDIR, or no usable temporary folder at all)."""
    try:
        work = lockdir.claim(LOG_PREFIX)
    except OSError as e:
        raise RecordError(f"cannot make a folder for the recorder's logs ({e.strerror or e}); set TMPDIR "
                          "to a folder with room; nothing was run") from None
    try:
        yield work
    finally:
        lockdir.release(work)


def _from_logs(folder: Path, command: list[str], process: str, status: str, log_folder: str,
               convert_args: dict, pid: int = 0) -> Recording:
    """The recording of FOLDER's logs: the chosen one converted, or a RecordError saying why
    there is nothing to convert.  PID is the command's."""
    logs, unstarted = [], 0
    for p in sorted(folder.glob("raw.*")):
        try:
            logs.append(read_raw(p))
        except RawLogError:            # no room even for the header: nothing of it recorded
            unstarted += 1
    if unstarted and not any(g.count for g in logs):
        raise RecordError(f"{unstarted} process(es) of {command[0]} could not start a log in "
                          f"{log_folder} (no space left there?); nothing was recorded ({status})")
    cut = [g for g in logs if g.cut and not g.count]
    logs = [g for g in logs if g.count]
    unrecorded = _unrecorded(folder)
    if not logs and unrecorded:
        raise RecordError(unrecorded_message(unrecorded, f"nothing was recorded ({status})"))
    if not logs:
        if cut:
            raise RecordError(f"the recorder's log in {log_folder} could not grow (no space "
                              f"left there?); nothing was recorded ({status})")
        if statically_linked(command[0]):
            raise RecordError(f"{command[0]} is statically linked: the recorder (LD_PRELOAD) "
                              f"cannot see its calls; nothing was recorded ({status})")
        if setuid_to_others(command[0]):
            raise RecordError(f"{command[0]} is setuid or setgid: the loader ignores the recorder "
                              f"(LD_PRELOAD) for it; nothing was recorded ({status}); record a "
                              "copy of it without those bits")
        raise RecordError(f"{command[0]} made no allocation calls the recorder saw ({status}; "
                          "a setuid program, or one run by a statically linked one, is out of "
                          "LD_PRELOAD's reach too)")
    why = ("static" if statically_linked(command[0])
           else "setuid" if setuid_to_others(command[0]) else "")
    if why:                              # the logs are of programs it started, never its own
        unrecorded = (Unrecorded(pid, command[0], "mmtrace record", why), *unrecorded)
    chosen = _pick(logs, process)
    skip = convert_args.get("skip", 0)
    if skip and skip >= chosen.count:
        raise RecordError(f"--skip {skip} is all of the {chosen.count:,} events of the kept "
                          f"process (pid {chosen.pid}): nothing left to make a trace of ({status})")
    trace, report = convert(chosen, **convert_args)
    if not len(trace):                   # a trace of nothing would still be scored by the driver
        raise RecordError(f"no op left to write ({report.summary()}; {status})")
    return Recording(trace, report, len({g.pid for g in logs}), chosen.pid, status, log_folder,
                     len(logs), chosen.image, unrecorded)

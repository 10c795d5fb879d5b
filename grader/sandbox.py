"""Run untrusted code with every protection this machine can actually give.

Layers, outermost first, each a well-kept tool from Debian:
    setpriv   drop to an unprivileged uid (one per parallel slot), no capabilities,
              no_new_privs: only when the grader runs as root
    prlimit   CPU seconds, address space, file size, process count, no core files
    bwrap     new user, pid, network, ipc and uts namespaces (no network at all; no
              further user namespaces), a private /tmp, everything else read-only
              and only what the run needs
and around them a wall clock that kills the whole process tree.

`probe()` tries the layers for real and reports the ones that work; nothing is
assumed.  Without any isolating layer the grader refuses untrusted code unless
told --unsafe, and every result records the protections that were active.
"""
from __future__ import annotations

import os
import shutil
import signal
import stat
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from .policy import Limits

SANDBOX_UID = 61000          # slot N runs as uid SANDBOX_UID + N: nproc limits stay per slot
# Without bwrap a sandboxed process sees the host's files, so file modes keep a build out of what
# only a run may read: slot N builds as BUILD_UID + N, and only runs hold TRACES_GID, the group of
# the private trace copy.
BUILD_UID = 62000
TRACES_GID = 63000
ISOLATING = ("unprivileged_user", "no_network", "read_only_fs")
_SYSTEM_DIRS = ("/usr",)
# The compiler's alternatives links and the loader cache: nothing secret, nothing writable.
_SYSTEM_FILES = ("/etc/alternatives", "/etc/ld.so.cache")
_SYMLINKS = (("usr/bin", "/bin"), ("usr/lib", "/lib"), ("usr/lib64", "/lib64"), ("usr/sbin", "/sbin"))


class SandboxError(RuntimeError):
    """No safe way to run untrusted code here (and --unsafe was not given)."""


@dataclass(frozen=True)
class Mount:
    host: Path
    inside: str
    writable: bool = False


@dataclass(frozen=True)
class RunResult:
    returncode: int | None
    stdout: str
    stderr: str
    timed_out: bool
    seconds: float


@dataclass(frozen=True)
class Sandbox:
    """How untrusted processes are started; `protections` says what that gives."""
    bwrap: str | None
    setpriv: str | None
    prlimit: str | None
    protections: tuple[str, ...]

    @property
    def isolated(self) -> bool:
        return any(p in ISOLATING for p in self.protections)

    def uid(self, slot: int, build: bool = False) -> int | None:
        return (BUILD_UID if build else SANDBOX_UID) + slot if self.setpriv else None

    def path_of(self, mount: Mount) -> str:
        """Where a mounted folder appears to the sandboxed process."""
        return mount.inside if self.bwrap else str(mount.host)

    def command(self, argv: list[str], mounts: list[Mount], chdir: Mount,
                limits: Limits, slot: int = 0, cpu: int | None = None, build: bool = False) -> list[str]:
        """The full command line that runs ARGV inside the sandbox (pinned to CPU if given), as the
        slot's build uid when BUILD, else as its run uid."""
        cmd: list[str] = []
        taskset = shutil.which("taskset")
        if cpu is not None and taskset:
            cmd += [taskset, "-c", str(cpu)]
        uid = self.uid(slot, build)
        if self.setpriv and uid is not None:
            groups = "--clear-groups" if build else f"--groups={TRACES_GID}"
            cmd += [self.setpriv, f"--reuid={uid}", f"--regid={uid}", groups,
                    "--inh-caps=-all", "--bounding-set=-all", "--no-new-privs", "--"]
        if self.prlimit:
            cmd += [self.prlimit, f"--cpu={limits.cpu_seconds}", f"--as={limits.memory_bytes}",
                    f"--fsize={limits.file_size_bytes}", f"--nproc={limits.processes}",
                    "--core=0", "--"]
        if not self.bwrap:
            # The same clean environment bwrap's --clearenv gives, so tools resolve alike.
            return cmd + ["/usr/bin/env", "-i", "PATH=/usr/bin:/bin", "LC_ALL=C", "HOME=/tmp"] + argv
        if self.bwrap:
            cmd += [self.bwrap, "--unshare-all", "--unshare-user", "--disable-userns",
                    "--die-with-parent", "--new-session",
                    "--cap-drop", "ALL", "--clearenv", "--setenv", "PATH", "/usr/bin:/bin",
                    "--setenv", "LC_ALL", "C", "--setenv", "HOME", "/tmp"]
            for folder in _SYSTEM_DIRS:
                cmd += ["--ro-bind", folder, folder]
            for target, link in _SYMLINKS:
                if Path(link).is_symlink():
                    cmd += ["--symlink", target, link]
            for path in _SYSTEM_FILES:
                cmd += ["--ro-bind-try", path, path]
            cmd += ["--proc", "/proc", "--dev", "/dev", "--size", str(64 << 20), "--tmpfs", "/tmp"]
            for mount in mounts:
                cmd += ["--bind" if mount.writable else "--ro-bind", str(mount.host), mount.inside]
            cmd += ["--chdir", chdir.inside, "--"]
        return cmd + argv

    def prepare(self, folder: Path, slot: int, writable: bool) -> None:
        """Let the slot's build uid alone read and write FOLDER (WRITABLE), or its run uid alone read
        it: a build never sees another student's folder, nor changes its own once it is run."""
        uid = self.uid(slot, build=writable)
        if uid is None:
            _share(folder)
        elif writable:
            _restrict(folder, uid, uid, group=False)
        else:
            _restrict(folder, os.geteuid(), uid, group=True)

    def prepare_traces(self, folder: Path) -> None:
        """Let the runs, and no build, read FOLDER (the batch's private copy of the traces)."""
        if self.setpriv:
            _restrict(folder, os.geteuid(), TRACES_GID, group=True)
        else:
            _share(folder)

    def exposed(self, paths: list[Path]) -> list[Path]:
        """Those of PATHS a build could read here: without bwrap, what any user may read."""
        return [p for p in paths if self.setpriv and not self.bwrap and readable_by_anyone(p)]


def readable_by_anyone(path: Path) -> bool:
    """Whether a uid that neither owns PATH nor is in its group can read it (a folder: enter it)."""
    try:
        real = Path(path).resolve(strict=True)
        mode = real.stat().st_mode
        reachable = all(p.stat().st_mode & 0o001 for p in real.parents)
    except OSError:
        return False
    return reachable and bool(mode & (0o001 if stat.S_ISDIR(mode) else 0o004))


def _share(folder: Path) -> None:
    """Every user may read FOLDER: the grader's own uid runs everything, bwrap hides the rest."""
    for path in [folder, *folder.rglob("*")]:
        if not path.is_symlink():
            path.chmod(0o755 if path.is_dir() else (path.stat().st_mode | 0o444))


def _restrict(folder: Path, uid: int, gid: int, group: bool) -> None:
    """FOLDER's files and folders owned by UID:GID, for the owner alone or (GROUP) read by the group
    too.  Through a descriptor opened without following links: a link a build left is not followed."""
    for path in [folder, *folder.rglob("*")]:
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        except OSError:          # a link, a socket: nothing to read through it
            continue
        try:
            mode = os.fstat(fd).st_mode
            full = 0o7 if stat.S_ISDIR(mode) or mode & 0o100 else 0o6
            os.fchown(fd, uid, gid)
            os.fchmod(fd, full << 6 | ((full & 0o5) << 3 if group else 0))
        finally:
            os.close(fd)


def _drain(stream, keep: int, sink: list[bytes], tail: int = 0, end: list[bytes] | None = None) -> None:
    """Keep the first KEEP bytes in SINK and the last TAIL of the rest in END, and read (discard)
    the others, so the writer never blocks."""
    kept = 0
    last = bytearray()
    while chunk := stream.read(65536):
        if kept < keep:
            sink.append(chunk[: keep - kept])
            kept += len(sink[-1])
            chunk = chunk[len(sink[-1]):]
        if tail:
            last += chunk
            del last[:-tail]
    if end is not None:
        end.append(bytes(last))
    stream.close()


def _text(chunks: list[bytes], keep: int, end: list[bytes] | None = None) -> str:
    data = b"".join(chunks)
    text = data.decode("utf-8", errors="replace")
    last = b"".join(end or [])
    if last:
        return text + "\n[... output truncated ...]\n" + last.decode("utf-8", errors="replace")
    return text + ("\n[... output truncated ...]" if len(data) >= keep else "")


TOOL_PREFIXES = ("bwrap:", "setpriv:", "prlimit:", "taskset:")


def sandbox_failed(result: "RunResult") -> bool:
    """Did the sandbox's own tools fail before running anything (the grader's fault)?

    Only the tools and the driver write to the run's stderr (the driver captures its
    children's output), so a tool's prefix there is the tool's own message."""
    return result.returncode not in (0, None) and result.stderr.lstrip().startswith(TOOL_PREFIXES)


_RUNNING: set[int] = set()
_RUNNING_LOCK = threading.Lock()
_STOPPED = False      # set by kill_all: runs started after it are killed at once


def kill_all() -> None:
    """Kill every sandboxed process tree still running (on an interrupt), and every
    one a worker thread starts after this, until allow_runs()."""
    global _STOPPED
    with _RUNNING_LOCK:
        _STOPPED = True
        groups = list(_RUNNING)
    for pgid in groups:
        _kill_group(pgid)


def stopping() -> bool:
    """Whether kill_all has stopped the runs: a worker waiting for its turn to run gives up."""
    with _RUNNING_LOCK:
        return _STOPPED


def allow_runs() -> None:
    """Undo kill_all, once the workers it stopped have returned."""
    global _STOPPED
    with _RUNNING_LOCK:
        _STOPPED = False


def run(cmd: list[str], wall_clock: float, keep: int, pass_fds: tuple[int, ...] = (),
        cwd: Path | None = None, env: dict[str, str] | None = None, tail: int = 0) -> RunResult:
    """Run CMD in its own process group; past WALL_CLOCK seconds kill the whole group.  Of each
    output the first KEEP bytes are kept, and the last TAIL of what follows (a compiler's error
    can come after 64 KiB of 'In file included from' lines)."""
    start = time.monotonic()
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, pass_fds=pass_fds, cwd=cwd, env=env,
                            start_new_session=True)
    with _RUNNING_LOCK:
        _RUNNING.add(proc.pid)
        stopped = _STOPPED
    if stopped:                       # started by a worker after an interrupt
        _kill_group(proc.pid)
    out: list[bytes] = []
    err: list[bytes] = []
    out_end: list[bytes] = []
    err_end: list[bytes] = []
    readers = [threading.Thread(target=_drain, args=(proc.stdout, keep, out, tail, out_end), daemon=True),
               threading.Thread(target=_drain, args=(proc.stderr, keep, err, tail, err_end), daemon=True)]
    for reader in readers:
        reader.start()
    timed_out = False
    try:
        proc.wait(timeout=wall_clock)
    except subprocess.TimeoutExpired:
        timed_out = True
    finally:
        _kill_group(proc.pid)
        proc.wait()
        with _RUNNING_LOCK:
            _RUNNING.discard(proc.pid)
    for reader in readers:
        reader.join(timeout=5)
    return RunResult(None if timed_out else proc.returncode, _text(out, keep, out_end), _text(err, keep, err_end),
                     timed_out, time.monotonic() - start)


def _kill_group(pgid: int) -> None:
    """Kill every process left in the group (bwrap's --die-with-parent takes its namespace down)."""
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _works(cmd: list[str]) -> bool:
    try:
        done = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


def probe(unsafe: bool = False, path: str | None = None) -> Sandbox:
    """The strongest sandbox that works here; SandboxError if none isolates and not UNSAFE."""
    found = {tool: shutil.which(tool, path=path) for tool in ("bwrap", "setpriv", "prlimit")}
    root = os.geteuid() == 0
    setpriv = found["setpriv"] if root else None
    protections: list[str] = ["wall_clock_kill"]
    if found["prlimit"]:
        protections.append("resource_limits")
    if setpriv and _works([setpriv, f"--reuid={SANDBOX_UID}", f"--regid={SANDBOX_UID}",
                           "--clear-groups", "--", "/bin/true"]):
        protections.append("unprivileged_user")
    else:
        setpriv = None
    if not root:
        protections.append("unprivileged_user")
    bwrap = found["bwrap"]
    if bwrap:
        trial = Sandbox(bwrap, setpriv, None, ())
        cmd = trial.command(["/bin/true"], [], Mount(Path("/"), "/tmp"), _PROBE_LIMITS)
        if _works(cmd):
            protections += ["no_network", "pid_namespace", "private_tmp", "read_only_fs"]
        else:
            bwrap = None
    sandbox = Sandbox(bwrap, setpriv, found["prlimit"], tuple(dict.fromkeys(protections)))
    if not sandbox.isolated and not unsafe:
        missing = ", ".join(t for t, p in found.items() if not p) or "none missing, but they failed here"
        raise SandboxError("no sandbox can isolate untrusted code on this machine "
                           f"(bubblewrap/setpriv: {missing}); install bubblewrap or pass --unsafe")
    return sandbox


def unsafe_sandbox() -> Sandbox:
    """No isolation at all: for trusted code (reference variants) or --unsafe."""
    prlimit = shutil.which("prlimit")
    return Sandbox(None, None, prlimit, ("wall_clock_kill",) + (("resource_limits",) if prlimit else ()))


_PROBE_LIMITS = Limits(trace_seconds=10, max_heap=1 << 20, wall_clock=30, cpu_seconds=10,
                       memory_bytes=1 << 30, file_size_bytes=1 << 20, processes=64, output_keep=1024)

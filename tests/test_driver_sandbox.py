"""The trace's process runs its allocator inside a seccomp sandbox (driver/sandbox.c):
the system calls stdio, clocks and abort need go through, and any other (a file,
memory of its own, a process, a signal to the driver) kills the process with
SIGSYS, which the driver reports as a crash naming the call.

The filter on its own, through tests/c/sandbox/harness.c; then end to end, with
the allocators of tests/c/broken/sys-*.c.
"""
from __future__ import annotations

import platform
import re
import signal
import subprocess
from pathlib import Path

import pytest

from conftest import build_driver
from driver_common import KIT, TRIGGER, broken, run, write_trace
from driver_common import describe as describe_driver

X86_64 = platform.machine() == "x86_64"

ALLOWED = ["printf", "clocks", "fstat", "mprotect-in", "madvise-dontneed", "kill-self",
           "getrlimit", "raise", "sigprocmask-kept", "sigaction-read",
           "sigaltstack-read"]
REFUSED = ["openat", "sigaction-set", "sigaltstack-set",
           # a pointer is NULL only when both its halves are zero; prot is a long to the kernel
           "sigaction-set-low-zero", "sigaction-set-high-zero", "sigaltstack-set-low-zero",
           "sigaltstack-set-high-zero", "setrlimit-low-zero", "setrlimit-high-zero", "mprotect-high-prot",
           "mprotect-ragged", "mmap", "munmap", "mremap", "brk", "mprotect-out", "mprotect-below", "mprotect-straddle",
           "mprotect-exec", "mprotect-high-addr", "mprotect-high-len", "mprotect-wrap", "madvise-remove-in", "madvise-remove-out",
           "madvise-free", "setrlimit", "prlimit-parent", "tkill", "kill-parent", "kill-group", "fork", "clone3",
           "execve", "socket", "ptrace", "prctl", "seccomp", "ioctl", "fcntl", "dup", "pipe2", "getrandom",
           "pread64", "process_vm_readv"] + (["open", "vfork", "x32"] if X86_64 else [])
# Decoy ranges before the real one: a filter longer than a conditional jump can cross.
DECOYS = [0, 20]


def build(out: Path, *flags: str) -> Path:
    done = subprocess.run(["cc", "-std=gnu11", "-Wall", "-Wextra", "-Werror", "-O1", *flags, f"-I{KIT}",
                           str(KIT / "tests" / "c" / "sandbox" / "harness.c"), str(KIT / "driver" / "sandbox.c"),
                           "-o", str(out)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return out


@pytest.fixture(scope="module")
def harness(tmp_path_factory) -> Path:
    return build(tmp_path_factory.mktemp("sandbox") / "harness")


def attempt(harness: Path, *args: str | int) -> subprocess.CompletedProcess:
    return subprocess.run([str(harness), *map(str, args)], capture_output=True, text=True, timeout=30)


def numbers(tag: str, err: str) -> list[int]:
    return [int(n) for n in re.findall(rf"^{tag} (-?\d+)$", err, re.M)]


@pytest.mark.parametrize("decoys", DECOYS)
@pytest.mark.parametrize("action", ALLOWED)
def test_allowed_calls_go_through(harness, action, decoys):
    done = attempt(harness, action, decoys)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"ok {action}" in done.stdout and "sigsys" not in done.stderr


@pytest.mark.parametrize("decoys", DECOYS)
@pytest.mark.parametrize("action", REFUSED)
def test_refused_calls_raise_sigsys_naming_the_call(harness, action, decoys):
    done = attempt(harness, action, decoys)
    assert done.returncode == -signal.SIGSYS, done.stdout + done.stderr
    assert f"ok {action}" not in done.stdout
    expect = numbers("expect", done.stderr)
    assert len(expect) == 1 and numbers("sigsys", done.stderr) == expect, done.stderr


# x86-64's numbers of the calls the filter lets by with every argument 0: those it
# allows whatever the arguments, and those it judges by them (reading a signal's
# action, the signal stack or its own limits; the signal mask, answered and kept).
LET_BY = {"read": 0, "write": 1, "close": 3, "fstat": 5, "lseek": 8, "rt_sigaction": 13, "rt_sigprocmask": 14,
          "rt_sigreturn": 15, "readv": 19, "writev": 20, "sched_yield": 24, "nanosleep": 35, "getpid": 39,
          "exit": 60, "gettimeofday": 96, "getrlimit": 97, "getppid": 110, "sigaltstack": 131, "gettid": 186,
          "futex": 202, "restart_syscall": 219, "clock_gettime": 228, "clock_getres": 229,
          "clock_nanosleep": 230, "exit_group": 231, "newfstatat": 262, "prlimit64": 302, "statx": 332}
# The kernel lets uretprobe and uprobe by every filter (6.11 on): made outside a
# probe's trampoline they only fail (SIGILL, ENXIO).
KERNEL_PASSES = {"uretprobe": 335, "uprobe": 336}
SWEPT = 512  # past the last call of today's kernels (mseal, 462)


@pytest.mark.skipif(not X86_64, reason="x86-64's numbers")
@pytest.mark.parametrize("first", range(0, SWEPT, 64))
def test_every_other_call_number_is_refused(harness, first):
    """The lists above name the calls an allocator might want; the filter must refuse
    every other number as well (arch_prctl, modify_ldt, personality, setitimer, shmget
    and memfd_create would each let a call keep state or memory the audit never sees).
    Each number is made with every argument 0, which every call refused here is."""
    let_by = set(LET_BY.values()) | set(KERNEL_PASSES.values())
    for nr in (nr for nr in range(first, first + 64) if nr not in let_by):
        done = attempt(harness, "bare", nr)
        assert done.returncode == -signal.SIGSYS and numbers("sigsys", done.stderr) == [nr], \
            (nr, done.returncode, done.stdout + done.stderr)


def test_abort_still_aborts(harness):
    done = attempt(harness, "kill-self-abort")
    assert done.returncode == -signal.SIGABRT, done.stdout + done.stderr
    assert "sigsys" not in done.stderr


@pytest.mark.parametrize("action", ["kill-other", "tgkill-other"])
def test_no_signal_reaches_another_process(harness, action):
    """The harness forks a process of its own before the sandbox and tries to SIGKILL
    it after; that process prints once the harness is gone (run waits for it)."""
    done = attempt(harness, action)
    assert done.returncode == -signal.SIGSYS, done.stdout + done.stderr
    assert len(numbers("sigsys", done.stderr)) == 1
    assert "other alive" in done.stdout


if X86_64:  # the i386 entry point
    def test_another_architecture_is_killed_not_trapped(harness):
        """int 0x80 enters the kernel as i386, whose numbers mean other calls: the
        process dies of SIGSYS at once, its handler never runs."""
        done = attempt(harness, "int80")
        assert done.returncode == -signal.SIGSYS, done.stdout + done.stderr
        assert "sigsys" not in done.stderr and "ok int80" not in done.stdout


def test_a_filter_too_long_for_the_kernel_is_not_installed(harness):
    done = attempt(harness, "printf", 200)
    assert done.returncode == 2 and "sandbox_enter failed" in done.stderr


@pytest.mark.parametrize("flag", ["-fsanitize=address", "-DMDRIVER_SECCOMP_OFF"])
def test_no_sandbox_under_address_sanitizer_or_when_built_off(tmp_path, flag):
    """ASan maps memory as the program runs, and DRIVER_SECCOMP=off asks for no filter:
    sandbox_enter refuses, and the caller runs unsandboxed."""
    unfiltered = build(tmp_path / "harness-off", flag)
    done = attempt(unfiltered, "printf")
    assert done.returncode == 2 and "sandbox_enter failed" in done.stderr


NAMES = ({9: "mmap", 257: "openat", 10: "mprotect", 28: "madvise", 62: "kill", 56: "clone", 2: "open", 12: "brk"}
         if X86_64 else {222: "mmap", 56: "openat", 226: "mprotect", 233: "madvise", 129: "kill", 220: "clone"})


@pytest.mark.parametrize("nr,name", sorted(NAMES.items()))
def test_syscall_names(harness, nr, name):
    assert attempt(harness, "name", nr).stdout == f"{name}\n"


def test_unknown_syscall_has_no_name(harness):
    assert attempt(harness, "name", 999).stdout == "(null)\n"


def describe(harness: Path, nr: int) -> str:
    out = attempt(harness, "describe", nr).stdout
    assert out.count("\n") == 1 and out.startswith(": it made ")
    return out.strip()


def test_describe_says_what_was_refused_and_why(harness):
    nr = {v: k for k, v in NAMES.items()}
    mmap = describe(harness, nr["mmap"])
    assert f"the system call mmap ({nr['mmap']})" in mmap and "may not" in mmap and "mem_sbrk" in mmap
    assert "outside the heap" in describe(harness, nr["mprotect"])
    assert "MADV_DONTNEED" in describe(harness, nr["madvise"])
    assert "another process" in describe(harness, nr["kill"])
    assert "system call 999," in describe(harness, 999)


def test_every_clause_fits_in_its_buffer(harness):
    longest, room = map(int, attempt(harness, "longest").stdout.split())
    assert 100 < longest < room


# ------------------------------------------------------------ end to end

CLEAN = ["a 0 64", "a 1 200", "r 0 300", "f 1", "a 2 40", "f 0", "f 2"]


def three_traces(tmp: Path) -> list:
    """The defect fires in the middle trace only (a TRIGGER-byte request)."""
    return ["-f", write_trace(tmp, "before", CLEAN, weight=1),
            "-f", write_trace(tmp, "bad", ["a 0 16", f"a 1 {TRIGGER}", "f 0", "f 1"], weight=1),
            "-f", write_trace(tmp, "after", CLEAN, weight=1)]


@pytest.mark.parametrize("name,call,fragment", [
    ("sys-mmap", "mmap", "memory of its own"),
    ("sys-mprotect", "mprotect", "outside the heap"),
    ("sys-kill", "kill", "aimed at another process"),
])
def test_a_refused_call_crashes_its_trace_and_the_run_goes_on(tmp_path, name, call, fragment):
    r = run(broken(name), *three_traces(tmp_path), tmp=tmp_path)
    assert r.rc == 1, r.out + r.err
    t = r.trace("bad")
    assert (t["outcome"], t["op_index"], t["op"]) == ("crashed", 1, f"a 1 {TRIGGER}")
    row, msg = r.row("bad")
    assert row.split()[1:3] == ["bad", "crashed"]
    for text in ("SIGSYS", f"at op 1 (a 1 {TRIGGER}) of the correctness pass", f"the system call {call} (",
                 "may not", fragment):
        assert text in t["message"], t["message"]
    assert "SIGSYS" in msg and call in msg
    for other in ("before", "after"):
        assert r.trace(other)["outcome"] == "ok"
    assert (r.summary["valid"], r.summary["failed"]) == (2, 1)


def test_opening_a_file_in_mm_init_crashes(tmp_path):
    """Every trace calls mm_init: the one trace crashes, whatever it asks for."""
    r = run(broken("sys-open"), "-f", write_trace(tmp_path, "t", CLEAN, weight=1), tmp=tmp_path)
    assert r.rc == 1, r.out + r.err
    t = r.trace("t")
    assert t["outcome"] == "crashed"
    for text in ("SIGSYS", "the system call openat (", "may not", "no files"):
        assert text in t["message"], t["message"]


def test_a_driver_built_with_seccomp_off_lets_the_call_through(tmp_path):
    """make DRIVER_SECCOMP=off, for the grader's tests of its own sandbox: the same
    open goes through, and --describe says the trace's process has no filter."""
    unfiltered = build_driver(extra=("MM=tests/c/broken/sys-open.c", "DRIVER_SECCOMP=off"))
    r = run(unfiltered, "-f", write_trace(tmp_path, "t", CLEAN, weight=1), tmp=tmp_path)
    assert r.rc == 0 and r.trace("t")["outcome"] == "ok", r.out + r.err
    assert describe_driver(unfiltered)["seccomp"] is False
    assert describe_driver(broken("sys-open"))["seccomp"] is True

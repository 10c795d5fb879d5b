"""mmtrace record: the LD_PRELOAD recorder on programs compiled here with a known
allocation sequence, on threads and forks, on crashes and missing commands, and on
a real multithreaded program whose recording the driver replays."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import build_driver
from grader_fixtures.helpers import run_python
from mmtrace.linter import lint, read_trace
from mmtrace.record import record

KNOWN = r"""
#include <malloc.h>
#include <stdlib.h>
#include <unistd.h>
int main(void)
{
    char *a = malloc(100);
    char *b = calloc(10, 20);
    a = realloc(a, 300);
    void *c;
    if (posix_memalign(&c, 64, 50) != 0) return 1;
    void *d = aligned_alloc(32, 64);
    void *e = realloc(NULL, 40);
    e = realloc(e, 0);
    free(b);
    a = realloc(a, 20);
    free(c);
    free(d);
    free(a);
    void *m = memalign(16, 24);
    free(m);
    void *z = malloc(0);
    free(z);
    free(NULL);
    return write(1, "done\n", 5) == 5 ? 0 : 1;
}
"""
KNOWN_OPS = [("a", 0, 100), ("a", 1, 200), ("r", 0, 300), ("a", 2, 50), ("a", 3, 64),
             ("n", 4, 40), ("r", 4, 0), ("f", 1, 0), ("r", 0, 20), ("f", 2, 0), ("f", 3, 0),
             ("f", 0, 0), ("a", 0, 24), ("f", 0, 0), ("a", 0, 0), ("f", 0, 0)]

THREADS = r"""
#include <pthread.h>
#include <stdlib.h>
static void *churn(void *arg)
{
    unsigned s = (unsigned)(size_t)arg * 2654435761u + 1;
    void *held[64] = {0};
    for (int i = 0; i < 20000; i++) {
        s = s * 1103515245u + 12345u;
        int k = (s >> 16) % 64;
        size_t n = 1 + (s >> 8) % 3000;
        if (!held[k]) held[k] = malloc(n);
        else if (s & 1) { free(held[k]); held[k] = 0; }
        else held[k] = realloc(held[k], n);
    }
    for (int k = 0; k < 64; k++) free(held[k]);
    return 0;
}
int main(void)
{
    pthread_t t[4];
    for (long i = 0; i < 4; i++) pthread_create(&t[i], 0, churn, (void *)i);
    for (int i = 0; i < 4; i++) pthread_join(t[i], 0);
    return 0;
}
"""

FORKS = r"""
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
int main(void)
{
    void *p = malloc(11);
    pid_t kid = fork();
    if (kid == 0) {
        for (int i = 0; i < 3; i++) free(malloc(22));
        _exit(0);
    }
    waitpid(kid, 0, 0);
    free(malloc(33));
    free(p);
    return 0;
}
"""

EXECS = r"""
#include <stdlib.h>
#include <unistd.h>
int main(int argc, char **argv)
{
    size_t size = argc > 1 ? 55 : 77;
    for (int i = 0; i < (argc > 1 ? 2 : 4); i++) free(malloc(size));
    if (argc == 1) {
        execl(argv[0], argv[0], "again", (char *)0);
        return 1;
    }
    return 0;
}
"""


def test_a_program_exec_d_by_the_process_does_not_wipe_the_log_before_it(tmp_path):
    """The exec'd program loaded the recorder again under the same pid and truncated the
    log: the 8 events before the exec were lost, and the trace was the second program's."""
    exe = _compile(tmp_path, "execs", EXECS)
    rec = record([str(exe)])
    assert [(k, s) for k, _, s in rec.trace.ops()] == [("a", 77), ("f", 0)] * 4
    assert rec.ok and rec.processes == 1 and rec.programs == 2
    again = record([str(exe)], process="first")           # the pid's larger program
    assert [s for k, _, s in again.trace.ops() if k == "a"] == [77] * 4


CRASH = r"""
#include <stdlib.h>
int main(void)
{
    void *a = malloc(10);
    void *b = malloc(20);
    free(a);
    *(volatile int *)b = 1;
    *(volatile int *)0 = 1;
    return 0;
}
"""


def _compile(tmp: Path, name: str, source: str) -> Path:
    src = tmp / f"{name}.c"
    src.write_text(source)
    exe = tmp / name
    subprocess.run(["cc", "-O0", "-fno-builtin", "-o", str(exe), str(src), "-lpthread"],
                   check=True)
    return exe


def _cli(*args: str, **kw) -> subprocess.CompletedProcess:
    return run_python("-m", "mmtrace", *args, capture_output=True, text=True, **kw)


def test_known_sequence_is_recorded_exactly_and_replays(tmp_path, driver):
    exe = _compile(tmp_path, "known", KNOWN)
    out = tmp_path / "known.rep"
    done = _cli("record", "-o", str(out), "--", str(exe))
    assert done.returncode == 0, done.stderr
    t = read_trace(out)
    assert list(t.ops()) == KNOWN_OPS
    replay = subprocess.run([str(driver), "--json", "-", "-f", str(out)], capture_output=True,
                            text=True)
    assert replay.returncode == 0, replay.stdout + replay.stderr
    assert json.loads(replay.stdout)["traces"][0]["outcome"] == "ok"


def test_threads_record_a_consistent_order(tmp_path):
    rec = record([str(_compile(tmp_path, "threads", THREADS))])
    # four workers, and the main thread, whose pthread_create allocates thread state
    assert rec.ok and rec.report.threads == 5
    assert rec.report.unknown == 0 and rec.report.missed_frees == 0
    assert rec.report.freed_at_end <= 8       # glibc keeps a few per-thread blocks
    assert rec.report.ops >= 4 * 20000 * 0.9
    out = tmp_path / "threads.rep"
    from mmtrace.trace import write_trace
    write_trace(out, rec.trace)
    assert not lint(out).problems


def test_each_process_has_its_own_log(tmp_path):
    exe = _compile(tmp_path, "forks", FORKS)
    parent = record([str(exe)], process="first")
    assert parent.processes == 2
    assert [(k, s) for k, _, s in parent.trace.ops()] == [("a", 11), ("a", 33), ("f", 0),
                                                          ("f", 0)]
    child = record([str(exe)], process="largest")
    assert [s for k, _, s in child.trace.ops() if k == "a"] == [22, 22, 22]


def test_a_crash_is_reported_and_what_came_before_is_kept(tmp_path):
    exe = _compile(tmp_path, "crash", CRASH)
    out = tmp_path / "crash.rep"
    done = _cli("record", "-o", str(out), "--", str(exe))
    assert done.returncode == 1
    assert "killed by SIGSEGV" in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert "Traceback" not in done.stderr
    assert list(read_trace(out).ops()) == [("a", 0, 10), ("a", 1, 20), ("f", 0, 0),
                                           ("f", 1, 0)]


CLOSES_FDS = r"""
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
int main(int argc, char **argv)
{
    free(malloc(10));                            /* the recorder starts its log here */
    for (int fd = 3; fd < 1024; fd++) close(fd);  /* as a daemon does */
    int fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || write(fd, "mine\n", 5) != 5) return 1;
    if (chdir("/") != 0) return 1;
    for (int i = 0; i < 100000; i++) free(malloc(16 + i % 100));
    return close(fd);
}
"""


def test_a_program_that_closes_every_descriptor_keeps_its_files_and_its_recording(tmp_path):
    """The recorder kept the log's descriptor: a program that closed it and opened a file of
    its own under the same number had that file grown to 8 MiB and written into when the log
    needed its second window, and the recording stopped there, silently."""
    exe = _compile(tmp_path, "closes", CLOSES_FDS)
    mine = tmp_path / "mine.txt"
    rec = record([str(exe), str(mine)])
    assert rec.ok, rec.status
    assert mine.read_bytes() == b"mine\n"
    assert rec.report.events == 2 + 2 * 100000           # past the first 4 MiB window
    assert rec.report.ops == rec.report.events


LIMITS_ITS_FILES = r"""
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
int main(void)
{
    /* files of at most 6 MiB, and a write past that an error rather than SIGXFSZ */
    struct rlimit six = {6 << 20, 6 << 20};
    signal(SIGXFSZ, SIG_IGN);
    if (setrlimit(RLIMIT_FSIZE, &six) != 0) return 2;
    for (int i = 0; i < 100000; i++) free(malloc(16 + i % 100));
    return 0;
}
"""


def test_a_log_that_cannot_grow_is_reported_and_what_it_holds_kept(tmp_path):
    """The recorder's second 4 MiB window cannot be had (the program's own file-size limit):
    the recording stopped there and said nothing, exit 0, as if the program had ended."""
    exe = _compile(tmp_path, "limits", LIMITS_ITS_FILES)
    out = tmp_path / "limits.rep"
    done = _cli("record", "-o", str(out), "--", str(exe))
    assert done.returncode == 1, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "could not grow" in lines[0] and "(ok)" in lines[0], lines
    t = read_trace(out)
    assert 100000 < len(t) < 200000 and not lint(out).errors     # the first window, balanced


def _private_mounts() -> list[str] | None:
    """How to start a process with mounts of its own: unshare -m as root, else in a user namespace
    of its own (unshare -rm), which needs no root where the kernel allows such namespaces."""
    for argv in (["unshare", "-m"], ["unshare", "-rm"]):
        if subprocess.run([*argv, "true"], capture_output=True).returncode == 0:
            return argv
    return None


def _record_on_small_tmpfs(tmp_path: Path, exe: Path) -> tuple[subprocess.CompletedProcess, Path]:
    """`mmtrace record -o OUT -- EXE` with TMPDIR (where the logs go) a private 6 MiB tmpfs."""
    small = tmp_path / "small"
    small.mkdir()
    out = tmp_path / "out.rep"
    unshare = _private_mounts()
    if unshare is None:
        pytest.skip("no private tmpfs here (needs unshare -m, or -rm without root, and mount)")
    mount = 'mount -t tmpfs -o size=6m tmpfs "$0" || exit 77; TMPDIR="$0" exec "$@"'
    done = run_python("-m", "mmtrace", "record", "-o", out, "--", exe, capture_output=True,
                      text=True, runner=lambda argv, **kw: subprocess.run(
                          [*unshare, "sh", "-c", mount, str(small), *argv], **kw))
    if done.returncode == 77:
        pytest.skip("no private tmpfs here (mount -t tmpfs refused)")
    return done, out


def test_a_full_disk_under_the_log_does_not_kill_the_program(tmp_path):
    """On a 6 MiB tmpfs the log's second window was a sparse page the disk could not hold:
    the program died of SIGBUS, and mmtrace said the program was killed. (mmtrace's own
    reading of the log's sparse tail faulted too, once the program no longer did.)"""
    exe = _compile(tmp_path, "many", "#include <stdlib.h>\nint main(void) { for (int i = 0; "
                   "i < 150000; i++) free(malloc(16 + i % 100)); return 0; }\n")
    done, out = _record_on_small_tmpfs(tmp_path, exe)
    assert done.returncode == 1, done.stderr
    assert "SIGBUS" not in done.stderr and "could not grow" in done.stderr
    assert str(tmp_path / "small") in done.stderr and "(ok)" in done.stderr
    assert 100000 < len(read_trace(out)) < 300000


MANY_PROCESSES = r"""
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
int main(void)
{
    free(malloc(5));
    for (int k = 0; k < 300; k++) {
        pid_t kid = fork();
        if (kid == 0) { free(malloc(32)); _exit(0); }
        waitpid(kid, 0, 0);
    }
    return 0;
}
"""


def test_many_short_processes_each_hold_little_disk(tmp_path):
    """Each process's log reserved a whole 4 MiB window: 300 short processes on a 6 MiB disk
    could not log. The reservation now grows with the log, from 4 KiB."""
    done, out = _record_on_small_tmpfs(tmp_path, _compile(tmp_path, "kids", MANY_PROCESSES))
    assert done.returncode == 0, done.stderr
    assert "301 process(es)" in done.stdout


def test_many_processes_need_no_descriptor_each(tmp_path):
    """Every process's log was kept mapped, a descriptor each, until the conversion: 300
    processes under a limit of 64 open files was a 'Too many open files' traceback."""
    import resource
    exe = _compile(tmp_path, "kids", MANY_PROCESSES)
    out = tmp_path / "kids.rep"
    done = _cli("record", "-o", str(out), "--", str(exe),
                preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (64, 64)))
    assert done.returncode == 0, done.stderr
    assert "301 process(es)" in done.stdout
    assert [(k, s) for k, _, s in read_trace(out).ops()] == [("a", 5), ("f", 0)]   # a tie: the first


WAITS = r"""
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
int main(int argc, char **argv)
{
    int null = open("/dev/null", O_WRONLY);      /* an orphan must not hold mmtrace's pipes */
    dup2(null, 1);
    dup2(null, 2);
    for (int i = 0; i < 300; i++) free(malloc(100 + i));
    void *held = malloc(4000);
    FILE *f = fopen(argv[1], "w");                /* "I have started", and my pid */
    fprintf(f, "%d\n", (int)getpid());
    fclose(f);
    for (;;) pause();
    free(held);
}
"""


def _wait_for(path: Path, seconds: float = 20) -> str:
    import time
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if path.exists() and path.read_text().endswith("\n"):
            return path.read_text()
        time.sleep(0.05)
    raise AssertionError(f"{path} never written")


def _kill_started(started: Path) -> None:
    """Whatever a test left running: the pid its program wrote into STARTED, if it got that far."""
    if started.exists():
        try:
            os.kill(int(started.read_text()), signal.SIGKILL)
        except (ProcessLookupError, ValueError):
            pass


def _gone(pid: int, seconds: float = 5) -> bool:
    import os
    import time
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.05)
    return False


@pytest.mark.parametrize("how", ["ctrl-c", "kill"])
def test_an_interrupted_recording_keeps_what_it_recorded(tmp_path, how):
    """Ctrl-C (SIGINT to the terminal's process group) ended mmtrace with 'aborted' and no
    trace; a SIGTERM to mmtrace alone lost the trace and left the program running."""
    import os
    import signal
    exe = _compile(tmp_path, "waits", WAITS)
    started, out = tmp_path / "started", tmp_path / "waits.rep"
    proc = run_python("-m", "mmtrace", "record", "-o", out, "--", exe, started,
                      runner=subprocess.Popen, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                      text=True, start_new_session=True,
                      preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    pid = int(_wait_for(started))
    try:
        if how == "ctrl-c":
            os.killpg(proc.pid, signal.SIGINT)
        else:
            os.kill(proc.pid, signal.SIGTERM)
        _, err = proc.communicate(timeout=30)
        assert _gone(pid)
    finally:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    name = "SIGINT" if how == "ctrl-c" else "SIGTERM"
    assert proc.returncode == 1, err
    ops = list(read_trace(out).ops())
    assert err.strip().splitlines() == [f"mmtrace: record: {exe} stopped by {name} (killed by "
                                        f"{name}); kept the {len(ops)} ops recorded before that"]
    assert [s for k, _, s in ops if k == "a"][:300] == list(range(100, 400))
    assert 4000 in [s for k, _, s in ops if k == "a"] and not lint(out).problems


def test_a_timeout_stops_every_process_of_the_command(tmp_path):
    """--timeout killed only the command (here a shell): the program it ran went on, logging
    into a deleted file, after mmtrace had exited."""
    import os
    import signal
    exe = _compile(tmp_path, "waits", WAITS)
    started, out = tmp_path / "started", tmp_path / "waits.rep"
    try:
        done = _cli("record", "--timeout", "2", "-o", str(out), "--", "sh", "-c",
                    f"{exe} {started}; true")
        pid = int(_wait_for(started, 1))
        assert _gone(pid)
    finally:
        _kill_started(started)
    assert done.returncode == 1
    assert "sh timed out after 2 s" in done.stderr
    assert [s for k, _, s in read_trace(out).ops() if k == "a"][:300] == list(range(100, 400))


def test_a_recording_stops_where_a_trace_the_driver_reads_must(tmp_path, monkeypatch):
    """Without --max-ops a recording had no end: 13 M malloc/free pairs made a 262 MB trace,
    a few more one past the 256 MiB that the driver and mmtrace read, written with exit 0.
    It now stops at MAX_OPS (a 20-byte op line at most: under the limit), here made small."""
    from mmtrace import rawlog
    from mmtrace.trace import MAX_OPS, TRACE_MAX_BYTES
    assert MAX_OPS * len("a 67108863 20971520\n") <= TRACE_MAX_BYTES
    monkeypatch.setattr(rawlog, "MAX_OPS", 1000)
    monkeypatch.setattr(rawlog, "CHUNK", 64)               # several steps of conversion
    exe = _compile(tmp_path, "many", "#include <stdlib.h>\nint main(void) { void *p[8]; for "
                   "(int i = 0; i < 8; i++) p[i] = malloc(8 + i); for (int i = 0; i < 3000; i++)"
                   " free(malloc(16)); for (int i = 0; i < 8; i++) free(p[i]); return 0; }\n")
    rec = record([str(exe)])
    assert rec.report.truncated and len(rec.trace) <= 1000 < rec.report.events
    assert [s for k, _, s in rec.trace.ops()][:8] == list(range(8, 16))
    out = tmp_path / "many.rep"
    from mmtrace.trace import write_trace
    write_trace(out, rec.trace)
    assert not lint(out).errors
    many = record([str(exe)], max_ops=5000)                 # more than MAX_OPS: still MAX_OPS
    assert many.report.truncated and len(many.trace) <= 1000


def test_no_recording_says_whether_the_program_is_statically_linked(tmp_path):
    """Every program that allocated nothing was told 'a static binary cannot be recorded',
    /bin/true as much as a static one; a static one is now named as such, the others not."""
    quiet = _compile(tmp_path, "quiet", "int main(void) { return 0; }\n")
    done = _cli("record", "-o", str(tmp_path / "q.rep"), "--", str(quiet))
    assert done.returncode == 2 and "made no allocation calls" in done.stderr
    assert "static binary" not in done.stderr and "is statically linked" not in done.stderr
    src = tmp_path / "static.c"
    src.write_text("#include <stdlib.h>\nint main(void) { free(malloc(10)); return 0; }\n")
    if subprocess.run(["cc", "-static", "-o", str(tmp_path / "static"), str(src)],
                      capture_output=True).returncode != 0:
        pytest.skip("no static C library here")
    done = _cli("record", "-o", str(tmp_path / "s.rep"), "--", str(tmp_path / "static"))
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        f"mmtrace: record: {tmp_path / 'static'} is statically linked: the recorder (LD_PRELOAD) "
        "cannot see its calls; nothing was recorded (ok)"]


@pytest.mark.parametrize("options, said", [
    # --skip past the end, and --max-ops 1 (room for no alloc and its free), each wrote a trace
    # of 0 ops, exit 0, which the driver then scored
    (["--skip", "1000"], ["mmtrace: record: --skip 1000 is all of the "]),
    (["--max-ops", "1"], ["mmtrace: record: no op left to write (", "truncated at max ops"]),
])
def test_a_recording_that_leaves_no_op_is_refused_not_an_empty_trace(tmp_path, options, said):
    exe = _compile(tmp_path, "known", KNOWN)
    out = tmp_path / "x.rep"
    done = _cli("record", *options, "-o", str(out), "--", str(exe))
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(said[0]) and all(s in lines[0] for s in said[1:])
    assert not out.exists()
    if options[0] == "--skip":      # a skip that leaves ops is a trace
        done = _cli("record", "--skip", "3", "-o", str(out), "--", str(exe))
        assert done.returncode == 0 and len(read_trace(out)) > 0


def test_a_program_whose_name_is_not_ascii_is_recorded(tmp_path):
    """The trace was encoded as ASCII, comments and all: a program in a folder named in any
    other language was recorded, then the write was a UnicodeEncodeError traceback, and the
    recording was lost."""
    exe = _compile(tmp_path, "known", KNOWN)
    named = tmp_path / "café-prog"
    exe.rename(named)
    out = tmp_path / "k.rep"
    done = _cli("record", "-o", str(out), "--", str(named))
    assert done.returncode == 0, done.stderr
    assert list(read_trace(out).ops()) == KNOWN_OPS
    assert out.read_text(encoding="utf-8").splitlines()[0] == f"# recorded from: {named}"


@pytest.mark.parametrize("where, cc, words", [
    ("a-file/sub/recorder.so", "cc", "Not a directory"),
    ("fresh/recorder.so", "no-such-cc", "no compiler 'no-such-cc'"),
])
def test_a_recorder_that_cannot_be_built_is_one_line(tmp_path, where, cc, words):
    """A recorder path in a folder that cannot be made, or a CC that does not exist, was a
    Python traceback (mkdir's or subprocess's) before the program ran."""
    import os
    (tmp_path / "a-file").write_text("x")
    env = dict(os.environ, MMTRACE_RECORDER=str(tmp_path / where), CC=cc)
    ran = tmp_path / "ran"
    done = _cli("record", "-o", str(tmp_path / "x.rep"), "--", "touch", str(ran), env=env)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(
        f"mmtrace: record: cannot build the recorder {tmp_path / where}: ") and words in lines[0]
    assert not ran.exists()


def test_a_script_whose_interpreter_is_missing_is_not_called_missing(tmp_path):
    """The kernel's ENOENT for a missing #! interpreter was reported as 'command not found'
    of the script, which is there."""
    script = tmp_path / "job.sh"
    script.write_text("#!/no/such/shell\necho hi\n")
    script.chmod(0o755)
    done = _cli("record", "-o", str(tmp_path / "x.rep"), "--", str(script))
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        f"mmtrace: record: cannot run {script}: its interpreter (#!/no/such/shell) is not there"]


def test_a_missing_command_is_one_line(tmp_path):
    done = _cli("record", "-o", str(tmp_path / "x.rep"), "--", str(tmp_path / "no-such-program"))
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        f"mmtrace: record: command not found: {tmp_path / 'no-such-program'}"]
    assert not (tmp_path / "x.rep").exists()


def test_a_file_that_is_not_a_program_is_one_line(tmp_path):
    """An executable file the kernel cannot run (no ELF, no #!) was a Python traceback."""
    junk = tmp_path / "junk"
    junk.write_bytes(bytes(range(256)) * 4)
    junk.chmod(0o755)
    done = _cli("record", "-o", str(tmp_path / "x.rep"), "--", str(junk))
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        f"mmtrace: record: cannot run {junk}: Exec format error"]
    assert not (tmp_path / "x.rep").exists()


@pytest.mark.parametrize("process", ["bogus", "0", "99999999"])
def test_an_impossible_process_is_refused_before_the_program_runs(tmp_path, process):
    ran = tmp_path / "ran"
    done = _cli("record", "--process", process, "-o", str(tmp_path / "x.rep"), "--",
                "sh", "-c", f"touch {ran}")
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("mmtrace: record: process ") and process in lines[0]
    assert not ran.exists() and not (tmp_path / "x.rep").exists()


def test_sizes_are_capped_and_blocks_over_budget_left_out(tmp_path):
    src = r"""
    #include <stdlib.h>
    int main(void) {
        void *a = malloc(5000);  void *b = malloc(900);  void *c = malloc(800);
        free(c); free(b); free(a);
        return 0;
    }"""
    rec = record([str(_compile(tmp_path, "big", src))], max_size=1000, max_live=1800)
    assert rec.report.capped == 1 and rec.report.over_budget == 1
    assert list(rec.trace.ops()) == [("a", 0, 1000), ("a", 1, 800), ("f", 1, 0), ("f", 0, 0)]


def _recipe(folder: Path, command: list[str], more: str = "") -> Path:
    recipe = folder / "recipe.toml"
    recipe.write_text('[groups]\nrecorded = "real programs"\n\n[[trace]]\nname = "rec-py"\n'
                      'group = "recorded"\nstresses = "a script from sources/"\n'
                      f"command = {json.dumps(command)}\n{more}")
    return recipe


@pytest.mark.parametrize("more, numbers", [
    ('header = "classic"\nweight = 2\n', lambda ids, ops, peak: [20000000, ids, ops, 2]),
    ('header = "lab64"\nweight = 3\n', lambda ids, ops, peak: [3, ids, ops, peak]),
])
def test_suite_record_writes_the_header_and_weight_the_recipe_asks_for(tmp_path, more, numbers):
    """A recorded entry's header and weight were accepted and ignored: always lab64, weight 1."""
    from mmtrace.stats import measure
    recipe = _recipe(tmp_path, [sys.executable, "-S", "-c", "pass"], more)
    done = _cli("suite", "--record", str(recipe))
    assert done.returncode == 0, done.stderr
    t = read_trace(tmp_path / "rec-py.rep")
    assert t.header.lines() == numbers(t.header.ids, len(t), measure(t).peak_live_bytes)


def test_suite_record_runs_the_command_on_the_recipe_s_sources_whatever_the_output(tmp_path):
    """{traces} was the -o folder, where sources/ is not: the program failed to find its
    script, and that failure was written as the trace, exit 0."""
    suite = tmp_path / "suite"
    (suite / "sources").mkdir(parents=True)
    (suite / "sources" / "work.py").write_text("k = ['x' * 1000 + str(i) for i in range(3000)]\n")
    recipe = _recipe(suite, [sys.executable, "-S", "{traces}/sources/work.py"])
    out = tmp_path / "out"
    done = _cli("suite", "--record", "-o", str(out), str(recipe))
    assert done.returncode == 0, done.stderr
    assert sum(k == "a" and s > 1000 for k, _, s in read_trace(out / "rec-py.rep").ops()) >= 3000


def test_suite_record_does_not_write_a_failed_recording(tmp_path):
    recipe = _recipe(tmp_path, [sys.executable, "-S", "-c", "import sys; sys.exit(3)"])
    (tmp_path / "rec-py.rep").write_text("kept\n")
    done = _cli("suite", "--record", str(recipe))
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [
        f"mmtrace: record rec-py: {sys.executable} exited 3; rec-py.rep left as it was"]
    assert (tmp_path / "rec-py.rep").read_text() == "kept\n"


@pytest.fixture(scope="module")
def good_driver() -> Path:
    return build_driver("segregated-realloc")


def test_a_real_multithreaded_program_loads_and_replays(tmp_path, good_driver):
    script = ("import threading, json\n"
              "def work(n):\n"
              "    d = {str(i * n): [i] * (i % 5) for i in range(3000)}\n"
              "    json.loads(json.dumps(d))\n"
              "ts = [threading.Thread(target=work, args=(k,)) for k in range(4)]\n"
              "[t.start() for t in ts]\n[t.join() for t in ts]\n")
    out = tmp_path / "py.rep.gz"
    env = {"PYTHONMALLOC": "malloc", "PATH": "/usr/bin:/bin"}
    rec = record([sys.executable, "-S", "-c", script], env=env)
    assert rec.ok, rec.status
    assert rec.report.threads >= 5            # the main thread and four workers
    from mmtrace.trace import write_trace
    write_trace(out, rec.trace)
    assert not lint(out).errors
    replay = subprocess.run([str(good_driver), "--json", "-", "-f", str(out)],
                            capture_output=True, text=True)
    assert replay.returncode == 0, replay.stderr
    assert json.loads(replay.stdout)["traces"][0]["outcome"] == "ok"


def test_the_help_examples_sort_example_runs_as_written(tmp_path):
    """It sorted /usr/share/dict/words, which is not installed everywhere: the example is now
    self-contained (its input generated), and runs as the help shows it."""
    import shlex
    text = _cli("record", "--help").stdout
    line = next(l.strip() for l in text.splitlines() if l.strip().startswith("mmtrace record -o build/sort"))
    argv = shlex.split(line)[2:]                        # after `mmtrace record`
    argv[argv.index("-o") + 1] = str(tmp_path / "sort.rep.gz")
    done = _cli("record", *argv)
    assert done.returncode == 0, done.stderr
    assert len(read_trace(tmp_path / "sort.rep.gz")) > 0


LAUNCHES = r"""
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
int main(int argc, char **argv)
{
    char *none[] = {0}, *args[] = {argv[1], 0};
    for (int i = 0; i < 3; i++) free(malloc(40));
    if (execle("/no/such/program", "x", (char *)0, none) == 0) return 3;   /* fails: no note */
    if (strcmp(argv[2], "spawn") == 0) {
        pid_t kid;
        if (posix_spawn(&kid, argv[1], 0, 0, args, none) != 0) return 2;
        return waitpid(kid, 0, 0) == kid ? 0 : 2;
    }
    execle(argv[1], argv[1], (char *)0, none);
    return 1;
}
"""


@pytest.mark.parametrize("how", ["exec", "spawn"])
def test_a_program_started_without_the_recorder_s_environment_is_reported(tmp_path, how):
    """`mmtrace record -- env -i ./prog`: env cleared LD_PRELOAD, ./prog ran unrecorded, and
    env's own few mallocs were written as the trace, exit 0, with nothing said."""
    launch, exe = _compile(tmp_path, "launch", LAUNCHES), _compile(tmp_path, "known", KNOWN)
    out = tmp_path / "x.rep"
    done = _cli("record", "-o", str(out), "--", str(launch), str(exe), how)
    assert done.returncode == 1, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"mmtrace: record: {launch} (pid "), lines
    assert f"started {exe} without the recorder in its environment" in lines[0]
    assert f"so {exe} ran unrecorded; {out} holds pid " in lines[0]
    assert lines[0].endswith("(--allow-unrecorded: keep such a trace, exit 0)")
    assert [(k, s) for k, _, s in read_trace(out).ops()] == [("a", 40), ("f", 0)] * 3
    done = _cli("record", "--allow-unrecorded", "-o", str(out), "--", str(launch), str(exe), how)
    assert done.returncode == 0 and not done.stderr, done.stderr
    assert "1 program(s) ran unrecorded" in done.stdout


def test_env_i_is_reported_and_an_env_that_keeps_the_recorder_is_not(tmp_path):
    exe = _compile(tmp_path, "known", KNOWN)
    out = tmp_path / "x.rep"
    done = _cli("record", "-o", str(out), "--", "env", "-i", str(exe))
    assert done.returncode in (1, 2)          # 2: env itself allocated nothing
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and f"started {exe} without the recorder" in lines[0], lines
    done = _cli("record", "-o", str(out), "--", "env", "X=1", str(exe))
    assert done.returncode == 0 and not done.stderr, done.stderr
    assert "running 2 programs (exec)" in done.stdout and "unrecorded" not in done.stdout


def test_suite_record_does_not_write_a_recording_of_the_wrong_program(tmp_path):
    launch, exe = _compile(tmp_path, "launch", LAUNCHES), _compile(tmp_path, "known", KNOWN)
    recipe = _recipe(tmp_path, [str(launch), str(exe), "exec"])
    (tmp_path / "rec-py.rep").write_text("kept\n")
    done = _cli("suite", "--record", str(recipe))
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [
        f"mmtrace: record rec-py: {exe} ran unrecorded (its environment dropped the recorder); "
        "rec-py.rep left as it was"]
    assert (tmp_path / "rec-py.rep").read_text() == "kept\n"


def test_a_killed_recording_s_log_folder_is_removed_by_the_next(tmp_path):
    """kill -9 of `mmtrace record` left its log folder in $TMPDIR (every process's log) behind for
    good. The next recording removes it; never a live recording's folder, nor another user's."""
    import os
    import signal
    exe = _compile(tmp_path, "waits", WAITS)
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    env = {**os.environ, "TMPDIR": str(tmp)}
    programs = []

    def start(name: str) -> subprocess.Popen:
        proc = run_python("-m", "mmtrace", "record", "-o", tmp_path / f"{name}.rep", "--", exe,
                          tmp_path / name, env=env, runner=subprocess.Popen,
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        programs.append(int(_wait_for(tmp_path / name)))
        return proc

    other = None
    if os.getuid() == 0:                     # a folder of another user, lock free: left alone
        other = tmp / "mmtrace-rec-other"
        other.mkdir()
        (other / ".alive").write_text("")
        os.chown(other, 65534, 65534)
    try:
        dead = start("dead")
        [dead_folder] = [p for p in tmp.glob("mmtrace-*") if p != other]
        dead.kill()
        dead.wait()
        os.kill(programs[0], signal.SIGKILL)
        assert dead_folder.is_dir()          # what SIGKILL leaves
        live = start("live")                 # the next recording sweeps it
        assert not dead_folder.exists()
        [live_folder] = [p for p in tmp.glob("mmtrace-*") if p != other]
        known = _compile(tmp_path, "known", KNOWN)
        quick = _cli("record", "-o", str(tmp_path / "q.rep"), "--", str(known), env=env)
        assert quick.returncode == 0, quick.stderr
        assert live_folder.is_dir() and (other is None or other.is_dir())
        assert sorted(tmp.glob("mmtrace-*")) == sorted(p for p in (live_folder, other) if p)
        live.terminate()
        assert live.wait(timeout=30) == 1
        assert not live_folder.exists()
    finally:
        for pid in programs:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


PAGE_ALIGNED = r"""
#include <malloc.h>
#include <stdlib.h>
#include <unistd.h>
int main(void)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    void *p[8];
    p[0] = pvalloc(0);
    p[1] = pvalloc(1);
    p[2] = pvalloc(page);
    p[3] = pvalloc(page + 1);
    p[4] = valloc(100);
    p[5] = memalign(64, 100);
    p[6] = aligned_alloc(64, 128);
    if (posix_memalign(&p[7], 64, 100) != 0) return 1;
    for (int i = 0; i < 8; i++) free(p[i]);
    return 0;
}
"""


def test_pvalloc_is_recorded_with_the_whole_pages_the_program_gets(tmp_path):
    """pvalloc(n) was recorded as n bytes, though it gives n rounded up to a page (pvalloc(3)):
    a replay asked for less than the program had. The other aligned calls give the size asked."""
    import os
    page = os.sysconf("SC_PAGE_SIZE")
    rec = record([str(_compile(tmp_path, "paged", PAGE_ALIGNED))])
    assert rec.ok, rec.status
    sizes = [s for k, _, s in rec.trace.ops() if k == "a"]
    assert sizes == [0, page, page, 2 * page, 100, 100, 128, 100]


DAEMON = r"""
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
int main(int argc, char **argv)
{
    free(malloc(10));
    pid_t kid = fork();
    if (kid == 0) {                               /* a daemon: a session of its own, orphaned */
        setsid();
        if (fork() != 0) _exit(0);
        for (int fd = 0; fd < 3; fd++) close(fd);
        free(malloc(20));
        FILE *f = fopen(argv[1], "w");
        fprintf(f, "%d\n", (int)getpid());
        fclose(f);
        for (;;) pause();
    }
    waitpid(kid, 0, 0);
    if (argc > 2) return 0;                       /* "quick": end, leaving the daemon */
    for (;;) pause();
}
"""


@pytest.mark.parametrize("how", ["timeout", "quick"])
def test_a_daemon_that_leaves_the_process_group_is_not_left_silently(tmp_path, how):
    """A daemon (setsid, then orphaned) escaped --timeout, which killed the command's process
    group only: it ran on after mmtrace returned. It is now killed with the group; after a
    command that ends by itself, it is left running, and mmtrace says so with its pid."""
    import os
    import signal
    exe = _compile(tmp_path, "daemon", DAEMON)
    started, out = tmp_path / "started", tmp_path / "d.rep"
    args = ["--timeout", "2"] if how == "timeout" else []
    more = ["quick"] if how == "quick" else []
    try:
        done = _cli("record", *args, "-o", str(out), "--", str(exe), str(started), *more,
                    timeout=60)
        pid = int(_wait_for(started, 1))
        lines = done.stderr.strip().splitlines()
        if how == "timeout":
            assert done.returncode == 1 and _gone(pid), done.stderr
            assert len(lines) == 1 and "timed out after 2 s" in lines[0], lines
            assert "still running" not in lines[0]
        else:
            assert done.returncode == 0 and not _gone(pid, 0.5), done.stderr
            assert lines == [f"mmtrace: record: {exe} ok; 1 process(es) the command started "
                             f"still running, unrecorded from here (pids {pid})"]
    finally:
        _kill_started(started)

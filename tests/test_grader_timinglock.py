"""The timing lock is machine-wide: two graders into different folders never time at once.

Each run of the fake driver with FAKE:span=S prints when it was on ("span START END", CLOCK_MONOTONIC,
the same clock in every process on the machine), kept in the record's stdout; the runs of two real
`mmgrade grade` processes sharing one lock file are read from there.  conftest.py gives every other
test's graders a lock file of their own worker's."""
import fcntl
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from pathlib import Path

import pytest

from grader.timinglock import ENV, MachineLock
from grader_fixtures.helpers import TRACES, make_fake_kit, run_grader, run_python, write_policy
from grader_fixtures.submissions import source

NOTE = "waiting for the machine-wide timing lock"


@pytest.fixture
def kit(tmp_path):
    return make_fake_kit(tmp_path / "kit")


def _class(folder: Path, names: list[str], span: float) -> Path:
    folder.mkdir()
    for name in names:
        (folder / f"{name}.c").write_text(source("good") + f"/* {name} FAKE:span={span} */\n")
    return folder


def _grade(kit, subs, out, lock, *extra, **kwargs):
    """`mmgrade grade SUBS -o OUT` with the machine's timing lock at LOCK."""
    config = write_policy(out.parent, name=f"{out.name}.toml")
    return run_grader("grade", subs, "-o", out, "--kit", kit, "--config", config, "--traces", TRACES,
                      "--no-report", *extra, env={**os.environ, ENV: str(lock)}, text=True, **kwargs)


def _started(kit, subs, out, lock, *extra):
    proc = _grade(kit, subs, out, lock, *extra, runner=subprocess.Popen, stdout=subprocess.PIPE,
                  stderr=subprocess.PIPE)
    watchdog = threading.Timer(600, proc.kill)      # a hung grader fails the test, not the session
    watchdog.daemon = True
    watchdog.start()
    return proc


def _note(proc) -> str:
    """The grader's first line naming the timing lock; the test fails if it ends without one."""
    for line in proc.stderr:
        if "timing lock" in line:
            return line.strip()
    proc.wait()
    pytest.fail(f"the grader ended (status {proc.returncode}) without waiting for the timing lock")


def _spans(out: Path) -> list[tuple[int, int, str]]:
    """(start, end, who) of every driver run graded into OUT, from the records' stdout."""
    spans = []
    for record in sorted((out / "submissions").glob("*.json")):
        sub = json.loads(record.read_text())
        assert sub["verdict"] == "ok", sub["reason"]
        found = re.findall(r"^span (\d+) (\d+)$", sub["stdout"], re.M)
        assert len(found) == 1, sub["stdout"]
        spans.append((int(found[0][0]), int(found[0][1]), f"{out.name}/{sub['name']}"))
    return spans


def _hold(lock: Path, text: str) -> int:
    fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o666)
    fcntl.flock(fd, fcntl.LOCK_EX)
    os.write(fd, text.encode())
    return fd


def test_two_graders_into_different_folders_never_time_at_once(kit, tmp_path):
    """Each grader's lock was its own process's: two sections graded on one 2-core machine timed
    their drivers side by side.  While this test holds the shared lock both graders wait, each
    saying so once; then every run of the one lies outside every run of the other."""
    lock = tmp_path / "machine.lock"
    held = _hold(lock, f"pid {os.getpid()}, this test")
    graders = []
    try:
        for section in ("a", "b"):
            subs = _class(tmp_path / f"subs-{section}", [f"{section}{i}" for i in range(3)], 0.3)
            out = tmp_path / f"out-{section}"
            graders.append((_started(kit, subs, out, lock, "-j", "2"), out))
        for proc, _ in graders:
            line = _note(proc)
            assert line == (f"mmgrade: note: {NOTE} {lock}: another mmgrade (pid {os.getpid()}, this test) is "
                            "timing a driver run on this machine; each run here starts when the one before it ends")
    finally:
        os.close(held)
        done = [(proc.communicate(timeout=600), proc.returncode) for proc, _ in graders]
    for (_, err), status in done:
        assert status == 0 and "Traceback" not in err, err
        assert NOTE not in err          # said once
    spans = sorted(span for _, out in graders for span in _spans(out))
    assert len(spans) == 6
    for (_, end, who), (start, _, then) in zip(spans, spans[1:]):
        assert end <= start, f"{who}'s driver run and {then}'s overlap"


def _holder_while_held(lock: Path, proc) -> str:
    """What the lock file says once another process is seen to hold it (the test only looks)."""
    while proc.poll() is None:
        try:
            fd = os.open(lock, os.O_RDONLY)
        except FileNotFoundError:
            time.sleep(0.05)
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return os.pread(fd, 200, 0).decode()
        finally:
            os.close(fd)
        time.sleep(0.05)
    pytest.fail(f"the grader ended (status {proc.returncode}) before holding the timing lock")


def _killed_while_timing(kit, tmp_path, lock):
    """A real grader killed with kill -9 while it holds LOCK, timing a run."""
    proc = _started(kit, _class(tmp_path / "subs-killed", ["slow"], 30), tmp_path / "out-killed", lock)
    try:
        assert _holder_while_held(lock, proc).startswith(f"pid {proc.pid}, a run since ")
    finally:
        proc.kill()
        proc.communicate(timeout=60)
    assert proc.returncode == -signal.SIGKILL
    return proc


def test_a_grader_killed_while_timing_leaves_the_lock_free(kit, tmp_path):
    """flock goes with the grader's descriptor, which the driver does not inherit: kill -9 while a
    run is timed frees the lock for the next grader at once."""
    lock = tmp_path / "machine.lock"
    proc = _killed_while_timing(kit, tmp_path, lock)
    fd = os.open(lock, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)      # BlockingIOError if anything kept it
    finally:
        os.close(fd)


def _symlink(path: Path) -> None:
    (path.parent / "target").write_text("keep\n")
    path.symlink_to(path.parent / "target")


@pytest.mark.parametrize("kind, make, why", [
    ("a symbolic link", _symlink, "a symbolic link, which the lock never follows"),
    ("a folder", Path.mkdir, "a folder"),
    ("a fifo", os.mkfifo, "not a regular file"),
    ("in no folder", None, "its folder does not exist"),
])
def test_a_lock_file_that_cannot_be_used_is_said_once_and_grading_goes_on(kit, tmp_path, kind, make, why):
    """A lock planted as a link, a folder or a FIFO (whose open would block), or in a folder that is
    not there: one warning naming the file and why, then the grader's own lock, never a traceback."""
    lock = tmp_path / "planted" / "machine.lock"
    if make:
        lock.parent.mkdir()
        make(lock)
    subs = _class(tmp_path / "subs", ["ann", "ben", "cat"], 0)
    done = _grade(kit, subs, tmp_path / "out", lock, "-j", "2", capture_output=True, timeout=300)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    said = [line for line in done.stderr.splitlines() if "timing lock" in line]
    assert said == [f"mmgrade: warning: {lock}: cannot use the machine-wide timing lock ({why}); runs are timed "
                    "one at a time within this grader only, so another grader on this machine may time beside "
                    f"them; set {ENV} to a file every grader can open"], done.stderr
    assert len(_spans(tmp_path / "out")) == 3
    if kind == "a symbolic link":
        assert (lock.parent / "target").read_text() == "keep\n"


@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("setpriv"), reason="needs root to act as another user")
def test_another_users_private_lock_file_is_said_and_not_waited_for():
    """A lock file another user created 0600 in the sticky /tmp cannot be opened: the warning names it."""
    shared = Path(tempfile.mkdtemp(prefix="mmgrade-lock-test-", dir="/tmp"))
    try:
        shared.chmod(0o1777)
        lock = shared / "machine.lock"
        lock.touch(mode=0o600)
        lock.chmod(0o600)
        done = run_python("-c", "import sys\nfrom grader.timinglock import MachineLock\n"
                          "m = MachineLock(sys.argv[1], print, lambda: False)\nm.check()\n"
                          "with m.held():\n    print('ran')\n", lock, runner=_as_nobody,
                          capture_output=True, text=True, timeout=60)
        assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
        assert done.stdout.splitlines() == [
            f"warning: {lock}: cannot use the machine-wide timing lock (Permission denied: this user cannot "
            "open it, e.g. another user's file of mode 0600); runs are timed one at a time within this grader "
            f"only, so another grader on this machine may time beside them; set {ENV} to a file every grader "
            "can open", "ran"]
    finally:
        shutil.rmtree(shared)


def _as_nobody(argv, **kwargs):
    return subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", *argv], **kwargs)


def _waits(first: MachineLock, cpu_first, second: MachineLock, cpu_second) -> bool:
    """Whether SECOND's run on CPU_SECOND waits while FIRST's on CPU_FIRST is timed.  A second that
    waits says so through its notice before it is let in: that is what is observed, no clock."""
    said = threading.Event()
    second.notice = lambda line: said.set()
    entered = threading.Event()

    def run():
        with second.held(cpu_second):
            entered.set()
    with first.held(cpu_first):
        thread = threading.Thread(target=run)
        thread.start()
        while not (said.is_set() or entered.is_set()):
            time.sleep(0.01)
        waited = said.is_set() and not entered.is_set()
    thread.join()
    assert entered.is_set()
    return waited


@pytest.mark.parametrize("cpu_first, cpu_second, waits", [
    (None, None, True), (None, 0, True), (0, None, True), (0, 0, True), (0, 1, False),
])
def test_serialized_and_pinned_runs_of_two_graders(tmp_path, cpu_first, cpu_second, waits):
    """A serialized run (cpu None) excludes every other run; pinned runs exclude only the same CPU's."""
    lock = tmp_path / "machine.lock"
    first, second = (MachineLock(lock, print, lambda: False) for _ in range(2))
    assert _waits(first, cpu_first, second, cpu_second) == waits


def test_a_stopping_grader_gives_up_waiting(tmp_path):
    """Ctrl-C must not wait for another grader's run: a waiter gives up when the sandbox stops."""
    lock = tmp_path / "machine.lock"
    stop = threading.Event()
    first = MachineLock(lock, print, lambda: False)
    said = threading.Event()
    second = MachineLock(lock, lambda line: said.set(), stop.is_set)
    def run():
        with second.held():
            pass
    with first.held():
        thread = threading.Thread(target=run)
        thread.start()
        said.wait()
        stop.set()
        thread.join()       # returns while FIRST still holds the lock
    assert not second.fallen_back


def test_a_holder_killed_with_sigkill_is_never_named_as_the_holder(kit, tmp_path):
    """A grader killed with kill -9 while timing leaves 'pid N, a run since ...' in the file, which
    only a serialized run's next signing overwrites; while a pinned run (which signs FILE.cpuN, not
    FILE) held the file, a waiting grader named the dead pid as the one timing a run."""
    lock = tmp_path / "machine.lock"
    killed = _killed_while_timing(kit, tmp_path, lock)
    assert lock.read_text().startswith(f"pid {killed.pid}, ")      # what the dead holder left
    pinned = MachineLock(lock, print, lambda: False)
    with pinned.held(0):             # a pinned run: FILE shared, FILE.cpu0 exclusive and signed
        waiter = _started(kit, _class(tmp_path / "subs", ["ann"], 0), tmp_path / "out", lock)
        line = _note(waiter)
    _, err = waiter.communicate(timeout=300)
    assert waiter.returncode == 0 and "Traceback" not in err, err
    assert f"pid {killed.pid}" not in line, line
    assert line == (f"mmgrade: note: {NOTE} {lock}: another mmgrade (its pid not recorded) is timing a driver "
                    "run on this machine; each run here starts when the one before it ends")

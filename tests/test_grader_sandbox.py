"""grader.sandbox: what the sandbox actually prevents here, tried for real."""
import os
import shutil
import tempfile
import time
from pathlib import Path

import pytest

from grader.policy import load_policy
from grader.sandbox import ISOLATING, Mount, SandboxError, allow_runs, kill_all, probe, run, unsafe_sandbox


@pytest.fixture(scope="module")
def limits(kit):
    return load_policy(kit).limits


@pytest.fixture(scope="module")
def sandbox():
    return probe()


@pytest.fixture
def folder():
    """A folder the sandbox's uid can reach (pytest's tmp_path lives under a 0700 parent)."""
    path = Path(tempfile.mkdtemp(prefix="mmgrade-test-"))
    path.chmod(0o755)
    yield path
    shutil.rmtree(path, ignore_errors=True)


def _shell(sandbox, limits, folder, script, wall=20, writable=False):
    folder.chmod(0o755)
    sandbox.prepare(folder, 0, writable=writable)
    mount = Mount(folder, "/sub", writable=writable)
    return run(sandbox.command(["sh", "-c", script], [mount], mount, limits), wall, 8192)


def test_this_machine_gets_every_protection(sandbox):
    """Root with bubblewrap installed (make test-deps): all layers must be active here."""
    assert set(sandbox.protections) >= {"unprivileged_user", "no_network", "private_tmp", "read_only_fs",
                                        "pid_namespace", "resource_limits", "wall_clock_kill"}


def test_runs_unprivileged_without_capabilities(sandbox, limits, folder):
    done = _shell(sandbox, limits, folder, "id -u; grep CapEff /proc/self/status")
    uid, caps = done.stdout.split("\n")[:2]
    assert int(uid) != 0 and caps.split()[1] == "0000000000000000"


def test_no_network_and_private_tmp(sandbox, limits, folder):
    marker = f"/tmp/mmgrade-sandbox-{os.getpid()}"
    done = _shell(sandbox, limits, folder,
                  f"cat /proc/net/dev | tail -n +3 | cut -d: -f1; touch {marker} && echo made; ls /work /root 2>&1 | head -2")
    assert done.stdout.split()[0] == "lo" and "eth" not in done.stdout
    assert "made" in done.stdout and not os.path.exists(marker)
    assert "No such file" in done.stdout


def test_no_nested_user_namespaces(sandbox, limits, folder):
    done = _shell(sandbox, limits, folder, "unshare --user --map-root-user true && echo NESTED || echo denied")
    assert "denied" in done.stdout and "NESTED" not in done.stdout


def test_read_only_everywhere_but_tmp(sandbox, limits, folder):
    (folder / "kept").write_text("original")
    done = _shell(sandbox, limits, folder,
                  "echo x > /sub/kept || echo denied-sub; touch /usr/evil || echo denied-usr")
    assert "denied-sub" in done.stdout and "denied-usr" in done.stdout
    assert (folder / "kept").read_text() == "original"


def test_resource_limits_are_applied(sandbox, limits, folder):
    done = _shell(sandbox, limits, folder, "cat /proc/self/limits; "
                  "head -c 3000000 /dev/zero > /tmp/big; echo size $(stat -c %s /tmp/big)")
    soft = {line[:26].strip(): line[26:].split()[0] for line in done.stdout.splitlines()[1:] if len(line) > 26}
    assert int(soft["Max address space"]) == limits.memory_bytes
    assert int(soft["Max file size"]) == limits.file_size_bytes
    assert int(soft["Max processes"]) == limits.processes
    assert int(soft["Max cpu time"]) == limits.cpu_seconds
    assert soft["Max core file size"] == "0"
    assert f"size {limits.file_size_bytes}" in done.stdout


def test_wall_clock_kills_the_whole_tree(sandbox, limits, folder):
    start = time.monotonic()
    done = _shell(sandbox, limits, folder, "(sleep 30; echo late) & (sh -c 'sleep 30' &) ; sleep 30", wall=1.5)
    assert done.timed_out and done.returncode is None
    assert time.monotonic() - start < 10
    assert "late" not in done.stdout


def test_a_run_started_after_an_interrupt_is_killed_at_once():
    """kill_all() on Ctrl-C also stops what a worker thread starts just after it (its next
    step), so the grader exits without waiting out that step's wall clock."""
    kill_all()
    try:
        start = time.monotonic()
        done = run(["sh", "-c", "sleep 30; echo late"], wall_clock=60, keep=1000)
        assert time.monotonic() - start < 10 and "late" not in done.stdout
        assert done.returncode == -9
    finally:
        allow_runs()
    done = run(["sh", "-c", "echo on time"], wall_clock=60, keep=1000)
    assert done.returncode == 0 and "on time" in done.stdout


FORK_BOMB = """
import os, time
made = 0
for _ in range(500):
    try:
        if os.fork() == 0:
            time.sleep(5)
            os._exit(0)
        made += 1
    except OSError:
        break
print("forked", made)
"""


def test_fork_bomb_is_contained(sandbox, limits, folder):
    (folder / "bomb.py").write_text(FORK_BOMB)
    done = _shell(sandbox, limits, folder, "python3 /sub/bomb.py", wall=30)
    made = int(done.stdout.split()[-1])
    assert 0 < made < limits.processes


def test_output_is_truncated_and_never_blocks(sandbox, limits, folder):
    done = _shell(sandbox, limits, folder, "head -c 5000000 /dev/zero | tr '\\0' x; echo done >&2")
    assert "truncated" in done.stdout and len(done.stdout) < 9000 and "done" in done.stderr


def test_without_tools_it_refuses_unless_unsafe(tmp_path):
    empty = str(tmp_path)
    if os.geteuid() == 0:
        with pytest.raises(SandboxError, match="--unsafe"):
            probe(path=empty)
    weak = probe(unsafe=True, path=empty)
    assert not any(p in ISOLATING for p in weak.protections) or os.geteuid() != 0
    assert "wall_clock_kill" in unsafe_sandbox().protections


def test_a_failing_sandbox_is_recognised_as_such(sandbox, limits, folder):
    from grader.sandbox import sandbox_failed
    missing = Mount(folder / "does-not-exist", "/sub")
    done = run(sandbox.command(["true"], [missing], missing, limits), 20, 4096)
    assert sandbox_failed(done)
    # The driver's children write into the driver's capture pipes, never to its stderr, so a
    # tool prefix there can only come from the tools; an ordinary failure is not theirs.
    assert not sandbox_failed(_shell(sandbox, limits, folder, "echo 'mm.c: no' >&2; exit 1"))


def test_pinned_runs_stay_on_their_cpu(sandbox, limits, folder):
    mount = Mount(folder, "/sub")
    sandbox.prepare(folder, 0, writable=False)
    cmd = sandbox.command(["grep", "Cpus_allowed_list", "/proc/self/status"], [mount], mount, limits, cpu=0)
    assert run(cmd, 20, 4096).stdout.split()[-1] == "0"


def test_pinned_runs_use_the_cpus_of_the_affinity_mask(monkeypatch):
    """Under `taskset -c 1` runs were pinned to CPU 0 (slot % count taken as a CPU number)."""
    from types import SimpleNamespace
    from grader import grade
    monkeypatch.setattr(grade.os, "sched_getaffinity", lambda pid: {5, 3})
    pinned = []
    monkeypatch.setattr(grade, "run_driver", lambda *args: pinned.append(args[-1]))
    timing = SimpleNamespace(serialize=False, pin=True)
    ctx = SimpleNamespace(policy=SimpleNamespace(timing=timing), traces_dir=None, traces=(), sandbox=None, schema=None)
    grader = grade._Grader(ctx, jobs=3)
    for slot in range(3):
        grader._run(Path("."), Path("driver"), slot)
    assert pinned == [3, 5, 3]

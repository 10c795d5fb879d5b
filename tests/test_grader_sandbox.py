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


def _without(sandbox, tool):
    """SANDBOX as on a machine where TOOL (bwrap or setpriv) is missing or failed its probe."""
    import dataclasses
    return dataclasses.replace(sandbox, **{tool: None})


def _status(done):
    return dict(line.split(":\t") for line in done.stdout.splitlines() if ":\t" in line)


@pytest.mark.parametrize("missing", [None, "bwrap", "setpriv"])
@pytest.mark.parametrize("build", [False, True], ids=["run", "build"])
def test_each_layer_alone_leaves_no_capability_and_no_new_privileges(sandbox, limits, folder, missing, build):
    """probe() drops a tool that fails, so each layer must hold on its own: both had dropped every
    capability and set no_new_privs, and a flag left out of one went unnoticed."""
    layers = _without(sandbox, missing) if missing else sandbox
    layers.prepare(folder, 0, writable=build)
    mount = Mount(folder, "/sub", writable=build)
    done = run(layers.command(["grep", "-E", "^(Cap|NoNewPrivs)", "/proc/self/status"], [mount], mount, limits,
                              build=build), 20, 8192)
    status = _status(done)
    assert {key for key in status if key.startswith("Cap")} == {"CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"}
    assert all(int(value, 16) == 0 for key, value in status.items() if key.startswith("Cap")), status
    assert status["NoNewPrivs"] == "1", status


def test_a_build_is_another_uid_and_holds_no_group_of_the_traces(sandbox, limits, folder):
    """Without bwrap the traces' copy is kept from builds by its group alone (TRACES_GID)."""
    from grader.sandbox import TRACES_GID
    plain = _without(sandbox, "bwrap")
    ids = {}
    for build in (False, True):
        plain.prepare(folder, 0, writable=build)
        mount = Mount(folder, "/sub", writable=build)
        ids[build] = run(plain.command(["sh", "-c", "id -u; id -G"], [mount], mount, limits, build=build),
                         20, 4096).stdout.split("\n")
    assert str(TRACES_GID) in ids[False][1].split() and str(TRACES_GID) not in ids[True][1].split(), ids
    assert ids[False][0] != ids[True][0], ids        # a run cannot change what its build made


def test_the_graders_environment_stays_outside(sandbox, limits, folder, monkeypatch):
    monkeypatch.setenv("MMGRADE_TEST_SECRET", "token")
    for layers in (sandbox, _without(sandbox, "bwrap")):
        done = _shell(layers, limits, folder, "env")
        assert "MMGRADE_TEST_SECRET" not in done.stdout and "PATH=/usr/bin:/bin" in done.stdout


def test_a_read_only_mount_is_read_only_without_setpriv(sandbox, limits, folder):
    """Without setpriv the run is the grader's own uid, which owns the files: only bwrap's mount
    keeps them from being changed."""
    (folder / "kept").write_text("original")
    done = _shell(_without(sandbox, "setpriv"), limits, folder, "echo x > /sub/kept || echo denied")
    assert "denied" in done.stdout and (folder / "kept").read_text() == "original"


def test_the_private_tmp_is_small_and_its_own_session(sandbox, limits, folder):
    """/tmp is memory: 70 files of 1 MB (each within the file-size limit) fill its 64 MB. The run is
    its own session (no TIOCSTI into the grader's terminal): session 0 is one outside the namespace."""
    done = _shell(sandbox, limits, folder,
                  "i=0; while [ $i -lt 70 ]; do head -c 1000000 /dev/zero > /tmp/f$i || break; i=$((i+1)); done; "
                  "echo wrote $i; cut -d' ' -f6 /proc/self/stat", wall=60)
    wrote, session = done.stdout.split()[-2:]
    assert int(wrote) < 70 and session != "0", done


def test_a_folder_is_the_builds_alone_then_read_only_to_its_run(sandbox, folder):
    """Build: the slot's build uid only (no other student's build reads it). Run: read by the run's
    group, written by no one but the grader."""
    (folder / "build").mkdir()
    (folder / "build" / "mdriver").write_text("#!")
    (folder / "build" / "mdriver").chmod(0o755)
    (folder / "mm.c").write_text("int x;")
    modes = {}
    for build in (True, False):
        sandbox.prepare(folder, 0, writable=build)
        modes[build] = {p.name: p.stat().st_mode & 0o777 for p in (folder, folder / "build" / "mdriver", folder / "mm.c")}
    assert set(modes[True].values()) <= {0o700, 0o600}, modes
    assert modes[False] == {folder.name: 0o750, "mdriver": 0o750, "mm.c": 0o640}, modes


def test_preparing_a_folder_never_follows_a_link_out_of_it(sandbox, folder, tmp_path):
    """A build may leave mm.c -> /etc/shadow: its owner and mode are not the build's to change."""
    outside = tmp_path / "secret"
    outside.write_text("s")
    outside.chmod(0o600)
    (folder / "link").symlink_to(outside)
    for build in (True, False):
        sandbox.prepare(folder, 0, writable=build)
        assert outside.stat().st_uid == os.geteuid() and outside.stat().st_mode & 0o777 == 0o600


def test_a_sandbox_tools_prefix_on_a_run_that_succeeded_is_no_failure():
    from grader.sandbox import RunResult, sandbox_failed
    assert not sandbox_failed(RunResult(0, "", "bwrap: a warning", False, 1.0))
    assert not sandbox_failed(RunResult(None, "", "bwrap: a warning", True, 1.0))    # timed out: the run's
    assert sandbox_failed(RunResult(1, "", "bwrap: Creating new namespace failed", False, 1.0))


def test_only_what_any_uid_can_reach_is_exposed_to_a_build_without_bwrap(sandbox, folder):
    """The batch's folder is checked for what a build could read: a 0644 file under a 0700 folder is
    out of reach, and with bwrap nothing outside the mounts is seen at all."""
    (folder / "open").mkdir()
    (folder / "shut").mkdir(mode=0o700)
    for place in ("open", "shut"):
        (folder / place / "answers.c").write_text("x")
        (folder / place / "answers.c").chmod(0o644)
    paths = [folder / "open" / "answers.c", folder / "shut" / "answers.c"]
    assert _without(sandbox, "bwrap").exposed(paths) == [folder / "open" / "answers.c"]
    assert sandbox.exposed(paths) == [] and _without(sandbox, "setpriv").exposed(paths) == []


def test_the_wall_clock_kills_the_tree_without_bwrap_too(folder):
    """Without bwrap's --die-with-parent, only killing the process group takes the children down."""
    late = folder / "late"
    done = run(unsafe_sandbox().command(["sh", "-c", f"(sleep 2; touch {late}) & sleep 30"], [], Mount(folder, "/sub"),
                                        load_policy(Path(__file__).resolve().parent.parent).limits), 1, 4096)
    time.sleep(3)
    assert done.timed_out and not late.exists()


def test_a_bwrap_that_fails_its_trial_is_not_used(tmp_path):
    """A bwrap that cannot make namespaces here (a container without user namespaces) gives none."""
    for tool in ("setpriv", "prlimit"):
        (tmp_path / tool).symlink_to(shutil.which(tool))
    (tmp_path / "bwrap").write_text("#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n")
    (tmp_path / "bwrap").chmod(0o755)
    found = probe(unsafe=True, path=str(tmp_path))
    assert found.bwrap is None and "no_network" not in found.protections and "read_only_fs" not in found.protections


def test_the_traces_copy_is_kept_from_builds_by_its_group(sandbox, folder):
    from grader.sandbox import TRACES_GID
    (folder / "short.rep").write_text("a 0 8\n")
    sandbox.prepare_traces(folder)
    trace = (folder / "short.rep").stat()
    assert trace.st_gid == TRACES_GID and trace.st_mode & 0o777 == 0o640


def test_no_core_file_whatever_the_grader_allows(sandbox, limits, folder):
    """A crash's core file is the run's memory written out: none, even when the grader's shell allows them."""
    import resource
    soft, hard = resource.getrlimit(resource.RLIMIT_CORE)
    if hard == 0:
        pytest.skip("core files are off for the grader already")
    resource.setrlimit(resource.RLIMIT_CORE, (hard, hard))
    try:
        done = _shell(sandbox, limits, folder, "grep 'Max core' /proc/self/limits")
    finally:
        resource.setrlimit(resource.RLIMIT_CORE, (soft, hard))
    assert done.stdout.split()[4] == "0", done.stdout

"""mmtrace record and the processes of the command it records: Ctrl-C, SIGTERM and --timeout
reaching every one of them, programs started out of the recorder's reach (an environment
without it), daemons that leave the process group, and a killed recording's log folder."""
from __future__ import annotations

import os
import signal
import subprocess

import pytest

from grader_fixtures.helpers import run_python
from mmtrace.linter import lint, read_trace
from record_common import KNOWN, compile_program, gone, kill_started, mmtrace, recipe_for, wait_for


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


@pytest.mark.parametrize("how", ["ctrl-c", "kill"])
def test_an_interrupted_recording_keeps_what_it_recorded(tmp_path, how):
    """Ctrl-C (SIGINT to the terminal's process group) ended mmtrace with 'aborted' and no
    trace; a SIGTERM to mmtrace alone lost the trace and left the program running."""
    exe = compile_program(tmp_path, "waits", WAITS)
    started, out = tmp_path / "started", tmp_path / "waits.rep"
    proc = run_python("-m", "mmtrace", "record", "-o", out, "--", exe, started,
                      runner=subprocess.Popen, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                      text=True, start_new_session=True,
                      preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    pid = int(wait_for(started))
    try:
        if how == "ctrl-c":
            os.killpg(proc.pid, signal.SIGINT)
        else:
            os.kill(proc.pid, signal.SIGTERM)
        _, err = proc.communicate(timeout=30)
        assert gone(pid)
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


# mmtrace record with a parent slow to look at its new command (as under load): a signal then came
# before its handlers were set
SLOW_START = ("import sys, time\nfrom mmtrace import stragglers\nfrom mmtrace.cli import main\n"
              "real = stragglers.start_time\n"
              "stragglers.start_time = lambda pid: (time.sleep(3), real(pid))[1]\n"
              "main(sys.argv[1:], prog_name='mmtrace')\n")


def test_a_signal_while_the_command_starts_is_passed_on(tmp_path):
    """The handlers that pass a SIGTERM on were set only after the command had started: one that
    came in between ended mmtrace with no trace and left the program running."""
    exe = compile_program(tmp_path, "waits", WAITS)
    started, out = tmp_path / "started", tmp_path / "waits.rep"
    proc = run_python("-c", SLOW_START, "record", "-o", out, "--", exe, started,
                      runner=subprocess.Popen, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                      text=True, start_new_session=True)
    pid = int(wait_for(started))
    try:
        os.kill(proc.pid, signal.SIGTERM)           # while mmtrace is still in start_time
        _, err = proc.communicate(timeout=30)
        assert gone(pid)
    finally:
        kill_started(started)
    assert proc.returncode == 1 and "stopped by SIGTERM" in err, err
    assert [s for k, _, s in read_trace(out).ops() if k == "a"][:300] == list(range(100, 400))

def test_a_timeout_stops_every_process_of_the_command(tmp_path):
    """--timeout killed only the command (here a shell): the program it ran went on, logging
    into a deleted file, after mmtrace had exited."""
    exe = compile_program(tmp_path, "waits", WAITS)
    started, out = tmp_path / "started", tmp_path / "waits.rep"
    try:
        done = mmtrace("record", "--timeout", "2", "-o", str(out), "--", "sh", "-c",
                    f"{exe} {started}; true")
        pid = int(wait_for(started, 1))
        assert gone(pid)
    finally:
        kill_started(started)
    assert done.returncode == 1
    assert "sh timed out after 2 s" in done.stderr
    assert [s for k, _, s in read_trace(out).ops() if k == "a"][:300] == list(range(100, 400))


LAUNCHES = r"""
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
int main(int argc, char **argv)
{
    char *none[] = {0}, *args[] = {argv[1], 0};
    for (int i = 0; i < 3; i++) free(malloc(40));
    if (execle("/no/such/program", "x", (char *)0, none) == 0) return 3;   /* fails: no note */
    if (strcmp(argv[2], "system") == 0 || strcmp(argv[2], "popen") == 0) {
        unsetenv("LD_PRELOAD");                   /* the shell libc starts inherits this */
        if (argv[2][0] == 's') return system(argv[1]) == 0 ? 0 : 2;
        FILE *f = popen(argv[1], "r");
        char line[256];
        while (f && fgets(line, sizeof line, f))  /* read it all: a closed pipe kills the writer */
            ;
        return f && pclose(f) == 0 ? 0 : 2;
    }
    if (strcmp(argv[2], "spawn") == 0) {
        pid_t kid;
        if (posix_spawn(&kid, argv[1], 0, 0, args, none) != 0) return 2;
        return waitpid(kid, 0, 0) == kid ? 0 : 2;
    }
    execle(argv[1], argv[1], (char *)0, none);
    return 1;
}
"""


@pytest.mark.parametrize("how", ["exec", "spawn", "system", "popen"])
def test_a_program_started_without_the_recorder_s_environment_is_reported(tmp_path, how):
    """`mmtrace record -- env -i ./prog`: env cleared LD_PRELOAD, ./prog ran unrecorded, and
    env's own few mallocs were written as the trace, exit 0, with nothing said.  system() and
    popen() after unsetenv("LD_PRELOAD") went unseen too: libc starts their shell itself."""
    launch, exe = compile_program(tmp_path, "launch", LAUNCHES), compile_program(tmp_path, "known", KNOWN)
    out = tmp_path / "x.rep"
    done = mmtrace("record", "-o", str(out), "--", str(launch), str(exe), how)
    assert done.returncode == 1, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"mmtrace: record: {launch} (pid "), lines
    assert f"started {exe} without the recorder in its environment" in lines[0]
    assert f"so {exe} ran unrecorded; {out} holds pid " in lines[0]
    assert lines[0].endswith("(--allow-unrecorded: keep such a trace, exit 0)")
    ops = [(k, s) for k, _, s in read_trace(out).ops()]
    assert ops[:6] == [("a", 40), ("f", 0)] * 3 and (len(ops) == 6 or how == "popen")  # popen's FILE
    done = mmtrace("record", "--allow-unrecorded", "-o", str(out), "--", str(launch), str(exe), how)
    assert done.returncode == 0 and not done.stderr, done.stderr
    assert "1 program(s) ran unrecorded" in done.stdout


def test_env_i_is_reported_and_an_env_that_keeps_the_recorder_is_not(tmp_path):
    exe = compile_program(tmp_path, "known", KNOWN)
    out = tmp_path / "x.rep"
    done = mmtrace("record", "-o", str(out), "--", "env", "-i", str(exe))
    assert done.returncode in (1, 2)          # 2: env itself allocated nothing
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and f"started {exe} without the recorder" in lines[0], lines
    done = mmtrace("record", "-o", str(out), "--", "env", "X=1", str(exe))
    assert done.returncode == 0 and not done.stderr, done.stderr
    assert "running 2 programs (exec)" in done.stdout and "unrecorded" not in done.stdout



SPAWNS = r"""
#include <spawn.h>
#include <stdlib.h>
#include <sys/wait.h>
extern char **environ;
int main(int argc, char **argv)
{
    pid_t kid;
    char *args[] = {argv[1], 0};
    for (int i = 0; i < 3; i++) free(malloc(40));
    if (posix_spawnp(&kid, argv[1], 0, 0, args, environ) != 0) return 2;
    return waitpid(kid, 0, 0) == kid ? 0 : 2;
}
"""


def _out_of_reach(tmp_path, how: str):
    """A program the loader will not preload into: statically linked, or setuid to another user."""
    src = tmp_path / "prog.c"
    src.write_text("#include <stdlib.h>\nint main(void) { for (int i = 0; i < 50; i++) "
                   "free(malloc(100)); return 0; }\n")
    exe = tmp_path / "prog"
    if subprocess.run(["cc", *(["-static"] if how == "static" else []), "-o", str(exe), str(src)],
                      capture_output=True).returncode != 0:
        pytest.skip("no static C library here")
    if how == "setuid":
        if os.geteuid() != 0 or os.statvfs(tmp_path).f_flag & os.ST_NOSUID:
            pytest.skip("a setuid program to another user needs root and a folder without nosuid")
        os.chown(exe, 65534, -1)
        os.chmod(exe, 0o4755)
    return exe


@pytest.mark.parametrize("how, cause", [
    ("static", "it is statically linked: no loader preloads anything"),
    ("setuid", "it is setuid or setgid: the loader ignores LD_PRELOAD for it"),
])
@pytest.mark.parametrize("launcher", ["nice", "env-path", "spawn"])
def test_a_program_the_loader_will_not_preload_into_is_reported(tmp_path, how, cause, launcher):
    """`mmtrace record -- nice ./prog` with ./prog statically linked or setuid: the recorder never
    loaded into it, and nice's own few mallocs were written as the trace, exit 0, with nothing
    said.  Its environment still named the recorder, so no note was left either."""
    exe = _out_of_reach(tmp_path, how)
    command = {"nice": ["nice", str(exe)],                       # execvp of a path
               "env-path": ["env", f"PATH={tmp_path}", exe.name],  # execvp searching $PATH
               "spawn": [str(compile_program(tmp_path, "spawns", SPAWNS)), str(exe)],
               }[launcher]
    out = tmp_path / "x.rep"
    done = mmtrace("record", "-o", str(out), "--", *command)
    assert done.returncode == 1, done.stderr
    lines = done.stderr.strip().splitlines()
    named = exe if launcher != "env-path" else exe.name
    assert len(lines) == 1 and f"started {named}, which the recorder cannot reach ({cause}), so " \
        f"{named} ran unrecorded; {out} holds pid " in lines[0], lines
    assert not any(s == 100 for _, _, s in read_trace(out).ops())     # not prog's mallocs
    done = mmtrace("record", "-o", str(out), "--", "nice", "env", "X=1", "true")
    assert done.returncode in (0, 2) and "unrecorded" not in done.stderr + done.stdout

def test_suite_record_does_not_write_a_recording_of_the_wrong_program(tmp_path):
    launch, exe = compile_program(tmp_path, "launch", LAUNCHES), compile_program(tmp_path, "known", KNOWN)
    recipe = recipe_for(tmp_path, [str(launch), str(exe), "exec"])
    (tmp_path / "rec-py.rep").write_text("kept\n")
    done = mmtrace("suite", "--record", str(recipe))
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [
        f"mmtrace: record rec-py: {exe} ran unrecorded (its environment dropped the recorder); "
        "rec-py.rep left as it was"]
    assert (tmp_path / "rec-py.rep").read_text() == "kept\n"


def test_a_killed_recording_s_log_folder_is_removed_by_the_next(tmp_path):
    """kill -9 of `mmtrace record` left its log folder in $TMPDIR (every process's log) behind for
    good. The next recording removes it; never a live recording's folder, nor another user's."""
    exe = compile_program(tmp_path, "waits", WAITS)
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    env = {**os.environ, "TMPDIR": str(tmp)}
    programs = []

    def start(name: str) -> subprocess.Popen:
        proc = run_python("-m", "mmtrace", "record", "-o", tmp_path / f"{name}.rep", "--", exe,
                          tmp_path / name, env=env, runner=subprocess.Popen,
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        programs.append(int(wait_for(tmp_path / name)))
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
        known = compile_program(tmp_path, "known", KNOWN)
        quick = mmtrace("record", "-o", str(tmp_path / "q.rep"), "--", str(known), env=env)
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
    exe = compile_program(tmp_path, "daemon", DAEMON)
    started, out = tmp_path / "started", tmp_path / "d.rep"
    args = ["--timeout", "2"] if how == "timeout" else []
    more = ["quick"] if how == "quick" else []
    try:
        done = mmtrace("record", *args, "-o", str(out), "--", str(exe), str(started), *more,
                    timeout=60)
        pid = int(wait_for(started, 1))
        lines = done.stderr.strip().splitlines()
        if how == "timeout":
            assert done.returncode == 1 and gone(pid), done.stderr
            assert len(lines) == 1 and "timed out after 2 s" in lines[0], lines
            assert "still running" not in lines[0]
        else:
            assert done.returncode == 0 and not gone(pid, 0.5), done.stderr
            assert lines == [f"mmtrace: record: {exe} ok; 1 process(es) the command started "
                             f"still running, unrecorded from here (pids {pid})"]
    finally:
        kill_started(started)

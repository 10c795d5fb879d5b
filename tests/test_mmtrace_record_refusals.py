"""mmtrace record's refusals: a program it cannot record (static, setuid, leaving no op), a
command that cannot start (missing, not a program, an interpreter missing), a recorder that
cannot be built, an impossible --process, no room for its logs: each named for what it is, in
one line, before or instead of an empty trace."""
from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from mmtrace.linter import read_trace
from record_common import KNOWN, KNOWN_OPS, compile_program, mmtrace


def test_no_recording_says_whether_the_program_is_statically_linked(tmp_path):
    """Every program that allocated nothing was told 'a static binary cannot be recorded',
    /bin/true as much as a static one; a static one is now named as such, the others not."""
    quiet = compile_program(tmp_path, "quiet", "int main(void) { return 0; }\n")
    done = mmtrace("record", "-o", str(tmp_path / "q.rep"), "--", str(quiet))
    assert done.returncode == 2 and "made no allocation calls" in done.stderr
    assert "static binary" not in done.stderr and "is statically linked" not in done.stderr
    src = tmp_path / "static.c"
    src.write_text("#include <stdlib.h>\nint main(void) { free(malloc(10)); return 0; }\n")
    if subprocess.run(["cc", "-static", "-o", str(tmp_path / "static"), str(src)],
                      capture_output=True).returncode != 0:
        pytest.skip("no static C library here")
    done = mmtrace("record", "-o", str(tmp_path / "s.rep"), "--", str(tmp_path / "static"))
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        f"mmtrace: record: {tmp_path / 'static'} is statically linked: the recorder (LD_PRELOAD) "
        "cannot see its calls; nothing was recorded (ok)"]



def test_a_static_command_whose_child_is_recorded_is_said_to_be_unrecorded(tmp_path):
    """A statically linked command that execs a dynamic program: the program's log was written as
    the command's trace, exit 0, with nothing said of the command itself."""
    src = tmp_path / "wrap.c"
    src.write_text("#include <unistd.h>\nint main(int c, char **v) { execv(v[1], v + 1); return 127; }\n")
    if subprocess.run(["cc", "-static", "-o", str(tmp_path / "wrap"), str(src)],
                      capture_output=True).returncode != 0:
        pytest.skip("no static C library here")
    wrap, exe, out = tmp_path / "wrap", compile_program(tmp_path, "known", KNOWN), tmp_path / "x.rep"
    done = mmtrace("record", "-o", str(out), "--", str(wrap), str(exe))
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("mmtrace: record: mmtrace record (pid ") and (
        f"started {wrap}, which the recorder cannot reach (it is statically linked: no loader "
        f"preloads anything), so {wrap} ran unrecorded; {out} holds pid ") in lines[0], lines
    assert list(read_trace(out).ops()) == KNOWN_OPS              # what there is is the child's
    done = mmtrace("record", "--allow-unrecorded", "-o", str(out), "--", str(wrap), str(exe))
    assert done.returncode == 0 and not done.stderr

def test_no_recording_of_a_setuid_program_says_it_is_setuid(tmp_path):
    """A setuid program's loader ignores LD_PRELOAD: 'made no allocation calls the recorder saw'
    was said of one that allocated, with setuid among the guesses."""
    if os.geteuid() != 0 or os.statvfs(tmp_path).f_flag & os.ST_NOSUID:
        pytest.skip("a setuid program to another user needs root and a folder without nosuid")
    exe = compile_program(tmp_path, "known", KNOWN)
    os.chown(exe, 65534, -1)
    os.chmod(exe, 0o4755)
    done = mmtrace("record", "-o", str(tmp_path / "s.rep"), "--", str(exe))
    assert done.returncode == 2 and not (tmp_path / "s.rep").exists()
    assert done.stderr.strip().splitlines() == [
        f"mmtrace: record: {exe} is setuid or setgid: the loader ignores the recorder (LD_PRELOAD) "
        "for it; nothing was recorded (ok); record a copy of it without those bits"]
    os.chmod(exe, 0o755)                 # the same program without the bit is recorded
    assert mmtrace("record", "-o", str(tmp_path / "s.rep"), "--", str(exe)).returncode == 0

@pytest.mark.parametrize("options, said", [
    # --skip past the end, and --max-ops 1 (room for no alloc and its free), each wrote a trace
    # of 0 ops, exit 0, which the driver then scored
    (["--skip", "1000"], ["mmtrace: record: --skip 1000 is all of the "]),
    (["--max-ops", "1"], ["mmtrace: record: no op left to write (", "truncated at max ops"]),
])
def test_a_recording_that_leaves_no_op_is_refused_not_an_empty_trace(tmp_path, options, said):
    exe = compile_program(tmp_path, "known", KNOWN)
    out = tmp_path / "x.rep"
    done = mmtrace("record", *options, "-o", str(out), "--", str(exe))
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(said[0]) and all(s in lines[0] for s in said[1:])
    assert not out.exists()
    if options[0] == "--skip":      # a skip that leaves ops is a trace
        done = mmtrace("record", "--skip", "3", "-o", str(out), "--", str(exe))
        assert done.returncode == 0 and len(read_trace(out)) > 0


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
    done = mmtrace("record", "-o", str(tmp_path / "x.rep"), "--", "touch", str(ran), env=env)
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
    done = mmtrace("record", "-o", str(tmp_path / "x.rep"), "--", str(script))
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        f"mmtrace: record: cannot run {script}: its interpreter (#!/no/such/shell) is not there"]


def test_a_missing_command_is_one_line(tmp_path):
    done = mmtrace("record", "-o", str(tmp_path / "x.rep"), "--", str(tmp_path / "no-such-program"))
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        f"mmtrace: record: command not found: {tmp_path / 'no-such-program'}"]
    assert not (tmp_path / "x.rep").exists()


def test_a_file_that_is_not_a_program_is_one_line(tmp_path):
    """An executable file the kernel cannot run (no ELF, no #!) was a Python traceback."""
    junk = tmp_path / "junk"
    junk.write_bytes(bytes(range(256)) * 4)
    junk.chmod(0o755)
    done = mmtrace("record", "-o", str(tmp_path / "x.rep"), "--", str(junk))
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        f"mmtrace: record: cannot run {junk}: Exec format error"]
    assert not (tmp_path / "x.rep").exists()


def _odd_command(tmp: Path, kind: str) -> str:
    """A command that cannot be started, of KIND; the path given to record."""
    target = tmp / kind
    if kind == "folder":
        target.mkdir()
    elif kind == "not-executable":
        target.write_text("echo hi\n")
    elif kind == "dangling-link":
        target.symlink_to(tmp / "gone")
    elif kind.startswith("interpreter-"):
        interpreter = tmp / "interp"
        if kind == "interpreter-folder":
            interpreter.mkdir()
        else:
            interpreter.write_text("echo hi\n")         # there, without x
        target.write_text(f"#!{interpreter}\necho hi\n")
        target.chmod(0o755)
    elif kind == "missing-loader":          # a program whose PT_INTERP names no file
        exe = compile_program(tmp, "prog", "int main(void) { return 0; }\n")
        data = exe.read_bytes()
        loader = re.search(rb"/[^\0]*/ld-[^\0]+", data)[0]
        target.write_bytes(data.replace(loader, loader[:-1] + b"Z", 1))
        target.chmod(0o755)
    return str(target) if kind != "empty" else ""


@pytest.mark.parametrize("kind, said", [
    # each had been "permission denied" (the kernel's EACCES), the dangling link "command not found"
    ("folder", "cannot run {cmd}: it is a folder, not a program"),
    ("not-executable", "cannot run {cmd}: it is not executable (no x permission); chmod +x it"),
    ("dangling-link", "cannot run {cmd}: it is a symbolic link to {tmp}/gone, which is not there"),
    ("interpreter-folder", "cannot run {cmd}: its interpreter (#!{tmp}/interp) is a folder"),
    ("interpreter-not-executable", "cannot run {cmd}: its interpreter (#!{tmp}/interp) is not executable"),
    ("empty", "an empty command name: name the program to run"),
    # the kernel's ENOENT had been read as a missing #! interpreter: "its interpreter (\x7fELF...)"
    ("missing-loader", "cannot run {cmd}: the program loader it names is not there"),
])
def test_a_command_that_cannot_start_is_named_for_what_it_is(tmp_path, kind, said):
    cmd = _odd_command(tmp_path, kind)
    out = tmp_path / "x.rep"
    done = mmtrace("record", "-o", str(out), "--", cmd)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(
        "mmtrace: record: " + said.format(cmd=cmd, tmp=tmp_path)), done.stderr
    assert not out.exists()


@pytest.mark.parametrize("process", ["bogus", "0", "99999999"])
def test_an_impossible_process_is_refused_before_the_program_runs(tmp_path, process):
    ran = tmp_path / "ran"
    done = mmtrace("record", "--process", process, "-o", str(tmp_path / "x.rep"), "--",
                "sh", "-c", f"touch {ran}")
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("mmtrace: record: process ") and process in lines[0]
    assert not ran.exists() and not (tmp_path / "x.rep").exists()


@pytest.mark.parametrize("broken", ["mkdtemp", "gettempdir"])
def test_no_room_for_the_recorders_logs_is_one_line(tmp_path, monkeypatch, broken):
    """A temporary folder that is full (mkdtemp: ENOSPC) or that no candidate makes usable
    (gettempdir: 'No usable temporary directory found') had been a traceback before the
    command ran. Now it is one line, exit 2, and the command is not run."""
    import errno
    import tempfile
    from click.testing import CliRunner
    import mmtrace.cli as cli
    ran = tmp_path / "ran"

    def full(*args, **kw):
        raise (OSError(errno.ENOSPC, "No space left on device") if broken == "mkdtemp"
               else FileNotFoundError(errno.ENOENT, "No usable temporary directory found in ['/x']"))

    monkeypatch.setattr(tempfile, broken, full)
    done = CliRunner().invoke(cli.main, ["record", "-o", str(tmp_path / "k.rep"), "--", "touch", str(ran)])
    assert done.exit_code == 2, done.exception
    why = "No space left on device" if broken == "mkdtemp" else "No usable temporary directory found in ['/x']"
    assert done.output.splitlines() == [f"mmtrace: record: cannot make a folder for the recorder's logs ({why}); "
                                        "set TMPDIR to a folder with room; nothing was run"]
    assert not ran.exists() and not (tmp_path / "k.rep").exists()

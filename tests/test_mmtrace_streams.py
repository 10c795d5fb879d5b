"""Where mmtrace reads and writes: named pipes and devices given as traces, recipes or outputs,
standard output (full, closed, a closed pipe, a trace written to it), Ctrl-C while reading, and
the driver's limits on a trace's size (a gzip bomb, a file-size limit): one line or a quiet end,
never a hang or a traceback, and nothing already written lost."""
from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from grader_fixtures.helpers import run_python
from mmtrace.linter import read_trace
from mmtrace_common import KIT, mmtrace, one_line_error


def test_the_file_limit_is_the_drivers():
    """check --fix, gen and convert refuse a trace past TRACE_MAX_BYTES: it must be trace.h's."""
    from mmtrace.trace import TRACE_MAX_BYTES
    said = re.search(r"TRACE_MAX_BYTES = \(size_t\)(\d+) << (\d+);", (KIT / "driver" / "trace.h").read_text())
    assert said and int(said[1]) << int(said[2]) == TRACE_MAX_BYTES


# check --fix under a file limit of LIMIT bytes (the real one, 256 MiB, would take minutes to fill)
_UNDER_LIMIT = ("import sys\nimport mmtrace.trace\nmmtrace.trace.TRACE_MAX_BYTES = int(sys.argv[1])\n"
                "from mmtrace.cli import main\nmain(sys.argv[2:], prog_name='mmtrace')\n")


def test_check_fix_writes_no_copy_past_the_drivers_file_limit(tmp_path):
    """The frees --fix adds for never-freed blocks make the copy longer than the file: a file at
    the driver's limit had a copy past it written, which the driver refuses to read."""
    from mmtrace.linter import fixed, lint
    from mmtrace.trace import format_trace
    src = tmp_path / "open.rep"
    src.write_text("20000000\n3\n2\n1\na 0 8\na 1 8\n")
    copy = len(format_trace(fixed(lint(src))))
    assert copy > src.stat().st_size
    dest = tmp_path / "out.rep"
    dest.write_text("an earlier file\n")
    done = run_python("-c", _UNDER_LIMIT, str(copy - 1), "check", "--fix", str(src), "-o", str(dest),
                      capture_output=True, text=True, cwd=KIT)
    assert done.returncode == 1, done.stderr
    assert done.stderr.splitlines() == [f"{src}: cannot fix: the fixed copy would be {copy} bytes, more "
                                        f"than the {copy - 1} the driver reads; nothing written"]
    assert dest.read_text() == "an earlier file\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["open.rep", "out.rep"]     # no half-written copy
    done = run_python("-c", _UNDER_LIMIT, str(copy), "check", "--fix", str(src), "-o", str(dest),
                      capture_output=True, text=True, cwd=KIT)
    assert done.returncode == 0, done.stderr
    assert dest.stat().st_size == copy                 # exactly at the limit: the driver reads it


def test_a_fifo_or_a_device_never_hangs(tmp_path):
    fifo = tmp_path / "b.rep"
    os.mkfifo(fifo)                      # no one will ever write to it
    refused = f"{fifo}:0: cannot read: a named pipe (FIFO), not a trace file"
    one_line_error(mmtrace("stats", str(fifo), timeout=30), 2, refused)
    one_line_error(mmtrace("check", str(fifo), timeout=30), 2, refused)
    one_line_error(mmtrace("stats", "/dev/zero", timeout=30), 2, "/dev/zero:0: cannot read: a device, not a trace")


@pytest.mark.parametrize("args", [["gen", "binary", "-p", "pairs=10", "-o", "FIFO"],
                                  ["check", "--fix", "-o", "FIFO", "traces/classic-binary.rep"],
                                  ["convert", "traces/classic-binary.rep", "--to", "lab64", "-o", "FIFO"]],
                         ids=["gen", "check --fix", "convert"])
def test_an_output_fifo_no_one_reads_never_hangs(tmp_path, args):
    """-o a named pipe no one reads had waited for a reader forever; now one line, exit 2.
    One that is read gets the trace, as before (gen's, small enough for the pipe's buffer)."""
    fifo = tmp_path / "out.rep"
    os.mkfifo(fifo)
    argv = [str(fifo) if a == "FIFO" else a for a in args]
    one_line_error(mmtrace(*argv, timeout=30), 2, f"{fifo}: cannot write (a named pipe (FIFO) that no one is reading)")
    if args[0] != "gen":
        return
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)     # a reader there; the trace fits the pipe's buffer
    try:
        done = mmtrace(*argv, timeout=30)
        got = os.read(reader, 1 << 16)
    finally:
        os.close(reader)
    assert done.returncode == 0, done.stderr
    assert b"\na 0 64\n" in got


@pytest.mark.parametrize("command", ["list", "suite", "readme"])
def test_a_recipe_that_is_a_fifo_or_a_device_never_hangs(tmp_path, command):
    """`mmtrace list FIFO` had waited for a writer forever, `mmtrace suite /dev/zero` read forever."""
    fifo = tmp_path / "recipe.toml"
    os.mkfifo(fifo)                      # no one will ever write to it
    done = mmtrace(command, str(fifo), timeout=30)
    assert done.returncode == 2
    assert done.stderr.splitlines() == [f"mmtrace: {fifo}: cannot read: a named pipe (FIFO), not a recipe file"]
    done = mmtrace(command, "/dev/zero", timeout=30)
    assert done.returncode == 2
    assert done.stderr.splitlines() == ["mmtrace: /dev/zero: cannot read: a device, not a recipe file"]


def _interrupted_while_reading(*args: str) -> tuple[subprocess.CompletedProcess, str]:
    """`mmtrace ARGS`, where PIPE in ARGS is a shell's pipe that never ends (mmtrace waits on it),
    sent SIGINT once it waits; the run, and PIPE's path."""
    read_end, write_end = os.pipe()
    pipe = f"/dev/fd/{read_end}"
    argv = [sys.executable, "-m", "mmtrace", *[pipe if a == "PIPE" else a for a in args]]
    proc = subprocess.Popen(argv, cwd=KIT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            pass_fds=[read_end], env={**os.environ, "PYTHONPATH": str(KIT)},
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    os.close(read_end)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and "pipe_read" not in Path(f"/proc/{proc.pid}/wchan").read_text():
            time.sleep(0.05)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        os.close(write_end)
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return subprocess.CompletedProcess(argv, proc.returncode, out, err), pipe


@pytest.mark.parametrize("as_json", [True, False], ids=["json", "text"])
def test_ctrl_c_in_stats_keeps_the_files_measured(as_json):
    """Ctrl-C had been `mmtrace: aborted`, status 1, and `stats --json` printed nothing of the files
    already measured.  The second file here is a shell's pipe that never ends: stats waits on it."""
    ok = str(KIT / "traces" / "classic-binary.rep")
    done, pipe = _interrupted_while_reading("stats", *(["--json"] if as_json else []), ok, "PIPE")
    assert done.returncode == 130, done.stderr
    assert done.stderr.splitlines() == [f"mmtrace: stats: interrupted by SIGINT at {pipe}: 1 of 2 file(s) measured"
                                        + (", in the JSON above" if as_json else "")]
    if as_json:
        assert list(json.loads(done.stdout)) == [ok]
    else:
        assert done.stdout.startswith(ok)


@pytest.mark.parametrize("args", [["check", "PIPE"], ["convert", "PIPE", "--to", "lab64", "-o", "x.rep"]],
                         ids=lambda a: a[0])
def test_ctrl_c_is_one_line_and_status_130(args):
    """Ctrl-C had been an empty line, then `mmtrace: aborted`, status 1."""
    done, _ = _interrupted_while_reading(*args)
    assert done.returncode == 130 and done.stderr.splitlines() == [f"mmtrace: {args[0]}: interrupted by SIGINT"]


def test_a_named_fifo_is_refused_as_the_driver_refuses_it(tmp_path):
    """A named FIFO with a writer had been read and passed by `check`, which the driver refuses
    ('is a named pipe (FIFO), not a trace file'); a shell's pipe is still read, as by the driver."""
    fifo = tmp_path / "f.rep"
    os.mkfifo(fifo)
    writer = subprocess.Popen(["sh", "-c", f"cat {KIT}/traces/classic-binary.rep > {fifo}"])
    try:
        one_line_error(mmtrace("check", str(fifo), timeout=30), 2,
                        f"{fifo}:0: cannot read: a named pipe (FIFO), not a trace file")
    finally:
        writer.kill()
        writer.wait()
    piped = subprocess.run(["bash", "-c", f"{sys.executable} -m mmtrace check <(cat traces/classic-binary.rep)"],
                           cwd=KIT, capture_output=True, text=True, timeout=60,
                           env={**os.environ, "PYTHONPATH": str(KIT)})
    assert piped.returncode == 0, piped.stderr


WRITERS = [  # (argv after the interpreter, the name its one-line message starts with)
    (["-m", "mmtrace", "stats", "traces/fit-stress.rep"], "mmtrace"),
    (["-m", "mmtrace", "check", "README.md"], "mmtrace"),
    (["-m", "mmtrace", "list"], "mmtrace"),
    (["-m", "grader", "check", "mm.c"], "mmgrade"),
    (["tools/compare.py", "--help"], "Error"),
]


@pytest.mark.parametrize("unbuffered", ["1", ""], ids=["unbuffered", "buffered"])
@pytest.mark.parametrize("argv,name", WRITERS, ids=[" ".join(a[1:3]) for a, _ in WRITERS])
def test_a_full_stdout_is_one_line_not_a_traceback(argv, name, unbuffered):
    """`> /dev/full` had ended each in a traceback (OSError: No space left on device)."""
    env = {**os.environ, "PYTHONUNBUFFERED": unbuffered}
    with open("/dev/full", "w") as full:
        done = run_python(*argv, stdout=full, stderr=subprocess.PIPE, text=True, cwd=KIT, env=env, timeout=600)
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert done.stderr.splitlines()[-1] == f"{name}: cannot write to standard output: No space left on device"


@pytest.mark.parametrize("argv,name", WRITERS[2:3] + WRITERS[4:], ids=["mmtrace list", "compare --help"])
def test_a_closed_pipe_ends_quietly(argv, name):
    """As Unix tools do: `mmtrace list | head -1` says nothing about the pipe head closed."""
    r, w = os.pipe()
    os.close(r)
    try:
        done = run_python(*argv, stdout=w, stderr=subprocess.PIPE, text=True, cwd=KIT, timeout=600)
    finally:
        os.close(w)
    assert done.returncode == 1 and done.stderr == ""


@pytest.mark.parametrize("argv,name", WRITERS, ids=[" ".join(a[1:3]) for a, _ in WRITERS])
def test_a_closed_stdout_is_taken_as_dev_null(argv, name):
    """`mmtrace list >&-` had ended in a traceback (sys.stdout is None), status 1: as /dev/null now."""
    done = run_python(*argv, stdout=None, stderr=subprocess.PIPE, text=True, cwd=KIT, timeout=600,
                      preexec_fn=lambda: os.close(1))
    assert done.returncode == (1 if argv[-1] == "README.md" else 0) and "Traceback" not in done.stderr, done.stderr


@pytest.mark.parametrize("argv", [["gen", "binary", "-p", "pairs=10", "-o", "/dev/stdout"],
                                  ["check", "--fix", "-o", "/dev/stdout", "traces/classic-binary.rep"],
                                  ["convert", "traces/classic-binary.rep", "--to", "lab64", "-o", "/dev/stdout"]],
                         ids=["gen", "check --fix", "convert"])
def test_a_trace_written_to_a_closed_stdout_pipe_ends_quietly(argv):
    """`mmtrace gen ... -o /dev/stdout | head -2` (docs/traces.md writes traces so) had ended in
    `mmtrace: /dev/stdout: cannot write (Broken pipe)`, exit 2 (bad input); now as stdout's own
    writes: no message, exit 1."""
    r, w = os.pipe()
    os.close(r)
    try:
        done = run_python("-m", "mmtrace", *argv, stdout=w, stderr=subprocess.PIPE, text=True, cwd=KIT,
                          timeout=600)
    finally:
        os.close(w)
    assert (done.returncode, done.stderr) == (1, "")


def test_an_oserror_not_from_stdout_is_not_called_one():
    """Only a write to stdout is reported as such: the tagging is by where the write went."""
    code = ("import sys\nfrom mmtrace import oneline\n"
            "def boom():\n    raise OSError(28, 'No space left on device')\n"
            "oneline.stdout_guarded('x', boom)\n")
    done = run_python("-c", code, capture_output=True, text=True, cwd=KIT)
    assert done.returncode == 1 and "Traceback" in done.stderr and "cannot write to standard output" not in done.stderr


@pytest.mark.parametrize("argv", [
    ["gen", "binary", "-p", "pairs=20", "-o", "/dev/stdout"],
    ["convert", "traces/classic-binary.rep", "--to", "lab64", "-o", "/dev/stdout"],
    ["check", "--fix", "-o", "/dev/stdout", "LIE"],
], ids=["gen", "convert", "check-fix"])
def test_a_trace_written_to_stdout_is_the_whole_of_stdout(tmp_path, argv):
    """The summary line ('/dev/stdout: 40 ops, 20 ids') and check's report went to stdout after and
    before the trace, so `mmtrace gen ... -o /dev/stdout | ./mdriver -f /dev/stdin` read them as ops."""
    lie = tmp_path / "lie.rep"
    lie.write_text("20000\n1\n5\n1\na 0 8\nf 0\n")
    argv = [str(lie) if a == "LIE" else a for a in argv]
    done = mmtrace(*argv)
    assert "/dev/stdout" in done.stderr, done.stderr
    out = tmp_path / "out.rep"
    out.write_text(done.stdout)
    assert read_trace(out).header.ops >= 2                   # the linter's reader, as the driver reads it
    assert "/dev/stdout" not in done.stdout and "lie.rep" not in done.stdout


def test_a_gzip_bomb_is_refused_without_unpacking_it_whole(tmp_path):
    """1 GB of zeros (4 MB packed) took 2.0 GB in `mmtrace check` before it was refused: the reader
    stops at the driver's largest trace (TRACE_MAX_BYTES, 256 MiB), in the driver's words."""
    import zlib
    from mmtrace.trace import TRACE_MAX_BYTES
    bomb = tmp_path / "bomb.rep.gz"
    z = zlib.compressobj(1, zlib.DEFLATED, 31)
    with open(bomb, "wb") as f:
        for _ in range(1 << 10):
            f.write(z.compress(bytes(1 << 20)))
        f.write(z.flush())
    probe = ("import resource, subprocess, sys\n"
             "d = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
             "print(d.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
             "sys.stdout.write(d.stdout + d.stderr)\n")
    said = f"{bomb}:0: unpacks to more than {TRACE_MAX_BYTES} bytes: not a trace"
    for args in (["check", str(bomb)], ["stats", str(bomb)]):
        done = run_python("-c", probe, sys.executable, "-m", "mmtrace", *args,
                          capture_output=True, text=True, cwd=KIT, timeout=300)
        first, *rest = done.stdout.splitlines()
        rc, rss_kb = map(int, first.split())
        assert rc in (1, 2) and rest in ([said], [f"mmtrace: {said}"]), done.stdout
        assert rss_kb < (TRACE_MAX_BYTES >> 10) + (200 << 10), rss_kb
    big = tmp_path / "big.rep"
    with open(big, "wb") as f:
        f.truncate(TRACE_MAX_BYTES + 1)
    one_line_error(mmtrace("stats", str(big)), 2, f"{big}:0: more than {TRACE_MAX_BYTES} bytes: not a trace")


@pytest.mark.parametrize("argv", [
    ["gen", "syn", "--seed", "1", "-p", "allocs=20000"],
    ["convert", str(Path(__file__).resolve().parent.parent / "traces" / "tiny-flood.rep"),
     "--to", "lab64"],
])
def test_a_failed_write_leaves_the_earlier_file_as_it_was(tmp_path, argv):
    """A write cut short (here by a 64 KiB file-size limit, as a full disk would) left the
    first 64 KiB of the new trace where the earlier file had been."""
    import resource
    out = tmp_path / "t.rep"
    out.write_text("earlier\n")
    limit = lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (64 << 10, 64 << 10))
    done = run_python("-m", "mmtrace", *argv, "-o", out, capture_output=True, text=True,
                      preexec_fn=limit)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [f"mmtrace: {out}: cannot write (File too large)"]
    assert out.read_text() == "earlier\n"
    assert [p.name for p in tmp_path.iterdir()] == ["t.rep"]


@pytest.mark.parametrize("command", [["gen", "binary", "--seed", "1", "-p", "pairs=3"],
                                     ["convert", str(KIT / "traces" / "classic-binary.rep"), "--to", "lab64"]])
def test_o_dash_is_standard_output_as_the_drivers_json_dash(tmp_path, command):
    """`-o -` had written a file named '-' in the current folder, where `mdriver --json -` is
    standard output: now it is stdout too (as -o /dev/stdout), the summary on stderr."""
    done = mmtrace(*command, "-o", "-", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert list(tmp_path.iterdir()) == []
    assert done.stdout.splitlines()[-1].startswith(("f ", "a ", "r "))
    assert done.stderr.startswith("/dev/stdout: ")


def test_o_a_device_is_writable_for_a_user_who_cannot_write_dev(tmp_path, monkeypatch):
    """`mmtrace gen ... -o /dev/stdout | ./mdriver -f /dev/stdin`, as docs/traces.md shows it,
    was refused for every user but root: '/dev/stdout: cannot write: /dev is not writable',
    the folder checked as if the trace were written beside it there. A device or pipe is
    written directly, so it is its own permission that counts. (Run here as root: a user who
    cannot write /dev is what os.access says for it.)"""
    from click.testing import CliRunner
    import mmtrace.cli as cli
    real = os.access
    monkeypatch.setattr(cli.os, "access", lambda p, mode, **kw: False if str(p) == "/dev" else real(p, mode, **kw))
    done = CliRunner().invoke(cli.main, ["gen", "binary", "-p", "pairs=3", "-o", "/dev/null"])
    assert done.exit_code == 0, done.output
    assert done.output.startswith("/dev/null: ")
    done = CliRunner().invoke(cli.main, ["gen", "binary", "-p", "pairs=3", "-o", "/dev/new.rep"])
    assert done.exit_code == 2 and done.output == "mmtrace: /dev/new.rep: cannot write: /dev is not writable\n"

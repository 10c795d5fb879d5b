"""Ctrl-C, SIGTERM and SIGHUP stop a run, and lose nothing it has computed.

hangs.c never returns from a TRIGGER-byte request: a run over two honest traces,
then one with that request, then another honest one, is at its third trace until
the -T limit (a minute here).  The tests wait for the first two to be reported
(-V's progress lines) and for the third trace's allocator to be the driver's
child, then signal the driver: the two are reported as usual, the third is
neither a row nor a failure, the fourth never starts, and the JSON says so.
"""
from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import threading
import time
from pathlib import Path

import pytest

from driver_common import TRIGGER, broken, schema_validator, write_trace

HONEST = ["a 0 100", "a 1 200", "f 0", "f 1"]
WAIT = 60  # seconds any step may take on a busy machine before the test gives up


def suite(tmp: Path) -> list[Path]:
    """Two honest traces, the one hangs.c never finishes, one more honest trace."""
    return [write_trace(tmp, "one", HONEST, weight=1), write_trace(tmp, "two", HONEST, weight=1),
            write_trace(tmp, "stuck", [f"a 0 {TRIGGER}", "f 0"], weight=1),
            write_trace(tmp, "four", HONEST, weight=1)]


def children(pid: int) -> list[int]:
    try:
        return [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def default_stop_signals() -> None:
    """The stop signals as a shell in a terminal leaves them: a run started in the background by a
    script (`cmd &` ignores SIGINT) or under nohup (SIGHUP) passes them on ignored, and the driver
    keeps an ignored one ignored, by design.  Every driver these tests signal starts with this."""
    for sig in (signal.SIGHUP, signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, signal.SIG_DFL)


class Started:
    """mdriver running in the background; its stdout read line by line as it comes."""

    def __init__(self, argv: list[str], **popen):
        # a test that wants a stop signal ignored passes its own preexec_fn
        popen.setdefault("preexec_fn", default_stop_signals)
        self.proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                     errors="replace", **popen)
        self.lines: queue.Queue[str] = queue.Queue()
        self.seen: list[str] = []
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put("")

    def wait_for_line(self, fragment: str) -> None:
        end = time.monotonic() + WAIT
        while not any(fragment in line for line in self.seen):
            line = self.lines.get(timeout=max(0.1, end - time.monotonic()))
            assert line, f"mdriver ended before printing {fragment!r}:\n{''.join(self.seen)}"
            self.seen.append(line)

    def wait_for_stuck_child(self) -> int:
        """The child that has stayed the driver's for a while: the allocator stuck in the third trace."""
        end, first, since = time.monotonic() + WAIT, None, 0.0
        while time.monotonic() < end:
            now = children(self.proc.pid)
            if now and now[0] == first and time.monotonic() - since > 0.5:
                return first
            if not now or now[0] != first:
                first, since = (now[0] if now else None), time.monotonic()
            time.sleep(0.05)
        raise AssertionError("the third trace's child never appeared")

    def finish(self) -> tuple[int, str, str]:
        rc = self.proc.wait(timeout=WAIT)
        self.reader.join(timeout=WAIT)
        while True:
            line = self.lines.get_nowait() if not self.lines.empty() else ""
            if not line:
                break
            self.seen.append(line)
        return rc, "".join(self.seen), self.proc.stderr.read()


def interrupted_run(tmp: Path, sig: int, *extra: str, group: bool = False,
                    allocator: str = "hangs") -> tuple[int, str, str, int]:
    """Run hangs.c (or another allocator stuck on a TRIGGER-byte request) on suite(tmp), signal
    it (its whole process group: a terminal's Ctrl-C) in the third trace; its status, stdout,
    stderr and the stuck child's pid."""
    files = [a for t in suite(tmp) for a in ("-f", str(t))]
    d = Started([str(broken(allocator)), "-V", *files, *extra], start_new_session=group)
    try:
        d.wait_for_line("[2/4] two")
        child = d.wait_for_stuck_child()
        if group:
            os.killpg(d.proc.pid, sig)
        else:
            d.proc.send_signal(sig)
        rc, out, err = d.finish()
    finally:
        if d.proc.poll() is None:
            d.proc.kill()
    return rc, out, err, child


def rows(out: str) -> list[str]:
    """The names in the table's rows."""
    return [line.split()[1] for line in out.splitlines() if len(line.split()) > 2 and line.split()[0].isdigit()]


def assert_partial(rc: int, out: str, err: str, child: int, sig: int, name: str) -> None:
    assert rc == 128 + sig, out + err
    assert rows(out) == ["one", "two"], out
    for line in out.splitlines():
        if line.split()[:1] and line.split()[0].isdigit():
            assert line.split()[2] == "ok", line
    assert "partial: 2 of 4" in out and "2 ok,  0 failed" in out
    assert "Perf index = " not in out
    assert f"Perf index: none: the run was interrupted by {name} after 2 of 4 traces" in out
    last = err.strip().splitlines()[-1]
    assert last.startswith(f"mdriver: interrupted by {name} during trace 3 of 4 (") and "stuck.rep" in last, err
    assert "2 completed" in last
    # not blamed on the allocator: no failure, no signal named as its crash
    assert "crashed" not in out + err and "failed and score 0" not in out
    with pytest.raises(ProcessLookupError):  # the stuck child was killed and reaped
        os.kill(child, 0)


@pytest.mark.parametrize("sig,name", [(signal.SIGINT, "SIGINT"), (signal.SIGTERM, "SIGTERM"),
                                      (signal.SIGHUP, "SIGHUP")])
def test_a_signal_reports_the_completed_traces(tmp_path, sig, name):
    dest = tmp_path / "result.json"
    dest.write_text('{"an earlier": "result"}\n')
    rc, out, err, child = interrupted_run(tmp_path, sig, "--json", str(dest))
    assert_partial(rc, out, err, child, sig, name)
    doc = json.loads(dest.read_text())
    schema_validator().validate(doc)
    assert doc["interrupted"] == {"signal": name, "signal_number": int(sig),
                                  "during": str(tmp_path / "stuck.rep"), "planned": 4}
    assert [t["name"] for t in doc["traces"]] == ["one", "two"]
    assert all(t["outcome"] == "ok" and t["timing"] and t["libc"] for t in doc["traces"])
    s = doc["summary"]
    assert (s["traces"], s["valid"], s["failed"]) == (2, 2, 0)
    assert s["utilization"] > 0 and s["throughput_ratio"] is not None
    assert (s["util_points"], s["throughput_points"], s["perf_index"]) == (None, None, None)
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".") or "tmp" in p.name] == []


@pytest.mark.parametrize("allocator", ["closes-hangs", "closes-channel"])
def test_a_signal_stops_a_child_that_closed_its_ends_and_hangs(tmp_path, allocator):
    """closes-hangs.c closes its output and its doorbells, closes-channel.c only its doorbells,
    and both spin: the driver waited for the child's exit (with no limit at all), or for its
    output's end until -T, deaf to the signal, then blamed the trace on a timeout and the signal
    on the next trace."""
    rc, out, err, child = interrupted_run(tmp_path, signal.SIGTERM, "-T", "300", allocator=allocator)
    assert_partial(rc, out, err, child, signal.SIGTERM, "SIGTERM")


def test_ctrl_c_at_a_terminal_reaches_the_whole_group(tmp_path):
    """A terminal sends SIGINT to the foreground process group: the driver is stopped as above,
    and its trace children, in groups of their own, are killed by the driver, not by the terminal."""
    rc, out, err, child = interrupted_run(tmp_path, signal.SIGINT, "-g", group=True)
    assert_partial(rc, out, err, child, signal.SIGINT, "SIGINT")
    assert "perfidx:" not in out and "correct:" not in out  # no grade lines for part of a suite


def test_an_interrupted_run_leaves_the_saved_baseline(tmp_path):
    driver = broken("hangs")
    cache = tmp_path / "libc.baseline"
    honest = [a for t in suite(tmp_path) if t.stem != "stuck" for a in ("-f", str(t))]
    done = subprocess.run([str(driver), "--save-baseline", str(cache), *honest], capture_output=True, text=True,
                          timeout=WAIT)
    assert done.returncode == 0, done.stdout + done.stderr
    good = cache.read_bytes()
    rc, out, err, _ = interrupted_run(tmp_path, signal.SIGINT, "--save-baseline", str(cache))
    assert rc == 130, out + err
    assert f"mdriver: --save-baseline {cache}: not written: the run was interrupted" in err
    assert cache.read_bytes() == good
    assert sorted(p.name for p in tmp_path.iterdir() if "baseline" in p.name) == ["libc.baseline"]


def test_an_allocator_raising_the_signals_itself_still_fails(tmp_path):
    """raises.c raises SIGINT, or kill()s itself with SIGTERM: the trace's child dies of its own
    signal, the driver received none, so the trace crashed and the run goes on."""
    files = ["-f", write_trace(tmp_path, "int", ["a 0 16", f"a 1 {TRIGGER}"], weight=1),
             "-f", write_trace(tmp_path, "term", ["a 0 16", f"a 1 {TRIGGER + 1}"], weight=1),
             "-f", write_trace(tmp_path, "fine", HONEST, weight=1)]
    dest = tmp_path / "r.json"
    done = subprocess.run([str(broken("raises")), *map(str, files), "--json", str(dest)], capture_output=True,
                          text=True, timeout=WAIT, preexec_fn=default_stop_signals)
    assert done.returncode == 1, done.stdout + done.stderr
    doc = json.loads(dest.read_text())
    schema_validator().validate(doc)
    assert doc["interrupted"] is None
    by_name = {t["name"]: t for t in doc["traces"]}
    assert by_name["int"]["outcome"] == "crashed" and "crashed with SIGINT" in by_name["int"]["message"]
    assert by_name["term"]["outcome"] == "crashed" and "crashed with SIGTERM" in by_name["term"]["message"]
    assert by_name["fine"]["outcome"] == "ok"
    assert isinstance(doc["summary"]["perf_index"], float)
    assert "Perf index = " in done.stdout and "interrupted" not in done.stdout + done.stderr


def alive(pid: int) -> bool:
    """Running, not gone nor a zombie waiting for a reaper that may never come."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] not in ("Z", "X")


@pytest.mark.parametrize("tool", ["mdriver", "mmreplay"])
def test_a_killed_driver_takes_its_stuck_child_along(tmp_path, tool):
    """SIGKILL (`timeout -s KILL`, a terminal closed hard) leaves the driver no chance to kill its
    child, which sits in a process group of its own: the kernel must end it (it spun on at 100% CPU)."""
    from test_replay import replay
    binary = broken("hangs") if tool == "mdriver" else replay("hangs")
    stuck = write_trace(tmp_path, "stuck", [f"a 0 {TRIGGER}", "f 0"], weight=1)
    d = Started([str(binary), "-f", str(stuck)])
    child = None
    try:
        child = d.wait_for_stuck_child()
        d.proc.kill()
        d.proc.wait(timeout=WAIT)
        end = time.monotonic() + 5
        while alive(child) and time.monotonic() < end:
            time.sleep(0.05)
        assert not alive(child), f"{tool}'s child {child} outlived its SIGKILLed parent"
    finally:
        if d.proc.poll() is None:
            d.proc.kill()
        if child is not None and alive(child):
            os.kill(child, signal.SIGKILL)


def user_ticks(pid: int) -> int:
    """The process's user CPU time so far, in clock ticks (/proc/PID/stat), 0 when it cannot be read."""
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[11])
    except (OSError, IndexError, ValueError):
        return 0


def test_ctrl_c_while_a_large_trace_is_parsed_stops_the_parse(tmp_path):
    """A Ctrl-C that came once a large trace had been read waited for the whole parse (a second per
    100 MB, more on a busy machine) before the run stopped.  Now the parse looks at the interrupt
    as it goes: the run stops with little of it done, as the user CPU time the driver used shows
    against a whole parse of the same file, and reports as any interrupt does."""
    pairs = 4_000_000  # lines of the general path (tabs, comments): about 90 MB, written in well under a second
    big = tmp_path / "big.rep"
    with big.open("w") as f:
        f.write(f"20000\n1\n{2 * pairs}\n1\n")
        f.write("a\t0\t123456  # c\nf  0 #\n" * pairs)
    driver = broken("hangs")
    whole = subprocess.Popen([str(driver), "--parse-only", "-f", str(big)], stdout=subprocess.DEVNULL)
    _, status, parse = os.wait4(whole.pid, 0)
    whole.returncode = os.waitstatus_to_exitcode(status)
    assert whole.returncode == 0
    out, err = tmp_path / "out", tmp_path / "err"
    with out.open("w") as o, err.open("w") as e:
        d = subprocess.Popen([str(driver), "-f", str(big)], stdout=o, stderr=e, preexec_fn=default_stop_signals)
    try:
        end = time.monotonic() + WAIT
        # reading the file is the kernel's time; user time is the parse's (a tenth of it, or less)
        while user_ticks(d.pid) < 2 and time.monotonic() < end:
            time.sleep(0.002)
        d.send_signal(signal.SIGINT)
        _, status, used = os.wait4(d.pid, 0)
        d.returncode = os.waitstatus_to_exitcode(status)
    finally:
        if d.returncode is None:
            d.kill()
            d.wait()
    assert d.returncode == 130, out.read_text() + err.read_text()
    assert used.ru_utime < parse.ru_utime / 2, (used.ru_utime, parse.ru_utime)
    assert "partial: 0 of 1" in out.read_text() and "bad_trace" not in out.read_text()
    assert err.read_text().splitlines() == [
        f"mdriver: interrupted by SIGINT during trace 1 of 1 ({big}): the table holds the 0 completed, with no "
        "performance index"]


PAIRS = 2_000_000  # general-path lines (tabs, comments): about 45 MB, a parse of a second or so


def big_trace_lines(pairs: int) -> bytes:
    return f"20000\n1\n{2 * pairs}\n0\n".encode() + b"a\t0\t123456  # c\nf  0 #\n" * pairs


def signalled_while_read(driver: Path, args: list[str], phase: str, tmp: Path) -> tuple[int, str, str, str]:
    """Run driver ARGS with a large trace as /dev/fd/N, a pipe this test writes, and SIGINT it
    while it reads that trace ("reading": all but the last line written, so it cannot be done)
    or right after the last byte ("parsing": it may still be reading the pipe's last bytes, or
    parsing; either way before any trace runs).  Its status, stdout, stderr and the pipe's name."""
    r, w = os.pipe()
    out, err = tmp / "out", tmp / "err"
    with out.open("w") as o, err.open("w") as e:
        d = subprocess.Popen([str(driver), *args, "-f", f"/dev/fd/{r}"], stdout=o, stderr=e, pass_fds=(r,),
                             preexec_fn=default_stop_signals)
    os.close(r)
    try:
        data = big_trace_lines(PAIRS)
        with os.fdopen(w, "wb") as pipe:
            pipe.write(data[:-8] if phase == "reading" else data)  # returns once the driver has read it
            if phase == "reading":
                pipe.flush()
                d.send_signal(signal.SIGINT)
        if phase == "parsing":
            d.send_signal(signal.SIGINT)
        rc = d.wait(timeout=WAIT)
    finally:
        if d.poll() is None:
            d.kill()
            d.wait()
    return rc, out.read_text(), err.read_text(), f"/dev/fd/{r}"


@pytest.mark.parametrize("phase", ["reading", "parsing"])
def test_ctrl_c_while_baseline_reads_the_traces_is_reported(tmp_path, driver, phase):
    """--baseline reads every trace before the first runs, to match it with the baseline; the
    handlers were installed only after that, so a Ctrl-C then killed the driver outright
    (no table, no note, no JSON, status -SIGINT).  Now they are the driver's first act."""
    small = write_trace(tmp_path, "small", HONEST, weight=1)
    base = tmp_path / "base.txt"
    saved = subprocess.run([str(driver), "-f", str(small), "-r", "1", "--save-baseline", str(base)],
                           capture_output=True, text=True, timeout=WAIT)
    assert saved.returncode == 0, saved.stdout + saved.stderr
    result = tmp_path / "r.json"
    rc, out, err, name = signalled_while_read(driver, ["--baseline", str(base), "--json", str(result)], phase,
                                              tmp_path)
    assert rc == 130, out + err
    assert rows(out) == [] and "partial: 0 of 1" in out and "bad_trace" not in out, out
    assert "Perf index: none" in out
    assert err.splitlines() == [f"mdriver: interrupted by SIGINT during trace 1 of 1 ({name}): the table and "
                                "the JSON hold the 0 completed, with no performance index"], err
    doc = json.loads(result.read_text())
    schema_validator().validate(doc)
    assert doc["traces"] == [] and doc["interrupted"]["signal"] == "SIGINT" and doc["interrupted"]["planned"] == 1


@pytest.mark.parametrize("phase", ["reading", "parsing"])
def test_ctrl_c_during_parse_only_keeps_the_rates_read(tmp_path, driver, phase):
    """--parse-only had no handlers at all: a Ctrl-C lost the rates of the traces already read.
    Now it stops, prints them and their total, and says so in one line."""
    small = write_trace(tmp_path, "small", HONEST, weight=1)
    rc, out, err, name = signalled_while_read(driver, ["--parse-only", "-f", str(small)], phase, tmp_path)
    assert rc == 130, out + err
    lines = out.splitlines()
    assert [line.split()[:3] for line in lines] == [["small", "4", "ops"], ["total", "4", "ops"]], out
    assert err.splitlines() == [f"mdriver: interrupted by SIGINT during trace 2 of 2 ({name}): the total is "
                                "of the traces above"], err


def run_signalled_at_a_pipe(driver: Path, tmp: Path, sig: int, ignored: bool) -> tuple[int, str, str, list[str]]:
    """Run driver -V on an honest trace, then one it reads from a pipe this test writes; once the
    first is reported, the driver is reading the second, which cannot end before its last line:
    send SIG then (started with SIG ignored, as `nohup` or a shell's `&` leave it, or not), and
    write that line.  Its status, stdout, stderr and the names its JSON reports."""
    one = write_trace(tmp, "one", HONEST, weight=1)
    text = "# two: a trace from a pipe\n20000\n2\n4\n1\n" + "".join(f"{op}\n" for op in HONEST)
    last = len(text) - len(f"{HONEST[-1]}\n")
    dest = tmp / "r.json"
    r, w = os.pipe()
    def ignore() -> None:
        default_stop_signals()
        if ignored:
            signal.signal(sig, signal.SIG_IGN)
    d = Started([str(driver), "-V", "-f", str(one), "-f", f"/dev/fd/{r}", "--json", str(dest)], pass_fds=(r,),
                preexec_fn=ignore)
    os.close(r)
    try:
        with os.fdopen(w, "w") as pipe:
            pipe.write(text[:last])
            pipe.flush()
            d.wait_for_line("[1/2] one")
            d.proc.send_signal(sig)
            pipe.write(text[last:])
        rc, out, err = d.finish()
    finally:
        if d.proc.poll() is None:
            d.proc.kill()
    doc = json.loads(dest.read_text())
    schema_validator().validate(doc)
    return rc, out, err, [t["name"] for t in doc["traces"]]


@pytest.mark.parametrize("sig", [signal.SIGHUP, signal.SIGINT, signal.SIGTERM], ids=lambda s: s.name)
def test_a_signal_inherited_as_ignored_stays_ignored(tmp_path, driver, sig):
    """`nohup mdriver ... &` starts it with SIGHUP ignored, a non-interactive shell's `&` with SIGINT
    ignored: the driver's handlers replaced that, so a hang-up stopped a TA's overnight run.  Now a
    signal ignored when the driver starts stays ignored, and the run ends as if it never came."""
    rc, out, err, names = run_signalled_at_a_pipe(driver, tmp_path, sig, ignored=True)
    assert rc == 0, out + err
    assert rows(out) == ["one", "two"] and names == ["one", "two"], out
    assert "Perf index = " in out and "partial" not in out and "interrupted" not in out + err, out + err


def test_a_signal_not_ignored_still_stops_the_run(tmp_path, driver):
    rc, out, err, names = run_signalled_at_a_pipe(driver, tmp_path, signal.SIGHUP, ignored=False)
    assert rc == 128 + signal.SIGHUP, out + err
    assert rows(out) == ["one"] and names == ["one"], out
    assert "partial: 1 of 2" in out and "Perf index: none" in out, out
    assert err.strip().splitlines()[-1].startswith("mdriver: interrupted by SIGHUP during trace 2 of 2 (/dev/fd/"), err


def ignore_alarm() -> None:
    default_stop_signals()
    signal.signal(signal.SIGALRM, signal.SIG_IGN)


@pytest.mark.parametrize("preexec", [default_stop_signals, ignore_alarm], ids=["alarm-default", "alarm-ignored"])
def test_the_runs_own_limit_stops_it_as_a_signal_would(tmp_path, preexec):
    """--run-limit: a whole run's budget (the grader's limits.wall_clock).  At the limit the run stops
    as Ctrl-C stops it, so the traces completed are kept rather than lost with a killed driver; the
    JSON says why (SIGALRM, and the limit in its settings).  An ignored SIGALRM inherited from whoever
    started the driver does not cancel the limit the driver was asked for."""
    dest = tmp_path / "result.json"
    files = [a for t in suite(tmp_path) for a in ("-f", str(t))]
    limit = 8   # the two honest traces take well under a second
    start = time.monotonic()
    d = Started([str(broken("hangs")), "-V", *files, "--run-limit", str(limit), "--json", str(dest)],
                preexec_fn=preexec)
    try:
        d.wait_for_line("[2/4] two")
        child = d.wait_for_stuck_child()
        rc, out, err = d.finish()
    finally:
        if d.proc.poll() is None:
            d.proc.kill()
    assert limit <= time.monotonic() - start < WAIT, out + err
    assert rc == 128 + signal.SIGALRM, out + err
    assert rows(out) == ["one", "two"], out
    assert f"Perf index: none: the run was stopped at its time limit (--run-limit {limit}) after 2 of 4 traces" in out
    last = err.strip().splitlines()[-1]
    assert last.startswith(f"mdriver: stopped at its time limit (--run-limit {limit}) during trace 3 of 4 ("), err
    assert "stuck.rep" in last and "2 completed" in last
    assert "crashed" not in out + err and "failed and score 0" not in out
    with pytest.raises(ProcessLookupError):  # the stuck child was killed and reaped
        os.kill(child, 0)
    doc = json.loads(dest.read_text())
    schema_validator().validate(doc)
    assert doc["interrupted"] == {"signal": "SIGALRM", "signal_number": int(signal.SIGALRM),
                                  "during": str(tmp_path / "stuck.rep"), "planned": 4}
    assert doc["settings"]["run_limit"] == limit
    assert [t["name"] for t in doc["traces"]] == ["one", "two"]


def test_without_a_run_limit_the_json_says_none(tmp_path):
    dest = tmp_path / "result.json"
    done = subprocess.run([str(broken("hangs")), "-f", str(write_trace(tmp_path, "one", HONEST, weight=1)),
                           "--json", str(dest)], capture_output=True, text=True, timeout=WAIT)
    assert done.returncode == 0, done.stdout + done.stderr
    doc = json.loads(dest.read_text())
    assert doc["settings"]["run_limit"] is None and doc["interrupted"] is None

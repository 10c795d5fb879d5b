"""A bench run is the allocator's it names and loses nothing: the preload checked per process,
versions named, a crash shown where it happened, a stop signal keeping what was measured, stale
shims refused, outputs compared with glibc's."""
from __future__ import annotations

import json
import signal
import subprocess
import sys

import pytest

from bench_common import HEADER, built, run_cli
from shim_common import KIT, bench_program, shim

from bench import align, measure, programs, report, sizes, stress  # noqa: E402
from bench.allocators import Allocator, discover  # noqa: E402
from bench.measure import parse_kv  # noqa: E402


def test_peak_rss_is_the_commands_own_not_the_benchs(built):
    """ru_maxrss keeps what a process had before exec: a command started straight from this
    (large) Python process reported its RSS, the same under every allocator."""
    ballast = bytearray(256 << 20)
    ballast[::4096] = b"\1" * len(ballast[::4096])         # touch it: 256 MiB resident here
    glibc = Allocator("glibc", "system")
    small = measure.run(["/bin/true"], glibc)
    big = measure.run([sys.executable, "-c", "b = bytearray(96 << 20); b[::4096] = b'1' * len(b[::4096])"], glibc)
    assert small.returncode == 0 and big.returncode == 0
    assert small.maxrss_kb < 64 << 10, small.maxrss_kb
    assert big.maxrss_kb >= 96 << 10 and big.maxrss_kb < (96 << 10) + (64 << 10), big.maxrss_kb
    del ballast


def test_a_run_the_preload_did_not_reach_is_not_the_allocators(built, tmp_path):
    """Nothing checked that LD_PRELOAD took effect: a static program, or a preload the loader
    could not open, was timed and shown as that allocator while glibc served malloc."""
    lib = shim("ts-lock")
    static = tmp_path / "static"
    subprocess.run(["gcc", "-static", "-O2", "-o", str(static), str(KIT / "bench" / "c" / "sizes.c")], check=True)
    ts_lock, glibc = Allocator("ts-lock", "shim", str(lib)), Allocator("glibc", "system")
    assert measure.run([str(static), "-b", "3"], glibc).unserved is None
    done = measure.run([str(static), "-b", "3"], ts_lock)
    assert done.returncode == 0 and done.unserved.startswith("static: the preload did not take effect")
    # a relative preload from another folder: the loader ignores it and says so on stderr only
    lost = Allocator("ts-lock", "shim", str(lib.relative_to(KIT)))
    done = measure.run(["gcc", "--version"], lost, cwd=tmp_path)
    assert done.returncode == 0
    assert done.unserved.startswith("gcc (pid ") and "malloc is served by " in done.unserved
    assert "/libc.so" in done.unserved and done.unserved.endswith(f", not {lib.relative_to(KIT)}")
    assert measure.run(["gcc", "--version"], ts_lock).unserved is None
    assert measure.run(["gcc", "--version"], glibc).unserved is None


def test_cli_an_allocator_that_did_not_serve_is_reported_not_timed(built, tmp_path):
    import os
    kit = tmp_path / "kit"
    (kit / "build" / "bench").mkdir(parents=True)
    (kit / "variants").mkdir()
    (kit / "variants" / "ts-lock.c").write_text("")
    os.utime(kit / "variants" / "ts-lock.c", (0, 0))     # older than the shim it stands for
    (kit / "build" / "libmm-ts-lock.so").symlink_to(shim("ts-lock"))
    for prog in ("rusage", "witness.so"):
        (kit / "build" / "bench" / prog).symlink_to(bench_program(prog))
    subprocess.run(["gcc", "-static", "-O2", "-o", str(kit / "build" / "bench" / "sizes"),
                    str(KIT / "bench" / "c" / "sizes.c")], check=True)
    out = tmp_path / "out"
    done = run_cli("sizes", "--kit", str(kit), "--quick", "--reps", "2", "--only", "ts-lock", "--max-log2", "3",
                   "--out", str(out))
    assert done.returncode == 0, done.stderr
    lines = [ln for ln in done.stderr.splitlines() if "not timed" in ln]
    assert lines == ["sizes: ts-lock: not timed: sizes: the preload did not take effect (no line from its "
                     "loader: a static or setuid program?)"]
    res = sizes.Result.from_json(json.loads((out / "bench-sizes.json").read_text()))
    assert set(res.unserved) == {"ts-lock"}
    assert not [p for p in res.points if p.allocator == "ts-lock"]
    assert all(p.steady for p in res.points if p.allocator == "glibc")
    text = (out / "bench-sizes.md").read_text()
    assert "Not timed, the allocator did not serve malloc" in text and "ts-lock: sizes: the preload" in text
    row = next(ln for ln in text.splitlines() if ln.startswith("| 8 B |"))
    assert row.endswith("×1.00 | – |")


def _status(pid: int) -> str:
    """/proc/PID/status lower-cased, or '' once the process has gone."""
    try:
        with open(f"/proc/{pid}/status") as f:
            return f.read().lower()
    except OSError:
        return ""


@pytest.mark.parametrize("sig", ["SIGINT", "SIGTERM"])
def test_a_study_stopped_by_a_signal_keeps_what_it_measured(tmp_path, sig):
    """Ctrl-C printed `aborted` and wrote nothing, the repetitions done lost; and the command
    running then (a session of its own) went on running after the bench had gone."""
    import os
    import time
    kit = tmp_path / "kit"
    (kit / "build" / "bench").mkdir(parents=True)
    (kit / "variants").mkdir()
    for helper in ("rusage", "witness.so"):
        (kit / "build" / "bench" / helper).symlink_to(bench_program(helper))
    calls, sleeper = tmp_path / "calls", tmp_path / "sleeper"
    fake = kit / "build" / "bench" / "replay"     # the second timed run signals the bench, then hangs
    fake.write_text(f'#!/bin/sh\n[ "$3" = 0 ] && {{ echo "ops=2 repeats=0 seconds=0"; exit 0; }}\n'
                    f'echo x >> {calls}\n'
                    f'if [ "$(wc -l < {calls})" = 2 ]; then\n'
                    f'  bench=$(cut -d" " -f4 /proc/$PPID/stat); echo $$ > {sleeper}\n'
                    f'  kill -{sig.removeprefix("SIG")} $bench; exec sleep 60\nfi\n'
                    'echo "ops=2 repeats=1 seconds=0.25"\n')
    fake.chmod(0o755)
    trace = tmp_path / "t.rep"
    trace.write_text(HEADER + "a 0 8\nf 0\n")
    out = tmp_path / "out"
    start = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "bench", "stress", "--kit", str(kit), "--only", "glibc",
                           "--reps", "5", "--trace", str(trace), "--out", str(out)], capture_output=True, text=True,
                          cwd=KIT, timeout=120, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert time.monotonic() - start < 40
    assert done.returncode == 128 + getattr(signal, sig).value, done.stderr
    assert "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines()[-1] == (
        f"python -m bench: interrupted by {sig} during repetition 2 of 5: the runs finished so far are in "
        f"{out}/bench-stress.md, marked partial")
    data = json.loads((out / "bench-stress.json").read_text())
    res = stress.Result.from_json(data)
    assert res.partial == f"interrupted by {sig} during repetition 2 of 5"
    assert res.rows[0].seconds.n == 1 and res.rows[0].seconds.median == 0.25
    assert f"**Partial:** interrupted by {sig} during repetition 2 of 5" in (out / "bench-stress.md").read_text()
    pid = int(sleeper.read_text())
    deadline = time.monotonic() + 10        # gone well before its 60 s; 0.2 s was too short on a loaded host
    while os.path.exists(f"/proc/{pid}") and time.monotonic() < deadline:
        if "zombie" in _status(pid):
            break
        time.sleep(0.05)
    assert not os.path.exists(f"/proc/{pid}") or "zombie" in _status(pid)


def test_pages_name_the_version_of_each_allocator(built, tmp_path):
    """jemalloc, tcmalloc and mimalloc were named, never which version: two pages of two machines
    could not say whether they measured the same allocator."""
    import os
    libs = tmp_path / "libs"
    libs.mkdir()
    (libs / "libjemalloc.so.2").write_text("")
    (tmp_path / "variants").mkdir()
    found, _ = discover(tmp_path, lib_dirs=(str(libs),))
    jemalloc = next(a for a in found if a.name == "jemalloc")
    assert "libjemalloc2" in jemalloc.version and jemalloc.version.endswith(f"{libs}/libjemalloc.so.2)")
    assert found[0].version == os.confstr("CS_GNU_LIBC_VERSION")
    assert Allocator.from_json(jemalloc.to_json()) == jemalloc
    done = run_cli("sizes", "--quick", "--only", "ts-lock", "--max-log2", "2", "--out", str(tmp_path / "out"))
    assert done.returncode == 0, done.stderr
    text = (tmp_path / "out" / "bench-sizes.md").read_text()
    assert (f"Allocator versions: {os.confstr('CS_GNU_LIBC_VERSION')}; ts-lock: the kit's variants as shims "
            "(commit above).") in text
    res = sizes.Result.from_json(json.loads((tmp_path / "out" / "bench-sizes.json").read_text()))
    assert res.versions == {"glibc": os.confstr("CS_GNU_LIBC_VERSION"), "ts-lock": None}
    line = report.versions_line({"glibc": "glibc 2.36", "jemalloc": jemalloc.version, "best": None})
    assert line == f"Allocator versions: glibc 2.36; jemalloc {jemalloc.version}; best: the kit's variants as shims (commit above)."


CRASHY = r"""
#include <stdlib.h>
extern void *__libc_malloc(size_t); extern void __libc_free(void *);
extern void *__libc_calloc(size_t, size_t); extern void *__libc_realloc(void *, size_t);
/* aborts on one size only: sizes' 256 B step and alignpipe's 8 KiB buffer (+1) */
void *malloc(size_t n) { if (n == 256 || n == 8193) abort(); return __libc_malloc(n); }
void free(void *p) { __libc_free(p); }
void *calloc(size_t a, size_t b) { if (a * b == 256) abort(); return __libc_calloc(a, b); }
void *realloc(void *p, size_t n) { return __libc_realloc(p, n); }
"""


def test_a_run_that_crashes_under_one_allocator_is_shown_where_it_did(built, tmp_path):
    """sizes and align logged a crashed run on stderr only: the page showed `–`, as for a size
    never measured, and nothing said the allocator had crashed."""
    kit = tmp_path / "kit"
    (kit / "build" / "bench").mkdir(parents=True)
    (kit / "variants").mkdir()
    (kit / "variants" / "crashy.c").write_text("")
    (tmp_path / "crashy.c").write_text(CRASHY)
    subprocess.run(["gcc", "-O2", "-fPIC", "-shared", "-o", str(kit / "build" / "libmm-crashy.so"),
                    str(tmp_path / "crashy.c")], check=True)
    for prog in ("rusage", "witness.so", "sizes", "alignpipe"):
        (kit / "build" / "bench" / prog).symlink_to(bench_program(prog))
    out = tmp_path / "out"
    done = run_cli("sizes", "--kit", str(kit), "--quick", "--reps", "2", "--only", "crashy", "--max-log2", "10",
                   "--out", str(out))
    assert done.returncode == 0, done.stderr
    res = sizes.Result.from_json(json.loads((out / "bench-sizes.json").read_text()))
    assert res.point("crashy", "malloc", 256).crashed == 2 and res.point("crashy", "calloc", 256).crashed == 2
    assert res.point("crashy", "malloc", 128).steady and not res.point("crashy", "malloc", 512)
    text = (out / "bench-sizes.md").read_text()
    rows = [ln for ln in text.splitlines() if ln.startswith("| 256 B |") and "crashed" in ln]
    assert len(rows) == 2 and all(r.endswith("| crashed in 2 of 2 runs |") for r in rows)
    assert "A process that ended abnormally (a crash, a signal) is shown at the size where it did" in text
    done = run_cli("align", "--kit", str(kit), "--quick", "--reps", "1", "--only", "crashy", "--out", str(out))
    assert done.returncode == 0, done.stderr
    ares = align.Result.from_json(json.loads((out / "bench-align.json").read_text()))
    assert ares.get("crashy", "malloc", 8192).failures == 1 and ares.get("crashy", "page", 8192).failures == 0
    row = next(ln for ln in (out / "bench-align.md").read_text().splitlines() if ln.startswith("| crashy | 8 KiB |"))
    assert row.startswith("| crashy | 8 KiB | failed in 1 of 1 run | ") and row.endswith("| failed in 1 of 1 run | – |")


def test_a_shim_older_than_its_sources_is_skipped_not_measured(tmp_path):
    """`python -m bench` (not make) measured build/libmm-X.so whatever its age: after an edit of
    the variant, the page named the commit's allocator and showed the old build's figures."""
    import os
    import time
    (tmp_path / "variants").mkdir()
    (tmp_path / "build").mkdir()
    (tmp_path / "shim").mkdir()
    for name in ("alpha", "beta"):
        (tmp_path / "variants" / f"{name}.c").write_text("")
    (tmp_path / "shim" / "core.c").write_text("")
    old = time.time() - 100
    for path in [*(tmp_path / "variants").iterdir(), tmp_path / "shim" / "core.c"]:
        os.utime(path, (old, old))
    for name in ("alpha", "beta"):
        (tmp_path / "build" / f"libmm-{name}.so").write_text("")
    found, skipped = discover(tmp_path, packages=False)
    assert [a.name for a in found] == ["glibc", "alpha", "beta"] and skipped == []
    (tmp_path / "variants" / "beta.c").write_text("/* edited */")
    os.utime(tmp_path / "variants" / "beta.c", (old + 200, old + 200))
    found, skipped = discover(tmp_path, packages=False)
    assert [a.name for a in found] == ["glibc", "alpha"]
    assert skipped == ["beta: build/libmm-beta.so is older than variants/beta.c (make shim VARIANT=beta), skipped"]
    os.utime(tmp_path / "shim" / "core.c", (old + 200, old + 200))
    found, skipped = discover(tmp_path, shims=["alpha"], packages=False)
    assert [a.name for a in found] == ["glibc"]
    assert skipped == ["alpha: build/libmm-alpha.so is older than shim/core.c (make shim VARIANT=alpha), skipped"]


def test_programs_compares_every_output_with_glibcs_only(tmp_path, monkeypatch):
    """The first output seen was the reference: when glibc's first run of a workload failed,
    the shim's output became it, and glibc's next, right, output was counted wrong."""
    seen = []

    def fake_run(argv, alloc, **kw):
        seen.append(alloc.name)
        rep = seen.count(alloc.name)        # this allocator's n-th run (of 3 workloads a rep)
        if argv[0] == "sort":
            if alloc.name == "glibc" and rep <= 3:
                return measure.Run(1, 0.1, 10, "", "sort: crashed")
            text = "shim's" if alloc.name == "ts-lock" else "right"
            kw["cwd"].joinpath("sort-output.txt").write_text(text)
        elif argv[0] == "gcc" and alloc.name == "glibc":
            return measure.Run(1, 0.1, 10, "", "gcc: crashed")
        return measure.Run(0, 0.1, 10, "same output", "")

    monkeypatch.setattr(programs, "run", fake_run)
    allocs = [Allocator("glibc", "system"), Allocator("ts-lock", "shim", "/x/libmm-ts-lock.so")]
    res = programs.collect(tmp_path / "work", allocs, 2, 0.01)
    assert res.get("glibc", "sort").wrong == 0 and res.get("glibc", "sort").failures == 1
    assert res.get("ts-lock", "sort").wrong == 2
    assert res.get("ts-lock", "python").wrong == 0 and res.get("ts-lock", "python").unchecked == 0
    assert res.get("ts-lock", "gcc").unchecked == 2 and res.get("ts-lock", "gcc").wrong == 0
    text = programs.tables(res)[0]
    assert " (output not checked: no glibc run succeeded) |" in text
    assert "| ts-lock | " in text and "| 0 failed, 2 wrong |" in text


def test_rusage_runs_on_glibc_and_preloads_the_command_only(tmp_path):
    """The helper that starts every run was itself started under the allocator measured: loaded
    twice inside each wall time, and an allocator that crashed it lost the run's figures."""
    import os
    witness = tmp_path / "witness"
    env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
    env.update(BENCH_PRELOAD=str(bench_program("witness.so")), BENCH_WITNESS=str(witness))
    proc = subprocess.Popen([str(bench_program("rusage")), str(tmp_path / "rss"), "sh", "-c", "echo $LD_PRELOAD"],
                            env=env, stdout=subprocess.PIPE, text=True)
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 0 and out.strip() == str(bench_program("witness.so"))
    pid = int(parse_kv((tmp_path / "rss").read_text())["pid"])
    lines = [ln.split("\t") for ln in witness.read_text().splitlines()]
    assert [int(ln[0]) for ln in lines] == [pid] and pid != proc.pid
    assert "BENCH_PRELOAD" not in Allocator("glibc", "system").env({"BENCH_PRELOAD": "x", "LD_PRELOAD": "y"})
    assert Allocator("best", "shim", "/k/libmm-best.so").env({"LD_PRELOAD": "y"}) == {"BENCH_PRELOAD": "/k/libmm-best.so"}


def test_a_stop_signal_while_the_timeout_timer_starts_leaves_nothing_to_hold_the_exit(tmp_path):
    """A SIGTERM that came while the timeout's timer was being started (the stop signals blocked)
    was raised before run() held the timer, so it was never cancelled; not a daemon, it held the
    interpreter's exit for the run's whole timeout: a stopped study wrote its page, then hung
    (seen as a 120 s test timeout under load).  Here the signal is sent at that very moment."""
    script = tmp_path / "stop.py"
    script.write_text(
        "import os, signal, subprocess, sys, threading\n"
        f"sys.path.insert(0, {str(KIT)!r})\n"
        "from bench import measure\n"
        "def stop(signum, frame):\n"
        "    raise SystemExit(128 + signum)\n"
        "signal.signal(signal.SIGTERM, stop)\n"
        "victim = subprocess.Popen(['sleep', '300'], start_new_session=True)\n"
        "start = threading.Thread.start\n"
        "def start_then_signal(self):\n"
        "    start(self)\n"
        "    os.kill(os.getpid(), signal.SIGTERM)   # blocked here: raised once the mask is back\n"
        "threading.Thread.start = start_then_signal\n"
        "timer = measure.timeout_timer(300, victim.pid)\n"
        "try:\n"
        "    measure.start_unsignalled(timer)\n"
        "finally:\n"
        "    victim.kill()\n"
        "print('unreachable')\n")
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 128 + signal.SIGTERM.value and "unreachable" not in done.stdout, done.stderr


def test_a_stop_signal_while_the_command_starts_kills_the_command(tmp_path):
    """A SIGTERM that came inside Popen, after the fork (the command itself may send it, and
    under load it does before Popen returns), was raised with the process not yet known: the
    stopped study left its command running (seen as a `sleep 60` alive after the stop test).  The
    stop signals are blocked while the command starts; rusage unblocks them for the command."""
    script, started = tmp_path / "stop.py", tmp_path / "started"
    script.write_text(
        "import os, signal, subprocess, sys\n"
        f"sys.path.insert(0, {str(KIT)!r})\n"
        "from bench import measure\n"
        "from bench.allocators import Allocator\n"
        f"measure.RUSAGE, measure.WITNESS = measure.Path({str(bench_program('rusage'))!r}), "
        f"measure.Path({str(bench_program('witness.so'))!r})\n"
        "def stop(signum, frame):\n"
        "    raise measure.Stopped('SIGTERM')\n"
        "signal.signal(signal.SIGTERM, stop)\n"
        "real = subprocess.Popen\n"
        "class SignalledInside(real):\n"
        "    def __init__(self, *args, **kwargs):\n"
        "        super().__init__(*args, **kwargs)\n"
        f"        open({str(started)!r}, 'w').write(str(self.pid))\n"
        "        os.kill(os.getpid(), signal.SIGTERM)   # as if it came before Popen returned\n"
        "measure.subprocess.Popen = SignalledInside\n"
        "try:\n"
        "    measure.run(['sleep', '300'], Allocator('glibc', 'system'))\n"
        "except measure.Stopped:\n"
        "    sys.exit(143)\n")
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 143, done.stderr
    group = int(started.read_text())     # rusage's session: it and the command
    import os
    import time
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            os.killpg(group, 0)
        except ProcessLookupError:
            break
        time.sleep(0.05)
    else:
        os.killpg(group, signal.SIGKILL)
        raise AssertionError("the command outlived the stopped run")


def test_rusage_runs_the_command_with_no_signal_blocked(tmp_path):
    """The bench starts rusage with its stop signals blocked; the command must not inherit that."""
    script = tmp_path / "blocked.py"
    script.write_text(
        "import signal, subprocess, sys\n"
        "signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM, signal.SIGHUP})\n"
        f"subprocess.run([{str(bench_program('rusage'))!r}, {str(tmp_path / 'rss')!r}, 'grep', 'SigBlk', "
        "'/proc/self/status'])\n")
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.split() == ["SigBlk:", "0" * 16], done.stdout + done.stderr

"""mmtrace record: the LD_PRELOAD recorder on programs compiled here with a known
allocation sequence, on threads and forks, on crashes and full disks, and on a real
multithreaded program whose recording the driver replays.  What it refuses to record,
and how it names why, is test_mmtrace_record_refusals.py's."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import build_driver
from grader_fixtures.helpers import run_python
from mmtrace.linter import lint, read_trace
from mmtrace.record import record
from record_common import KNOWN, KNOWN_OPS, compile_program, mmtrace, recipe_for

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
    exe = compile_program(tmp_path, "execs", EXECS)
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


def test_known_sequence_is_recorded_exactly_and_replays(tmp_path, driver):
    exe = compile_program(tmp_path, "known", KNOWN)
    out = tmp_path / "known.rep"
    done = mmtrace("record", "-o", str(out), "--", str(exe))
    assert done.returncode == 0, done.stderr
    t = read_trace(out)
    assert list(t.ops()) == KNOWN_OPS
    replay = subprocess.run([str(driver), "--json", "-", "-f", str(out)], capture_output=True,
                            text=True)
    assert replay.returncode == 0, replay.stdout + replay.stderr
    assert json.loads(replay.stdout)["traces"][0]["outcome"] == "ok"


def test_threads_record_a_consistent_order(tmp_path):
    rec = record([str(compile_program(tmp_path, "threads", THREADS))])
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
    exe = compile_program(tmp_path, "forks", FORKS)
    parent = record([str(exe)], process="first")
    assert parent.processes == 2
    assert [(k, s) for k, _, s in parent.trace.ops()] == [("a", 11), ("a", 33), ("f", 0),
                                                          ("f", 0)]
    child = record([str(exe)], process="largest")
    assert [s for k, _, s in child.trace.ops() if k == "a"] == [22, 22, 22]


def test_a_crash_is_reported_and_what_came_before_is_kept(tmp_path):
    exe = compile_program(tmp_path, "crash", CRASH)
    out = tmp_path / "crash.rep"
    done = mmtrace("record", "-o", str(out), "--", str(exe))
    assert done.returncode == 1
    assert "killed by SIGSEGV" in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert "Traceback" not in done.stderr
    assert list(read_trace(out).ops()) == [("a", 0, 10), ("a", 1, 20), ("f", 0, 0),
                                           ("f", 1, 0)]


@pytest.mark.parametrize("args, status", [([], "killed by SIGSEGV"),
                                          (["--timeout", "1"], "timed out after 1 s")])
def test_a_partial_recording_says_so_in_the_trace(tmp_path, args, status):
    """Only stderr said that the program had not finished: the trace file, kept and used later,
    read as a whole run's."""
    exe = compile_program(tmp_path, "crash", CRASH)
    command = [str(exe)] if not args else ["sh", "-c", f"{exe}; sleep 60"]
    out = tmp_path / "crash.rep"
    done = mmtrace("record", *args, "-o", str(out), "--", *command)
    assert done.returncode == 1 and status in done.stderr
    assert f"# partial: {command[0]} {status}; these are the ops before that\n" in out.read_text()
    assert len(read_trace(out)) >= 4                   # still a trace the driver reads
    done = mmtrace("record", "-o", str(out), "--", "sh", "-c", f"{exe}; exit 3")
    assert done.returncode == 1 and "# failed run: sh exited 3\n" in out.read_text()
    done = mmtrace("record", "-o", str(out), "--", str(compile_program(tmp_path, "known", KNOWN)))
    assert done.returncode == 0 and "# partial:" not in out.read_text()


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
    exe = compile_program(tmp_path, "closes", CLOSES_FDS)
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
    exe = compile_program(tmp_path, "limits", LIMITS_ITS_FILES)
    out = tmp_path / "limits.rep"
    done = mmtrace("record", "-o", str(out), "--", str(exe))
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
    exe = compile_program(tmp_path, "many", "#include <stdlib.h>\nint main(void) { for (int i = 0; "
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
    done, out = _record_on_small_tmpfs(tmp_path, compile_program(tmp_path, "kids", MANY_PROCESSES))
    assert done.returncode == 0, done.stderr
    assert "301 process(es)" in done.stdout


def test_many_processes_need_no_descriptor_each(tmp_path):
    """Every process's log was kept mapped, a descriptor each, until the conversion: 300
    processes under a limit of 64 open files was a 'Too many open files' traceback."""
    import resource
    exe = compile_program(tmp_path, "kids", MANY_PROCESSES)
    out = tmp_path / "kids.rep"
    done = mmtrace("record", "-o", str(out), "--", str(exe),
                preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (64, 64)))
    assert done.returncode == 0, done.stderr
    assert "301 process(es)" in done.stdout
    assert [(k, s) for k, _, s in read_trace(out).ops()] == [("a", 5), ("f", 0)]   # a tie: the first


def test_a_recording_stops_where_a_trace_the_driver_reads_must(tmp_path, monkeypatch):
    """Without --max-ops a recording had no end: 13 M malloc/free pairs made a 262 MB trace,
    a few more one past the 256 MiB that the driver and mmtrace read, written with exit 0.
    It now stops at MAX_OPS (a 20-byte op line at most: under the limit), here made small."""
    from mmtrace import rawlog
    from mmtrace.trace import MAX_OPS, TRACE_MAX_BYTES
    assert MAX_OPS * len("a 67108863 20971520\n") <= TRACE_MAX_BYTES
    monkeypatch.setattr(rawlog, "MAX_OPS", 1000)
    monkeypatch.setattr(rawlog, "CHUNK", 64)               # several steps of conversion
    exe = compile_program(tmp_path, "many", "#include <stdlib.h>\nint main(void) { void *p[8]; for "
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


def test_the_recorder_stops_logging_soon_after_the_trace_is_full(tmp_path):
    """The log grew by 32 bytes a call for as long as the program ran (60 M calls: 1.8 GB in
    $TMPDIR, and 2.3 GB of memory to convert it), when a trace uses at most --skip plus --max-ops
    (12 M) of them.  It now stops at the skipped calls and twice the ops; the program runs on."""
    exe = compile_program(tmp_path, "churn", "#include <stdlib.h>\nint main(void) { for (int i = 0; "
                          "i < 20000; i++) free(malloc(16 + i % 5000)); return 0; }\n")
    rec = record([str(exe)], max_ops=1000, skip=100)
    assert rec.ok and rec.report.truncated and rec.report.events == 2000     # the log held 2,100
    leaks = compile_program(tmp_path, "leaks", "#include <stdlib.h>\nint main(void) { for (int i = 0; "
                            "i < 20000; i++) malloc(1000); return 0; }\n")
    rec = record([str(leaks)], max_ops=1000, max_live=10_000)       # most calls make no op
    assert rec.ok and not rec.report.truncated and rec.report.log_full == 2000
    assert "the recorder stopped at its most, 2,000 events: later calls missing" in rec.report.summary()

def test_a_program_whose_name_is_not_ascii_is_recorded(tmp_path):
    """The trace was encoded as ASCII, comments and all: a program in a folder named in any
    other language was recorded, then the write was a UnicodeEncodeError traceback, and the
    recording was lost."""
    exe = compile_program(tmp_path, "known", KNOWN)
    named = tmp_path / "café-prog"
    exe.rename(named)
    out = tmp_path / "k.rep"
    done = mmtrace("record", "-o", str(out), "--", str(named))
    assert done.returncode == 0, done.stderr
    assert list(read_trace(out).ops()) == KNOWN_OPS
    # quoted as a shell would need it (shlex: a non-ASCII letter is quoted)
    assert out.read_text(encoding="utf-8").splitlines()[0] == f"# recorded from: '{named}'"


def test_the_recorded_from_comment_can_be_run_again_as_shown(tmp_path):
    """The command was joined with spaces, so `sh -c 'ls / >/dev/null; true'` was written as
    `sh -c ls / >/dev/null; true`, which runs something else; now it is quoted (shlex.join),
    and splitting the comment gives back the command that was recorded."""
    import shlex
    exe = compile_program(tmp_path, "known", KNOWN)
    command = ["sh", "-c", f"{exe} >/dev/null; true", "a b"]
    out = tmp_path / "q.rep"
    done = mmtrace("record", "-o", str(out), "--", *command)
    assert done.returncode == 0, done.stderr
    first = out.read_text(encoding="utf-8").splitlines()[0]
    assert first.startswith("# recorded from: ")
    assert shlex.split(first.removeprefix("# recorded from: ")) == command


def test_sizes_are_capped_and_blocks_over_budget_left_out(tmp_path):
    src = r"""
    #include <stdlib.h>
    int main(void) {
        void *a = malloc(5000);  void *b = malloc(900);  void *c = malloc(800);
        free(c); free(b); free(a);
        return 0;
    }"""
    rec = record([str(compile_program(tmp_path, "big", src))], max_size=1000, max_live=1800)
    assert rec.report.capped == 1 and rec.report.over_budget == 1
    assert list(rec.trace.ops()) == [("a", 0, 1000), ("a", 1, 800), ("f", 1, 0), ("f", 0, 0)]


@pytest.mark.parametrize("more, numbers", [
    ('header = "classic"\nweight = 2\n', lambda ids, ops, peak: [20000000, ids, ops, 2]),
    ('header = "lab64"\nweight = 3\n', lambda ids, ops, peak: [3, ids, ops, peak]),
])
def test_suite_record_writes_the_header_and_weight_the_recipe_asks_for(tmp_path, more, numbers):
    """A recorded entry's header and weight were accepted and ignored: always lab64, weight 1."""
    from mmtrace.stats import measure
    recipe = recipe_for(tmp_path, [sys.executable, "-S", "-c", "pass"], more)
    done = mmtrace("suite", "--record", str(recipe))
    assert done.returncode == 0, done.stderr
    t = read_trace(tmp_path / "rec-py.rep")
    assert t.header.lines() == numbers(t.header.ids, len(t), measure(t).peak_live_bytes)


def test_suite_record_runs_the_command_on_the_recipe_s_sources_whatever_the_output(tmp_path):
    """{traces} was the -o folder, where sources/ is not: the program failed to find its
    script, and that failure was written as the trace, exit 0."""
    suite = tmp_path / "suite"
    (suite / "sources").mkdir(parents=True)
    (suite / "sources" / "work.py").write_text("k = ['x' * 1000 + str(i) for i in range(3000)]\n")
    recipe = recipe_for(suite, [sys.executable, "-S", "{traces}/sources/work.py"])
    out = tmp_path / "out"
    done = mmtrace("suite", "--record", "-o", str(out), str(recipe))
    assert done.returncode == 0, done.stderr
    assert sum(k == "a" and s > 1000 for k, _, s in read_trace(out / "rec-py.rep").ops()) >= 3000


def test_suite_record_does_not_write_a_failed_recording(tmp_path):
    recipe = recipe_for(tmp_path, [sys.executable, "-S", "-c", "import sys; sys.exit(3)"])
    (tmp_path / "rec-py.rep").write_text("kept\n")
    done = mmtrace("suite", "--record", str(recipe))
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
    text = mmtrace("record", "--help").stdout
    line = next(l.strip() for l in text.splitlines() if l.strip().startswith("mmtrace record -o build/sort"))
    argv = shlex.split(line)[2:]                        # after `mmtrace record`
    argv[argv.index("-o") + 1] = str(tmp_path / "sort.rep.gz")
    done = mmtrace("record", *argv)
    assert done.returncode == 0, done.stderr
    assert len(read_trace(tmp_path / "sort.rep.gz")) > 0


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
    rec = record([str(compile_program(tmp_path, "paged", PAGE_ALIGNED))])
    assert rec.ok, rec.status
    sizes = [s for k, _, s in rec.trace.ops() if k == "a"]
    assert sizes == [0, page, page, 2 * page, 100, 100, 128, 100]



ALIGNMENTS = r"""
#include <errno.h>
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
static void said(const char *call, void *p, size_t align)
{
    printf("%s %s %s\n", call, p ? "ok" : "null", p ? ((uintptr_t)p % align ? "unaligned" : "aligned")
                                                    : errno == EINVAL ? "EINVAL" : "other");
}
int main(void)
{
    void *p[4], *q = &q, *r = &r;
    errno = 0;
    said("aligned_alloc(64,128)", p[0] = aligned_alloc(64, 128), 64);
    errno = 0;
    said("aligned_alloc(24,48)", aligned_alloc(24, 48), 32);
    errno = 0;
    said("aligned_alloc(0,16)", aligned_alloc(0, 16), 1);
    errno = 0;
    said("memalign(24,100)", p[1] = memalign(24, 100), 32);
    errno = 0;
    said("memalign(huge,1)", memalign(SIZE_MAX / 2 + 2, 1), 1);
    printf("posix_memalign(24) %d %d\n", posix_memalign(&q, 24, 100) == EINVAL, q == &q);
    printf("posix_memalign(4) %d %d\n", posix_memalign(&r, 4, 100) == EINVAL, r == &r);
    printf("posix_memalign(64) %d\n", posix_memalign(&p[2], 64, 100));
    for (int i = 0; i < 3; i++) free(p[i]);
    return 0;
}
"""


def test_aligned_calls_take_and_record_only_valid_alignments(tmp_path):
    """aligned_alloc went to __libc_memalign, which rounds an alignment that is no power of two
    up: on glibc 2.36 aligned_alloc(24, 48) gave a block and logged an op, where C17 and glibc
    2.38 fail it with EINVAL.  memalign still rounds up (every glibc does); posix_memalign fails
    an alignment that is no power of two or no multiple of sizeof(void *), its pointer untouched."""
    exe = compile_program(tmp_path, "aligns", ALIGNMENTS)
    out = tmp_path / "aligns.rep"
    done = mmtrace("record", "-o", str(out), "--", str(exe), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[:8] == [
        "aligned_alloc(64,128) ok aligned", "aligned_alloc(24,48) null EINVAL", "aligned_alloc(0,16) null EINVAL",
        "memalign(24,100) ok aligned", "memalign(huge,1) null EINVAL",
        "posix_memalign(24) 1 1", "posix_memalign(4) 1 1", "posix_memalign(64) 0"]
    ops = [(k, s) for k, _, s in read_trace(out).ops()]
    stdio = ops.pop(1)          # stdout's buffer, at the first printf, freed at the end by record
    assert stdio[0] == "a" and ops.pop() == ("f", 0)
    assert ops == [("a", 128), ("a", 100), ("a", 100), ("f", 0), ("f", 0), ("f", 0)]


def test_a_recording_that_cannot_be_written_is_kept_in_a_temporary_file(tmp_path):
    """-o on a full disk (here /dev/full): one line naming the copy kept, which holds the ops."""
    exe = compile_program(tmp_path, "known", KNOWN)
    keep = tmp_path / "tmp"
    keep.mkdir()
    done = mmtrace("record", "-o", "/dev/full", "--", str(exe), env={**os.environ, "TMPDIR": str(keep)})
    assert done.returncode == 2
    [copy] = keep.iterdir()
    assert done.stderr.splitlines() == [f"mmtrace: /dev/full: cannot write (No space left on device); "
                                        f"the recording is kept in {copy}"]
    assert list(read_trace(copy).ops()) == KNOWN_OPS


def test_a_recording_that_no_copy_can_hold_is_one_line(tmp_path, monkeypatch):
    """When the temporary copy could not be written either (the disk full there too), the
    OSError escaped as a traceback, and an empty mmtrace-record-*.rep was left behind. Now it
    is one line saying both, exit 2, and no empty file."""
    import errno
    import tempfile
    from click.testing import CliRunner
    import mmtrace.cli as cli
    exe = compile_program(tmp_path, "known", KNOWN)
    keep = tmp_path / "tmp"
    keep.mkdir()

    def full(path, trace, notes=None):
        raise OSError(errno.ENOSPC, "No space left on device", str(path))

    monkeypatch.setattr(cli, "write_trace", full)
    monkeypatch.setattr(tempfile, "tempdir", str(keep))
    done = CliRunner().invoke(cli.main, ["record", "-o", str(tmp_path / "k.rep"), "--", str(exe)])
    assert done.exit_code == 2, done.exception
    assert done.output.splitlines()[-1] == (
        f"mmtrace: {tmp_path / 'k.rep'}: cannot write (No space left on device); nor could a temporary "
        f"copy be written in {keep} (No space left on device): the recording is lost")
    assert list(keep.iterdir()) == []


def test_suite_record_quotes_the_recipe_s_command_in_its_comment(tmp_path):
    """As record's: a recipe command ["python3", "-S", "-c", "k = 1; print(k)"] was written
    '# recorded from: python3 -S -c k = 1; print(k)', which is not the command; now it is
    shell-quoted, {traces} left for the reader to fill in."""
    import shlex
    command = [sys.executable, "-S", "-c", "k = ['x' * 100 for i in range(50)]; print(len(k))"]
    recipe = recipe_for(tmp_path, command)
    done = mmtrace("suite", "--record", str(recipe))
    assert done.returncode == 0, done.stderr
    line = next(l for l in (tmp_path / "rec-py.rep").read_text().splitlines() if l.startswith("# recorded from: "))
    assert shlex.split(line.removeprefix("# recorded from: ")) == command


def test_a_recording_to_standard_output_keeps_the_programs_output_out_of_it(tmp_path):
    """`record -o /dev/stdout -- prog | mdriver -f /dev/stdin`: the program's own output went to
    the same stdout, into the trace ('done' before the header), which no reader could read.
    The program's stdout now goes to stderr when the trace is on stdout."""
    exe = compile_program(tmp_path, "known", KNOWN)         # writes "done\n" to its stdout
    done = mmtrace("record", "-o", "/dev/stdout", "--", str(exe))
    assert done.returncode == 0, done.stderr
    (tmp_path / "out.rep").write_text(done.stdout)
    assert list(read_trace(tmp_path / "out.rep").ops()) == KNOWN_OPS
    assert "done" in done.stderr.splitlines()


def test_the_commands_own_options_are_its_own_without_a_double_dash(tmp_path):
    """`mmtrace record -o cc.rep gcc -c -o /dev/null hello.c` (no `--`) took gcc's -o as its
    own: the recording went to /dev/null, cc.rep was never written, exit 0. Options end at
    the command's name, as for env, nice or timeout."""
    exe = compile_program(tmp_path, "known", KNOWN)
    out = tmp_path / "k.rep"
    done = mmtrace("record", "-o", str(out), str(exe), "-o", "/dev/null", "--max-ops", "3")
    assert done.returncode == 0, done.stderr
    assert list(read_trace(out).ops()) == KNOWN_OPS
    assert out.read_text().splitlines()[0] == f"# recorded from: {exe} -o /dev/null --max-ops 3"

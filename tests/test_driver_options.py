"""The command line: every flag does what -h says; every mistake is one line on
stderr and exit 2, nothing on stdout."""
from __future__ import annotations

import json
import os
import re
import subprocess

import pytest

from conftest import build_driver
from driver_common import broken, describe, kbest, run, schema_validator, stopped_driver, variant, write_trace

OPS = ["a 0 100", "a 1 200", "r 0 300", "f 1", "a 2 40", "f 0", "f 2"]


def trace(tmp, name="t", weight=1):
    return write_trace(tmp, name, OPS, weight=weight)


@pytest.mark.parametrize("flag", ["-h", "--help"])
def test_help(driver, flag):
    done = subprocess.run([str(driver), flag], capture_output=True, text=True)
    assert done.returncode == 0 and done.stderr == ""
    assert done.stdout.startswith("usage: mdriver")
    assert "example: ./mdriver -V -t traces" in done.stdout
    for documented in ("-t DIR", "-f FILE", "-c", "-l", "-v, -V", "-g", "-T SECS", "-M BYTES", "-r N", "-a",
                       "--json", "--secret-fd", "--baseline", "--save-baseline", "--run-limit", "--parse-only", "--describe"):
        assert documented in done.stdout
    # The default -t is ./traces when there is one (test_t_and_f_together_and_the_default_directory).
    assert "default: ./traces if the current folder has one, else the kit's traces/" in done.stdout


BAD_ARGS = [
    (["-z"], "unknown option -z"),
    (["--bogus"], "unknown option --bogus"),
    # A value given to a flag that takes none was "unknown option -" and a stray byte (the
    # option's number as a letter), or for --help "unknown option -h".
    (["--parse-only=3"], "--parse-only takes no value (mdriver -h for help)"),
    (["--describe=x"], "--describe takes no value (mdriver -h for help)"),
    (["--help=1"], "--help takes no value ("),
    (["-T", "0"], "-T 0: the time limit"),
    (["--run-limit", "0"], "--run-limit 0: the run's time limit must be whole seconds from 1 to 2147483647"),
    (["--run-limit", "2147483648"], "--run-limit 2147483648: the run's time limit"),
    (["--run-limit", "1.5"], "--run-limit 1.5: the run's time limit"),
    (["--run-limit"], "--run-limit needs an argument"),
    (["--run-limit", "5", "--run-limit", "9"], "--run-limit given twice"),
    (["--describe", "--run-limit", "5"], "--describe and --run-limit exclude each other"),
    (["-T", "x"], "-T x: the time limit"),
    (["-T"], "-T needs an argument"),
    (["-M", "0"], "-M 0: the maximum heap"),
    (["-M", "5G"], "-M 5G: the maximum heap"),
    (["-M", "12Q"], "-M 12Q: the maximum heap"),
    (["-M", "-1"], "-M -1: the maximum heap"),
    (["-r", "0"], "-r 0: the number of timing samples"),
    (["-r", "26"], "-r 26: the number of timing samples"),
    (["--secret-fd", "x"], "--secret-fd x: not a file descriptor number"),
    # strtol and strtoull skip leading blanks and take a sign: these were 5, 3, 20M and fd 0.
    (["-T", " 5"], "-T  5: the time limit"),
    (["-T", "+5"], "-T +5: the time limit"),
    (["-r", "\t3"], "-r \\t3: the number of timing samples"),  # a tab shown as \t: one line
    (["-M", " 20M"], "-M  20M: the maximum heap"),
    (["-M", "+20M"], "-M +20M: the maximum heap"),
    (["--secret-fd", " 0"], "--secret-fd  0: not a file descriptor number"),
    (["-f"], "-f needs an argument"),
    (["--json"], "--json needs an argument"),
    (["stray.rep"], "unexpected argument 'stray.rep'"),
    (["-t", "/nonexistent-dir"], "-t /nonexistent-dir: cannot open the trace directory"),
    (["--baseline", "a", "--save-baseline", "b"], "--baseline and --save-baseline exclude each other"),
    (["--secret-fd", "97"], "--secret-fd 97: not an open file descriptor"),
    (["--json", "a.json", "--json", "b.json"], "--json given twice"),
    (["--baseline", "a", "--baseline", "b"], "--baseline given twice"),
    (["--save-baseline", "a", "--save-baseline", "b"], "--save-baseline given twice"),
    # The last of two used to win silently.
    (["-T", "5", "-T", "9"], "-T given twice"),
    (["-M", "1M", "-M", "2M"], "-M given twice"),
    (["-r", "1", "-r", "5"], "-r given twice"),
    (["--secret-fd", "0", "--secret-fd", "0"], "--secret-fd given twice"),
    # Read and dropped: the secret goes nowhere but the JSON.
    (["--secret-fd", "0", "-f", "a.rep"], "--secret-fd needs --json (the secret is echoed in the JSON)"),
    (["--parse-only", "--secret-fd", "0"], "--secret-fd needs --json"),
    # --parse-only wrote no JSON and no baseline, and exited 0.
    (["--parse-only", "--json", "a.json"], "--parse-only and --json exclude each other"),
    (["--parse-only", "--baseline", "a"], "--parse-only and --baseline exclude each other"),
    (["--save-baseline", "a", "--parse-only"], "--parse-only and --save-baseline exclude each other"),
    # ... and took the options of a run, which change nothing it prints, without a word.
    *[(["--parse-only", *flag], f"--parse-only and {flag[0]} exclude each other")
      for flag in (["-r", "2"], ["-T", "5"], ["--run-limit", "9"], ["-c"], ["-l"], ["-g"], ["-v"], ["-V"])],
    # --describe printed its JSON and dropped these without a word.
    (["--describe", "--json", "a.json"], "--describe and --json exclude each other"),
    (["--describe", "-t", "traces"], "--describe and -t exclude each other"),
    (["-f", "a.rep", "--describe"], "--describe and -f exclude each other"),
    (["--describe", "--secret-fd", "0"], "--describe and --secret-fd exclude each other"),
    (["--describe", "--baseline", "a"], "--describe and --baseline exclude each other"),
    (["--describe", "--save-baseline", "a"], "--describe and --save-baseline exclude each other"),
    (["--describe", "--parse-only"], "--describe and --parse-only exclude each other"),
    # These too were dropped without a word: -V gave no statistics, -M 64M no larger heap.
    (["--describe", "-V"], "--describe and -V exclude each other"),
    (["-v", "--describe"], "--describe and -v exclude each other"),
    (["--describe", "-c"], "--describe and -c exclude each other"),
    (["--describe", "-l"], "--describe and -l exclude each other"),
    (["--describe", "-g"], "--describe and -g exclude each other"),
    (["--describe", "-T", "5"], "--describe and -T exclude each other"),
    (["--describe", "-M", "64M"], "--describe and -M exclude each other"),
    (["--describe", "-r", "3"], "--describe and -r exclude each other"),
]


@pytest.mark.parametrize("args,fragment", BAD_ARGS, ids=[" ".join(a) for a, _ in BAD_ARGS])
def test_bad_arguments(driver, args, fragment):
    done = subprocess.run([str(driver), *args], capture_output=True, text=True, timeout=30)
    assert done.returncode == 2
    assert done.stdout == ""
    assert len(done.stderr.splitlines()) == 1, done.stderr
    assert done.stderr.startswith("mdriver: ") and fragment in done.stderr


@pytest.mark.parametrize("args,flag,what", [(["-f", ""], "-f", "file"), (["-t", ""], "-t", "directory"),
                                           (["--json", "", "-f", "x.rep"], "--json", "file"),
                                           (["--json=", "-f", "x.rep"], "--json", "file"),
                                           (["--baseline", "", "-f", "x.rep"], "--baseline", "file"),
                                           (["--save-baseline=", "-f", "x.rep"], "--save-baseline", "file")])
def test_an_empty_file_argument_is_a_usage_error_naming_the_option(driver, args, flag, what):
    """-f "$TRACE" with TRACE unset ran a bad_trace row ':0: cannot open', naming no file, and the other
    options said ': cannot write there' or '-t : cannot open': one line naming the option now."""
    done = subprocess.run([str(driver), *args], capture_output=True, text=True, timeout=30)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == f"mdriver: {flag} '': an empty argument, which names no {what} (mdriver -h for help)\n"


def test_empty_trace_directory(driver, tmp_path):
    done = subprocess.run([str(driver), "-t", str(tmp_path)], capture_output=True, text=True)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == f"mdriver: -t {tmp_path}: no .rep or .rep.gz traces in this directory (mdriver -h for help)\n"


@pytest.mark.parametrize("dest,why", [("{tmp}/missing/x.json", "No such file or directory"),
                                      ("fd:97", "Bad file descriptor"), ("fd:x", "Invalid argument"),
                                      ("fd:", "Invalid argument"), ("fd: 1", "Invalid argument"),
                                      ("fd:+1", "Invalid argument")])
def test_json_destination_that_cannot_be_written(driver, tmp_path, dest, why):
    dest = dest.format(tmp=tmp_path)
    done = subprocess.run([str(driver), "--json", dest, "-f", str(trace(tmp_path))], capture_output=True, text=True)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == f"mdriver: --json {dest}: cannot write there: {why}\n"


@pytest.mark.parametrize("dest,why", [("{tmp}/missing/bl", "No such file or directory"), ("{tmp}", "Is a directory")])
def test_save_baseline_destination_is_checked_before_any_trace_runs(driver, tmp_path, dest, why):
    dest = dest.format(tmp=tmp_path)
    done = subprocess.run([str(driver), "--save-baseline", dest, "-f", str(trace(tmp_path))], capture_output=True,
                          text=True)
    assert done.returncode == 2 and done.stdout == ""     # no table: no trace ran
    assert done.stderr == f"mdriver: --save-baseline {dest}: cannot write there: {why} (mdriver -h for help)\n"


def test_save_baseline_check_leaves_no_file_and_an_earlier_baseline_whole(driver, tmp_path):
    fresh, earlier = tmp_path / "fresh", tmp_path / "earlier"
    earlier.write_text("an earlier baseline\n")
    for dest in (fresh, earlier):       # --json cannot be opened: the run stops after the check
        done = subprocess.run([str(driver), "--save-baseline", str(dest), "--json", str(tmp_path / "no" / "x.json"),
                               "-f", str(trace(tmp_path))], capture_output=True, text=True)
        assert done.returncode == 2 and "--json" in done.stderr
    assert not fresh.exists()
    assert earlier.read_text() == "an earlier baseline\n"


@pytest.mark.parametrize("flag", ["--json", "--save-baseline"])
def test_an_output_that_is_an_input_trace_is_refused_before_anything_is_read(driver, tmp_path, flag):
    """`mdriver -f victim.rep --json victim.rep` emptied the trace before reading it."""
    victim = trace(tmp_path)
    before = victim.read_bytes()
    folder = tmp_path / "d"
    folder.mkdir()
    (folder / "t.rep").write_bytes(before)
    for args, dest, named in ((["-f", str(victim)], str(victim), str(victim)),
                              (["-t", str(folder)], str(folder / "." / "t.rep"), str(folder / "t.rep"))):
        done = subprocess.run([str(driver), *args, flag, dest], capture_output=True, text=True)
        assert done.returncode == 2 and done.stdout == ""
        assert done.stderr == (f"mdriver: {flag} {dest}: that file is the trace {named}; refusing to overwrite "
                               "it (mdriver -h for help)\n")
    assert victim.read_bytes() == before and (folder / "t.rep").read_bytes() == before


def test_json_and_save_baseline_to_one_file_is_refused(driver, tmp_path):
    dest = tmp_path / "out"
    done = subprocess.run([str(driver), "-f", str(trace(tmp_path)), "--json", str(dest), "--save-baseline", str(dest)],
                          capture_output=True, text=True)
    assert done.returncode == 2 and done.stdout == "" and not dest.exists()
    assert done.stderr.startswith(f"mdriver: --json {dest}: that file is also the output of --save-baseline")


def test_unsigned_char_build_parses_options(tmp_path):
    """The classic driver kept getopt's result in a char: on an unsigned-char
    platform it never equalled -1.  Built with -funsigned-char, ours still works."""
    driver = build_driver(extra=("CFLAGS=-O2 -g -funsigned-char", "BUILD=build/mm-a16-unsigned-char"))
    r = run(driver, "-g", "-v", "-a", "-r", "2", "-f", trace(tmp_path), tmp=tmp_path, timeout=60)
    assert r.rc == 0, r.err
    assert r.doc["settings"]["min_samples"] == 2
    assert r.out.splitlines()[-2:] == ["correct:1", f"perfidx:{r.summary['perf_index']:.0f}"]
    bad = subprocess.run([str(driver), "-q"], capture_output=True, text=True, timeout=30)
    assert bad.returncode == 2 and bad.stderr == "mdriver: unknown option -q (mdriver -h for help)\n"


def test_g_prints_the_classic_grade_lines(tmp_path):
    files = ["-f", trace(tmp_path, "good"), "-f", write_trace(tmp_path, "bad", ["a 0 16", "a 1 777"], weight=1)]
    r = run(broken("segv"), "-g", *files, tmp=tmp_path)
    assert r.rc == 1
    grade = [line for line in r.out.splitlines() if re.match(r"^(correct|perfidx):", line)]
    assert grade == ["correct:1", f"perfidx:{r.summary['perf_index']:.0f}"]
    without = run(broken("segv"), *files, tmp=tmp_path)
    assert not re.search(r"^(correct|perfidx):", without.out, re.M)


def test_a_is_accepted_and_ignored(tmp_path, driver):
    r = run(driver, "-a", "-f", trace(tmp_path, weight=0), tmp=tmp_path)
    assert r.rc == 0 and r.trace("t")["outcome"] == "ok"


def test_l_shows_the_timing_spread(tmp_path, driver):
    r = run(driver, "-l", "-f", trace(tmp_path), tmp=tmp_path)
    row = r.row("t")[0]
    t = r.trace("t")
    assert f"({len(t['timing']['samples'])} samples), libc" in row and f"({len(t['libc']['samples'])})" in row
    assert "Kops range" not in run(driver, "-f", trace(tmp_path), tmp=tmp_path).row("t")[0]


def test_l_spread_runs_from_the_slowest_sample_to_the_fastest(tmp_path, driver):
    """The range is the Kops of the slowest sample, then of the fastest, for the allocator and for
    libc, from the samples the JSON lists.  Only the sample counts were checked: the two ends
    swapped, or the slowest taken as the fastest, left every test passing."""
    r = run(driver, "-l", "-r", "7", "-f", trace(tmp_path), tmp=tmp_path)
    t = r.trace("t")

    def spread(samples):
        return f"{len(OPS) / max(samples) / 1e3:.0f}-{len(OPS) / min(samples) / 1e3:.0f}"

    mine, libc = t["timing"]["samples"], t["libc"]["samples"]
    assert f"Kops range {spread(mine)} ({len(mine)} samples), libc {spread(libc)} ({len(libc)})" in r.row("t")[0]


def test_l_under_a_saved_baseline_shows_no_libc_spread(tmp_path, driver):
    """A saved baseline keeps libc's estimate, not its samples: -l showed that one figure as a
    range of one sample (`libc 116580-116580 (1)`), a spread no run measured."""
    base = tmp_path / "base.txt"
    assert run(driver, "-f", trace(tmp_path), "--save-baseline", base, tmp=tmp_path).rc == 0
    row = run(driver, "-l", "-f", trace(tmp_path), "--baseline", base, tmp=tmp_path).row("t")[0]
    assert "Kops range" in row and row.endswith("libc from the baseline (no samples this run)")


def test_v_quotes_the_allocator_output_and_V_adds_progress_and_stats(tmp_path):
    chatty = broken("chatty")
    plain = run(chatty, "-f", trace(tmp_path), tmp=tmp_path)
    assert "the allocator printed" not in plain.out and "[1/1]" not in plain.out
    v = run(chatty, "-v", "-f", trace(tmp_path), tmp=tmp_path)
    assert "the allocator printed" in v.out and "        | perfidx:100" in v.out
    assert "[1/1]" not in v.out
    seg = variant("segregated")
    files = ["-f", trace(tmp_path, "one"), "-f", trace(tmp_path, "two")]
    big_v = run(seg, "-V", *files, tmp=tmp_path)
    assert re.search(r"^  \[1/2\] one +ok \(\d+\.\d\d s\)$", big_v.out, re.M)
    assert re.search(r"^  \[2/2\] two +ok", big_v.out, re.M)
    stats = big_v.trace("one")["stats"]
    assert stats and stats["mallocs"] > 0
    assert f"stats: mallocs={stats['mallocs']} " in big_v.out
    assert "stats:" not in run(seg, "-v", *files, tmp=tmp_path).out


def test_r_sets_the_minimum_number_of_samples(tmp_path, driver):
    r = run(driver, "-r", "7", "-f", trace(tmp_path), tmp=tmp_path)
    t = r.trace("t")
    assert r.doc["settings"]["min_samples"] == 7
    assert 7 <= len(t["timing"]["samples"]) <= 25 and 7 <= len(t["libc"]["samples"]) <= 25
    assert t["timing"]["seconds"] == pytest.approx(kbest(t["timing"]["samples"]), rel=1e-6)
    assert t["libc"]["seconds"] == pytest.approx(kbest(t["libc"]["samples"]), rel=1e-6)


@pytest.mark.parametrize("arg,size", [("1M", 2**20), ("64K", 65536), ("100000", 100000), ("2MiB", 2 * 2**20),
                                      ("4G", 4 * 2**30)])
def test_M_sets_the_maximum_heap(tmp_path, driver, arg, size):
    r = run(driver, "-M", arg, "-f", trace(tmp_path, weight=0), tmp=tmp_path)
    assert r.rc == 0, r.err
    assert r.doc["settings"]["max_heap"] == size
    assert f"heap limit {size} bytes" in r.out.splitlines()[0]


def test_T_sets_the_time_limit(tmp_path, driver):
    r = run(driver, "-T", "7", "-f", trace(tmp_path, weight=0), tmp=tmp_path)
    assert r.doc["settings"]["time_limit"] == 7
    assert run(driver, "-f", trace(tmp_path, weight=0), tmp=tmp_path).doc["settings"]["time_limit"] == \
        describe_default_time_limit(driver)


def describe_default_time_limit(driver) -> int:
    m = re.search(r"-T SECS .*\(default (\d+)\)", subprocess.run([str(driver), "-h"], capture_output=True,
                                                                  text=True).stdout)
    assert m
    return int(m.group(1))


def test_t_and_f_together_and_the_default_directory(tmp_path, driver):
    suite = tmp_path / "traces"
    suite.mkdir()
    trace(suite, "in-dir", weight=0)
    r = run(driver, "-t", suite, "-f", trace(tmp_path, "extra", weight=0), tmp=tmp_path)
    assert sorted(t["name"] for t in r.doc["traces"]) == ["extra", "in-dir"]
    # No -t or -f: ./traces in the current directory.
    default = run(driver, tmp=tmp_path, cwd=tmp_path)
    assert default.rc == 0, default.err
    assert [t["name"] for t in default.doc["traces"]] == ["in-dir"]


def test_every_t_directory_runs(tmp_path, driver):
    one, two = tmp_path / "one", tmp_path / "two"
    one.mkdir()
    two.mkdir()
    trace(one, "first", weight=0)
    trace(two, "second", weight=0)
    r = run(driver, "-t", one, "-t", two, tmp=tmp_path)
    assert r.rc == 0, r.err
    assert [t["name"] for t in r.doc["traces"]] == ["first", "second"]


def test_json_to_stdout_and_to_a_file_descriptor(tmp_path, driver):
    t = trace(tmp_path, weight=0)
    dash = subprocess.run([str(driver), "--json", "-", "-f", str(t)], capture_output=True, text=True)
    assert dash.returncode == 0
    assert json.loads(dash.stdout)["traces"][0]["outcome"] == "ok"
    assert "Perf index" in dash.stderr
    one = subprocess.run([str(driver), "--json", "fd:1", "-f", str(t)], capture_output=True, text=True)
    assert one.returncode == 0, one.stderr  # stdout still open for its check at exit
    assert json.loads(one.stdout)["traces"][0]["name"] == "t" and "Perf index" in one.stderr
    target = tmp_path / "via-fd.json"
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        done = subprocess.run([str(driver), "--json", f"fd:{fd}", "-f", str(t)], capture_output=True, text=True,
                              pass_fds=(fd,))
    finally:
        os.close(fd)
    assert done.returncode == 0 and "Perf index" in done.stdout
    assert json.loads(target.read_text())["traces"][0]["outcome"] == "ok"
    for doc in (json.loads(dash.stdout), json.loads(one.stdout), json.loads(target.read_text())):
        schema_validator().validate(doc)


def test_json_to_the_file_stdout_or_stderr_goes_to_is_that_stream(tmp_path, driver):
    """`--json /dev/stdout > run.txt` renamed the JSON over run.txt, and the table, written to the
    file it replaced, was lost; through a pipe (`| jq`) the table came before the JSON.  A path
    naming the file stdout writes to is stdout, as `-` is (the table to stderr), and one naming
    stderr's is stderr, as fd:2 is: the messages written there before are kept."""
    t = trace(tmp_path, weight=0)
    piped = subprocess.run([str(driver), "-r", "1", "-f", str(t), "--json", "/dev/stdout"], capture_output=True,
                           text=True)
    assert piped.returncode == 0, piped.stderr
    assert json.loads(piped.stdout)["traces"][0]["outcome"] == "ok" and "Perf index" in piped.stderr
    out = tmp_path / "run.txt"
    with open(out, "w") as f:
        done = subprocess.run([str(driver), "-r", "1", "-f", str(t), "--json", str(out)], stdout=f,
                              stderr=subprocess.PIPE, text=True)
    assert done.returncode == 0, done.stderr
    assert json.loads(out.read_text())["traces"][0]["outcome"] == "ok" and "Perf index" in done.stderr
    bad = tmp_path / "bad.rep"
    bad.write_text("20000\n2\n1\n1\nx 0 1\n")
    log = tmp_path / "log.txt"
    with open(log, "w") as f:
        done = subprocess.run([str(driver), "-r", "1", "-f", str(t), "-f", str(bad), "--json", "/dev/stderr"],
                              stdout=subprocess.PIPE, stderr=f, text=True)
    assert done.returncode == 2 and "Perf index" in done.stdout
    lines = log.read_text().splitlines()
    assert lines[0] == f"mdriver: {bad}:5: bad token 'x': expected an op (a, f, r or n)"
    assert json.loads(lines[-1])["summary"]["bad_traces"] == 1


def test_a_baseline_saved_where_stdout_or_stderr_goes_is_refused(tmp_path, driver):
    """`--save-baseline /dev/stdout > run.txt` renamed the baseline over run.txt: the table was
    lost without a word, as were stderr's messages with /dev/stderr.  Refused before any trace
    runs; /dev/null and a terminal are still written directly."""
    t = trace(tmp_path, weight=0)
    for dest, std, goes in (("/dev/stdout", "stdout", "stdout (the table)"), ("/dev/stderr", "stderr",
                                                                              "stderr (the messages)")):
        out = tmp_path / f"{std}.txt"
        with open(out, "w") as f:
            streams = {"stdout": f, "stderr": subprocess.PIPE} if std == "stdout" else {"stdout": subprocess.PIPE,
                                                                                       "stderr": f}
            done = subprocess.run([str(driver), "-r", "1", "-f", str(t), "--save-baseline", dest], text=True,
                                  **streams)
        err = done.stderr if std == "stdout" else out.read_text()
        assert done.returncode == 2 and "mdriver-baseline" not in out.read_text(), err
        assert err == f"mdriver: --save-baseline {dest}: that is where {goes} goes; a baseline is a file of its " \
                      "own (mdriver -h for help)\n"


def test_json_file_is_replaced_only_by_a_finished_run(tmp_path, driver):
    """--json FILE was emptied at start-up: a run stopped half-way destroyed an earlier
    result.  The document is now written beside FILE and renamed over it at the end: a
    run killed half-way leaves the earlier result, an interrupted one (SIGTERM) replaces it
    whole with what it completed, marked interrupted (test_driver_interrupt.py)."""
    import signal
    import time
    dest = tmp_path / "r.json"
    dest.write_text("an earlier result\n")
    for sig in (signal.SIGKILL, signal.SIGTERM):
        read_end, write_end = os.pipe()  # a trace whose writer never finishes: the run waits on it
        os.write(write_end, b"20000 1 2 1\na 0 16\n")
        try:
            proc = subprocess.Popen([str(driver), "-f", str(trace(tmp_path)), "-f", f"/dev/fd/{read_end}",
                                     "--json", str(dest)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                    pass_fds=(read_end,))
            time.sleep(1.5)
            assert proc.poll() is None and dest.read_text() == "an earlier result\n"
            proc.send_signal(sig)
            _, err = proc.communicate(timeout=30)
        finally:
            os.close(read_end)
            os.close(write_end)
        assert [p.name for p in tmp_path.iterdir() if p.name.startswith("r.json")] == ["r.json"]
        if sig == signal.SIGKILL:
            assert proc.returncode == -signal.SIGKILL and dest.read_text() == "an earlier result\n"
    # the pipe's trace was being read: not completed, and not called malformed
    assert proc.returncode == 128 + signal.SIGTERM, err
    assert b"cannot read" not in err and b"interrupted by SIGTERM during trace 2 of 2" in err
    partial = json.loads(dest.read_text())
    assert partial["interrupted"]["during"] == f"/dev/fd/{read_end}"
    assert [t["name"] for t in partial["traces"]] == ["t"]
    done = subprocess.run([str(driver), "-f", str(trace(tmp_path, weight=0)), "--json", str(dest)],
                          capture_output=True, text=True)
    assert done.returncode == 0
    assert json.loads(dest.read_text())["traces"][0]["name"] == "t"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith("r.json")] == ["r.json"]


def test_json_and_baseline_through_a_symbolic_link(tmp_path, driver):
    """Replaced whole (written beside, renamed over): through a link, the file it names
    is replaced, not the link.  /dev/null, which cannot be renamed over, is written directly."""
    (tmp_path / "real").mkdir()
    for flag in ("--json", "--save-baseline"):
        link = tmp_path / f"link{flag}"
        link.symlink_to(tmp_path / "real" / f"out{flag}")
        done = subprocess.run([str(driver), "-r", "1", "-f", str(trace(tmp_path)), flag, str(link)],
                              capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        assert link.is_symlink() and (tmp_path / "real" / f"out{flag}").stat().st_size > 0
        done = subprocess.run([str(driver), "-r", "1", "-f", str(trace(tmp_path)), flag, "/dev/null"],
                              capture_output=True, text=True)
        assert done.returncode == 0 and done.stderr == ""
    assert sorted(p.name for p in (tmp_path / "real").iterdir()) == ["out--json", "out--save-baseline"]


@pytest.mark.parametrize("args", [["-r", "1", "-f", "{trace}"], ["--parse-only", "-f", "{trace}"], ["--describe"],
                                  ["-h"], ["-r", "1", "-f", "{trace}", "--json", "-"]])
def test_output_that_cannot_be_written_is_a_failure(tmp_path, driver, args):
    """`mdriver -f t.rep > /dev/full` exited 0 with the table lost: now one line and status 2."""
    argv = [a.format(trace=trace(tmp_path)) for a in args]
    with open("/dev/full", "w") as full:
        done = subprocess.run([str(driver), *argv], stdout=full, stderr=subprocess.PIPE, text=True)
    assert done.returncode == 2
    what = "--json -" if "--json" in args else "stdout"
    assert done.stderr.splitlines()[-1] == f"mdriver: {what}: write failed: No space left on device"
    assert done.stderr.count("write failed") == 1


@pytest.mark.parametrize("closed", [0, 1, 2])
def test_a_run_started_without_a_standard_descriptor_completes(tmp_path, driver, closed):
    """`mdriver 2>&-` (or `>&-`): a trace child's channel pipe took the free number, the child
    put its output there and closed it, and the driver died of SIGPIPE (exit 141), no table and
    no JSON.  Now the run completes; a closed stdout is still a failure, said on stderr."""
    dest = tmp_path / "r.json"
    out = tmp_path / "out.txt"
    with open(out, "w") as to:
        done = subprocess.run([str(driver), "-r", "1", "-f", str(trace(tmp_path)), "--json", str(dest)],
                              stdout=to, stderr=subprocess.PIPE, text=True, timeout=120,
                              preexec_fn=lambda: os.close(closed))
    assert json.loads(dest.read_text())["traces"][0]["outcome"] == "ok"
    if closed == 1:
        assert done.returncode == 2 and done.stderr == "mdriver: stdout: write failed: Bad file descriptor\n"
    else:
        assert done.returncode == 0 and "Perf index = " in out.read_text(), done.stderr


def run_with_secret(tmp_path, driver, secret: bytes):
    """The driver on a small trace, given SECRET through --secret-fd."""
    read_end, write_end = os.pipe()
    os.write(write_end, secret)
    os.close(write_end)
    try:
        return run(driver, "--secret-fd", str(read_end), "-f", trace(tmp_path, weight=0), tmp=tmp_path,
                   pass_fds=(read_end,))
    finally:
        os.close(read_end)


def test_secret_fd_is_echoed_in_the_json(tmp_path, driver):
    r = run_with_secret(tmp_path, driver, b"s3cr3t-token-42\nignored second line\n")
    assert r.rc == 0
    assert r.doc["secret"] == "s3cr3t-token-42"
    assert run(driver, "-f", trace(tmp_path, weight=0), tmp=tmp_path).doc["secret"] is None


def test_secret_too_long_is_refused_not_cut(tmp_path, driver):
    """A secret over 255 bytes was cut to 255 in the JSON, which then never matched."""
    for length, ok in ((255, True), (256, False), (5000, False)):
        r = run_with_secret(tmp_path, driver, b"s" * length + b"\n")
        if ok:
            assert r.rc == 0 and r.doc["secret"] == "s" * length
        else:
            assert r.rc == 2 and r.doc is None and "Perf index" in r.out
            assert re.fullmatch(r"mdriver: --secret-fd \d+: the secret is longer than 255 bytes; no JSON written\n", r.err)


def test_a_secret_fd_that_cannot_be_read_is_refused(tmp_path, driver):
    """A descriptor open only for writing, or a folder's, gave an empty secret in the JSON and
    exit 0, which a grader then took for a secret that did not match, not for its own mistake."""
    fd = os.open(tmp_path / "out", os.O_WRONLY | os.O_CREAT)
    try:
        done = subprocess.run([str(driver), "--secret-fd", str(fd), "--json", "-", "-f", trace(tmp_path)],
                              capture_output=True, text=True, timeout=60, pass_fds=(fd,))
    finally:
        os.close(fd)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == f"mdriver: --secret-fd {fd}: not open for reading (mdriver -h for help)\n"
    fd = os.open(tmp_path, os.O_RDONLY)  # open, readable, but read() fails (EISDIR)
    try:
        r = run(driver, "--secret-fd", str(fd), "-f", trace(tmp_path, weight=0), tmp=tmp_path, pass_fds=(fd,))
    finally:
        os.close(fd)
    assert r.rc == 2 and r.doc is None and "Perf index" in r.out
    assert r.err == f"mdriver: --secret-fd {fd}: cannot read it: Is a directory; no JSON written\n"


def test_a_signal_ends_the_wait_for_a_secret_that_never_comes(tmp_path, driver):
    """A --secret-fd pipe whose writer never wrote held the finished run for good, deaf to
    Ctrl-C, SIGTERM and --run-limit: the read was retried on every signal.  Now a signal ends
    the wait, in one line, with no JSON (a secret already there is still read: the grader's)."""
    import signal
    import time
    from pathlib import Path
    read_end, write_end = os.pipe()
    dest = tmp_path / "r.json"
    try:
        proc = subprocess.Popen([str(driver), "-r", "1", "-f", str(trace(tmp_path)), "--json", str(dest),
                                 "--secret-fd", str(read_end)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True, pass_fds=(read_end,))
        proc_dir, waiting = Path(f"/proc/{proc.pid}"), False
        for _ in range(600):  # the trace done (no child left), the driver sleeps on the pipe
            wchan, kids = (proc_dir / "wchan").read_text(), (proc_dir / "task" / str(proc.pid) / "children").read_text()
            if (waiting := not kids.strip() and ("pipe_read" in wchan or "poll" in wchan)):
                break
            time.sleep(0.1)
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=30)
    finally:
        os.close(read_end)
        os.close(write_end)
        if proc.poll() is None:
            proc.kill()
    assert waiting
    assert proc.returncode == 2, err
    assert err == f"mdriver: --secret-fd {read_end}: interrupted by SIGTERM before the secret came; no JSON written\n"
    assert not dest.exists()


def test_describe(driver):
    d = describe(driver)
    assert d["schema"] == 1 and d["alignment"] == 16
    assert 0 < d["util_weight"] < 1 and d["throughput_cap"] > 0
    schema = json.loads((driver.parent.parent.parent / "schema" / "mdriver-result.schema.json").read_text())
    assert [o["name"] for o in d["outcomes"]] == schema["$defs"]["outcome"]["enum"]


def test_describe_explains_each_outcome_in_words_of_its_own(driver):
    """Each outcome's explanation is a sentence of its own, not its name: explanations that gave
    the names back left every test passing (they were only checked to be non-empty)."""
    outcomes = describe(driver)["outcomes"]
    explanations = [o["explanation"] for o in outcomes]
    assert len(set(explanations)) == len(outcomes)
    assert all(" " in o["explanation"] and o["explanation"] != o["name"] for o in outcomes)


SAN_CASES = [(["-z"], 2), (["-h"], 0), (["--describe"], 0), (["--parse-only", "-f", "{trace}"], 0),
             (["--json", "{tmp}/missing/x.json", "-f", "{trace}"], 2), (["-V", "-g", "-l", "-f", "{trace}"], 0),
             (["-f", "{tmp}/missing.rep", "-f", "{trace}"], 2)]


@pytest.mark.parametrize("args,status", SAN_CASES, ids=[" ".join(a) for a, _ in SAN_CASES])
def test_sanitized_driver_is_clean(tmp_path, args, status):
    """Built with ASan and UBSan: no leak, no error report, the documented exit status."""
    driver = build_driver(sanitize=True)
    t = trace(tmp_path)
    argv = [a.format(trace=t, tmp=tmp_path) for a in args]
    done = subprocess.run([str(driver), *argv], capture_output=True, text=True, timeout=120)
    assert done.returncode == status, done.stderr
    assert "Sanitizer" not in done.stderr and "runtime error" not in done.stderr


def test_sanitized_driver_replays_a_trace_of_no_ops(tmp_path):
    """A trace whose header says 0 ops is valid, and had no ops array: the timed runs copied
    it with memcpy(dst, NULL, 0), and UBSan stopped the driver before its table (exit 1)."""
    driver = build_driver(sanitize=True)
    empty = write_trace(tmp_path, "empty", [], weight=1)
    done = subprocess.run([str(driver), "-r", "1", "-f", str(empty), "-f", str(trace(tmp_path))],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "Sanitizer" not in done.stderr and "runtime error" not in done.stderr
    assert "Perf index = " in done.stdout


@pytest.mark.parametrize("var,bad", [("MDRIVER_CPUS", "togther"), ("MDRIVER_AUDIT_WINDOW", " 5")])
def test_an_empty_mdriver_variable_is_unset(tmp_path, driver, var, bad):
    """MDRIVER_CPUS= ran as unset while MDRIVER_AUDIT_WINDOW= was refused.  One helper
    (options_env) now reads both: empty is no setting, as POSIX takes an empty LANG (so
    `VAR= cmd` or a wrapper's `VAR=$(UNSET)` clears it); a value it does not take is refused."""
    t = trace(tmp_path)
    env = {k: v for k, v in os.environ.items() if not k.startswith("MDRIVER_")}
    unset = run(driver, "-r", "1", "-f", t, tmp=tmp_path, env=env)
    empty = run(driver, "-r", "1", "-f", t, tmp=tmp_path, env={**env, var: ""})
    assert unset.rc == empty.rc == 0 and empty.err == "", empty.out + empty.err
    assert [x["outcome"] for x in empty.doc["traces"]] == [x["outcome"] for x in unset.doc["traces"]] == ["ok"]
    refused = run(driver, "-r", "1", "-f", t, tmp=tmp_path, env={**env, var: bad})
    assert refused.rc == 2 and refused.out == "" and refused.err.startswith(f"mdriver: {var}={bad}: "), refused.err
    assert len(refused.err.splitlines()) == 1


def test_verbose_names_a_trace_while_it_runs(tmp_path):
    """-V printed a trace's progress line only once the trace was over: an allocator stuck in a
    loop left the driver silent up to -T (60 s) with no trace named. The line's start is out as
    the trace starts, so a run stopped during it ends the line with "interrupted"."""
    script, args = stopped_driver(tmp_path, after=3.0)
    done = subprocess.run([str(script), "-V", *args], capture_output=True, text=True, timeout=60)
    assert done.returncode == 124, done.stdout + done.stderr  # timeout(1)'s: it sent the SIGTERM
    lines = done.stdout.splitlines()
    assert re.fullmatch(r"  \[1/2\] honest +ok \(\d+\.\d\d s\)", lines[2]), lines
    assert re.fullmatch(r"  \[2/2\] stuck +interrupted", lines[3]), lines
    assert lines[4] == "" and lines[5].split()[:2] == ["#", "trace"]

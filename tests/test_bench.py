"""The benchmark studies: parsers, data model, rendering, the trace replayer, and tiny end-to-end
runs of each study's command line with its one-line refusals."""
from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys

import pytest

from bench_common import HEADER, built, run_cli
from conftest import build_driver
from shim_common import KIT, bench_program

from bench import align, programs, report, sizes, stress, threads  # noqa: E402
from bench.allocators import discover  # noqa: E402
from bench.measure import Summary, parse_kv, summarize  # noqa: E402


def test_summarize_gives_median_and_range():
    s = summarize([3.0, 1.0, 2.0, 10.0])
    assert (s.median, s.lo, s.hi, s.n) == (2.5, 1.0, 10.0, 4)
    assert summarize([]) is None
    assert Summary.from_json(s.to_json()) == s


def test_cell_shows_median_range_and_ratio():
    base, s = Summary(10.0, 9.0, 11.0, 3), Summary(25.0, 20.0, 30.0, 3)
    assert report.cell(s, base) == "25 [20–30] ×2.50"
    assert report.cell(None) == "–"
    assert report.fmt_num(123456.0) == "123,456"


def test_fmt_num_never_writes_an_exponent_at_a_thousand():
    """999.6 ns had been written 1e+03: `.3g` rounds it to four digits, past the 1000 test."""
    assert [report.fmt_num(x) for x in (999.4, 999.6, 1000.0, 1234.5)] == ["999", "1,000", "1,000", "1,234"]
    assert report.fmt_num(0.0059, 4) == "0.0059" and report.fmt_num(999.96, 4) == "1,000"


def test_parse_kv_ignores_words_without_equals():
    assert parse_kv("threads=2 noise seconds=0.5") == {"threads": "2", "seconds": "0.5"}


def test_machine_note_says_how_many_cores():
    import os
    note = report.machine_note()
    assert f"{os.cpu_count()} cores" in note
    if (os.cpu_count() or 1) <= 2:
        assert "oversubscribe" in note


def test_discover_reports_what_it_skips(tmp_path):
    (tmp_path / "variants").mkdir()
    (tmp_path / "build").mkdir()
    for name in ("alpha", "beta"):
        (tmp_path / "variants" / f"{name}.c").write_text("")
    (tmp_path / "build" / "libmm-alpha.so").write_text("")
    found, skipped = discover(tmp_path, lib_dirs=(str(tmp_path / "nolibs"),))
    assert [a.name for a in found] == ["glibc", "alpha"]
    assert found[1].preload.endswith("libmm-alpha.so")
    assert any(s.startswith("jemalloc: package libjemalloc2 not installed") for s in skipped)
    assert any(s.startswith("beta: build/libmm-beta.so was not built") for s in skipped)
    found, skipped = discover(tmp_path, shims=["gamma"], packages=False)
    assert [a.name for a in found] == ["glibc"] and skipped == ["gamma: no variants/gamma.c, skipped"]


def test_sizes_program_output_parses():
    out = subprocess.run([str(bench_program("sizes")), "-k", "calloc", "-a", "3", "-b", "6", "-n", "50"],
                         capture_output=True, text=True, check=True).stdout
    rows = sizes.parse(out + "noise line\n")
    assert [r["size"] for r in rows] == [8, 16, 32, 64]
    assert all(r["kind"] == "calloc" and r["steady_ns"] > 0 and r["first_ns"] >= 0 for r in rows)
    assert sizes.parse("kind=malloc size=1024 failed=1\n") == [{"kind": "malloc", "size": 1024, "failed": True}]


def test_threadtest_output_parses():
    out = subprocess.run([str(bench_program("threadtest")), "-t", "2", "-r", "3", "-b", "50"],
                         capture_output=True, text=True, check=True).stdout
    row = threads.parse(out)
    assert row["threads"] == 2 and row["ops"] == 2 * 3 * 50 * 2 and row["errors"] == 0
    assert row["seconds"] > 0 and row["hwm_kb"] > 0
    assert threads.parse("nothing here") is None


def test_replay_and_align_output_parse(tmp_path):
    trace = tmp_path / "t.rep"
    trace.write_text("1\n3\n6\n100\na 0 10\na 1 5000\nr 0 300\nf 1\nn 2 64\nf 0\n")
    out = subprocess.run([str(bench_program("replay")), str(trace)], capture_output=True, text=True, check=True)
    assert stress.parse(out.stdout)["ops"] == 6
    bad = tmp_path / "bad.rep"
    bad.write_text("1\n3\n2\n100\na 0 10\nx 9 9\n")
    done = subprocess.run([str(bench_program("replay")), str(bad)], capture_output=True, text=True)
    assert done.returncode == 2 and done.stderr.startswith(f"replay: {bad}:6: ")
    out = subprocess.run([str(bench_program("alignpipe")), "-k", "page", "-s", "8192", "-m", "2"],
                         capture_output=True, text=True, check=True).stdout
    row = align.parse(out)
    assert row["kind"] == "page" and row["size"] == 8192 and row["offset"] == 0 and row["mbps"] > 0


def test_stress_counters_come_from_the_replay_process():
    stats = ({"comm": "bash", "mm": {"mallocs": 1}},
             {"comm": "replay", "mm": {"mallocs": 7, "extensions": 2, "free_blocks": 1}})
    got = stress.program_counters(stats)
    assert got["mallocs"] == 7 and got["grows"] == 2 and got["blocks"] == 1 and got["splits"] == 0
    assert stress.program_counters(()) == {}


def test_results_round_trip_through_json():
    s = Summary(1.0, 0.5, 2.0, 3)
    cases = [
        sizes.Result(("glibc",), 3, (sizes.Point("glibc", "malloc", 8, s, s), sizes.Point("glibc", "calloc", 8, None, None, True))),
        threads.Result(("glibc",), (1, 2), 2, ("-r", "5"), (threads.Cell("glibc", 1, {"seconds": s, "heap_kb": None}),)),
        stress.Result("fit.rep", 10, 15, (stress.Row("glibc", s, {}), stress.Row("implicit-first", s, {"mallocs": 5}, 1))),
        align.Result(("glibc",), (4096,), 1, 8.0, (align.Point("glibc", "odd", 4096, s, (17,)),)),
        programs.Result(("glibc",), ("sort",), {"sort": "sorting"}, 1, (programs.Row("glibc", "sort", s, s, 0, 1),)),
    ]
    for res in cases:
        data = json.loads(json.dumps(res.to_json()))
        assert type(res).from_json(data) == res


def test_sizes_tables_and_plots_from_a_result(tmp_path):
    pts = []
    for alloc, scale in (("glibc", 1.0), ("best", 2.0)):
        for kind in sizes.KINDS:
            for size in (2, 1024, 1 << 20):
                pts.append(sizes.Point(alloc, kind, size, Summary(100 * scale, 90, 110, 2),
                                       Summary(10 * scale, 9 * scale, 12 * scale, 2)))
    res = sizes.Result(("glibc", "best"), 2, tuple(pts))
    path = sizes.write(res, tmp_path, ["mimalloc: package libmimalloc2.0 not installed, skipped"], 1, 20, 100, 1 << 20)
    text = path.read_text()
    assert "| 1 MiB | 10 [9–12] ×1.00 | 20 [18–24] ×2.00 |" in text
    assert "Skipped: mimalloc" in text
    assert (tmp_path / "bench-sizes.png").stat().st_size > 1000
    assert (tmp_path / "bench-sizes-glibc.png").stat().st_size > 1000
    assert sizes.Result.from_json(json.loads((tmp_path / "bench-sizes.json").read_text())) == res


def test_threads_verdict_compares_the_two_thread_safe_variants():
    s = lambda m: Summary(m, m, m, 1)  # noqa: E731
    cells = (threads.Cell("ts-lock", 4, {"seconds": s(2.0), "region_kb": s(100.0)}),
             threads.Cell("ts-nolock", 4, {"seconds": s(1.0), "region_kb": s(120.0)}))
    res = threads.Result(("ts-lock", "ts-nolock"), (4,), 1, (), cells)
    assert "4 threads: ts-nolock takes 0.50× ts-lock's time with 1.20× its heap" in threads.verdict(res)


TRACES = {                                  # name: text (bytes: gzip'd)
    "hex": HEADER + "a 0 0x10\nf 0\n",
    "neg": HEADER + "a 0 -1\nf 0\n",
    "more-ops-claimed": "20000\n2\n9\n1\na 0 8\nf 0\n",
    "bad-letter": HEADER + "x 0 8\nf 0\n",
    "one-line-header": "20000 2 4 1\na 0 8\nf 0\na 1 16\nf 1\n",
    "long-comment": HEADER + "#" + "x" * 400 + "\na 0 8\nf 0\n",
    "gzip": gzip.compress((HEADER + "a 0 8\nf 0\n").encode()),
}


@pytest.mark.parametrize("name", list(TRACES))
def test_replay_accepts_and_refuses_what_the_driver_does(tmp_path, name):
    """build/bench/replay reads a trace with the driver's parser: it replays every trace
    `mdriver --parse-only` accepts and refuses every other with the driver's message."""
    text = TRACES[name]
    trace = tmp_path / (f"{name}.rep.gz" if isinstance(text, bytes) else f"{name}.rep")
    trace.write_bytes(text if isinstance(text, bytes) else text.encode())
    driver = build_driver()
    parsed = subprocess.run([str(driver), "--parse-only", "-f", str(trace)], capture_output=True, text=True)
    done = subprocess.run([str(bench_program("replay")), str(trace)], capture_output=True, text=True)
    if parsed.returncode == 0:
        ops = int(parsed.stdout.split()[1])
        assert done.returncode == 0 and stress.parse(done.stdout)["ops"] == ops, done.stderr
    else:
        assert done.returncode == 2 and done.stdout == ""
        assert done.stderr.removeprefix("replay: ") == parsed.stderr.removeprefix("mdriver: ")
    assert len(done.stderr.splitlines()) <= 1


def test_replay_reads_the_suites_gzip_trace():
    trace = KIT / "traces" / "rec-gcc.rep.gz"
    done = subprocess.run([str(bench_program("replay")), str(trace), "-r", "0"], capture_output=True, text=True)
    assert done.returncode == 0 and stress.parse(done.stdout)["ops"] > 0, done.stderr


def test_cli_sizes_tiny_run(built, tmp_path):
    done = run_cli("sizes", "--quick", "--only", "ts-lock", "--max-log2", "8", "--out", str(tmp_path))
    assert done.returncode == 0, done.stderr
    text = (tmp_path / "bench-sizes.md").read_text()
    assert "| size | glibc | ts-lock |" in text and "| 256 B |" in text and "| 512 B |" not in text
    assert "×1.00" in text and "cores" in text


def test_cli_threads_tiny_run(built, tmp_path):
    done = run_cli("threads", "--quick", "--only", "ts-lock,ts-nolock", "--threads", "1,4", "--out", str(tmp_path))
    assert done.returncode == 0, done.stderr
    res = threads.Result.from_json(json.loads((tmp_path / "bench-threads.json").read_text()))
    assert res.allocators == ("glibc", "ts-lock", "ts-nolock") and res.threads == (1, 4)
    assert all(c.errors == 0 and c.values["seconds"] for c in res.cells)
    assert res.value("ts-nolock", 4, "region_kb").median > 0
    assert "4 threads: ts-nolock takes" in (tmp_path / "bench-threads.md").read_text()


def test_cli_stress_tiny_run(built, tmp_path):
    trace = tmp_path / "tiny.rep"
    trace.write_text("0\n4\n8\n1\na 0 100\na 1 2000\na 2 100\nf 1\na 3 500\nf 0\nf 2\nf 3\n")
    done = run_cli("stress", "--only", "ts-lock", "--reps", "2", "--trace", str(trace), "--out", str(tmp_path))
    assert done.returncode == 0, done.stderr
    res = stress.Result.from_json(json.loads((tmp_path / "bench-stress.json").read_text()))
    assert res.ops == 8 and res.reps == 2
    row = next(r for r in res.rows if r.allocator == "ts-lock")
    assert row.seconds.n == 2 and row.counters["mallocs"] >= 4 and row.counters["frees"] >= 4
    assert "| ts-lock |" in (tmp_path / "bench-stress.md").read_text()


def test_cli_stress_refuses_a_bad_trace_before_any_run(tmp_path):
    trace = tmp_path / "hex.rep"
    trace.write_text(TRACES["hex"])
    done = run_cli("stress", "--only", "glibc", "--trace", str(trace), "--out", str(tmp_path / "out"))
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines() == [
        f"python -m bench: {trace}:5: bad token '0x10': size must be a non-negative integer"]
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("args, message", [
    (["sizes", "--out", ""], "python -m bench sizes: --out: an empty folder name; name one"),
    (["align", "--kit", ""], "python -m bench align: --kit: an empty folder name; name one"),
    (["stress", "--trace", ""], "python -m bench stress: --trace: an empty file name; name one"),
    (["summary", "--out", ""], "python -m bench summary: --out: an empty folder name; name one"),
])
def test_cli_refuses_an_empty_path_before_any_run(tmp_path, args, message):
    """Path('') is the current folder: `sizes --out ''` had measured for minutes and written its
    page there, `summary --out ''` read and wrote the current folder."""
    done = subprocess.run([sys.executable, "-m", "bench", *args], capture_output=True, text=True, cwd=tmp_path,
                          env={**os.environ, "PYTHONPATH": str(KIT)}, timeout=60)
    assert done.returncode == 2 and done.stderr.strip().splitlines() == [message]
    assert list(tmp_path.iterdir()) == []


def test_cli_stress_writes_no_page_when_every_run_fails(tmp_path):
    """A trace the replay program accepts (-r 0) but every timed run fails on: one line, exit
    1, and the folder keeps no page (the default --out is docs/, the committed one)."""
    kit = tmp_path / "kit"
    (kit / "build" / "bench").mkdir(parents=True)
    (kit / "variants").mkdir()
    for helper in ("rusage", "witness.so"):
        (kit / "build" / "bench" / helper).symlink_to(bench_program(helper))
    fake = kit / "build" / "bench" / "replay"
    fake.write_text('#!/bin/sh\n[ "$3" = 0 ] && { echo "ops=2 repeats=0 seconds=0"; exit 0; }\n'
                    'echo "replay: crashed" >&2; exit 3\n')
    fake.chmod(0o755)
    trace = tmp_path / "t.rep"
    trace.write_text(HEADER + "a 0 8\nf 0\n")
    out = tmp_path / "out"
    done = run_cli("stress", "--kit", str(kit), "--only", "glibc", "--reps", "2", "--trace", str(trace),
                   "--out", str(out))
    assert done.returncode == 1 and "Traceback" not in done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert last == f"python -m bench: {trace}: every run failed (glibc): no page written"
    assert not out.exists()


def test_cli_align_tiny_run(built, tmp_path):
    done = run_cli("align", "--quick", "--only", "ts-lock", "--out", str(tmp_path))
    assert done.returncode == 0, done.stderr
    res = align.Result.from_json(json.loads((tmp_path / "bench-align.json").read_text()))
    assert res.get("glibc", "page", 4096).offsets == (0,)
    assert res.get("ts-lock", "odd", 32768).mbps.median > 0


def test_cli_programs_tiny_run(built, tmp_path):
    done = run_cli("programs", "--quick", "--only", "ts-nolock", "--out", str(tmp_path))
    assert done.returncode == 0, done.stderr
    res = programs.Result.from_json(json.loads((tmp_path / "bench-programs.json").read_text()))
    assert res.workloads == ("python", "sort", "gcc")
    for r in res.rows:
        assert r.failures == 0 and r.wrong == 0 and r.wall.median > 0 and r.rss_kb.median > 0


def test_cli_rejects_bad_input_in_one_line(tmp_path):
    done = run_cli("threads", "--only", "no-such-allocator", "--out", str(tmp_path))
    assert done.returncode == 2 and "no allocator named no-such-allocator" in done.stderr
    assert "Traceback" not in done.stderr
    done = run_cli("stress", "--trace", str(tmp_path / "missing.rep"), "--out", str(tmp_path))
    assert done.returncode == 1 and "missing.rep: no such trace" in done.stderr and "Traceback" not in done.stderr
    done = run_cli("stress", "--trace", "/dev/zero", "--out", str(tmp_path))
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [
        "python -m bench: /dev/zero: not a regular file, so not a trace the replay reads"]
    done = run_cli("threads", "--threads", "1,x", "--out", str(tmp_path))
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "python -m bench threads: Invalid value for --threads: not a list of numbers: 1,x"]
    done = run_cli("threads", "--threads", "1,2,01", "--out", str(tmp_path))   # had run 1 twice, pooled as one
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "python -m bench threads: Invalid value for --threads: 1 given twice (name each count once)"]
    done = run_cli("sizes", "--reps", "x", "--out", str(tmp_path))     # click's: "not a valid integer range"
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == ["python -m bench sizes: Invalid value for '--reps': 'x' is not a valid integer."]


@pytest.mark.parametrize("only", ["", ",,", " , "])
def test_cli_an_empty_only_list_is_one_line_not_every_allocator(tmp_path, only):
    done = run_cli("sizes", "--quick", "--only", only, "--out", str(tmp_path))
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines() == [
        f"python -m bench sizes: --only '{only}' names no allocator (give names separated by commas, or `all`)"]
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("study", ["sizes", "align", "threads", "stress", "programs"])
def test_cli_an_allocator_named_twice_is_one_line(tmp_path, study):
    """--only best,best ran best twice and pooled both runs as n=2 under "1 repetition"."""
    done = run_cli(study, "--quick", "--reps", "1", "--only", "best,glibc, best", "--out", str(tmp_path))
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines() == [
        f"python -m bench {study}: --only: best given twice (name each allocator once)"]
    assert not list(tmp_path.iterdir())


def test_cli_only_an_allocator_that_cannot_run_fails_in_one_line(tmp_path):
    """--only ts-lock without build/libmm-ts-lock.so: exit 1 and one line, not a page of glibc alone."""
    kit = tmp_path / "kit"
    (kit / "build" / "bench").mkdir(parents=True)
    (kit / "variants").mkdir()
    (kit / "variants" / "ts-lock.c").write_text("")
    for prog in ("rusage", "witness.so", "sizes"):
        (kit / "build" / "bench" / prog).symlink_to(bench_program(prog))
    out = tmp_path / "out"
    done = run_cli("sizes", "--kit", str(kit), "--quick", "--only", "ts-lock", "--max-log2", "4", "--out", str(out))
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines() == [
        "python -m bench: --only: cannot run ts-lock: build/libmm-ts-lock.so was not built "
        "(make shim VARIANT=ts-lock)"]
    assert not out.exists()


@pytest.mark.parametrize("target,setting", [("bench-sizes", "MM=/tmp/mine.c"), ("bench", "VARIANT=best"),
                                            ("bench-stress", "MM=mm.c")])
def test_a_bench_study_target_refuses_mm_and_variant_in_one_line(target, setting):
    """They measure every variant's shim: an MM= or VARIANT= was ignored, and the pages then
    held every allocator but the one the user named."""
    done = subprocess.run(["make", "-s", "-C", str(KIT), target, setting], capture_output=True, text=True)
    assert done.returncode == 2
    lines = done.stderr.splitlines()     # make's own 'make: *** [...] Error 2' no longer follows it
    assert len(lines) == 1 and lines[0].startswith("mk/bench.mk:"), done.stderr
    assert ": *** the bench studies take no MM= or VARIANT=" in lines[0] and lines[0].endswith(".  Stop.")
    assert "python" not in done.stdout and "bench:" not in done.stderr


def test_bench_driver_refuses_an_interrupted_run_in_one_line(tmp_path):
    """bench-driver read summary.perf_index from whatever JSON the driver left: an interrupted
    run's (null, part of the suite) ended in a TypeError traceback, or its per-trace figures counted."""
    from driver_common import stopped_driver
    sys.path.insert(0, str(KIT / "bench" / "driver"))
    import bench_driver
    script, args = stopped_driver(tmp_path)
    with pytest.raises(SystemExit) as stopped:
        bench_driver.run_json(script, *args)
    message = str(stopped.value)
    assert message.startswith(f"bench-driver: the JSON of `{script.name} -f ") and "\n" not in message
    assert "the driver was interrupted by SIGTERM after " in message
    assert message.endswith(" of 2 traces: a partial run's figures are not used")


@pytest.mark.parametrize("out", ["/dev/null/x", "/proc/no-such-folder"])
def test_cli_an_unwritable_out_is_one_line_before_any_run(out):
    """The study ran to its end, then out.mkdir raised: a traceback, and every figure lost."""
    done = run_cli("sizes", "--quick", "--only", "best", "--max-log2", "3", "--out", out)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines() == [
        f"python -m bench sizes: Invalid value for '--out': {out}: cannot write the study's files there "
        f"({'Not a directory' if out.startswith('/dev/null') else 'No such file or directory'})"]
    assert "repetition" not in done.stderr


def test_cli_a_page_that_cannot_be_written_is_one_line(built, tmp_path):
    (tmp_path / "bench-sizes.md").mkdir()          # the page's name taken by a folder
    done = run_cli("sizes", "--quick", "--only", "ts-lock", "--max-log2", "3", "--out", str(tmp_path))
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines()[-1] == (
        f"python -m bench: {tmp_path}/bench-sizes.md: cannot write it (Is a directory)")


def test_cli_programs_with_a_relative_kit(built, tmp_path):
    """`--kit .`: the programs run in build/bench/work, where the relative build/bench/rusage
    was not found (a FileNotFoundError traceback), and a relative preload path is one the
    loader cannot open there (glibc would have been timed as the shim)."""
    done = run_cli("programs", "--kit", ".", "--quick", "--only", "ts-nolock", "--out", str(tmp_path))
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr[-2000:]
    res = programs.Result.from_json(json.loads((tmp_path / "bench-programs.json").read_text()))
    assert res.unserved == {}
    assert all(r.failures == 0 and r.wall for r in res.rows)


def test_threads_collects_each_runs_figures_and_counts_a_failed_check(monkeypatch):
    """Recorded runs, not timed ones: the region is the largest process's high-water mark in KiB,
    and a run whose threads found a corrupted block is a failure, not a figure."""
    from bench.allocators import Allocator
    from bench.measure import Run
    outs = iter([(1.0, 0, (2048, 8192)), (3.0, 0, (4096,)), (2.0, 1, (1024,)), (2.0, 0, (1024,))])

    def fake(argv, alloc, **kw):
        secs, errs, highs = next(outs)
        stats = tuple({"region_high_water": h} for h in highs)
        return Run(0, secs, 1, f"threads=4 seconds={secs} heap_kb=10 hwm_kb=20 errors={errs}\n", "", stats)

    monkeypatch.setattr(threads, "run", fake)
    res = threads.collect(KIT / "x", [Allocator("ts-lock", "shim")], [4], 4, [])
    cell = res.get("ts-lock", 4)
    assert cell.errors == 1 and cell.values["seconds"] == Summary(2.0, 1.0, 3.0, 3)
    assert cell.values["region_kb"] == Summary(4.0, 1.0, 8.0, 3)


def test_stress_counts_a_run_its_allocator_did_not_serve_as_failed(monkeypatch):
    from bench.allocators import Allocator
    from bench.measure import Run
    outs = iter([(0.5, None), (0.9, "the preload did not take effect"), (0.1, None), (0.3, None)])

    def fake(argv, alloc, **kw):
        secs, unserved = next(outs)
        return Run(0, secs, 1, f"ops=6 seconds={secs}\n", "", (), unserved)

    monkeypatch.setattr(stress, "run", fake)
    res = stress.collect(KIT / "x", KIT / "t.rep", [Allocator("implicit-first", "shim")], 4)
    assert res.rows[0].failures == 1 and res.rows[0].seconds == Summary(0.3, 0.1, 0.5, 3)
    assert res.unserved == {"implicit-first": "the preload did not take effect"}


def test_stress_table_sets_every_row_against_glibc_wherever_it_is():
    s = lambda m: Summary(m, m, m, 1)  # noqa: E731
    res = stress.Result("t.rep", 6, 1, (stress.Row("implicit-first", s(0.5), {}), stress.Row("glibc", s(0.25), {})))
    assert "| implicit-first | 0.5 [0.5–0.5] ×2.00 | 0 |" in stress.tables(res)[0]


def test_sizes_shows_a_crash_at_the_top_size_and_a_null_as_failed(monkeypatch):
    """Recorded runs of 8..32 B: one ended after 16 B, so it crashed at 32 B, the last size asked
    for; one got NULL at 16 B."""
    from bench.allocators import Allocator
    from bench.measure import Run
    line = "kind={k} size={n} first_ns=5 steady_ns={t}\n"
    full = "".join(line.format(k="{k}", n=n, t=t) for n, t in ((8, 1), (16, 2), (32, 3)))
    outs = iter([(0, full), (0, full),
                 (139, line.format(k="{k}", n=8, t=1) + line.format(k="{k}", n=16, t=4)),
                 (0, line.format(k="{k}", n=8, t=7) + "kind={k} size=16 failed=1\n" + line.format(k="{k}", n=32, t=3))])

    def fake(argv, alloc, **kw):
        code, text = next(outs)
        return Run(code, 1.0, 1, text.format(k=argv[argv.index("-k") + 1]), "", ())

    monkeypatch.setattr(sizes, "run", fake)
    res = sizes.collect(KIT / "x", [Allocator("best", "shim")], 2, 3, 5, 10, 1e6)
    top, mid, low = (res.point("best", "malloc", n) for n in (32, 16, 8))
    assert top.crashed == 1 and res.point("best", "calloc", 32).crashed == 0
    assert mid.steady == Summary(3.0, 2.0, 4.0, 2) and not mid.failed and low.steady == Summary(1.0, 1.0, 1.0, 2)
    assert res.point("best", "calloc", 16).failed and res.point("best", "calloc", 8).steady == Summary(4.0, 1.0, 7.0, 2)
    assert sizes.steady_cell(top, None, 2) == "3 [3–3], crashed in 1 of 2 runs"


def test_size_label_names_a_unit_only_for_a_whole_number_of_it_and_a_null_is_failed():
    assert [sizes.size_label(n) for n in (8, 1024, 1536, 3 << 20, (1 << 30) + 4096)] == [
        "8 B", "1 KiB", "1536 B", "3 MiB", "1048580 KiB"]
    assert sizes.steady_cell(sizes.Point("best", "malloc", 16, None, None, True), None, 1) == "failed"


def test_threads_tables_show_a_failed_run_not_a_figure():
    """ts-lock failed every run at 8 threads: its column stays, and says so there."""
    s = Summary(1.0, 1.0, 1.0, 1)
    cells = (threads.Cell("glibc", 4, {"seconds": s}), threads.Cell("ts-lock", 4, {"seconds": s}),
             threads.Cell("glibc", 8, {"seconds": s}), threads.Cell("ts-lock", 8, {"seconds": None}, 2))
    table = threads.tables(threads.Result(("glibc", "ts-lock"), (4, 8), 2, (), cells))[0]
    assert "| 4 | 1 [1–1] ×1.00 | 1 [1–1] ×1.00 |" in table and "| 8 | 1 [1–1] ×1.00 | 2 failed |" in table


def test_stress_plot_bars_are_medians_with_their_min_max(tmp_path, monkeypatch):
    import matplotlib.axes
    drawn = {}
    bar = matplotlib.axes.Axes.bar

    def record(self, x, height, *args, **kwargs):
        drawn.update(height=list(height), yerr=kwargs.get("yerr"))
        return bar(self, x, height, *args, **kwargs)

    monkeypatch.setattr(matplotlib.axes.Axes, "bar", record)
    res = stress.Result("t.rep", 6, 3, (stress.Row("glibc", Summary(2.0, 1.0, 5.0, 3), {}),))
    stress.plots(res, tmp_path)
    assert drawn == {"height": [2.0], "yerr": [[1.0], [3.0]]}


@pytest.mark.parametrize("script", ["bench_driver.py", "gen_big.py"])
def test_bench_driver_scripts_answer_help_and_refuse_odd_arguments_in_one_line(script):
    """bench_driver.py ignored its arguments, so --help ran the whole benchmark (minutes of a
    shared machine, several drivers built); gen_big.py's --help or a missing argument was an
    IndexError traceback."""
    path = KIT / "bench" / "driver" / script
    shown = subprocess.run([sys.executable, str(path), "--help"], capture_output=True, text=True, timeout=30)
    assert shown.returncode == 0 and shown.stderr == "" and ("usage:" in shown.stdout or "example:" in shown.stdout)
    odd = subprocess.run([sys.executable, str(path), "--bogus"], capture_output=True, text=True, timeout=30)
    assert odd.returncode == 2 and odd.stdout == "" and len(odd.stderr.splitlines()) == 1, odd.stderr

"""The benchmark studies: parsers, data model, rendering and tiny end-to-end runs."""
from __future__ import annotations

import gzip
import json
import subprocess
import sys

import pytest

from conftest import build_driver
from shim_common import ALL_VARIANTS as ALL_SHIMS, KIT, bench_program, make, shim

sys.path.insert(0, str(KIT))
from bench import align, measure, programs, report, sizes, stress, threads  # noqa: E402
from bench.allocators import Allocator, discover  # noqa: E402
from bench.measure import Summary, parse_kv, summarize  # noqa: E402


def run_cli(*args: str, cwd=KIT) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "bench", *args], capture_output=True, text=True, cwd=cwd,
                          timeout=600)


# ------------------------------------------------------------ pure parts

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


# ------------------------------------------------------------ parsers on the real programs

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


# ------------------------------------------------------------ data model round trips

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


HEADER = "20000\n2\n2\n1\n"
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


# ------------------------------------------------------------ the CLI on tiny runs

@pytest.fixture(scope="module")
def built():
    make("bench-progs")
    for v in ("ts-lock", "ts-nolock"):
        shim(v)


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


def test_stress_page_names_the_trace_it_ran(tmp_path):
    s = Summary(1.0, 1.0, 1.0, 1)
    rows = (stress.Row("glibc", s, {}),)
    other = stress.write(stress.Result("/tmp/x/mine.rep", 10, 1, rows), tmp_path / "a", []).read_text()
    assert "`/tmp/x/mine.rep` replayed" in other and "fit-policy stress pattern" not in other
    assert "traces/" not in other and "--trace /tmp/x/mine.rep" in other
    default = stress.write(stress.Result("traces/fit-stress.rep", 10, 1, rows), tmp_path / "b", []).read_text()
    assert "`traces/fit-stress.rep` (the trace suite's fit-policy stress pattern" in default
    assert stress.trace_label(KIT / "traces" / "fit-stress.rep", KIT) == "traces/fit-stress.rep"


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
    done = run_cli("threads", "--threads", "1,x", "--out", str(tmp_path))
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "python -m bench threads: Invalid value for --threads: not a list of numbers: 1,x"]


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


@pytest.mark.parametrize("text", ["{bad\n", "[]\n", '{"allocators": 3}', "\udcff"], ids=["junk", "list", "wrong-shape", "not-utf8"])
def test_summary_of_a_damaged_json_is_one_line(tmp_path, text):
    (tmp_path / "bench-sizes.json").write_bytes(text.encode("utf-8", "surrogateescape"))
    done = run_cli("summary", "--out", str(tmp_path))
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and f"{tmp_path}/bench-sizes.json: " in done.stderr
    assert not (tmp_path / "bench-summary.md").exists()


def test_summary_checks_the_kits_targets(tmp_path):
    from bench import summary
    s = lambda m: Summary(m, m, m, 1)  # noqa: E731
    pts = tuple(sizes.Point(a, "malloc", size, s(100.0), s(f * 10.0))
                for a, f in (("glibc", 1.0), ("best", 1.8)) for size in summary.SMALL)
    cells = (threads.Cell("glibc", 4, {"seconds": s(1.0)}),
             threads.Cell("ts-lock", 4, {"seconds": s(2.0), "region_kb": s(100.0)}),
             threads.Cell("ts-nolock", 4, {"seconds": s(1.5), "region_kb": s(160.0)}))
    prog = programs.Result(("glibc", "best"), ("sort",), {"sort": "x"}, 1,
                           (programs.Row("glibc", "sort", s(1.0), s(9.0)), programs.Row("best", "sort", s(1.2), s(9.0))))
    for res, name in ((sizes.Result(("glibc", "best"), 1, pts), "sizes"),
                      (threads.Result(("glibc", "ts-lock", "ts-nolock"), (4,), 1, (), cells), "threads"),
                      (prog, "programs")):
        (tmp_path / f"bench-{name}.json").write_text(json.dumps(res.to_json()))
    text = summary.render(summary.load(tmp_path))
    assert "best: ×1.80" in text and "worst ×1.80, met" in text
    # faster (x0.75) but with 1.6x the heap: the target is not met
    assert "ts-nolock 1.500 [1.500–1.500] s vs ts-lock 2.000 [2.000–2.000] s (×0.75); heap ×1.60" in text
    assert "heap: **not met**" in text
    assert "best: sort ×1.20" in text and "runs every program correctly: met" in text
    assert "(not run: `make bench-stress`)" in text


def test_summary_gives_stress_ratios_two_decimals(tmp_path):
    """0.59 had been printed "×1 glibc" (and 0.4 would have been "×0")."""
    from bench import summary
    s = lambda m: Summary(m, m, m, 1)  # noqa: E731
    rows = (stress.Row("glibc", s(0.01), {}), stress.Row("implicit-next", s(0.0059), {}),
            stress.Row("implicit-first", s(0.6264), {}))
    (tmp_path / "bench-stress.json").write_text(json.dumps(stress.Result("t.rep", 10, 1, rows).to_json()))
    text = summary.render(summary.load(tmp_path))
    assert "- implicit-next: 0.0059 [0.0059–0.0059] s (×0.59 glibc)" in text
    assert "- implicit-first: 0.6264 [0.6264–0.6264] s (×62.64 glibc)" in text


def test_a_study_records_where_and_when_it_measured(tmp_path):
    """The JSON keeps the machine, date and commit its page states, for summary to repeat."""
    s = Summary(1.0, 1.0, 1.0, 1)
    stress.write(stress.Result("traces/fit-stress.rep", 10, 1, (stress.Row("glibc", s, {}),)), tmp_path, [])
    data = json.loads((tmp_path / "bench-stress.json").read_text())
    m = data["measured"]
    assert m["cores"] >= 1 and m["machine"] and m["date"].endswith(" UTC")
    assert report.machine_note(m) in (tmp_path / "bench-stress.md").read_text()
    assert stress.Result.from_json(data).ops == 10


def test_summary_states_each_studys_record_not_todays(tmp_path):
    """Figures measured elsewhere keep their own Measured line; a JSON without the record
    says "not recorded" instead of taking this machine's name and today's date."""
    from bench import summary
    s = Summary(1.0, 1.0, 1.0, 1)
    old = {"date": "2001-02-03 04:05 UTC", "machine": "elsewhere, Some CPU, 64 cores, Linux 1.0, glibc 2.0",
           "cores": 64, "commit": "abc1234"}
    report.save_json(tmp_path / "bench-stress.json",
                     stress.Result("traces/fit-stress.rep", 10, 1, (stress.Row("glibc", s, {}),)).to_json(), old)
    (tmp_path / "bench-align.json").write_text(json.dumps(align.Result(("glibc",), align.SIZES, 1, 1.0, ()).to_json()))
    done = run_cli("summary", "--out", str(tmp_path))
    assert done.returncode == 0, done.stderr
    text = (tmp_path / "bench-summary.md").read_text()
    stress_part = text[text.index("## Fit-policy stress"):text.index("## Alignment")]
    assert ("Measured 2001-02-03 04:05 UTC on elsewhere, Some CPU, 64 cores, Linux 1.0, glibc 2.0. "
            "Allocators built from commit abc1234.") in stress_part
    align_part = text[text.index("## Alignment"):]
    assert "Measured: not recorded" in align_part.split("## ")[1]
    import platform
    assert f"on {platform.node()}," not in text


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


def test_pages_count_in_the_right_number(tmp_path):
    assert report.count(1, "process", "processes") == "1 process"
    assert report.count(3, "process", "processes") == "3 processes"
    pts = tuple(sizes.Point("glibc", kind, 16, Summary(1.0, 1.0, 1.0, 1), Summary(1.0, 1.0, 1.0, 1))
                for kind in ("malloc", "calloc"))
    text = sizes.write(sizes.Result(("glibc",), 1, pts), tmp_path, [], 4, 4, 10, 1 << 20).read_text()
    assert "1 process\nper allocator" in text and "1 processes" not in text


def test_shim_page_quotes_best_as_the_committed_sizes_study_gives_it():
    """docs/bench-shim.md had quoted figures of an earlier run (1.19x, 1.23x, 1.98x) beside a
    study that gives others: its figures for best are the committed JSON's, recomputed here."""
    import statistics
    from bench import summary
    res = summary.load(KIT / "docs")["sizes"]

    def ratio(size: int) -> float:
        return res.point("best", "malloc", size).steady.median / res.point("glibc", "malloc", size).steady.median

    small = [ratio(s) for s in summary.SMALL]
    worst = max(small)
    worst_at = summary.SMALL[small.index(worst)]
    page = " ".join((KIT / "docs" / "bench-shim.md").read_text().split())
    assert f"{statistics.geometric_mean(small):.2f}× glibc (geometric mean) over 16–512 B" in page
    assert f"{worst:.2f}× at worst ({worst_at} B)" in page
    assert f"at 1 KiB it is {ratio(1024):.2f}×" in page
    assert f"({ratio(2):.2f}× at 2 B, {ratio(8):.2f}× at 8 B)" in page


@pytest.mark.parametrize("target,setting", [("bench-sizes", "MM=/tmp/mine.c"), ("bench", "VARIANT=best"),
                                            ("bench-stress", "MM=mm.c")])
def test_a_bench_study_target_refuses_mm_and_variant_in_one_line(target, setting):
    """They measure every variant's shim: an MM= or VARIANT= was ignored, and the pages then
    held every allocator but the one the user named."""
    done = subprocess.run(["make", "-s", "-C", str(KIT), target, setting], capture_output=True, text=True)
    assert done.returncode == 2
    assert done.stderr.splitlines()[0].startswith("make: the bench studies take no MM= or VARIANT=")
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


@pytest.mark.parametrize("sig", ["SIGINT", "SIGTERM"])
def test_a_study_stopped_by_a_signal_keeps_what_it_measured(tmp_path, sig):
    """Ctrl-C printed `aborted` and wrote nothing, the repetitions done lost; and the command
    running then (a session of its own) went on running after the bench had gone."""
    import os
    import signal
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
    time.sleep(0.2)
    assert not os.path.exists(f"/proc/{pid}") or "zombie" in open(f"/proc/{pid}/status").read().lower()


def test_summary_marks_a_partial_study(tmp_path):
    from bench import summary
    s = Summary(1.0, 1.0, 1.0, 1)
    res = stress.Result("t.rep", 10, 5, (stress.Row("glibc", s, {}),), partial="interrupted by SIGINT during repetition 2 of 5")
    (tmp_path / "bench-stress.json").write_text(json.dumps(res.to_json()))
    text = summary.render(summary.load(tmp_path))
    part = text[text.index("## Fit-policy stress"):]
    assert "**Partial:** interrupted by SIGINT during repetition 2 of 5: these figures are of the runs" in part
    assert "Partial" not in text[:text.index("## Fit-policy stress")]


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


def test_shim_page_quotes_ts_nolock_heap_as_the_committed_threads_study_gives_it():
    """docs/bench-shim.md said 1.15–1.25× beside a threads study that gives 1.27× at 8 threads."""
    from bench import summary
    res = summary.load(KIT / "docs")["threads"]
    heap = {t: res.value("ts-nolock", t, "region_kb").median / res.value("ts-lock", t, "region_kb").median
            for t in (4, 8)}
    page = " ".join((KIT / "docs" / "bench-shim.md").read_text().split())
    assert f"gives {heap[4]:.2f}× at 4 threads and {heap[8]:.2f}× at 8 (region high-water, medians)" in page
    assert "1.15–1.25×" not in page


@pytest.mark.parametrize("study", ["sizes", "threads", "stress", "align", "programs"])
def test_each_committed_page_is_what_the_code_writes_from_its_json(tmp_path, study, monkeypatch):
    """docs/bench-stress.json named its trace `fit-stress.rep` where the page says
    `traces/fit-stress.rep`: a page made from it again named another trace and a command that
    does not run.  Every committed page must be its JSON as the code renders it (the figures are
    not measured again here); only bench-programs' intro is older than the code's, which now
    also says that every run checks the allocator served malloc: those figures predate that."""
    import re
    data = json.loads((KIT / "docs" / f"bench-{study}.json").read_text())
    mod = {"sizes": sizes, "threads": threads, "stress": stress, "align": align, "programs": programs}[study]
    monkeypatch.setattr(report, "measured", lambda: data["measured"])
    committed = (KIT / "docs" / f"bench-{study}.md").read_text()
    found = re.search(r"^Skipped: (.*)\.$", committed, re.M)
    args = [found.group(1).split("; ") if found else []] + ([1, 30, 20000, 64 << 20] if study == "sizes" else [])
    made = mod.write(mod.Result.from_json(data), tmp_path, *args).read_text()
    if study == "programs":
        committed, made = committed[committed.index("\n- `"):], made[made.index("\n- `"):]
    assert made == committed


def test_align_page_names_the_shims_it_ran_as_the_offsets_shown():
    """`Skipped: <nine shims>: ... so these three show the shims' offsets`: the three were the
    ones run, not skipped; the reason names them, and the committed page gives it as the code does."""
    from bench import cli
    assert "these three" not in cli.ALIGN_WHY
    assert "so best, segregated and ts-lock show the shims' offsets" in cli.ALIGN_WHY
    committed = (KIT / "docs" / "bench-align.md").read_text()
    skipped = next(ln for ln in committed.splitlines() if ln.startswith("Skipped: "))
    assert skipped.endswith(f": {cli.ALIGN_WHY}.")
    ran = json.loads((KIT / "docs" / "bench-align.json").read_text())["allocators"]
    assert [a for a in ran if a in ALL_SHIMS] == cli.ALIGN_SHIMS


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


def test_summary_of_threads_without_a_glibc_figure_is_a_line_not_a_traceback(tmp_path):
    """Every glibc run at 4 threads failed: summary ended in AttributeError on its median."""
    s = lambda m: Summary(m, m, m, 1)  # noqa: E731
    cells = (threads.Cell("glibc", 4, {"seconds": None}, 3),
             threads.Cell("ts-lock", 4, {"seconds": s(2.0), "region_kb": s(100.0)}),
             threads.Cell("ts-nolock", 4, {"seconds": s(1.0), "region_kb": s(110.0)}))
    res = threads.Result(("glibc", "ts-lock", "ts-nolock"), (4,), 3, (), cells)
    (tmp_path / "bench-threads.json").write_text(json.dumps(res.to_json()))
    done = run_cli("summary", "--out", str(tmp_path))
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    text = (tmp_path / "bench-summary.md").read_text()
    assert ("- 4 threads: ts-nolock 1.000 [1.000–1.000] s vs ts-lock 2.000 [2.000–2.000] s (×0.50); heap ×1.10; "
            "glibc: no run succeeded") in text


def test_cli_programs_with_a_relative_kit(built, tmp_path):
    """`--kit .`: the programs run in build/bench/work, where the relative build/bench/rusage
    was not found (a FileNotFoundError traceback), and a relative preload path is one the
    loader cannot open there (glibc would have been timed as the shim)."""
    done = run_cli("programs", "--kit", ".", "--quick", "--only", "ts-nolock", "--out", str(tmp_path))
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr[-2000:]
    res = programs.Result.from_json(json.loads((tmp_path / "bench-programs.json").read_text()))
    assert res.unserved == {}
    assert all(r.failures == 0 and r.wall for r in res.rows)


@pytest.mark.parametrize("counts,names", [((1, 2), ("glibc", "ts-lock", "ts-nolock")), ((4,), ("glibc", "ts-lock"))])
def test_summary_says_a_threads_target_it_has_no_figure_for_is_not_measured(tmp_path, counts, names):
    """`--threads 1,2` (or a study without ts-nolock) gave 'Target ...: met' with no figure under it."""
    from bench import summary
    s = lambda m: Summary(m, m, m, 1)  # noqa: E731
    cells = tuple(threads.Cell(a, t, {"seconds": s(1.0), "region_kb": s(100.0)}) for t in counts for a in names)
    (tmp_path / "bench-threads.json").write_text(json.dumps(threads.Result(names, counts, 1, (), cells).to_json()))
    text = summary.render(summary.load(tmp_path))
    assert ("Target, ts-nolock faster than ts-lock at 4+ threads with under 1.5× its heap: not measured (no thread "
            "count of 4 or more with both ts-lock's and ts-nolock's time and heap).") in text
    assert ": met." not in text


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


def test_summary_gives_the_spread_of_the_figures_it_quotes(tmp_path):
    """The summary quoted medians alone (0.113 s vs 0.178 s, MB/s ×1.43) where every study's page
    gives the range: a headline ratio inside the noise read as a difference."""
    from bench import summary
    cells = (threads.Cell("glibc", 4, {"seconds": Summary(0.07, 0.06, 0.09, 7)}),
             threads.Cell("ts-lock", 4, {"seconds": Summary(0.178, 0.15, 0.2, 7), "region_kb": Summary(100.0, 90, 110, 7)}),
             threads.Cell("ts-nolock", 4, {"seconds": Summary(0.113, 0.1, 0.3, 7), "region_kb": Summary(121.0, 100, 130, 7)}))
    (tmp_path / "bench-threads.json").write_text(json.dumps(
        threads.Result(("glibc", "ts-lock", "ts-nolock"), (4,), 7, (), cells).to_json()))
    pts = tuple(align.Point("glibc", k, 32768, Summary(m, lo, hi, 5), (672,) if k == "malloc" else (0,))
                for k, m, lo, hi in (("malloc", 1656.0, 1100.0, 2900.0), ("page", 1160.0, 1000.0, 2500.0),
                                     ("odd", 1369.0, 1200.0, 1400.0)))
    (tmp_path / "bench-align.json").write_text(json.dumps(align.Result(("glibc",), (32768,), 5, 128.0, pts).to_json()))
    rows = (stress.Row("glibc", Summary(0.01001, 0.0098, 0.0125, 15), {}),)
    (tmp_path / "bench-stress.json").write_text(json.dumps(stress.Result("t.rep", 10, 15, rows).to_json()))
    text = summary.render(summary.load(tmp_path))
    assert ("- 4 threads: ts-nolock 0.113 [0.100–0.300] s vs ts-lock 0.178 [0.150–0.200] s (×0.63); heap ×1.21; "
            "glibc 0.070 [0.060–0.090] s") in text
    assert ("- 32 KiB: malloc 1,656 [1,100–2,900] (offset 672), page 1,160 [1,000–2,500], odd 1,369 [1,200–1,400]: "
            "malloc/page ×1.43") in text
    assert "- glibc: 0.01001 [0.0098–0.0125] s" in text


def test_committed_summary_is_what_the_code_writes_from_the_committed_json():
    from bench import summary
    assert summary.render(summary.load(KIT / "docs")) == (KIT / "docs" / "bench-summary.md").read_text()


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


def test_the_measured_line_states_the_load_it_measured_not_an_assumption():
    """Every page of a 2-core machine said it 'was shared with other work', idle or not."""
    m = {"date": "2026-11-24 07:00 UTC", "machine": "vm, X, 2 cores", "cores": 2, "commit": "abc"}
    idle, busy = report.machine_note({**m, "load": 0.1}), report.machine_note({**m, "load": 6.5})
    assert "shared" not in idle and "Load average 0.1 (1 minute) as the study ended." in idle
    assert "Runs with more threads than its 2 cores oversubscribe it." in idle
    assert ("Load average 6.5 (1 minute) as the study ended, on 2 cores: the machine was shared with other "
            "work and every figure carries noise") in busy
    assert "was shared with other work" in report.machine_note(m)      # a record without the load: as it said
    assert isinstance(report.measured()["load"], float)

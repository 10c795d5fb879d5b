"""What the bench pages and the summary state: rendered from their JSON (the committed pages
included), the kit's targets judged on figures that exist, spreads and partial studies marked."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from bench_common import run_cli
from shim_common import ALL_VARIANTS as ALL_SHIMS, KIT

from bench import align, hostload, programs, report, sizes, stress, threads  # noqa: E402
from bench.measure import Summary  # noqa: E402


def test_stress_page_names_the_trace_it_ran(tmp_path):
    s = Summary(1.0, 1.0, 1.0, 1)
    rows = (stress.Row("glibc", s, {}),)
    other = stress.write(stress.Result("/tmp/x/mine.rep", 10, 1, rows), tmp_path / "a", []).read_text()
    assert "`/tmp/x/mine.rep` replayed" in other and "fit-policy stress pattern" not in other
    assert "traces/" not in other and "--trace /tmp/x/mine.rep" in other
    default = stress.write(stress.Result("traces/fit-stress.rep", 10, 1, rows), tmp_path / "b", []).read_text()
    assert "`traces/fit-stress.rep` (the trace suite's fit-policy stress pattern" in default
    assert stress.trace_label(KIT / "traces" / "fit-stress.rep", KIT) == "traces/fit-stress.rep"


@pytest.mark.parametrize("text", ["{bad\n", "[]\n", '{"allocators": 3}', "\udcff"], ids=["junk", "list", "wrong-shape", "not-utf8"])
def test_summary_of_a_damaged_json_is_one_line(tmp_path, text):
    (tmp_path / "bench-sizes.json").write_bytes(text.encode("utf-8", "surrogateescape"))
    done = run_cli("summary", "--out", str(tmp_path))
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and f"{tmp_path}/bench-sizes.json: " in done.stderr
    assert not (tmp_path / "bench-summary.md").exists()


@pytest.mark.parametrize("glibc_median", ["7.5", 0.0, None], ids=["a-string", "zero", "null"])
def test_summary_of_a_json_with_a_figure_it_cannot_use_is_one_line(tmp_path, glibc_median):
    """A figure of the wrong type (a hand-edited or damaged JSON) had passed the load and been a
    TypeError (or ZeroDivisionError) traceback from the page's arithmetic."""
    s = lambda m: Summary(m, m, m, 1)  # noqa: E731
    from bench import summary
    pts = tuple(sizes.Point(a, "malloc", size, s(100.0), s(glibc_median if a == "glibc" else 10.0))
                for a in ("glibc", "best") for size in summary.SMALL)
    (tmp_path / "bench-sizes.json").write_text(json.dumps(sizes.Result(("glibc", "best"), 1, pts).to_json()))
    done = run_cli("summary", "--out", str(tmp_path))
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert done.stderr.startswith(f"python -m bench: {tmp_path}/bench-sizes.json: not the results `make "
                                  "bench-sizes` writes (") and len(done.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "bench-summary.md").exists()


def test_summary_of_a_json_that_is_a_fifo_never_hangs(tmp_path):
    """`bench summary` had waited forever for a writer to a bench-*.json that is a FIFO."""
    os.mkfifo(tmp_path / "bench-sizes.json")
    done = subprocess.run([sys.executable, "-m", "bench", "summary", "--out", str(tmp_path)], cwd=KIT,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 1 and done.stderr.splitlines() == [
        f"python -m bench: {tmp_path}/bench-sizes.json: cannot read it (not a regular file)"], done.stderr


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


def test_summary_meets_the_sizes_target_at_exactly_twice_glibc(tmp_path):
    """"Within 2×" includes 2×: the worst size at ×2.00 meets it."""
    from bench import summary
    s = lambda m: Summary(m, m, m, 1)  # noqa: E731
    pts = tuple(sizes.Point(a, "malloc", size, s(100.0), s(f * 10.0))
                for a, f in (("glibc", 1.0), ("best", 2.0)) for size in summary.SMALL)
    text = "\n".join(summary.sizes_lines(sizes.Result(("glibc", "best"), 1, pts)))
    assert "worst ×2.00, met." in text


def test_summary_does_not_meet_the_threads_target_at_exactly_1_5_times_the_heap(tmp_path):
    """"Under 1.5× its heap" excludes 1.5×, however much faster."""
    from bench import summary
    s = lambda m: Summary(m, m, m, 1)  # noqa: E731
    cells = (threads.Cell("ts-lock", 4, {"seconds": s(2.0), "region_kb": s(100.0)}),
             threads.Cell("ts-nolock", 4, {"seconds": s(1.0), "region_kb": s(150.0)}))
    text = "\n".join(summary.threads_lines(threads.Result(("ts-lock", "ts-nolock"), (4,), 1, (), cells)))
    assert "(×0.50); heap ×1.50;" in text and text.endswith("under 1.5× its heap: **not met**.")


def test_summary_fails_a_program_whose_output_was_wrong(tmp_path):
    """A run that finished with the wrong output is no figure and fails the target, as a crash does."""
    from bench import summary
    s = lambda m: Summary(m, m, m, 1)  # noqa: E731
    rows = (programs.Row("glibc", "sort", s(1.0), s(9.0)), programs.Row("best", "sort", s(0.5), s(9.0), 0, 1))
    text = "\n".join(summary.programs_lines(programs.Result(("glibc", "best"), ("sort",), {"sort": "x"}, 1, rows)))
    assert "- best: sort FAILED" in text and "runs every program correctly: **not met**." in text


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


def test_pages_count_in_the_right_number(tmp_path):
    assert report.count(1, "process", "processes") == "1 process"
    assert report.count(3, "process", "processes") == "3 processes"
    assert report.count(0, "run") == "0 runs"
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


def test_summary_marks_a_partial_study(tmp_path):
    from bench import summary
    s = Summary(1.0, 1.0, 1.0, 1)
    res = stress.Result("t.rep", 10, 5, (stress.Row("glibc", s, {}),), partial="interrupted by SIGINT during repetition 2 of 5")
    (tmp_path / "bench-stress.json").write_text(json.dumps(res.to_json()))
    text = summary.render(summary.load(tmp_path))
    part = text[text.index("## Fit-policy stress"):]
    assert "**Partial:** interrupted by SIGINT during repetition 2 of 5: these figures are of the runs" in part
    assert "Partial" not in text[:text.index("## Fit-policy stress")]


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
    not measured again here)."""
    import re
    data = json.loads((KIT / "docs" / f"bench-{study}.json").read_text())
    mod = {"sizes": sizes, "threads": threads, "stress": stress, "align": align, "programs": programs}[study]
    monkeypatch.setattr(report, "measured", lambda: data["measured"])
    committed = (KIT / "docs" / f"bench-{study}.md").read_text()
    found = re.search(r"^Skipped: (.*)\.$", committed, re.M)
    args = [found.group(1).split("; ") if found else []] + ([1, 30, 20000, 64 << 20] if study == "sizes" else [])
    made = mod.write(mod.Result.from_json(data), tmp_path, *args).read_text()
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


def test_the_measured_line_counts_other_processes_not_the_study_itself(monkeypatch):
    """A load average counts the study's own processes: the threads study (8 threads on 2 cores)
    read 3.6 and its page said the machine was shared.  The study now measures the CPU time other
    processes used while it ran, and the page says that."""
    m = {"date": "2026-11-24 07:00 UTC", "machine": "vm, X, 2 cores", "cores": 2, "commit": "abc", "load": 3.6}
    quiet = report.machine_note({**m, "other_cores": 0.03})
    assert ("Other processes kept 0.03 of its 2 cores busy on average during the study (/proc/stat less the "
            "study's own CPU time). Runs with more threads than its 2 cores oversubscribe it.") in quiet
    assert "shared" not in quiet and "Load average" not in quiet
    assert "the machine was shared with other work" in report.machine_note({**m, "other_cores": 0.9})
    # the arithmetic, on figures given to it: the host's busy CPU less this process's and its children's
    busy, own, clock = iter([100.0, 103.0]), iter([5.0, 6.5]), iter([10.0, 12.0])
    monkeypatch.setattr(hostload, "host_busy", lambda: next(busy))
    monkeypatch.setattr(hostload, "own_cpu", lambda: next(own))
    monkeypatch.setattr(hostload, "monotonic", lambda: next(clock))
    assert hostload.Window().other_cores() == 0.75          # (3.0 - 1.5) CPU seconds over 2 s
    busy, own, clock = iter([100.0, 101.0]), iter([5.0, 6.5]), iter([10.0, 12.0])
    assert hostload.Window().other_cores() == 0.0           # never below nothing (ticks are coarse)
    own, clock = iter([5.0, 6.5]), iter([10.0, 12.0])
    monkeypatch.setattr(hostload, "host_busy", lambda: None)
    assert hostload.Window().other_cores() is None          # no /proc: nothing claimed
    monkeypatch.undo()
    assert hostload.host_busy() > 0 and hostload.own_cpu() > 0
    report.start_study()
    assert report.measured()["other_cores"] is not None


def test_busy_and_shared_leave_out_idle_iowait_and_their_bounds(monkeypatch):
    import io
    line = "cpu  100 0 50 1000 300 0 0 0 0 0\ncpu0 1 2 3 4\n"
    monkeypatch.setattr(hostload, "open", lambda path: io.StringIO(line), raising=False)
    assert hostload.host_busy() == 150 / os.sysconf("SC_CLK_TCK")      # user + system; not idle, not iowait
    assert not hostload.shared(0.5, 2) and hostload.shared(0.51, 2)
    m = {"date": "2026-11-24 07:00 UTC", "machine": "vm", "cores": 2}
    assert "shared" not in report.machine_note({**m, "load": 1.0}) and "shared" in report.machine_note({**m, "load": 1.01})


def test_summary_gives_every_offset_the_align_runs_saw():
    """Runs whose buffers sat at two offsets had been summarised by the smaller alone."""
    from bench import summary
    s = Summary(1000.0, 1000.0, 1000.0, 2)
    pts = tuple(align.Point("glibc", k, 32768, s, (16, 672) if k == "malloc" else (0,)) for k in align.KINDS)
    text = "\n".join(summary.align_lines(align.Result(("glibc",), (32768,), 2, 128.0, pts)))
    assert "- 32 KiB: malloc 1,000 [1,000–1,000] (offset 16, 672), page" in text


@pytest.mark.parametrize("counts, cores, label", [
    ((1, 2, 4, 8), 8, "threads (8 cores)"),
    ((1, 2, 4, 8), 2, "threads (2 cores: 4 and 8 oversubscribe)"),
    ((1, 2), 2, "threads (2 cores)"),
    ((2, 4, 8, 16), 3, "threads (3 cores: 4, 8 and 16 oversubscribe)"),
    ((1, 2), 1, "threads (1 core: 2 oversubscribes)"),
])
def test_threads_plot_names_the_cores_it_ran_on(monkeypatch, tmp_path, counts, cores, label):
    """The plot's axis had said "2 cores: 4 and 8 oversubscribe" on every machine and thread list."""
    saved = []
    monkeypatch.setattr(threads.plot, "save", lambda fig, path: saved.append(fig) or path)
    record = {"date": "2001-02-03 04:05 UTC", "machine": "elsewhere", "cores": cores, "commit": None}
    monkeypatch.setattr(report, "measured", lambda: record)
    s = Summary(1.0, 1.0, 1.0, 1)
    cells = tuple(threads.Cell("glibc", t, {"seconds": s, "hwm_kb": s}) for t in counts)
    threads.write(threads.Result(("glibc",), counts, 1, (), cells), tmp_path, [])
    assert [ax.get_xlabel() for ax in saved[0].axes] == [label, label]

"""tools/results.py: the data model round-trips, the claims judge the data they
are given, and the CLI writes docs and plots from real driver runs."""
from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from statistics import mean

import click
import pytest

from results_common import made_run
from variants_common import KIT

sys.path.insert(0, str(KIT / "tools"))
import results  # noqa: E402
import results_claims  # noqa: E402


def test_run_round_trips_through_json():
    r = made_run("best", {"a": 0.5, "b": 0.75}, 2000.0)
    assert results.Run.from_json(r.to_json()) == r


def test_the_median_run_is_one_real_run_carrying_every_ratio():
    runs = [made_run("best", {"a": 0.5}, k) for k in (1300.0, 900.0, 1100.0, 1000.0)]
    runs[3] = results.replace(runs[3], ratio=None)      # every trace failed: counts as lowest
    m = results.median_run(runs)
    assert results.replace(m, ratios=()) == runs[1]   # None (lowest) < 0.9 < 1.1 < 1.3: the lower middle
    assert m.ratios == (1.3, 0.9, 1.1, None)
    assert results.ratio_range(m) == " (0.90-1.30 over 3 runs; 1 more had no ratio: every trace failed)"
    assert results.median_run(runs[:1]) is runs[0] and results.ratio_range(runs[0]) == ""
    assert results.Run.from_json(m.to_json()) == m


def test_a_range_counts_only_the_ratios_runs_measured():
    """A run where every trace failed has no ratio: it is named, never shown as a ratio of 0."""
    r = made_run("best", {"a": 0.5}, 1000.0)
    assert results.ratio_range(results.replace(r, ratios=(None, 0.9))) == \
        " (0.90 over 1 run; 1 more had no ratio: every trace failed)"
    assert results.ratio_range(results.replace(r, ratios=(None, None))) == \
        " (no ratio in any of 2 runs: every trace failed)"
    assert results.ratio_range(results.replace(r, ratios=(0.8, 0.9))) == " (0.80-0.90 over 2 runs)"


def test_the_page_says_what_was_measured_and_what_else_ran():
    """Each run's commit and the cores other processes kept busy are kept in the cache and
    carried by the median run; the page states them, and says nothing where a cache has none."""
    quiet = [results.replace(made_run("best", {"a": 0.5}, k), loads=(x,), commits=("abc1234",))
             for k, x in ((1000.0, 0.02), (1100.0, 0.0), (900.0, 0.1))]
    m = results.median_run(quiet)
    assert m.loads == (0.02, 0.0, 0.1) and m.commits == ("abc1234",) * 3
    cores = len(results.os.sched_getaffinity(0))
    note = results.provenance([m])
    assert note.startswith("Built from commit abc1234.  Other processes kept a median of 0.02 of the host's ")
    assert f"at most 0.1 over 3 runs" in note and "shared the host" not in note
    busy = results.replace(m, loads=(0.0, 0.3 * cores), commits=("abc1234", "def5678 with uncommitted edits to x"))
    note = results.provenance([busy])
    assert note.startswith("Built from 2 commits (abc1234; def5678 with uncommitted edits to x)")
    assert "some runs shared the host with other work" in note
    assert results.provenance([made_run("best", {"a": 0.5}, 1000.0)]) == ""


def test_a_driver_leaving_no_json_is_one_line_naming_the_file(tmp_path):
    """A driver that exits 1 with its JSON file empty or cut (a full disk, a crash while writing)
    was a JSONDecodeError traceback from the reader."""
    fake = tmp_path / "fake-mdriver"
    # writes half a document to the file after --json, says why on stderr, exits 1 as on a failed trace
    fake.write_text('#!/bin/sh\nwhile [ "$1" != --json ]; do shift; done\n'
                    'printf \'{"traces": [\' > "$2"\necho "mdriver: write error: No space left on device" >&2\nexit 1\n')
    fake.chmod(0o755)
    out = tmp_path / "segregated-a16.json"
    with pytest.raises(click.ClickException) as refused:
        results.run_driver(fake, "segregated", [tmp_path / "t.rep"], 60, 1, out)
    message = refused.value.message
    assert message.startswith(f"segregated: {out.with_suffix('.partial')} is not the driver's JSON (")
    assert message.endswith("the driver said: mdriver: write error: No space left on device")
    assert "\n" not in message and not out.exists()


def test_an_interrupted_run_is_refused_naming_the_file(tmp_path, capsys):
    """A driver JSON marked interrupted (a Ctrl-C'd run left in the cache, or given back by the
    driver) holds part of the suite with no index: it was read as a run and published."""
    from driver_common import stopped_driver
    script, args = stopped_driver(tmp_path)
    out = tmp_path / "segregated-a16.json"
    with pytest.raises(click.ClickException) as refused:
        results.run_driver(script, "segregated", [Path(a) for a in args[1::2]], 60, 1, out)
    assert "interrupted by SIGTERM" in refused.value.message and not out.exists()
    # the same document in the cache is measured again, not read
    subprocess.run([str(script), *args, "--json", str(out)], capture_output=True, timeout=60)
    assert json.loads(out.read_text())["interrupted"]["signal"] == "SIGTERM"
    assert results.cached(out, "segregated", 16, {}) is None
    warning = capsys.readouterr().err
    assert warning.startswith(f"warning: {out}: the driver was interrupted by SIGTERM after ")
    assert warning.endswith(" of 2 traces: a partial run's figures are not used; measuring again\n")
    assert warning.count("\n") == 1


def test_a_cached_run_of_other_traces_or_settings_is_measured_again(tmp_path, capsys):
    """`--reuse --traces other` had published the cached runs of the first suite under the other
    folder's name, and `--reuse --samples 5` those taken at -r 1 as `mdriver -r 5`."""
    one, two = tmp_path / "classic-random.rep", tmp_path / "size-sweep.rep"
    for f in (one, two):
        shutil.copy(KIT / "traces" / f.name, f)
    out = tmp_path / "segregated-a16.json"
    results.run_driver(results.build("segregated", 16), "segregated", [one], 60, 1, out)
    assert results.cached(out, "segregated", 16, {}, results.Setup((one,), 60, 1)) is not None
    assert capsys.readouterr().err == ""
    for setup, why in ((results.Setup((one, two), 60, 1), "measured on other traces than this run's"),
                       (results.Setup((one,), 60, 5), "measured with -T 60 -r 1, not -T 60 -r 5"),
                       (results.Setup((one,), 30, 1), "measured with -T 60 -r 1, not -T 30 -r 1")):
        assert results.cached(out, "segregated", 16, {}, setup) is None
        assert capsys.readouterr().err.startswith(f"warning: {out}: {why}")


def test_stats_table_has_every_counter_of_mm_stats_h():
    """Issue 3's counters are mm_stats.h's: the table had dropped bytes_requested."""
    fields = re.findall(r"^\s*X\((\w+),", (KIT / "mm_stats.h").read_text(), re.M)
    assert "bytes_requested" in fields and "reuses" in fields
    run = made_run("best", {"a": 0.5, "b": 0.6}, 2000.0)
    run = results.replace(run, traces=tuple(results.replace(t, stats={f: 1000 + i for i, f in enumerate(fields)})
                                            for t in run.traces))
    header, _, row = results.stats_table([run])
    columns = [c.strip() for c in header.strip("|").split("|")]
    missing = [f for f in fields if not any(c.split()[0] == f for c in columns)]
    assert not missing, f"the statistics table has no column for {missing}"
    cells = dict(zip(columns, (c.strip() for c in row.strip("|").split("|"))))
    assert cells["bytes_requested"] == f"{2 * (1000 + fields.index('bytes_requested')):,}"   # summed over traces


def _driver_json(times: dict[str, tuple[float, float]], ops: int = 1000) -> dict:
    """The driver's JSON of one run: trace name -> (the allocator's seconds, libc's), OPS ops each."""
    def timing(s: float) -> dict:
        return {"seconds": s, "ops_per_sec": ops / s, "samples": [s]}

    traces = [{"name": n, "outcome": "ok", "utilization": 0.9, "ideal_utilization": 0.95, "stats": {},
               "timing": timing(s), "libc": timing(libc)} for n, (s, libc) in times.items()]
    mine, libc = sum(s for s, _ in times.values()), sum(lc for _, lc in times.values())
    total = ops * len(times)
    return {"traces": traces, "machine": {"cpu": "test cpu", "date": "2026-01-01"},
            "summary": {"utilization": 0.9, "throughput_ops_per_sec": total / mine,
                        "libc_ops_per_sec": total / libc, "throughput_ratio": libc / mine,
                        "perf_index": 90.0, "failed": 0}}


def _section(md: str, heading: str) -> list[str]:
    """The table rows under HEADING (the lines starting with '|' before the next heading)."""
    assert heading in md, f"no {heading!r} on the page"
    lines = md.split(heading, 1)[1].split("\n## ", 1)[0].splitlines()
    return [line for line in lines if line.startswith("|")]


def test_per_trace_ratio_to_libc_is_each_variants_own_run():
    """The per-trace Kops table's libc column was the last variant's run's libc, beside every
    other variant's Kops from its own run: libc's speed differs between runs, so a variant looked
    2x libc where its own run measured 1.5x.  Each variant's ratio now comes from its own run."""
    slow_libc = results.run_from_driver_json("segregated", 16, _driver_json(
        {"t1": (0.002, 0.001), "t2": (0.001, 0.003)}), {})
    fast_libc = results.run_from_driver_json("best", 16, _driver_json(
        {"t1": (0.001, 0.004), "t2": (0.002, 0.001)}), {})
    md = results.render([slow_libc, fast_libc], [], "traces")
    ratios = _section(md, "## Throughput per trace, ratio to libc in the same run (16-byte alignment)")
    assert ratios[0] == "| trace | `segregated` | `best` |"
    # libc's seconds over the variant's, each from the variant's own JSON
    assert ratios[2:] == ["| t1 | 0.50x | 4.00x |", "| t2 | 3.00x | 0.50x |",
                          "| **whole suite** | 1.33x | 1.67x |"]
    kops = _section(md, "## Throughput per trace, Kops (16-byte alignment)")
    assert kops[0] == "| trace | `segregated` | `best` | libc, median (range) of 2 runs |"
    # libc's Kops on t1 was 1,000 in segregated's run and 250 in best's: their median and range
    assert kops[2:] == ["| t1 | 500 | 1,000 | 625 (250-1,000) |", "| t2 | 1,000 | 500 | 667 (333-1,000) |"]
    assert "libc's own Kops on the whole suite moved from 400 to 500 on this page" in md
    assert results.TraceResult.from_json(fast_libc.traces[0].to_json()).ratio == pytest.approx(4.0)


def test_the_per_trace_plot_is_each_variants_ratio_in_its_own_run(tmp_path, monkeypatch):
    """The per-trace throughput plot drew libc's bars from the last variant's run beside every
    variant's Kops; it now draws each variant's ratio to libc in its own run, and no libc bar."""
    import matplotlib.axes
    import results_plots
    drawn: list[tuple[str, list[float]]] = []
    bar = matplotlib.axes.Axes.bar

    def record(self, x, height, *args, **kwargs):
        drawn.append((kwargs.get("label"), list(height)))
        return bar(self, x, height, *args, **kwargs)

    monkeypatch.setattr(matplotlib.axes.Axes, "bar", record)
    seg = results.run_from_driver_json("segregated", 16, _driver_json({"t1": (0.002, 0.001), "t2": (0.001, 0.003)}), {})
    best = results.run_from_driver_json("best", 16, _driver_json({"t1": (0.001, 0.004), "t2": (0.002, 0.001)}), {})
    paths = results_plots.plot_all([seg, best], tmp_path)
    # the utilization plot's bars, then the throughput plot's: one per variant, none for libc
    assert [label for label, _ in drawn] == ["segregated", "best", "segregated", "best"]
    assert drawn[2][1] == pytest.approx([0.5, 3.0]) and drawn[3][1] == pytest.approx([4.0, 0.5])
    assert tmp_path / "results-ratio-per-trace.png" in paths
    assert (tmp_path / "results-ratio-per-trace.png").read_bytes()[:4] == b"\x89PNG"


def test_claims_report_a_contradiction_with_its_reason():
    first = made_run("implicit-first", {"frag1": 0.80, "frag2": 0.70, "easy": 0.99}, 100.0)
    best = made_run("implicit-best", {"frag1": 0.60, "frag2": 0.65, "easy": 0.99}, 90.0)
    lines = results_claims.claims_section({"implicit-first": first, "implicit-best": best}, {})
    text = "\n".join(lines)
    assert "**contradicted**" in text and "worse on 2" in text
    assert "Where the measurement contradicts the textbook" in text


def test_claims_hold_when_the_data_agrees():
    first = made_run("implicit-first", {"frag1": 0.80}, 100.0)
    best = made_run("implicit-best", {"frag1": 0.85}, 90.0)
    lines = results_claims.claims_section({"implicit-first": first, "implicit-best": best}, {})
    assert "| holds |" in "\n".join(lines) and "contradicted" not in "\n".join(lines)


def test_targets_table_says_met_and_not_met():
    best16 = made_run("best", {"x": 0.95}, 3000.0)
    seg = made_run("segregated-realloc", {"x": 0.9}, 500.0)
    text = "\n".join(results.targets_section(best16, None, seg, None, []))
    assert "| met |" in text and "**not met**" in text


def test_targets_table_judges_every_list_variant_against_implicit_first():
    """Issue 3: every explicit/segregated variant >= 10x implicit-first's throughput, one row each."""
    best16 = made_run("best", {"x": 0.95}, 3000.0)
    implicit = made_run("implicit-first", {"x": 0.8}, 100.0)
    others = [implicit, made_run("implicit-next", {"x": 0.8}, 50.0), made_run("explicit-lifo", {"x": 0.8}, 2500.0),
              made_run("segregated", {"x": 0.8}, 900.0)]
    rows = [r for r in results.targets_section(best16, None, None, implicit, others) if "10x" in r]
    assert rows == ["| `explicit-lifo` >= 10x `implicit-first` throughput | 25x | met |",
                    "| `segregated` >= 10x `implicit-first` throughput | 9x | **not met** |"]


def test_list_variants_are_set_against_implicit_first_through_libc_in_their_own_runs():
    """Two variants' Kops are two runs, and libc's own speed moves between runs: the speed-up is
    the ratio of their ratios to libc, each timed in its own run."""
    best16 = made_run("best", {"x": 0.95}, 3000.0)
    implicit = made_run("implicit-first", {"x": 0.8}, 100.0)                       # 0.1x its libc
    lifo = results.replace(made_run("explicit-lifo", {"x": 0.8}, 2500.0), libc_kops=2000.0, ratio=1.25)
    rows = [r for r in results.targets_section(best16, None, None, implicit, [implicit, lifo]) if "10x" in r]
    assert rows == ["| `explicit-lifo` >= 10x `implicit-first` throughput | 12x | met |"]   # not 25x
    claims = "\n".join(results_claims.claims_section({"implicit-first": implicit, "explicit-lifo": lifo}, {}))
    assert "`explicit-lifo` 1.25x libc vs `implicit-first` 0.1x libc, each in its own run: 12x" in claims


def test_targets_table_judges_the_mean_over_layouts():
    best16 = made_run("best", {"x": 0.905}, 3000.0)
    rows = [r for r in results.targets_section(best16, None, None, None, [], [0.905, 0.89, 0.895, 0.90])
            if "placement layouts" in r]
    assert rows == ["| the same, mean over 4 placement layouts (`MM_LAYOUT`, config.h) | "
                    "89.8% (89.00-90.50%; >= 90% at 2) | **not met** |"]
    assert not [r for r in results.targets_section(best16, None, None, None, []) if "layouts" in r]


def _python() -> str:
    return str(KIT / ".venv" / "bin" / "python") if (KIT / ".venv" / "bin" / "python").exists() else sys.executable


def test_cli_measures_and_writes_docs(tmp_path):
    traces = tmp_path / "traces"
    traces.mkdir()
    for name in ("classic-coalescing.rep", "size-sweep.rep"):
        shutil.copy(KIT / "traces" / name, traces / name)
    out = tmp_path / "docs"
    done = subprocess.run([_python(), "tools/results.py", "--traces", str(traces), "--out", str(out),
                           "--cache", str(tmp_path / "cache"), "--variant", "segregated", "--variant", "best",
                           "--layouts", "3", "--repeats", "3"], cwd=KIT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    md = (out / "results.md").read_text()
    # three runs of each, in rounds; the table shows the median one's figures and every ratio's range
    assert done.stderr.index("best at 8-byte alignment on 1 trace (run 1 of 3)") < \
        done.stderr.index("segregated at 16-byte alignment on 2 traces (run 2 of 3)")
    for variant in ("segregated", "best"):
        summaries = [json.loads((tmp_path / "cache" / f"{variant}-a16{suffix}.json").read_text())["summary"]
                     for suffix in ("", "-r2", "-r3")]
        ratios = sorted(s["throughput_ratio"] for s in summaries)
        median = next(s for s in summaries if s["throughput_ratio"] == ratios[1])
        assert (f"| {median['throughput_ratio']:.2f} ({ratios[0]:.2f}-{ratios[2]:.2f} over 3 runs) "
                f"| {median['perf_index']:.1f} |") in md
    for heading in ("## The progression at 16-byte alignment", "## The classic group at 8-byte alignment",
                    "## Targets of `best`", "## Utilization per trace", "## Throughput per trace, Kops",
                    "## Throughput per trace, ratio to libc in the same run",
                    "## Statistics counters"):
        assert heading in md
    assert "| `best` |" in md and "classic-coalescing" in md
    cached = json.loads((tmp_path / "cache" / "best-a16.json").read_text())
    assert cached["results_commit"] and cached["results_other_cores"] >= 0
    assert f"Built from commit {cached['results_commit']}" in md and "Other processes kept a median of " in md
    at = [json.loads((tmp_path / "cache" / name).read_text())["traces"]
          for name in ("best-a16.json", "best-a16-l1.json", "best-a16-l2.json")]
    layout_mean = mean(mean(t["utilization"] for t in traces) for traces in at)
    assert f"| the same, mean over 3 placement layouts (`MM_LAYOUT`, config.h) | {100 * layout_mean:.1f}%" in md
    for png in ("results-util-vs-throughput.png", "results-util-per-trace.png", "results-ratio-per-trace.png"):
        assert (out / png).read_bytes()[:4] == b"\x89PNG"
    # --reuse renders again from the cache without measuring
    again = subprocess.run([_python(), "tools/results.py", "--traces", str(traces), "--out", str(out),
                            "--cache", str(tmp_path / "cache"), "--variant", "segregated", "--variant", "best",
                            "--layouts", "3", "--repeats", "3", "--reuse"], cwd=KIT, capture_output=True, text=True, timeout=120)
    assert again.returncode == 0 and "measuring" not in again.stderr
    # a variant whose first run took longer than --repeat-limit runs once; --reuse adds missing runs only
    once = subprocess.run([_python(), "tools/results.py", "--traces", str(traces), "--out", str(out),
                           "--cache", str(tmp_path / "cache"), "--variant", "segregated", "--layouts", "1",
                           "--reuse", "--repeats", "4", "--repeat-limit", "0"], cwd=KIT, capture_output=True,
                          text=True, timeout=120)
    assert once.returncode == 0 and "measuring" not in once.stderr, once.stderr
    assert "over 3 runs" not in (out / "results.md").read_text()
    more = subprocess.run([_python(), "tools/results.py", "--traces", str(traces), "--out", str(out),
                           "--cache", str(tmp_path / "cache"), "--variant", "segregated", "--layouts", "1",
                           "--reuse", "--repeats", "4"], cwd=KIT, capture_output=True, text=True, timeout=120)
    assert more.returncode == 0, more.stderr
    assert [line for line in more.stderr.splitlines() if line.startswith("measuring")] == [
        "measuring segregated at 16-byte alignment on 2 traces (run 4 of 4)",
        "measuring segregated at 8-byte alignment on 1 trace (run 4 of 4)"]
    assert "over 4 runs" in (out / "results.md").read_text()
    # a cached result this kit cannot read is measured again, with a one-line warning
    (tmp_path / "cache" / "segregated-a8-r2.json").write_text('{"traces": [')
    (tmp_path / "cache" / "segregated-a16-r3.json").write_text('{"summary": {}}')
    mended = subprocess.run([_python(), "tools/results.py", "--traces", str(traces), "--out", str(out),
                             "--cache", str(tmp_path / "cache"), "--variant", "segregated", "--layouts", "1",
                             "--reuse", "--repeats", "4"], cwd=KIT, capture_output=True, text=True, timeout=120)
    assert mended.returncode == 0 and "Traceback" not in mended.stderr, mended.stderr
    assert [line.split(": not a result")[0] for line in mended.stderr.splitlines() if "not a result" in line] == [
        f"warning: {tmp_path / 'cache' / 'segregated-a8-r2.json'}",
        f"warning: {tmp_path / 'cache' / 'segregated-a16-r3.json'}"]
    assert [line for line in mended.stderr.splitlines() if line.startswith("measuring")] == [
        "measuring segregated at 8-byte alignment on 1 trace (run 2 of 4)",
        "measuring segregated at 16-byte alignment on 2 traces (run 3 of 4)"]
    assert json.loads((tmp_path / "cache" / "segregated-a8-r2.json").read_text())["summary"]["perf_index"] > 0


def test_cli_names_a_broken_recipe(tmp_path):
    shutil.copy(KIT / "traces" / "size-sweep.rep", tmp_path / "size-sweep.rep")
    (tmp_path / "recipe.toml").write_text("[[trace]]\nname = \n")
    done = subprocess.run([_python(), "tools/results.py", "--traces", str(tmp_path), "--out", str(tmp_path / "docs"),
                           "--cache", str(tmp_path / "cache")], cwd=KIT, capture_output=True, text=True, timeout=60)
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines() == [f"Error: {tmp_path / 'recipe.toml'}: not valid TOML: "
                                                "Invalid value (at line 2, column 8)"]


@pytest.mark.parametrize("args, message", [
    (["--traces", "/nonexistent/dir"], "no such trace directory"),
    (["--variant", "no-such-variant"], "no such variant"),
])
def test_cli_bad_input_is_one_line(args, message):
    done = subprocess.run([_python(), "tools/results.py", *args], cwd=KIT, capture_output=True, text=True)
    assert done.returncode != 0
    assert message in done.stderr and "Traceback" not in done.stderr


@pytest.mark.parametrize("args, message", [
    (["--samples", "0"], "Error: Invalid value for '--samples': 0 is not in the range 1<=x<=25."),
    (["--samples", "26"], "Error: Invalid value for '--samples': 26 is not in the range"),
    (["--time-limit", "0"], "Error: Invalid value for '--time-limit': 0 is not in the range 1<=x<=86400."),
    (["--repeats", "0"], "Error: Invalid value for '--repeats'"),
    (["--repeats", "x"], "Error: Invalid value for '--repeats': 'x' is not a valid integer."),
    (["--repeat-limit", "x"], "Error: Invalid value for '--repeat-limit': 'x' is not a valid float."),
    (["--repeat-limit", "nan"], "Error: Invalid value for '--repeat-limit': 'nan' is not a number"),
    (["--variant", "best", "--rerun", "bset"], "Error: --rerun bset: not among the variants measured"),
    (["--out", "/proc/mmtrace-x"], "Error: /proc/mmtrace-x: cannot make the folder"),
])
def test_cli_bad_options_are_one_line_before_any_work(tmp_path, args, message):
    done = subprocess.run([_python(), "tools/results.py", "--cache", str(tmp_path / "cache"), *args], cwd=KIT,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode in (1, 2) and "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(message), done.stderr
    assert "measuring" not in done.stderr and not list((tmp_path / "cache").glob("*.json"))


@pytest.mark.parametrize("option", ["--traces", "--out", "--cache"])
def test_an_empty_folder_is_refused_before_any_work(option):
    """Path("") is the current folder: `--out ''` had written results.md and the plots there.
    Parsed only (make_context): the old code would have measured every variant."""
    with pytest.raises(click.ClickException) as refused:
        results.main.make_context("results.py", [option, ""])
    assert refused.value.exit_code == 2
    assert refused.value.format_message() == f"{option}: an empty folder name; name one"


def test_ctrl_c_says_where_the_finished_runs_are(tmp_path, monkeypatch):
    """Ctrl-C had been click's `Aborted!`, status 1: nothing said that the runs finished were kept."""
    from click.testing import CliRunner

    def measure(*args):
        raise KeyboardInterrupt

    monkeypatch.setattr(results, "measure", measure)
    cache, out = tmp_path / "cache", tmp_path / "out"
    done = CliRunner().invoke(results.main, ["--variant", "best", "--repeats", "1", "--layouts", "1",
                                             "--cache", str(cache), "--out", str(out)])
    assert done.exit_code == 130 and "Aborted" not in done.output, done.output
    assert done.output.strip().splitlines()[-1] == (
        f"Error: interrupted by SIGINT: the runs that finished are kept in {cache} (`--reuse` measures only the "
        f"rest); {out / 'results.md'} is left as it was")
    assert not (out / "results.md").exists()


def test_a_variant_named_twice_is_measured_once_a_round(tmp_path, monkeypatch):
    """`--variant best --variant best` had run best twice a round, its runs pooled as one variant's
    (the page: "ran 1 times", its ratio's range "over 2 runs")."""
    from click.testing import CliRunner
    calls = []

    def measure(variant, alignment, files, time_limit, samples, out):
        calls.append((variant, alignment))
        return {**_driver_json({"classic-binary": (1.0, 1.0)}), results.ELAPSED: 1.0}

    monkeypatch.setattr(results, "measure", measure)
    done = CliRunner().invoke(results.main, ["--variant", "best", "--variant", "best", "--repeats", "1",
                                             "--layouts", "1", "--cache", str(tmp_path / "cache"),
                                             "--out", str(tmp_path / "out")])
    assert done.exit_code == 0, done.output
    assert calls == [("best", 16), ("best", 8)]


@pytest.mark.parametrize("full, last", [
    ("results.md", "Error: {out}/results.md: cannot write it (No space left on device); the runs are kept in {cache} "
                   "(`--reuse` writes the page from them)"),
    ("results-util-vs-throughput.png", ": cannot write the plots (No space left on device); {out}/results.md is written"),
], ids=["page", "plot"])
def test_an_output_that_cannot_be_written_is_one_line(tmp_path, monkeypatch, full, last):
    """A write of results.md or of a plot that fails at the end (a full disk) had been an OSError traceback."""
    from click.testing import CliRunner
    monkeypatch.setattr(results, "measure", lambda *args: {**_driver_json({"classic-binary": (1.0, 1.0)}),
                                                           results.ELAPSED: 1.0})
    cache, out = tmp_path / "cache", tmp_path / "out"
    out.mkdir()
    (out / full).symlink_to("/dev/full")
    done = CliRunner().invoke(results.main, ["--variant", "best", "--repeats", "1", "--layouts", "1",
                                             "--cache", str(cache), "--out", str(out)])
    assert done.exit_code == 1 and isinstance(done.exception, SystemExit), done.output
    assert done.output.strip().splitlines()[-1].endswith(last.format(out=out, cache=cache))
    if full != "results.md":        # the page is written before the plots
        assert "# Results" in (out / "results.md").read_text()


def test_claims_explain_exceptions_to_a_claim_that_holds():
    first = made_run("implicit-first", {"f1": 0.80, "f2": 0.70, "f3": 0.60}, 100.0)
    best = made_run("implicit-best", {"f1": 0.85, "f2": 0.75, "f3": 0.50}, 90.0)
    text = "\n".join(results_claims.claims_section({"implicit-first": first, "implicit-best": best}, {}))
    assert "holds, with exceptions" in text and "worse on 1 (f3)" in text
    assert "and why:" in text


def _libc_run(variant: str, libc_kops: float) -> results.Run:
    """A run whose libc ran at LIBC_KOPS, on trace "a" and on the whole suite."""
    r = made_run(variant, {"a": 0.5}, 1000.0)
    return results.replace(r, libc_kops=libc_kops, traces=(results.replace(r.traces[0], libc_kops=libc_kops),))


def test_libc_spread_is_the_median_of_the_runs_and_their_range():
    """Three runs, not two, so the median is no mean, and the smallest is not the second."""
    runs = [_libc_run(v, k) for v, k in (("x", 600.0), ("y", 100.0), ("z", 200.0))]
    assert results.libc_spread(runs, "a") == "200 (100-600)"
    assert "moved from 100 to 600 on this page" in results.libc_moved(runs)


def test_ratio_range_is_given_from_two_runs():
    two = results.median_run([made_run("best", {"a": 0.5}, k) for k in (1100.0, 900.0)])
    assert results.ratio_range(two) == " (0.90-1.10 over 2 runs)"


def test_ratios_and_utilizations_keep_their_digits_at_the_edges():
    """Three decimals only where two would read 1x; two significant digits only below 0.1x;
    two decimals of a utilization only where one would round it onto its goal."""
    assert [results.times(x) for x in (0.993, 0.996, 1.004, 1.006)] == ["0.99x", "0.996x", "1.004x", "1.01x"]
    assert [results.small_times(x) for x in (0.012, 0.1, None)] == ["0.012x", "0.10x", "-"]
    assert results.pct_near(0.9696, 0.972) == "97.0%" and results.pct_near(0.9718, 0.972) == "97.18%"


def test_targets_are_met_at_exactly_their_bound():
    best16 = results.replace(made_run("best", {"x": 0.90}, 1000.0),
                             traces=(results.TraceResult("x", "lab64", "ok", 0.75, 1000.0, 1000.0),))
    best8 = results.replace(made_run("best", {"x": 0.972}, 1000.0), utilization=0.972)
    rows = results.targets_section(best16, best8, None, None, [])
    assert not [r for r in rows if "not met" in r], rows
    assert "| lab64 group, 16-byte alignment: utilization >= 75% | 75.0% | met |" in rows


def test_group_utilization_counts_a_failed_trace_as_zero():
    r = results.replace(made_run("best", {"a": 0.8, "b": 0.8}, 1000.0), traces=(
        results.TraceResult("a", "kit", "ok", 0.8, 1.0, 1.0), results.TraceResult("b", "kit", "timeout", None, None, None)))
    assert r.group_util("kit") == pytest.approx(0.4) and r.group_util("lab64") is None


def test_provenance_gives_the_lower_middle_load_of_an_even_count():
    runs = [results.replace(made_run("best", {"a": 0.5}, 1000.0), loads=(0.3, 0.0, 0.2, 0.1))]
    assert "a median of 0.1 of the host's" in results.provenance(runs)
    assert "(at most 0.3 over 4 runs;" in results.provenance(runs)


def test_stats_table_gives_the_largest_peak_heap_not_their_sum():
    r = made_run("best", {"a": 0.5, "b": 0.6}, 2000.0)
    r = results.replace(r, traces=tuple(results.replace(t, stats={"peak_heap": p}) for t, p in zip(r.traces, (100, 300))))
    assert results.stats_table([r])[2].endswith("| 0 | 300 |")


def test_gaps_list_the_furthest_from_the_ideal_first():
    t = lambda n, u, ideal: results.TraceResult(n, "kit", "ok", u, 1.0, 1.0, ideal=ideal)  # noqa: E731
    best = results.replace(made_run("best", {"a": 0.5}, 1000.0), traces=(t("near", 0.89, 0.9), t("far", 0.5, 0.9)))
    rows = [r for r in results.gaps_section(best) if r.startswith("| ") and "pts" in r]
    assert rows == ["| far | kit | 50.0% | 90.0% | 40.0 pts |", "| near | kit | 89.0% | 90.0% | 1.0 pts |"]
    assert results.gaps_section(best, count=1)[-2].startswith("| far |")


def test_the_whole_suite_row_keeps_two_digits_of_a_slow_variants_ratio():
    md = results.render([made_run("implicit-first", {"a": 0.5}, 12.0)], [], "traces")
    assert "| **whole suite** | 0.012x |" in md


def test_a_relative_path_given_is_the_current_folders(tmp_path):
    """Run from another folder, `--traces mine` had been looked for in the kit ("<kit>/mine: no
    such trace directory"), and `--out` written there: a relative path given was the kit's,
    which --help did not say. Now it is the current folder's, as compare.py's; the defaults
    are still the kit's, and --help says so."""
    (tmp_path / "mine").mkdir()
    tool = str(KIT / "tools" / "results.py")
    done = subprocess.run([_python(), tool, "--traces", "mine", "--variant", "no-such-variant"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=60)
    assert done.stderr.strip().splitlines() == ["Error: no such variant: no-such-variant"], done.stderr
    shown = subprocess.run([_python(), tool, "-h"], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    text = " ".join(shown.stdout.split())
    assert "default: the kit's traces/" in text and "default: the kit's docs/" in text

"""tools/results_seeds.py: the seed traces are what `mmtrace gen` writes, the page's
figures are the driver's, and bad input or a failed variant is one line, not a
traceback."""
from __future__ import annotations

import json
import subprocess
import sys
from statistics import mean

import click
import pytest
from click.testing import CliRunner

from conftest import build_driver
from variants_common import KIT

sys.path.insert(0, str(KIT / "tools"))
import results_seeds  # noqa: E402
from mmtrace.recipe import load_recipe  # noqa: E402

# Small and quick (5,431 ops), with a parameter, and its utilization moves with the seed.
TRACE = "realloc-vectors"
VARIANT = "segregated"
K = 2


def _python() -> str:
    return str(KIT / ".venv" / "bin" / "python") if (KIT / ".venv" / "bin" / "python").exists() else sys.executable


def _tool(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([_python(), "tools/results_seeds.py", *args], cwd=KIT, capture_output=True,
                          text=True, timeout=120)


@pytest.fixture(scope="module")
def entry():
    return next(e for e in load_recipe(KIT / "traces" / "recipe.toml").entries if e.name == TRACE)


@pytest.fixture(scope="module")
def seeded(tmp_path_factory):
    """One run of the tool: one trace, K other seeds, one variant."""
    tmp = tmp_path_factory.mktemp("seeds")
    done = _tool("--trace", TRACE, "--variant", VARIANT, "--seeds", str(K),
                 "--seeds-dir", str(tmp / "seeds"), "--out", str(tmp / "results-seeds.md"))
    assert done.returncode == 0, done.stderr
    return tmp


def _utilization(path) -> float:
    """What the driver's JSON says, run here by hand."""
    driver = build_driver(VARIANT, 16)
    out = path.with_suffix(".json")
    subprocess.run([str(driver), "-f", str(path), "-r", "1", "--json", str(out)], check=True,
                   capture_output=True)
    return json.loads(out.read_text())["traces"][0]["utilization"]


def _row(md: str, name: str) -> list[str]:
    line = next(ln for ln in md.splitlines() if ln.startswith(f"| {name} |"))
    return [c.strip() for c in line.strip("|").split("|")]


def test_seed_rule():
    assert results_seeds.other_seeds(3003, 3) == [300301, 300302, 300303]


def test_seed_files_are_what_mmtrace_gen_writes(seeded, entry, tmp_path):
    params = [a for k, v in sorted(entry.params.items()) for a in ("-p", f"{k}={v}")]
    for seed in [entry.seed, *results_seeds.other_seeds(entry.seed, K)]:
        want = tmp_path / f"{seed}.rep"
        subprocess.run([str(KIT / ".venv" / "bin" / "mmtrace"), "gen", entry.pattern, "--seed", str(seed),
                        *params, "--header", entry.header, "--weight", str(entry.weight), "-o", str(want)],
                       check=True, capture_output=True)
        assert (seeded / "seeds" / f"{TRACE}-s{seed}.rep").read_bytes() == want.read_bytes()


def test_table_figures_are_the_drivers(seeded, entry):
    md = (seeded / "results-seeds.md").read_text()
    assert f"## `{VARIANT}`" in md and "S*100 + j" in md and f"K = {K}" in md
    suite = _utilization(seeded / "seeds" / f"{TRACE}-s{entry.seed}.rep")
    others = [_utilization(seeded / "seeds" / f"{TRACE}-s{s}.rep") for s in results_seeds.other_seeds(entry.seed, K)]
    pct = results_seeds.pct
    assert _row(md, TRACE) == [TRACE, pct(suite), pct(mean(others)), pct(min(others)), pct(max(others))]
    assert f"suite seeds: **{pct(suite)}**" in md
    assert f"mean of {K} other seeds: **{pct(mean(others))}**" in md


@pytest.mark.parametrize("args, message", [
    (["--variant", "no-such-variant"], "no such variant: no-such-variant"),
    (["--trace", "no-such-trace"], "no trace 'no-such-trace'"),
    (["--recipe", "/nonexistent/recipe.toml"], "/nonexistent/recipe.toml: cannot read"),
    (["--trace", "rec-perl"], "rec-perl is recorded"),
    # option values and outputs, refused before the page or a seed trace is touched
    (["--time-limit", "0"], "Invalid value for '--time-limit': 0 is not in the range 1<=x<=86400"),
    (["--seeds", "0"], "Invalid value for '--seeds'"),
    (["--trace", TRACE, "--out", "/proc/mmtrace-x/s.md"], "/proc/mmtrace-x: cannot make the folder"),
    (["--trace", TRACE, "--seeds-dir", "/proc/mmtrace-x"], "/proc/mmtrace-x: cannot make the folder"),
    # click's Path had dropped the slash: the page would have been written as a file named new
    (["--trace", TRACE, "--out", "/proc/new/"],
     "Error: Invalid value for '--out': /proc/new/: names a folder (ends in /); name a file in it"),
])
def test_bad_input_is_one_line(args, message):
    done = _tool(*args)
    assert done.returncode != 0
    assert message in done.stderr and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("option, what", [("--recipe", "file"), ("--seeds-dir", "folder"), ("--out", "file")])
def test_an_empty_path_is_refused_before_any_work(option, what):
    """Path("") is the current folder: `--seeds-dir ''` had written the seed traces there.
    Parsed only (make_context): the old code would have measured."""
    with pytest.raises(click.ClickException) as refused:
        results_seeds.main.make_context("results_seeds.py", [option, ""])
    assert refused.value.exit_code == 2
    assert refused.value.format_message() == f"{option}: an empty {what} name; name one"


def test_a_broken_recipe_is_one_line(tmp_path):
    recipe = tmp_path / "recipe.toml"
    recipe.write_text('[groups]\ng = "G"\n[[trace]]\nname = "x"\ngroup = "g"\nstresses = "s"\n'
                      'pattern = "binary"\nseed = 1\nparams = 5\n')
    done = _tool("--recipe", str(recipe), "--out", str(tmp_path / "s.md"), "--seeds-dir", str(tmp_path / "sd"))
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines() == [f"Error: {recipe}: trace #1 (x): 'params' must be a table, "
                                                "not an integer"]
    assert not (tmp_path / "s.md").exists()


def test_a_recipe_entry_that_makes_no_trace_is_one_line(tmp_path):
    """Parameters each valid alone that make no trace (a request larger than the heap) ended in
    a traceback from make_trace, before anything was measured."""
    recipe = tmp_path / "recipe.toml"
    recipe.write_text('[groups]\ng = "G"\n[[trace]]\nname = "x"\ngroup = "g"\nstresses = "s"\n'
                      'pattern = "binary"\nseed = 1\nparams = { small = 30000000 }\n')
    done = _tool("--recipe", str(recipe), "--out", str(tmp_path / "s.md"), "--seeds-dir", str(tmp_path / "sd"))
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"Error: {recipe}: trace 'x': pattern 'binary' with "
                                                   "small=30000000"), lines
    assert not (tmp_path / "s.md").exists()


def test_a_failed_variant_keeps_the_others_results(tmp_path, monkeypatch):
    real = results_seeds.run_variant

    def run_variant(variant, *args):
        if variant == "best":
            raise click.ClickException("mdriver failed for best: simulated")
        return real(variant, *args)

    monkeypatch.setattr(results_seeds, "run_variant", run_variant)
    out = tmp_path / "out.md"
    done = CliRunner().invoke(results_seeds.main, ["--trace", TRACE, "--variant", "best", "--variant", VARIANT,
                                                   "--seeds", "1", "--seeds-dir", str(tmp_path / "s"),
                                                   "--out", str(out)])
    assert done.exit_code == 1 and "Error: mdriver failed for best: simulated" in done.output
    md = out.read_text()
    assert f"## `{VARIANT}`" in md and f"| {TRACE} |" in md and "Not measured: `best`" in md


def test_a_page_of_nothing_measured_is_not_written(tmp_path, monkeypatch):
    def run_variant(variant, *args):
        raise click.ClickException(f"mdriver failed for {variant}: simulated")

    monkeypatch.setattr(results_seeds, "run_variant", run_variant)
    out = tmp_path / "out.md"
    out.write_text("the last good page\n")
    done = CliRunner().invoke(results_seeds.main, ["--trace", TRACE, "--variant", VARIANT, "--seeds", "1",
                                                   "--seeds-dir", str(tmp_path / "s"), "--out", str(out)])
    assert done.exit_code == 1 and "wrote" not in done.output
    assert "Error: mdriver failed for segregated: simulated" in done.output
    assert f"Error: nothing was measured; {out} is left as it was" in done.output
    assert out.read_text() == "the last good page\n"


@pytest.mark.parametrize("first", [True, False], ids=["while-the-first", "after-the-first"])
def test_ctrl_c_keeps_the_variants_measured(tmp_path, monkeypatch, first):
    """Ctrl-C had been click's `Aborted!`, status 1, and no page: the variants measured before it were lost."""
    real = results_seeds.run_variant

    def run_variant(variant, *args):
        if variant == "best":
            raise KeyboardInterrupt
        return real(variant, *args)

    monkeypatch.setattr(results_seeds, "run_variant", run_variant)
    out = tmp_path / "out.md"
    out.write_text("the last good page\n")
    order = ["best", VARIANT] if first else [VARIANT, "best"]
    done = CliRunner().invoke(results_seeds.main, ["--trace", TRACE, "--variant", order[0], "--variant", order[1],
                                                   "--seeds", "1", "--seeds-dir", str(tmp_path / "s"),
                                                   "--out", str(out)])
    errors = [line for line in done.output.splitlines() if line.startswith("Error")]
    assert done.exit_code == 130 and "Aborted" not in done.output, done.output
    if first:
        assert errors == [f"Error: interrupted by SIGINT while measuring best: nothing was measured; {out} is left "
                          "as it was"]
        assert out.read_text() == "the last good page\n"
    else:
        assert errors == [f"Error: interrupted by SIGINT while measuring best: {out} has {VARIANT}, not best"]
        md = out.read_text()
        assert f"## `{VARIANT}`" in md and f"| {TRACE} |" in md and "Not measured: `best` (interrupted)" in md


def test_a_page_that_cannot_be_written_is_one_line(tmp_path):
    """A write that fails at the end (a full disk) had been an OSError traceback."""
    done = _tool("--trace", TRACE, "--variant", VARIANT, "--seeds", "1", "--seeds-dir", str(tmp_path / "s"),
                 "--out", "/dev/full")
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert [line for line in done.stderr.splitlines() if line.startswith("Error")] == [
        f"Error: /dev/full: cannot write it (No space left on device); the driver's results are in {tmp_path / 's'}"]


def test_a_failed_trace_counts_zero_and_is_named():
    ok = results_seeds.SeedResult(seed=3003, path="a.rep", outcome="ok", utilization=0.8)
    bad = results_seeds.SeedResult(seed=300301, path="b.rep", outcome="out_of_heap", utilization=None,
                                   message="op 12: no room\nmore")
    good = results_seeds.SeedResult(seed=300302, path="c.rep", outcome="ok", utilization=0.6)
    row = results_seeds.TraceSeeds(name="t", suite=ok, others=(bad, good))
    assert row.row() == ["t", "80.0%", "30.0% (1 failed: out_of_heap)", "0.0%", "60.0%"]
    assert results_seeds.failures("best", [row]) == [
        "best failed on t seed 300301 (b.rep): out_of_heap: op 12: no room"]


def _recipe(tmp_path, weights: dict[str, int], recorded: str = "rec") -> object:
    """A recipe of generated traces NAME -> weight, and one recorded trace RECORDED."""
    text = '[groups]\ng = "G"\n'
    for name, w in weights.items():
        text += (f'[[trace]]\nname = "{name}"\ngroup = "g"\nstresses = "s"\npattern = "binary"\nseed = 7\n'
                 f'weight = {w}\n')
    text += f'[[trace]]\nname = "{recorded}"\ngroup = "g"\nstresses = "s"\ncommand = ["true"]\n'
    path = tmp_path / "recipe.toml"
    path.write_text(text)
    return path


def test_the_traces_measured_are_the_generated_ones_that_score_utilization(tmp_path):
    """Recorded traces have no seed and are skipped; so are traces whose weight scores no
    utilization (0: checked only, 3: throughput only).  Naming a recorded one is an error."""
    recipe = _recipe(tmp_path, {"both": 1, "util": 2, "check": 0, "speed": 3})
    assert [e.name for e in results_seeds.chosen_entries(recipe, ())] == ["both", "util"]
    assert [e.name for e in results_seeds.chosen_entries(recipe, ("util",))] == ["util"]
    with pytest.raises(results_seeds.RecipeError, match="rec is recorded, not generated"):
        results_seeds.chosen_entries(recipe, ("util", "rec"))


def test_the_averages_are_over_the_traces_and_a_failed_suite_seed_counts_zero():
    """The page's two averages: the suite seeds' utilization, and each trace's mean of its other
    seeds, both over the traces, a failed run counting 0; a failed suite seed is named too."""
    def seed(s: int, utilization: float, outcome: str = "ok") -> results_seeds.SeedResult:
        return results_seeds.SeedResult(seed=s, path=f"{s}.rep", outcome=outcome, utilization=utilization)

    # whatever utilization a failed run carries, it counts 0
    rows = [results_seeds.TraceSeeds("t1", seed(1, 0.8), (seed(101, 0.6), seed(102, 0.4, "timeout"))),
            results_seeds.TraceSeeds("t2", seed(2, 0.5, "timeout"), (seed(201, 0.9), seed(202, 0.7)))]
    lines = results_seeds.variant_section("best", rows, 2)
    assert "| t1 | 80.0% | 30.0% (1 failed: timeout) | 0.0% | 60.0% |" in lines
    assert "| t2 | timeout | 80.0% | 70.0% | 90.0% |" in lines
    assert "- average over these 2 traces, suite seeds: **40.0%**" in lines
    assert "- average over these 2 traces, each trace's mean of 2 other seeds: **55.0%**" in lines
    assert results_seeds.failures("best", rows) == ["best failed on t1 seed 102 (102.rep): timeout",
                                                        "best failed on t2 seed 2 (2.rep): timeout"]


def test_each_variant_is_measured_once_at_the_alignment_asked_and_a_failed_run_is_an_error(tmp_path, monkeypatch,
                                                                                           entry):
    """The driver (faked here) runs each variant named once, on every seed file at --alignment and
    -T; a run that fails is an error line with the first line of the driver's message, and status 1,
    the page still written with it counted 0."""
    calls = []

    def measure(variant, alignment, paths, time_limit, samples, out):
        calls.append((variant, alignment, time_limit, samples, len(paths)))
        return {"traces": [{"path": str(p), "outcome": "out_of_heap" if i == 0 else "ok",
                            "utilization": None if i == 0 else 0.5, "message": "op 3: no room\nmore" if i == 0 else ""}
                           for i, p in enumerate(paths)]}

    monkeypatch.setattr(results_seeds, "measure", measure)
    out, seeds = tmp_path / "out.md", tmp_path / "s"
    done = CliRunner().invoke(results_seeds.main, ["--trace", TRACE, "--variant", VARIANT, "--variant", VARIANT,
                                                   "--seeds", "1", "--alignment", "8", "--time-limit", "7",
                                                   "--seeds-dir", str(seeds), "--out", str(out)])
    assert calls == [(VARIANT, 8, 7, 1, 2)]
    assert done.exit_code == 1
    assert [line for line in done.output.splitlines() if line.startswith("Error")] == [
        f"Error: {VARIANT} failed on {TRACE} seed {entry.seed} ({seeds / f'{TRACE}-s{entry.seed}.rep'}): out_of_heap: "
        "op 3: no room"]
    md = out.read_text()
    assert "8-byte alignment, `mdriver -r 1 -T 7`" in md and f"| {TRACE} | out_of_heap | 50.0% |" in md


def test_a_recipe_with_no_generated_trace_to_measure_is_one_line(tmp_path, monkeypatch):
    """Only recorded traces, or generated ones that score no utilization: nothing to measure, so
    no build and no driver run (which, given no trace, would run its default suite)."""
    calls = []
    monkeypatch.setattr(results_seeds, "measure", lambda *args: calls.append(args))
    recipe = _recipe(tmp_path, {"check": 0})
    done = CliRunner().invoke(results_seeds.main, ["--recipe", str(recipe), "--seeds-dir", str(tmp_path / "s"),
                                                   "--out", str(tmp_path / "out.md")])
    assert done.exit_code == 1 and not calls
    assert done.output.strip().splitlines() == [f"Error: {recipe}: no generated traces to measure"]
    assert not (tmp_path / "out.md").exists()


def test_the_page_names_the_traces_trace_chose(seeded):
    """`--trace realloc-vectors` had written "Every generated trace of `traces/recipe.toml` is
    regenerated" above a table of that one trace."""
    md = (seeded / "results-seeds.md").read_text()
    assert f"The generated trace `{TRACE}` of `traces/recipe.toml` is regenerated" in md
    assert "Every generated trace" not in md
    page = results_seeds.render({}, 1, 16, "r.toml", "s", "now", "", [], 60, ("a", "b", "a"))
    assert "The generated traces `a`, `b` of `r.toml` are regenerated" in page
    assert "Every generated trace of `r.toml` is regenerated" in results_seeds.render({}, 1, 16, "r.toml", "s",
                                                                                       "now", "", [])


def test_a_relative_path_given_is_the_current_folders_and_the_defaults_the_kits(tmp_path, monkeypatch):
    """Run from another folder, `--out seeds.md` had written the page into the kit (a relative
    path given was taken from the kit's folder, which --help did not say). A path given is now
    the current folder's, as compare.py's; the defaults are still the kit's, and --help says so."""
    seen = {}

    def entries(recipe, names):
        seen["recipe"] = recipe
        return [object()]

    def stop(path):
        seen["out"] = path
        raise click.ClickException("stop here")

    monkeypatch.setattr(results_seeds, "chosen_entries", entries)
    monkeypatch.setattr(results_seeds, "writable_file", stop)
    monkeypatch.chdir(tmp_path)
    done = CliRunner().invoke(results_seeds.main, ["--variant", "best", "--recipe", "r.toml", "--out", "p.md"])
    assert done.output.splitlines()[-1] == "Error: stop here", done.output
    assert seen == {"recipe": tmp_path / "r.toml", "out": tmp_path / "p.md"}
    done = CliRunner().invoke(results_seeds.main, ["--variant", "best"])
    assert seen == {"recipe": KIT / "traces" / "recipe.toml", "out": KIT / "docs" / "results-seeds.md"}
    text = " ".join(CliRunner().invoke(results_seeds.main, ["-h"]).output.split()).replace("- ", "-")  # wrapped at -
    assert "default: the kit's build/seeds/" in text and "default: the kit's docs/results-seeds.md" in text

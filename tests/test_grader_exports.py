"""grades.csv, Gradescope's results.json and Autolab's line, checked against their published shapes."""
import csv
import io
import json
import os
import re
import shutil
import stat
import subprocess
import sys
import tarfile
import zipfile

import jsonschema
import pytest

from grader import exports
from grader.policy import load_policy
from grader.scoring import perf_ceiling
from grader_fixtures.helpers import KIT, TRACES, by_name, make_fake_kit, run_batch, run_grader, write_policy
from grader_fixtures.submissions import source

SCHEMAS = KIT / "grader" / "schemas"


def _schema(name):
    return json.loads((SCHEMAS / name).read_text())


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    root = tmp_path_factory.mktemp("exports")
    kit = make_fake_kit(root / "kit")
    shutil.copytree(TRACES, kit / "traces")
    subs = root / "subs"
    sources = {"good": source("good"), "crasher": source("good") + "/* FAKE:fail=tiny */\n",
               "broken": source("compile_error"), "cheat": source("clock"),
               "unread": source("good") + "/* FAKE:bad=tiny */\n"}
    for name, text in sources.items():
        (subs / name).mkdir(parents=True)
        (subs / name / "mm.c").write_text(text)
    batch = run_batch(kit, subs, root / "out")
    policy = load_policy(kit, write_policy(root, name="course.toml"))
    return batch, policy, kit, root


def test_grades_csv_has_a_row_per_student(graded):
    batch, *_ = graded
    rows = list(csv.DictReader(io.StringIO(exports.grades_csv(batch))))
    assert tuple(rows[0]) == exports.CSV_COLUMNS
    by = {r["name"]: r for r in rows}
    assert set(by) == {"good", "crasher", "broken", "cheat", "unread"}
    assert all(row["handin"] == name for name, row in by.items())        # the real name of the hand-in
    subs = by_name(batch)
    for name, row in by.items():
        points = subs[name].summary.points if exports.counted(subs[name]) else ""      # a grader_error's: none
        assert row["verdict"] == subs[name].verdict and (row["points"] and float(row["points"])) == points


def test_grades_csv_puts_each_figure_under_its_own_column(graded):
    """Each column of grades.csv holds the record's figure of that name (points to 3 places, U and
    T / T_libc to 4), not a neighbour's: a TA's sheet sorts and averages by these headers."""
    batch, *_ = graded
    rows = {r["name"]: r for r in csv.DictReader(io.StringIO(exports.grades_csv(batch)))}
    good = by_name(batch)["good"].summary
    assert good.utilization != good.throughput_ratio and good.correctness_points != good.performance_points
    for name, row in rows.items():
        s = by_name(batch)[name].summary
        for column, places in (("correctness_points", 3), ("performance_points", 3), ("points", 3),
                               ("perf_index", 3), ("utilization", 4), ("throughput_ratio", 4)):
            value = getattr(s, column) if exports.counted(by_name(batch)[name]) or places == 4 else None
            assert row[column] == ("" if value is None else str(round(value, places))), (name, column)
        assert (int(row["valid"]), int(row["traces"]), float(row["max_points"])) == (s.valid, s.traces, s.max_points)


def test_grades_csv_has_no_row_for_a_reference_variant(graded):
    """A reference variant (timing.reference_variants) is graded beside the class for comparison;
    it is no student, so grades.csv, which a TA uploads as the grades, has no row for it."""
    import dataclasses
    batch, *_ = graded
    good = by_name(batch)["good"]
    ref = dataclasses.replace(good, name="_ref-segregated", reference=True, origin="/kit/variants/segregated.c")
    text = exports.grades_csv(dataclasses.replace(batch, submissions=(good, ref)))
    assert [row["name"] for row in csv.DictReader(io.StringIO(text))] == ["good"]


def test_grades_csv_shows_an_insane_old_record_as_every_other_output_does(graded):
    """A record from an older grader with figures no run produces (U 1.7e306, P 1.02e308): grades.csv
    wrote them as they were, where Gradescope, Autolab and the report keep its correctness points only."""
    import dataclasses
    from grader.scoring import shown
    batch, policy, *_ = graded
    bad = _inflated(by_name(batch)["good"])
    row = next(csv.DictReader(io.StringIO(exports.grades_csv(dataclasses.replace(batch, submissions=(bad,))))))
    seen = shown(bad.summary)
    assert (row["utilization"], row["throughput_ratio"]) == ("", "")
    assert float(row["perf_index"]) == 0.0 and float(row["performance_points"]) == 0.0
    assert float(row["points"]) == float(row["correctness_points"]) == seen.points == bad.summary.correctness_points
    assert json.loads(exports.autolab_line(bad))["scores"]["Correctness"] == float(row["points"])
    assert exports.gradescope_results(bad, policy)["score"] == float(row["points"])


# unread: a grader_error for a trace reported as bad_trace, whose test was left out while the
# correctness points were still divided over every trace (max_score 45 of 55)
@pytest.mark.parametrize("name", ["good", "crasher", "broken", "cheat", "unread"])
def test_gradescope_results_follow_the_spec(graded, name):
    batch, policy, *_ = graded
    sub = by_name(batch)[name]
    results = exports.gradescope_results(sub, policy)
    jsonschema.validate(results, _schema("gradescope-results.schema.json"))
    assert sum(t["score"] for t in results["tests"]) == pytest.approx(results["score"], abs=0.01)
    assert sum(t["max_score"] for t in results["tests"]) == pytest.approx(sub.summary.max_points, abs=0.01)
    names = [t["name"] for t in results["tests"]]
    assert names[0] == "Build" and names[-1] == "Performance"
    assert len([n for n in names if n.startswith("Trace: ")]) == len(sub.traces)
    assert len([n for n in names if n.startswith("Rule: ")]) == len(sub.rules)
    if exports.counted(sub):
        assert [e["name"] for e in results["leaderboard"]][0] == "Performance index"


def test_every_output_adds_up_to_the_grade_when_the_points_do_not_divide(tmp_path):
    """40 correctness points over 3 traces: each trace's test had max_score and score 13.333, so
    Gradescope's tests added up to 54.999 of the policy's 55 points, and to 39.999 of correctness 40.
    Every trace now has its share to 3 places, the shares adding up to the whole, and grades.csv,
    Gradescope, Autolab and the record's trace table all state the same parts and totals."""
    from grader.policy import Policy
    kit = make_fake_kit(tmp_path / "kit")
    traces = tmp_path / "traces"
    shutil.copytree(TRACES, traces)
    (traces / "third.rep").write_text((TRACES / "tiny.rep").read_text())
    subs = tmp_path / "subs"
    subs.mkdir()
    (subs / "all.c").write_text(source("good"))
    (subs / "two.c").write_text(source("good") + "/* FAKE:fail=tiny */\n")
    batch = run_batch(kit, subs, tmp_path / "out", "[points]\ncorrectness = 40.0\nperformance = 15.0\n"
                      "[scoring]\nall_or_nothing = false\n", traces=traces)
    policy = Policy.from_json(batch.policy)
    rows = {r["name"]: r for r in csv.DictReader(io.StringIO(exports.grades_csv(batch)))}
    for sub in batch.submissions:
        assert len(sub.traces) == 3 and sub.summary.perf_index > 0
        s, row = sub.summary, rows[sub.name]
        results = exports.gradescope_results(sub, policy)
        tests = results["tests"]
        assert round(sum(t["max_score"] for t in tests), 6) == s.max_points == 55.0
        assert round(sum(t["max_score"] for t in tests if t["name"].startswith("Trace: ")), 6) == 40.0
        assert round(sum(t["score"] for t in tests), 6) == results["score"] == s.points
        assert round(sum(t.points for t in sub.traces), 6) == s.correctness_points
        assert all(t["score"] in (0.0, t["max_score"]) for t in tests if t["name"].startswith("Trace: "))
        autolab = json.loads(exports.autolab_line(sub))["scores"]
        assert (autolab["Correctness"], autolab["Performance"]) == (s.correctness_points, s.performance_points)
        assert round(autolab["Correctness"] + autolab["Performance"], 6) == s.points
        assert (float(row["correctness_points"]), float(row["performance_points"]), float(row["points"])) == \
            (s.correctness_points, s.performance_points, s.points)
    assert by_name(batch)["all"].summary.correctness_points == 40.0
    assert by_name(batch)["two"].summary.valid == 2


def test_gradescope_marks_failures(graded):
    batch, policy, *_ = graded
    tests = {t["name"]: t for t in exports.gradescope_results(by_name(batch)["crasher"], policy)["tests"]}
    assert tests["Trace: tiny"]["status"] == "failed" and "crashed" in tests["Trace: tiny"]["output"]
    assert tests["Trace: grow"]["status"] == "passed"
    cheat = {t["name"]: t for t in exports.gradescope_results(by_name(batch)["cheat"], policy)["tests"]}
    assert cheat["Rule: shadowing"]["status"] == "failed" and "clock_gettime" in cheat["Rule: shadowing"]["output"]
    assert by_name(batch)["unread"].verdict == "grader_error"
    unread = {t["name"]: t for t in exports.gradescope_results(by_name(batch)["unread"], policy)["tests"]}
    assert unread["Trace: tiny"]["status"] == "failed" and "bad_trace" in unread["Trace: tiny"]["output"]


@pytest.mark.parametrize("visibility", ["hidden", "after_due_date", "after_published", "visible"])
def test_gradescope_hides_the_points_but_never_the_build_or_the_rules(graded, visibility):
    """A course may hide the traces and the Performance test until a date; the build's and the
    rules' tests carry no points and say what the student must mend, so they are always visible."""
    from dataclasses import replace
    batch, policy, *_ = graded
    policy = replace(policy, gradescope=replace(policy.gradescope, visibility=visibility))
    for name in ("cheat", "crasher"):
        results = exports.gradescope_results(by_name(batch)[name], policy)
        shown = {t["name"]: t["visibility"] for t in results["tests"]}
        assert results["visibility"] == visibility
        for test, seen in shown.items():
            always = test == "Build" or test.startswith("Rule: ")
            assert seen == ("visible" if always else visibility), (test, seen)
        assert any(t.startswith("Rule: ") for t in shown) or name == "crasher"


def test_gradescope_states_only_the_figures_a_submission_has(graded):
    """A submission that never ran (broken does not compile; cheat is rejected) read 'utilization
    0.0%, throughput 0.00x libc', figures its record does not hold (null)."""
    batch, policy, *_ = graded
    for name in ("broken", "cheat"):
        sub = by_name(batch)[name]
        assert sub.summary.utilization is None and sub.summary.throughput_ratio is None
        perf = exports.gradescope_results(sub, policy)["tests"][-1]
        assert perf["name"] == "Performance" and perf["output"] == "performance index 0.0/100", perf["output"]
    good = by_name(batch)["good"]
    perf = exports.gradescope_results(good, policy)["tests"][-1]["output"]
    assert perf.startswith(f"utilization {100 * good.summary.utilization:.1f}%, "
                           f"throughput {good.summary.throughput_ratio:.2f}x libc, performance index "), perf


def test_gradescope_rounds_the_figures_once_as_the_report_does(graded):
    """Rounded to 4 or 3 places and then again, U = 0.99949 read 100.0% and T = 0.8049x libc read
    0.81x on Gradescope, 99.9% and 0.80 in the report."""
    import dataclasses
    from grader import report
    batch, policy, *_ = graded
    good = by_name(batch)["good"]
    sub = dataclasses.replace(good, summary=dataclasses.replace(good.summary, utilization=0.99949, throughput_ratio=0.8049))
    perf = exports.gradescope_results(sub, policy)["tests"][-1]["output"]
    assert perf.startswith(f"utilization {exports.percent(0.99949)}%, throughput {report._num(0.8049)}x libc, "), perf
    assert perf.startswith("utilization 99.9%, throughput 0.80x libc, ")


def test_gradescope_states_the_median_of_several_runs(graded):
    import dataclasses
    from grader.model import RunFigure
    batch, policy, *_ = graded
    good = by_name(batch)["good"]
    runs = tuple(RunFigure("ok", p, 0.5, 0.8) for p in (61.0, 62.5, good.summary.perf_index))
    results = exports.gradescope_results(dataclasses.replace(good, runs=runs), policy)
    jsonschema.validate(results, _schema("gradescope-results.schema.json"))
    one_run = exports.gradescope_results(good, policy)
    assert "median of 3 runs by performance index" in results["tests"][-1]["output"]
    assert "median of" not in one_run["tests"][-1]["output"]
    assert results["score"] == one_run["score"]              # the score is the median run's, as before


def test_autolab_line(graded):
    batch, *_ = graded
    for sub in filter(exports.counted, batch.submissions):      # a grader_error has none
        data = json.loads(exports.autolab_line(sub))
        jsonschema.validate(data, _schema("autolab-line.schema.json"))
        assert sum(data["scores"].values()) == pytest.approx(sub.summary.points, abs=0.01)
        assert data["scoreboard"][0] == sub.summary.perf_index


def _cli(*args, cwd=None):
    return run_grader(*args, capture_output=True, text=True, cwd=cwd, timeout=300)


def test_gradescope_command_in_its_layout(graded):
    _, _, kit, root = graded
    gs = root / "autograder"
    (gs / "submission" / "handin").mkdir(parents=True)
    (gs / "submission" / "handin" / "mm.c").write_text(source("good"))
    done = _cli("gradescope", "--root", gs, "--kit", kit, "--config", root / "course.toml")
    assert done.returncode == 0, done.stderr
    results = json.loads((gs / "results" / "results.json").read_text())
    jsonschema.validate(results, _schema("gradescope-results.schema.json"))
    assert results["score"] > 0 and "no_network" in results["output"]


def test_gradescope_command_without_a_submission_still_writes_results(graded):
    _, _, kit, root = graded
    gs = root / "empty-autograder"
    (gs / "submission").mkdir(parents=True)
    done = _cli("gradescope", "--root", gs, "--kit", kit)
    assert done.returncode == 1 and "expected mm.c" in done.stderr
    results = json.loads((gs / "results" / "results.json").read_text())
    jsonschema.validate(results, _schema("gradescope-results.schema.json"))
    assert results["score"] == 0
    assert results["output_format"] == "text"       # the reason may name the hand-in's files


def test_package_gradescope_zip(graded, tmp_path):
    _, _, kit, root = graded
    out = tmp_path / "autograder.zip"
    done = _cli("package", "gradescope", "-o", out, "--config", root / "course.toml")
    assert done.returncode == 0, done.stderr
    with zipfile.ZipFile(out) as z:
        names = set(z.namelist())
        modes = {i.filename: i.external_attr >> 16 for i in z.infolist()}
        run = z.read("run_autograder").decode()
        setup = z.read("setup.sh").decode()
    assert {"setup.sh", "run_autograder", "kit/mdriver.c", "kit/grader/cli.py", "kit/course.toml",
            "kit/grader.toml", "kit/config.h"} <= names
    assert modes["run_autograder"] & stat.S_IXUSR and modes["setup.sh"] & stat.S_IXUSR
    assert run.startswith("#!") and "--root /autograder" in run and "--config course.toml" in run
    assert "bubblewrap" in setup and "jinja2==" in setup
    assert {"kit/mmtrace/__init__.py", "kit/mmtrace/trace.py", "kit/mmtrace/oneline.py"} <= names
    assert not any("__pycache__" in n for n in names)


def _isolated_python(folder):
    """A python3 that sees the venv's third-party packages but not this checkout's editable install
    (-S skips the .pth files), as on a host that has only the bundle."""
    import site
    folder.mkdir()
    script = folder / "python3"
    script.write_text(f'#!/bin/sh\nPYTHONPATH="${{PYTHONPATH:+$PYTHONPATH:}}{site.getsitepackages()[0]}" '
                      f'exec {sys.executable} -S "$@"\n')
    script.chmod(0o755)
    return folder


def test_autolab_bundle_runs_end_to_end(graded, tmp_path):
    _, _, kit, root = graded
    for package in ("grader", "mmtrace"):
        shutil.copytree(KIT / package, kit / package, dirs_exist_ok=True,
                        ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(TRACES, kit / "course-traces", dirs_exist_ok=True)   # the hosted run must find these
    config = write_policy(tmp_path, '[traces]\ndir = "course-traces"\n', name="ct.toml")
    out = tmp_path / "autolab"
    done = _cli("package", "autolab", "-o", out, "--kit", kit, "--config", config)
    assert done.returncode == 0, done.stderr
    with tarfile.open(out / "autograde.tar") as t:
        assert {"kit/grader/cli.py", "kit/mmtrace/trace.py", "kit/course.toml"} <= set(t.getnames())
    job = tmp_path / "job"
    job.mkdir()
    shutil.copy(out / "autograde.tar", job)
    shutil.copy(out / "autograde-Makefile", job / "Makefile")
    (job / "mm.c").write_text(source("good"))
    env = {**os.environ, "PATH": f"{_isolated_python(tmp_path / 'bin')}:{os.environ['PATH']}"}
    made = subprocess.run(["make", "-s"], cwd=job, capture_output=True, text=True, env=env, timeout=300)
    assert made.returncode == 0, made.stderr
    last = json.loads(made.stdout.strip().splitlines()[-1])
    jsonschema.validate(last, _schema("autolab-line.schema.json"))
    assert last["scores"]["Correctness"] > 0


def test_autolab_bundle_says_in_one_line_that_python_is_too_old(tmp_path):
    from grader import package
    job = tmp_path / "job"
    (job / "bin").mkdir(parents=True)
    (job / "Makefile").write_text(package.autolab_makefile(KIT, ""))
    old = job / "bin" / "python3"
    old.write_text('#!/bin/sh\n[ "$1" = --version ] && echo "Python 3.10.12" || exit 1\n')
    old.chmod(0o755)
    env = {**os.environ, "PATH": f"{job / 'bin'}:{os.environ['PATH']}"}
    made = subprocess.run(["make", "-s"], cwd=job, capture_output=True, text=True, env=env, timeout=60)
    assert made.returncode != 0
    assert made.stdout.strip() == "autograde: the grader needs Python >= 3.11, python3 here is Python 3.10.12"
    setup = package.SETUP.format(requirements="click")
    assert "python3.11-venv" in setup and "sys.version_info < (3, 11)" in setup


def test_autolab_bundle_says_in_one_line_that_python_lacks_the_graders_packages(tmp_path):
    """An image whose python3 is recent but has none of the grader's packages (Debian's own) ended
    the job in a ModuleNotFoundError traceback, with no score line and no word of what to install."""
    from grader import package
    job = tmp_path / "job"
    (job / "bin").mkdir(parents=True)
    (job / "Makefile").write_text(package.autolab_makefile(KIT, ""))
    bare = job / "bin" / "python3"      # the standard library alone
    bare.write_text(f'#!/bin/sh\nexec {sys.executable} -I -S "$@"\n')
    bare.chmod(0o755)
    env = {**os.environ, "PATH": f"{job / 'bin'}:{os.environ['PATH']}"}
    made = subprocess.run(["make", "-s"], cwd=job, capture_output=True, text=True, env=env, timeout=60)
    assert made.returncode != 0 and "Traceback" not in made.stdout + made.stderr
    said = made.stdout.strip().splitlines()
    assert len(said) == 1 and said[0].startswith(
        "autograde: python3 here lacks Python packages the grader needs (click, rich, matplotlib, jinja2, jsonschema, "
        "numpy, yaml); install them in the image: pip install click=="), said
    assert not (job / "kit").exists()


def _inflated(sub):
    """A record as the grader before its sanity checks kept rtcrash.c's (utilization 1.7e306, points inf)."""
    import dataclasses
    summary = dataclasses.replace(sub.summary, utilization=1.7e306, perf_index=1.02e308, throughput_ratio=float("nan"),
                                  performance_points=float("inf"), points=float("inf"))
    traces = tuple(dataclasses.replace(t, utilization=1.7e306, ops_per_sec=float("inf")) for t in sub.traces)
    return dataclasses.replace(sub, summary=summary, traces=traces)


def test_no_export_or_figure_carries_inf_or_nan_even_from_an_old_record(graded, tmp_path):
    import dataclasses
    from grader import plots, store
    batch, policy, *_ = graded
    good = by_name(batch)["good"]
    bad = _inflated(good)
    json.dumps(exports.gradescope_results(bad, policy), allow_nan=False)
    json.loads(exports.autolab_line(bad))
    text = exports.grades_csv(dataclasses.replace(batch, submissions=(bad,)))
    row = text.splitlines()[1].lower()
    assert "inf" not in row and "nan" not in row, row
    plots.histograms([good, bad], tmp_path / "h.png")          # used to raise: range [50.84, inf] is not finite
    plots.scatter([good, bad], tmp_path / "s.png")
    plots.traces_figure(bad, tmp_path / "t.png")
    assert store.reusable(good, good.sha256, good.policy_digest, good.kit_digest)
    assert not store.reusable(bad, bad.sha256, bad.policy_digest, bad.kit_digest)    # regraded, never reused


def _course_traces_kit(root):
    kit = make_fake_kit(root / "kit")
    for package in ("grader", "mmtrace"):
        shutil.copytree(KIT / package, kit / package, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(TRACES, kit / "course-traces")
    return kit


def test_package_carries_the_course_traces_dir(tmp_path):
    kit = _course_traces_kit(tmp_path)
    wanted = sorted(p.name for p in (kit / "course-traces").iterdir())[:1]
    config = write_policy(tmp_path, f'[traces]\ndir = "course-traces"\nfiles = ["{wanted[0]}"]\n', name="ct.toml")
    done = _cli("package", "gradescope", "-o", tmp_path / "pkg.zip", "--kit", kit, "--config", config)
    assert done.returncode == 0, done.stderr
    with zipfile.ZipFile(tmp_path / "pkg.zip") as z:
        assert f"kit/course-traces/{wanted[0]}" in z.namelist()
    done = _cli("package", "autolab", "-o", tmp_path / "al", "--kit", kit, "--config", config)
    assert done.returncode == 0, done.stderr
    with tarfile.open(tmp_path / "al" / "autograde.tar") as t:
        assert f"kit/course-traces/{wanted[0]}" in t.getnames()


@pytest.mark.parametrize("where", ["ABS", "../elsewhere", "missing"])
def test_package_refuses_traces_it_cannot_bundle(tmp_path, where):
    kit = _course_traces_kit(tmp_path)
    where = str(kit / "course-traces") if where == "ABS" else where
    config = write_policy(tmp_path, f'[traces]\ndir = "{where}"\n', name="ct.toml")
    done = _cli("package", "gradescope", "-o", tmp_path / "pkg.zip", "--kit", kit, "--config", config)
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "ct.toml" in done.stderr and "traces" in done.stderr
    assert not (tmp_path / "pkg.zip").exists()


def test_grades_csv_cells_are_never_spreadsheet_formulas(graded):
    """OWASP's CSV injection: a hand-in named =HYPERLINK(...).c ran as a formula in the TAs' sheet."""
    import dataclasses
    batch, *_ = graded
    good = by_name(batch)["good"]
    evil = dataclasses.replace(good, name="-2_3", reason="+cmd|' /C calc'!A0", origin='/h/=HYPERLINK("evil.example").c')
    row = next(csv.DictReader(io.StringIO(exports.grades_csv(dataclasses.replace(batch, submissions=(evil,))))))
    assert (row["name"], row["reason"], row["handin"]) == ("'-2_3", "'+cmd|' /C calc'!A0", '\'=HYPERLINK("evil.example").c')
    assert row["points"] == str(round(good.summary.points, 3)) and row["verdict"] == "ok"


def test_a_failed_submission_is_not_ranked_by_figures_it_did_not_earn(graded):
    """crasher failed tiny; the leaderboard and Autolab's scoreboard carried its utilization and
    throughput over grow, the trace it passed (0.99x libc beside passing ones' 0.02x)."""
    batch, policy, *_ = graded
    crasher, good = by_name(batch)["crasher"], by_name(batch)["good"]
    assert crasher.verdict == "failed" and crasher.summary.utilization and crasher.summary.throughput_ratio
    results = exports.gradescope_results(crasher, policy)
    board = {e["name"]: e["value"] for e in results["leaderboard"]}
    assert board == {"Performance index": crasher.summary.perf_index, "Utilization %": 0.0, "Throughput / libc": 0.0}
    assert json.loads(exports.autolab_line(crasher))["scoreboard"] == [crasher.summary.perf_index, 0.0, 0.0]
    perf = {t["name"]: t for t in results["tests"]}["Performance"]["output"]
    assert (f"(it passed {crasher.summary.valid} of {crasher.summary.traces} traces; a failed trace counts 0 in "
            "utilization and scales throughput by the share passed; not ranked by them)") in perf
    assert results["score"] == pytest.approx(crasher.summary.points, abs=0.01)     # the grade is unchanged
    good_board = {e["name"]: e["value"] for e in exports.gradescope_results(good, policy)["leaderboard"]}
    assert good_board["Utilization %"] == round(100 * good.summary.utilization, 2)
    assert good_board["Throughput / libc"] == round(good.summary.throughput_ratio, 3)


def test_the_last_lines_an_allocator_printed_are_shown_defused(graded, tmp_path):
    """output_tail is the allocator's bytes, as output is: escaped in the page, and its control
    characters (a NUL, which Gradescope's database refuses; an escape sequence) shown as '?'."""
    import dataclasses
    from grader import report, store
    batch, policy, *_ = graded
    crasher = by_name(batch)["crasher"]
    hostile = "</pre><script>alert(1)</script>\x00\x1b[2J\r\x9b\tlast words\n"
    traces = tuple(dataclasses.replace(t, output="first\n", output_cut=70000, output_tail=hostile)
                   if t.name == "tiny" else t for t in crasher.traces)
    sub = dataclasses.replace(crasher, traces=traces)
    store.write_json(tmp_path / "results.json", exports.gradescope_results(sub, policy))
    raw = (tmp_path / "results.json").read_text()
    tests = {t["name"]: t["output"] for t in json.loads(raw)["tests"]}
    assert tests["Trace: tiny"].endswith("first\n[... 70,000 bytes not shown ...]\n"
                                         "</pre><script>alert(1)</script>??[2J??\tlast words\n")
    assert "\\u0000" not in raw and "\\u001b" not in raw and "\\u009b" not in raw
    page = report._environment().get_template("submission.html.j2").render(sub=sub, figure=None)
    assert "<script>alert" not in page and "\x00" not in page and "\x1b" not in page
    assert "first\n[... 70,000 bytes not shown ...]\n&lt;/pre&gt;&lt;script&gt;alert(1)&lt;/script&gt;??[2J??\t" \
           "last words\n</pre>" in page


def test_a_grader_error_marks_no_trace_passed_and_says_it_was_not_graded(graded):
    """unread is a grader_error (the driver reported a trace it had read as unreadable): its trace
    that ran ok showed in Gradescope as passed with 0 points, as if the student had earned nothing
    for it.  No trace of it is passed now, and each test and Performance says the grader failed."""
    batch, policy, *_ = graded
    sub = by_name(batch)["unread"]
    assert sub.verdict == "grader_error" and any(t.outcome == "ok" for t in sub.traces)
    tests = {t["name"]: t for t in exports.gradescope_results(sub, policy)["tests"]}
    scored = [t for name, t in tests.items() if name.startswith("Trace: ")] + [tests["Performance"]]
    assert len(scored) == len(sub.traces) + 1
    for test in scored:
        assert test["status"] == "failed" and test["score"] == 0.0
        assert test["output"].startswith(exports.NOT_GRADED + "\n"), test["output"]
    good = exports.gradescope_results(by_name(batch)["good"], policy)["tests"]
    assert not any(exports.NOT_GRADED in t["output"] for t in good)


@pytest.mark.parametrize("cap, ceiling", [(1.25, "110"), (0.5, "80")])
def test_gradescope_states_the_ceiling_of_p_that_the_policy_has(graded, cap, ceiling):
    """With scoring.throughput_cap = 1.25, P reaches 110, and Gradescope read 'performance index
    110.0/100'; under a cap below 1 P never reaches 100.  Either now states the policy's ceiling."""
    import dataclasses
    batch, policy, *_ = graded
    policy = dataclasses.replace(policy, scoring=dataclasses.replace(policy.scoring, throughput_cap=cap))
    top = perf_ceiling(policy)
    good = by_name(batch)["good"]
    sub = dataclasses.replace(good, summary=dataclasses.replace(good.summary, perf_index=top))
    perf = exports.gradescope_results(sub, policy)["tests"][-1]["output"]
    assert perf.endswith(f"performance index {top:.1f} (at most {ceiling} under this policy)"), perf
    assert "/100" not in perf
    usual = exports.gradescope_results(good, load_policy(KIT))["tests"][-1]["output"]
    assert usual.endswith(f"performance index {good.summary.perf_index:.1f}/100"), usual


@pytest.mark.parametrize("utilization, shown", [(0.99996, 99.99), (0.9999996, 99.99), (1.0, 100.0), (0.5, 50.0)])
def test_the_leaderboard_never_ranks_a_utilization_short_of_one_at_100(graded, utilization, shown):
    """The leaderboard and Autolab's scoreboard rounded U = 0.99996 to 100.0, a perfect figure,
    which the report (exports.percent) never shows below 1."""
    import dataclasses
    batch, policy, *_ = graded
    good = by_name(batch)["good"]
    sub = dataclasses.replace(good, summary=dataclasses.replace(good.summary, utilization=utilization))
    board = {e["name"]: e["value"] for e in exports.gradescope_results(sub, policy)["leaderboard"]}
    assert board["Utilization %"] == shown
    assert json.loads(exports.autolab_line(sub))["scoreboard"][1] == shown


def test_the_documented_grades_csv_columns_are_the_columns_written():
    """docs/grader.md listed grades.csv's columns without traces, performance_points and max_points."""
    doc = (KIT / "docs" / "grader.md").read_text()
    row = next(line for line in doc.splitlines() if line.startswith("| `grades.csv` |"))
    listed = row.split(" | ", 1)[1].split("; a text cell")[0]
    assert tuple(re.findall(r"`(\w+)`", listed)) == exports.CSV_COLUMNS


def test_a_grader_error_before_the_build_does_not_say_mm_c_built(graded):
    """The grader failed while preparing the submission's folder, before any build: Gradescope's
    Build test was passed with 'mm.c compiled and linked with the driver'."""
    import dataclasses
    from grader.model import empty_summary
    batch, policy, *_ = graded
    good = by_name(batch)["good"]
    reason = "the grader failed, not the submission: [Errno 28] No space left on device"
    early = dataclasses.replace(good, verdict="grader_error", reason=reason, rules=(), traces=(), stdout="",
                                stderr="", summary=empty_summary(len(good.traces), good.summary.max_points))
    build = exports.gradescope_results(early, policy)["tests"][0]
    assert build["name"] == "Build" and build["status"] == "failed"
    assert build["output"] == f"{exports.NOT_GRADED}\nno build result: {reason}"
    after = exports.gradescope_results(by_name(batch)["unread"], policy)["tests"][0]     # built, then failed
    assert after["status"] == "passed" and after["output"] == "mm.c compiled and linked with the driver"


def test_a_lenient_course_ranks_a_failed_submission_by_the_p_it_was_graded_with(graded):
    """With all_or_nothing = false a failed submission keeps a P; the leaderboard and Autolab's
    scoreboard rank it by that P (its grade's), with no utilization or throughput it did not earn."""
    import dataclasses
    batch, policy, *_ = graded
    crasher = by_name(batch)["crasher"]
    assert crasher.verdict == "failed"
    lenient = dataclasses.replace(crasher, summary=dataclasses.replace(crasher.summary, perf_index=41.5,
                                                                       performance_points=round(0.415 * policy.points.performance, 3)))
    board = {e["name"]: e["value"] for e in exports.gradescope_results(lenient, policy)["leaderboard"]}
    assert board == {"Performance index": 41.5, "Utilization %": 0.0, "Throughput / libc": 0.0}
    assert json.loads(exports.autolab_line(lenient))["scoreboard"] == [41.5, 0.0, 0.0]


def test_an_insane_old_record_is_ranked_by_nothing_it_holds(graded):
    """A record of an older grader with P 1.02e308 and U 1.7e306 topped the leaderboard and Autolab's
    scoreboard with those figures, where its score and every other output show them as none."""
    batch, policy, *_ = graded
    bad = _inflated(by_name(batch)["good"])
    board = {e["name"]: e["value"] for e in exports.gradescope_results(bad, policy)["leaderboard"]}
    assert board == {"Performance index": 0.0, "Utilization %": 0.0, "Throughput / libc": 0.0}
    assert json.loads(exports.autolab_line(bad))["scoreboard"] == [0.0, 0.0, 0.0]


def test_a_rebuilt_report_gives_a_grader_error_no_points_for_the_traces_that_ran(graded):
    """Rebuilding from results.json computes each record's points again (store.rescored); a
    grader_error is not graded, so its traces that ran ok earn nothing there either, and every
    export of the rebuilt batch still gives it 0."""
    import dataclasses
    from grader import store
    batch, *_ = graded
    unread = by_name(batch)["unread"]
    assert unread.verdict == "grader_error" and any(t.outcome == "ok" for t in unread.traces)
    again = by_name(store.rescored(batch))
    assert again["unread"].summary == unread.summary and again["unread"].summary.points == 0
    assert all(t.points == 0 for t in again["unread"].traces)
    assert exports.autolab_line(again["unread"]) is None
    assert again["good"].summary == by_name(batch)["good"].summary      # a graded record is unchanged
    row = {r["name"]: r for r in csv.DictReader(io.StringIO(exports.grades_csv(
        dataclasses.replace(batch, submissions=tuple(again.values())))))}["unread"]
    assert row["points"] == ""      # no grade (test_grades_csv_gives_a_grader_error_no_points)


def test_an_insane_record_with_finite_points_scores_its_correctness_alone_everywhere(graded):
    """U 1.7e306 makes a record insane even where its performance points are finite: Autolab's
    scores, Gradescope's and grades.csv all give it its correctness points and no performance points."""
    import dataclasses
    batch, policy, *_ = graded
    good = by_name(batch)["good"]
    bad = _inflated(good)
    bad = dataclasses.replace(bad, summary=dataclasses.replace(bad.summary, performance_points=20.0,
                                                               points=good.summary.correctness_points + 20.0))
    correct = good.summary.correctness_points
    assert json.loads(exports.autolab_line(bad))["scores"] == {"Correctness": correct, "Performance": 0.0}
    results = exports.gradescope_results(bad, policy)
    assert results["score"] == correct and {t["name"]: t for t in results["tests"]}["Performance"]["score"] == 0.0
    row = next(csv.DictReader(io.StringIO(exports.grades_csv(dataclasses.replace(batch, submissions=(bad,))))))
    assert (float(row["performance_points"]), float(row["points"])) == (0.0, correct)


def test_the_leaderboard_ranks_throughput_to_3_places(graded):
    """T / T_libc on the leaderboard and Autolab's scoreboard is rounded to 3 places, as its other
    figures are: two submissions 0.004x apart are not ranked as tied."""
    import dataclasses
    batch, policy, *_ = graded
    good = by_name(batch)["good"]
    for ratio in (0.8049, 0.8011):
        sub = dataclasses.replace(good, summary=dataclasses.replace(good.summary, throughput_ratio=ratio))
        board = {e["name"]: e["value"] for e in exports.gradescope_results(sub, policy)["leaderboard"]}
        assert board["Throughput / libc"] == round(ratio, 3)
        assert json.loads(exports.autolab_line(sub))["scoreboard"][2] == round(ratio, 3)


def test_a_course_without_a_leaderboard_gets_none(graded):
    """gradescope.leaderboard = false: a course that ranks no one has no leaderboard in any results.json."""
    import dataclasses
    batch, policy, *_ = graded
    off = dataclasses.replace(policy, gradescope=dataclasses.replace(policy.gradescope, leaderboard=False))
    on = dataclasses.replace(policy, gradescope=dataclasses.replace(policy.gradescope, leaderboard=True))
    for sub in batch.submissions:
        assert "leaderboard" not in exports.gradescope_results(sub, off), sub.name
        assert ("leaderboard" in exports.gradescope_results(sub, on)) == exports.counted(sub), sub.name


@pytest.mark.parametrize("verdict", ["compile_error", "link_error", "bad_submission"])
def test_a_submission_that_did_not_build_fails_the_build_test_with_its_reason(graded, verdict):
    """A compile error, a link error (an undefined symbol) and a hand-in that is no mm.c: no build
    to run, so Gradescope's Build test fails with the reason, never 'mm.c compiled and linked'."""
    import dataclasses
    batch, policy, *_ = graded
    broken = by_name(batch)["broken"]
    assert broken.verdict == "compile_error"
    sub = dataclasses.replace(broken, verdict=verdict, reason=f"{verdict}: the reason the student reads")
    build = exports.gradescope_results(sub, policy)["tests"][0]
    assert build["name"] == "Build" and build["status"] == "failed"
    assert build["output"].startswith(sub.reason) and "compiled and linked" not in build["output"]


def test_a_grader_error_is_on_no_leaderboard_or_scoreboard(graded):
    """unread is a grader_error: Gradescope's leaderboard and Autolab's scoreboard listed it with
    P 0, ranking the student last for the grader's fault.  It now has no leaderboard entry, and no
    Autolab line at all (test_autolab_gives_a_grader_error_no_score), as exports.counted leaves it
    out of the histograms; every submission the grader did grade keeps its row."""
    batch, policy, *_ = graded
    for sub in batch.submissions:
        results = exports.gradescope_results(sub, policy)
        line = exports.autolab_line(sub)
        assert ("leaderboard" in results) == (line is not None) == exports.counted(sub) == \
            (sub.verdict != "grader_error"), sub.name
        jsonschema.validate(results, _schema("gradescope-results.schema.json"))
        if line is not None:
            assert "scoreboard" in json.loads(line)
            jsonschema.validate(json.loads(line), _schema("autolab-line.schema.json"))
    assert by_name(batch)["unread"].verdict == "grader_error"


def test_autolab_gives_a_grader_error_no_score(graded, tmp_path):
    """A grader_error (the grader failed, not the student) ended `mmgrade autolab` with the line
    {"scores": {"Correctness": 0, "Performance": 0}}, exit status 0: Autolab gave the student 0 for
    the grader's failure.  So did a grader that could not start (a broken policy).  Now neither has
    a score line: the last line says the grader failed and the submission must be regraded, and the
    exit status is 1, so that Autolab reports an autograder failure and records no grade."""
    _, _, kit, root = graded
    job = tmp_path / "job"
    job.mkdir()
    (job / "mm.c").write_text(source("good") + "/* FAKE:bad=tiny */\n")
    done = _cli("autolab", "mm.c", "--kit", kit, "--config", root / "course.toml", cwd=job)
    assert done.returncode == 1, done.stdout + done.stderr
    last = done.stdout.strip().splitlines()[-1]
    assert last.startswith("mmgrade: not graded: the grader failed, not the submission (")
    assert last.endswith("no score given: regrade it once the grader is mended")
    assert '"scores"' not in done.stdout
    (tmp_path / "broken.toml").write_text("[points\n")
    done = _cli("autolab", "mm.c", "--kit", kit, "--config", tmp_path / "broken.toml", cwd=job)
    assert done.returncode == 1 and '"scores"' not in done.stdout, done.stdout
    assert done.stdout.strip().splitlines()[-1].startswith("mmgrade: not graded: the grader failed")


def test_gradescope_shows_every_output_as_plain_text(graded):
    """A trace's test shows what the allocator printed, and the Build test the compiler's lines
    (a student's `#warning`): Gradescope renders an output in its output_format, whose default is
    not plain text, so `<img src=//evil.example/x.png>` printed by an allocator could show as an
    image, or a link, on the page a TA opens.  Every output is now declared text."""
    batch, policy, *_ = graded
    for sub in batch.submissions:
        results = exports.gradescope_results(sub, policy)
        jsonschema.validate(results, _schema("gradescope-results.schema.json"))
        assert results["output_format"] == results["test_output_format"] == "text"
        assert all("output_format" not in t for t in results["tests"])      # none overrides it


BIDI = "\u202e\u2066\u200f\u061c\u200b\ufeff"       # each reverses or hides what is around it


def test_invisible_characters_are_shown_escaped_in_every_output(graded, tmp_path):
    """An allocator printing U+202E (RIGHT-TO-LEFT OVERRIDE), or a hand-in named with one, had it pass
    as it was into Gradescope's text, the report and grades.csv, where it reverses what follows it (a
    grade read backwards, Trojan Source).  Each is now shown as '\\u202e', once (text that already
    reads '\\u202e' is left alone), the HTML escaping as it was and a Persian name's ZWNJ kept."""
    import dataclasses
    from grader import report
    batch, policy, *_ = graded
    crasher = by_name(batch)["crasher"]
    printed = f"<b>{BIDI}evil</b> already \\u202e\n"
    traces = tuple(dataclasses.replace(t, output=printed, message=f"said {BIDI}") for t in crasher.traces)
    sub = dataclasses.replace(crasher, traces=traces, reason=f"failed {BIDI}", build_log=f"mm.c:1: {BIDI}",
                              origin=f"/h/ali{BIDI}.c", label="Ali\u200cReza")
    shown = "\\u202e\\u2066\\u200f\\u061c\\u200b\\ufeff"
    outputs = {
        "gradescope": json.dumps(exports.gradescope_results(sub, policy), ensure_ascii=False),
        "failure": json.dumps(exports.gradescope_failure(f"no mm.c {BIDI}"), ensure_ascii=False),
        "grades.csv": exports.grades_csv(dataclasses.replace(batch, submissions=(sub,))),
        "page": report._environment().get_template("submission.html.j2").render(sub=sub, figure=None),
    }
    for where, text in outputs.items():
        assert not any(c in text for c in BIDI), where
    tiny = {t["name"]: t for t in exports.gradescope_results(sub, policy)["tests"]}["Trace: tiny"]["output"]
    assert f"<b>{shown}evil</b> already \\u202e\n" in tiny and "\\\\u202e" not in tiny
    assert f"ali{shown}.c" in outputs["grades.csv"] and f"failed {shown}" in outputs["grades.csv"]
    assert f"&lt;b&gt;{shown}evil&lt;/b&gt; already \\u202e" in outputs["page"] and "&amp;lt;" not in outputs["page"]
    assert f"Hand-in ali{shown}.c" in outputs["page"] and "Ali\u200cReza" in outputs["page"]
    assert exports.gradescope_failure(f"no mm.c {BIDI}")["output"].endswith(f"no mm.c {shown}")


def test_grades_csv_and_the_report_give_a_grader_error_no_points(graded, tmp_path):
    """A grader_error (the grader failed, not the student) had 0.0 in grades.csv's points columns, and
    0.0 in the report's table: a TA importing the points column gave the student 0 for the grader's
    failure.  Those cells are now empty, the report saying 'not graded'; graded rows keep theirs."""
    from grader import report
    batch, *_ = graded
    rows = {r["name"]: r for r in csv.DictReader(io.StringIO(exports.grades_csv(batch)))}
    unread = rows["unread"]
    assert unread["verdict"] == "grader_error" and unread["max_points"] == "55.0"
    assert [unread[c] for c in ("correctness_points", "perf_index", "performance_points", "points")] == [""] * 4
    assert all(rows[name]["points"] != "" for name in rows if name != "unread")
    index = report.render(batch, tmp_path).read_text()
    cell = re.search(r'<a href="sub/unread.html">.*?</tr>', index, re.S).group(0)
    assert re.findall(r'<td class="num">([^<]*)</td>', cell) == ["", "not graded"]     # P, points
    page = (tmp_path / "report" / "sub" / "unread.html").read_text()
    assert "<b>Not graded</b> (of 55.0 points): the grader failed" in page and "<b>0.0</b>" not in page


def test_a_grader_errors_page_shows_no_figures(graded, tmp_path):
    """A grader_error's own page showed its zeros under 'Figures:' (correctness 0.0, P = 0.0) right
    below its 'Not graded' heading, as if measured; it now says none were measured, and a graded
    page keeps its figures."""
    from grader import report
    batch, *_ = graded
    report.render(batch, tmp_path)
    page = (tmp_path / "report" / "sub" / "unread.html").read_text()
    assert "no figures were measured" in page, page
    assert "Figures" not in page and "correctness 0.0" not in page and "P = 0.0" not in page, page
    good = (tmp_path / "report" / "sub" / "good.html").read_text()
    assert "correctness " in good and "P = " in good and "no figures were measured" not in good


def test_gradescope_command_says_a_grader_error_is_not_graded(graded):
    """`mmgrade gradescope` ended its log with 'unread: grader_error, 0.0 points', as if a grade; it
    says now that the grader failed and the submission is not graded, and a graded one's line gives
    the score results.json gives."""
    _, _, kit, root = graded
    for name, extra in (("tampered", "/* FAKE:bad=tiny */\n"), ("fine", "")):
        gs = root / f"autograder-{name}"
        (gs / "submission").mkdir(parents=True)
        (gs / "submission" / "mm.c").write_text(source("good") + extra)
        done = _cli("gradescope", "--root", gs, "--kit", kit, "--config", root / "course.toml")
        assert done.returncode == 0, done.stderr
        score = json.loads((gs / "results" / "results.json").read_text())["score"]
        said = ("grader_error, not graded (the grader failed, not the submission)" if extra
                else f"ok, {score} points")
        assert done.stdout.strip().endswith(f": {said}: {gs / 'results' / 'results.json'}"), done.stdout


@pytest.mark.parametrize("bundle", ["gradescope", "autolab"])
@pytest.mark.parametrize("trace", ["ABS", "../../outside/t.rep"])
def test_package_refuses_a_listed_trace_outside_the_kit(tmp_path, bundle, trace):
    """traces.files naming a trace by an absolute path was a Python traceback (ValueError from
    relative_to); one leading out of the kit by ../ was bundled where the hosted grader never looks
    (the zip drops a leading '..', and tar refuses to unpack a member holding one)."""
    kit = _course_traces_kit(tmp_path)
    (tmp_path / "outside").mkdir()
    shutil.copy(TRACES / "tiny.rep", tmp_path / "outside" / "t.rep")
    trace = str(tmp_path / "outside" / "t.rep") if trace == "ABS" else trace
    config = write_policy(tmp_path, f'[traces]\ndir = "course-traces"\nfiles = ["{trace}"]\n', name="ct.toml")
    out = tmp_path / ("pkg.zip" if bundle == "gradescope" else "al")
    done = _cli("package", bundle, "-o", out, "--kit", kit, "--config", config)
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "ct.toml: traces.files" in done.stderr and "not inside the kit" in done.stderr, done.stderr
    assert not out.exists() or not list(out.iterdir())


def test_package_puts_a_listed_trace_where_the_hosted_grader_reads_it(tmp_path):
    """A trace listed as ../other/t.rep (inside the kit) went into the Autolab tar as
    kit/course-traces/../other/t.rep, a member tar will not unpack; both bundles now hold it at
    kit/other/t.rep, where kit/course-traces/../other/t.rep leads."""
    kit = _course_traces_kit(tmp_path)
    (kit / "other").mkdir()
    shutil.copy(TRACES / "tiny.rep", kit / "other" / "t.rep")
    config = write_policy(tmp_path, '[traces]\ndir = "course-traces"\nfiles = ["../other/t.rep", "grow.rep"]\n',
                          name="ct.toml")
    assert _cli("package", "gradescope", "-o", tmp_path / "pkg.zip", "--kit", kit, "--config", config).returncode == 0
    with zipfile.ZipFile(tmp_path / "pkg.zip") as z:
        assert "kit/other/t.rep" in z.namelist()
    assert _cli("package", "autolab", "-o", tmp_path / "al", "--kit", kit, "--config", config).returncode == 0
    with tarfile.open(tmp_path / "al" / "autograde.tar") as t:
        names = t.getnames()
    assert "kit/other/t.rep" in names and not [n for n in names if ".." in n.split("/")], names


def test_the_bundles_fallback_packages_are_the_kits(tmp_path):
    """A kit without pyproject.toml had setup.sh install click, rich, matplotlib, jinja2 and
    jsonschema only: the hosted grader, which imports numpy (and yaml for a Gradescope export),
    then stopped with ModuleNotFoundError on every submission."""
    from grader import package
    names = set(package._modules(package._requirements(KIT)))
    assert set(package._modules(package._requirements(tmp_path))) == names and "numpy" in names

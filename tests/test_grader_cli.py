"""mmgrade's command line: help with examples, one-line errors, an honest sandbox statement."""
import csv
import io
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from grader.grade import BatchError, read_facts
from grader.policy import load_policy
from grader.sandbox import readable_by_anyone
from grader.submissions import FORMS
from grader_fixtures.helpers import (KIT, TRACES, bare_path, classroom, cli, make_fake_kit, one_line_error,  # noqa: F401
                                     run_grader, run_python, write_policy)
from grader_fixtures.submissions import source

COMMANDS = [[], ["grade"], ["report"], ["gradescope"], ["autolab"], ["check"], ["package"], ["package", "gradescope"],
            ["package", "autolab"]]


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c) or "mmgrade")
def test_every_command_has_help_with_an_example(command):
    done = cli(*command, "--help")
    assert done.returncode == 0 and "Example" in done.stdout and "mmgrade" in done.stdout


@pytest.mark.parametrize("module", ["grader", "mmtrace"])
def test_a_subprocess_imports_this_checkout(tmp_path, module):
    """From a temporary folder `python -m grader` or `-m mmtrace` had imported the venv's editable
    install, maybe another checkout's grader and mmtrace: every test's subprocess goes through run_python."""
    done = run_python("-m", module, "--help", cwd=tmp_path, capture_output=True, text=True,
                      env={**os.environ, "PYTHONVERBOSE": "1"})
    roots = set(re.findall(r"(/\S*?)/(?:grader|mmtrace)/__init__\.py", done.stderr))
    assert done.returncode == 0 and roots == {str(KIT)}, roots


def test_grade_end_to_end(classroom, tmp_path):
    kit, subs, config = classroom
    out = tmp_path / "out"
    done = cli("grade", subs, "-o", out, "--kit", kit, "--config", config, "--traces", TRACES, "-j", "2")
    assert done.returncode == 0, done.stderr
    assert "no_network" in done.stderr and "verdicts" in done.stdout
    verdicts = {s["name"]: s["verdict"] for s in json.loads((out / "results.json").read_text())["submissions"]}
    assert verdicts == {"ann": "ok", "bob": "compile_error", "cid": "bad_submission"}
    assert (out / "grades.csv").read_text().count("\n") == 4
    assert (out / "report" / "index.html").exists() and (out / "report" / "sub" / "bob.html").exists()
    again = cli("grade", subs, "-o", out, "--kit", kit, "--config", config, "--traces", TRACES)
    assert again.returncode == 0 and "ann: ok (unchanged)" in again.stderr
    inside = cli("grade", subs, "-o", subs / "graded", "--kit", kit, "--config", config, "--traces", TRACES,
                  "--no-report")
    names = {s["name"] for s in json.loads((subs / "graded" / "results.json").read_text())["submissions"]}
    assert inside.returncode == 0 and names == {"ann", "bob", "cid"}      # the output folder is no hand-in


@pytest.mark.parametrize("closed", [1, 2], ids=["stdout", "stderr"])
def test_grade_with_a_closed_stdout_or_stderr_keeps_its_files_and_exits_cleanly(classroom, tmp_path, closed):
    """`mmgrade grade ... >&-` had graded everything, then ended in a traceback (sys.stdout is
    None), status 1; now what it prints goes nowhere, its files are kept, status 0."""
    kit, subs, config = classroom
    out = tmp_path / "out"
    done = run_grader("grade", subs, "-o", out, "--kit", kit, "--config", config, "--traces", TRACES,
                      capture_output=True, text=True, timeout=300, preexec_fn=lambda: os.close(closed))
    assert done.returncode == 0 and "Traceback" not in done.stderr + done.stdout, done.stderr
    assert (out / "grades.csv").read_text().count("\n") == 4
    assert (out / "report" / "index.html").exists()
    assert json.loads((out / "results.json").read_text())["submissions"]


@pytest.mark.parametrize("stderr", ["closed pipe", "/dev/full"])
def test_grade_with_an_unwritable_stderr_keeps_its_files_and_exits_cleanly(classroom, tmp_path, stderr):
    """`mmgrade grade ... 2>/dev/full` (or stderr a pipe whose reader left) had stopped at the first
    progress line it could not write, status 1, its report, grades.csv (and results.json) unwritten."""
    kit, subs, config = classroom
    out = tmp_path / "out"
    if stderr == "/dev/full":
        err = os.open("/dev/full", os.O_WRONLY)
    else:
        r, err = os.pipe()
        os.close(r)
    try:
        done = run_grader("grade", subs, "-o", out, "--kit", kit, "--config", config, "--traces", TRACES,
                          stdout=subprocess.PIPE, stderr=err, text=True, timeout=300)
    finally:
        os.close(err)
    assert done.returncode == 0 and "verdicts" in done.stdout
    assert (out / "grades.csv").read_text().count("\n") == 4 and (out / "report" / "index.html").exists()


def test_no_report_removes_an_earlier_report_that_would_disagree_with_the_new_grades(classroom, tmp_path):
    """`grade --no-report` wrote new grades but left the earlier run's report beside them: its table
    and pages still showed ann passing after she failed a trace."""
    kit, subs, config = classroom
    out = tmp_path / "out"
    args = ("--kit", kit, "--config", config, "--traces", TRACES)
    assert cli("grade", subs, "-o", out, *args).returncode == 0
    report = out / "report"
    written = sorted(p.relative_to(report) for p in report.rglob("*") if p.is_file())
    assert {"index.html", "sub/ann.html", "img/histograms.png", "img/traces-ann.png"} <= set(map(str, written))
    (report / "notes.txt").write_text("a TA's own file")             # never the grader's to remove
    (subs / "ann.c").write_text(source("good") + "/* FAKE:fail=tiny */\n")
    done = cli("grade", subs, "-o", out, *args, "--no-report")
    assert done.returncode == 0, done.stderr
    rows = {r["name"]: r for r in csv.DictReader(io.StringIO((out / "grades.csv").read_text()))}
    assert rows["ann"]["verdict"] == "failed"
    assert sorted(p.relative_to(report) for p in report.rglob("*")) == [Path("notes.txt")]
    said = [line for line in done.stderr.splitlines() if "report" in line]
    assert said == [f"mmgrade: note: removed the earlier report in {report} ({len(written)} files), which showed "
                    f"an earlier run's grades; `mmgrade report {out}` draws this run's"], done.stderr
    again = cli("grade", subs, "-o", out, *args, "--no-report")      # nothing left to remove: nothing said
    assert again.returncode == 0 and "removed" not in again.stderr, again.stderr
    assert cli("report", out).returncode == 0
    assert ">failed<" in (report / "sub" / "ann.html").read_text()


@pytest.mark.parametrize("wrong, make", [
    ("submissions", "file"), ("report", "file"), ("report/img", "file"), ("results.json", "folder"),
    ("grades.csv", "folder"), ("submissions/ann.json", "folder"),
])
def test_an_output_path_of_the_wrong_kind_is_refused_before_grading(classroom, tmp_path, wrong, make):
    kit, subs, config = classroom
    out = tmp_path / "out"
    path = out / wrong
    path.parent.mkdir(parents=True, exist_ok=True)
    path.mkdir() if make == "folder" else path.write_text("x")
    done = cli("grade", subs, "-o", out, "--kit", kit, "--config", config, "--traces", TRACES)
    assert str(path) in one_line_error(done)
    assert not (out / "results.json").is_file() and not (out / "grades.csv").is_file()


def test_report_and_gradescope_name_an_output_path_of_the_wrong_kind(classroom, tmp_path):
    kit, subs, config = classroom
    out = tmp_path / "out"
    assert cli("grade", subs, "-o", out, "--kit", kit, "--config", config, "--traces", TRACES,
                "--no-report").returncode == 0
    (out / "report").write_text("x")
    assert str(out / "report") in one_line_error(cli("report", out))
    (out / "report").unlink()
    (out / "grades.csv").unlink()
    (out / "grades.csv").mkdir()
    assert str(out / "grades.csv") in one_line_error(cli("report", out))
    assert len(list((out / "submissions").glob("*.json"))) == 3         # nothing graded is lost
    root = tmp_path / "autograder"
    (root / "submission").mkdir(parents=True)
    (root / "submission" / "mm.c").write_text(source("good"))
    (root / "results" / "results.json").mkdir(parents=True)
    done = cli("gradescope", "--root", root, "--kit", kit, "--config", config)
    assert str(root / "results" / "results.json") in one_line_error(done)


def test_report_of_a_results_json_that_is_a_fifo_never_hangs(tmp_path):
    """`mmgrade report OUT` had waited forever for a writer to OUT/results.json, a FIFO."""
    out = tmp_path / "out"
    out.mkdir()
    os.mkfifo(out / "results.json")
    done = run_grader("report", out, capture_output=True, text=True, timeout=60)
    assert one_line_error(done) == (f"mmgrade: {out / 'results.json'}: cannot read it (not a regular file); "
                                     "run `mmgrade grade` first")


def test_a_fifo_in_place_of_the_lock_file_is_one_line_never_a_hang(classroom, tmp_path):
    """A FIFO at OUT/submissions/.mmgrade.lock had blocked `mmgrade report OUT` in open() for ever,
    and `mmgrade grade` ended in a traceback (Illegal seek): both refuse it in one line now."""
    kit, subs, config = classroom
    out = tmp_path / "out"
    args = ("--kit", kit, "--config", config, "--traces", TRACES)
    assert cli("grade", subs, "-o", out, *args, "--no-report").returncode == 0
    lock = out / "submissions" / ".mmgrade.lock"
    lock.unlink()
    os.mkfifo(lock)
    want = f"mmgrade: {lock}: a named pipe (FIFO), not the grader's lock file; move it away"
    assert one_line_error(run_grader("report", out, capture_output=True, text=True, timeout=60)) == want
    assert one_line_error(cli("grade", subs, "-o", out, *args)) == want
    assert len(list((out / "submissions").glob("*.json"))) == 3 and (out / "results.json").exists()


def test_gradescope_says_why_in_one_line_when_no_results_json_can(tmp_path):
    """A submission refused where results.json cannot be written had ended in a traceback (OutputError)."""
    root = tmp_path / "autograder"
    (root / "submission").mkdir(parents=True)
    (root / "results").symlink_to(tmp_path / "nowhere" / "results")
    error = one_line_error(cli("gradescope", "--root", root, "--kit", make_fake_kit(tmp_path / "kit")))
    assert "expected mm.c" in error and f"{root / 'results'}: cannot write the grader's output there" in error


@pytest.mark.parametrize("layout", ["missing", "no_submission", "submission_is_a_file", "submission_is_a_broken_link"])
def test_gradescope_refuses_a_root_that_is_not_gradescopes_folder(tmp_path, layout):
    """`gradescope --root nosuchroot` had made the folder, and written results/results.json in it
    (as in a root without submission/), saying only 'expected mm.c (found 0 candidate files)'.
    A submission/ that is a link to nothing was said not to exist, though it is there, as a link."""
    kit = make_fake_kit(tmp_path / "kit")
    root = tmp_path / "nosuchroot"
    if layout != "missing":
        root.mkdir()
    if layout == "submission_is_a_file":
        (root / "submission").write_text("int x;\n")
    if layout == "submission_is_a_broken_link":
        (root / "submission").symlink_to(tmp_path / "gone")
    error = one_line_error(cli("gradescope", "--root", root, "--kit", kit))
    sub = root / "submission"
    assert error == {
        "missing": f"mmgrade: {root}: Gradescope's folder (--root) does not exist; nothing written",
        "no_submission": f"mmgrade: {sub}: does not exist, so {root} is not Gradescope's folder (--root), "
                         "whose submission/ holds the hand-in; nothing written",
        "submission_is_a_file": f"mmgrade: {sub}: is not a folder, so {root} is not Gradescope's folder "
                                "(--root), whose submission/ holds the hand-in; nothing written",
        "submission_is_a_broken_link": f"mmgrade: {sub}: is a symbolic link whose target, {tmp_path / 'gone'}, "
                                       f"does not exist, so {root} is not Gradescope's folder (--root), whose "
                                       "submission/ holds the hand-in; nothing written"}[layout]
    assert not (root / "results").exists() and root.exists() == (layout != "missing")


@pytest.mark.parametrize("command, words", [
    (["check", "", "--kit", "KIT"], "mmgrade check: SUBMISSION: an empty path; name one"),
    (["autolab", "", "--kit", "KIT"], "mmgrade autolab: SUBMISSION: an empty path; name one"),
    (["check", "subs/ann.c", "--kit", ""], "mmgrade check: --kit: an empty folder name; name one"),
    (["check", "subs/ann.c", "--kit", "KIT", "--config", ""], "mmgrade check: --config: an empty file name; name one"),
    (["grade", "", "-o", "out", "--kit", "KIT"], "mmgrade grade: SUBMISSIONS: an empty path; name one"),
    (["grade", "subs", "-o", "out", "--kit", "KIT", "--traces", ""],
     "mmgrade grade: --traces: an empty folder name; name one"),
    (["report", ""], "mmgrade report: OUTDIR: an empty folder name; name one"),
    (["gradescope", "--root", "", "--kit", "KIT"], "mmgrade gradescope: --root: an empty folder name; name one"),
    (["package", "gradescope", "-o", "", "--kit", "KIT"],
     "mmgrade package gradescope: -o: an empty file name; name one"),
    (["package", "autolab", "-o", "", "--kit", "KIT"], "mmgrade package autolab: -o: an empty folder name; name one"),
], ids=lambda c: " ".join(c) if isinstance(c, list) else None)
def test_an_empty_path_is_one_line_naming_the_option(classroom, tmp_path, command, words):
    """Path("") is the current folder: `grade ''` had graded it as the class, `check ''` as a
    hand-in, `--kit ''` and `--traces ''` taken it for the kit and the suite, `package autolab -o ''` written there."""
    kit, _, _ = classroom
    before = sorted(tmp_path.rglob("*"))
    done = cli(*[str(kit) if arg == "KIT" else arg for arg in command], cwd=tmp_path)
    assert done.returncode == 2 and done.stderr.splitlines() == [words], done.stderr
    assert sorted(tmp_path.rglob("*")) == before


@pytest.mark.parametrize("out, message", [
    ("", "-o: an empty output folder name"),
    ("subs", "the output folder is the submissions folder"),
    ("subs/ann.d/out", "inside the hand-in"),
    ("subs/ann.d", "inside the hand-in"),
])
def test_an_output_folder_in_the_hand_ins_is_refused(classroom, tmp_path, out, message):
    kit, subs, config = classroom
    (subs / "ann.d").mkdir()
    (subs / "ann.d" / "mm.c").write_text(source("good"))
    done = cli("grade", "subs", "-o", out, "--kit", kit, "--config", config, "--traces", TRACES, cwd=tmp_path)
    assert message in one_line_error(done)
    assert not list(tmp_path.rglob("results.json")) and not (tmp_path / "submissions").exists()


@pytest.mark.parametrize("link", ["loop", "dangling", "under_loop"])
@pytest.mark.parametrize("argument, what", [
    ("submissions", "the submissions folder is"), ("-o", "the output folder is"),
    ("--config", "cannot read the policy ("), ("--traces", "the trace folder is"),
])
def test_a_path_argument_through_a_broken_symbolic_link_is_one_line(classroom, tmp_path, argument, what, link):
    """Path.resolve() had raised RuntimeError (ELOOP) on `mmgrade grade loop` with `ln -s loop loop`."""
    kit, subs, config = classroom
    (tmp_path / "loop").symlink_to("loop")
    (tmp_path / "dangling").symlink_to("nowhere")
    bad = {"loop": tmp_path / "loop", "dangling": tmp_path / "dangling", "under_loop": tmp_path / "loop" / "x"}[link]
    paths = {"submissions": subs, "-o": tmp_path / "out", "--config": config, "--traces": TRACES, argument: bad}
    done = cli("grade", paths["submissions"], "-o", paths["-o"], "--kit", kit, "--config", paths["--config"],
                "--traces", paths["--traces"])
    error = one_line_error(done)
    words = {"loop": "a symbolic link loop", "dangling": "a symbolic link whose target, nowhere, does not exist",
             "under_loop": f"under {tmp_path / 'loop'}, which is a symbolic link loop"}[link]
    assert error.startswith(f"mmgrade: {bad}: {what}") and words in error, error
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("link", ["loop", "dangling", "under_loop"])
@pytest.mark.parametrize("command, what", [
    (["report", "BAD"], "the output folder is"),
    (["gradescope", "--root", "BAD", "--kit", "KIT"], "Gradescope's folder is"),
    (["grade", "SUBS", "-o", "OUT", "--kit", "BAD"], "the kit folder is"),
    (["check", "mm.c", "--kit", "BAD"], "the kit folder is"),
    (["autolab", "mm.c", "--kit", "BAD"], "the kit folder is"),
    (["gradescope", "--root", "OUT", "--kit", "BAD"], "the kit folder is"),
    (["package", "gradescope", "-o", "BAD", "--kit", "KIT"], "the bundle is"),
    (["package", "autolab", "-o", "BAD", "--kit", "KIT"], "the bundle folder is"),
], ids=lambda c: " ".join(c) if isinstance(c, list) else None)
def test_every_other_path_argument_through_a_broken_symbolic_link_is_one_line(classroom, tmp_path, command,
                                                                              what, link):
    """--kit, report's OUTDIR, gradescope's --root and package's -o had no such check: `report loop`
    said the folder does not exist, `gradescope --root loop` ended in a traceback."""
    kit, subs, _ = classroom
    (tmp_path / "loop").symlink_to("loop")
    (tmp_path / "dangling").symlink_to("nowhere")
    bad = {"loop": tmp_path / "loop", "dangling": tmp_path / "dangling", "under_loop": tmp_path / "loop" / "x"}[link]
    given = {"BAD": bad, "KIT": kit, "SUBS": subs, "OUT": tmp_path / "out"}
    error = one_line_error(cli(*[given.get(arg, arg) for arg in command], cwd=tmp_path))
    words = {"loop": "a symbolic link loop", "dangling": "a symbolic link whose target, nowhere, does not exist",
             "under_loop": f"under {tmp_path / 'loop'}, which is a symbolic link loop"}[link]
    assert error.startswith(f"mmgrade: {bad}: {what}") and words in error, error
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("command", [["grade", "SUBS", "-o", "OUT"], ["check", "SUBS/ann.c"],
                                     ["package", "gradescope", "-o", "OUT.zip"]], ids=lambda c: " ".join(c[:2]))
def test_a_kit_whose_config_h_is_not_text_is_one_line(classroom, tmp_path, command):
    """--kit at a folder whose config.h is not UTF-8 had ended in a UnicodeDecodeError traceback."""
    kit, subs, _ = classroom
    (kit / "config.h").write_bytes(b"\xff\xfe binary \0")
    given = {"SUBS": str(subs), "OUT": str(tmp_path / "out"), "OUT.zip": str(tmp_path / "out.zip"),
             "SUBS/ann.c": str(subs / "ann.c")}
    done = cli(*[given.get(arg, arg) for arg in command], "--kit", kit)
    assert one_line_error(done) == f"mmgrade: {kit / 'config.h'}: not UTF-8 text (byte 0), so not the kit's config.h"


@pytest.mark.parametrize("command", [["grade", "SUBS", "-o", "OUT"], ["check", "SUBS/ann.c"],
                                     ["package", "gradescope", "-o", "OUT.zip"]], ids=lambda c: " ".join(c[:2]))
def test_a_kit_whose_config_h_is_a_fifo_is_one_line_not_a_hang(classroom, tmp_path, command):
    """--kit at a folder whose config.h is a FIFO had waited forever for a writer."""
    kit, subs, _ = classroom
    (kit / "config.h").unlink()
    os.mkfifo(kit / "config.h")
    given = {"SUBS": str(subs), "OUT": str(tmp_path / "out"), "OUT.zip": str(tmp_path / "out.zip"),
             "SUBS/ann.c": str(subs / "ann.c")}
    done = run_grader(*[given.get(arg, arg) for arg in command], "--kit", kit, capture_output=True, text=True,
                      timeout=60)
    assert one_line_error(done) == (f"mmgrade: {kit / 'config.h'}: cannot read the kit's config.h: "
                                     "it is a named pipe (FIFO), not a regular file")


def test_no_student_is_lost_silently(classroom, tmp_path):
    """Each entry of no known form is a warning naming it; a class folder with no hand-in, an error."""
    kit, subs, config = classroom
    for name in ("leo.C", "carl.rar", ".DS_Store"):
        (subs / name).write_text("x")
    done = cli("grade", subs, "-o", tmp_path / "out", "--kit", kit, "--config", config, "--traces", TRACES,
                "--no-report")
    assert done.returncode == 0, done.stderr
    warnings = [line for line in done.stderr.splitlines() if "warning" in line]
    assert [w.split(": ")[2] for w in warnings] == [str(subs / "carl.rar"), str(subs / "leo.C")]
    assert all("NAME.c" in w and w.endswith("skipped") for w in warnings)
    (tmp_path / "none").mkdir()
    empty = cli("grade", tmp_path / "none", "-o", tmp_path / "o2", "--kit", kit, "--config", config,
                 "--traces", TRACES)
    assert f"{tmp_path / 'none'}: no hand-ins in the folder" in one_line_error(empty)


def test_latin1_file_names_are_graded_kept_apart_and_shown_readably(classroom, tmp_path):
    """unzip of an LMS bulk download leaves Latin-1 names: not UTF-8, held by Python as surrogates."""
    kit, subs, config = classroom
    for raw in (b"jos\xe9.c", b"jos\xe8.c"):
        (subs / os.fsdecode(raw)).write_text(source("good"))
    (subs / os.fsdecode(b"zo\xeb")).mkdir()                          # a folder with no mm.c: a reason
    traces = tmp_path / "traces"
    traces.mkdir()
    shutil.copy(TRACES / "tiny.rep", traces / os.fsdecode(b"caf\xe9.rep"))
    out = tmp_path / "out"
    done = cli("grade", subs, "-o", out, "--kit", kit, "--config", config, "--traces", traces)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    rows = {r["handin"]: r for r in csv.DictReader(io.StringIO((out / "grades.csv").read_text()))}
    assert {"jos\\xe9.c", "jos\\xe8.c", "zo\\xeb"} <= set(rows)
    assert rows["jos\\xe9.c"]["verdict"] == rows["jos\\xe8.c"]["verdict"] == "ok"
    assert rows["jos\\xe9.c"]["name"] != rows["jos\\xe8.c"]["name"]
    assert rows["zo\\xeb"]["reason"].startswith("zo\\xeb/mm.c: missing")
    assert (out / "report" / "index.html").exists()
    data = json.loads((out / "results.json").read_text())
    data["submissions"][0]["origin"] = os.fsdecode(b"/old/jos\xe9.c")     # as an older grader stored it
    (out / "results.json").write_text(json.dumps(data))
    again = cli("report", out)
    assert again.returncode == 0, again.stderr
    assert "jos\\udce9.c" in (out / "grades.csv").read_text()


def test_warnings_name_an_odd_entry_on_one_line_and_escaped(classroom, tmp_path):
    """A Latin-1 file name was warned about as 'caf\\udce9.txt' (Python's surrogate), not the 'caf\\xe9'
    every record and reason shows, and a name with a newline split the warning in two."""
    kit, subs, config = classroom
    (subs / os.fsdecode(b"caf\xe9.txt")).write_text("x")
    (subs / "two\nlines.txt").write_text("x")
    done = cli("grade", subs, "-o", tmp_path / "out", "--kit", kit, "--config", config, "--traces", TRACES,
                "--no-report")
    assert done.returncode == 0, done.stderr
    said = [line for line in done.stderr.splitlines() if "not a hand-in" in line]
    assert said == [f"mmgrade: warning: {subs}/{name}: not a hand-in the grader reads ({FORMS}); skipped"
                    for name in ("caf\\xe9.txt", "two\\nlines.txt")], done.stderr


def test_a_symlink_loop_is_one_bad_hand_in(classroom, tmp_path):
    kit, subs, config = classroom
    (subs / "loop2.c").symlink_to("loop2.c")
    out = tmp_path / "out"
    done = cli("grade", subs, "-o", out, "--kit", kit, "--config", config, "--traces", TRACES, "--no-report")
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    rows = {r["name"]: r for r in csv.DictReader(io.StringIO((out / "grades.csv").read_text()))}
    assert rows["ann"]["verdict"] == "ok"
    assert rows["loop2"]["verdict"] == "bad_submission" and rows["loop2"]["reason"].startswith("loop2.c: ")


def test_earlier_outputs_in_the_class_folder_are_no_students(classroom, tmp_path):
    kit, subs, config = classroom
    args = ("--kit", kit, "--config", config, "--traces", TRACES, "--no-report")
    first = cli("grade", subs, "-o", subs / "graded-v1", *args)
    assert first.returncode == 0, first.stderr
    second = cli("grade", subs, "-o", subs / "graded-v2", *args)
    assert second.returncode == 0, second.stderr
    assert f"mmgrade: note: {subs / 'graded-v1'}: an earlier output of the grader, not a hand-in; skipped" \
        in second.stderr.splitlines()
    names = [r["name"] for r in csv.DictReader(io.StringIO((subs / "graded-v2" / "grades.csv").read_text()))]
    assert sorted(names) == ["ann", "bob", "cid"]


@pytest.mark.parametrize("args, message", [
    (["grade", "nowhere", "-o", "x"], "no such file"),
    (["check", "nowhere.c"], "nowhere.c: no such file"),
    (["grade", ".", "-o", "x", "--config", "missing.toml"], "cannot read the policy"),
    (["grade", ".", "-o", "x", "--kit", "/nonexistent-kit"], "config.h"),
    (["package", "gradescope", "-o", "/nonexistent/dir/a.zip"], "/nonexistent/dir/a.zip: cannot write the bundle"),
    (["package", "autolab", "-o", "/proc/mmgrade-bundle"], "/proc/mmgrade-bundle: cannot write the bundle"),
    # the slash had been dropped, and the zip written as a file named new
    (["package", "gradescope", "-o", "new/"], "mmgrade: new/: the bundle is a file, and this names a folder (ends in /)"),
    (["grade", ".", "-o", "x", "--config", "latin1.toml"], "latin1.toml: not UTF-8"),
    (["package", "gradescope", "-o", "a.zip", "--config", "latin1.toml"], "latin1.toml: not UTF-8"),
    (["grade", ".", "-o", "x", "--runs", "0"], "--runs: timing.runs = 0: driver runs per submission, from 1 to 15"),
    (["grade", ".", "-o", "x", "--runs", "abc"], "mmgrade grade: Invalid value for '--runs': 'abc' is not a valid"),
    # click's IntRange had called it "'x' is not a valid integer range"
    (["grade", ".", "-o", "x", "-j", "x"], "mmgrade grade: Invalid value for '-j' / '--jobs': 'x' is not a valid integer."),
    (["grade", ".", "--bogus"], "mmgrade grade: No such option '--bogus'"),
    (["bogus"], "mmgrade: No such command 'bogus'"),
])
def test_user_mistakes_are_one_line_errors(tmp_path, args, message):
    (tmp_path / "latin1.toml").write_bytes(b"[course]\nname = \"caf\xe9\"\n")
    done = cli(*args, cwd=tmp_path)
    assert done.returncode == 2 and message in done.stderr
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "new").exists()


def test_a_kit_that_does_not_build_says_why_in_one_line(tmp_path):
    """make's reason (here gcc's), not its closing '*** Error' line."""
    (tmp_path / "mm.c").write_text(source("good"))
    config = write_policy(tmp_path, '[build]\ncflags = "-O2 -fbogus-flag"\n')
    done = cli("check", "--kit", make_fake_kit(tmp_path / "kit"), "--config", config, cwd=tmp_path)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert "the kit does not build" in done.stderr and "-fbogus-flag" in done.stderr
    assert "***" not in done.stderr


def test_a_max_heap_too_small_for_the_traces_stops_the_batch_up_front(tmp_path):
    subs = tmp_path / "subs"
    subs.mkdir()
    (subs / "ann.c").write_text(source("good"))
    config = write_policy(tmp_path, limits={"max_heap": 16})       # tiny.rep asks for 40 bytes
    done = cli("grade", subs, "-o", tmp_path / "out", "--kit", KIT, "--config", config, "--traces", TRACES)
    error = done.stderr.strip().splitlines()[-1]
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert error.startswith("mmgrade: ") and "limits.max_heap = 16" in error
    assert f"{TRACES}/tiny.rep:6: size 24 cannot fit in the heap: this run's maximum heap is 16 bytes" in error
    assert not (tmp_path / "out").exists()


def test_the_graders_own_reader_names_limits_max_heap(tmp_path):
    """read_facts' reading said 'this run's maximum heap is 16 bytes' without naming the policy's
    setting; it now says '(limits.max_heap); the trace needs a larger limits.max_heap'."""
    policy = load_policy(KIT, write_policy(tmp_path, limits={"max_heap": 16}))     # tiny.rep asks for 24
    with pytest.raises(BatchError) as caught:
        read_facts(TRACES / "tiny.rep", TRACES / "tiny.rep", policy, TRACES)
    assert str(caught.value).endswith("size 24 cannot fit in the heap: this run's maximum heap is 16 bytes "
                                      "(limits.max_heap); the trace needs a larger limits.max_heap")


def test_a_malformed_trace_is_named_with_the_drivers_own_words(tmp_path):
    """Not blamed on limits.max_heap: no heap would read an id the header does not declare."""
    subs, traces = tmp_path / "subs", tmp_path / "traces"
    subs.mkdir()
    traces.mkdir()
    (subs / "ann.c").write_text(source("good"))
    (traces / "bad.rep").write_text("20000\n2\n2\n1\na 0 16\na 7 32\n")
    done = cli("grade", subs, "-o", tmp_path / "out", "--kit", KIT, "--config", write_policy(tmp_path),
                "--traces", traces)
    error = one_line_error(done)
    assert "a trace cannot be read" in error and "max_heap" not in error
    assert f"{traces}/bad.rep:6: id 7 out of range (the header declares 2 ids)" in error


@pytest.mark.parametrize("files, on_disk, words", [
    # copied to one private name, the same trace ran twice and a/t.rep never
    ('["a/t.rep", "b/t.rep"]', ["a/t.rep", "b/t.rep"], "{t}/a/t.rep and {t}/b/t.rep are both the trace t"),
    ('["tiny.rep", "tiny.rep"]', ["tiny.rep"], "traces.files lists {t}/tiny.rep more than once"),
    ("[]", ["tiny.rep", "tiny.rep.gz"], "{t}/tiny.rep and {t}/tiny.rep.gz are both the trace tiny"),
])
def test_two_traces_of_one_name_are_refused_naming_both(tmp_path, files, on_disk, words):
    kit, traces = make_fake_kit(tmp_path / "kit"), tmp_path / "traces"
    for name in on_disk:
        (traces / name).parent.mkdir(parents=True, exist_ok=True)
        (traces / name).write_text((TRACES / "tiny.rep").read_text() + f"# {name}\n")
    (tmp_path / "subs").mkdir()
    (tmp_path / "subs" / "ann.c").write_text(source("good"))
    done = cli("grade", tmp_path / "subs", "-o", tmp_path / "out", "--kit", kit, "--traces", traces,
                "--config", write_policy(tmp_path, f"[traces]\nfiles = {files}\n"))
    assert words.format(t=traces) in one_line_error(done)


def test_a_missing_trace_is_named_as_the_policy_wrote_it(tmp_path):
    """Named by its file's name only, b/t.rep missing beside a/t.rep was 't.rep'."""
    kit, traces = make_fake_kit(tmp_path / "kit"), tmp_path / "traces"
    (traces / "a").mkdir(parents=True)
    (traces / "a" / "t.rep").write_text((TRACES / "tiny.rep").read_text())
    (tmp_path / "subs").mkdir()
    (tmp_path / "subs" / "ann.c").write_text(source("good"))
    done = cli("grade", tmp_path / "subs", "-o", tmp_path / "out", "--kit", kit, "--traces", traces,
                "--config", write_policy(tmp_path, '[traces]\nfiles = ["a/t.rep", "b/t.rep", "../etc/passwd"]\n'))
    assert one_line_error(done).endswith("the policy names traces that are not there: b/t.rep, ../etc/passwd")


def test_a_trace_outside_the_folder_is_named_by_where_it_leads(tmp_path):
    kit, traces, elsewhere = make_fake_kit(tmp_path / "kit"), tmp_path / "traces", tmp_path / "elsewhere"
    traces.mkdir()
    elsewhere.mkdir()
    (elsewhere / "passwd").write_text("malformed\n")
    (tmp_path / "subs").mkdir()
    (tmp_path / "subs" / "ann.c").write_text(source("good"))
    done = cli("grade", tmp_path / "subs", "-o", tmp_path / "out", "--kit", kit, "--traces", traces,
                "--config", write_policy(tmp_path, '[traces]\nfiles = ["../elsewhere/passwd"]\n'))
    assert f"{traces}/../elsewhere/passwd (that is {elsewhere}/passwd):1: malformed" in one_line_error(done)


@pytest.mark.skipif(os.geteuid() != 0, reason="as a normal user the uid itself is a protection")
def test_no_sandbox_means_refusal_unless_unsafe(classroom, tmp_path):
    kit, subs, config = classroom
    env = bare_path(tmp_path)
    refused = cli("grade", subs, "-o", tmp_path / "o1", "--kit", kit, "--config", config, "--traces", TRACES, env=env)
    assert refused.returncode == 2 and "--unsafe" in refused.stderr and not (tmp_path / "o1").exists()
    unsafe = cli("grade", subs, "-o", tmp_path / "o2", "--kit", kit, "--config", config, "--traces", TRACES,
                  "--unsafe", "--no-report", env=env)
    assert unsafe.returncode == 0, unsafe.stderr
    data = json.loads((tmp_path / "o2" / "results.json").read_text())
    assert data["protections"] == ["wall_clock_kill"]
    assert {s["name"]: s["verdict"] for s in data["submissions"]}["ann"] == "ok"


@pytest.mark.skipif(os.geteuid() != 0, reason="setpriv is used only when the grader runs as root")
def test_without_bubblewrap_it_degrades_and_says_so(classroom, tmp_path):
    kit, subs, config = classroom
    done = cli("grade", subs, "-o", tmp_path / "o", "--kit", kit, "--config", config, "--traces", TRACES,
                "--no-report", env=bare_path(tmp_path, without=("bwrap",)))
    assert done.returncode == 0, done.stderr
    data = json.loads((tmp_path / "o" / "results.json").read_text())
    assert data["protections"] == ["wall_clock_kill", "resource_limits", "unprivileged_user"]
    assert "no_network" not in done.stderr and "unprivileged_user" in done.stderr
    assert {s["name"]: s["verdict"] for s in data["submissions"]}["ann"] == "ok"
    # the course's traces are named when every user may read them: only their modes keep them
    named = "warning: without bubblewrap a build reads what every user may: " in done.stderr
    assert named == readable_by_anyone(TRACES / "grow.rep") == (str(TRACES / "grow.rep") in done.stderr)


@pytest.mark.skipif(os.geteuid() != 0, reason="setpriv is used only when the grader runs as root")
@pytest.mark.parametrize("without", [(), ("bwrap",)], ids=["bwrap", "setpriv"])
def test_a_build_cannot_read_the_batchs_traces(classroom, tmp_path, without):
    """An mm.c that #includes the batch's copy of a trace, beside its build folder, is told it cannot
    read it, and no line of the trace reaches a record; without bwrap (the setpriv fallback) only
    the file modes and the build's own uid keep it out."""
    kit, subs, config = classroom
    (subs / "eve.c").write_text('#include "../../traces/tiny.rep"\n')
    done = cli("grade", subs, "-o", tmp_path / "o", "--kit", kit, "--config", config, "--traces", TRACES,
               "--no-report", env=bare_path(tmp_path, without=without) if without else None)
    assert done.returncode == 0, done.stderr
    data = json.loads((tmp_path / "o" / "results.json").read_text())
    # the mode that ran, as the probe reported it: bwrap hides the copy, the fallback forbids it
    assert ("read_only_fs" in data["protections"]) == (not without)
    assert "unprivileged_user" in data["protections"]
    eve = {s["name"]: s for s in data["submissions"]}["eve"]
    refusal = "Permission denied" if without else "No such file or directory"
    assert eve["verdict"] == "compile_error" and refusal in eve["reason"], eve["reason"]
    secret = (TRACES / "tiny.rep").read_text().splitlines()[0].lstrip("# ")
    shown = [p for p in (tmp_path / "o").rglob("*") if p.is_file() and secret in p.read_text(errors="replace")]
    assert not shown and secret not in done.stdout + done.stderr, shown


@pytest.mark.parametrize("args, words", [
    (["--count", "0"], "--count must be at least 1"),
    (["-j", "0"], "-j must be from 1 to 64"),
    (["--traces", "/nonexistent-traces"], "--traces /nonexistent-traces: not a folder"),
    (["--only", "no-such-prefix-"], "--only no-such-prefix-: no trace in"),
    # argparse's own: its usage block of three lines had been all it said
    (["--count", "x"], "argument --count: invalid int value: 'x'"),
    (["--bogus"], "unrecognized arguments: --bogus"),
])
def test_bench_grader_refuses_a_bad_argument_in_one_line(args, words):
    """make bench-grader BENCH_GRADER_ARGS=...: these were tracebacks (a class of nothing, a
    missing folder) before or after building the template, or a division by zero at the end."""
    done = run_python("-m", "grader.bench", *args, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr == f"grader bench: {done.stderr.split(': ', 1)[1]}" and done.stderr.count("\n") == 1, done.stderr
    assert words in done.stderr and done.stdout == ""


def test_bench_grader_help_shows_its_defaults():
    """python -m grader.bench --help did not say that --count is 100, -j 2 and --only classic-."""
    done = run_python("-m", "grader.bench", "--help", capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    options = {" ".join(block.split()) for block in re.split(r"\n  (?=-)", done.stdout)}     # one per option
    for option, default in (("--count COUNT", "100"), ("-j JOBS, --jobs JOBS", "2"), ("--only ONLY", "classic-")):
        assert any(o.startswith(f"{option} ") and o.endswith(f"default: {default})") for o in options), \
            (option, done.stdout)


def test_bench_grader_help_shows_an_example():
    """Every other command's --help shows one; python -m grader.bench's did not."""
    done = run_python("-m", "grader.bench", "--help", capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "example: python -m grader.bench --count " in done.stdout, done.stdout


def test_bench_grader_usage_names_the_way_it_is_run():
    """python -m grader.bench --help's usage line named the program bench.py, which runs nothing."""
    done = run_python("-m", "grader.bench", "--help", capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage: python -m grader.bench [-h] [--count COUNT]"), done.stdout
    assert "bench.py" not in done.stdout


@pytest.mark.parametrize("form", ["zip", "tar.gz"])
def test_a_whole_class_as_one_archive_is_refused_before_any_build(classroom, tmp_path, form):
    """`mmgrade grade class.zip` (alice/mm.c, bob/mm.c, ...: the class zipped by a TA) graded one
    student 'class', bad_submission 'several mm.c files in the archive', and exited 0."""
    import subprocess
    import tarfile
    import zipfile
    kit, subs, config = classroom
    archive = tmp_path / f"class.{form}"
    members = {"class/alice/mm.c": "good", "class/bob/handin/mm.c": "good", "class/cid/mm.c": "compile_error",
               "class/dan/mm.c": "good"}
    if form == "zip":
        with zipfile.ZipFile(archive, "w") as z:
            for name, kind in members.items():
                z.writestr(name, source(kind))
    else:
        work = tmp_path / "packed"
        for name, kind in members.items():
            (work / name).parent.mkdir(parents=True, exist_ok=True)
            (work / name).write_text(source(kind))
        with tarfile.open(archive, "w:gz") as t:
            t.add(work / "class", arcname="class")
    out = tmp_path / "out"
    refused = one_line_error(cli("grade", archive, "-o", out, "--kit", kit, "--config", config, "--traces", TRACES))
    assert refused.startswith(f"mmgrade: {archive}: holds 4 folders each with an mm.c (alice/, bob/, cid/ and 1 more): "
                              "it looks like a whole class, not one hand-in; unpack it and grade the folder: "), refused
    assert not out.exists()         # refused before the template was built, nothing made
    # the advice works as given: unpacked, the folder grades four students
    mkdir, unpack, rerun = refused.split("grade the folder: ", 1)[1].split(" && ")
    assert subprocess.run(f"{mkdir} && {unpack}", shell=True, cwd=tmp_path).returncode == 0
    folder, _, outdir = rerun.removeprefix("mmgrade grade ").partition(" -o ")
    assert outdir == str(out)
    graded = cli("grade", tmp_path / folder, "-o", out, "--kit", kit, "--config", config, "--traces", TRACES,
                  "--no-report")
    assert graded.returncode == 0, graded.stderr
    verdicts = {s["name"]: s["verdict"] for s in json.loads((out / "results.json").read_text())["submissions"]}
    assert verdicts == {"alice": "ok", "bob": "ok", "cid": "compile_error", "dan": "ok"}


def test_an_archive_with_two_mm_c_stays_one_students_hand_in(classroom, tmp_path):
    """One student's archive with two mm.c (nina/mm.c, nina/old/mm.c), given alone or found in a class
    folder, and a class folder's archive of two folders, are one student refused as before."""
    import zipfile
    kit, subs, config = classroom
    with zipfile.ZipFile(tmp_path / "nina.zip", "w") as z:
        z.writestr("nina/mm.c", source("good"))
        z.writestr("nina/old/mm.c", source("good"))
    with zipfile.ZipFile(subs / "olaf.zip", "w") as z:
        z.writestr("a/mm.c", source("good"))
        z.writestr("b/mm.c", source("good"))
    for given, name in ((tmp_path / "nina.zip", "nina"), (subs, "olaf")):
        out = tmp_path / f"out-{name}"
        graded = cli("grade", given, "-o", out, "--kit", kit, "--config", config, "--traces", TRACES, "--no-report")
        assert graded.returncode == 0, graded.stderr
        record = json.loads((out / "submissions" / f"{name}.json").read_text())
        assert record["verdict"] == "bad_submission" and "several mm.c files in the archive" in record["reason"]


@pytest.mark.parametrize("bundle", ["gradescope", "autolab"])
def test_ctrl_c_while_packaging_leaves_the_earlier_bundle_whole(tmp_path, monkeypatch, bundle):
    """Ctrl-C while the bundle was written had left a zip (tar) cut short where the earlier one
    was, and said only 'mmgrade: aborted', status 1."""
    import tarfile
    import zipfile

    from click.testing import CliRunner

    from grader import cli

    written = []

    def stop_after_some(self, *args, **kwargs):
        written.append(args[0])
        if len(written) == 20:
            raise KeyboardInterrupt
        return real(self, *args, **kwargs)

    real = zipfile.ZipFile.write if bundle == "gradescope" else tarfile.TarFile.add
    monkeypatch.setattr(zipfile.ZipFile if bundle == "gradescope" else tarfile.TarFile,
                        "write" if bundle == "gradescope" else "add", stop_after_some)
    out = tmp_path / ("autograder.zip" if bundle == "gradescope" else "autolab")
    earlier = out if bundle == "gradescope" else out / "autograde.tar"
    earlier.parent.mkdir(parents=True, exist_ok=True)
    earlier.write_bytes(b"the earlier bundle")
    done = CliRunner().invoke(cli.main, ["package", bundle, "-o", str(out), "--kit", str(KIT)])
    assert done.exit_code == 130, done.output
    assert earlier.read_bytes() == b"the earlier bundle"
    assert sorted(p.name for p in earlier.parent.iterdir()) == [earlier.name]
    said = f"{out} is as it was" if bundle == "gradescope" else f"{out}/autograde.tar and autograde-Makefile are as they were"
    assert done.output.strip().splitlines() == [f"mmgrade: interrupted: {said}"]


def test_the_verdict_table_gives_a_grader_error_no_mean_points(classroom, tmp_path):
    """The table `mmgrade grade` ends with gave grader_error a mean of 0.00 points, as if a grade; it
    now says 'not graded', as grades.csv leaves its points empty."""
    kit, subs, config = classroom
    (subs / "dot.c").write_text(source("good") + "/* FAKE:bad=tiny */\n")
    out = tmp_path / "out"
    done = cli("grade", subs, "-o", out, "--kit", kit, "--config", config, "--traces", TRACES, "--no-report")
    assert done.returncode == 0, done.stderr
    row = next(line for line in done.stdout.splitlines() if "grader_error" in line)
    assert "not graded" in row and "0.00" not in row, done.stdout


def test_report_of_a_results_json_that_is_a_folder_says_to_move_it(tmp_path):
    """`mmgrade report OUT` with a folder at OUT/results.json said 'cannot read it (Is a directory);
    run `mmgrade grade` first', though `mmgrade grade` refuses that folder too; it now names it as
    grade does."""
    (tmp_path / "out" / "results.json").mkdir(parents=True)
    done = cli("report", tmp_path / "out")
    assert one_line_error(done) == (f"mmgrade: {tmp_path / 'out' / 'results.json'}: a folder, but the grader "
                                    "writes a file there; move it away")


def test_a_stopped_batch_counts_a_grader_error_apart_from_the_graded(classroom, tmp_path):
    """A batch stopped by Ctrl-C or SIGTERM said '4 of 5 submissions graded', dot's grader_error
    among them, though it is no grade (grades.csv leaves its points empty): it is now said apart."""
    from grader.cli import _kept
    from grader.submissions import discover
    kit, subs, config = classroom
    (subs / "dot.c").write_text(source("good") + "/* FAKE:bad=tiny */\n")
    out = tmp_path / "out"
    done = cli("grade", subs, "-o", out, "--kit", kit, "--config", config, "--traces", TRACES, "--no-report")
    assert done.returncode == 0, done.stderr
    (subs / "eve.c").write_text(source("good"))          # handed in after the run: not yet graded
    assert _kept(out, discover(subs), False) == (
        f"3 of 5 submissions graded, 1 not graded as the grader failed on them (dot), kept in {out} "
        "(results.json, grades.csv leave out the 1 not yet graded: eve)")


@pytest.mark.parametrize("performance, refused", [(35, True), (0, False)])
def test_performance_points_no_trace_can_earn_are_refused_before_grading(tmp_path, performance, refused):
    """Every trace of weight 0 (checked only): no trace counts for utilization or throughput, so P was
    0 for everyone and points.performance (35 of 55) went to nobody, every student graded 20 of 55
    with no word.  Such a batch now stops before it builds anything; with no performance points it
    grades as before."""
    subs, traces = tmp_path / "subs", tmp_path / "traces"
    subs.mkdir()
    traces.mkdir()
    (subs / "ann.c").write_text(source("good"))
    for name in ("tiny.rep", "grow.rep"):
        lines = (TRACES / name).read_text().splitlines(keepends=True)
        lines[1] = "0\n"            # the lab64 header's first number: the weight
        (traces / name).write_text("".join(lines))
    config = write_policy(tmp_path, f"[points]\nperformance = {performance}\n")
    done = cli("grade", subs, "-o", tmp_path / "out", "--kit", KIT, "--config", config, "--traces", traces)
    if refused:
        error = one_line_error(done)
        assert "no trace counts for performance" in error and "points.performance = 35" in error, error
        assert not (tmp_path / "out").exists()
    else:
        assert done.returncode == 0, done.stderr
        # The driver's summary has no utilization then (null): it is no forged figure.
        row = next(csv.DictReader((tmp_path / "out" / "grades.csv").open()))
        assert (row["verdict"], row["valid"], row["utilization"]) == ("ok", "2", ""), row


def test_regrade_takes_a_hand_in_by_its_name_as_grades_csv_shows_it(tmp_path):
    """A hand-in named in Latin-1 shows in grades.csv's handin column as jos\\xe9.c; `--regrade
    'jos\\xe9.c'`, copied from there, was 'no submission of that name'."""
    from grader.cli import _regrade_names
    from grader.submissions import discover
    (tmp_path / os.fsdecode(b"jos\xe9.c")).write_text(source("good"))
    (tmp_path / "ann.c").write_text(source("good"))
    found = discover(tmp_path)
    jose = next(c for c in found if c.name != "ann")
    assert _regrade_names(("jos\\xe9.c",), found, tmp_path) == frozenset({jose.name})

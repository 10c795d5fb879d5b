"""Resumable and lossless: records written as finished, reused while unchanged, kept on interrupt."""
import hashlib
import json
import signal
import subprocess
import time
from pathlib import Path

import jsonschema
import pytest

from grader import store
from grader_fixtures.helpers import by_name, make_fake_kit, run_batch, run_grader, write_policy
from grader_fixtures.submissions import source


@pytest.fixture
def setup(tmp_path):
    kit = make_fake_kit(tmp_path / "kit")
    subs = tmp_path / "subs"
    for name in ("ann", "ben", "cat"):
        (subs / name).mkdir(parents=True)
        (subs / name / "mm.c").write_text(source("good") + f"/* {name} */\n")
    return kit, subs, tmp_path / "out"


def _events(kit, subs, out, **kwargs):
    seen = []
    run_batch(kit, subs, out, jobs=1, progress=lambda event, name, sub: seen.append((event, name)), **kwargs)
    return seen


def test_interrupt_keeps_what_finished_and_rerun_resumes(setup):
    kit, subs, out = setup

    def stop_after_first(event, name, sub):
        if event == "done":
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_batch(kit, subs, out, jobs=1, progress=stop_after_first)
    kept = store.load_all(out)
    assert len(kept) == 1 and kept[0].verdict == "ok"
    events = [e for e in _events(kit, subs, out) if e[0] != "start"]
    assert ("reused", kept[0].name) in events
    assert sorted(name for event, name in events if event == "done") == sorted({"ann", "ben", "cat"} - {kept[0].name})
    data = json.loads((out / "results.json").read_text())
    assert [s["name"] for s in data["submissions"]] == ["ann", "ben", "cat"]


def test_a_record_that_cannot_be_written_stops_the_batch_and_keeps_the_others(setup):
    kit, subs, out = setup

    def block_the_rest(event, name, sub):       # a folder where each record still to come goes
        if event == "done":
            for other in {"ann", "ben", "cat"} - {name}:
                store.record_path(out, other).mkdir(parents=True, exist_ok=True)

    with pytest.raises(store.OutputError) as err:
        run_batch(kit, subs, out, jobs=1, progress=block_the_rest)
    assert "\n" not in str(err.value) and str(out / "submissions") in str(err.value)
    kept = store.load_all(out)
    assert len(kept) == 1 and kept[0].verdict == "ok"


def test_changes_are_regraded_and_force_redoes_all(setup):
    kit, subs, out = setup
    _events(kit, subs, out)
    (subs / "ben" / "mm.c").write_text(source("good") + "/* ben, second try */\n")
    assert [e for e in _events(kit, subs, out) if e[0] == "done"] == [("done", "ben")]
    assert all(e[0] in ("start", "done") for e in _events(kit, subs, out, policy_text="[points]\ncorrectness = 30.0\n"))
    assert all(e[0] in ("start", "done") for e in _events(kit, subs, out, force=True))


def test_regrade_redoes_the_named_submissions_only(setup):
    kit, subs, out = setup
    _events(kit, subs, out)
    events = [e for e in _events(kit, subs, out, regrade=frozenset({"ben"})) if e[0] != "start"]
    assert sorted(events) == [("done", "ben"), ("reused", "ann"), ("reused", "cat")]


def test_the_cli_regrades_one_student_into_the_class_results(setup):
    """A TA regrading one student had graded a class of one into the class's folder (`mmgrade grade
    handins/ben -o graded`), its results.json and grades.csv then listing ben alone."""
    kit, subs, out = setup
    from grader_fixtures.helpers import TRACES
    common = ("-o", out, "--kit", kit, "--config", write_policy(out.parent), "--traces", TRACES, "--no-report")
    assert run_grader("grade", subs, *common, capture_output=True).returncode == 0
    done = run_grader("grade", subs, *common, "--regrade", "ben", "--regrade", "ben", capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    lines = [ln for ln in done.stderr.splitlines() if ln.startswith(("ann:", "ben:", "cat:"))]
    assert sorted(lines) == ["ann: ok (unchanged)", "ben: ok", "cat: ok (unchanged)"]
    assert [s["name"] for s in json.loads((out / "results.json").read_text())["submissions"]] == ["ann", "ben", "cat"]
    for args, message in ((("--regrade", "bne"), f"mmgrade: --regrade bne: no submission of that name in {subs} "
                                                  "(give its name in grades.csv or its hand-in's)"),
                          (("--regrade", "ben", "--force"), "mmgrade: --force regrades every submission already; "
                                                           "give --regrade NAME without it")):
        done = run_grader("grade", subs, *common, *args, capture_output=True, text=True)
        assert done.returncode == 2 and done.stderr.strip().splitlines() == [message]


@pytest.mark.parametrize("policy_text", ["", "[timing]\nruns = 2\n"], ids=["one run", "two runs"])
def test_records_are_atomic_and_valid(setup, kit, policy_text):
    kit_, subs, out = setup
    batch = run_batch(kit_, subs, out, policy_text)
    schema = json.loads((kit / "grader" / "schemas" / "results.schema.json").read_text())
    jsonschema.validate(json.loads((out / "results.json").read_text()), schema)
    record_schema = {"$schema": schema["$schema"], "$defs": schema["$defs"], "$ref": "#/$defs/submission"}
    for path in (out / "submissions").glob("*.json"):
        jsonschema.validate(json.loads(path.read_text()), record_schema)
    assert not list(out.rglob("*.tmp"))
    assert len(batch.submissions) == 3


def test_a_batch_of_several_runs_resumes_without_regrading(setup):
    kit, subs, out = setup
    two = "[timing]\nruns = 2\n"
    assert sorted(name for event, name in _events(kit, subs, out, policy_text=two) if event == "done") == \
        ["ann", "ben", "cat"]
    stored = store.load_all(out)
    assert all(len(s.runs) == 2 for s in stored)
    again = _events(kit, subs, out, policy_text=two)
    assert sorted(name for event, name in again if event == "reused") == ["ann", "ben", "cat"]
    assert store.load_all(out) == stored                       # the runs round-trip through the records
    assert store_batch(out).submissions == tuple(stored)      # and through results.json
    assert all(e[0] in ("start", "done") for e in _events(kit, subs, out, policy_text="[timing]\nruns = 3\n"))


@pytest.mark.parametrize("stop, code, said", [(signal.SIGINT, 130, "interrupted"), (signal.SIGTERM, 143, "terminated"),
                                              (signal.SIGHUP, 129, "hung up")])
def test_stopping_the_cli_keeps_results(setup, stop, code, said):
    """SIGHUP (an ssh session closed) ended the grader with no word, its sandboxed runs left running
    where there is no bwrap, and results.json, grades.csv and the report not written."""
    kit, subs, out = setup
    for name in ("ben", "cat"):
        (subs / name / "mm.c").write_text(source("good") + "/* FAKE:hang */\n")
    config = write_policy(out.parent, limits={"wall_clock": 120}, name="slow.toml")
    proc = run_grader("grade", subs, "-o", out, "--kit", kit, "--config", config, "--traces",
                      kit.parent.parent / "unused", runner=subprocess.Popen, stdout=subprocess.PIPE,
                      stderr=subprocess.PIPE, text=True)
    # --traces points nowhere: the CLI must say so in one line, not crash.
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 2 and "no such trace folder" in err and "Traceback" not in err
    from grader_fixtures.helpers import TRACES
    proc = run_grader("grade", subs, "-o", out, "--kit", kit, "--config", config, "--traces", TRACES,
                      runner=subprocess.Popen, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                      preexec_fn=_interruptible)
    deadline = time.monotonic() + 60
    while not (out / "submissions" / "ann.json").exists() and time.monotonic() < deadline:
        time.sleep(0.2)
    time.sleep(0.5)
    proc.send_signal(stop)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == code and said in err and "Traceback" not in err
    assert "1 of 3 submissions graded" in err and "not yet graded: ben, cat" in err, err
    assert by_name(store_batch(out))["ann"].verdict == "ok"
    page = (out / "report" / "index.html").read_text()      # no page left showing another run's grades
    assert "Incomplete" in page and "ben, cat" in page and "sub/ann.html" in page and "sub/ben.html" not in page
    assert not (out / "submissions" / "ben.json").exists()


@pytest.mark.parametrize("stop, code, said", [(signal.SIGINT, 130, "interrupted"), (signal.SIGTERM, 143, "terminated"),
                                              (signal.SIGHUP, 129, "hung up")])
def test_stopping_the_cli_while_it_sets_up_leaves_nothing_behind(setup, stop, code, said):
    """SIGTERM left /tmp/mmgrade-* (the kit's template) behind; Ctrl-C exited 1, `aborted`."""
    import os
    import shutil
    import tempfile
    from pathlib import Path
    from grader_fixtures.helpers import TRACES
    kit, subs, out = setup
    makefile = kit / "Makefile"                  # a slow template build: the signal comes during it
    makefile.write_text(makefile.read_text().replace("\t@echo $(BUILD)/mdriver", "\t@sleep 20\n\t@echo $(BUILD)/mdriver"))
    tmp = Path(tempfile.mkdtemp(prefix="setup-", dir="/tmp"))      # the sandbox's user must reach it
    tmp.chmod(0o755)
    try:
        proc = run_grader("grade", subs, "-o", out, "--kit", kit, "--config", write_policy(out.parent),
                          "--traces", TRACES, runner=subprocess.Popen, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, preexec_fn=_interruptible,
                          env={**os.environ, "TMPDIR": str(tmp)})
        deadline = time.monotonic() + 60
        while not list(tmp.glob("mmgrade-*/template/Makefile")) and time.monotonic() < deadline:
            time.sleep(0.1)
        time.sleep(0.5)
        proc.send_signal(stop)
        _, err = proc.communicate(timeout=60)
        assert proc.returncode == code and "Traceback" not in err, err
        assert err == f"mmgrade: {said} while setting up, before anything was graded\n"
        assert not list(tmp.iterdir()) and not out.exists()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _interruptible():
    """Give the grader Ctrl-C's default action even when these tests run as a background job
    (a shell starts those with SIGINT ignored, and Python keeps an ignored SIGINT ignored)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def store_batch(out):
    from grader.model import Batch
    return Batch.from_json(json.loads((out / "results.json").read_text()))


def _with_reference(kit):
    (kit / "variants").mkdir(exist_ok=True)
    (kit / "variants" / "segregated.c").write_text(source("good") + "/* the kit's variant */\n")
    return "[timing]\nreference_variants = [\"segregated\"]\n"


def test_a_student_named_like_a_reference_is_kept_beside_it(setup):
    kit, subs, out = setup
    (subs / "ref-segregated").mkdir()
    (subs / "ref-segregated" / "mm.c").write_text(source("good") + "/* FAKE:fail=tiny */\n")
    batch = by_name(run_batch(kit, subs, out, _with_reference(kit)))
    student, ref = batch["ref-segregated"], batch["_ref-segregated"]
    assert not student.reference and student.verdict == "failed"
    assert ref.reference and ref.verdict == "ok"
    assert len([s for s in batch.values() if not s.reference]) == 4


def test_references_the_policy_no_longer_names_leave_the_results(setup):
    kit, subs, out = setup
    assert "_ref-segregated" in by_name(run_batch(kit, subs, out, _with_reference(kit)))
    again = run_batch(kit, subs, out)
    assert sorted(s.name for s in again.submissions) == ["ann", "ben", "cat"]
    assert "_ref-segregated" not in json.dumps(json.loads((out / "results.json").read_text())["submissions"])


def _stop_after_first(event, name, sub):
    if event == "done":
        raise KeyboardInterrupt


def test_a_stopped_run_lists_no_record_of_another_policy(setup):
    """A run under a new policy, stopped after one submission, kept the old policy's records of the
    others in results.json (and so grades.csv): points out of 55 beside points out of 65."""
    kit, subs, out = setup
    run_batch(kit, subs, out, jobs=1)
    with pytest.raises(KeyboardInterrupt):
        run_batch(kit, subs, out, "[points]\ncorrectness = 30.0\n", jobs=1, progress=_stop_after_first)
    listed = store_batch(out)
    assert len(store.load_all(out)) == 3                     # every record is kept on disk
    assert len(listed.submissions) == 1
    assert {s.policy_digest for s in listed.submissions} == {listed.policy_digest}
    assert listed.submissions[0].summary.max_points == listed.policy["points"]["correctness"] + \
        listed.policy["points"]["performance"]
    missing = {"ann", "ben", "cat"} - {listed.submissions[0].name}
    assert set(listed.missing) == missing
    done = run_grader("report", out, capture_output=True, text=True)      # the report says what is missing
    assert done.returncode == 0, done.stderr
    page = (out / "report" / "index.html").read_text()
    assert "Incomplete" in page and ", ".join(sorted(missing)) in page


def test_a_rebuilt_report_keeps_no_page_of_a_submission_not_in_it(setup):
    """The report of a full run, then a run under a new policy stopped after one: the pages and figures
    of the two left ungraded stayed, showing the old policy's grades at their URLs."""
    kit, subs, out = setup
    run_batch(kit, subs, out, jobs=1)
    assert run_grader("report", out, capture_output=True).returncode == 0
    assert len(list((out / "report" / "sub").glob("*.html"))) == 3
    with pytest.raises(KeyboardInterrupt):
        run_batch(kit, subs, out, "[points]\ncorrectness = 30.0\n", jobs=1, progress=_stop_after_first)
    assert run_grader("report", out, capture_output=True).returncode == 0
    graded = [s.name for s in store_batch(out).submissions]
    assert sorted(p.stem for p in (out / "report" / "sub").glob("*.html")) == graded
    assert sorted(p.name for p in (out / "report" / "img").glob("traces-*.png")) == [f"traces-{n}.png" for n in graded]


def test_a_stopped_run_lists_no_record_of_an_older_file(setup):
    """ben and cat handed in again; stopped after one of them: the other's old grade stayed in results.json."""
    kit, subs, out = setup
    run_batch(kit, subs, out, jobs=1)
    for name in ("ben", "cat"):
        (subs / name / "mm.c").write_text(source("good") + f"/* {name}, second try */\n")
    with pytest.raises(KeyboardInterrupt):
        run_batch(kit, subs, out, jobs=1, progress=_stop_after_first)
    shas = {p.parent.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in subs.glob("*/mm.c")}
    listed = store_batch(out).submissions
    assert len(listed) == 2 and "ann" in {s.name for s in listed}
    assert all(s.sha256 == shas[s.name] for s in listed)


def test_a_second_run_into_the_same_folder_is_refused(setup):
    """Two runs into one OUTDIR both graded everything, timing their drivers at once and
    overwriting each other's records; the second now stops in one line before grading."""
    from grader_fixtures.helpers import TRACES
    kit, subs, out = setup
    args = ("grade", subs, "-o", out, "--kit", kit, "--config", write_policy(out.parent), "--traces", TRACES)
    with store.exclusive(out):          # what a running `mmgrade grade` holds
        done = run_grader(*args, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    # one line, before setup: no "sandbox: ..." line, which follows building the kit's template
    assert done.stderr.strip().splitlines() == [f"mmgrade: {out}: another mmgrade run is grading into this "
                                                "folder; wait for it to finish or choose another output folder"]
    assert not store.load_all(out) and not (out / "results.json").exists()
    done = run_grader(*args, capture_output=True, text=True, timeout=120)     # released: grades as ever
    assert done.returncode == 0, done.stderr
    assert sorted(s.name for s in store_batch(out).submissions) == ["ann", "ben", "cat"]


def test_a_reused_record_names_the_hand_in_it_is_reused_for(setup):
    """'a b' was graded as a_b; then a hand-in really named a_b came, a copy of it: it reused a_b.json,
    whose origin said 'a b', so grades.csv gave 'a b' two rows and a_b none."""
    import csv
    kit, subs, out = setup
    (subs / "a b").mkdir()
    (subs / "a b" / "mm.c").write_text(source("good") + "/* shared */\n")
    run_batch(kit, subs, out, jobs=1)
    (subs / "a_b").mkdir()
    (subs / "a_b" / "mm.c").write_text((subs / "a b" / "mm.c").read_text())
    batch = run_batch(kit, subs, out, jobs=1)
    from grader.exports import grades_csv
    rows = list(csv.DictReader(grades_csv(batch).splitlines()))
    assert sorted(r["handin"] for r in rows) == ["a b", "a_b", "ann", "ben", "cat"]
    assert all(store.load(out, s.name).origin == s.origin for s in batch.submissions)


@pytest.mark.parametrize("stop, code, said", [(KeyboardInterrupt, 130, "interrupted"), (None, 143, "terminated")])
def test_stopping_while_the_report_is_drawn_says_what_is_done(setup, monkeypatch, stop, code, said):
    """Ctrl-C while the report's figures were drawn (seconds for a class) was click's 'aborted',
    exit status 1, and SIGTERM then ended the grader with no word; both now say what is written."""
    from click.testing import CliRunner
    from grader import cli
    from grader_fixtures.helpers import TRACES
    kit, subs, out = setup

    def stopped(batch, outdir):
        raise stop() if stop else cli.Terminated()

    monkeypatch.setattr(cli, "render", stopped)
    result = CliRunner().invoke(cli.main, ["grade", str(subs), "-o", str(out), "--kit", str(kit), "--config",
                                           str(write_policy(out.parent)), "--traces", str(TRACES)])
    assert result.exit_code == code, result.output
    last = result.output.strip().splitlines()[-1]
    assert last == (f"mmgrade: {said} while writing the outputs: all 3 submissions are graded and results.json "
                    f"and grades.csv are written in {out}; `mmgrade report {out}` rebuilds the report")
    assert len(store_batch(out).submissions) == 3 and (out / "grades.csv").read_text().count("\n") == 4


def test_a_stopped_run_names_only_students_as_missing(setup):
    """The reference variants are graded beside the class, not part of it: 'missing' listed an
    ungraded _ref-segregated among the students, which the CLI's count left out."""
    kit, subs, out = setup
    policy = _with_reference(kit)
    with pytest.raises(KeyboardInterrupt):
        run_batch(kit, subs, out, policy, jobs=1, progress=_stop_after_first)
    listed = store_batch(out)
    graded = {s.name for s in listed.submissions}
    assert set(listed.missing) == {"ann", "ben", "cat"} - graded


@pytest.mark.parametrize("stop, code, said", [(KeyboardInterrupt, 130, "interrupted"), (None, 143, "terminated")])
def test_stopping_mmgrade_report_says_what_is_left(setup, monkeypatch, stop, code, said):
    """`mmgrade report` stopped while drawing was click's 'aborted', exit status 1, and SIGTERM ended
    it with no word; it now says so in one line, and results.json is untouched."""
    from click.testing import CliRunner
    from grader import cli
    from grader_fixtures.helpers import TRACES
    kit, subs, out = setup
    graded = CliRunner().invoke(cli.main, ["grade", str(subs), "-o", str(out), "--kit", str(kit), "--config",
                                           str(write_policy(out.parent)), "--traces", str(TRACES), "--no-report"])
    assert graded.exit_code == 0, graded.output
    before = (out / "results.json").read_bytes()

    def stopped(batch, outdir):
        raise stop() if stop else cli.Terminated()

    monkeypatch.setattr(cli, "render", stopped)
    result = CliRunner().invoke(cli.main, ["report", str(out)])
    assert result.exit_code == code, result.output
    assert result.output.strip().splitlines() == [
        f"mmgrade: {said} while writing the report: results.json is as it was; run `mmgrade report {out}` "
        "again for the rest"]
    assert (out / "results.json").read_bytes() == before


def test_a_run_killed_half_way_is_named_by_the_next_report_and_grade(setup):
    """After kill -9, results.json and the report stayed the previous run's and nothing said a later
    run had died; `mmgrade report` now warns, and the next `mmgrade grade` notes it."""
    from grader_fixtures.helpers import TRACES, run_python
    kit, subs, out = setup
    args = ("grade", subs, "-o", out, "--kit", kit, "--config", write_policy(out.parent), "--traces", TRACES)
    assert run_grader(*args, capture_output=True, text=True, timeout=120).returncode == 0
    # a grading run killed while it holds the folder (what `mmgrade grade` holds: store.exclusive,
    # begun once its setup is done)
    killed = run_python("-c", "import os, sys\nfrom grader import store\n"
                        "with store.exclusive(sys.argv[1]) as claim:\n    claim.begin()\n"
                        "    os.kill(os.getpid(), 9)\n", out,
                        capture_output=True, text=True, timeout=60)
    assert killed.returncode == -signal.SIGKILL
    # a run that stops in its setup grades nothing, so it keeps what the killed one left
    failed = run_grader(*args[:-1], out.parent / "no-traces", capture_output=True, text=True, timeout=120)
    assert failed.returncode == 2 and "no such trace folder" in failed.stderr
    report = run_grader("report", out, capture_output=True, text=True, timeout=120)
    assert report.returncode == 0, report.stderr
    warning = [ln for ln in report.stderr.splitlines() if "warning" in ln]
    assert len(warning) == 1 and warning[0].startswith(f"mmgrade: warning: {out}: a run (pid ")
    assert "was killed before it finished" in warning[0]
    again = run_grader(*args, capture_output=True, text=True, timeout=120)
    assert again.returncode == 0, again.stderr
    assert any(ln.startswith(f"mmgrade: note: {out}: an earlier run (pid ") and "was killed" in ln
               for ln in again.stderr.splitlines()), again.stderr
    assert store.unfinished(out) is None       # a run that ends clears what it wrote
    quiet = run_grader("report", out, capture_output=True, text=True, timeout=120)
    assert quiet.returncode == 0 and "warning" not in quiet.stderr


def test_a_killed_graders_work_folder_is_removed_by_the_next(tmp_path, monkeypatch):
    """kill -9 left /tmp/mmgrade-* (the kit's template, traces, builds) behind for good; the next
    grader to start removes a folder whose grader is gone, and never a live grader's."""
    import os
    import tempfile
    from grader import workdir
    from grader_fixtures.helpers import run_python
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    killed = run_python("-c", "import os\nfrom grader import workdir\nw = workdir.claim()\n"
                        "(w / 'template').mkdir()\nprint(w, flush=True)\nos.kill(os.getpid(), 9)\n",
                        env=env, capture_output=True, text=True, timeout=60)
    assert killed.returncode == -signal.SIGKILL
    dead = Path(killed.stdout.strip())
    assert dead.parent == tmp_path and (dead / "template").is_dir()
    alive = run_python("-c", "import sys\nfrom grader import workdir\nw = workdir.claim()\nprint(w, flush=True)\n"
                       "sys.stdin.read()\n", env=env, runner=subprocess.Popen, stdin=subprocess.PIPE,
                       stdout=subprocess.PIPE, text=True)
    try:
        live = Path(alive.stdout.readline().strip())    # claimed, and sweeping found dead's too
        assert not dead.exists() and live.is_dir()
        monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
        mine = workdir.claim()
        assert live.is_dir() and mine.is_dir()           # a live grader's folder stays
        workdir.release(mine)
        assert not mine.exists()
    finally:
        alive.communicate("", timeout=30)
    assert alive.returncode == 0 and live.is_dir()    # it ended without release: its folder stays ...
    assert workdir.sweep() == [live] and not live.exists()       # ... until a sweep finds its lock free


def test_a_record_graded_with_fewer_protections_is_graded_again(setup):
    """A record graded where the sandbox was weaker (a laptop without bubblewrap, --unsafe) was
    reused by a sandboxed run on the same file, policy and kit, so its grade never met the sandbox."""
    from dataclasses import replace
    kit, subs, out = setup
    first = by_name(run_batch(kit, subs, out, jobs=1))
    full = first["ann"].protections
    assert "no_network" in full or "unprivileged_user" in full    # this machine's sandbox isolates
    store.save(out, replace(store.load(out, "ann"), protections=("wall_clock_kill",), graded_at="weaker"))
    store.save(out, replace(store.load(out, "ben"), protections=full + ("extra",), graded_at="stronger"))
    again = by_name(run_batch(kit, subs, out, jobs=1))
    assert again["ann"].graded_at != "weaker" and again["ann"].protections == full     # graded again
    assert again["ben"].graded_at == "stronger"         # graded with more than now: reused
    assert again["cat"].graded_at == first["cat"].graded_at


def test_two_runs_started_together_into_one_folder_set_up_once(setup, tmp_path):
    """Both runs passed the early check, both built the kit's template, checked the traces and so
    on, and only then was the second refused: the lock is now taken before setup, so the run that
    loses stops before it builds anything."""
    import os
    import shutil
    import tempfile
    from grader_fixtures.helpers import TRACES
    kit, subs, out = setup
    built, go = tmp_path / "built.log", tmp_path / "go"
    # The template build (unsandboxed, in $TMPDIR/mmgrade-*/template) says which grader built it and
    # waits for GO: a grader that reaches setup cannot finish before the test lets it.
    makefile = kit / "Makefile"
    makefile.write_text(makefile.read_text().replace(
        "\t@echo $(BUILD)/mdriver",
        f'\t@case "$(CURDIR)" in */template) echo "$(CURDIR)" >> {built}; n=0; '
        f'while [ ! -e {go} ] && [ $$n -lt 1200 ]; do sleep 0.1; n=$$((n+1)); done;; esac\n'
        "\t@echo $(BUILD)/mdriver"))
    config = write_policy(out.parent)
    tmpdirs, procs = [], []
    try:
        for _ in range(2):
            tmp = Path(tempfile.mkdtemp(prefix="together-", dir="/tmp"))     # the sandbox's user must reach it
            tmp.chmod(0o755)
            tmpdirs.append(tmp)
        for tmp in tmpdirs:
            procs.append(run_grader("grade", subs, "-o", out, "--kit", kit, "--config", config, "--traces", TRACES,
                                    "--no-report", runner=subprocess.Popen, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, text=True, env={**os.environ, "TMPDIR": str(tmp)}))
        # the loser must stop on its own while the winner waits in its template build
        deadline = time.monotonic() + 120
        while all(p.poll() is None for p in procs) and time.monotonic() < deadline:
            time.sleep(0.1)
        go.touch()
        done = [(p, *p.communicate(timeout=300), tmp) for p, tmp in zip(procs, tmpdirs)]
    finally:
        go.touch()
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        for tmp in tmpdirs:
            shutil.rmtree(tmp, ignore_errors=True)
    winners = [d for d in done if d[0].returncode == 0]
    losers = [d for d in done if d[0].returncode != 0]
    assert len(winners) == 1 and len(losers) == 1, [(p.returncode, err) for p, _, err, _ in done]
    (_, _, _, winner_tmp), (loser, _, loser_err, loser_tmp) = winners[0], losers[0]
    assert loser.returncode == 2 and loser_err.strip().splitlines() == [
        f"mmgrade: {out}: another mmgrade run is grading into this folder; wait for it to finish or choose "
        "another output folder"]
    # exactly one template was built, the winner's: the loser never reached setup
    lines = built.read_text().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"{winner_tmp}/mmgrade-"), lines
    assert sorted(s.name for s in store_batch(out).submissions) == ["ann", "ben", "cat"]


def _throughput_only_traces(folder):
    """Three traces (40 points over 3 do not split evenly) that count for throughput only (weight 3)."""
    from grader_fixtures.helpers import TRACES
    folder.mkdir()
    for path, name in ((TRACES / "tiny.rep", "tiny.rep"), (TRACES / "grow.rep", "grow.rep"),
                       (TRACES / "tiny.rep", "tiny2.rep")):
        lines = path.read_text().splitlines(keepends=True)
        first = next(i for i, line in enumerate(lines) if not line.startswith("#"))
        (folder / name).write_text("".join(lines[:first] + ["3\n"] + lines[first + 1:]))
    return folder


def _as_an_older_grader_stored(record):
    """RECORD (a submission's JSON) as the grader before per-trace shares and absent figures stored
    it: 40 / 3 = 13.333 for each trace passed, and the driver's utilization 0.0 no trace counts for."""
    for trace in record["traces"]:
        trace["points"] = 13.333 if trace["outcome"] == "ok" else 0.0
    record["summary"]["utilization"] = 0.0
    return record


def _figures(subs):
    return {s.name: (s.summary, [t.points for t in s.traces]) for s in subs}


def test_a_record_of_an_older_grader_is_shown_with_this_graders_points(setup):
    """A class graded before the scoring changed and graded again kept its old figures (each trace
    13.333 of 40, a utilization of 0.0 measured on no trace) in results.json and grades.csv, beside
    new ones for the students regraded; `mmgrade report` on the old results.json showed them too."""
    import csv
    kit, subs, out = setup
    traces = _throughput_only_traces(out.parent / "traces3")
    course = "[points]\ncorrectness = 40.0\n"
    now = _figures(run_batch(kit, subs, out, course, traces=traces).submissions)
    assert {tuple(points) for summary, points in now.values()} == {(13.333, 13.334, 13.333)}
    assert all(summary.utilization is None for summary, points in now.values())
    for path in (out / "submissions").glob("*.json"):
        path.write_text(json.dumps(_as_an_older_grader_stored(json.loads(path.read_text()))))
    old = json.loads((out / "results.json").read_text())
    old["submissions"] = [_as_an_older_grader_stored(s) for s in old["submissions"]]
    (out / "results.json").write_text(json.dumps(old))

    done = run_grader("report", out, capture_output=True, text=True)       # the older grader's results.json
    assert done.returncode == 0, done.stderr
    rows = list(csv.DictReader((out / "grades.csv").open()))
    assert [(r["name"], r["utilization"], r["correctness_points"]) for r in rows] == \
        [(name, "", "40.0") for name in ("ann", "ben", "cat")]
    page = (out / "report" / "sub" / "ann.html").read_text()
    assert "13.334" in page and "; utilization " not in page

    events = _events(kit, subs, out, policy_text=course, traces=traces)    # graded again: nothing rerun
    assert sorted(e for e in events if e[0] != "start") == [("reused", n) for n in ("ann", "ben", "cat")]
    assert _figures(store_batch(out).submissions) == now
    assert _figures(store.load_all(out)) == now


def test_a_record_that_is_a_fifo_or_a_device_is_regraded_not_waited_on(setup):
    """A FIFO, or a link to /dev/zero, among OUTDIR/submissions/*.json hung `mmgrade grade` for ever
    (the record reader waited for a writer, or read zeros until memory ran out); such a record is
    now one it cannot use: its submission is regraded, and the others' records are reused."""
    import os
    from grader_fixtures.helpers import run_python
    kit, subs, out = setup
    run_batch(kit, subs, out, jobs=1)
    os.unlink(out / "submissions" / "ann.json")
    os.mkfifo(out / "submissions" / "ann.json")
    os.unlink(out / "submissions" / "ben.json")
    os.symlink("/dev/zero", out / "submissions" / "ben.json")
    done = run_python("-c", "import sys\nfrom grader import store\n"
                      "print(store.load(sys.argv[1], 'ann'), store.load(sys.argv[1], 'ben'),"
                      " [s.name for s in store.load_all(sys.argv[1])])", out,
                      capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.split() == ["None", "None", "['cat']"], done.stderr


def test_a_terminal_that_hangs_up_keeps_every_output(setup):
    """The grader's terminal closed (an ssh session dropped): SIGHUP, then every write to the terminal
    fails (EIO), so the progress bar's last redraw was a traceback in place of the outputs: exit
    status 1, no grades.csv and no report.  What is left to say now goes nowhere, the outputs are
    written and the exit status is 129."""
    import os
    import pty
    import select
    from grader_fixtures.helpers import TRACES
    kit, subs, out = setup
    for name in ("ben", "cat"):
        (subs / name / "mm.c").write_text(source("good") + "/* FAKE:hang */\n")
    config = write_policy(out.parent, limits={"wall_clock": 120}, name="slow.toml")
    controller, terminal = pty.openpty()
    proc = run_grader("grade", subs, "-o", out, "-j", "1", "--kit", kit, "--config", config, "--traces", TRACES,
                      runner=subprocess.Popen, stdin=terminal, stdout=terminal, stderr=terminal,
                      start_new_session=True, preexec_fn=lambda: fcntl_ctty(0))
    os.close(terminal)
    deadline = time.monotonic() + 60
    while not (out / "submissions" / "ann.json").exists() and time.monotonic() < deadline:
        if select.select([controller], [], [], 0.2)[0]:
            os.read(controller, 65536)
    time.sleep(0.5)
    os.close(controller)        # the terminal is gone: the kernel hangs up the session
    assert proc.wait(timeout=60) == 129
    assert by_name(store_batch(out))["ann"].verdict == "ok"
    assert "ann" in (out / "grades.csv").read_text() and (out / "report" / "index.html").exists()


def fcntl_ctty(fd):
    """Make FD (a pty's terminal side) the controlling terminal of the new session, as a login's is."""
    import fcntl
    import termios
    fcntl.ioctl(fd, termios.TIOCSCTTY, 0)

"""grader.runs and timing.runs: the worst run decides correctness, the median run gives the figures.

The batch runs the fake kit's driver three times per submission, counting the calls; its
FAKE:jitter and FAKE:utiljitter markers draw the time and the utilization anew each run, so
the assertions hold for any draw (none depends on a time).
"""
import dataclasses
from collections import Counter

import pytest

from grader import grade
from grader.runner import DriverRun
from grader.runs import figure, median_index
from grader_fixtures.helpers import by_name, make_fake_kit, run_batch
from grader_fixtures.submissions import source

MARKED = {"steady": "", "noisy": "/* FAKE:jitter */", "wobbly": "/* FAKE:utiljitter FAKE:jitter */",
          "crasher": "/* FAKE:fail=tiny */"}
THREE = "[timing]\nruns = 3\n"


@pytest.mark.parametrize("values, index", [
    ([7.0], 0),
    ([3.0, 1.0, 2.0], 2),           # odd: the middle value's run
    ([4.0, 1.0, 3.0, 2.0], 3),      # even: the lower middle (2.0), never a mean of two runs
    ([5.0, 3.0, 5.0], 0),           # ties: run order among equal values
    ([2.0, 2.0, 2.0, 2.0], 1),
    ([60.5, 61.25, 58.0, 61.25, 59.75], 0),
])
def test_median_index_is_the_lower_middle_in_run_order(values, index):
    assert median_index(values) == index


def _classroom(root, marks):
    kit = make_fake_kit(root / "kit")
    for name, mark in marks.items():
        (root / "subs" / name).mkdir(parents=True)
        (root / "subs" / name / "mm.c").write_text(source("good") + mark + "\n")
    return kit, root / "subs"


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """The batch graded with runs = 3, and how many times the driver ran for each submission."""
    kit, subs = _classroom(tmp_path_factory.mktemp("runs"), MARKED)
    calls = Counter()
    real = grade.run_driver

    def counted(folder, *args, **kwargs):
        calls[folder.name.rsplit("-", 1)[0]] += 1       # the folder is NAME-SLOT
        return real(folder, *args, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(grade, "run_driver", counted)
        batch = by_name(run_batch(kit, subs, subs.parent / "out", THREE))
    return batch, calls


@pytest.mark.parametrize("name", ["steady", "noisy", "wobbly"])
def test_every_run_is_recorded_and_the_median_one_counts(graded, name):
    batch, calls = graded
    sub = batch[name]
    assert sub.verdict == "ok", sub.reason
    assert calls[name] == 3 and len(sub.runs) == 3 and all(r.verdict == "ok" for r in sub.runs)
    indices = sorted(r.perf_index for r in sub.runs)
    assert sub.summary.perf_index == indices[1]
    assert figure(sub) in sub.runs                        # U, T/T_libc and P of one real run, not a mix
    assert f"median of 3 runs by performance index (P {indices[0]:.1f} to {indices[2]:.1f})" in sub.reason
    assert sub.summary.points == pytest.approx(sub.summary.correctness_points + sub.summary.performance_points,
                                               abs=0.01)


def test_a_nondeterministic_utilization_is_named(graded):
    batch, _ = graded
    assert "utilization differed between runs" in batch["wobbly"].reason
    assert "differed" not in batch["steady"].reason and "differed" not in batch["noisy"].reason


def test_a_failing_first_run_is_the_only_run(graded):
    batch, calls = graded
    sub = batch["crasher"]
    assert sub.verdict == "failed" and "tiny: crashed" in sub.reason
    assert calls["crasher"] == 1 and [r.verdict for r in sub.runs] == ["failed"]
    assert "run 1" not in sub.reason


def test_a_later_failing_run_is_the_verdict(tmp_path, monkeypatch):
    kit, subs = _classroom(tmp_path, {"ann": ""})
    real = grade.run_driver
    done = []

    def ok_then_killed(*args, **kwargs):
        run = real(*args, **kwargs)
        done.append(run)
        if len(done) == 1:
            return run
        return DriverRun(None, "the whole run took longer than 60 s, did not stop at that limit, and was killed",
                         dataclasses.replace(run.process, timed_out=True))

    monkeypatch.setattr(grade, "run_driver", ok_then_killed)
    sub = by_name(run_batch(kit, subs, tmp_path / "out", THREE))["ann"]
    assert len(done) == 2                                  # no third run after the failure
    assert sub.verdict == "failed"
    assert sub.reason == "run 2 of 3 failed: no trustworthy result: the whole run took longer than 60 s, did not stop at that limit, and was killed"
    assert [r.verdict for r in sub.runs] == ["ok", "failed"]
    assert not sub.traces and sub.summary.points == 0      # the failing run's figures, not the good one's

"""grader.scoring: pure functions from measurements and policy to points."""
import dataclasses

import pytest

from grader.policy import load_policy
from grader.scoring import perf_index, scale, spread, summarize


@pytest.fixture(scope="module")
def policy(kit):
    return load_policy(kit)


def test_classic_formula(policy):
    w = policy.scoring.util_weight
    assert perf_index(0.8, 0.5, policy) == pytest.approx(100 * (w * 0.8 + (1 - w) * 0.5))
    assert perf_index(0.8, 3.0, policy) == pytest.approx(100 * (w * 0.8 + (1 - w) * policy.scoring.throughput_cap))
    assert perf_index(None, None, policy) == 0


def test_scaled_formula(policy):
    scaled = dataclasses.replace(policy, scoring=dataclasses.replace(policy.scoring, formula="scaled"))
    lo, hi = scaled.scoring.util_range
    assert scale(lo, lo, hi) == 0 and scale(hi, lo, hi) == 1 and scale((lo + hi) / 2, lo, hi) == pytest.approx(0.5)
    assert perf_index(hi, 10.0, scaled) == pytest.approx(100)
    assert perf_index(0.1, 0.1, scaled) == 0


def test_points_and_all_or_nothing(policy):
    ok = summarize(["ok"] * 4, 0.7, 0.9, policy)
    assert ok.valid == 4 and ok.correctness_points == policy.points.correctness
    assert ok.performance_points == pytest.approx(policy.points.performance * perf_index(0.7, 0.9, policy) / 100, abs=1e-3)
    one_bad = summarize(["ok", "ok", "ok", "crashed"], 0.7, 0.9, policy)
    assert one_bad.correctness_points == pytest.approx(policy.points.correctness * 3 / 4)
    assert one_bad.perf_index == 0 and one_bad.performance_points == 0
    lenient = dataclasses.replace(policy, scoring=dataclasses.replace(policy.scoring, all_or_nothing=False))
    assert summarize(["ok", "crashed"], 0.7, 0.9, lenient).perf_index > 0


def test_bad_trace_is_never_charged_to_the_student(policy):
    summary = summarize(["ok", "ok", "bad_trace"], 0.7, 0.9, policy)
    assert summary.traces == 2 and summary.valid == 2
    assert summary.correctness_points == policy.points.correctness and summary.perf_index > 0


def test_spread_of_the_k_best():
    assert spread([1.0, 1.01, 1.02, 5.0], 3) == pytest.approx(0.02)
    assert spread([2.0], 3) is None

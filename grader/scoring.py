"""Points from the driver's measurements and the course policy: pure functions.

The driver measures (per-trace outcome, utilization, throughput relative to libc
in the same run); the policy decides what those are worth.  With the classic
formula and config.h's constants, perf_index equals the driver's own.
"""
from __future__ import annotations

from .model import Summary
from .policy import Policy


def scale(value: float, low: float, high: float) -> float:
    """0 at or below low, 1 at or above high, linear between (the 64-bit lab's ramp)."""
    return min(1.0, max(0.0, (value - low) / (high - low)))


# A trace's weight (trace header, driver/trace.h): which parts of P it counts in.
WEIGHT_BOTH, WEIGHT_UTIL_ONLY, WEIGHT_THROUGHPUT_ONLY = 1, 2, 3
COUNTS_UTIL = (WEIGHT_BOTH, WEIGHT_UTIL_ONLY)
COUNTS_THROUGHPUT = (WEIGHT_BOTH, WEIGHT_THROUGHPUT_ONLY)


def util_weight(policy: Policy, has_util: bool = True, has_throughput: bool = True) -> float:
    """The weight of U in P, as the driver's score_runs picks it: all of P is utilization
    when no trace counts for throughput, all throughput when none counts for utilization."""
    if not has_throughput:
        return 1.0
    if not has_util:
        return 0.0
    return policy.scoring.util_weight


def perf_index(utilization: float | None, throughput_ratio: float | None, policy: Policy,
               has_util: bool = True, has_throughput: bool = True) -> float:
    """P in [0, 100] from U and T / T_libc under the policy's formula.

    HAS_UTIL / HAS_THROUGHPUT: whether any scored trace's weight counts for that part."""
    util = utilization or 0.0
    ratio = throughput_ratio or 0.0
    weights = policy.scoring
    if weights.formula == "scaled":
        u_term = scale(util, *weights.util_range)
        t_term = scale(ratio, *weights.throughput_range)
    else:
        u_term = util
        t_term = min(weights.throughput_cap, ratio)
    w = util_weight(policy, has_util, has_throughput)
    return 100.0 * (w * u_term + (1.0 - w) * t_term)


def max_points(policy: Policy) -> float:
    return policy.points.correctness + policy.points.performance


def trace_points(scored_traces: int, policy: Policy) -> float:
    """Correctness points one valid trace earns."""
    return policy.points.correctness / scored_traces if scored_traces else 0.0


def summarize(outcomes: list[str], utilization: float | None, throughput_ratio: float | None,
              policy: Policy, weights: list[int] | None = None) -> Summary:
    """The submission's points.  bad_trace is the grader's fault: never counted against anyone.

    WEIGHTS, one per outcome, are the traces' header weights (every trace counts for both
    parts when not given)."""
    scored = [o for o in outcomes if o != "bad_trace"]
    scored_weights = [w for o, w in zip(outcomes, weights) if o != "bad_trace"] if weights is not None \
        else [WEIGHT_BOTH] * len(scored)
    valid = sum(1 for o in scored if o == "ok")
    failed = len(scored) - valid
    index = perf_index(utilization, throughput_ratio, policy,
                       has_util=any(w in COUNTS_UTIL for w in scored_weights),
                       has_throughput=any(w in COUNTS_THROUGHPUT for w in scored_weights))
    if failed and policy.scoring.all_or_nothing:
        index = 0.0
    correctness = trace_points(len(scored), policy) * valid
    performance = policy.points.performance * index / 100.0
    return Summary(traces=len(scored), valid=valid, utilization=utilization,
                   throughput_ratio=throughput_ratio, perf_index=round(index, 3),
                   correctness_points=round(correctness, 3), performance_points=round(performance, 3),
                   points=round(correctness + performance, 3), max_points=max_points(policy))


def spread(samples: list[float], best_k: int = 3) -> float | None:
    """How far apart the K fastest timing samples lie: (K-th fastest - fastest) / fastest.

    The driver's estimate is the mean of those K, so this is the noise in the figure used."""
    best = sorted(samples)[:best_k]
    if len(best) < 2 or best[0] <= 0:
        return None
    return (best[-1] - best[0]) / best[0]

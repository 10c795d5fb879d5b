"""Points from the driver's measurements and the course policy: pure functions.

The driver measures (per-trace outcome, utilization, throughput relative to libc
in the same run); the policy decides what those are worth.  With the classic
formula and config.h's constants, perf_index equals the driver's own.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace
from typing import Any

from mmtrace.trace import SCORES_THROUGHPUT, SCORES_UTILIZATION, WEIGHT_BOTH

from .model import RunFigure, Submission, Summary, TraceResult
from .policy import Policy

# Relative slack for figures the driver printed with 9 significant digits.
_SLACK = 1e-6


def scale(value: float, low: float, high: float) -> float:
    """0 at or below low, 1 at or above high, linear between (the 64-bit lab's ramp)."""
    return min(1.0, max(0.0, (value - low) / (high - low)))




def util_weight(policy: Policy, has_util: bool = True, has_throughput: bool = True) -> float:
    """The weight of U in P, as the driver's score_runs picks it: all of P is utilization
    when no trace counts for throughput, all throughput when none counts for utilization."""
    return weight_for(policy.scoring.util_weight, has_util, has_throughput)


def weight_for(configured: float, has_util: bool, has_throughput: bool) -> float:
    """util_weight from the policy's CONFIGURED weight (the report has the policy as results.json holds it)."""
    if not has_throughput:
        return 1.0
    if not has_util:
        return 0.0
    return configured


def weight_of_traces(configured: float, weights: list[int]) -> float:
    """The weight of U in P over traces of these header WEIGHTS (CONFIGURED when none is known)."""
    if not weights:
        return configured
    return weight_for(configured, any(w in SCORES_UTILIZATION for w in weights),
                      any(w in SCORES_THROUGHPUT for w in weights))


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


def shares(total: float, count: int) -> list[float]:
    """TOTAL split into COUNT parts to 3 places (as every output shows points) that add up to it:
    part i is round(TOTAL i / COUNT) - round(TOTAL (i - 1) / COUNT), so parts differ by 0.001 at most
    (40 over 3: 13.333, 13.334, 13.333; each 13.333 added up to 39.999)."""
    marks = [round(total * i / count, 3) for i in range(count)] + [total]
    return [round(high - low, 3) for low, high in zip(marks, marks[1:])]


def trace_points(outcomes: list[str], policy: Policy) -> list[float]:
    """The correctness points each trace earns: its share of points.correctness when ok, else none.
    A bad_trace has no share, as summarize leaves it out."""
    each = iter(shares(policy.points.correctness, sum(1 for o in outcomes if o != "bad_trace")))
    points = []
    for outcome in outcomes:
        share = next(each) if outcome != "bad_trace" else 0.0
        points.append(share if outcome == "ok" else 0.0)
    return points


def parts_counted(weights: list[int]) -> tuple[bool, bool]:
    """Whether any of these trace header WEIGHTS counts for utilization, and whether any for throughput."""
    return any(w in SCORES_UTILIZATION for w in weights), any(w in SCORES_THROUGHPUT for w in weights)


def summarize(outcomes: list[str], utilization: float | None, throughput_ratio: float | None,
              policy: Policy, weights: list[int] | None = None) -> Summary:
    """The submission's points.  bad_trace is left out, as the driver's score.c leaves it out; the
    grader never scores a run that holds one (grade.py makes it grader_error).

    WEIGHTS, one per outcome, are the traces' header weights (every trace counts for both
    parts when not given)."""
    scored = [o for o in outcomes if o != "bad_trace"]
    scored_weights = [w for o, w in zip(outcomes, weights) if o != "bad_trace"] if weights is not None \
        else [WEIGHT_BOTH] * len(scored)
    valid = sum(1 for o in scored if o == "ok")
    failed = len(scored) - valid
    has_util, has_throughput = parts_counted(scored_weights)
    # The driver gives no U where its utilization traces hold no payload (only 0-byte blocks, or no
    # op): it then scores T / T_libc alone, and so must P here (summary_problem checks that null).
    has_util = has_util and utilization is not None
    # A part no trace counts for has no figure: the driver's U is 0.0 then, which read as measured.
    utilization = utilization if has_util else None
    throughput_ratio = throughput_ratio if has_throughput else None
    index = perf_index(utilization, throughput_ratio, policy, has_util=has_util, has_throughput=has_throughput)
    if failed and policy.scoring.all_or_nothing:
        index = 0.0
    # Each part from the figures shown beside it, and the whole from the parts, so that they add up
    # in every output (grades.csv, Gradescope's tests, Autolab's scores).
    index = round(index, 3)
    correctness = round(sum(trace_points(outcomes, policy)), 3)
    performance = round(policy.points.performance * index / 100.0, 3)
    return Summary(traces=len(scored), valid=valid, utilization=utilization,
                   throughput_ratio=throughput_ratio, perf_index=index,
                   correctness_points=correctness, performance_points=performance,
                   points=round(correctness + performance, 3), max_points=max_points(policy))


def spread(samples: list[float], best_k: int = 3) -> float | None:
    """How far apart the K fastest timing samples lie: (K-th fastest - fastest) / fastest.

    The driver's estimate is the mean of those K, so this is the noise in the figure used."""
    best = sorted(samples)[:best_k]
    if len(best) < 2 or best[0] <= 0:
        return None
    return (best[-1] - best[0]) / best[0]


# ------------------------------------------------------------ figures no correct run can produce
#
# The allocator runs inside the driver's processes, so it can write over the driver's memory,
# including the record a trace's figures are reported from.  These checks refuse figures that no
# correct allocator can produce; a plausible forged figure still passes them (docs/grader.md).

def _finite(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _show(value: Any) -> str:
    return f"{value:.6g}" if isinstance(value, float) else repr(value)


def trace_stem(file_name: str) -> str:
    """The name the driver reports for a trace file: without .rep / .rep.gz."""
    for suffix in (".rep.gz", ".rep"):
        if file_name.endswith(suffix):
            return file_name[:-len(suffix)]
    return file_name


_ESCAPED_BYTE = re.compile("[\udc80-\udcff]")


def as_driver_writes(text: str) -> str:
    """TEXT (a trace's file name) as the driver's JSON carries it: a byte that is not UTF-8, which
    Python holds as a surrogate, is that byte's code point there (driver/json.c), as Latin-1 reads it."""
    return _ESCAPED_BYTE.sub(lambda m: chr(ord(m[0]) - 0xdc00), text)


def _is_row_of(row: dict[str, Any], want: str, path: str | None) -> bool:
    """ROW reports the trace file WANT (given to the driver as PATH, if known)."""
    want = as_driver_writes(want)
    got, name, stem = as_driver_writes(str(row.get("path", ""))), as_driver_writes(str(row.get("name", ""))), \
        trace_stem(want)
    right_path = got == as_driver_writes(path) if path is not None else got.rsplit("/", 1)[-1] == want
    return right_path and (name == stem or (len(name) >= 100 and stem.startswith(name)))


def _row_shown(row: dict[str, Any]) -> str:
    return f"{row.get('name') or '?'} ({row.get('path') or 'no path'})"


def listed_traces_problem(rows: list[dict[str, Any]], expected: tuple[str, ...] | list[str],
                          paths: list[str] | None = None) -> str:
    """Why the driver's per-trace rows are not exactly the EXPECTED trace files (given to it as
    PATHS, if known), in order: a trace twice, missing, extra or out of place; '' if they are."""
    given = list(zip(expected, paths if paths is not None else [None] * len(expected)))
    names = [as_driver_writes(want) for want in expected]
    # One row past the count is enough to name an extra one, however long a forged list is.
    which = [next((j for j, (want, path) in enumerate(given) if _is_row_of(row, want, path)), None)
             for row in rows[:len(expected) + 1]]
    missing = [names[j] for j in range(len(expected)) if j not in which]
    for i, j in enumerate(which):
        if j is not None and which.index(j) < i:
            lost = f", and {', '.join(missing)} not at all" if missing else ""
            return f"{names[j]} is reported twice (traces {which.index(j) + 1} and {i + 1}){lost}"
    if len(rows) != len(expected):
        extra = [f"{_row_shown(row)}, which was not given" for row, j in zip(rows, which) if j is None]
        return f"{len(rows)} traces reported for the {len(expected)} given: " + \
            "; ".join([f"{want} is missing" for want in missing] + extra)
    for i, ((want, path), row) in enumerate(zip(given, rows)):
        if not _is_row_of(row, want, path):
            return f"trace {i + 1} should be {names[i]} but the report has {_row_shown(row)}"
    return ""


UNFINISHED = "not finished: the whole run's time limit"


def unfinished_left_out(sub: Submission) -> bool:
    """SUB is a record of a run stopped at its limit whose U leaves the unfinished traces out, as
    the grader's did before 2026-11-25 (tests/c/broken/stall-at-limit.c): its U is above the mean
    over every trace that counts for utilization, a failed or unfinished one counting 0.  Such a
    record is regraded, not reused.  (A trace with no payload counts in that mean here and not in
    the driver's, so a record with one may be regraded for nothing: never reused wrongly.)"""
    if sub.summary.utilization is None or not any(
            t.outcome == "timeout" and t.message.startswith(UNFINISHED) for t in sub.traces):
        return False
    counted = [t for t in sub.traces if t.outcome != "bad_trace" and t.ops and t.weight in SCORES_UTILIZATION]
    if not counted:
        return False
    mean = sum(t.utilization or 0.0 for t in counted if t.outcome == "ok") / len(counted)
    return sub.summary.utilization > mean + _SLACK


def unfinished_row(trace: str, facts: "TraceFacts", limit: int, during: bool) -> dict[str, Any]:
    """A driver-shaped row for TRACE, which a run stopped at its time limit of LIMIT seconds did not
    finish (DURING: it was in progress then): a timeout, as the driver's own limit would say."""
    when = "during this trace" if during else "before this trace began"
    return {"name": trace_stem(trace), "path": trace, "weight": facts.weight, "ops": facts.ops,
            "peak_payload": facts.peak_payload, "outcome": "timeout", "op_index": None, "op": None, "utilization": None, "timing": None,
            "libc": None, "output": "", "output_cut": 0,
            "message": f"{UNFINISHED} ({limit} s, limits.wall_clock) ran out {when}"}


@dataclass(frozen=True)
class TraceFacts:
    """A trace's figures as the grader reads them from the file itself (grade.read_facts)."""
    weight: int
    ops: int
    peak_payload: int
    ideal_utilization: float    # peak payload / peak of the aligned live bytes, as the driver's


def facts_problem(row: dict[str, Any], facts: TraceFacts) -> str:
    """Why ROW's trace-derived figures are not the trace's own (FACTS); '' if they are."""
    if row.get("outcome") == "bad_trace":      # its figures count nowhere
        return ""
    for key in ("weight", "ops", "peak_payload"):
        got, want = row.get(key), getattr(facts, key)
        if got is None and key == "peak_payload" and row.get("utilization") is None:
            continue        # the driver had no memory to walk the trace: no utilization, which helps nobody
        if got != want or isinstance(got, bool):
            return f"{key} {_show(got)} is not the trace's ({want})"
    ideal = row.get("ideal_utilization")
    if ideal is not None and not (_finite(ideal) and _close(ideal, facts.ideal_utilization)):
        return f"ideal_utilization {_show(ideal)} is not the trace's ({facts.ideal_utilization:.6g})"
    return ""


def trace_problem(row: dict[str, Any], alignment: int, max_heap: int) -> str:
    """Why one trace row of the driver's JSON holds an impossible figure; '' if none does."""
    util = row.get("utilization")
    if util is not None:
        if not _finite(util) or not 0 <= util <= 1:
            return f"utilization {_show(util)} is outside [0, 1]"
        peak, high, ideal = row.get("peak_payload"), row.get("heap_high_water"), row.get("ideal_utilization")
        if peak is None or high is None:       # the driver reports both with every utilization
            return f"utilization {_show(util)} without its peak payload and heap high-water"
        if not (_finite(peak) and _finite(high)) or peak < 0 or high < 0 or high > max_heap:
            return f"peak payload {_show(peak)} or heap high-water {_show(high)} out of range"
        if high < peak:                    # the heap holds every live payload byte
            return f"heap high-water {high} is below the peak payload {peak}"
        expected = peak / high if high else (0.0 if peak else 1.0)
        if abs(util - expected) > _SLACK:
            return (f"utilization {_show(util)} is not peak payload / heap high-water "
                    f"({peak} / {high} = {expected:.6g})")
        if ideal is not None and peak:
            if not _finite(ideal) or not 0 < ideal <= 1:
                return f"ideal utilization {_show(ideal)} is outside (0, 1]"
            # Disjoint aligned blocks fill the heap up to the last one's padding: the heap is at
            # least (peak aligned live bytes) - (alignment - 1), and peak aligned = peak / ideal.
            floor = max(1.0, peak / ideal - (alignment - 1))
            if util > (peak / floor) * (1 + _SLACK):
                return (f"utilization {_show(util)} is above what disjoint {alignment}-byte-aligned "
                        f"blocks allow ({peak / floor:.6g}; ideal {_show(ideal)})")
    for key in ("timing", "libc"):
        timing = row.get(key)
        if not timing:
            continue
        numbers = [timing.get("seconds"), timing.get("ops_per_sec"), *(timing.get("samples") or [])]
        bad = [v for v in numbers if not _finite(v) or v < 0]
        if bad:
            return f"{key} figure {_show(bad[0])} is not a finite non-negative number"
    return ""


def recompute(rows: list[dict[str, Any]]) -> tuple[float | None, float | None]:
    """(U, T / T_libc) from the trace rows, as the driver's score.c computes its summary; each is
    None when no row scores it, as the driver's JSON has it."""
    util_traces = tput_traces = tput_valid = 0
    util_sum = ops = mm_sec = libc_sec = 0.0
    for row in rows:
        if row["outcome"] == "bad_trace" or row["ops"] == 0:   # no op: nothing to measure (score.c)
            continue
        ok = row["outcome"] == "ok"
        if row["weight"] in SCORES_UTILIZATION and row.get("peak_payload") != 0:   # no payload: no utilization
            util_traces += 1
            util_sum += row["utilization"] if ok and row.get("utilization") is not None else 0.0
        if row["weight"] in SCORES_THROUGHPUT:
            tput_traces += 1
            timing, libc = row.get("timing"), row.get("libc")
            if ok and timing and timing.get("samples") and libc:
                tput_valid += 1
                ops += row["ops"]
                mm_sec += timing["seconds"]
                libc_sec += libc["seconds"]
    util = util_sum / util_traces if util_traces else None
    ratio = None
    if tput_valid and mm_sec > 0 and libc_sec > 0 and ops > 0:   # no ops: 0 / 0, which the driver prints as null
        ratio = (ops / mm_sec) / (ops / libc_sec) * tput_valid / tput_traces
    return util, ratio


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= _SLACK * max(1.0, abs(a), abs(b))


def summary_problem(summary: dict[str, Any], rows: list[dict[str, Any]]) -> str:
    """Why the driver's summary figures are impossible or disagree with its own trace rows; '' if fine."""
    util, ratio = summary.get("utilization"), summary.get("throughput_ratio")
    if util is not None and (not _finite(util) or not 0 <= util <= 1):
        return f"summary utilization {_show(util)} is outside [0, 1]"
    if ratio is not None and (not _finite(ratio) or ratio < 0):
        return f"summary throughput ratio {_show(ratio)} is not a finite non-negative number"
    want_util, want_ratio = recompute(rows)
    if (util is None) != (want_util is None) or (util is not None and not _close(util, want_util)):
        want = "none, as no trace scores it" if want_util is None else f"{want_util:.6g}"
        return f"summary utilization {_show(util)} is not the mean of the traces' ({want})"
    if (ratio is None) != (want_ratio is None) or (ratio is not None and not _close(ratio, want_ratio)):
        return f"summary throughput ratio {_show(ratio)} does not follow from the traces' timings"
    return ""


def shown(summary: Summary) -> Summary:
    """SUMMARY as exports and figures may show it: an insane one keeps only its correctness points."""
    if sane(summary):
        return summary
    correct = summary.correctness_points if _finite(summary.correctness_points) and summary.correctness_points >= 0 else 0.0
    return replace(summary, utilization=None, throughput_ratio=None, perf_index=0.0, performance_points=0.0,
                   correctness_points=correct, points=correct)


def perf_ceiling(policy: Policy) -> float:
    """The largest P the policy's formula can give (100 unless throughput_cap > 1)."""
    return perf_index(1.0, 1e300, policy)


# Far above any formula's ceiling (100 unless a course sets throughput_cap > 1); an older grader
# stored P = 1.02e308 for rtcrash.c.
MAX_SANE_INDEX = 1000.0


def sane(summary: Summary) -> bool:
    """Every figure of SUMMARY is finite and in its range (a record from an older grader may not be)."""
    numbers = [summary.perf_index, summary.correctness_points, summary.performance_points, summary.points]
    if not all(_finite(v) and v >= 0 for v in numbers) or summary.perf_index > MAX_SANE_INDEX:
        return False
    if summary.utilization is not None and not (_finite(summary.utilization) and 0 <= summary.utilization <= 1):
        return False
    return summary.throughput_ratio is None or (_finite(summary.throughput_ratio) and summary.throughput_ratio >= 0)


def plausible(summary: Summary, policy: Policy) -> bool:
    """sane, and P no more than the policy's formula can give."""
    return sane(summary) and summary.perf_index <= perf_ceiling(policy) + 1e-9


def _figure(value: float | None, high: float = math.inf) -> float | None:
    """VALUE when it is finite and in [0, HIGH], else no figure."""
    return value if _finite(value) and 0 <= value <= high else None


def shown_trace(trace: TraceResult) -> TraceResult:
    """TRACE as outputs may show it: a figure no correct run produces (inf, NaN, a utilization past
    1), which a record from an older grader may hold, is no figure."""
    return replace(trace, utilization=_figure(trace.utilization, 1.0), ops_per_sec=_figure(trace.ops_per_sec),
                   libc_ops_per_sec=_figure(trace.libc_ops_per_sec), spread=_figure(trace.spread),
                   points=_figure(trace.points) or 0.0)


def shown_run(run: RunFigure) -> RunFigure:
    """RUN as outputs may show it, as shown_trace shows a trace."""
    return replace(run, perf_index=_figure(run.perf_index, MAX_SANE_INDEX) or 0.0,
                   utilization=_figure(run.utilization, 1.0), throughput_ratio=_figure(run.throughput_ratio))


def shown_record(sub: Submission) -> Submission:
    """SUB as every output (the report, grades.csv, Gradescope, Autolab) shows it: the summary, each
    trace and each run through shown, shown_trace and shown_run."""
    return replace(sub, summary=shown(sub.summary), traces=tuple(map(shown_trace, sub.traces)),
                   runs=tuple(map(shown_run, sub.runs)))


# Verdicts whose points come from the driver's measurements; the others' are all zero (empty_summary),
# and a grader_error's traces earn nothing.
MEASURED = ("ok", "failed")


def rescored(sub: Submission, policy: Policy) -> Submission:
    """SUB's points and figures as this grader computes them from what the record keeps of the driver's
    report (each trace's outcome and weight, U and T / T_libc), under POLICY, the one it was graded
    with: a record stored by an older grader (other per-trace shares, no rounded P, a U of 0.0 that no
    trace counts for) then shows the same figures as one graded now.  An insane summary is left to shown."""
    if sub.verdict not in MEASURED or not sub.traces or not sane(sub.summary):
        return sub
    outcomes, weights = [t.outcome for t in sub.traces], [t.weight for t in sub.traces]
    summary = summarize(outcomes, sub.summary.utilization, sub.summary.throughput_ratio, policy, weights)
    points = trace_points(outcomes, policy)
    has_util, has_throughput = parts_counted([w for o, w in zip(outcomes, weights) if o != "bad_trace"])
    runs = tuple(replace(r, utilization=r.utilization if has_util else None,
                         throughput_ratio=r.throughput_ratio if has_throughput else None) for r in sub.runs)
    return replace(sub, summary=summary, runs=runs,
                   traces=tuple(replace(t, points=p) for t, p in zip(sub.traces, points)))

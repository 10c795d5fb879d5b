"""Grades in the forms other tools read: grades.csv, Gradescope's results.json, Autolab's line.

Pure functions from the data model to text or dicts; the CLI writes them.  The
Gradescope fields follow its published autograder specification (tests[] with
name, score, max_score, status, output, visibility; top-level score,
execution_time, output, visibility, stdout_visibility, leaderboard[]); Autolab
reads the last line of the autograder's output, {"scores": {...}, "scoreboard": [...]}.
"""
from __future__ import annotations

import csv
import io
import json
import math
import re
from pathlib import Path
from typing import Any

from mmtrace.oneline import visible

from .model import Batch, Submission, TraceResult
from .policy import Policy
from .runs import median_note
from .scoring import parts_counted, perf_ceiling, shares, shown, shown_record

CSV_COLUMNS = ("name", "verdict", "reason", "valid", "traces", "correctness_points", "utilization",
               "throughput_ratio", "perf_index", "performance_points", "points", "max_points", "sha256",
               "handin",     # the hand-in's real file or folder name: `name` is made safe for a file name
               "label",      # who it is, as a Gradescope or Autolab download says ('Alan Turing, Grace Hopper')
               "version", "left_out")   # an Autolab hand-in's version graded, and the older ones not graded
SCOREBOARD = ("perf_index", "utilization_percent", "throughput_ratio")
# A text cell starting with one of these is a formula to a spreadsheet (OWASP, CSV injection):
# a hand-in named =HYPERLINK("...").c would run as one when grades.csv is opened.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
GRADESCOPE_OUTPUT = 2000      # characters of a trace's first output in its Gradescope test
# Every output Gradescope shows is plain text: a test's output holds what the allocator printed and
# the compiler's lines (a `#warning` of the student's), which Gradescope would otherwise render in
# its default format, not plain text (its specification lists "simple_format" as the default, and
# "html" and "md" as other choices): `<img src=...>` or `[link](...)` printed by an allocator is
# shown as those characters, never as an image or a link on the page a TA opens.
TEXT_ONLY = {"output_format": "text", "test_output_format": "text"}
# Control characters an allocator may print, but newline and tab: an escape sequence redraws a
# terminal, and a NUL is refused by Gradescope's database. Shown as '?', as mdriver -v does.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
# The first line of a grader_error's trace and Performance tests: their 0 is no result of the student's.
NOT_GRADED = "not graded: the grader failed, not your submission; these points come with a regrade"
# What a submission's U and T / T_libc are when it failed a trace, as the driver's score computes them
# (scoring.recompute): U is the mean over the traces, a failed one counting 0; T / T_libc is the passed
# traces' own, times the share passed.  Neither is a figure over the passed traces alone.
FAILED_COUNTED = "a failed trace counts 0 in utilization and scales throughput by the share passed"


def _round(value: float | None, digits: int = 4) -> float | None:
    """VALUE rounded; None when there is none or it is not finite (never inf or NaN in an export)."""
    return None if value is None or not math.isfinite(value) else round(value, digits)


def points_text(value: float | None) -> str:
    """Points as grades.csv writes them (to 3 places), for the report to show the same figure."""
    rounded = _round(value, 3)
    return "" if rounded is None else str(rounded)


def _num(value: float | None, digits: int = 3) -> float:
    """A score for Gradescope or Autolab: 0 where the record has no finite figure."""
    return _round(value, digits) or 0.0


def grades_csv(batch: Batch) -> str:
    """One row per student (reference variants left out)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for sub in batch.submissions:
        if sub.reference:
            continue
        s = shown(sub.summary)
        writer.writerow([_cell(v) for v in (
            sub.name, sub.verdict, sub.reason, s.valid, s.traces, _graded(sub, s.correctness_points),
            _round(s.utilization), _round(s.throughput_ratio), _graded(sub, s.perf_index),
            _graded(sub, s.performance_points), _graded(sub, s.points), s.max_points, sub.sha256 or "",
            handin(sub), sub.label, *_versions(sub))])
    return out.getvalue()


def _graded(sub: Submission, points: float) -> float | None:
    """POINTS (or P) as grades.csv writes them; none (an empty cell) for a grader_error: its 0 is no
    grade, which a gradebook importing the column would record as the student's."""
    return _round(points, 3) if counted(sub) else None


def handin(sub: Submission) -> str:
    """The hand-in's own file or folder name: its origin's folders are the grader's machine's."""
    return Path(sub.origin).name


def _versions(sub: Submission) -> tuple[Any, str]:
    """The version columns: empty but for a hand-in of an Autolab download."""
    if sub.versions is None:
        return "", ""
    return sub.versions.graded, ", ".join(map(str, sub.versions.left_out))


def _cell(value: Any) -> Any:
    """A text VALUE that a spreadsheet would take for a formula, quoted with a leading '; its invisible
    characters shown (visible): a hand-in named with U+202E reversed the rest of its row in a terminal."""
    if not isinstance(value, str):
        return value
    value = visible(value)
    return f"'{value}" if value.startswith(FORMULA_STARTS) else value


def percent(fraction: float | None, places: int = 1) -> str:
    """FRACTION as a percentage to PLACES places ('' for none).  Short of 1 it never reads 100.0, which
    a reader takes for a perfect figure: U = 0.9996 reads 99.9 (coverage.py rounds its 100% so)."""
    if fraction is None:
        return ""
    text = f"{100 * fraction:.{places}f}"
    return f"{100 - 10 ** -places:.{places}f}" if fraction < 1 and float(text) >= 100 else text


def shown_output(trace: TraceResult, chars: int | None = None) -> str:
    """What TRACE's allocator printed, as the page and Gradescope show it: the first bytes the
    driver kept (CHARS characters of them at most), a mark for what is left out, the last lines."""
    head = trace.output[:chars]
    left = [f"{len(trace.output) - len(head):,} characters"] if len(head) < len(trace.output) else []
    left += [f"{trace.output_cut:,} bytes"] if trace.output_cut > 0 else []
    text = head
    if left:
        text += ("\n" if head and not head.endswith("\n") else "") + f"[... {' and '.join(left)} not shown ...]"
        text += "\n" if trace.output_tail else ""
    return visible(_CONTROL.sub("?", text + trace.output_tail))


def _status(passed: bool) -> str:
    return "passed" if passed else "failed"


def _trace_output(trace) -> str:
    lines = [f"outcome: {trace.outcome}" + (f": {trace.explanation}" if trace.outcome != "ok" else "")]
    if trace.message:
        lines.append(trace.message)
    if _round(trace.utilization) is not None:
        lines.append(f"utilization {percent(trace.utilization)}%")
    if _round(trace.ops_per_sec) and _round(trace.libc_ops_per_sec):
        lines.append(f"throughput {trace.ops_per_sec / 1e3:,.0f} Kops/s (libc {trace.libc_ops_per_sec / 1e3:,.0f})")
    if trace.output or trace.output_tail:
        lines.append("your allocator printed:\n" + shown_output(trace, GRADESCOPE_OUTPUT))
    return "\n".join(lines)


def gradescope_results(sub: Submission, policy: Policy, parts: tuple[bool, bool] | None = None) -> dict[str, Any]:
    """Gradescope's results.json for one submission: a test per build step, rule and trace; PARTS as
    ranked takes them, for the leaderboard."""
    sub = shown_record(sub)     # no inf or NaN from a record of an older grader, in any test
    vis = policy.gradescope.visibility
    tests: list[dict[str, Any]] = []
    built, said = _build_said(sub)
    # Build and rule tests stay visible under any gradescope.visibility: they carry no points, and a
    # student told only after the deadline that the file did not compile could not have mended it.
    tests.append({"name": "Build", "score": 0.0, "max_score": 0.0, "status": _status(built),
                  "output": said, "visibility": "visible"})
    if sub.build_log:
        tests[-1]["output"] += "\n\n" + sub.build_log
    for rule in sub.rules:
        tests.append({"name": f"Rule: {rule.rule}", "score": 0.0, "max_score": 0.0,
                      "status": _status(rule.verdict != "reject"),
                      "output": f"{rule.verdict}: {rule.detail}", "visibility": "visible"})
    # Every trace is a test, bad_trace too (a grader_error keeps it in its table), so that the
    # traces' max_score add up to the correctness points; each is the trace's share, as it earns it.
    # A grader_error's traces are not passed, though some ran ok: they were not graded.
    for trace, share in zip(sub.traces, shares(policy.points.correctness, len(sub.traces))):
        tests.append({"name": f"Trace: {trace.name}", "score": _num(trace.points), "max_score": share,
                      "status": _status(counted(sub) and trace.outcome == "ok"),
                      "output": _not_graded(sub, _trace_output(trace)), "visibility": vis})
    if not sub.traces:
        tests.append({"name": "Correctness", "score": 0.0, "max_score": policy.points.correctness,
                      "status": "failed", "output": f"no trace ran: {sub.reason}", "visibility": vis})
    s = sub.summary
    # the figures the record has: one that never ran has no utilization, which is not 0%
    # rounded once, as the report shows them: 0.8049 rounded to 0.805 first read 0.81x
    measured = ", ".join(([f"utilization {percent(s.utilization)}%"] if s.utilization is not None else [])
                         + ([f"throughput {s.throughput_ratio:.2f}x libc"] if s.throughput_ratio is not None else []))
    if measured and sub.verdict != "ok":
        measured += f" (it passed {s.valid} of {s.traces} traces; {FAILED_COUNTED}; not ranked by them)"
    perf = ", ".join(filter(None, [measured, f"performance index {_num(s.perf_index):.1f}{_out_of(policy)}"]))
    if sub.runs and sub.verdict == "ok":
        perf += f"\n{median_note(sub.runs)}"
    tests.append({"name": "Performance", "score": _num(s.performance_points), "max_score": policy.points.performance,
                  "status": _status(sub.verdict == "ok"), "output": _not_graded(sub, perf), "visibility": vis})
    results: dict[str, Any] = {
        "score": _num(s.points), "execution_time": round(sub.seconds),
        "output": f"{sub.verdict}: {sub.reason}\nsandbox: {', '.join(sub.protections)}",
        "visibility": vis, "stdout_visibility": policy.gradescope.stdout_visibility, "tests": tests, **TEXT_ONLY}
    if policy.gradescope.leaderboard and counted(sub):     # a grader_error's 0 would rank it last for our fault
        # a figure no trace measures is left out, as the specification allows, not shown as 0
        board = zip(("Performance index", "Utilization %", "Throughput / libc"), ranked(sub, parts))
        results["leaderboard"] = [{"name": name, "value": value} for name, value in board if value is not None]
    return _visible(results)


def gradescope_failure(reason: str) -> dict[str, Any]:
    """Gradescope's results.json for a submission the grader could not grade at all: score 0, why."""
    return _visible({"score": 0.0, "output": f"The autograder could not grade this submission: {reason}",
                     "tests": [], **TEXT_ONLY})


def _visible(value: Any) -> Any:
    """VALUE (a results.json) with every text in it made visible: an allocator's output, the compiler's
    lines quoting the student's source, a rule's detail and the reason may hold a bidirectional control."""
    if isinstance(value, str):
        return visible(value)
    if isinstance(value, dict):
        return {key: _visible(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_visible(item) for item in value]
    return value


def _build_said(sub: Submission) -> tuple[bool, str]:
    """Whether SUB's mm.c was built, and what its Build test says.  The rules check every build that
    succeeds, so a grader_error without their results stopped before its build was known (preparing
    the folder, building, or reading the object): it says no build result, not that mm.c built."""
    if sub.verdict in ("compile_error", "link_error", "bad_submission"):
        return False, sub.reason
    if sub.verdict == "grader_error" and not sub.rules:
        return False, f"{NOT_GRADED}\nno build result: {sub.reason}"
    return True, "mm.c compiled and linked with the driver"


def _out_of(policy: Policy) -> str:
    """What P is out of: '/100', or the policy's own ceiling (110 under throughput_cap 1.25)."""
    ceiling = perf_ceiling(policy)
    return "/100" if round(ceiling, 6) == 100 else f" (at most {ceiling:g} under this policy)"


def _not_graded(sub: Submission, output: str) -> str:
    return output if counted(sub) else f"{NOT_GRADED}\n{output}"


def counted(sub: Submission) -> bool:
    """Whether SUB's points are a result of its own: a grader_error's 0 is the grader's failure,
    which a rerun regrades, so no histogram counts it."""
    return sub.verdict != "grader_error"


def earned(sub: Submission) -> bool:
    """Whether SUB's utilization and throughput are figures it earned: a submission that did not
    pass has them with its failed traces in them (FAILED_COUNTED)."""
    return sub.verdict == "ok"


def ranked(sub: Submission, parts: tuple[bool, bool] | None = None) -> tuple[float, float | None, float | None]:
    """What a leaderboard ranks SUB by: P, utilization % and throughput / libc.  A submission that
    did not pass has utilization and throughput with its failed traces in them (FAILED_COUNTED), and
    the fake driver's tests gave it 0.99x libc beside passing ones' 0.02x: figures it did not earn, so 0 here, ranking it after every passing one.
    P is the grade's, as the policy scores it.  A part no trace of the batch counts for (PARTS:
    whether any counts for utilization, and for throughput; measured_parts when not given) has no
    figure, None, for any submission: not a 0 that reads as measured."""
    has_util, has_throughput = parts if parts is not None else measured_parts(sub)
    s = shown(sub.summary)
    util, ratio = (float(percent(s.utilization or 0.0, 2)), _num(s.throughput_ratio)) if earned(sub) else (0.0, 0.0)
    return _num(s.perf_index), util if has_util else None, ratio if has_throughput else None


def measured_parts(sub: Submission) -> tuple[bool, bool]:
    """Whether SUB's traces count for utilization, and for throughput, as its batch's do; both for a
    record with no trace (a compile error), which cannot tell: pass the batch's own (batch_parts)."""
    weights = [t.weight for t in sub.traces if t.outcome != "bad_trace"]
    return parts_counted(weights) if weights else (True, True)


def batch_parts(facts) -> tuple[bool, bool]:
    """Whether the batch's traces (FACTS, grade.Context.facts) count for utilization, and for throughput."""
    return parts_counted([f.weight for f in facts])


def autolab_line(sub: Submission, parts: tuple[bool, bool] | None = None) -> str | None:
    """The last line Autolab reads: scores by problem and the scoreboard row.  None for a grader_error:
    a line of zeros would be a grade for the grader's failure, which a TA uploading it gives the student.
    A figure no trace measures (ranked, PARTS) is an empty cell, "": Autolab shows the value as it is
    and sorts by its number, which is 0 for a text, so the row ranks as before."""
    if not counted(sub):
        return None
    s = shown(sub.summary)
    scores = {"Correctness": _num(s.correctness_points), "Performance": _num(s.performance_points)}
    row = ["" if value is None else value for value in ranked(sub, parts)]
    return json.dumps({"scores": scores, "scoreboard": row}, separators=(",", ":"), allow_nan=False)


def autolab_bad_submission() -> str:
    """The last line for a hand-in with no allocator to grade (bad_submission): no point earned, and
    the scoreboard row a refused submission has in a class, after every one that passed."""
    return json.dumps({"scores": {"Correctness": 0, "Performance": 0}, "scoreboard": [0, 0, 0]},
                      separators=(",", ":"))


def autolab_not_graded(reason: str) -> str:
    """The last line of an Autolab job the grader failed: no score line, which Autolab reports as an
    autograder failure (its feedback shows this line), keeping any score it had, until a regrade."""
    return (f"mmgrade: not graded: the grader failed, not the submission ({visible(reason)}); no score given: "
            "regrade it once the grader is mended")

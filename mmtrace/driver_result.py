"""The driver's JSON result, as every reader of its figures must take it.

A run a signal stopped (Ctrl-C, SIGTERM) still writes the traces it completed,
marked `"interrupted": {...}`, with no points and no index: part of a suite. The
grader refuses it (grader/runner.py), and so must anything that averages or
publishes figures from a driver's JSON (tools/results.py, the benches), in the
same words.
"""
from __future__ import annotations

from typing import Any


class PartialRun(ValueError):
    """A driver JSON of an interrupted run; the message, one line, names the file."""


def interrupted(doc: Any) -> str | None:
    """'interrupted by SIGTERM after 1 of 3 traces' for a document marked interrupted; None for a whole run."""
    stopped = doc.get("interrupted") if isinstance(doc, dict) else None
    if not stopped:
        return None
    why = stopped if isinstance(stopped, dict) else {}
    summary = doc["summary"] if isinstance(doc.get("summary"), dict) else {}
    settings = doc["settings"] if isinstance(doc.get("settings"), dict) else {}
    how = (f"stopped at its time limit (--run-limit {settings.get('run_limit', '?')})"
           if why.get("signal") == "SIGALRM" else f"interrupted by {why.get('signal', 'a signal')}")
    return f"{how} after {summary.get('traces', '?')} of {why.get('planned', '?')} traces"


def whole_run(doc: Any, source: str) -> Any:
    """DOC, read from SOURCE (a file's name), when it is of a whole run; PartialRun otherwise."""
    if why := interrupted(doc):
        raise PartialRun(f"{source}: the driver was {why}: a partial run's figures are not used")
    return doc

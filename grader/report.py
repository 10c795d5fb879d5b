"""The HTML report: a class overview and one page per submission (jinja2 + matplotlib).

Rendering only reads the Batch; it can be rebuilt at any time from results.json
(`mmgrade report OUTDIR`).  Everything goes under OUTDIR/report/.
"""
from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import jinja2
import markupsafe

from mmtrace.oneline import visible

from . import plots
from .exports import FAILED_COUNTED, counted, earned, handin, percent, points_text, shown_output
from .model import Batch, Submission
from .runs import median_note, perf_range
from .scoring import shown_record, weight_of_traces
from .store import write_atomic

TEMPLATES = Path(__file__).parent / "templates"
# The class-wide files render writes under OUTDIR/report (the per-submission ones: _per_submission).
INDEX, HISTOGRAMS, SCATTER = "index.html", "img/histograms.png", "img/scatter.png"


def _num(value: float | None) -> str:
    return "" if value is None else f"{value:.2f}"


def _kops(value: float | None) -> str:
    return "" if not value else f"{value / 1e3:,.0f}"


def _measured(sub: Submission) -> bool:
    """SUB has a utilization or throughput figure, earned or not."""
    return sub.summary.utilization is not None or sub.summary.throughput_ratio is not None


def timing_spread(sub: Submission) -> float | None:
    """The worst per-trace timing spread of a submission (how noisy its measurement was)."""
    spreads = [t.spread for t in sub.traces if t.spread is not None]
    return max(spreads) if spreads else None


def _shown(value):
    """Every value a page shows, its invisible characters made visible (a hand-in's name, a reason, an
    allocator's output): a U+202E reversed what followed it.  Before the HTML escaping, and kept
    Markup when it is (visible adds only letters and backslashes), so nothing is escaped twice."""
    if isinstance(value, markupsafe.Markup):
        return markupsafe.Markup(visible(str(value)))
    return visible(value) if isinstance(value, str) else value


def _environment() -> jinja2.Environment:
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(TEMPLATES)),
                             autoescape=jinja2.select_autoescape(["html", "j2"]),
                             undefined=jinja2.StrictUndefined, finalize=_shown)
    env.globals.update(pct=percent, num=_num, kops=_kops, median_note=median_note, perf_range=perf_range,
                       shown_output=shown_output, handin=handin, points=points_text, earned=earned,
                       counted=counted, failed_counted=FAILED_COUNTED)
    return env


def render(batch: Batch, outdir: Path) -> Path:
    """Write OUTDIR/report/index.html, its figures and a page per submission; returns the index."""
    root = Path(outdir) / "report"
    img = root / "img"
    env = _environment()
    # each figure as grades.csv and the exports show it: a record from an older grader may hold inf or NaN
    subs = sorted(map(shown_record, batch.submissions), key=lambda s: (s.reference, s.name))
    policy = batch.policy
    hist = plots.histograms(subs, root / HISTOGRAMS)
    scat = plots.scatter(subs, root / SCATTER)
    students = [s for s in subs if not s.reference]
    verdicts = sorted(Counter(s.verdict for s in students).items())
    index = env.get_template("index.html.j2").render(
        batch=batch, policy=policy, subs=subs, students=students, verdicts=verdicts, histograms=hist, scatter=scat,
        earners=[s for s in students if earned(s)], unearned=[s for s in students if not earned(s) and _measured(s)],
        uncounted=[s for s in students if not counted(s)],
        util_weight=weight_of_traces(policy["scoring"]["util_weight"],
                                     sorted({t.weight for s in subs for t in s.traces if t.outcome != "bad_trace"})),
        spreads={s.name: timing_spread(s) for s in subs},
        policy_text=json.dumps(policy, indent=1))
    write_atomic(root / INDEX, index)
    page = env.get_template("submission.html.j2")
    for sub in subs:
        figure = plots.traces_figure(sub, img / f"traces-{sub.name}.png") if sub.traces else None
        write_atomic(root / "sub" / f"{sub.name}.html", page.render(sub=sub, figure=figure))
    _drop_stale(root, subs)
    return root / INDEX


def _per_submission(root: Path) -> list[Path]:
    """The pages and trace figures an earlier render wrote under ROOT, of any submission."""
    return [p for p in (*(root / "sub").glob("*.html"), *(root / "img").glob("traces-*.png")) if not p.is_dir()]


def remove(outdir: Path) -> int:
    """Remove the report an earlier render wrote in OUTDIR/report, so that it cannot be read beside
    grades it no longer matches; only the files render writes (any other file stays, and so does a
    folder holding one).  Returns how many files were removed."""
    root = Path(outdir) / "report"
    found = [p for p in (root / INDEX, root / HISTOGRAMS, root / SCATTER) if p.is_file()] + _per_submission(root)
    for path in found:
        path.unlink(missing_ok=True)
    for folder in (root / "img", root / "sub", root):
        try:
            folder.rmdir()
        except OSError:         # not there, or holds a file of someone else's
            pass
    return len(found)


def _drop_stale(root: Path, subs: list[Submission]) -> None:
    """Remove an earlier run's page and figure of a submission not in this batch (withdrawn, or left
    ungraded by a stopped run): it would show an old grade, maybe under another policy, at its URL."""
    keep = {f"{s.name}.html" for s in subs} | {f"traces-{s.name}.png" for s in subs if s.traces}
    for path in _per_submission(root):
        if path.name not in keep:
            path.unlink(missing_ok=True)

"""Grade a batch: each submission read, built, checked, run and scored, then stored.

The pipeline per submission is a ladder of early returns, each with its verdict:
bad_submission (unreadable input), compile_error, link_error, rejected (a static
rule), failed (some trace failed, or no trustworthy result), ok.  Faults of the
grader or the kit are `grader_error` and never cost a student points.

Builds and static checks run in parallel (-j); driver runs, which time the
allocator against libc, take a lock so that no two measure at once, this grader's
and every other's on the machine (grader/timinglock.py).  With
timing.runs = N the driver runs up to N times per submission (grader/runs.py).
"""
from __future__ import annotations

import contextlib
import hashlib
import os
import platform
import shutil
import subprocess
import threading
import time
from array import array
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from pathlib import Path
from queue import Queue
from typing import Any, Callable

import numpy as np

from mmtrace.linter import TraceError, read_measured
from mmtrace.stats import live_series

from . import downloads, runs, scoring, store
from .build import (BuildResult, KitError, build_submission, build_template, first_error, kit_digest,
                    prepare_folder)
from .describe import describe, driver_protections, outcome_texts
from .kitconfig import read_kit_config
from .model import IMPOSSIBLE, Batch, RuleResult, Submission, TraceResult, empty_summary
from .paths import link_problem
from .policy import DRIVER_HEAP_LIMIT, Policy
from .rules import ToolError, check_object
from .runner import DriverRun, load_schema, run_driver, trace_paths
from .sandbox import Sandbox, allow_runs, kill_all, sandbox_failed, stopping
from .timinglock import MachineLock, Notice, lock_path
from .workdir import claim as claim_workdir, release as release_workdir
from .submissions import Candidate, SubmissionError, read_source, readable

TRACE_SUFFIXES = (".rep", ".rep.gz")
# progress(event, name, record): "start" (record None; called from a worker), "done" or "reused".
Progress = Callable[[str, str, Submission | None], None]


class BatchError(RuntimeError):
    """The batch cannot start (bad traces, a kit that does not build)."""


@dataclass(frozen=True)
class Context:
    kit: Path
    policy: Policy
    sandbox: Sandbox
    workdir: Path
    template: Path              # the built template's root folder
    traces_dir: Path            # a private copy the sandbox can read
    traces: tuple[str, ...]
    schema: dict[str, Any] | None
    kit_digest: str
    outcomes: dict[str, str]
    machine: dict[str, str]
    protections: tuple[str, ...]   # the sandbox's and the driver's own, as every record states them
    facts: tuple[scoring.TraceFacts, ...]   # each trace's figures as the grader reads them, in order
    best_k: int = 3
    exposed: tuple[Path, ...] = ()   # the course's files a build can read (the fallback: their modes)


def find_traces(folder: Path, wanted: tuple[str, ...]) -> list[Path]:
    folder = Path(folder)
    if not folder.is_dir():
        problem = link_problem(folder)
        raise BatchError(f"{folder}: the trace folder is {problem}" if problem else f"{folder}: no such trace folder")
    if wanted:
        paths = [folder / name for name in wanted]
        missing = [name for name, p in zip(wanted, paths) if not p.is_file()]     # as written: a/t.rep, not t.rep
        if missing:
            raise BatchError(f"{folder}: the policy names traces that are not there: {', '.join(missing)}")
    else:
        paths = sorted(p for p in folder.iterdir() if p.is_file() and p.name.endswith(TRACE_SUFFIXES))
        if not paths:
            raise BatchError(f"{folder}: no .rep or .rep.gz traces")
    _check_names(paths, folder)
    return paths


def _check_names(paths: list[Path], folder: Path) -> None:
    """Each trace once and under its own name: the driver reports a trace by its file's name less
    .rep/.rep.gz, and the private copy is named by the file's name, so a/t.rep and b/t.rep (or t.rep
    and t.rep.gz) would run one trace twice, or report two under one name."""
    seen: dict[str, Path] = {}
    for path in paths:
        stem = scoring.trace_stem(path.name)
        first = seen.setdefault(stem, path)
        if first is path:
            continue
        if first == path:
            raise BatchError(f"traces.files lists {_shown(path, folder)} more than once")
        raise BatchError(f"{_shown(first, folder)} and {_shown(path, folder)} are both the trace {stem} (the "
                         "driver names a trace by its file's name less .rep or .rep.gz); rename or leave out one")


def _shown(path: Path, folder: Path) -> str:
    """PATH as the course wrote it, and where it leads when that is outside FOLDER (../, a link)."""
    real = path.resolve()
    return str(path) if Path(folder).resolve() in real.parents else f"{path} (that is {real})"


def prepare(kit: Path, policy: Policy, sandbox: Sandbox, traces_dir: Path | None = None,
            workdir: Path | None = None) -> Context:
    """Build the kit's template once, copy the traces, read what the driver says about itself."""
    kit = Path(kit).resolve()
    folder = Path(traces_dir) if traces_dir else kit / policy.traces.dir
    traces = find_traces(folder, policy.traces.files)
    work = Path(workdir) if workdir else claim_workdir()
    try:
        return _prepare_in(work, kit, policy, sandbox, folder, traces)
    except BaseException:
        if not workdir:                       # ours: a batch that cannot start leaves nothing behind
            release_workdir(work)
        raise


def _prepare_in(work: Path, kit: Path, policy: Policy, sandbox: Sandbox, folder: Path,
                traces: list[Path]) -> Context:
    work.mkdir(parents=True, exist_ok=True)
    work.chmod(0o711)       # the sandbox's uids may pass through, never list the students in it
    if sandbox.setpriv:
        check_reachable(work)
    (work / "subs").mkdir(mode=0o711, exist_ok=True)
    private = work / "traces"
    private.mkdir(exist_ok=True)
    for path in traces:
        shutil.copy2(path, private / path.name)
    sandbox.prepare_traces(private)
    try:
        built = build_template(kit, work / "template", policy)
    except KitError as err:
        raise BatchError(str(err)) from None
    except OSError as err:
        raise BatchError(f"cannot build the kit's template: {err}") from None
    try:
        _self_check(work, policy, sandbox)
    except KitError as err:
        raise BatchError(f"{err}{_limits_hint(policy)}") from None
    _check_traces(built, private, traces, policy, folder)
    facts = tuple(read_facts(private / t.name, t, policy, folder) for t in traces)
    _check_performance_counts(facts, policy)
    description = describe(built)
    return Context(kit=kit, policy=policy, sandbox=sandbox, workdir=work, template=work / "template",
                   traces_dir=private, traces=tuple(p.name for p in traces), schema=load_schema(kit),
                   kit_digest=kit_digest(kit, traces), outcomes=outcome_texts(description),
                   machine={"hostname": platform.node(), "cpu": _cpu_name(), "python": platform.python_version()},
                   protections=sandbox.protections + driver_protections(description), facts=facts,
                   best_k=int(read_kit_config(kit).get("MDRIVER_BEST_K", 3)),
                   exposed=tuple(sandbox.exposed([*traces, Path(policy.source), kit / "mm.c"])))


def check_reachable(work: Path) -> None:
    """The sandbox's unprivileged uid must be able to walk down to the work folder."""
    for folder in [work, *work.parents]:
        if not folder.stat().st_mode & 0o001:
            raise BatchError(f"{work}: the sandbox's user cannot reach it ({folder} is not world-searchable); "
                             "set TMPDIR to a folder such as /tmp")


def _check_traces(driver: Path, folder: Path, traces: list[Path], policy: Policy, origin: Path) -> None:
    """A malformed trace is the course's fault: refuse the batch before any student is charged.

    The driver reads them with the policy's limits, so a trace that needs more than
    limits.max_heap is refused here too, not charged as bad_trace to everyone; a bad_trace in a
    submission's run is then never the trace's fault (_Grader._score).  The driver's
    own message says what is wrong; the heap limit is blamed only when the largest heap the
    driver allows would have read the trace."""
    problem = _parse_problem(driver, folder, traces, ["-M", str(policy.limits.max_heap)])
    if not problem:
        return
    for trace in traces:        # the course's trace, not our private copy
        problem = problem.replace(f"{folder}/{trace.name}", _shown(trace, origin))
    if not _parse_problem(driver, folder, traces, ["-M", str(DRIVER_HEAP_LIMIT)]):
        raise BatchError(f"a trace needs more heap than limits.max_heap = {policy.limits.max_heap}, "
                         f"so nothing was graded: {problem}")
    raise BatchError(f"a trace cannot be read, so nothing was graded: {problem}")


def _check_performance_counts(facts: tuple[scoring.TraceFacts, ...], policy: Policy) -> None:
    """Performance points need a trace that counts for them: with every trace of weight 0 (checked
    only) P is 0 for every submission, and points.performance would go to nobody."""
    if policy.points.performance > 0 and not any(scoring.parts_counted([f.weight for f in facts])):
        raise BatchError(f"no trace counts for performance (every trace's weight is 0: checked only), yet "
                         f"points.performance = {policy.points.performance:g}, which no submission could earn; "
                         "set points.performance = 0, or grade on traces of weight 1, 2 or 3 (traces/README.md)")


def read_facts(path: Path, origin: Path, policy: Policy, folder: Path) -> scoring.TraceFacts:
    """The figures the driver reports of the trace at PATH (the private copy of ORIGIN), read by the
    grader itself, so that no report the allocator can touch decides them (docs/grader.md)."""
    try:
        read = read_measured(path, policy.limits.max_heap, "limits.max_heap")
    except TraceError as err:       # the driver read it (_check_traces): the kit's readers disagree
        raise BatchError(f"{_shown(origin, folder)}:{err.problem.line}: the grader's own reading of this trace "
                         f"fails where the driver's does not, so nothing was graded: {err.problem.message}") from None
    trace = read.trace
    align = policy.build.alignment
    sizes = np.frombuffer(trace.sizes, dtype=np.int64)
    aligned = array("q", ((sizes + align - 1) // align * align).tobytes())
    peak_aligned = int(live_series(replace(trace, sizes=aligned))[0].max(initial=0))
    return scoring.TraceFacts(weight=trace.header.weight, ops=len(trace), peak_payload=read.peak_bytes,
                              ideal_utilization=read.peak_bytes / peak_aligned if peak_aligned else 1.0)


def _parse_problem(driver: Path, folder: Path, traces: list[Path], options: list[str]) -> str:
    """The driver's last complaint reading TRACES with OPTIONS, or '' when it reads them all."""
    args = [str(driver), "--parse-only", *options] + [a for t in traces for a in ("-f", str(folder / t.name))]
    done = subprocess.run(args, capture_output=True, text=True, errors="replace", timeout=600)
    if done.returncode == 0:
        return ""
    return (done.stderr.strip().splitlines() or [f"exit status {done.returncode}"])[-1]


def _self_check(work: Path, policy: Policy, sandbox: Sandbox) -> None:
    """Build the template's own mm.c in the sandbox: if that fails, the fault is ours."""
    folder = work / "selfcheck"
    shutil.rmtree(folder, ignore_errors=True)
    prepare_folder(work / "template", folder, (work / "template" / "mm.c").read_text())
    built = build_submission(folder, policy, sandbox, 0, work / "template")
    shutil.rmtree(folder, ignore_errors=True)
    if built.status != "ok":
        first = (built.log.splitlines() or ["no output"])[0]
        raise BatchError(f"the sandbox cannot build the kit's own mm.c, so no submission could build: {first}"
                         + _limits_hint(policy))


def _handed_in(cand: Candidate) -> dict[str, Any]:
    """What a record says of the hand-in itself, beside its grade: kept up to date when the record
    is reused for the same file."""
    return {"origin": readable(str(cand.origin)), "label": downloads.display_name(cand.label) if cand.label else "",
            "versions": cand.versions}


def _limits_hint(policy: Policy) -> str:
    limits = policy.limits
    return (f" (the policy's sandbox limits: limits.processes = {limits.processes}, "
            f"limits.memory_bytes = {limits.memory_bytes}, limits.cpu_seconds = {limits.cpu_seconds})")


def _cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


class _Grader:
    """One batch's shared state: the context, the timing locks and the free sandbox slots."""

    def __init__(self, ctx: Context, jobs: int, notice: Notice | None = None):
        self.ctx = ctx
        self.timing = threading.Lock()
        # every grader's on this machine, taken after ours (grader/timinglock.py)
        self.machine = MachineLock(lock_path(), notice or (lambda line: None), stopping)
        # The CPUs this process may use (taskset, a cpuset container), not 0..N-1: a pinned run
        # goes to one of them, else taskset would fail it or pin it outside the mask.
        self.cpus = sorted(os.sched_getaffinity(0)) or [0]
        self.cpu_locks = [threading.Lock() for _ in self.cpus]
        self.slots: Queue[int] = Queue()
        for slot in range(max(1, jobs)):
            self.slots.put(slot)

    def verdict(self, cand: Candidate, sha: str | None, verdict: str, reason: str, **extra: Any) -> Submission:
        policy = self.ctx.policy
        fields: dict[str, Any] = dict(
            name=cand.name, sha256=sha, verdict=verdict, reason=reason,
            build_log="", rules=(), traces=(), stdout="", stderr="",
            summary=empty_summary(len(self.ctx.traces), scoring.max_points(policy)),
            protections=self.ctx.protections, policy_digest=policy.digest(),
            kit_digest=self.ctx.kit_digest, graded_at=_now(), reference=cand.reference, **_handed_in(cand))
        fields.update(extra)
        return Submission(**fields)

    def grade(self, cand: Candidate, source: str) -> Submission:
        sha = hashlib.sha256(source.encode()).hexdigest()
        slot = self.slots.get()
        folder = self.ctx.workdir / "subs" / f"{cand.name}-{slot}"
        try:
            shutil.rmtree(folder, ignore_errors=True)
            prepare_folder(self.ctx.template, folder, source)
            return self._pipeline(cand, sha, folder, slot)
        except (OSError, ToolError, KitError) as err:
            return self.verdict(cand, sha, "grader_error", f"the grader failed, not the submission: {err}")
        finally:
            shutil.rmtree(folder, ignore_errors=True)
            self.slots.put(slot)

    def _pipeline(self, cand: Candidate, sha: str, folder: Path, slot: int) -> Submission:
        ctx = self.ctx
        built: BuildResult = build_submission(folder, ctx.policy, ctx.sandbox, slot, ctx.template)
        if built.status != "ok":
            what = "does not compile" if built.status == "compile_error" else "does not link with the driver"
            first = first_error(built.log)
            return self.verdict(cand, sha, built.status, f"mm.c {what}: {first}".rstrip(": "), build_log=built.log)
        rules = check_object(built.alloc_obj, list(built.driver_objs), ctx.policy)
        broken = [r for r in rules if r.verdict == "reject"]
        if broken and not cand.reference:
            return self.verdict(cand, sha, "rejected", "; ".join(f"{r.rule}: {r.detail}" for r in broken),
                                rules=rules)
        return self._runs(cand, sha, rules, lambda: self._run(folder, built.driver, slot))

    def _runs(self, cand: Candidate, sha: str, rules: tuple[RuleResult, ...],
              run_once: Callable[[], DriverRun]) -> Submission:
        """Up to timing.runs driver runs, each scored: the first that is not ok ends them and is the
        verdict; when all are ok, the median one's figures count (grader/runs.py)."""
        total = self.ctx.policy.timing.runs
        graded: list[Submission] = []
        for _ in range(total):
            graded.append(self._score(cand, sha, rules, run_once()))
            if graded[-1].verdict != "ok":
                break
        return runs.combine(graded, total)

    def _run(self, folder: Path, driver: Path, slot: int) -> DriverRun:
        """One driver run (its own process, under its own wall-clock limit), holding the timing lock
        (this grader's, then the machine's: grader/timinglock.py) only while it runs.  With
        timing.runs > 1 each run takes the lock anew, so other submissions' runs interleave with
        this one's: a slow spell on the host then touches several students' runs a little, not one
        student's every run (tools/results.py measures in rounds for that)."""
        ctx = self.ctx
        timing = ctx.policy.timing
        index = None if timing.serialize or not timing.pin else slot % len(self.cpus)
        cpu = None if index is None else self.cpus[index]
        lock = self.timing if timing.serialize else (self.cpu_locks[index] if index is not None else None)
        with lock or contextlib.nullcontext(), self.machine.held(cpu) if lock else contextlib.nullcontext():
            return run_driver(folder, driver, ctx.traces_dir, list(ctx.traces), ctx.policy,
                              ctx.sandbox, slot, ctx.schema, cpu)

    def _score(self, cand: Candidate, sha: str, rules: tuple[RuleResult, ...], run: DriverRun) -> Submission:
        ctx = self.ctx
        output = dict(stdout=run.process.stdout, stderr=run.process.stderr, rules=rules)
        if run.result is None:
            if sandbox_failed(run.process):
                return self.verdict(cand, sha, "grader_error", "the sandbox failed to start the driver: "
                                    + run.process.stderr.strip().splitlines()[0], **output)
            if run.process.returncode == 2 and not run.process.timed_out:
                return self.verdict(cand, sha, "grader_error",
                                    f"the driver refused to run ({run.problem}); see its stderr", **output)
            return self.verdict(cand, sha, "failed", f"no trustworthy result: {run.problem}", **output)
        raw = run.result["traces"]
        # A run stopped at its limit reports the traces before the one in progress, in order.
        given = ctx.traces[:len(raw)] if run.stopped else ctx.traces
        listed = scoring.listed_traces_problem(raw, given,
                                               trace_paths(ctx.sandbox, ctx.traces_dir, list(given)))
        if listed:      # argv or the report was changed: nothing in it is about the traces we chose
            return self.verdict(cand, sha, "failed", "the driver's report is not about the traces it was given "
                                f"({listed}): the allocator tampered with the driver", **output)
        policy = ctx.policy
        # The trace's own figures first: the utilization checks then rest on the grader's peak payload.
        impossible = {i: p for i, (t, facts) in enumerate(zip(raw, ctx.facts))
                      if (p := scoring.facts_problem(t, facts)
                          or scoring.trace_problem(t, policy.build.alignment, policy.limits.max_heap))}
        problem = "" if impossible or not raw else scoring.summary_problem(run.result["summary"], raw)
        utilization = run.result["summary"].get("utilization") if raw else None
        ratio = run.result["summary"].get("throughput_ratio") if raw else None
        if impossible or problem:       # the report cannot be trusted: no performance figures from it
            utilization = ratio = None
            raw = [{**t, "weight": ctx.facts[i].weight, "ops": ctx.facts[i].ops, "outcome": IMPOSSIBLE,
                    "message": f"impossible figure: {impossible[i]}"} if i in impossible else t
                   for i, t in enumerate(raw)]
        if run.stopped:     # the trace in progress and those after it: not finished, so failed
            limit = run.result["settings"]["run_limit"]
            raw = raw + [scoring.unfinished_row(name, facts, limit, during=i == 0)
                         for i, (name, facts) in enumerate(zip(ctx.traces[len(raw):], ctx.facts[len(raw):]))]
            # The driver's summary is over the finished traces only; an unfinished trace counts as a
            # failed one does (0 in U, its share out of T/T_libc), or stalling on a trace until the
            # limit would score better than failing it (tests/c/broken/stall-at-limit.c).
            if not (impossible or problem):
                utilization, ratio = scoring.recompute(raw)
        weights = [t["weight"] for t in raw]
        summary = scoring.summarize([t["outcome"] for t in raw], utilization, ratio, policy, weights)
        if not problem and not scoring.plausible(summary, policy):
            problem = f"performance index {summary.perf_index:g} is outside [0, {scoring.perf_ceiling(policy):g}]"
            summary = scoring.summarize([t["outcome"] for t in raw], None, None, policy, weights)
        earned = scoring.trace_points([t["outcome"] for t in raw], policy)
        traces = tuple(_trace(t, ctx.outcomes, points, ctx.best_k) for t, points in zip(raw, earned))
        if impossible or problem:
            where = "; ".join(f"{raw[i]['name']}: {p}" for i, p in list(impossible.items())[:2])
            more = f" and {len(impossible) - 2} more traces" if len(impossible) > 2 else ""
            return self.verdict(cand, sha, "failed", "impossible figure: the allocator tampered with the driver's "
                                f"report ({where or problem}{more})", traces=traces, summary=summary, **output)
        unread = [t for t in traces if t.outcome == "bad_trace"]
        if unread:      # the driver read every trace at setup (_check_traces): nobody's fault we can name
            return self.verdict(cand, sha, "grader_error", "the driver reported a trace it had read at "
                                f"setup as unreadable ({_listed(unread)}): the allocator tampered with the "
                                "driver's report, or the sandbox kept the driver from the file (see its "
                                "stderr); a rerun regrades it",
                                traces=tuple(replace(t, points=0.0) for t in traces), **output)
        failed = [t for t in traces if t.outcome != "ok"]
        if failed:
            return self.verdict(cand, sha, "failed", f"{len(failed)} of {len(traces)} traces failed: "
                                f"{_listed(failed)}", traces=traces, summary=summary, **output)
        return self.verdict(cand, sha, "ok", f"all {summary.traces} traces correct", traces=traces,
                            summary=summary, **output)


def _listed(traces: list[TraceResult]) -> str:
    """The first three of TRACES, each with its outcome and the driver's message."""
    shown = "; ".join(f"{t.name}: {t.outcome}" + (f" ({t.message})" if t.message else "") for t in traces[:3])
    return shown + (f" and {len(traces) - 3} more" if len(traces) > 3 else "")


def _trace(raw: dict[str, Any], texts: dict[str, str], points: float, best_k: int) -> TraceResult:
    trusted = raw["outcome"] != IMPOSSIBLE      # an impossible trace's figures are kept out of every output
    timing = (raw.get("timing") or {}) if trusted else {}
    libc = (raw.get("libc") or {}) if trusted else {}
    return TraceResult(
        name=scoring.as_driver_writes(raw["name"]), weight=raw["weight"], ops=raw["ops"], outcome=raw["outcome"],
        message=raw.get("message", ""), explanation=texts.get(raw["outcome"], ""),
        op_index=raw.get("op_index"), op=raw.get("op"), utilization=raw.get("utilization") if trusted else None,
        ops_per_sec=timing.get("ops_per_sec"), libc_ops_per_sec=libc.get("ops_per_sec"),
        spread=scoring.spread(timing.get("samples") or [], best_k), output=raw.get("output", ""),
        points=points, output_cut=max(0, raw.get("output_cut") or 0),
        output_tail=raw.get("output_tail") or "")


# A reference's name starts with '_', which no student's can (submissions._safe_name strips it):
# a student folder called ref-segregated must not be overwritten by the variant's record.
REFERENCE_PREFIX = "_ref-"


def reference_name(variant: str) -> str:
    return f"{REFERENCE_PREFIX}{variant}"


def references(kit: Path, policy: Policy) -> list[Candidate]:
    """The policy's reference variants as candidates graded in the same batch."""
    out = []
    for variant in policy.timing.reference_variants:
        path = Path(kit) / "variants" / f"{variant}.c"
        problem = "" if path.is_file() else f"the kit has no variant {variant} (variants/{variant}.c)"
        out.append(Candidate(reference_name(variant), path, "file", problem, reference=True))
    return out


def grade_batch(ctx: Context, candidates: list[Candidate], outdir: Path, jobs: int = 1,
                force: bool = False, progress: Progress | None = None, notice: Notice | None = None,
                regrade: frozenset[str] = frozenset()) -> Batch:
    """Grade CANDIDATES into OUTDIR, reusing unchanged records unless FORCE (every one) or REGRADE
    names them (candidate names); returns the batch.  NOTICE gets each line the user should see
    while it grades (the timing lock's)."""
    grader = _Grader(ctx, jobs, notice)
    report = progress or (lambda event, name, sub: None)
    digest = ctx.policy.digest()
    pending: list[tuple[Candidate, str]] = []
    current: list[str] = []       # names whose record on disk is this run's (graded or reused)
    try:
        for cand in candidates:
            try:
                source = read_source(cand, ctx.policy.build.source_max_bytes)
            except SubmissionError as err:
                sub = grader.verdict(cand, None, "bad_submission", str(err))
                store.save(outdir, sub)
                current.append(sub.name)
                report("done", sub.name, sub)
                continue
            sha = hashlib.sha256(source.encode()).hexdigest()
            old = store.load(outdir, cand.name)
            if not (force or cand.name in regrade) and store.reusable(old, sha, digest, ctx.kit_digest, ctx.protections) \
                    and old.reference == cand.reference:
                # the same file under another hand-in ('a b' once, a_b now) or path, or another Autolab
                # download (Final once, All now: older versions now left out); and its points as this
                # grader computes them, which an older grader's record may not hold
                fresh = replace(scoring.rescored(old, ctx.policy), **_handed_in(cand))
                if fresh != old:
                    old = fresh
                    store.save(outdir, old)
                current.append(old.name)
                report("reused", old.name, old)
                continue
            pending.append((cand, source))
        _grade_pending(grader, pending, outdir, jobs, report, current)
    except BaseException:
        # Stopped: results.json lists only this run's records, never one graded under another
        # policy or kit or for an older file, which a rerun regrades (cli.py counts what is missing).
        with contextlib.suppress(store.OutputError):
            collect(ctx, outdir, current,
                    missing=[c.name for c in candidates if not c.reference and c.name not in current])
        raise
    return collect(ctx, outdir, [c.name for c in candidates])


def _grade_pending(grader: _Grader, pending: list[tuple[Candidate, str]], outdir: Path, jobs: int,
                   report: Progress, current: list[str]) -> None:
    if pending and (grader.ctx.policy.timing.serialize or grader.ctx.policy.timing.pin):
        grader.machine.check()      # a lock file it cannot use is said before the first run
    try:
        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            futures = {pool.submit(_timed, grader, cand, source, report): cand for cand, source in pending}
            try:
                for future in as_completed(futures):
                    sub = future.result()
                    store.save(outdir, sub)
                    current.append(sub.name)
                    report("done", sub.name, sub)
            except BaseException:
                for future in futures:
                    future.cancel()
                kill_all()        # also what a running worker starts next, so the pool's exit is quick
                raise
    finally:
        allow_runs()              # every worker has stopped: runs may start again


def _timed(grader: _Grader, cand: Candidate, source: str, report: Progress) -> Submission:
    report("start", cand.name, None)
    start = time.monotonic()
    sub = grader.grade(cand, source)
    return replace(sub, seconds=round(time.monotonic() - start, 3))


def collect(ctx: Context, outdir: Path, names: list[str] | None = None, missing: list[str] = ()) -> Batch:
    """The batch from the stored records (of NAMES, if given), also written as results.json;
    MISSING names the class's submissions a stopped run did not grade.

    References are kept only when the current policy names them: an earlier run's, under another
    timing.reference_variants, must not stay in the results."""
    references = {reference_name(v) for v in ctx.policy.timing.reference_variants}
    digest = ctx.policy.digest()
    # a record graded under another policy or kit (an earlier run's, another run's at once) is not this batch's
    subs = [s for s in store.load_all(outdir) if (not s.reference or s.name in references)
            and s.policy_digest == digest and s.kit_digest == ctx.kit_digest]
    if names is not None:
        wanted = set(names) | references
        subs = [s for s in subs if s.name in wanted]
    batch = Batch(created=_now(), policy=ctx.policy.to_json(), policy_digest=ctx.policy.digest(),
                  kit_digest=ctx.kit_digest, protections=ctx.protections, machine=ctx.machine,
                  outcomes=ctx.outcomes, submissions=tuple(subs), missing=tuple(missing))
    store.write_json(Path(outdir) / "results.json", batch.to_json())
    return batch

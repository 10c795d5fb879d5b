"""The grader's data model: frozen records with to_json/from_json.

results.json is a Batch; each submission's file under OUTDIR/submissions/ is one
Submission.  grader/schemas/results.schema.json is the contract for both, and
SCHEMA_VERSION changes whenever a field's meaning does.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any

SCHEMA_VERSION = 1

# A submission's verdict, in the order the pipeline can reach them.
VERDICTS = ("ok", "compile_error", "link_error", "rejected", "failed", "bad_submission", "grader_error")
# A trace's outcome: the driver's vocabulary (schema/mdriver-result.schema.json).
OUTCOMES = ("ok", "misaligned", "out_of_heap", "overlap", "payload_corrupted", "alloc_failed",
            "init_failed", "checker_failed", "crashed", "timeout", "exited", "bad_trace", "tampered",
            "inconsistent")
# The grader's own outcome: the driver reported a figure no correct run produces, or a trace's
# figure that is not what the grader reads in the trace (grade.py).
IMPOSSIBLE = "impossible"
GRADER_OUTCOMES = {IMPOSSIBLE: "the driver's report held a figure no correct run can produce (such as a "
                               "utilization above 100%, an infinite speed, or a trace's op count, weight or "
                               "peak payload other than the grader reads in the trace itself): the allocator "
                               "tampered with it"}


def _load(cls: type, data: dict[str, Any]) -> Any:
    names = {f.name for f in fields(cls)}
    return cls(**{k: v for k, v in data.items() if k in names})


@dataclass(frozen=True)
class RuleResult:
    """One static rule's verdict on the compiled allocator."""
    rule: str
    action: str           # reject, warn or off (from the policy)
    passed: bool
    verdict: str          # pass, warn, reject, off
    detail: str           # one line, plain words
    items: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "items": list(self.items)}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "RuleResult":
        return _load(cls, {**data, "items": tuple(data.get("items", ()))})


@dataclass(frozen=True)
class TraceResult:
    """One trace as the driver reported it, with the points it earned."""
    name: str
    weight: int
    ops: int
    outcome: str
    message: str           # what went wrong, from the driver
    explanation: str       # what the outcome means, for a student
    op_index: int | None
    op: str | None
    utilization: float | None
    ops_per_sec: float | None
    libc_ops_per_sec: float | None
    spread: float | None   # (slowest - fastest) / fastest of the timing samples
    output: str
    points: float
    output_cut: int = 0    # bytes printed between `output` and `output_tail`, left out by the driver
    output_tail: str = ""  # the last lines it printed, before a crash ("" in records from before)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "TraceResult":
        return _load(cls, data)


@dataclass(frozen=True)
class Summary:
    traces: int
    valid: int
    utilization: float | None
    throughput_ratio: float | None
    perf_index: float
    correctness_points: float
    performance_points: float
    points: float
    max_points: float

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "Summary":
        return _load(cls, data)


@dataclass(frozen=True)
class RunFigure:
    """One driver run's figures, kept when the policy runs the driver several times (timing.runs)."""
    verdict: str
    perf_index: float
    utilization: float | None
    throughput_ratio: float | None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "RunFigure":
        return _load(cls, data)


@dataclass(frozen=True)
class Versions:
    """Of a student's hand-ins in an Autolab download (grader/downloads.py): the version graded and
    the older ones left out, kept in the record so that the report says what the grade is of."""
    graded: int
    left_out: tuple[int, ...] = ()

    def note(self, file: str = "") -> str:
        """'graded version 3 (FILE); older versions 1, 2 left out', as the CLI, report and CSV say it."""
        text = f"graded version {self.graded}" + (f" ({file})" if file else "")
        if self.left_out:
            plural = "s" if len(self.left_out) > 1 else ""
            text += f"; older version{plural} {', '.join(map(str, self.left_out))} left out"
        return text

    def to_json(self) -> dict[str, Any]:
        return {"graded": self.graded, "left_out": list(self.left_out)}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "Versions":
        return cls(graded=data["graded"], left_out=tuple(data.get("left_out", ())))


@dataclass(frozen=True)
class Submission:
    """Everything the grader found out about one submission."""
    name: str
    origin: str                 # where it came from (path, archive member)
    sha256: str | None
    verdict: str
    reason: str                 # one line: why this verdict
    build_log: str              # the compiler's first lines, when the build failed
    rules: tuple[RuleResult, ...]
    traces: tuple[TraceResult, ...]
    summary: Summary
    stdout: str                 # driver run's stdout, truncated (never parsed)
    stderr: str
    protections: tuple[str, ...]
    policy_digest: str
    kit_digest: str
    reference: bool = False
    seconds: float = 0.0
    graded_at: str = ""
    runs: tuple[RunFigure, ...] = ()   # every driver run, in order, when timing.runs > 1; else left out
    versions: Versions | None = None   # an Autolab hand-in's version graded and those left out; else left out
    label: str = ""             # who it is, as the class's download says ('Alan Turing, Grace Hopper'); else left out

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["rules"] = [r.to_json() for r in self.rules]
        data["traces"] = [t.to_json() for t in self.traces]
        data["summary"] = self.summary.to_json()
        data["protections"] = list(self.protections)
        data["runs"] = [r.to_json() for r in self.runs]
        if not self.runs:
            del data["runs"]
        if self.versions:
            data["versions"] = self.versions.to_json()
        else:
            del data["versions"]
        if not self.label:
            del data["label"]
        return {"schema": SCHEMA_VERSION, "tool": "mmgrade", **data}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "Submission":
        return _load(cls, {**data,
                           "rules": tuple(RuleResult.from_json(r) for r in data["rules"]),
                           "traces": tuple(TraceResult.from_json(t) for t in data["traces"]),
                           "summary": Summary.from_json(data["summary"]),
                           "protections": tuple(data["protections"]),
                           "runs": tuple(RunFigure.from_json(r) for r in data.get("runs", ())),
                           "versions": Versions.from_json(data["versions"]) if data.get("versions") else None})


@dataclass(frozen=True)
class Batch:
    """A whole class: results.json."""
    created: str
    policy: dict[str, Any]
    policy_digest: str
    kit_digest: str
    protections: tuple[str, ...]
    machine: dict[str, str]
    outcomes: dict[str, str]     # outcome -> one-line explanation
    submissions: tuple[Submission, ...] = field(default_factory=tuple)
    missing: tuple[str, ...] = ()   # the class's submissions a stopped run left ungraded

    def to_json(self) -> dict[str, Any]:
        return {"schema": SCHEMA_VERSION, "tool": "mmgrade", "created": self.created,
                "policy": self.policy, "policy_digest": self.policy_digest,
                "kit_digest": self.kit_digest, "protections": list(self.protections),
                "machine": self.machine, "outcomes": self.outcomes,
                "submissions": [s.to_json() for s in self.submissions]} | (
                    {"missing": list(self.missing)} if self.missing else {})

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "Batch":
        return _load(cls, {**data, "protections": tuple(data["protections"]),
                           "missing": tuple(data.get("missing", ())),
                           "submissions": tuple(Submission.from_json(s) for s in data["submissions"])})


def empty_summary(traces: int, max_points: float) -> Summary:
    return Summary(traces=traces, valid=0, utilization=None, throughput_ratio=None, perf_index=0.0,
                   correctness_points=0.0, performance_points=0.0, points=0.0, max_points=max_points)

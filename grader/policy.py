"""The course policy: one TOML file, laid over the kit's grader.toml and config.h.

Precedence, lowest first: config.h (scoring constants, limits), the kit's
grader.toml (the classic defaults), the course's own file.  A course file needs
only the keys it changes.  Unknown keys are errors so that a typo never silently
leaves a default in force.
"""
from __future__ import annotations

import hashlib
import json
import math
import re
import tomllib
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path
from typing import Any

from mmtrace.regular import NotRegular, read_regular
from mmtrace.trace import HEAP_LIMIT

from .kitconfig import read_kit_config
from .paths import link_problem

ACTIONS = ("reject", "warn", "off")
VISIBILITIES = ("hidden", "after_due_date", "after_published", "visible")
RULES = ("undefined_symbols", "shadowing", "other_globals", "constructors",
         "writable_data", "code_size", "raw_syscalls")


# What the driver accepts (driver/options.c: -T whole seconds 1..86400; -M up to HEAP_LIMIT,
# driver/heap.h) and what prlimit and the driver's integers can hold.
DRIVER_SECONDS = (1, 24 * 3600)
DRIVER_HEAP_LIMIT = HEAP_LIMIT
INT_MAX = (1 << 63) - 1
# timing.runs: driver runs per submission.  Each costs a whole run's time (about 5 s for the
# kit's implicit-list variants on the classic traces, 12 s when this was set), so 15 is over a
# minute per submission.
MAX_RUNS = 15
# The alignments the kit's Makefile builds (its config-error refuses any other).
ALIGNMENTS = (8, 16)
# build.source_max_bytes at most: the whole source is read into memory (an archive may unpack
# to no more, grader/submissions.py), and no mm.c comes near it.
MAX_SOURCE_BYTES = 64 << 20
# points.* at most: far past any course's scale, and their sums stay finite.
MAX_POINTS = 1e6
# A policy file larger than this is no policy (and /dev/zero would never end).
MAX_POLICY_BYTES = 1 << 20

# Keys a policy may leave out, at the value that changes nothing.  The record leaves them out at
# that value too, so a policy from before the key existed reads, prints and hashes as it did (and
# records graded under it stay reusable).
DEFAULTS: dict[tuple[str, str], Any] = {("timing", "runs"): 1}


class PolicyError(ValueError):
    """A policy file that cannot be used; the message names the file and key."""


@dataclass(frozen=True)
class Build:
    alignment: int
    cflags: str
    compile_timeout: float
    source_max_bytes: int
    file_size_bytes: int         # RLIMIT_FSIZE of the build: cc1's temporary files are large


@dataclass(frozen=True)
class Traces:
    dir: str
    files: tuple[str, ...]


@dataclass(frozen=True)
class Scoring:
    formula: str
    util_weight: float
    throughput_cap: float
    util_range: tuple[float, float]
    throughput_range: tuple[float, float]
    all_or_nothing: bool


@dataclass(frozen=True)
class Points:
    correctness: float
    performance: float


@dataclass(frozen=True)
class Limits:
    trace_seconds: float
    max_heap: int
    wall_clock: float
    cpu_seconds: int
    memory_bytes: int
    file_size_bytes: int
    processes: int
    output_keep: int


@dataclass(frozen=True)
class Rules:
    allowed_symbols: tuple[str, ...]
    extra_allowed_symbols: tuple[str, ...]
    api_symbols: tuple[str, ...]
    writable_data_max: int
    code_size_max: int           # bytes of code and read-only data: bounds a table of a trace's placements
    action: dict[str, str]

    def allowed(self) -> frozenset[str]:
        return frozenset(self.allowed_symbols) | frozenset(self.extra_allowed_symbols)


@dataclass(frozen=True)
class Sandbox:
    require: bool
    driver_seccomp: bool         # false only to test the grader's own layers behind the driver's filter


@dataclass(frozen=True)
class Timing:
    serialize: bool
    pin: bool
    reference_variants: tuple[str, ...]
    runs: int                    # driver runs per submission; the median one's figures count (grade.py)


@dataclass(frozen=True)
class Gradescope:
    visibility: str
    stdout_visibility: str
    leaderboard: bool


@dataclass(frozen=True)
class Course:
    name: str


@dataclass(frozen=True)
class Policy:
    course: Course
    build: Build
    traces: Traces
    scoring: Scoring
    points: Points
    limits: Limits
    rules: Rules
    sandbox: Sandbox
    timing: Timing
    gradescope: Gradescope
    source: str

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        for (section, key), value in DEFAULTS.items():
            if data[section][key] == value:
                del data[section][key]
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "Policy":
        return _build(data, "results.json")

    def digest(self) -> str:
        """A hash of everything that affects a grade (not where the policy came from)."""
        data = self.to_json()
        data.pop("source")
        data.pop("gradescope")
        return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()[:16]


_SECTIONS = {f.name: f.type for f in fields(Policy) if f.name != "source"}
_CLASSES = {"course": Course, "build": Build, "traces": Traces, "scoring": Scoring,
            "points": Points, "limits": Limits, "rules": Rules, "sandbox": Sandbox,
            "timing": Timing, "gradescope": Gradescope}


def _from_config_h(kit: Path) -> dict[str, dict[str, Any]]:
    """The defaults whose single source is config.h."""
    config = read_kit_config(kit)
    wanted = {("build", "alignment"): "MM_ALIGNMENT",
              ("scoring", "util_weight"): "MM_UTIL_WEIGHT",
              ("scoring", "throughput_cap"): "MM_THROUGHPUT_CAP",
              ("limits", "trace_seconds"): "MDRIVER_DEFAULT_TIME_LIMIT",
              ("limits", "max_heap"): "MDRIVER_DEFAULT_MAX_HEAP"}
    out: dict[str, dict[str, Any]] = {}
    for (section, key), name in wanted.items():
        if name in config:
            out.setdefault(section, {})[key] = config[name]
    return out


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        data = read_regular(path, MAX_POLICY_BYTES)     # a FIFO or a device is refused unread
    except NotRegular:
        raise PolicyError(f"{path}: not a regular file, so not a TOML policy") from None
    except OSError as err:
        raise PolicyError(f"{path}: cannot read the policy ({link_problem(path) or err.strerror})") from None
    if len(data) > MAX_POLICY_BYTES:
        raise PolicyError(f"{path}: larger than {MAX_POLICY_BYTES} bytes, so not a TOML policy")
    try:
        # utf-8-sig: a byte-order mark, which some Windows editors write, is not TOML's concern
        return tomllib.loads(data.decode("utf-8-sig"))
    except tomllib.TOMLDecodeError as err:
        raise PolicyError(f"{path}: not valid TOML ({err})") from None
    except UnicodeDecodeError as err:
        raise PolicyError(f"{path}: not UTF-8 text, so not a TOML policy (byte {err.start})") from None


def _merge(base: dict[str, Any], over: dict[str, Any], origin: str) -> dict[str, Any]:
    merged = {k: dict(v) if isinstance(v, dict) else v for k, v in base.items()}
    for section, values in over.items():
        if section not in _SECTIONS:
            raise PolicyError(f"{origin}: unknown section [{section}]")
        if not isinstance(values, dict):
            raise PolicyError(f"{origin}: [{section}] must be a table")
        target = merged.setdefault(section, {})
        for key, value in values.items():
            if key == "action" and isinstance(value, dict):
                target[key] = {**target.get(key, {}), **value}
            else:
                target[key] = value
    return merged


def _number(value: Any, where: str, whole: bool = False) -> float | int:
    """VALUE as a finite number (a whole one if WHOLE); PolicyError naming WHERE otherwise."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise PolicyError(f"{where}: expected a number")
    if not math.isfinite(value):
        raise PolicyError(f"{where}: expected a finite number, not {value}")
    if whole:
        if value != int(value):
            raise PolicyError(f"{where}: expected a whole number, not {value}")
        if abs(int(value)) > INT_MAX:         # as written: int(1e300) is 301 digits
            raise PolicyError(f"{where}: {value} is too large")
        return int(value)
    return float(value)


def _coerce(value: Any, kind: Any, where: str) -> Any:
    text = str(kind)
    if text.startswith("tuple"):
        if not isinstance(value, (list, tuple)):
            raise PolicyError(f"{where}: expected a list")
        if "float" in text:
            return tuple(_number(v, where) for v in value)
        if any(not isinstance(v, str) for v in value):
            raise PolicyError(f"{where}: expected a list of strings")
        return tuple(value)
    if text.startswith("dict"):
        if not isinstance(value, dict):
            raise PolicyError(f"{where}: expected a table")
        return dict(value)
    if text == "bool":
        if not isinstance(value, bool):
            raise PolicyError(f"{where}: expected true or false")
        return value
    if text == "str":
        if not isinstance(value, str):
            raise PolicyError(f"{where}: expected a string")
        return value
    if text in ("int", "float"):
        return _number(value, where, whole=text == "int")
    return value


def _build(data: dict[str, Any], origin: str) -> Policy:
    sections: dict[str, Any] = {}
    for name, cls in _CLASSES.items():
        values = {**_defaults(name), **data.get(name, {})}
        known = {f.name: f.type for f in fields(cls)}
        for key in values:
            if key not in known:
                raise PolicyError(f"{origin}: unknown key {name}.{key}")
        missing = [k for k in known if k not in values]
        if missing:
            raise PolicyError(f"{origin}: missing key {name}.{missing[0]}")
        sections[name] = cls(**{k: _coerce(values[k], t, f"{origin}: {name}.{k}") for k, t in known.items()})
    policy = Policy(**sections, source=str(data.get("source", origin)))
    _validate(policy, origin)
    return policy


def _defaults(section: str) -> dict[str, Any]:
    return {key: value for (where, key), value in DEFAULTS.items() if where == section}


def _check_runs(policy: Policy, origin: str) -> None:
    runs = policy.timing.runs
    if not 1 <= runs <= MAX_RUNS:
        raise PolicyError(f"{origin}: timing.runs = {runs}: driver runs per submission, from 1 to {MAX_RUNS}")


def _check_references(policy: Policy, origin: str, kit: Path | None = None) -> None:
    """Each reference variant once, and (given the KIT) one of its variants/*.c: found only
    after the batch, a typo would cost a whole run."""
    listed = policy.timing.reference_variants
    twice = sorted({v for v in listed if listed.count(v) > 1})
    if twice:
        raise PolicyError(f"{origin}: timing.reference_variants lists {twice[0]} more than once")
    if kit is None:
        return
    known = sorted(p.stem for p in (Path(kit) / "variants").glob("*.c"))
    unknown = [v for v in listed if v not in known]
    if unknown:
        raise PolicyError(f"{origin}: timing.reference_variants: the kit has no variant {unknown[0]} "
                          f"(variants/{unknown[0]}.c); it has {', '.join(known) or 'none'}")


# A compiler flag as make hands it to the shell: "-O2", "-fsanitize=address,undefined", "-I/x",
# "-Wl,-z,now".  The flags reach a recipe's command line, so a ';', '$' or quote would run there.
FLAG = re.compile(r"-[A-Za-z0-9_=+,.:/@%-]+")


def _check_cflags(cflags: str, origin: str) -> None:
    bad = next((word for word in cflags.split() if not FLAG.fullmatch(word)), None)
    if bad is not None:
        raise PolicyError(f"{origin}: build.cflags: {bad!r} is not a compiler flag (each word starts with '-' "
                          "and holds letters, digits and _=+,.:/@%- only: make runs it in a shell)")


def _validate(policy: Policy, origin: str) -> None:
    _check_runs(policy, origin)
    _check_references(policy, origin)
    for rule, action in policy.rules.action.items():
        if rule not in RULES:
            raise PolicyError(f"{origin}: unknown rule rules.action.{rule} (rules: {', '.join(RULES)})")
        if action not in ACTIONS:
            raise PolicyError(f"{origin}: rules.action.{rule} = {action!r}; use one of {', '.join(ACTIONS)}")
    if policy.scoring.formula not in ("classic", "scaled"):
        raise PolicyError(f"{origin}: scoring.formula must be \"classic\" or \"scaled\"")
    if not 0 <= policy.scoring.util_weight <= 1:
        raise PolicyError(f"{origin}: scoring.util_weight must lie in [0, 1]")
    for name in ("util_range", "throughput_range"):
        low_high = getattr(policy.scoring, name)
        if len(low_high) != 2 or not low_high[0] < low_high[1]:
            raise PolicyError(f"{origin}: scoring.{name} must be [low, high] with low < high")
    if policy.build.alignment not in ALIGNMENTS:
        raise PolicyError(f"{origin}: build.alignment = {policy.build.alignment}: the kit builds "
                          f"{' or '.join(map(str, ALIGNMENTS))} only")
    for name in ("visibility", "stdout_visibility"):
        if getattr(policy.gradescope, name) not in VISIBILITIES:
            raise PolicyError(f"{origin}: gradescope.{name} must be one of {', '.join(VISIBILITIES)}")
    for field in fields(Limits):
        value = getattr(policy.limits, field.name)
        if field.name == "wall_clock" and value < 0:     # 0 is allowed: the default, from the traces
            raise PolicyError(f"{origin}: limits.wall_clock must be 0 (the traces x trace_seconds + 60) or positive")
        if value <= 0 and field.name != "wall_clock":
            raise PolicyError(f"{origin}: limits.{field.name} must be positive")
    _check_cflags(policy.build.cflags, origin)
    for name in ("compile_timeout", "source_max_bytes", "file_size_bytes"):
        if getattr(policy.build, name) <= 0:
            raise PolicyError(f"{origin}: build.{name} must be positive")
    if policy.build.source_max_bytes > MAX_SOURCE_BYTES:
        raise PolicyError(f"{origin}: build.source_max_bytes = {policy.build.source_max_bytes}: at most "
                          f"{MAX_SOURCE_BYTES} (64 MiB); the grader reads the whole source into memory")
    for name in ("correctness", "performance"):
        if getattr(policy.points, name) > MAX_POINTS:
            raise PolicyError(f"{origin}: points.{name} = {getattr(policy.points, name):g}: at most {MAX_POINTS:g}")
    for where, value in (("points.correctness", policy.points.correctness),
                         ("points.performance", policy.points.performance),
                         ("scoring.throughput_cap", policy.scoring.throughput_cap),
                         ("rules.writable_data_max", policy.rules.writable_data_max),
                         ("rules.code_size_max", policy.rules.code_size_max)):
        if value < 0:
            raise PolicyError(f"{origin}: {where} must not be negative")
    limits = policy.limits
    low, high = DRIVER_SECONDS
    if limits.trace_seconds != int(limits.trace_seconds) or not low <= limits.trace_seconds <= high:
        raise PolicyError(f"{origin}: limits.trace_seconds = {limits.trace_seconds:g}: the driver's -T takes "
                          f"whole seconds from {low} to {high}")
    if limits.max_heap > DRIVER_HEAP_LIMIT:
        raise PolicyError(f"{origin}: limits.max_heap = {limits.max_heap}: the driver's -M takes at most "
                          f"{DRIVER_HEAP_LIMIT} bytes (4 GiB)")
    if limits.max_heap > limits.memory_bytes // 2:
        raise PolicyError(f"{origin}: limits.max_heap = {limits.max_heap} must be at most half of "
                          f"limits.memory_bytes ({limits.memory_bytes}): the driver reserves the whole heap "
                          "inside the sandbox's address space")


def with_runs(policy: Policy, runs: int) -> Policy:
    """POLICY with timing.runs set to RUNS (`mmgrade grade --runs N`), checked as in a file."""
    changed = replace(policy, timing=replace(policy.timing, runs=runs))
    _check_runs(changed, "--runs")
    return changed


def load_policy(kit: Path, path: Path | None = None) -> Policy:
    """The policy in force: config.h, then KIT/grader.toml, then PATH if given."""
    kit = Path(kit)
    data = _merge({}, _from_config_h(kit), f"{kit}/config.h")
    data = _merge(data, _read_toml(kit / "grader.toml"), str(kit / "grader.toml"))
    origin = str(kit / "grader.toml")
    if path is not None:
        data = _merge(data, _read_toml(Path(path)), str(path))
        origin = str(path)
    data["source"] = origin
    policy = _build(data, origin)
    _check_references(policy, origin, kit)
    return policy

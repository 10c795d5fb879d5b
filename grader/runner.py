"""Run the driver on a built submission and read its results from a channel it cannot forge.

The driver writes its JSON to a pipe (`--json fd:N`) from its parent process only;
the trace children, where the allocator runs, close that descriptor.  A fresh
random secret goes in on another pipe (`--secret-fd M`) that the driver reads
only after every trace has run, and echoes in the JSON.  A result whose secret
does not match is rejected.  The run's stdout and stderr are kept, truncated,
for the report; nothing is ever parsed from them.
"""
from __future__ import annotations

import json
import math
import os
import secrets
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema

from mmtrace.driver_result import interrupted

from .policy import Policy
from .sandbox import Mount, RunResult, Sandbox, run

MAX_JSON = 32 << 20


class ChannelError(RuntimeError):
    """The driver gave no trustworthy result."""


# Seconds the driver has, past its own --run-limit, to stop the trace in progress and write its
# result before the grader kills the whole process tree.
STOP_GRACE = 5
# The largest --run-limit the driver takes (RUN_LIMIT_MAX, driver/options.h).
RUN_LIMIT_MAX = 2**31 - 1


@dataclass(frozen=True)
class DriverRun:
    result: dict[str, Any] | None     # the validated JSON, or None
    problem: str                      # why there is no result; empty when there is one
    process: RunResult
    stopped: bool = False             # the driver stopped itself at the run's limit: its traces are a prefix


def _read_all(fd: int, sink: list[bytes]) -> None:
    total = 0
    with os.fdopen(fd, "rb") as stream:
        while chunk := stream.read(65536):
            total += len(chunk)
            if total <= MAX_JSON:
                sink.append(chunk)


def load_schema(kit: Path) -> dict[str, Any] | None:
    path = Path(kit) / "schema" / "mdriver-result.schema.json"
    return json.loads(path.read_text()) if path.exists() else None


def check_result(raw: bytes, secret: str, schema: dict[str, Any] | None, limit: int | None = None) -> dict[str, Any]:
    """The driver's JSON if it is well formed, valid, carries SECRET and is of a complete run (not
    interrupted), or of a run that stopped itself at LIMIT, its --run-limit, when the run lasted that
    long (the grader's own clock says so); ChannelError otherwise."""
    if not raw.strip():
        raise ChannelError("the driver wrote no result")
    try:
        data = json.loads(raw)
    except (ValueError, UnicodeDecodeError) as err:
        raise ChannelError(f"the driver's result is not JSON ({err})") from None
    if not isinstance(data, dict):
        raise ChannelError("the driver's result is not a JSON object")
    if data.get("secret") != secret:
        raise ChannelError("the result does not carry this run's secret: it did not come from the driver")
    if schema is not None:
        try:
            jsonschema.validate(data, schema)
        except jsonschema.ValidationError as err:
            raise ChannelError(f"the driver's result breaks its schema: {err.message[:200]}") from None
    if (why := interrupted(data)) and not (limit and stopped_at(data, limit)):
        raise ChannelError(f"the driver was {why}: a partial run is not graded")
    return data


def stopped_at(data: dict[str, Any], limit: int) -> bool:
    """DATA is of a run that stopped itself at its own --run-limit of LIMIT seconds."""
    stop, settings = data.get("interrupted"), data.get("settings")
    return isinstance(stop, dict) and stop.get("signal") == "SIGALRM" and isinstance(settings, dict) \
        and settings.get("run_limit") == limit


def wall_clock(policy: Policy, traces: int) -> float:
    """The policy's limit for a whole run; 0 means every trace's own limit, plus a minute."""
    return policy.limits.wall_clock or traces * policy.limits.trace_seconds + 60


def run_limit(policy: Policy, traces: int) -> int:
    """The driver's --run-limit: the whole run's limit in whole seconds.  A driver that reaches it
    stops the trace in progress and reports the ones before it, which are graded (grade.py)."""
    return min(RUN_LIMIT_MAX, max(1, math.ceil(wall_clock(policy, traces))))


def driver_limits(policy: Policy) -> list[str]:
    """The policy's per-trace time limit and maximum heap as the driver's options."""
    return ["-T", f"{policy.limits.trace_seconds:g}", "-M", str(policy.limits.max_heap)]


def driver_args(driver: str, traces: list[str], policy: Policy, json_fd: int, secret_fd: int) -> list[str]:
    args = [driver, "-l", *driver_limits(policy), "--run-limit", str(run_limit(policy, len(traces))),
            "--json", f"fd:{json_fd}", "--secret-fd", str(secret_fd)]
    for trace in traces:
        args += ["-f", trace]
    return args


def trace_paths(sandbox: Sandbox, traces_dir: Path, traces: list[str]) -> list[str]:
    """The paths the driver is given for TRACES (names in TRACES_DIR), as it sees them."""
    return [f"{sandbox.path_of(Mount(traces_dir, '/traces'))}/{t}" for t in traces]


def run_driver(folder: Path, driver: Path, traces_dir: Path, traces: list[str], policy: Policy,
               sandbox: Sandbox, slot: int, schema: dict[str, Any] | None, cpu: int | None = None) -> DriverRun:
    """Run FOLDER's driver on TRACES (names in TRACES_DIR) in the sandbox."""
    sandbox.prepare(folder, slot, writable=False)
    sub = Mount(folder, "/sub")
    tdir = Mount(traces_dir, "/traces")
    inside = f"{sandbox.path_of(sub)}/{driver.relative_to(folder)}"
    secret = secrets.token_hex(24)
    json_r, json_w = os.pipe()
    secret_r, secret_w = os.pipe()
    os.write(secret_w, (secret + "\n").encode())
    os.close(secret_w)
    chunks: list[bytes] = []
    reader = threading.Thread(target=_read_all, args=(json_r, chunks), daemon=True)
    reader.start()
    try:
        argv = driver_args(inside, trace_paths(sandbox, traces_dir, traces), policy, json_w, secret_r)
        cmd = sandbox.command(argv, [sub, tdir], sub, policy.limits, slot, cpu)
        limit = run_limit(policy, len(traces))
        process = run(cmd, limit + STOP_GRACE, policy.limits.output_keep, pass_fds=(json_w, secret_r), cwd=folder)
    finally:
        os.close(json_w)
        os.close(secret_r)
    reader.join(timeout=30)
    if process.timed_out:
        return DriverRun(None, f"the whole run took longer than {wall_clock(policy, len(traces)):g} s, did not "
                         "stop at that limit, and was killed", process)
    try:
        # A stop at the limit is believed only when the grader's clock saw the run last that long.
        data = check_result(b"".join(chunks), secret, schema, limit if process.seconds >= limit else None)
        return DriverRun(data, "", process, stopped=bool(data.get("interrupted")))
    except ChannelError as err:
        return DriverRun(None, str(err), process)

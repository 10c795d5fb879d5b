"""What the driver says about itself (`mdriver --describe`): outcome explanations, constants,
its own sandbox.

The driver owns the outcome vocabulary and its one-line explanations; the grader
reads them rather than keeping a copy.  When a driver cannot describe itself the
explanation says so plainly instead of inventing one.
"""
from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from .model import GRADER_OUTCOMES, OUTCOMES


def describe(driver: Path) -> dict[str, Any]:
    """The driver's --describe JSON, or {} when it has none."""
    try:
        done = subprocess.run([str(driver), "--describe"], capture_output=True, text=True, errors="replace", timeout=30)
        data = json.loads(done.stdout) if done.returncode == 0 else {}
    except (OSError, ValueError, subprocess.TimeoutExpired):
        return {}
    return data if isinstance(data, dict) else {}


def driver_protections(description: dict[str, Any]) -> tuple[str, ...]:
    """The layers the driver itself adds around the allocator, as it says (a build with
    DRIVER_SECCOMP=off or ASan, or a kernel without seccomp, has no filter; an ASan build,
    or a machine that will not let a process read its child's memory, no audit)."""
    layers = {"driver_seccomp": "seccomp", "driver_audit": "audit"}
    return tuple(name for name, key in layers.items() if description.get(key) is True)


def outcome_texts(description: dict[str, Any]) -> dict[str, str]:
    """outcome -> one-line explanation, for every outcome of the shared vocabulary."""
    raw = description.get("outcomes", {})
    texts: dict[str, str] = {}
    if isinstance(raw, dict):
        for name, value in raw.items():
            if isinstance(value, str):
                texts[name] = value
            elif isinstance(value, dict):
                texts[name] = str(value.get("explanation") or value.get("meaning") or value.get("text") or "")
    elif isinstance(raw, list):
        for item in raw:
            if isinstance(item, dict) and "name" in item:
                texts[item["name"]] = str(item.get("explanation") or item.get("meaning") or item.get("text") or "")
    for name in OUTCOMES:
        texts.setdefault(name, "" if name == "ok" else f"{name} (the driver gave no explanation)")
    texts.update(GRADER_OUTCOMES)
    return texts

"""Rendering: Markdown tables and the common page header.  Returns text only."""
from __future__ import annotations

import os
import platform
import subprocess
from datetime import datetime, timezone
from pathlib import Path

from bench.measure import Summary


def source_note(kit: Path, sources: tuple[str, ...] = ("variants", "shim", "bench")) -> str:
    """Which commit the allocators were built from, and any of their files (under `sources`)
    edited since."""
    try:
        head = subprocess.run(["git", "-C", str(kit), "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, errors="replace", timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(kit), "status", "--porcelain", "--", *sources],
                               capture_output=True, text=True, errors="replace", timeout=10).stdout.split("\n")
    except (OSError, subprocess.SubprocessError):
        return ""
    if not head:
        return ""
    edited = [line[3:] for line in dirty if line.strip()]
    return f" Allocators built from commit {head}" + (f" with uncommitted edits to {', '.join(edited)}." if edited else ".")


def machine_note() -> str:
    cpu = "unknown CPU"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    cores = os.cpu_count() or 1
    note = (f"Measured {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC on {platform.node()}, {cpu}, "
            f"{cores} cores, Linux {platform.release()}, {platform.libc_ver()[0]} {platform.libc_ver()[1]}.")
    if cores <= 2:
        note += (f" The machine has {cores} cores and was shared with other work, so runs with more "
                 f"threads than cores oversubscribe it and every figure carries noise: read the "
                 f"medians with their min–max ranges.")
    return note + source_note(Path(__file__).resolve().parent.parent)


def fmt_num(x: float | None, digits: int = 3) -> str:
    if x is None:
        return "–"
    if x == 0:
        return "0"
    if abs(x) >= 1000:
        return f"{x:,.0f}"
    return f"{x:.{digits}g}"


def cell(s: Summary | None, base: Summary | None = None, digits: int = 3) -> str:
    """`median [lo–hi]` and, when a baseline is given, `×ratio` to its median."""
    if s is None:
        return "–"
    text = f"{fmt_num(s.median, digits)} [{fmt_num(s.lo, digits)}–{fmt_num(s.hi, digits)}]"
    if base is not None and base.median:
        text += f" ×{s.median / base.median:.2f}"
    return text


def table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def page(title: str, intro: str, sections: list[str], skipped: list[str]) -> str:
    parts = [f"# {title}", "", intro.strip(), "", machine_note(), ""]
    if skipped:
        parts += ["Skipped: " + "; ".join(skipped) + ".", ""]
    for s in sections:
        parts += [s.rstrip(), ""]
    return "\n".join(parts)

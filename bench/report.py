"""Rendering: Markdown tables and the common page header.  Returns text only."""
from __future__ import annotations

import json
import os
import platform
import subprocess
import tempfile
from datetime import datetime, timezone
from pathlib import Path

from bench import hostload
from bench.measure import Summary

# The study's window on the host (hostload.py): opened as the study starts (cli.main).
study_window: hostload.Window | None = None


def start_study() -> None:
    global study_window
    study_window = hostload.Window()


def source_facts(kit: Path, sources: tuple[str, ...] = ("variants", "shim", "bench")) -> tuple[str, list[str]]:
    """The kit's commit and its files (under `sources`) edited since; ("", []) outside git."""
    try:
        head = subprocess.run(["git", "-C", str(kit), "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, errors="replace", timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(kit), "status", "--porcelain", "--", *sources],
                               capture_output=True, text=True, errors="replace", timeout=10).stdout.split("\n")
    except (OSError, subprocess.SubprocessError):
        return "", []
    if not head:
        return "", []
    return head, [line[3:] for line in dirty if line.strip()]


def commit_text(head: str, edited: list[str]) -> str:
    return head + (f" with uncommitted edits to {', '.join(edited)}" if edited else "")


def source_note(kit: Path, sources: tuple[str, ...] = ("variants", "shim", "bench")) -> str:
    """Which commit the allocators were built from, and any of their files (under `sources`)
    edited since."""
    head, edited = source_facts(kit, sources)
    return f" Allocators built from commit {commit_text(head, edited)}." if head else ""


def measured() -> dict:
    """Where, when and from which commit a study measures: kept in its JSON beside the
    figures, so that a page made from the JSON later (summary) states them, not today's."""
    cpu = "unknown CPU"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    cores = os.cpu_count() or 1
    head, edited = source_facts(Path(__file__).resolve().parent.parent)
    return {"date": f"{datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC",
            "machine": f"{platform.node()}, {cpu}, {cores} cores, Linux {platform.release()}, "
                       f"{platform.libc_ver()[0]} {platform.libc_ver()[1]}",
            "cores": cores, "commit": commit_text(head, edited) if head else None,
            "load": round(os.getloadavg()[0], 2),
            "other_cores": study_window.other_cores() if study_window else None}


def machine_note(m: dict | None = None) -> str:
    """The page's Measured line, from measured() (default: now, here)."""
    m = measured() if m is None else m
    note = f"Measured {m['date']} on {m['machine']}."
    cores, load, other = m.get("cores"), m.get("load"), m.get("other_cores")
    shared = (": the machine was shared with other work and every figure carries noise, so read the medians "
              "with their min–max ranges.")
    if other is not None:       # other processes' CPU time: the study's own is not other work
        note += (f" Other processes kept {other:g} of its {count(cores or 1, 'core')} busy on average during the "
                 f"study (/proc/stat less the study's own CPU time)" + (shared if hostload.shared(other, cores or 1) else "."))
    elif load is not None:      # records from before that: the load average, the study's own work in it
        note += (f" Load average {load:g} (1 minute) as the study ended"
                 + (f", on {count(cores, 'core')}{shared}" if load > 0.5 * (cores or 1) else "."))
    elif cores and cores <= 2:  # records from before the load was kept
        note += (f" The machine has {cores} cores and was shared with other work, so runs with more "
                 f"threads than cores oversubscribe it and every figure carries noise: read the "
                 f"medians with their min–max ranges.")
    if (other is not None or load is not None) and cores and cores <= 2:
        note += f" Runs with more threads than its {count(cores, 'core')} oversubscribe it."
    return note + (f" Allocators built from commit {m['commit']}." if m.get("commit") else "")


def check_out(out: Path) -> str | None:
    """Why the study could not write its files into `out`, or None: tried before any run (a
    folder and a file made, then taken back), so a bad --out costs nothing measured."""
    missing, p = [], out
    while not p.exists() and not p.is_symlink() and p != p.parent:
        missing.append(p)
        p = p.parent
    made = []
    try:
        for d in reversed(missing):
            d.mkdir()
            made.append(d)
        with tempfile.NamedTemporaryFile(dir=out, prefix=".bench-check-"):
            pass
    except OSError as err:
        return f"{out}: cannot write the study's files there ({err.strerror})"
    finally:
        for d in reversed(made):
            try:
                d.rmdir()
            except OSError:
                pass
    return None


def versions_line(versions: dict[str, str | None]) -> str:
    """Which build of each allocator was measured; the shims are the commit's variants."""
    named = [f"{a} {v}" if a != "glibc" else v for a, v in versions.items() if v]
    shims = [a for a, v in versions.items() if not v]
    if shims:
        named.append(f"{', '.join(shims)}: the kit's variants as shims (commit above)")
    return "Allocator versions: " + "; ".join(named) + "."


def save_json(path: Path, data: dict, m: dict) -> None:
    """A study's results with where, when and from which commit they were measured."""
    path.write_text(json.dumps({**data, "measured": m}, indent=1) + "\n")


def count(n: int, one: str, many: str | None = None) -> str:
    """`1 process`, `2 processes`: a number with its noun in the right number."""
    return f"{n} {one if n == 1 else many or one + 's'}"


def fmt_num(x: float | None, digits: int = 3) -> str:
    if x is None:
        return "–"
    if x == 0:
        return "0"
    short = f"{x:.{digits}g}"
    if abs(float(short)) >= 1000:     # by the rounded figure: `.3g` writes 999.6 as 1e+03
        return f"{x:,.0f}"
    return short


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


def page(title: str, intro: str, sections: list[str], skipped: list[str], m: dict | None = None,
         res=None) -> str:
    """The page: title, intro, Measured line, what was skipped, what was not timed (res.unserved:
    the allocator did not serve malloc, checked in every run by build/bench/witness.so), sections;
    a study a signal stopped (res.partial) says so first."""
    parts = [f"# {title}", ""]
    partial = getattr(res, "partial", None)
    if partial:
        parts += [f"**Partial:** {partial}: the figures are those of the runs finished before it, "
                  f"fewer than the repetitions this page names.", ""]
    parts += [intro.strip(), "", machine_note(m), ""]
    versions = getattr(res, "versions", None)
    if versions:
        parts += [versions_line(versions), ""]
    if skipped:
        parts += ["Skipped: " + "; ".join(skipped) + ".", ""]
    unserved = getattr(res, "unserved", None)
    if unserved:
        parts += ["Not timed, the allocator did not serve malloc (its runs are counted as failed, "
                  "never shown as its figures): " + "; ".join(f"{a}: {why}" for a, why in unserved.items()) + ".", ""]
    for s in sections:
        parts += [s.rstrip(), ""]
    return "\n".join(parts)

"""OUTDIR on disk: one file per submission, written atomically, and the batch files.

Each submission's record is written as soon as it is graded (write to a temporary
file, fsync, rename), so an interrupt loses nothing finished.  A rerun reuses a
record whose source, policy and kit hashes all match.
"""
from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from .model import Submission
from .scoring import sane

SUBMISSIONS = "submissions"


def write_atomic(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_json(path: Path, data: Any) -> None:
    write_atomic(path, json.dumps(data, indent=1, sort_keys=False) + "\n")


def record_path(outdir: Path, name: str) -> Path:
    return Path(outdir) / SUBMISSIONS / f"{name}.json"


def save(outdir: Path, sub: Submission) -> None:
    write_json(record_path(outdir, sub.name), sub.to_json())


def load(outdir: Path, name: str) -> Submission | None:
    """The stored record of NAME, or None if absent or unreadable (then it is regraded)."""
    try:
        return Submission.from_json(json.loads(record_path(outdir, name).read_text()))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def load_all(outdir: Path) -> list[Submission]:
    folder = Path(outdir) / SUBMISSIONS
    subs = [load(outdir, p.stem) for p in sorted(folder.glob("*.json"))] if folder.is_dir() else []
    return [s for s in subs if s is not None]


def reusable(old: Submission | None, sha256: str | None, policy_digest: str, kit_digest: str) -> bool:
    return (old is not None and sha256 is not None and old.sha256 == sha256
            and old.policy_digest == policy_digest and old.kit_digest == kit_digest
            and old.verdict != "grader_error" and sane(old.summary))   # an older grader kept inf

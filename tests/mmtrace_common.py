"""What the mmtrace command-line tests share: the kit, a run of `python -m mmtrace`, and the
check that a refusal is one line on stderr with its exit status, never a traceback."""
from __future__ import annotations

import subprocess
from pathlib import Path

from grader_fixtures.helpers import run_python

KIT = Path(__file__).resolve().parent.parent


def mmtrace(*args: str, cwd: Path = KIT, timeout: float = 600) -> subprocess.CompletedProcess:
    return run_python("-m", "mmtrace", *args, capture_output=True, text=True, cwd=cwd, timeout=timeout)


def one_line_error(done: subprocess.CompletedProcess, code: int, *words: str) -> None:
    assert done.returncode == code, done.stdout + done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    for w in words:
        assert w in lines[0]

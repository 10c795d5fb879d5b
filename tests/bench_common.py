"""What the bench tests share: the kit's bench package on the import path, its CLI run as a
user runs it, and the benchmark programs and thread-safe shims built once per module."""
from __future__ import annotations

import subprocess
import sys

import pytest

from shim_common import KIT, make, shim

sys.path.insert(0, str(KIT))

HEADER = "20000\n2\n2\n1\n"        # a trace's four header numbers: heap, ids, ops, weight


def run_cli(*args: str, cwd=KIT) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "bench", *args], capture_output=True, text=True, cwd=cwd,
                          timeout=600)


@pytest.fixture(scope="module")
def built():
    make("bench-progs")
    for v in ("ts-lock", "ts-nolock"):
        shim(v)

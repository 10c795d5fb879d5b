"""Every variant compiles warning-free with -Wall -Wextra at both alignments, and
with statistics compiled out (MM_STATS=0)."""
from __future__ import annotations

import subprocess

import pytest

from variants_common import KIT, VARIANTS, present


@pytest.mark.parametrize("variant", present(list(VARIANTS)))
def test_builds_warning_free(variant, tmp_path):
    for alignment in (8, 16):
        for stats in (0, 1):
            done = subprocess.run(
                ["cc", "-std=gnu11", "-O2", "-Wall", "-Wextra", "-Werror", "-I.", "-Ivariants",
                 f"-DMM_ALIGNMENT={alignment}", f"-DMM_STATS={stats}", "-DMM_DEBUG=0",
                 "-c", f"variants/{variant}.c", "-o", str(tmp_path / "v.o")],
                cwd=KIT, capture_output=True, text=True)
            assert done.returncode == 0, f"{variant} a{alignment} stats={stats}:\n{done.stderr}"

"""Every variant compiles warning-free with -Wall -Wextra at both alignments, and
with statistics compiled out (MM_STATS=0)."""
from __future__ import annotations

import json
import subprocess

import pytest

from variants_common import KIT, VARIANTS, make, present


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


@pytest.mark.parametrize("variant", present(["best", "segregated", "ts-nolock"]))
def test_stats_compiled_out_are_not_reported_as_counts(variant):
    """A STATS=0 build had reported every counter as 0 (`-V`, JSON has_stats true) for a
    trace with thousands of mallocs: counted nothing must not read as counted zero."""
    trace = str(KIT / "traces" / "classic-amptjp.rep")
    for stats, has in (("1", True), ("0", False)):
        driver = make("driver", variant, 16, False, f"STATS={stats}")
        done = subprocess.run([str(driver), "-f", trace, "--json", "-"], capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        got = json.loads(done.stdout)
        assert got["allocator"]["has_stats"] is has
        counted = got["traces"][0]["stats"]
        assert (counted["mallocs"] > 1000) if has else counted is None
        verbose = subprocess.run([str(driver), "-V", "-f", trace], capture_output=True, text=True)
        assert verbose.returncode == 0 and ("stats: mallocs=" in verbose.stdout) is has

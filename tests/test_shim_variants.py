"""ts-lock and ts-nolock are variants like any other: the simulated-heap driver runs them."""
from __future__ import annotations

import subprocess

import pytest

from conftest import build_driver
from shim_common import KIT

TRACES = ["classic-realloc2.rep", "classic-binary.rep", "lab64-cbit-a.rep", "realloc-strings.rep"]


@pytest.mark.parametrize("variant", ["ts-lock", "ts-nolock"])
@pytest.mark.parametrize("alignment", [16, 8])
def test_thread_safe_variant_passes_the_driver_with_its_checker(variant, alignment):
    mdriver = build_driver(variant, alignment)
    args = [str(mdriver), "-c", "-v"]
    for t in TRACES:
        args += ["-f", str(KIT / "traces" / t)]
    done = subprocess.run(args, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize("variant", ["ts-lock", "ts-nolock"])
def test_thread_safe_variant_is_clean_under_sanitizers(variant):
    mdriver = build_driver(variant, 16, sanitize=True)
    done = subprocess.run([str(mdriver), "-v", "-f", str(KIT / "traces" / "classic-realloc.rep"),
                           "-f", str(KIT / "traces" / "lab64-syn-mix.rep")], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr

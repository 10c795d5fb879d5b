"""The committed suite as the driver sees it: every trace parses, and a reference
allocator replays every one of them correctly within the default 20 MiB heap."""
from __future__ import annotations

import json
import subprocess
from pathlib import Path

from conftest import build_driver

KIT = Path(__file__).resolve().parent.parent


def test_the_driver_parses_every_trace(driver):
    done = subprocess.run([str(driver), "--parse-only", "-t", str(KIT / "traces")],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    names = {line.split()[0] for line in done.stdout.splitlines()} - {"total"}
    on_disk = {p.name.split(".rep")[0] for p in (KIT / "traces").iterdir() if ".rep" in p.name}
    assert names == on_disk


def test_a_reference_allocator_replays_the_whole_suite():
    good = build_driver("segregated-realloc")
    done = subprocess.run([str(good), "-r", "1", "--json", "-", "-t", str(KIT / "traces")],
                          capture_output=True, text=True)
    result = json.loads(done.stdout)
    bad = {t["name"]: t["message"] for t in result["traces"] if t["outcome"] != "ok"}
    assert not bad
    assert done.returncode == 0
    assert len(result["traces"]) >= 25

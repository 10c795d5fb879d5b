"""`make MM=file.c` names the build folder after the file's basename, so two files of
one name share it; switching between them must rebuild, never run the other's object
(e.g. a TA building MM=alice/mm.c, then MM=bob/mm.c whose file is older)."""
from __future__ import annotations

import json
import os
import shutil
import subprocess

from conftest import KIT, build_driver

NAME = "stampcheck"          # a basename no other test uses: the folder is build/stampcheck-a16


def _utilization(driver, trace="classic-random.rep") -> float:
    done = subprocess.run([str(driver), "-f", str(KIT / "traces" / trace), "-r", "1", "--json", "-"],
                          capture_output=True, text=True, check=True)
    return json.loads(done.stdout)["traces"][0]["utilization"]


def _reference(variant) -> float:
    return _utilization(build_driver(variant))


def test_same_basename_from_two_folders_rebuilds(tmp_path):
    first, second = tmp_path / "alice" / f"{NAME}.c", tmp_path / "bob" / f"{NAME}.c"
    for path, variant in ((first, "implicit-first"), (second, "explicit-lifo")):
        path.parent.mkdir()
        shutil.copy(KIT / "variants" / f"{variant}.c", path)
    os.utime(second, (0, 0))                  # older than any object built from the first
    want = {first: _reference("implicit-first"), second: _reference("explicit-lifo")}
    assert want[first] != want[second]        # the trace tells the two allocators apart
    for path in (first, second, first):
        driver = build_driver(extra=(f"MM={path}",))
        assert driver.parent.name == f"{NAME}-a16"
        assert _utilization(driver) == want[path], path
        head = subprocess.run([str(driver), "-f", str(KIT / "traces" / "classic-random.rep"), "-r", "1"],
                              capture_output=True, text=True).stdout.splitlines()[0]
        assert str(path) in head


def test_a_deleted_file_of_the_same_basename_does_not_block_the_next(tmp_path):
    """The folder's dependency file names the previous file; once that file is gone, building
    another file of the same name must not fail on it."""
    gone, kept = tmp_path / "old" / "stampgone.c", tmp_path / "new" / "stampgone.c"
    for path, variant in ((gone, "segregated"), (kept, "explicit-lifo")):
        path.parent.mkdir()
        shutil.copy(KIT / "variants" / f"{variant}.c", path)
    build_driver(extra=(f"MM={gone}",))
    gone.unlink()
    driver = build_driver(extra=(f"MM={kept}",))
    assert _utilization(driver) == _reference("explicit-lifo")


def test_an_unchanged_file_is_not_rebuilt(tmp_path):
    path = tmp_path / "stampkeep.c"        # its own folder: tests may run in parallel
    shutil.copy(KIT / "variants" / "segregated.c", path)
    build_driver(extra=(f"MM={path}",))
    done = subprocess.run(["make", "-C", str(KIT), "driver", f"MM={path}"], capture_output=True, text=True)
    assert done.returncode == 0
    assert "cc " not in done.stdout and " -c " not in done.stdout, done.stdout

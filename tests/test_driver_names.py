"""Which files the driver runs, and how it shows their names."""
from __future__ import annotations

import subprocess

from driver_common import run, write_trace

OPS = ["a 0 16", "f 0"]


def refused(driver, *args, cwd=None):
    done = subprocess.run([str(driver), *map(str, args)], capture_output=True, text=True, timeout=60, cwd=cwd)
    assert done.returncode == 2 and done.stdout == "", done.stdout + done.stderr
    assert len(done.stderr.splitlines()) == 1, done.stderr
    return done.stderr


def test_the_same_file_given_twice_is_refused(driver, tmp_path):
    """A trace given twice was run and scored twice (-t traces -t traces doubled every op count)."""
    folder = tmp_path / "t"
    folder.mkdir()
    a = write_trace(folder, "a", OPS, weight=1)
    write_trace(folder, "b", OPS, weight=1)
    assert refused(driver, "-f", a, "-f", a) == \
        f"mdriver: the same trace given twice: -f {a} and -f {a}; each trace is run once (mdriver -h for help)\n"
    err = refused(driver, "-t", folder, "-f", a)
    assert err.startswith(f"mdriver: the same trace given twice: -f {a} and {a} from -t {folder};"), err
    assert f"{a} from -t {folder} and {a} from -t {folder};" in refused(driver, "-t", folder, "-t", folder)
    # the same inode under another name: a hard link, or a path with ..
    (folder / "c.rep").hardlink_to(a)
    assert f"{a} from -t {folder} and {folder / 'c.rep'} from -t {folder};" in refused(driver, "-t", folder)
    other = folder / ".." / "t" / "a.rep"
    assert f"-f {a} and -f {other};" in refused(driver, "-f", a, "-f", other)
    # a copy is another file
    copy = write_trace(tmp_path, "a", OPS, weight=1)
    assert run(driver, "-f", a, "-f", copy, tmp=tmp_path).rc == 0


def test_hidden_files_in_a_trace_directory_are_skipped(driver, tmp_path):
    write_trace(tmp_path, "seen", OPS, weight=1)
    write_trace(tmp_path, ".hidden", OPS, weight=1)
    write_trace(tmp_path, "._seen", OPS, weight=1)     # a zip's resource fork
    r = run(driver, "-t", tmp_path, tmp=tmp_path)
    assert r.rc == 0 and [t["name"] for t in r.doc["traces"]] == ["seen"]
    # named with -f, a hidden file is run
    assert run(driver, "-f", tmp_path / ".hidden.rep", tmp=tmp_path).rc == 0

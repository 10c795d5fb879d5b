"""Shared pieces of the grader's tests: the fake kit, tiny traces, policies, a batch runner."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from grader import workdir
from grader.grade import Context, grade_batch, prepare, references
from grader.model import Batch
from grader.policy import load_policy
from grader.sandbox import probe
from grader.submissions import discover
from grader_fixtures.submissions import source

KIT = Path(__file__).resolve().parent.parent.parent
HERE = Path(__file__).resolve().parent
TRACES = HERE / "traces"
FAST = {"trace_seconds": 2, "wall_clock": 60, "memory_bytes": 268435456}


def make_fake_kit(dest: Path) -> Path:
    """A kit whose driver is driver/fake.py: real headers, config, schema and policy."""
    dest.mkdir(parents=True, exist_ok=True)
    for name in ("config.h", "mm.h", "memlib.h", "mm_stats.h", "grader.toml"):
        shutil.copy2(KIT / name, dest / name)
    shutil.copytree(KIT / "schema", dest / "schema")
    shutil.copytree(HERE / "fakekit", dest, dirs_exist_ok=True)
    return dest


def write_policy(folder: Path, text: str = "", limits: dict | None = None, name: str = "course.toml") -> Path:
    """A course policy with short limits (FAST, then LIMITS) and any other TEXT."""
    merged = {**FAST, **(limits or {})}
    path = folder / name
    path.write_text("[limits]\n" + "".join(f"{k} = {v}\n" for k, v in merged.items()) + text)
    return path


def run_batch(kit: Path, submissions: Path, outdir: Path, policy_text: str = "", jobs: int = 2,
              limits: dict | None = None, traces: Path = TRACES, **kwargs) -> Batch:
    """Grade SUBMISSIONS with the tiny traces (or TRACES) and a fast policy, in the real sandbox."""
    policy = load_policy(kit, write_policy(outdir.parent, policy_text, limits, f"{outdir.name}.toml"))
    ctx: Context = prepare(kit, policy, probe(), traces)
    try:
        return grade_batch(ctx, discover(submissions) + references(kit, policy), outdir, jobs=jobs, **kwargs)
    finally:
        workdir.release(ctx.workdir)


def by_name(batch: Batch) -> dict:
    return {s.name: s for s in batch.submissions}


def run_python(*argv, env: dict | None = None, runner=subprocess.run, **kwargs):
    """`python ARGV` (`-m grader ...`, `-m mmtrace ...`) in a subprocess (RUNNER: subprocess.run or
    Popen) that imports this checkout's grader and mmtrace from whatever cwd: PYTHONPATH leads here
    first.  Without it, a run from a temporary folder imports the venv's editable install, which
    may be another checkout."""
    env = dict(os.environ if env is None else env)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(KIT), env.get("PYTHONPATH")]))
    return runner([sys.executable, *map(str, argv)], env=env, **kwargs)


def run_grader(*args, **kwargs):
    """`python -m grader ARGS` through run_python."""
    return run_python("-m", "grader", *args, **kwargs)


def cli(*args, env=None, cwd=None):
    """`mmgrade ARGS` as a user types it, its output captured as text."""
    return run_grader(*args, capture_output=True, text=True, env=env, cwd=cwd, timeout=300)


def one_line_error(done, status=2) -> str:
    """The one line mmgrade's run DONE wrote on stderr, which exited STATUS, with no traceback."""
    assert done.returncode == status and "Traceback" not in done.stderr, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("mmgrade: "), done.stderr
    return lines[0]


def bare_path(tmp_path, without=("bwrap", "setpriv", "prlimit", "taskset")) -> dict:
    """An environment whose PATH has the build tools but not the sandbox tools named in WITHOUT."""
    bin_dir = tmp_path / f"bin-{len(without)}"
    bin_dir.mkdir()
    for tool in os.listdir("/usr/bin"):
        if tool not in without:
            (bin_dir / tool).symlink_to(f"/usr/bin/{tool}")
    return {**os.environ, "PATH": str(bin_dir)}


@pytest.fixture
def classroom(tmp_path):
    """A fake kit, a policy and three hand-ins: ann passes, bob does not compile, cid is no C."""
    kit = make_fake_kit(tmp_path / "kit")
    subs = tmp_path / "subs"
    subs.mkdir()
    (subs / "ann.c").write_text(source("good"))
    (subs / "bob-mm.c").write_text(source("compile_error"))
    (subs / "cid.c").write_bytes(b"\xff\xfe binary junk \0")
    return kit, subs, write_policy(tmp_path)

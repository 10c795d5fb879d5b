"""Shared pieces of the grader's tests: the fake kit, tiny traces, policies, a batch runner."""
from __future__ import annotations

import shutil
from pathlib import Path

from grader.grade import Context, grade_batch, prepare
from grader.model import Batch
from grader.policy import load_policy
from grader.sandbox import probe
from grader.submissions import discover

KIT = Path(__file__).resolve().parent.parent.parent
HERE = Path(__file__).resolve().parent
TRACES = HERE / "traces"
FAST = """
[limits]
trace_seconds = 2
wall_clock = 60
memory_bytes = 268435456
"""


def make_fake_kit(dest: Path) -> Path:
    """A kit whose driver is driver/fake.py: real headers, config, schema and policy."""
    dest.mkdir(parents=True, exist_ok=True)
    for name in ("config.h", "mm.h", "memlib.h", "mm_stats.h", "grader.toml"):
        shutil.copy2(KIT / name, dest / name)
    shutil.copytree(KIT / "schema", dest / "schema")
    shutil.copytree(HERE / "fakekit", dest, dirs_exist_ok=True)
    return dest


def write_policy(folder: Path, text: str, name: str = "course.toml") -> Path:
    path = folder / name
    path.write_text(FAST + text)
    return path


def run_batch(kit: Path, submissions: Path, outdir: Path, policy_text: str = "", jobs: int = 2,
              **kwargs) -> Batch:
    """Grade SUBMISSIONS with the tiny traces and a fast policy, in the real sandbox."""
    policy = load_policy(kit, write_policy(outdir.parent, policy_text, f"{outdir.name}.toml"))
    ctx: Context = prepare(kit, policy, probe(), TRACES)
    try:
        return grade_batch(ctx, discover(submissions), outdir, jobs=jobs, **kwargs)
    finally:
        shutil.rmtree(ctx.workdir, ignore_errors=True)


def by_name(batch: Batch) -> dict:
    return {s.name: s for s in batch.submissions}

"""What the shim and benchmark tests share: building shims, helpers and programs."""
from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from filelock import FileLock

KIT = Path(__file__).resolve().parent.parent

# The shims the real-program tests run: the thread-safe variants always, the
# kit's best allocators when their sources have landed.
PROGRAM_VARIANTS = [v for v in ("ts-lock", "ts-nolock", "best", "segregated")
                    if (KIT / "variants" / f"{v}.c").exists()]
ALL_VARIANTS = sorted(p.stem for p in (KIT / "variants").glob("*.c"))


def make(*args: str) -> str:
    """Run make in the kit under the shared build lock; its stdout."""
    (KIT / "build").mkdir(exist_ok=True)
    with FileLock(str(KIT / "build" / ".make.lock")):
        done = subprocess.run(["make", "-s", "-C", str(KIT), *args], capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"make {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}")
    return done.stdout


def shim(variant: str) -> Path:
    return KIT / make("shim", f"VARIANT={variant}").strip().splitlines()[-1]


def bench_program(name: str) -> Path:
    make("bench-progs")
    return KIT / "build" / "bench" / name


def compile_helper(name: str, out_dir: Path, *sources: str, flags: tuple[str, ...] = ()) -> Path:
    """tests/c/shim/NAME.c built into OUT_DIR, with SOURCES (paths in the kit) and FLAGS."""
    exe = out_dir / name
    if not exe.exists():
        subprocess.run(["gcc", "-std=gnu11", "-O1", "-g", "-Wall", "-Wextra", "-Werror", "-pthread", *flags, "-o",
                        str(exe), str(KIT / "tests" / "c" / "shim" / f"{name}.c"), *(str(KIT / s) for s in sources)],
                       check=True)
    return exe


def preloaded(lib: Path | None, stats: Path | None = None, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("LD_PRELOAD", "MMSHIM_STATS")}
    env["LC_ALL"] = "C"
    if lib:
        env["LD_PRELOAD"] = str(lib)
    if stats:
        env["MMSHIM_STATS"] = str(stats)
    env.update(extra)
    return env


def read_stats(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]

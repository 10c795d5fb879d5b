"""What the mmtrace record tests share: a program whose allocations are known, how a test
compiles a program and runs mmtrace, a one-trace recipe, and waiting on the programs a
recording starts."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

from grader_fixtures.helpers import run_python

KNOWN = r"""
#include <malloc.h>
#include <stdlib.h>
#include <unistd.h>
int main(void)
{
    char *a = malloc(100);
    char *b = calloc(10, 20);
    a = realloc(a, 300);
    void *c;
    if (posix_memalign(&c, 64, 50) != 0) return 1;
    void *d = aligned_alloc(32, 64);
    void *e = realloc(NULL, 40);
    e = realloc(e, 0);
    free(b);
    a = realloc(a, 20);
    free(c);
    free(d);
    free(a);
    void *m = memalign(16, 24);
    free(m);
    void *z = malloc(0);
    free(z);
    free(NULL);
    return write(1, "done\n", 5) == 5 ? 0 : 1;
}
"""
KNOWN_OPS = [("a", 0, 100), ("a", 1, 200), ("r", 0, 300), ("a", 2, 50), ("a", 3, 64),
             ("n", 4, 40), ("r", 4, 0), ("f", 1, 0), ("r", 0, 20), ("f", 2, 0), ("f", 3, 0),
             ("f", 0, 0), ("a", 0, 24), ("f", 0, 0), ("a", 0, 0), ("f", 0, 0)]


def compile_program(tmp: Path, name: str, source: str) -> Path:
    src = tmp / f"{name}.c"
    src.write_text(source)
    exe = tmp / name
    subprocess.run(["cc", "-O0", "-fno-builtin", "-o", str(exe), str(src), "-lpthread"],
                   check=True)
    return exe


def mmtrace(*args: str, **kw) -> subprocess.CompletedProcess:
    return run_python("-m", "mmtrace", *args, capture_output=True, text=True, **kw)


def recipe_for(folder: Path, command: list[str], more: str = "") -> Path:
    recipe = folder / "recipe.toml"
    recipe.write_text('[groups]\nrecorded = "real programs"\n\n[[trace]]\nname = "rec-py"\n'
                      'group = "recorded"\nstresses = "a script from sources/"\n'
                      f"command = {json.dumps(command)}\n{more}")
    return recipe


def wait_for(path: Path, seconds: float = 20) -> str:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if path.exists() and path.read_text().endswith("\n"):
            return path.read_text()
        time.sleep(0.05)
    raise AssertionError(f"{path} never written")


def kill_started(started: Path) -> None:
    """Whatever a test left running: the pid its program wrote into STARTED, if it got that far."""
    if started.exists():
        try:
            os.kill(int(started.read_text()), signal.SIGKILL)
        except (ProcessLookupError, ValueError):
            pass


def gone(pid: int, seconds: float = 5) -> bool:
    import time
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.05)
    return False

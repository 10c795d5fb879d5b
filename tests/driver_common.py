"""Helpers for the driver's tests: build drivers around test allocators, write
traces, run mdriver and read back both its JSON and its text table.

Every run made through `run()` writes its JSON to a file and validates it
against schema/mdriver-result.schema.json, so each test also checks the schema
on whatever outcome it provokes.
"""
from __future__ import annotations

import functools
import json
import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import jsonschema

from conftest import KIT, build_driver

BROKEN = KIT / "tests" / "c" / "broken"
CLASSIC = KIT / "tests" / "c" / "classic"
TRIGGER = 777  # the request size that fires most broken allocators' defect (bump.h)


@functools.cache
def heap_base() -> int:
    """The simulated heap's fixed address, read from the driver's own header."""
    m = re.search(r"HEAP_BASE\s*=\s*(0x[0-9a-fA-F]+)", (KIT / "driver" / "heap.h").read_text())
    assert m, "HEAP_BASE not found in driver/heap.h"
    return int(m.group(1), 16)


def bump_block(n: int) -> int:
    """Bytes a block of n payload bytes takes in tests/c/broken/bump.h's layout (header + rounded payload)."""
    return 16 + (n + 15) // 16 * 16


@functools.cache
def schema_validator() -> jsonschema.Draft202012Validator:
    schema = json.loads((KIT / "schema" / "mdriver-result.schema.json").read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


@functools.cache
def broken(name: str, alignment: int = 16) -> Path:
    """The driver built around tests/c/broken/<name>.c (built once per process)."""
    return build_driver(alignment=alignment, extra=(f"MM=tests/c/broken/{name}.c", "-j2"))


@functools.cache
def variant(name: str | None, alignment: int = 16) -> Path:
    return build_driver(name, alignment)


@functools.cache
def describe(driver: Path) -> dict:
    done = subprocess.run([str(driver), "--describe"], capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def write_trace(folder: Path, name: str, ops: Sequence[str], *, weight: int = 0, ids: int | None = None,
                order: str = "classic", num_ops: int | None = None) -> Path:
    """Write a .rep file; ids and the op count default to what the ops need."""
    if ids is None:
        ids = 1 + max((int(op.split()[1]) for op in ops), default=0)
    count = len(ops) if num_ops is None else num_ops
    header = [weight, ids, count, 4096] if order == "lab64" else [20000, ids, count, weight]
    path = folder / f"{name}.rep"
    path.write_text("".join(f"{h}\n" for h in header) + "".join(f"{op}\n" for op in ops))
    return path


@dataclass(frozen=True)
class Run:
    rc: int
    out: str
    err: str
    doc: dict | None

    def trace(self, name: str) -> dict:
        found = [t for t in self.doc["traces"] if t["name"] == name]
        assert len(found) == 1, f"trace {name} not in {[t['name'] for t in self.doc['traces']]}"
        return found[0]

    def row(self, name: str, text: str | None = None) -> tuple[str, str]:
        """The table row of a trace and the line after it (the failure message, if any)."""
        lines = (self.out if text is None else text).splitlines()
        for i, line in enumerate(lines):
            cells = line.split()
            if len(cells) >= 3 and cells[0].isdigit() and cells[1] == name:
                return line, lines[i + 1] if i + 1 < len(lines) else ""
        raise AssertionError(f"no table row for {name} in:\n{self.out}")

    @property
    def summary(self) -> dict:
        return self.doc["summary"]


def run(driver: Path, *args: str | Path, tmp: Path, timeout: float = 120, json_out: bool = True,
        **kwargs) -> Run:
    """Run mdriver with args, its JSON written to tmp and checked against the schema."""
    argv = [str(driver), *map(str, args)]
    dest = tmp / f"result-{os.getpid()}-{len(list(tmp.glob('result-*')))}.json"
    if json_out:
        argv += ["--json", str(dest)]
    done = subprocess.run(argv, capture_output=True, text=True, errors="replace", timeout=timeout, **kwargs)
    doc = None
    if json_out and dest.exists() and dest.stat().st_size:
        doc = json.loads(dest.read_text())
        schema_validator().validate(doc)
    return Run(done.returncode, done.stdout, done.stderr, doc)


def kbest(samples: Sequence[float], k: int = 3) -> float:
    """The driver's documented estimator: the mean of the k fastest samples."""
    fastest = sorted(samples)[:k]
    return sum(fastest) / len(fastest)


def stopped_driver(tmp: Path, after: float = 2.0) -> tuple[Path, list[str]]:
    """A script that runs the hangs.c driver and SIGTERMs it after AFTER seconds, and the
    arguments for it (an honest trace, then one it never finishes): the JSON it writes is a
    real interrupted run's, the driver's own, as a reader of driver JSON may be handed one."""
    honest = write_trace(tmp, "honest", ["a 0 100", "a 1 200", "f 0", "f 1"], weight=1)
    stuck = write_trace(tmp, "stuck", [f"a 0 {TRIGGER}", "f 0"], weight=1)
    script = tmp / "stopped-mdriver"
    script.write_text(f"#!/bin/sh\nexec timeout -s TERM {after} {broken('hangs')} \"$@\"\n")
    script.chmod(0o755)
    return script, ["-f", str(honest), "-f", str(stuck)]

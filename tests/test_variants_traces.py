"""Every variant replays every trace of the suite with its heap checker after every op.

The meta-test: VARIANTS in variants_common.py must name every variants/*.c, so a
new allocator cannot skip these runs.  Each variant is built with ASan and UBSan
and run by the real driver on:

  * the head of every trace with `mdriver -c`: its first HEAD_OPS ops, then a free
    of every block still live, so the checker also watches the heap drain.  The
    checker walks the whole heap after every op (O(ops x blocks)), which on the
    full suite takes minutes per variant; the heads keep it to seconds.
  * every whole trace without -c (the driver's own checks: alignment, overlap,
    payload, heap bounds) -- except that the implicit-list variants, whose search
    is linear, skip the traces of more than IMPLICIT_MAX_OPS ops (the recorded
    programs), which take them minutes.

All copies are rewritten with weight 0 (correctness only), so no time goes to
the timing passes.  Each run has a per-trace time limit (-T).
"""
from __future__ import annotations

import gzip
import json
import subprocess
from pathlib import Path

import pytest

from variants_common import KIT, REQUIRED, VARIANTS, make, present, variant_files

HEAD_OPS = 2000
IMPLICIT_MAX_OPS = 20_000
# Correctness, not thrift: next and worst fit fragment the 20 MiB default heap
# until realloc-vectors runs out of it (docs/results.md shows that), so the
# whole-trace runs get a larger simulated heap.
WHOLE_TRACE_HEAP = "64M"
TIME_LIMIT = "60"


def _read(path: Path) -> list[str]:
    raw = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
    return [ln.strip() for ln in raw.decode().splitlines()
            if ln.strip() and not ln.lstrip().startswith("#")]


def _write(path: Path, header: list[int], ops: list[str]) -> None:
    lab64 = header[0] <= 3
    header = list(header)
    header[0 if lab64 else 3] = 0          # weight 0: correctness only
    header[2] = len(ops)
    path.write_text("\n".join(map(str, header)) + "\n" + "\n".join(ops) + "\n")


def _head(ops: list[str], n: int) -> list[str]:
    """The first n ops, then a free of every id still live."""
    live: dict[str, bool] = {}
    for op in ops[:n]:
        kind, ident, *rest = op.split()
        if kind in "an":
            live[ident] = True
        elif kind == "f" or (kind == "r" and rest and int(rest[0]) == 0):
            live.pop(ident, None)
    return ops[:n] + [f"f {i}" for i in live]


def _suite() -> list[Path]:
    return sorted([*KIT.glob("traces/*.rep"), *KIT.glob("traces/*.rep.gz")])


@pytest.fixture(scope="module")
def trace_copies(tmp_path_factory) -> dict[str, Path]:
    """Directories of rewritten traces: 'head', 'full', 'full-small'."""
    root = tmp_path_factory.mktemp("variant-traces")
    dirs = {k: root / k for k in ("head", "full", "full-small")}
    for d in dirs.values():
        d.mkdir()
    for path in _suite():
        lines = _read(path)
        header, ops = [int(x) for x in lines[:4]], lines[4:]
        name = path.name.removesuffix(".gz")
        _write(dirs["head"] / name, header, _head(ops, HEAD_OPS))
        _write(dirs["full"] / name, header, ops)
        if len(ops) <= IMPLICIT_MAX_OPS:
            _write(dirs["full-small"] / name, header, ops)
    return dirs


def _run(driver: Path, traces: Path, *flags: str) -> dict:
    done = subprocess.run([str(driver), *flags, "-T", TIME_LIMIT, "-t", str(traces), "--json", "-"],
                          capture_output=True, text=True, timeout=1800)
    assert done.stdout, f"{driver}: no JSON (exit {done.returncode}): {done.stderr[-2000:]}"
    return json.loads(done.stdout)


def _failures(result: dict) -> list[str]:
    return [f"{t['name']}: {t['outcome']} at op {t['op_index']} ({t['op']}): {t['message']} {t['output'][:300]}"
            for t in result["traces"] if t["outcome"] != "ok"]


def test_every_variant_is_listed():
    """The meta-test: a variants/*.c file missing from VARIANTS fails here."""
    missing = sorted(set(variant_files()) - set(VARIANTS))
    assert not missing, f"add these variants to tests/variants_common.py VARIANTS: {missing}"


def test_required_variants_exist():
    """present() skips a listed variant whose file is absent, so without this a deleted
    variants/explicit-fifo.c would silently drop out of every test."""
    missing = [v for v in REQUIRED if v not in variant_files()]
    assert not missing, f"variants/ lacks the variants issue 3 names: {missing}"
    assert set(REQUIRED) <= set(VARIANTS)


def test_suite_is_there():
    assert len(_suite()) >= 10


@pytest.mark.parametrize("variant", present(list(VARIANTS)))
def test_checker_after_every_op(variant, trace_copies):
    driver = make("driver", variant, 16, sanitize=True)
    result = _run(driver, trace_copies["head"], "-c")
    assert result["allocator"]["has_checkheap"], f"{variant} has no mm_checkheap"
    assert result["summary"]["traces"] == len(_suite())
    assert not _failures(result), f"{variant}:\n" + "\n".join(_failures(result))


@pytest.mark.parametrize("variant", present(list(VARIANTS)))
def test_whole_traces(variant, trace_copies):
    driver = make("driver", variant, 16, sanitize=True)
    which = "full-small" if variant.startswith("implicit-") else "full"
    result = _run(driver, trace_copies[which], "-M", WHOLE_TRACE_HEAP)
    assert result["summary"]["traces"] == len(list(trace_copies[which].iterdir()))
    assert not _failures(result), f"{variant}:\n" + "\n".join(_failures(result))


@pytest.mark.parametrize("variant", present(list(VARIANTS)))
def test_classic_alignment(variant, trace_copies):
    """The 8-byte-aligned build of every variant, checked after every op on the trace heads
    (the classic lab's alignment, which every variant's card and checker promise)."""
    driver = make("driver", variant, 8, sanitize=True)
    assert not _failures(_run(driver, trace_copies["head"], "-c"))

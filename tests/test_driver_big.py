"""A generated trace of 1,000,000 ops with 100,000 live blocks goes through the
correctness pass (both runs) with a correct allocator: every op checked, every block
live at once tracked.  Not timed here: the per-trace limit is raised so that a loaded
machine cannot fail it (the run takes seconds on a quiet one); `make bench-driver`
prints the rate."""
from __future__ import annotations

import random
from pathlib import Path

from driver_common import run, variant

LIVE, OPS = 100_000, 1_000_000


def big_trace(folder: Path, seed: int = 20261122) -> Path:
    """LIVE allocations, then pairs (free one, allocate another) or (realloc two),
    so exactly LIVE blocks stay live from then to the end."""
    rng = random.Random(seed)
    ids = 2 * LIVE
    live = list(range(LIVE))
    spare = list(range(LIVE, ids))
    lines = [f"a {i} {rng.randint(1, 128)}" for i in live]
    while len(lines) < OPS:
        if rng.random() < 0.8:
            k, j = rng.randrange(LIVE), rng.randrange(len(spare))
            old, new = live[k], spare[j]
            lines.append(f"f {old}")
            lines.append(f"a {new} {rng.randint(1, 128)}")
            live[k], spare[j] = new, old
        else:
            for k in (rng.randrange(LIVE), rng.randrange(LIVE)):
                lines.append(f"r {live[k]} {rng.randint(1, 160)}")
    path = folder / "big.rep"
    path.write_text(f"0\n{ids}\n{len(lines)}\n0\n" + "\n".join(lines) + "\n")  # 64-bit-lab order, weight 0
    return path


def test_million_ops_with_100k_live_blocks(tmp_path):
    trace = big_trace(tmp_path)
    # best: the fastest correct variant, so the run measures the checker more than the allocator.
    r = run(variant("best"), "-f", trace, "-T", "600", tmp=tmp_path, timeout=900)
    assert r.rc == 0, r.out + r.err
    t = r.trace("big")
    assert t["outcome"] == "ok" and t["ops"] == OPS

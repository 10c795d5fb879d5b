"""Pictures of one trace: request-size histogram and live payload over time."""
from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from .stats import live_series, request_sizes  # noqa: E402
from .trace import Trace  # noqa: E402


def plot_trace(name: str, trace: Trace, out: Path) -> Path:
    """Write one PNG with the two panels; returns its path."""
    sizes = request_sizes(trace)
    live_bytes, live_blocks = live_series(trace)
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
    if len(sizes):
        hi = max(2, int(sizes.max()))
        bins = np.unique(np.geomspace(1, hi + 1, 60).astype(int))
        left.hist(sizes, bins=bins, color="#4c72b0")
        left.set_xscale("log")
    zero = int(np.count_nonzero(sizes == 0))       # malloc(0): no place on a log axis
    left.set_xlabel("request size (bytes)" + (f"; {zero:,} of 0 bytes not shown" if zero else ""))
    left.set_ylabel("requests")
    left.set_title(f"{name}: request sizes")
    x = np.arange(1, len(live_bytes) + 1)
    right.plot(x, live_bytes / 1e6, color="#dd8452", label="live payload (MB)")
    right.set_xlabel("op")
    right.set_ylabel("live payload (MB)")
    twin = right.twinx()
    twin.plot(x, live_blocks, color="#55a868", linewidth=0.8, label="live blocks")
    twin.set_ylabel("live blocks")
    right.set_title(f"{name}: live payload and blocks")
    fig.tight_layout()
    out = Path(out)
    fig.savefig(out, dpi=90)
    plt.close(fig)
    return out

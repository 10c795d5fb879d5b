"""What the tests of tools/results*.py share: the tools on the path, and a made-up run to feed them."""
from __future__ import annotations

import sys

from variants_common import KIT

sys.path.insert(0, str(KIT / "tools"))
import results  # noqa: E402


def made_run(variant: str, utils: dict[str, float], kops: float, failed: int = 0) -> results.Run:
    """A run of VARIANT at 16-byte alignment: trace name -> utilization, every trace at KOPS
    against libc's 1,000."""
    traces = tuple(results.TraceResult(name=n, group="kit", outcome="ok", utilization=u, kops=kops,
                                       libc_kops=1000.0, stats={"mallocs": 10, "reallocs": 0})
                   for n, u in utils.items())
    return results.Run(variant=variant, alignment=16, traces=traces, utilization=sum(utils.values()) / len(utils),
                       kops=kops, libc_kops=1000.0, ratio=kops / 1000, perf_index=50.0, failed=failed)

"""Matplotlib helpers (Agg backend: files only, never a window)."""
from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from cycler import cycler  # noqa: E402

# Up to 20 distinct colours: a study can show 4 system allocators and 12 shims.
plt.rcParams["axes.prop_cycle"] = cycler(color=plt.cm.tab20.colors[0::2] + plt.cm.tab20.colors[1::2])


def figure(ncols: int = 1, width: float = 6.4, height: float = 4.2):
    fig, axes = plt.subplots(1, ncols, figsize=(width * ncols, height), squeeze=False)
    return fig, list(axes[0])


def save(fig, path: Path) -> Path:
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path

"""options.py - what the measurement scripts (results.py, results_seeds.py, compare.py)
check before any build: option values in the driver's own ranges and outputs that can be
written, each refused in one line ("Error: ...") rather than after minutes of measuring.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

import click

KIT = Path(__file__).resolve().parent.parent
sys.path.insert(1, str(KIT))

from grader.kitconfig import read_kit_config  # noqa: E402
from mmtrace.oneline import IntRange, NonEmptyPath  # noqa: E402

# mdriver's ranges: -T whole seconds up to a day (driver/options.c), -r up to MDRIVER_MAX_SAMPLES.
TIME_LIMIT = IntRange(1, 24 * 3600)
SAMPLES = IntRange(1, int(read_kit_config(KIT).get("MDRIVER_MAX_SAMPLES", 25)))


class OutputFile(NonEmptyPath):
    """NonEmptyPath of a file to write: a name ending in / names a folder, and is refused (click's
    Path would drop the slash and the file be written as `new` for `new/`)."""

    def __init__(self):
        super().__init__(dir_okay=False, path_type=Path)

    def convert(self, value, param, ctx):
        if isinstance(value, str) and value.endswith("/"):
            self.fail(f"{value}: names a folder (ends in /); name a file in it", param, ctx)
        if value == "-":            # had made a file named -
            self.fail("-: name a file (here - is not standard output, as it is for mdriver --json)", param, ctx)
        return super().convert(value, param, ctx)


def kit_path(given: Path | None, default: str) -> Path:
    """A path option's value: one given is the current folder's, as for any command; the default
    is DEFAULT in the kit, wherever the tool is run from."""
    return Path.cwd() / given if given is not None else KIT / default


def writable_folder(folder: Path) -> Path:
    """FOLDER, made if missing, where files can be written; else a one-line error."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except FileExistsError:         # mkdir's own word, "File exists", reads as if all were well
        raise click.ClickException(f"{folder}: cannot make the folder: it exists and is not a folder") from None
    except OSError as e:
        raise click.ClickException(f"{folder}: cannot make the folder ({e.strerror or e})") from None
    if not os.access(folder, os.W_OK | os.X_OK):
        raise click.ClickException(f"{folder}: cannot write there")
    return folder


def writable_file(path: Path) -> Path:
    """PATH, if a file can be written there (its folder made if missing); else a one-line error."""
    if path.is_dir():
        raise click.ClickException(f"{path}: cannot write: it is a folder")
    writable_folder(path.parent)
    return path

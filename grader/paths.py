"""Paths given on the command line: a symbolic link that leads nowhere, said in one line."""
from __future__ import annotations

import errno
import os
from pathlib import Path


def link_problem(path: Path) -> str:
    """Why PATH cannot be followed because of a symbolic link (its own, or a folder's on the way to
    it): a loop, or a link to nothing; '' otherwise (a plain missing path is the caller's to name).

    Path.resolve() raises RuntimeError on a loop (Python < 3.13), so check this first."""
    path = Path(path)
    for part in [*reversed(path.parents), path]:
        if not part.is_symlink():
            continue
        try:
            os.stat(part)
        except OSError as err:
            if err.errno == errno.ELOOP:
                problem = "a symbolic link loop"
            elif err.errno == errno.ENOENT:
                problem = f"a symbolic link whose target, {os.readlink(part)}, does not exist"
            else:
                continue
            return problem if part == path else f"under {part}, which is {problem}"
    return ""

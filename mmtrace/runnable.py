"""runnable.py - why a command could not be started, in words a user can act on.  The kernel's
errno alone called a folder and a script whose interpreter is a folder "permission denied", and
a dangling symbolic link "command not found"."""
from __future__ import annotations

import os
import shutil

from .regular import special_kind


def _on_path(name: str) -> str | None:
    """The file execvp would try for NAME: an executable one on PATH, else the first of that
    name there (which it then fails to run), else None."""
    found = shutil.which(name)
    if found:
        return found
    for folder in os.environ.get("PATH", os.defpath).split(os.pathsep):
        candidate = os.path.join(folder or ".", name)
        if os.path.lexists(candidate):
            return candidate
    return None


def _not_a_program(path: str) -> str | None:
    """What PATH is when no program can be run from it ("a folder"); None when it is an
    executable file."""
    if not os.path.exists(path):
        if os.path.islink(path):
            return f"a symbolic link to {os.readlink(path)}, which is not there"
        return "not there"
    if os.path.isdir(path):
        return "a folder"
    kind = special_kind(path)
    if kind:
        return kind
    if not os.access(path, os.X_OK):
        return "not executable (no x permission)"
    return None


def _first_line(path: str) -> bytes:
    try:
        with open(path, "rb") as f:
            return f.readline(200)
    except OSError:
        return b""


def _interpreter(path: str) -> tuple[str, str] | None:
    """A script's #! line and what is wrong with the interpreter it names, or None."""
    line = _first_line(path)
    if not line.startswith(b"#!"):
        return None
    shown = line.strip().decode("utf-8", "backslashreplace")
    words = line[2:].split()
    problem = _not_a_program(os.fsdecode(words[0])) if words else "not named"
    return (shown, problem) if problem else None


def cannot_run(name: str, err: OSError) -> str:
    """One line: why NAME (a command's first word) could not be started, ERR being what starting
    it raised."""
    if not name:
        return "an empty command name: name the program to run"
    path = name if "/" in name else _on_path(name)
    if path is None:
        return f"command not found: {name}"
    what = _not_a_program(path)
    if what == "not there":
        return f"command not found: {name}"
    shown = name if path == name else f"{name} ({path})"
    if what:
        fix = ("; chmod +x it, or name its interpreter first (sh FILE)" if "executable" in what
               else "" if "link" in what else ", not a program")
        return f"cannot run {shown}: it is {what}{fix}"
    script = _interpreter(path)
    if script:
        line, problem = script
        return f"cannot run {shown}: its interpreter ({line}) is {problem}"
    if _first_line(path).startswith(b"\x7fELF") and isinstance(err, FileNotFoundError):
        return f"cannot run {shown}: the program loader it names is not there (built for another system?)"
    return f"cannot run {shown}: {err.strerror or err}"

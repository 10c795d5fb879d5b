"""A class as Gradescope or Autolab downloads it: who each hand-in belongs to, and which are old.

Gradescope's "Export Submissions" of a programming assignment is a zip holding a folder
`submission_<id>/` per submission with the files uploaded, beside `submission_metadata.yml`:
YAML written from Ruby, so its keys are symbols (`:submitters:`, `:name:`), which a safe YAML
loader reads as plain strings starting with ':'.  Each folder maps to its `:submitters:` (several
for a group), each with `:name:`, `:sid:` and `:email:`.  Read so by otter-grader
(ucbds-infra/otter-grader, otter/grade/metadata.py, GradescopeParser, and its sample export
test/test-grade/gradescope-export/submission_metadata.yml) and by the CSSE220 rename tool
(cm090/gradescope-autograder, rename-tool/src/GradescopeRenameTool.java: `submission_<id>`).

Autolab's "Download All Submissions" (and "Download Final Submissions") is a zip of the hand-in
files named `<email>_<version>_<handin file>`: every version of every student, or only each one's
latest for "Final" (autolab/Autolab, app/controllers/submissions_controller.rb, download_all and
download_filename; app/models/submission.rb, handin_file_long_filename).
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from mmtrace.oneline import one_line

from .model import Versions

METADATA = "submission_metadata.yml"
METADATA_MAX = 64 << 20       # bytes; a big class's metadata, with each submission's autograder results
# An address with a dotted domain, then the version: a domain has no '_', so the split is unambiguous.
AUTOLAB = re.compile(r"(?P<email>[^@\s/]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+)_(?P<version>\d+)_(?P<file>.+)")
PERSON = (":name", ":sid", ":email")      # what a submitter is shown by, the first that is there


@dataclass
class Download:
    """What a class folder's download says beyond its file names."""
    labels: dict[str, str] = field(default_factory=dict)   # entry name -> who it is (submitters, email)
    left_out: set[str] = field(default_factory=set)        # entries not graded: older Autolab versions
    versions: dict[str, Versions] = field(default_factory=dict)   # Autolab entry graded -> its versions
    notes: list[str] = field(default_factory=list)         # one line each: 'warning: ...' or 'note: ...'


def read(root: Path, entries: list[Path], handin) -> Download:
    """ROOT's ENTRIES read as a download: names from Gradescope's metadata when ROOT holds it, and
    Autolab's versions of one student kept to the latest.  HANDIN(path) is true for an entry the
    grader reads as a hand-in."""
    out = Download()
    _autolab(entries, handin, out)
    if (root / METADATA).is_file():
        _gradescope(root / METADATA, [p for p in entries if handin(p) and p.name not in out.left_out], out)
    return out


def _autolab(entries: list[Path], handin, out: Download) -> None:
    """The latest version of each student's `<email>_<version>_<file>` hand-ins; the others left out."""
    by_student: dict[str, list[tuple[int, Path]]] = {}
    for path in entries:
        match = AUTOLAB.fullmatch(path.name)
        if match and not path.is_dir() and handin(path):
            by_student.setdefault(match["email"].lower(), []).append((int(match["version"]), path))
    for found in by_student.values():
        found.sort(key=lambda vp: vp[0])
        latest = found[-1][0]
        kept = [p for v, p in found if v == latest]
        older = [(v, p) for v, p in found if v != latest]
        versions = Versions(latest, tuple(v for v, _ in older))
        for path in kept:
            out.labels[path.name] = AUTOLAB.fullmatch(path.name)["email"]
            out.versions[path.name] = versions
        if older:
            out.left_out.update(p.name for _, p in older)
            out.notes.append(f"note: {_line(out.labels[kept[0].name])}: {versions.note(_line(kept[0].name))}")


def _gradescope(path: Path, entries: list[Path], out: Download) -> None:
    """Each submission folder named by its submitters; a metadata file that cannot be read is one
    warning, and the folders keep their names."""
    shown = _line(str(path))
    metadata, problem = _load(path)
    if problem:
        out.notes.append(f"warning: {shown}: cannot read Gradescope's metadata ({problem}); "
                         "the submissions keep their folder names")
        return
    names = {p.name for p in entries}
    for key, entry in metadata.items():
        folder = str(key)
        if folder not in names:
            if (path.parent / folder).exists():
                continue                # there, but no hand-in: the class reader names it
            who = display_name(_who(entry) or "no name")
            out.notes.append(f"warning: {shown} lists {_line(folder)} ({who}), which is not in the folder; not graded")
            continue
        who = _who(entry)
        if who:
            out.labels[folder] = who
        else:
            out.notes.append(f"warning: {shown}: {_line(folder)} has no submitter with a name, sid or email; "
                             f"graded as {_line(folder)}")
    for name in sorted(names - {str(k) for k in metadata}):
        out.notes.append(f"warning: {shown} does not name {_line(name)}; graded as {_line(name)}")


def _load(path: Path) -> tuple[dict, str]:
    """The metadata as a mapping, or why not, in one line."""
    try:
        import yaml
    except ImportError:
        return {}, "PyYAML is not installed; `make venv` installs it"
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC)
        with os.fdopen(fd, "rb") as handle:
            data = handle.read(METADATA_MAX + 1)
    except OSError as err:
        return {}, err.strerror or type(err).__name__
    if len(data) > METADATA_MAX:
        return {}, f"larger than {METADATA_MAX} bytes"
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)     # safe: plain data only, no Ruby objects
    try:
        metadata = yaml.load(data, Loader=loader)
    except yaml.MarkedYAMLError as err:
        mark = err.problem_mark or err.context_mark
        where = f"line {mark.line + 1}: " if mark else ""
        return {}, f"{where}{_line(err.problem or err.context or 'not YAML')}"
    except (yaml.YAMLError, ValueError, TypeError, RecursionError) as err:
        return {}, _line((str(err).splitlines() or [""])[0]) or type(err).__name__     # first line: the what
    if not isinstance(metadata, dict):
        return {}, "not a mapping of submission folders to their submitters"
    return metadata, ""


def _who(entry) -> str:
    """The submitters of one submission, each by name, else sid, else email; a group's joined."""
    submitters = entry.get(":submitters") if isinstance(entry, dict) else None
    if not isinstance(submitters, list):
        return ""
    people = []
    for person in submitters:
        if isinstance(person, dict):
            shown = next((str(person[k]).strip() for k in PERSON if _scalar(person.get(k))), "")
            if shown:
                people.append(shown)
    return ", ".join(people)


def display_name(label: str) -> str:
    """LABEL (who a hand-in is, as _who or Autolab's address says) as a reader sees it in the grades:
    'Alan Turing, Grace Hopper' on one line, each run of white space one space (a name typed over
    two lines), any other control character escaped."""
    return _line(" ".join(str(label).split()))


def _scalar(value) -> bool:
    return isinstance(value, (str, int)) and not isinstance(value, bool) and str(value).strip() != ""


def _line(text) -> str:
    """TEXT on one line as the grader shows names (a name read from YAML may hold a newline, or be a number)."""
    return one_line(str(text))

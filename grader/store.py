"""OUTDIR on disk: one file per submission, written atomically, and the batch files.

Each submission's record is written as soon as it is graded (write to a temporary
file, fsync, rename), so an interrupt loses nothing finished.  A rerun reuses a
record whose source, policy and kit hashes all match.
"""
from __future__ import annotations

import fcntl
import json
import os
import tempfile
import time
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any, Iterable, Iterator

import jsonschema

from mmtrace.regular import read_regular, special_fd_kind

from .model import Batch, Submission
from .paths import link_problem
from . import scoring
from .policy import Policy, PolicyError
from .scoring import sane, unfinished_left_out

SUBMISSIONS = "submissions"
FOLDERS = ("", SUBMISSIONS, "report", "report/img", "report/sub")     # outermost first
FILES = ("results.json", "grades.csv")
SCHEMA = Path(__file__).resolve().parent / "schemas" / "results.schema.json"


class OutputError(RuntimeError):
    """A path in OUTDIR that cannot be written; the message names it in one line."""


def check_layout(outdir: Path, names: Iterable[str] = ()) -> None:
    """Refuse, before anything is graded, an OUTDIR where a file stands in a folder's place or the
    reverse (the records of NAMES included): found at the end, it would stop the batch half-way."""
    outdir = Path(outdir)
    for folder in (outdir / rel for rel in FOLDERS):
        if folder.exists() and not folder.is_dir():
            raise OutputError(f"{folder}: not a folder, but the grader writes one there; move it away")
    for file in [outdir / name for name in FILES] + [record_path(outdir, name) for name in names]:
        if file.is_dir():
            raise OutputError(f"{file}: a folder, but the grader writes a file there; move it away")


def check_place(outdir: Path, submissions: Path) -> None:
    """Refuse an OUTDIR that is the submissions folder or inside a hand-in: a rerun would grade the
    grader's own output as students.  A new folder directly in SUBMISSIONS is fine (discovery skips it)."""
    for path, what in ((submissions, "the submissions folder"), (outdir, "the output folder")):
        if problem := link_problem(path):
            raise OutputError(f"{path}: {what} is {problem}")
    out, root = Path(outdir).resolve(), Path(submissions).resolve()
    if out == root:
        raise OutputError(f"{outdir}: the output folder is the submissions folder; choose another")
    if root in out.parents and (out.parent != root or not _holds_output(out)):
        raise OutputError(f"{outdir}: inside the hand-in {root / out.relative_to(root).parts[0]}; "
                          f"choose an output folder outside {submissions}")


def _holds_output(folder: Path) -> bool:
    """FOLDER is missing, empty or an earlier run's output: no student's hand-in."""
    return not folder.is_dir() or not any(folder.iterdir()) or holds_output(folder)


def holds_output(folder: Path) -> bool:
    """FOLDER is an earlier run's output (results.json, or records of an interrupted one)."""
    return (Path(folder) / "results.json").exists() or (Path(folder) / SUBMISSIONS).is_dir()


@contextmanager
def writing(path: Path) -> Iterator[None]:
    """Any OSError while writing PATH becomes one OutputError naming the path that failed."""
    try:
        yield
    except OSError as err:
        where = err.filename2 or err.filename or path      # os.replace names the target second
        raise OutputError(f"{where}: cannot write the grader's output there ({err.strerror or err})") from None


LOCK = ".mmgrade.lock"      # in OUTDIR/submissions: a hidden file there is no record and no hand-in


def _open_lock(path: Path, flags: int) -> int:
    """The lock file PATH opened with FLAGS, never waiting: a FIFO planted there had blocked
    `mmgrade report` in open() for ever, and `mmgrade grade` ended in a traceback (Illegal seek);
    a FIFO, a device or a socket is refused in one line."""
    fd = os.open(path, flags | os.O_NONBLOCK | os.O_CLOEXEC, 0o666)
    if kind := special_fd_kind(fd):
        os.close(fd)
        raise OutputError(f"{path}: {kind}, not the grader's lock file; move it away")
    return fd


class Claim:
    """OUTDIR held by this run (exclusive()): EARLIER is what a run killed while grading there left
    in the lock, or None; begin() says, in the lock, that this run now grades there."""

    def __init__(self, path: Path, fd: int, earlier: str | None):
        self.path, self.fd, self.earlier, self.begun = path, fd, earlier, False

    def begin(self) -> None:
        started = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime())
        with writing(self.path):
            os.ftruncate(self.fd, 0)
            os.pwrite(self.fd, f"pid {os.getpid()}, started {started}\n".encode(), 0)
        self.begun = True


@contextmanager
def exclusive(outdir: Path) -> Iterator[Claim]:
    """OUTDIR to this process alone, from before its setup to the end of its grading: a second run
    there would time its drivers beside ours and overwrite our records, and should learn so before
    it spends its setup.  flock is released by the kernel, kill -9 included.  A run that never
    begin()s (its setup failed or was stopped) leaves the folder as it found it: what a killed run
    wrote stays for the next, and the folders it made for the lock are removed."""
    outdir = Path(outdir)
    path = outdir / SUBMISSIONS / LOCK
    made = [p for p in (outdir, outdir / SUBMISSIONS, path) if not os.path.lexists(p)]
    with writing(path):
        fd = _locked(path)
    try:
        earlier = os.pread(fd, 200, 0).decode(errors="replace").strip() or None
        claim = Claim(path, fd, earlier)
        try:
            yield claim
        finally:
            if claim.begun:
                os.ftruncate(fd, 0)
            else:
                _unmake(made)
    finally:
        os.close(fd)


def _locked(path: Path) -> int:
    """PATH, created if need be, opened and locked; _busy when another run holds it.  The file we
    lock must still be the one at PATH: a run that gave up the folder may have removed it (_unmake)
    between our open and our lock."""
    for _ in range(10):
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            fd = _open_lock(path, os.O_RDWR | os.O_CREAT)
        except FileNotFoundError:       # its folder removed under us: make it again
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise _busy(path.parent.parent) from None
        try:
            same = os.path.samestat(os.fstat(fd), os.stat(path))
        except FileNotFoundError:
            same = False
        if same:
            return fd
        os.close(fd)
    raise OSError(f"{path}: the lock file keeps being removed")


def _unmake(made: list[Path]) -> None:
    """Remove what exclusive() made, innermost first, the lock file while it is still held (so no
    run locks it after us and believes it holds the folder); a folder another run has since put
    something in stays."""
    for path in reversed(made):
        try:
            path.unlink() if path.name == LOCK else path.rmdir()
        except OSError:
            return


def _busy(outdir: Path) -> OutputError:
    return OutputError(f"{outdir}: another mmgrade run is grading into this folder; wait for it "
                       "to finish or choose another output folder")


def _locked_by_another(outdir: Path) -> bool | None:
    """Whether a live run holds OUTDIR's lock; None when there is no lock file to ask."""
    try:
        fd = _open_lock(Path(outdir) / SUBMISSIONS / LOCK, os.O_RDONLY)
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        return False
    except BlockingIOError:
        return True
    finally:
        os.close(fd)


def grading_now(outdir: Path) -> bool:
    """Whether a live run holds OUTDIR's lock (it writes results.json when it finishes)."""
    return _locked_by_another(outdir) is True


def unfinished(outdir: Path) -> str | None:
    """What `mmgrade report` should say of OUTDIR's last grading run: one grading now, one that
    was killed before it finished (results.json is then older than it), or None."""
    busy = _locked_by_another(outdir)
    if busy is None:
        return None
    if busy:
        return "a run is grading into this folder now: results.json is the one before it"
    try:
        who = (Path(outdir) / SUBMISSIONS / LOCK).read_text(errors="replace").strip()
    except OSError:
        return None
    return (f"a run ({who[:200]}) was killed before it finished: results.json and the report are from "
            "before it; `mmgrade grade` again finishes the class") if who else None


def _umask() -> int:
    """The process's umask, read without changing it (os.umask sets it, racing other threads)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def write_atomic(path: Path, text: str) -> None:
    """PATH holds TEXT whole or not at all, with the mode open() would give it (0666 less the
    umask): mkstemp's 0600 kept the pages from a web server and grades.csv from the TAs."""
    with writing(path):
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        try:
            os.fchmod(fd, 0o666 & ~_umask())
            # an older record may hold a non-UTF-8 file name (surrogates): escaped, never a crash
            with os.fdopen(fd, "w", encoding="utf-8", errors="backslashreplace") as handle:
                handle.write(text)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise


def write_json(path: Path, data: Any) -> None:
    write_atomic(path, json.dumps(data, indent=1, sort_keys=False) + "\n")


def record_path(outdir: Path, name: str) -> Path:
    return Path(outdir) / SUBMISSIONS / f"{name}.json"


def save(outdir: Path, sub: Submission) -> None:
    write_json(record_path(outdir, sub.name), sub.to_json())


def load(outdir: Path, name: str) -> Submission | None:
    """The stored record of NAME, or None if absent or unreadable (then it is regraded): a FIFO or a
    device there is not read, as it would be waited on or read for ever."""
    try:
        return Submission.from_json(json.loads(read_regular(record_path(outdir, name)).decode("utf-8")))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def load_all(outdir: Path) -> list[Submission]:
    folder = Path(outdir) / SUBMISSIONS
    subs = [load(outdir, p.stem) for p in sorted(folder.glob("*.json"))] if folder.is_dir() else []
    return [s for s in subs if s is not None]


def reusable(old: Submission | None, sha256: str | None, policy_digest: str, kit_digest: str,
             protections: Iterable[str] = ()) -> bool:
    """Whether OLD stands for this run: the same file, policy and kit, graded under at least this
    run's PROTECTIONS (a record of an --unsafe run is not reused by a sandboxed one)."""
    return (old is not None and sha256 is not None and old.sha256 == sha256
            and old.policy_digest == policy_digest and old.kit_digest == kit_digest
            and set(protections) <= set(old.protections)
            and old.verdict != "grader_error" and sane(old.summary)   # an older grader kept inf
            and not unfinished_left_out(old))       # ... or left a stopped run's unfinished traces out of U


def read_results(outdir: Path) -> Batch:
    """OUTDIR/results.json as a Batch, its points as this grader computes them (rescored)."""
    return rescored(_read_stored(outdir)[1])


RESCORED = ("summary", "traces", "runs")        # what scoring.rescored may change in a record


def rescore_results(outdir: Path, rewrite: bool = True) -> tuple[Batch, int]:
    """read_results, and OUTDIR/results.json rewritten (atomically) when some of its records' points
    are not the ones this grader computes, so that it says what grades.csv and the report built from
    it say; with how many records were rewritten.  Only the rescored fields of those records change:
    everything else (created, the policy, a record's other fields) is kept as it was.
    Without REWRITE (a run is grading there now, and writes results.json itself) it is left alone."""
    data, stored = _read_stored(outdir)
    batch = rescored(stored)
    changed = 0
    for raw, old, new in zip(data["submissions"], stored.submissions, batch.submissions):
        fresh = {key: value for key, value in new.to_json().items() if key in RESCORED}
        if json.dumps(fresh) != json.dumps({key: value for key, value in old.to_json().items() if key in RESCORED}):
            raw.update(fresh)
            changed += 1
    if changed and rewrite:
        write_json(Path(outdir) / "results.json", data)
    return batch, changed


def _read_stored(outdir: Path) -> tuple[dict[str, Any], Batch]:
    """OUTDIR/results.json as it is stored, as JSON and as a Batch, checked against its schema first: a
    wrongly typed field (points = "abc") is an OutputError naming the field, not a traceback while rendering."""
    path = Path(outdir) / "results.json"
    try:
        data = json.loads(read_regular(path).decode("utf-8"))
    except IsADirectoryError:       # `mmgrade grade` would refuse the folder too (check_layout)
        raise OutputError(f"{path}: a folder, but the grader writes a file there; move it away") from None
    except OSError as err:
        raise OutputError(f"{path}: cannot read it ({err.strerror}); run `mmgrade grade` first") from None
    except ValueError as err:
        raise OutputError(f"{path}: not a grader results file ({err})") from None
    error = jsonschema.exceptions.best_match(
        jsonschema.Draft202012Validator(json.loads(SCHEMA.read_text())).iter_errors(data))
    if error is not None:
        where = "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in error.absolute_path)
        raise OutputError(f"{path}: {where.lstrip('.') or 'the document'}: {error.message[:200]}")
    try:
        batch = Batch.from_json(data)
    except (ValueError, KeyError, TypeError) as err:
        raise OutputError(f"{path}: not a grader results file ({err})") from None
    return data, batch


def rescored(batch: Batch) -> Batch:
    """BATCH with every record's points as this grader computes them (scoring.rescored), so that the
    report and grades.csv rebuilt from an older grader's results.json agree with a regrade's.  Only
    under the very policy it was graded with: one this grader reads otherwise keeps its stored figures."""
    try:
        policy = Policy.from_json(batch.policy)
    except (PolicyError, TypeError):     # a section that is no table (the schema asks only for its name)
        return batch
    if policy.digest() != batch.policy_digest:
        return batch
    return replace(batch, submissions=tuple(scoring.rescored(s, policy) for s in batch.submissions))

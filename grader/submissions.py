"""Find a class's submissions and read each one's mm.c, refusing bad input plainly.

A SUBMISSIONS path is a folder of per-student folders (each holding one mm.c at any
depth, or one archive), of NAME.c or NAME-mm.c files, or of NAME.zip /
NAME.tar[.gz|.bz2|.xz] / NAME.tgz archives (or one such file).  A folder reads as an
archive does, so that unpacking a hand-in never changes its verdict.  Reading is
deferred until grading, so a submission that vanishes mid-run gets its own verdict.
Every refusal is a SubmissionError whose message is one line naming the submission.
"""
from __future__ import annotations

import bz2
import gzip
import hashlib
import lzma
import os
import re
import stat
import tarfile
import unicodedata
import zipfile
import zlib
from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath
from typing import NoReturn

from mmtrace.oneline import one_line

from . import downloads
from .model import Versions
from .paths import link_problem

ARCHIVES = (".zip", ".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tar.xz")
MAX_MEMBERS = 10_000          # an archive with more entries is refused unread
MAX_DEPTH = 100               # folders a hand-in may nest: os.walk recurses, and 1000 was a RecursionError
MAX_RATIO = 200               # compressed-to-uncompressed ratio past which a member is a bomb
MAX_TOTAL = 64 << 20          # bytes an archive may unpack to in all; more is refused unread
MAX_ARCHIVE = 16 << 20        # bytes an archive file may have at all
TAR_OVERHEAD = MAX_MEMBERS * 2048   # a tar's headers and padding past its members' bytes (4 blocks each)
FORMS = "NAME/ holding mm.c, NAME.c, NAME-mm.c, NAME.zip, NAME.tar, NAME.tar.gz, NAME.tgz, NAME.tar.bz2 or NAME.tar.xz"
ZIP_METHODS = (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA)  # what zipfile reads
ZIP_AES = 99                  # WinZip's AES encryption, written as a compression method
SHOWN = 120                   # characters of an archive's member name or error a reason shows
NAME_BYTES = 200              # a safe name's UTF-8 bytes: 255 less the suffixes and temp affixes around it
LITTER = frozenset({"__MACOSX", "Thumbs.db", "desktop.ini"})    # what zip tools and file browsers leave
# What zipfile and tarfile raise on a damaged archive.  Beyond their own errors, zipfile raises
# NotImplementedError for a version or feature it lacks, UnicodeDecodeError for a name flagged UTF-8
# that is not, IndexError for an empty name: each had stopped the whole class with a traceback.
UNREADABLE = (zipfile.BadZipFile, tarfile.TarError, EOFError, OSError, zlib.error, lzma.LZMAError,
              NotImplementedError, UnicodeDecodeError, IndexError)


class SubmissionError(ValueError):
    """A submission that cannot be graded; the message says why in one line."""


@dataclass(frozen=True)
class Candidate:
    name: str                 # safe in a file name, unique in the batch
    origin: Path              # the hand-in as the instructor sees it: its real name
    kind: str                 # folder, file, archive
    problem: str = ""         # set when discovery already knows it is unusable
    reference: bool = False   # a kit variant graded alongside the class, for comparison
    handin: str = ""          # the hand-in's own name (folder, or file without -mm.c/.c/archive suffix)
    label: str = ""           # who it is, when the class's download says (grader/downloads.py); else handin
    versions: Versions | None = None    # an Autolab hand-in's version and the older ones left out


def _safe_name(raw: str) -> str:
    """RAW as a file name: letters and digits of every script kept (NFC, as macOS's NFD names
    would otherwise lose their accents), anything else '_'; short enough in UTF-8 bytes for the
    longest file made of it (255 bytes at most), e.g. '.NAME-hash~N.json.XXXXXXXX.tmp'."""
    name = re.sub(r"[^\w.-]", "_", unicodedata.normalize("NFC", raw)).strip("._") or "submission"
    return name[:80].encode()[:NAME_BYTES].decode("utf-8", "ignore")


def readable(name: str) -> str:
    """NAME as text that can be written anywhere: bytes of a file name that are not UTF-8 (a Latin-1
    name from an LMS download, held as surrogates by Python) shown escaped, as 'jos\\xe9.c'."""
    return os.fsencode(name).decode("utf-8", "backslashreplace")


def _distinct_names(labels: dict[str, str]) -> dict[str, str]:
    """A safe name per hand-in, from its label (its own name, or who it is).  Two different
    hand-ins that come out the same ('sp ace' and 'sp_ace', two students named Wei Zhang, two
    groups of the same people) get a short hash of the hand-in's real name appended, not a shared
    refusal; a label that needed no change, and no other hand-in has, keeps it.  Names that differ
    in case only count as the same: they would be one file on macOS or Windows."""
    safe = {raw: _safe_name(label) for raw, label in labels.items()}
    taken = Counter(name.casefold() for name in safe.values())
    unchanged = Counter(label.casefold() for raw, label in labels.items() if label == safe[raw])
    names = {raw: name if taken[name.casefold()] == 1 or (labels[raw] == name and unchanged[name.casefold()] == 1)
             else f"{name}-{_tag(raw)}" for raw, name in safe.items()}
    # A name with its tag may be another hand-in's own: 'a_b-c8687a' handed in beside 'a b' and 'a_b'
    # shared one record, and one of them was lost.  Longer tags for those until every name is one's.
    for width in range(12, 65, 6):
        count = Counter(name.casefold() for name in names.values())
        clash = [raw for raw, name in names.items() if count[name.casefold()] > 1]
        if not clash:
            break
        names.update({raw: f"{safe[raw]}-{_tag(raw, width)}" for raw in clash})
    return names


def _tag(raw: str, width: int = 6) -> str:
    return hashlib.sha256(os.fsencode(raw)).hexdigest()[:width]      # the real bytes: jos\xe9 and jos\xe8 differ


def _archive_stem(path: Path) -> str | None:
    lower = path.name.lower()
    for ext in sorted(ARCHIVES, key=len, reverse=True):
        if lower.endswith(ext):
            return path.name[: -len(ext)]
    return None


def _litter(path: Path) -> bool:
    return path.name.startswith(".") or path.name in LITTER


def _classify(path: Path) -> Candidate | None:
    if _litter(path):
        return None
    if path.is_dir():
        return Candidate(_safe_name(path.name), path, "folder", handin=path.name)
    stem = _archive_stem(path)
    if stem is not None:
        return Candidate(_safe_name(stem), path, "archive", handin=stem)
    if path.suffix == ".c":
        stem = path.stem[:-3] if path.stem.endswith("-mm") else path.stem
        return Candidate(_safe_name(stem), path, "file", handin=stem)
    return None


def unrecognised(root: Path) -> list[Path]:
    """The entries of a class folder that are no hand-in the grader reads (hidden files and
    OS litter aside): each is a student the instructor must hear about."""
    root = Path(root)
    if not root.is_dir():
        return []
    return [p for p in sorted(root.iterdir())
            if not _litter(p) and _classify(p) is None and p.name != downloads.METADATA]


def discover(root: Path, notes: list[str] | None = None) -> list[Candidate]:
    """Every submission under ROOT, sorted by name; duplicates marked as such.  A class folder
    downloaded from Gradescope or Autolab is read as such (grader/downloads.py): its lines for
    the instructor ('warning: ...', 'note: ...') go to NOTES."""
    root = Path(root)
    if not root.exists():
        raise SubmissionError(f"{root}: {link_problem(root) or 'no such file or folder'}")
    if not root.is_dir():
        found = [c for c in [_classify(root)] if c]
        if not found:
            raise SubmissionError(f"{root}: not a .c file, a folder or an archive")
    else:
        entries = sorted(root.iterdir())
        download = downloads.read(root, entries, lambda p: _classify(p) is not None)
        found = [replace(c, label=download.labels.get(c.origin.name, ""),
                         versions=download.versions.get(c.origin.name))
                 for c in (_classify(p) for p in entries if p.name not in download.left_out) if c]
        if notes is not None:
            notes.extend(download.notes)
    by_handin: dict[str, list[Candidate]] = {}
    for cand in found:
        by_handin.setdefault(cand.handin, []).append(cand)
    names = _distinct_names({handin: group[0].label or handin for handin, group in by_handin.items()})
    out: list[Candidate] = []
    for handin, group in by_handin.items():
        name = names[handin]
        if len(group) == 1:
            out.append(replace(group[0], name=name))
            continue
        where = ", ".join(one_line(c.origin.name) for c in group)
        for index, cand in enumerate(group, 1):
            problem = f"two or more submissions are named {one_line(handin)} ({where}); rename all but one"
            out.append(replace(cand, name=f"{name}~{index}", problem=problem))
    return sorted(out, key=lambda c: c.name)


def one_handin(path: Path) -> Candidate:
    """PATH as one student's hand-in, read as `mmgrade grade` reads it in a class folder: a folder
    is one student's (not a class of one: kate/handin/mm.c is kate's mm.c there, so it is here),
    a file is NAME.c, NAME-mm.c or an archive."""
    path = Path(path)
    _refuse_mm_c_folder(path)
    if not path.is_dir():
        found = discover(path)
        if len(found) != 1:
            raise SubmissionError(f"{path}: expected one submission, found {len(found)}")
        return found[0]
    folder = path.resolve()           # '.' or 'kate/..' named as the folder they are
    return Candidate(_safe_name(folder.name), folder, "folder", handin=folder.name)


def _refuse_mm_c_folder(path: Path) -> None:
    """Refuse PATH named mm.c that is a folder: read as a whole hand-in it would be graded as
    student 'mm' (or be 'mm.c/mm.c: missing'), where the student meant a file (find_one's wording)."""
    if path.name == "mm.c" and path.is_dir():
        what = "a symbolic link" if path.is_symlink() else "a folder"
        raise SubmissionError(f"{one_line(str(path))}: {what}, not a file")


def _walk(folder: Path, label: str) -> tuple[list[PurePosixPath], list[PurePosixPath]]:
    """The files and the folders under FOLDER at any depth, relative to it, sorted; hidden entries and OS litter
    skipped, and links to folders not followed (what they lead to is not the hand-in's).  A link
    to a file is listed, for the reader to refuse as one.  Folders nested past MAX_DEPTH are
    refused, naming FOLDER by LABEL, and so is a folder in it that cannot be read (os.walk would
    skip it, and a second mm.c in it with it)."""
    def unreadable(err: OSError) -> NoReturn:
        where = PurePosixPath(Path(err.filename).relative_to(folder).as_posix())
        shown = label if where == PurePosixPath(".") else f"{label}/{_cut(one_line(str(where)))}"
        raise SubmissionError(f"{shown}: cannot read the folder ({err.strerror}); refusing: a file in it "
                              "would not be seen")
    out: list[PurePosixPath] = []
    folders: list[PurePosixPath] = []
    for top, dirs, names in os.walk(folder, onerror=unreadable):
        dirs[:] = [d for d in dirs if not _litter(Path(d)) and not os.path.islink(os.path.join(top, d))]
        base = PurePosixPath(Path(top).relative_to(folder).as_posix())
        if dirs and len(base.parts) >= MAX_DEPTH:
            raise SubmissionError(f"{label}: the folder nests folders more than {MAX_DEPTH} deep; refusing")
        out.extend(base / n for n in names if not _litter(Path(n)))
        folders.extend(base / d for d in dirs)
        if len(out) > MAX_MEMBERS:      # as an archive of so many is: a second mm.c may lie past them
            raise SubmissionError(f"{label}: the folder holds more than {MAX_MEMBERS} files; refusing")
    return sorted(out), sorted(folders)


def _folder_mm_c(folder: Path, label: str, files: list[PurePosixPath]) -> str | None:
    """The one mm.c among FILES (FOLDER's, from _walk), as _pick finds it in an archive: mm.c beside
    old/mm.c is refused, as it is in the folder's archive.  A top-level mm.c that is no file (a
    folder, a link to one) counts, for the reader to refuse as what it is."""
    names = [str(p) for p in files]
    if _present(folder / "mm.c") and "mm.c" not in names:
        names.insert(0, "mm.c")
    return _pick(names, label, "the folder")


def find_one(folder: Path) -> Path:
    """The one hand-in in FOLDER (Gradescope's submission folder, at any depth): the only mm.c
    (several refused), else the only .c file or archive of the forms the class reader knows."""
    folder = Path(folder)
    label = one_line(str(folder))
    files, folders = _walk(folder, label)
    chosen = _folder_mm_c(folder, label, files)
    if chosen is not None:
        _refuse_mm_c_folder(folder / chosen)
        return folder / chosen
    found = [p for p in files if p.suffix == ".c" or _archive_stem(Path(p.name)) is not None]
    if len(found) != 1:
        _refuse_mm_c_folders(label, folders)
        shown = f": {_several([str(p) for p in found])}" if found else ""
        raise SubmissionError(f"{label}: expected mm.c (found {len(found)} candidate files{shown})")
    return folder / found[0]


def whole_class(path: Path) -> tuple[list[str], PurePosixPath, str] | None:
    """When the archive PATH is a whole class, not one hand-in: what it holds (shown one by one),
    the folder that holds them, and what they are.  A class is several folders each with an mm.c
    (alice/mm.c, bob/handin/mm.c, under one common folder or none), Gradescope's export (folders
    beside its submission_metadata.yml) or Autolab's download (several <email>_<version>_FILE
    hand-ins in one folder).  None for one student's archive (nina/mm.c and nina/old/mm.c are one
    hand-in with two mm.c), or one that cannot be listed: reading it as a hand-in says why."""
    try:
        with _open_regular(Path(path), str(path)) as raw:
            if path.name.lower().endswith(".zip"):
                with zipfile.ZipFile(raw) as archive:
                    names = [i.filename for i in archive.infolist()[:MAX_MEMBERS] if not i.is_dir()]
            else:
                with _open_tar(raw, str(path), None) as archive:     # a class may unpack to more than a hand-in
                    names = [m.name for _, m in zip(range(MAX_MEMBERS), archive) if not m.isdir()]
    except (SubmissionError, *UNREADABLE):
        return None
    paths = [_member_path(n) for n in names if not _litter_in(n)]     # as reading it skips them
    return _exported_class(paths) or _folders_class(paths)


def _exported_class(paths: list[PurePosixPath]) -> tuple[list[str], PurePosixPath, str] | None:
    """PATHS as Gradescope's export or Autolab's download (grader/downloads.py), if they are one."""
    metadata = [p for p in paths if p.name == downloads.METADATA]
    if len(metadata) == 1:
        inner = metadata[0].parent
        depth = len(inner.parts)
        folders = sorted({p.parts[depth] for p in paths if len(p.parts) > depth + 1 and p.parts[:depth] == inner.parts})
        if folders:
            return [f"{f}/" for f in folders], inner, "submission folders of a Gradescope export"
    autolab = [p for p in paths if (m := downloads.AUTOLAB.fullmatch(p.name))
               and (m["file"].endswith(".c") or _archive_stem(PurePosixPath(m["file"])) is not None)]
    if len(autolab) > 1 and len({p.parent for p in autolab}) == 1:
        emails = sorted({downloads.AUTOLAB.fullmatch(p.name)["email"].lower() for p in autolab})
        return emails, autolab[0].parent, "students' hand-ins of an Autolab download"
    return None


def _folders_class(paths: list[PurePosixPath]) -> tuple[list[str], PurePosixPath, str] | None:
    folders = [p.parts[:-1] for p in paths if p.name == "mm.c"]
    common = os.path.commonprefix(folders) if folders else ()
    below = [f[len(common):] for f in folders]
    students = sorted({f[0] for f in below if f})
    if len(students) < 2 or not all(below):
        return None
    return [f"{s}/" for s in students], PurePosixPath(*common), "folders each with an mm.c"


def _check_source(data: bytes, label: str, limit: int) -> str:
    if len(data) > limit:           # only LIMIT + 1 bytes were read: the file's size is not known
        raise SubmissionError(f"{label}: larger than the {limit}-byte limit (build.source_max_bytes)")
    if not data.strip():
        raise SubmissionError(f"{label}: the file is empty")
    if b"\0" in data:
        raise SubmissionError(f"{label}: binary data (NUL bytes), not C source")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data.count(b"\n", 0, err.start) + 1         # the student's editor shows lines, not offsets
        column = err.start - (data.rfind(b"\n", 0, err.start) + 1) + 1
        raise SubmissionError(f"{label}:{line}:{column}: not UTF-8 text (byte 0x{data[err.start]:02x} at offset "
                              f"{err.start}); save it as UTF-8") from None


def _open_regular(path: Path, label: str):
    """PATH opened for reading if it is a regular file; a FIFO, device or socket is refused
    without blocking (opening a FIFO waits for a writer that never comes)."""
    if path.is_symlink():
        raise SubmissionError(f"{label}: a symbolic link, not a file")
    if stat.S_ISSOCK(os.lstat(path).st_mode):     # no open() of a socket succeeds (ENXIO)
        _refuse_special(stat.S_IFSOCK, label)
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC)
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        _refuse_special(mode, label)
    return os.fdopen(fd, "rb")


def _refuse_special(mode: int, label: str) -> NoReturn:
    if stat.S_ISDIR(mode):
        raise IsADirectoryError
    kind = "a FIFO" if stat.S_ISFIFO(mode) else "a socket" if stat.S_ISSOCK(mode) else "a device"
    raise SubmissionError(f"{label}: {kind}, not a regular file")


def _read_file(path: Path, label: str, limit: int) -> bytes:
    try:
        with _open_regular(path, label) as handle:
            return handle.read(limit + 1)
    except FileNotFoundError:
        raise SubmissionError(f"{label}: missing (no such file; did the submission vanish?)") from None
    except IsADirectoryError:
        raise SubmissionError(f"{label}: a folder, not a file") from None
    except OSError as err:
        raise SubmissionError(f"{label}: cannot read it ({err.strerror})") from None


def _member_path(name: str) -> PurePosixPath:
    """An archive member's path; Windows tools (PowerShell 5's Compress-Archive) write 'handin\\mm.c'."""
    return PurePosixPath(name.replace("\\", "/"))


def _check_member_path(name: str, label: str) -> PurePosixPath:
    if not name:
        raise SubmissionError(f"{label}: an entry with an empty name in the archive (a damaged archive)")
    path = _member_path(name)
    if path.is_absolute() or ".." in path.parts or re.match(r"^[A-Za-z]:", name):
        raise SubmissionError(f"{label}: unsafe path {_cut(repr(name))} in the archive (absolute or '..')")
    return path


def _litter_in(name: str) -> bool:
    """NAME (an archive's member) lies in or is a hidden entry or OS litter, which a folder skips
    (_walk): an archive's .old/mm.c or __MACOSX/h/mm.c unpacked is no part of the folder's hand-in."""
    return any(_litter(Path(part)) for part in _member_path(name).parts)


def _pick(names: list[str], label: str, where: str = "the archive") -> str | None:
    """The one member called mm.c among the file members NAMES (of an archive, or of a folder at any
    depth), hidden ones and litter aside, as a folder skips them; several are refused naming them.
    None when there is none."""
    wanted = _named_mm_c(names)
    if len(wanted) > 1:             # a tar may hold one path twice (tar -r): neither is the hand-in
        raise SubmissionError(f"{label}: several mm.c files in {where} ({_several(wanted)})")
    return wanted[0] if wanted else None


def _named_mm_c(names: list[str]) -> list[str]:
    """The NAMES called mm.c, hidden ones and litter aside."""
    return [n for n in names if _member_path(n).name == "mm.c" and not _litter_in(n)]


def _several(names: list[str]) -> str:
    """The first three of NAMES as a reason lists them, each named once with how often it occurs."""
    return ", ".join(_cut(one_line(w)) + {1: "", 2: " twice"}.get(n, f" {n} times")
                     for w, n in list(Counter(names).items())[:3])


def _pick_member(names: list[str], label: str, folders: list[str]) -> str:
    """_pick in an archive: none is refused naming what it holds (empty, or a zip inside the zip),
    as a folder without mm.c is, or as a folder when FOLDERS has one (or more) called mm.c."""
    chosen = _pick(names, label)
    named = _named_mm_c([n.rstrip("/\\") for n in folders]) if chosen is None else []
    if len(named) == 1:
        raise SubmissionError(f"{label}: {_cut(one_line(named[0]))} in the archive is a folder, not a file")
    if named:
        raise SubmissionError(f"{label}: no file mm.c in the archive, but folders named mm.c ({_several(named)})")
    if chosen is None:
        raise SubmissionError(f"{label}: no mm.c in the archive ({_listing([readable(n) for n in names])})")
    return chosen


def _read_zip(raw, label: str, limit: int) -> bytes:
    with zipfile.ZipFile(raw) as archive:
        infos = archive.infolist()
        if len(infos) > MAX_MEMBERS or sum(i.file_size for i in infos) > MAX_TOTAL:
            raise SubmissionError(f"{label}: the archive unpacks to more than {MAX_MEMBERS} entries "
                                  f"or {MAX_TOTAL} bytes; refusing")
        for info in infos:
            _check_member_path(info.filename, label)
        chosen = archive.getinfo(_pick_member([i.filename for i in infos if not i.is_dir()], label,
                                              [i.filename for i in infos if i.is_dir()]))
        if stat.S_ISLNK(chosen.external_attr >> 16):      # unzip would make it a link, not a file
            raise SubmissionError(f"{label}: mm.c in the archive is a symbolic link, not a regular file")
        _check_zip_method(chosen, label)
        if chosen.file_size > limit or chosen.file_size > MAX_RATIO * max(chosen.compress_size, 1) + 4096:
            raise SubmissionError(f"{label}: mm.c in the archive claims {chosen.file_size} bytes; refusing")
        with archive.open(chosen) as handle:
            return handle.read(limit + 1)


def _check_zip_method(info: zipfile.ZipInfo, label: str) -> None:
    """Refuse what zipfile could only fail on mid-read (RuntimeError, NotImplementedError)."""
    if info.flag_bits & 0x1 or info.compress_type == ZIP_AES:
        raise SubmissionError(f"{label}: mm.c is encrypted (password-protected zip)")
    if info.compress_type not in ZIP_METHODS:
        method = zipfile.compressor_names.get(info.compress_type, "an unknown method")
        raise SubmissionError(f"{label}: mm.c is compressed with {method} (zip method {info.compress_type}), "
                              "which the grader cannot read; zip it again with plain deflate")


def _tar_kind(member: tarfile.TarInfo) -> str:
    if member.issym():
        return "a symbolic link"
    if member.islnk():
        return "a hard link"
    return "a FIFO" if member.isfifo() else "a device"


class _CappedTar:
    """A tar's unpacked stream that refuses a read of more than MAX_TOTAL bytes at once and, given
    CAP, to be read or sought past CAP bytes.  tarfile reads a long name's or pax header's data
    whole, at the size its header claims: a 2 KB .tar claiming 1 TB was a MemoryError that stopped
    the class, and a 1 MB .tar.gz held 3 GB of the grader's."""

    def __init__(self, stream, label: str, cap: int | None):
        self.stream, self.label, self.cap = stream, label, cap

    def _check(self, end: int, size: int = 0) -> None:
        if self.cap is not None and end > self.cap:
            raise SubmissionError(f"{self.label}: the archive unpacks to more than {self.cap} bytes "
                                  "(its headers included); refusing")
        if size > MAX_TOTAL:
            raise SubmissionError(f"{self.label}: an entry of the archive claims {size} bytes; refusing")

    def read(self, size: int = -1) -> bytes:
        if size is None or size < 0:
            size = MAX_TOTAL + 1 if self.cap is None else self.cap + 1 - self.stream.tell()
        self._check(self.stream.tell() + size, size)
        return self.stream.read(size)

    def seek(self, offset: int, whence: int = os.SEEK_SET) -> int:
        if whence == os.SEEK_CUR:
            offset += self.stream.tell()
        elif whence == os.SEEK_END:     # tarfile never asks; the end is not known without reading
            raise OSError("cannot seek from the end of a compressed tar")
        self._check(offset)
        return self.stream.seek(offset)

    def tell(self) -> int:
        return self.stream.tell()


def _open_tar(raw, label: str, cap: int | None) -> tarfile.TarFile:
    """RAW (a tar, plain or compressed with gzip, bzip2 or xz) open for reading, its unpacked stream
    capped (_CappedTar)."""
    magic = raw.read(6)
    raw.seek(0)
    stream = (gzip.GzipFile(fileobj=raw, mode="rb") if magic.startswith(b"\x1f\x8b")
              else bz2.BZ2File(raw) if magic.startswith(b"BZh")
              else lzma.LZMAFile(raw) if magic.startswith(b"\xfd7zXZ\x00") else raw)
    try:
        return tarfile.open(fileobj=_CappedTar(stream, label, cap), mode="r:")
    except tarfile.ReadError:       # no tar header at the start, whatever the compression
        raise SubmissionError(f"{label}: not a readable archive (not a tar file, plain or compressed "
                              "with gzip, bzip2 or xz)") from None


def _read_tar(raw, label: str, limit: int) -> bytes:
    archive = _open_tar(raw, label, MAX_TOTAL + TAR_OVERHEAD)
    with archive:
        members = []
        total = 0
        for count, member in enumerate(archive, 1):
            total += max(member.size, 0)
            if count > MAX_MEMBERS or total > MAX_TOTAL:
                raise SubmissionError(f"{label}: the archive unpacks to more than {MAX_MEMBERS} entries "
                                      f"or {MAX_TOTAL} bytes; refusing")
            _check_member_path(member.name, label)
            members.append(member)
        files = [m for m in members if not m.isdir()]
        name = _pick_member([m.name for m in files], label, [m.name for m in members if m.isdir()])
        chosen = next(m for m in files if m.name == name)
        if not chosen.isfile():
            raise SubmissionError(f"{label}: mm.c in the archive is {_tar_kind(chosen)}, not a regular file")
        if chosen.size > limit:
            raise SubmissionError(f"{label}: mm.c in the archive is {chosen.size} bytes; refusing")
        handle = archive.extractfile(chosen)
        if handle is None:
            raise SubmissionError(f"{label}: cannot read mm.c from the archive")
        return handle.read(limit + 1)


def read_source(cand: Candidate, limit: int) -> str:
    """The submission's mm.c as text, or SubmissionError saying why not."""
    shown = one_line(cand.origin.name)
    if cand.problem:
        raise SubmissionError(f"{shown}: {cand.problem}")
    if cand.kind == "folder":
        return _read_folder(cand.origin, shown, limit)
    if cand.kind == "file":
        return _check_source(_read_file(cand.origin, shown, limit), shown, limit)
    return _read_archive(cand.origin, shown, limit)


def _read_folder(folder: Path, shown: str, limit: int) -> str:
    """A folder read as an archive is: the one mm.c at any depth (kate/mm.c, kate/handin/mm.c, an
    archive unpacked), else the one archive it holds when it holds no .c file (kate/kate.zip, as
    an LMS download gives it).  Several mm.c, or none, are refused naming what it holds."""
    if not folder.is_dir():
        raise SubmissionError(f"{shown}: the folder is gone (did it vanish mid-run?)")
    files, folders = _walk(folder, shown)
    chosen = _folder_mm_c(folder, shown, files)
    if chosen is not None:
        label = f"{shown}/{one_line(chosen)}"
        return _check_source(_read_file(folder / chosen, label, limit), label, limit)
    archives = [p for p in files if _archive_stem(Path(p.name)) is not None]
    if len(archives) == 1 and not any(p.suffix == ".c" for p in files):
        return _read_archive(folder / archives[0], f"{shown}/{one_line(str(archives[0]))}", limit)
    _refuse_mm_c_folders(shown, folders)
    raise SubmissionError(f"{shown}/mm.c: missing: the folder {shown} has no mm.c ({_contents(folder)})")


def _refuse_mm_c_folders(shown: str, folders: list[PurePosixPath]) -> None:
    """Refuse, as an archive says it, a folder SHOWN whose FOLDERS (from _walk) include some named
    mm.c, where no file mm.c was found: "no mm.c" or "0 candidate files" would read as a wrong walk."""
    named = [str(p) for p in folders if p.name == "mm.c"]
    if len(named) == 1:
        raise SubmissionError(f"{shown}/{_cut(one_line(named[0]))}: a folder, not a file")
    if named:
        raise SubmissionError(f"{shown}: no file mm.c in the folder, but folders named mm.c ({_several(named)})")


def _read_archive(path: Path, label: str, limit: int) -> str:
    try:
        with _open_regular(path, label) as raw:
            size = os.fstat(raw.fileno()).st_size
            if size > MAX_ARCHIVE:
                raise SubmissionError(f"{label}: the archive is larger than {MAX_ARCHIVE} bytes; refusing")
            if size == 0:
                raise SubmissionError(f"{label}: the archive is empty (0 bytes)")
            reader = _read_zip if path.name.lower().endswith(".zip") else _read_tar
            data = reader(raw, label, limit)
    except FileNotFoundError:
        raise SubmissionError(f"{label}: missing (did the submission vanish?)") from None
    except UNREADABLE as err:
        raise SubmissionError(f"{label}: not a readable archive ({_one_line(err)})") from None
    return _check_source(data, f"{label}:mm.c", limit)


def _present(path: Path) -> bool:
    return path.exists() or path.is_symlink()       # a dangling link is there, and refused as a link


def _contents(folder: Path, shown: int = 5) -> str:
    """What FOLDER holds, briefly: the reader sees at once which file was meant."""
    try:
        names = [readable(p.name) for p in folder.iterdir()]
    except OSError as err:
        return f"cannot list it: {err.strerror}"
    return _listing(names, shown)


def _listing(names: list[str], shown: int = 5) -> str:
    """NAMES, briefly and on one line: 'it is empty', 'it holds a, b and 3 more'."""
    names = sorted(_cut(one_line(n)) for n in names)
    if not names:
        return "it is empty"
    more = f" and {len(names) - shown} more" if len(names) > shown else ""
    return "it holds " + ", ".join(names[:shown]) + more


def _one_line(err: Exception) -> str:
    return _cut(" ".join(str(err).split()) or type(err).__name__)


def _cut(text: str) -> str:
    """TEXT cut to SHOWN characters: a tar's long name may be megabytes, and zipfile's error quotes a
    header's bytes (up to 256 KB), but a reason is one line in grades.csv and the report."""
    if len(text) <= SHOWN:
        return text
    head, tail = SHOWN * 2 // 3, SHOWN // 3        # the tail too: a path's '/mm.c' or an error's end
    return f"{text[:head]}[...{len(text) - head - tail:,} characters...]{text[-tail:]}"

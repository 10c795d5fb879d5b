"""grader.submissions: every form of hand-in, and every bad one gets a one-line reason."""
import gzip
import io
import os
import re
import shutil
import tarfile
import threading
import warnings
import zipfile
from pathlib import PurePosixPath

import pytest

from grader.submissions import SubmissionError, discover, read_source, unrecognised

GOOD = "int mm_init(void) { return 0; }\n"
LIMIT = 1 << 20


def _zip(path, members):
    with zipfile.ZipFile(path, "w") as z:
        for name, data in members.items():
            z.writestr(name, data)


def _tar(path, members, mode="w:gz"):
    with tarfile.open(path, mode) as t:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            t.addfile(info, io.BytesIO(data))


def test_every_form_is_found_and_read(tmp_path):
    (tmp_path / "alice").mkdir()
    (tmp_path / "alice" / "mm.c").write_text(GOOD)
    (tmp_path / "bob.c").write_text(GOOD)
    (tmp_path / "carol-mm.c").write_text(GOOD)
    _zip(tmp_path / "dave.zip", {"handin/mm.c": GOOD, "handin/README": "hi"})
    _tar(tmp_path / "erin.tar.gz", {"erin/mm.c": GOOD.encode()})
    (tmp_path / ".hidden.c").write_text(GOOD)
    (tmp_path / "notes.txt").write_text("not a submission")
    found = discover(tmp_path)
    assert [c.name for c in found] == ["alice", "bob", "carol", "dave", "erin"]
    assert all(read_source(c, LIMIT) == GOOD for c in found)


@pytest.mark.parametrize("data, message", [
    (b"", "empty"),
    (b"   \n\n", "empty"),
    (b"int x;\0\0\0", "binary"),
    (b"int caf\xe9;\n", "not UTF-8"),
    (b"x" * (LIMIT * 3), f"larger than the {LIMIT}-byte limit"),
])
def test_bad_sources(tmp_path, data, message):
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "mm.c").write_bytes(data)
    with pytest.raises(SubmissionError, match=message) as err:
        read_source(discover(tmp_path)[0], LIMIT)
    assert "s/mm.c" in str(err.value) and "\n" not in str(err.value)
    assert str(LIMIT + 1) not in str(err.value)     # what was read of a file 3 MB long, not its size


def test_a_folder_nested_a_thousand_deep_is_refused_in_one_line(tmp_path):
    """os.walk recurses once per folder: a hand-in 1000 folders deep (an archive unpacked as given)
    was a RecursionError that stopped the whole class, and Gradescope's grader with it."""
    from grader.submissions import find_one
    deep = tmp_path / "kim"
    levels = [deep.joinpath(*["a"] * i) for i in range(1101)]
    try:
        for level in levels:        # os.makedirs recurses too
            level.mkdir()
        (levels[-1] / "mm.c").write_text(GOOD)
        with pytest.raises(SubmissionError, match=r"^kim: the folder nests folders more than 100 deep; refusing$"):
            read_source(discover(tmp_path)[0], LIMIT)
        with pytest.raises(SubmissionError, match="more than 100 deep"):
            find_one(deep)
    finally:                        # bottom up: pytest's rmtree of its old folders recurses as well
        (levels[-1] / "mm.c").unlink(missing_ok=True)
        for level in reversed(levels):
            if level.is_dir():
                level.rmdir()


def test_a_source_not_in_utf_8_names_the_line_and_column(tmp_path):
    """A Latin-1 letter in a comment deep in the file was named by its byte offset only."""
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "mm.c").write_bytes(b"int x;\n" * 411 + b"/* Jos\xe9 */\n")
    with pytest.raises(SubmissionError) as err:
        read_source(discover(tmp_path)[0], LIMIT)
    assert str(err.value).startswith("s/mm.c:412:7: not UTF-8 text (byte 0xe9 at offset 2883)"), err.value


def test_missing_mm_c_and_vanished_folder(tmp_path):
    (tmp_path / "nomm").mkdir()
    (tmp_path / "gone").mkdir()
    (tmp_path / "gone" / "mm.c").write_text(GOOD)
    found = {c.name: c for c in discover(tmp_path)}
    with pytest.raises(SubmissionError, match="nomm/mm.c: missing"):
        read_source(found["nomm"], LIMIT)
    shutil.rmtree(tmp_path / "gone")
    with pytest.raises(SubmissionError, match="gone: the folder is gone"):
        read_source(found["gone"], LIMIT)


@pytest.mark.parametrize("files, holds", [((), "it is empty"), (("malloc.c",), "it holds malloc.c"),
                                          (tuple(f"f{i}.c" for i in range(7)), "it holds f0.c, f1.c, f2.c, f3.c, f4.c and 2 more")])
def test_a_folder_without_mm_c_says_what_it_holds(tmp_path, files, holds):
    (tmp_path / "erin").mkdir()
    for name in files:
        (tmp_path / "erin" / name).write_text(GOOD)
    with pytest.raises(SubmissionError) as err:
        read_source(discover(tmp_path)[0], LIMIT)
    assert str(err.value) == f"erin/mm.c: missing: the folder erin has no mm.c ({holds})"


def _special_tar(path, kind):
    info = tarfile.TarInfo("h/mm.c")
    info.type = kind
    info.linkname = "h/other.c" if kind in (tarfile.SYMTYPE, tarfile.LNKTYPE) else ""
    with tarfile.open(path, "w") as t:
        t.addfile(info)


@pytest.mark.parametrize("kind, what", [(tarfile.SYMTYPE, "a symbolic link"), (tarfile.LNKTYPE, "a hard link"),
                                        (tarfile.FIFOTYPE, "a FIFO"), (tarfile.CHRTYPE, "a device")])
def test_an_archived_mm_c_that_is_no_regular_file_is_named_so(tmp_path, kind, what):
    _special_tar(tmp_path / "t.tar", kind)
    with pytest.raises(SubmissionError) as err:
        read_source(discover(tmp_path)[0], LIMIT)
    assert str(err.value) == f"t.tar: mm.c in the archive is {what}, not a regular file"


def test_a_zipped_symlink_mm_c_is_named_so(tmp_path):
    info = zipfile.ZipInfo("mm.c")
    info.external_attr = 0o120777 << 16
    with zipfile.ZipFile(tmp_path / "z.zip", "w") as z:
        z.writestr(info, "/etc/passwd")
    with pytest.raises(SubmissionError, match="^z.zip: mm.c in the archive is a symbolic link, not a regular file$"):
        read_source(discover(tmp_path)[0], LIMIT)


def test_same_name_twice_flags_both(tmp_path):
    (tmp_path / "alice").mkdir()
    (tmp_path / "alice" / "mm.c").write_text(GOOD)
    (tmp_path / "alice.c").write_text(GOOD)
    found = discover(tmp_path)
    assert len(found) == 2 and len({c.name for c in found}) == 2
    for cand in found:
        with pytest.raises(SubmissionError, match="named alice"):
            read_source(cand, LIMIT)


@pytest.mark.parametrize("form", ["tar", "tar.gz", "zip"])
@pytest.mark.parametrize("names, shown", [
    (["mm.c", "mm.c"], "mm.c twice"),               # a tar appended to (tar -r): the last one was graded
    (["h/mm.c", "h/mm.c", "old/mm.c"], "h/mm.c twice, old/mm.c"),
    (["mm.c", "old/mm.c"], "mm.c, old/mm.c"),
])
def test_two_mm_c_in_an_archive_are_refused_naming_both(tmp_path, form, names, shown):
    """A tar holding one path twice graded whichever came last, without a word."""
    path = tmp_path / f"ann.{form}"
    if form == "zip":
        with warnings.catch_warnings(), zipfile.ZipFile(path, "w") as z:
            warnings.simplefilter("ignore")      # zipfile warns of a name twice
            for index, name in enumerate(names):
                z.writestr(name, f"int v{index};\n")
    else:
        with tarfile.open(path, "w:gz" if form == "tar.gz" else "w") as t:
            for index, name in enumerate(names):
                info = tarfile.TarInfo(name)
                info.size = len(f"int v{index};\n")
                t.addfile(info, io.BytesIO(f"int v{index};\n".encode()))
    with pytest.raises(SubmissionError) as err:
        read_source(discover(path)[0], LIMIT)
    assert str(err.value) == f"ann.{form}: several mm.c files in the archive ({shown})"


def test_entries_of_no_known_form_are_listed_and_litter_is_not(tmp_path):
    (tmp_path / "ann.c").write_text(GOOD)
    for name in ("leo.C", "kim.h", "carl.rar", "bob.7z", ".DS_Store", "Thumbs.db"):
        (tmp_path / name).write_text("x")
    (tmp_path / "__MACOSX").mkdir()
    assert [p.name for p in unrecognised(tmp_path)] == ["bob.7z", "carl.rar", "kim.h", "leo.C"]
    assert [c.name for c in discover(tmp_path)] == ["ann"]


def test_names_keep_their_letters_and_never_collide(tmp_path):
    for handin in ("sp ace ü", "sp ace ö", "José", "a b", "a_b", "Jose\u0301-nfd"):
        (tmp_path / handin).mkdir()
        (tmp_path / handin / "mm.c").write_text(GOOD)
    found = {c.origin.name: c for c in discover(tmp_path)}
    names = {handin: c.name for handin, c in found.items()}
    assert names["sp ace ü"] == "sp_ace_ü" and names["sp ace ö"] == "sp_ace_ö" and names["José"] == "José"
    assert names["a_b"] == "a_b" and names["a b"].startswith("a_b-") and len(names["a b"]) == len("a_b-") + 6
    assert names["Jose\u0301-nfd"] == "José-nfd"                      # macOS's decomposed accents, composed
    assert len(set(names.values())) == len(names)
    assert all(not c.problem and read_source(c, LIMIT) == GOOD for c in found.values())
    assert discover(tmp_path)[0].name == sorted(names.values())[0]    # the same names, in order, every time


def test_a_hand_in_named_as_another_s_tagged_name_keeps_its_own_record(tmp_path):
    """'a b' beside 'a_b' is named a_b-c8687a: a third hand-in called that had shared its record file,
    and whichever was graded last stood for both."""
    for handin in ("a b", "a_b", "a_b-c8687a"):
        (tmp_path / handin).mkdir()
        (tmp_path / handin / "mm.c").write_text(GOOD)
    names = [c.name.casefold() for c in discover(tmp_path)]
    assert len(set(names)) == 3 and "a_b" in names, names


@pytest.mark.parametrize("member", ["../mm.c", "/etc/mm.c", "a/../../mm.c", "C:/kim/mm.c", "C:\\kim\\mm.c"])
def test_archives_with_escaping_paths_are_refused(tmp_path, member):
    _zip(tmp_path / "z.zip", {member: GOOD})
    _tar(tmp_path / "t.tar.gz", {member: GOOD.encode()})
    for cand in discover(tmp_path):
        with pytest.raises(SubmissionError, match="unsafe path"):
            read_source(cand, LIMIT)


def test_archive_bombs_and_junk(tmp_path):
    with zipfile.ZipFile(tmp_path / "bomb.zip", "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("mm.c", b"/*" + b" " * (LIMIT * 4) + b"*/")
    _zip(tmp_path / "two.zip", {"a/mm.c": GOOD, "b/mm.c": GOOD})
    _zip(tmp_path / "none.zip", {"main.c": GOOD})
    (tmp_path / "junk.tar.gz").write_bytes(b"this is not gzip")
    found = {c.name: c for c in discover(tmp_path)}
    expected = {"bomb": "refusing", "two": "several mm.c", "none": "no mm.c", "junk": "not a readable archive"}
    for name, message in expected.items():
        with pytest.raises(SubmissionError, match=message):
            read_source(found[name], LIMIT)


def test_symlinked_mm_c_is_refused(tmp_path):
    (tmp_path / "secret").write_text("password")
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "mm.c").symlink_to(tmp_path / "secret")
    with pytest.raises(SubmissionError, match="symbolic link"):
        read_source(discover(tmp_path)[0], LIMIT)


def test_nonexistent_root(tmp_path):
    with pytest.raises(SubmissionError, match="no such file"):
        discover(tmp_path / "nope")


def test_archives_that_unpack_to_too_much_are_refused(tmp_path, monkeypatch):
    import grader.submissions as subs
    monkeypatch.setattr(subs, "MAX_TOTAL", 4096)
    big = {f"junk{i}.bin": b"\0" * 3000 for i in range(2)}
    _tar(tmp_path / "t.tar.gz", {**big, "mm.c": GOOD.encode()})
    _zip(tmp_path / "z.zip", {**{k: v for k, v in big.items()}, "mm.c": GOOD})
    for cand in discover(tmp_path):
        with pytest.raises(SubmissionError, match="unpacks to more than"):
            read_source(cand, LIMIT)


def _tar_claiming(kind, size, data=b"a" * 512):
    """A tar whose first header is a GNU long name or a pax header (KIND) claiming SIZE bytes of
    data, DATA given, then mm.c."""
    head = tarfile.TarInfo("././@LongLink" if kind == "longname" else "././@PaxHeader")
    head.type = tarfile.GNUTYPE_LONGNAME if kind == "longname" else tarfile.XHDTYPE
    head.size = size
    body = tarfile.TarInfo("mm.c")
    body.size = len(GOOD)
    pad = lambda b: b + b"\0" * (-len(b) % 512)
    return (head.tobuf(format=tarfile.GNU_FORMAT) + pad(data) + body.tobuf(format=tarfile.USTAR_FORMAT)
            + pad(GOOD.encode()) + b"\0" * 1024)


@pytest.mark.parametrize("kind", ["longname", "pax"])
@pytest.mark.parametrize("name, pack", [("t.tar", lambda b: b), ("t.tar.gz", gzip.compress)], ids=["tar", "tar.gz"])
def test_a_tar_header_claiming_a_terabyte_is_refused_not_read(tmp_path, kind, name, pack):
    """tarfile reads a long name's or pax header's data at the size claimed: this 2 KB tar was a
    MemoryError that stopped the whole class, here and when given as the class itself."""
    from grader.submissions import whole_class
    (tmp_path / name).write_bytes(pack(_tar_claiming(kind, 1 << 40)))
    with pytest.raises(SubmissionError, match=r"^t\.tar(\.gz)?: the archive unpacks to more than \d+ bytes"):
        read_source(discover(tmp_path)[0], LIMIT)
    assert whole_class(tmp_path / name) is None


def test_a_class_tar_larger_than_a_hand_in_is_still_seen_as_a_class(tmp_path, monkeypatch):
    """The cap on what a hand-in unpacks to is not the class's: a TA's class.tar.gz is listed whole."""
    import grader.submissions as subs
    monkeypatch.setattr(subs, "MAX_TOTAL", 4096)
    monkeypatch.setattr(subs, "TAR_OVERHEAD", 4096, raising=False)
    _tar(tmp_path / "class.tar.gz", {"class/alice/mm.c": GOOD.encode(), "class/alice/core": b"\0" * 3000,
                                     "class/bob/mm.c": GOOD.encode(), "class/bob/core": b"\0" * 3000})
    assert subs.whole_class(tmp_path / "class.tar.gz") == (["alice/", "bob/"], PurePosixPath("class"),
                                                          "folders each with an mm.c")


def test_a_long_name_past_the_unpacked_limit_is_refused(tmp_path, monkeypatch):
    """A real long name (1 MB of it, packed to 1 KB) counts against what the tar unpacks to: the
    grader had held it whole, and named the member by it in the reason."""
    import grader.submissions as subs
    monkeypatch.setattr(subs, "MAX_TOTAL", 4096)
    monkeypatch.setattr(subs, "TAR_OVERHEAD", 4096, raising=False)     # raising: absent before the cap
    (tmp_path / "t.tar.gz").write_bytes(gzip.compress(_tar_claiming("longname", 1 << 20, b"a" * (1 << 20))))
    with pytest.raises(SubmissionError, match="unpacks to more than 8192 bytes") as err:
        read_source(discover(tmp_path)[0], LIMIT)
    assert len(str(err.value)) < 200


@pytest.mark.parametrize("make", [
    lambda p: (p.parent / "kim.tar.gz").write_bytes(gzip.compress(_tar_claiming("longname", 1 << 20, b"d" * (1 << 20)))),
    lambda p: _zip(p.with_suffix(".zip"), {"../" + "d" * 60000 + "/mm.c": GOOD}),
    lambda p: _zip(p.with_suffix(".zip"), {"a" * 60000 + "/mm.c": GOOD, "b" * 60000 + "/mm.c": GOOD}),
], ids=["tar-long-name-no-mm.c", "zip-long-unsafe-path", "zip-two-long-mm.c"])
def test_an_archive_s_long_member_names_are_cut_in_the_reason(tmp_path, make):
    """A member name of a megabyte (a tar's long name) or 60 KB (a zip's) went whole into the reason,
    and from there into grades.csv, the report and Gradescope's output."""
    make(tmp_path / "kim")
    with pytest.raises(SubmissionError, match=r"\[\.\.\.[\d,]+ characters\.\.\.\]") as err:
        read_source(discover(tmp_path)[0], LIMIT)
    assert len(str(err.value)) < 600 and str(err.value).startswith("kim.")


def _within(seconds, work):
    """WORK() run in a thread; fails (instead of hanging the suite) if it takes longer than SECONDS."""
    box = {}

    def run():
        try:
            box["value"] = work()
        except BaseException as err:            # handed to the test below
            box["error"] = err
    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), "blocked (opening a FIFO waits for a writer)"
    if "error" in box:
        raise box["error"]
    return box["value"]


def test_fifos_are_refused_without_blocking(tmp_path):
    (tmp_path / "bob").mkdir()
    os.mkfifo(tmp_path / "bob" / "mm.c")
    os.mkfifo(tmp_path / "cid.c")
    os.mkfifo(tmp_path / "dan.zip")
    os.mkfifo(tmp_path / "eve.tar.gz")
    (tmp_path / "ann.c").write_text(GOOD)
    found = {c.name: c for c in discover(tmp_path)}
    assert _within(5, lambda: read_source(found["ann"], LIMIT)) == GOOD
    for name in ("bob", "cid", "dan", "eve"):
        with pytest.raises(SubmissionError, match="a FIFO, not a regular file") as err:
            _within(5, lambda: read_source(found[name], LIMIT))
        assert "\n" not in str(err.value)
    with pytest.raises(SubmissionError, match="a FIFO"):          # a FIFO given as the whole class
        _within(5, lambda: read_source(discover(tmp_path / "cid.c")[0], LIMIT))


def test_a_socket_is_refused_as_one(tmp_path, monkeypatch):
    """A socket cannot be opened at all: it was 'cannot read it (No such device or address)'."""
    import socket
    monkeypatch.chdir(tmp_path)                 # a socket's path must be short: bound by a relative one
    (tmp_path / "bob").mkdir()
    sockets = [socket.socket(socket.AF_UNIX) for _ in range(3)]
    for sock, name in zip(sockets, ("bob/mm.c", "cid.c", "dan.zip")):
        sock.bind(name)
    found = {c.name: c for c in discover(tmp_path)}
    for name, label in (("bob", "bob/mm.c"), ("cid", "cid.c"), ("dan", "dan.zip")):
        with pytest.raises(SubmissionError) as err:
            read_source(found[name], LIMIT)
        assert str(err.value) == f"{label}: a socket, not a regular file"
    for sock in sockets:
        sock.close()


@pytest.mark.parametrize("name, data, message", [
    ("empty.tgz", b"", "the archive is empty"),
    ("junk.tar.xz", b"\x00junk" * 20, "not a tar file"),
    ("trunc.tar.gz", gzip.compress(b"x" * 600)[:30], "not a readable archive"),
    ("junk.zip", b"PK\x03\x04 junk", "not a readable archive"),
], ids=["empty-tgz", "junk-tar-xz", "truncated-tar-gz", "junk-zip"])
def test_unreadable_archives_are_one_line(tmp_path, name, data, message):
    (tmp_path / name).write_bytes(data)
    with pytest.raises(SubmissionError, match=message) as err:
        read_source(discover(tmp_path)[0], LIMIT)
    assert str(err.value).startswith(name) and "\n" not in str(err.value)


def _patched_zip(path, compression, flags=0, method=None, garble=b""):
    """A zip of mm.c whose headers claim FLAGS / METHOD (as zip -P or a Deflate64 tool writes them),
    or whose compressed data is damaged (GARBLE)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression) as z:
        z.writestr("mm.c", GOOD * 50)
    data = bytearray(buffer.getvalue())
    local, central = data.find(b"PK\x03\x04"), data.find(b"PK\x01\x02")
    data[local + 6] |= flags
    data[central + 8] |= flags
    if method is not None:
        data[local + 8:local + 10] = data[central + 10:central + 12] = method.to_bytes(2, "little")
    start = local + 30 + len("mm.c")
    data[start:start + len(garble)] = garble
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("make, message", [
    (lambda p: _patched_zip(p, zipfile.ZIP_DEFLATED, flags=0x1), "mm.c is encrypted (password-protected zip)"),
    (lambda p: _patched_zip(p, zipfile.ZIP_DEFLATED, method=9), "mm.c is compressed with deflate64 (zip method 9)"),
    (lambda p: _patched_zip(p, zipfile.ZIP_STORED, method=98), "mm.c is compressed with ppmd (zip method 98)"),
    (lambda p: _patched_zip(p, zipfile.ZIP_STORED, method=99), "mm.c is encrypted"),
    (lambda p: _patched_zip(p, zipfile.ZIP_DEFLATED, garble=b"\x07"), "not a readable archive"),  # zlib.error
    (lambda p: _patched_zip(p, zipfile.ZIP_LZMA, garble=b"\0" * 9 + b"\xff" * 20), "not a readable archive"),
], ids=["encrypted", "deflate64", "ppmd-method-98", "aes-method-99", "corrupt-deflate", "corrupt-lzma"])
def test_zips_the_reader_cannot_open_are_one_line(tmp_path, make, message):
    make(tmp_path / "zoe.zip")
    with pytest.raises(SubmissionError) as err:
        read_source(discover(tmp_path)[0], LIMIT)
    assert str(err.value).startswith("zoe.zip: ") and message in str(err.value), err.value
    assert "\n" not in str(err.value)


def _damaged_zip(path, name="mm.c", central=None, flags=0):
    """A zip of NAME (a str or ZipInfo) whose central directory entry has CENTRAL {offset: bytes} written over it (or
    its name's first byte made 0xff with the UTF-8 flag set, CENTRAL "utf8"), and FLAGS set in both
    headers: damage zipfile meets with NotImplementedError, UnicodeDecodeError or IndexError."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr(name, GOOD)
    data = bytearray(buffer.getvalue())
    local, where = data.find(b"PK\x03\x04"), data.find(b"PK\x01\x02")
    data[local + 6] |= flags & 0xff
    data[where + 8] |= flags & 0xff
    if central == "utf8":
        data[where + 9] |= 0x08
        data[where + 46] = 0xff
    for offset, value in (central if isinstance(central, dict) else {}).items():
        data[where + offset:where + offset + len(value)] = value
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("make", [
    lambda p: _damaged_zip(p, central={6: bytes([64, 0])}),          # needs zip version 6.4
    lambda p: _damaged_zip(p, flags=0x40),                           # strong encryption, no bit 0
    lambda p: _damaged_zip(p, flags=0x20),                           # compressed patched data
    lambda p: _damaged_zip(p, central="utf8"),                       # flagged UTF-8, is not
    lambda p: _damaged_zip(p, name=zipfile.ZipInfo("")),              # a name of no bytes
], ids=["version-6.4", "strong-encryption", "patched-data", "bad-utf8-name", "empty-name"])
def test_a_damaged_zip_is_refused_in_one_line_not_a_traceback(tmp_path, make):
    """zipfile raises more than BadZipFile on a damaged zip: each of these had stopped the whole class,
    here and when given as the class itself."""
    from grader.submissions import whole_class
    make(tmp_path / "zed.zip")
    with pytest.raises(SubmissionError, match=r"^zed\.zip: (not a readable archive|an entry with an empty name)") as err:
        read_source(discover(tmp_path)[0], LIMIT)
    assert "\n" not in str(err.value) and "index out of range" not in str(err.value)
    assert whole_class(tmp_path / "zed.zip") is None


def test_a_corrupt_xz_tar_is_one_line(tmp_path):
    import lzma
    body = "".join(f"/* {i} {i * 7919 % 10007} {i ** 3} */\n" for i in range(5000)).encode()
    packed = bytearray(lzma.compress(_tar_bytes({"mm.c": body})))
    middle = len(packed) // 2                   # past what opening the archive reads: LZMAError later
    packed[middle:middle + 40] = b"\x00" * 40
    (tmp_path / "zed.tar.xz").write_bytes(bytes(packed))
    with pytest.raises(SubmissionError) as err:
        read_source(discover(tmp_path)[0], LIMIT)
    assert str(err.value).startswith("zed.tar.xz: ") and "\n" not in str(err.value)


def _tar_bytes(members):
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as t:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            t.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def test_a_windows_zip_with_backslashes_is_read(tmp_path):
    _zip(tmp_path / "win.zip", {"handin\\mm.c": GOOD, "handin\\notes.txt": "hi"})
    assert read_source(discover(tmp_path)[0], LIMIT) == GOOD


@pytest.mark.parametrize("files, chosen", [
    ({"mm.c": GOOD}, "mm.c"),
    ({"handout/mm.c": GOOD, "handout/test.c": GOOD}, "handout/mm.c"),     # mm.c anywhere wins
    ({"lab.tar.bz2": b"x"}, "lab.tar.bz2"),
    ({"deep/lab.tar.xz": b"x", "deep/README": "hi"}, "deep/lab.tar.xz"),
    ({"mine.c": GOOD, "__MACOSX/._mine.c": "x", ".DS_Store": "x"}, "mine.c"),
])
def test_gradescope_finds_the_one_handin(tmp_path, files, chosen):
    from grader.submissions import find_one
    for name, data in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(data if isinstance(data, bytes) else data.encode())
    assert find_one(tmp_path) == tmp_path / chosen


@pytest.mark.parametrize("files, message", [
    ({}, "expected mm.c (found 0 candidate files)"),
    ({"a.c": GOOD, "b.zip": b"x"}, "expected mm.c (found 2 candidate files: a.c, b.zip)"),
    ({"a/mm.c": GOOD, "b/mm.c": GOOD}, "several mm.c files in the folder (a/mm.c, b/mm.c)"),
    ({"mm.c": GOOD, "old/mm.c": GOOD}, "several mm.c files in the folder (mm.c, old/mm.c)"),     # was mm.c
])
def test_gradescope_refuses_an_ambiguous_handin_in_one_line(tmp_path, files, message):
    from grader.submissions import find_one
    for name, data in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(data if isinstance(data, bytes) else data.encode())
    with pytest.raises(SubmissionError, match=re.escape(message)):
        find_one(tmp_path)


def test_long_names_in_any_script_fit_a_file_name_and_stay_apart(tmp_path):
    from grader import store
    for tail in ("甲", "乙"):
        (tmp_path / ("学" * 83 + tail + ".c")).write_text(GOOD)       # 254 bytes: as long as a name gets
    found = discover(tmp_path)
    assert len({c.name for c in found}) == 2
    for cand in found:
        assert len(f".{cand.name}.json.XXXXXXXX.tmp".encode()) <= 255
        store.write_json(store.record_path(tmp_path / "out", cand.name), {"ok": True})   # no ENAMETOOLONG


@pytest.mark.parametrize("form", ["zip", "tar.gz"])
@pytest.mark.parametrize("members, holds", [
    ({}, "it is empty"),
    ({"tina.zip": b"PK\x05\x06" + b"\0" * 18}, "it holds tina.zip"),
    ({"handin/malloc.c": GOOD.encode(), "handin/README": b"hi"}, "it holds handin/README, handin/malloc.c"),
], ids=["empty", "an archive inside", "no mm.c"])
def test_an_archive_without_mm_c_says_what_it_holds(tmp_path, form, members, holds):
    """An empty archive, or a student's zip zipped again, was only 'no mm.c in the archive': the
    TA could not tell an empty hand-in from a misnamed file, as a folder's reason lets them."""
    path = tmp_path / f"tina.{form}"
    if form == "zip":
        _zip(path, members)
    else:
        _tar(path, members)
    with pytest.raises(SubmissionError) as err:
        read_source(discover(tmp_path)[0], LIMIT)
    assert str(err.value) == f"tina.{form}: no mm.c in the archive ({holds})"


@pytest.mark.parametrize("form", ["zip", "tar"])
def test_an_archived_mm_c_that_is_a_folder_is_named_so(tmp_path, form):
    """A folder mm.c/ in the archive was 'no mm.c in the archive (it is empty)', as a folder's is not."""
    path = tmp_path / f"tina.{form}"
    if form == "zip":
        _zip(path, {"h/mm.c/": "", "h/mm.c/notes.txt": "x"})
    else:
        with tarfile.open(path, "w") as t:
            info = tarfile.TarInfo("h/mm.c")
            info.type = tarfile.DIRTYPE
            t.addfile(info)
    with pytest.raises(SubmissionError) as err:
        read_source(discover(tmp_path)[0], LIMIT)
    assert str(err.value) == f"tina.{form}: h/mm.c in the archive is a folder, not a file"


@pytest.mark.parametrize("form", ["zip", "tar"])
def test_two_archived_folders_named_mm_c_are_not_called_files(tmp_path, form):
    """An archive holding the folders a/mm.c/ and b/mm.c/ and no file mm.c was refused as 'several mm.c
    files in the archive': there is no mm.c file in it at all."""
    path = tmp_path / f"tina.{form}"
    if form == "zip":
        _zip(path, {"a/mm.c/": "", "b/mm.c/": "", "a/mm.c/notes.txt": "x"})
    else:
        with tarfile.open(path, "w") as t:
            for name in ("a/mm.c", "b/mm.c"):
                info = tarfile.TarInfo(name)
                info.type = tarfile.DIRTYPE
                t.addfile(info)
    with pytest.raises(SubmissionError) as err:
        read_source(discover(tmp_path)[0], LIMIT)
    assert str(err.value) == f"tina.{form}: no file mm.c in the archive, but folders named mm.c (a/mm.c, b/mm.c)"


@pytest.mark.parametrize("folders, said", [
    (["a/mm.c", "b/mm.c"], "tina: no file mm.c in the folder, but folders named mm.c (a/mm.c, b/mm.c)"),
    (["h/mm.c"], "tina/h/mm.c: a folder, not a file"),
])
def test_a_student_folder_holding_only_folders_named_mm_c_says_so(tmp_path, folders, said):
    """A student folder holding a/mm.c/ and b/mm.c/ and no file mm.c was refused as 'missing: the
    folder tina has no mm.c (it holds a, b)', though mm.c is there, as folders; its archive is refused
    as holding no file mm.c, only folders of that name, and so is the folder now."""
    for folder in folders:
        (tmp_path / "tina" / folder).mkdir(parents=True)
    (tmp_path / "tina" / folders[0] / "notes.txt").write_text("x")
    with pytest.raises(SubmissionError) as err:
        read_source(discover(tmp_path)[0], LIMIT)
    assert str(err.value) == said


def _nest_past_path_max(top):
    """Folders under TOP whose path is longer than the system takes (PATH_MAX, 4096 bytes), made
    through folder descriptors, with an mm.c at the bottom: os.walk cannot open the deepest, as it
    cannot open a folder of mode 000 (which root, who runs these tests, may read anyway)."""
    fd = os.open(top, os.O_RDONLY)
    try:
        for _ in range(18):
            os.mkdir("d" * 250, dir_fd=fd)
            fd, up = os.open("d" * 250, os.O_RDONLY, dir_fd=fd), fd
            os.close(up)
        os.close(os.open("mm.c", os.O_WRONLY | os.O_CREAT, dir_fd=fd))
    finally:
        os.close(fd)


def test_a_folder_the_walk_cannot_read_refuses_the_hand_in(tmp_path):
    """os.walk skipped a subfolder it could not open, so kim/mm.c was graded though a second mm.c,
    which would have had the hand-in refused, lay in it.  It is refused in one line naming the folder."""
    from grader.submissions import find_one
    kim = tmp_path / "kim"
    kim.mkdir()
    (kim / "mm.c").write_text(GOOD)
    _nest_past_path_max(kim)
    with pytest.raises(SubmissionError) as err:
        read_source(discover(tmp_path)[0], LIMIT)
    said = str(err.value)
    assert re.fullmatch(r"kim/d{80,}\[\.\.\.[0-9,]+ characters\.\.\.\]d+: cannot read the folder \(File name too long\); "
                        r"refusing: a file in it would not be seen", said), said
    with pytest.raises(SubmissionError, match="cannot read the folder"):
        find_one(kim)


def test_one_students_archive_with_a_hidden_copy_is_no_class(tmp_path):
    """nina.zip holding h/mm.c and .old/mm.c, given alone, 'looks like a whole class' (h/ and .old/),
    though read as a hand-in it is nina's h/mm.c: hidden entries are no student's folder."""
    from grader.submissions import whole_class
    _zip(tmp_path / "nina.zip", {"h/mm.c": GOOD, ".old/mm.c": GOOD, "__MACOSX/x/mm.c": GOOD})
    assert whole_class(tmp_path / "nina.zip") is None
    assert read_source(discover(tmp_path / "nina.zip")[0], LIMIT) == GOOD


def test_a_name_with_a_newline_leaves_the_reason_on_one_line(tmp_path):
    """A hand-in's name and what a folder or an archive holds are in the reason: a file named 'a\\nb'
    split it in two."""
    (tmp_path / "fold").mkdir()
    (tmp_path / "fold" / "a\nb").write_text(GOOD)
    _zip(tmp_path / "nl.zip", {"notes\nEVIL: 100 points.c": GOOD})
    (tmp_path / "two\nlines").mkdir()
    _zip(tmp_path / "twice.zip", {"a\n/mm.c": GOOD, "b/mm.c": GOOD})
    reasons = {}
    for cand in discover(tmp_path):
        with pytest.raises(SubmissionError) as err:
            read_source(cand, LIMIT)
        reasons[cand.name] = str(err.value)
    assert reasons == {"fold": "fold/mm.c: missing: the folder fold has no mm.c (it holds a\\nb)",
                       "nl": "nl.zip: no mm.c in the archive (it holds notes\\nEVIL: 100 points.c)",
                       "two_lines": "two\\nlines/mm.c: missing: the folder two\\nlines has no mm.c (it is empty)",
                       "twice": "twice.zip: several mm.c files in the archive (a\\n/mm.c, b/mm.c)"}


def _unpacked(folder, members):
    for name, data in members.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(data if isinstance(data, bytes) else data.encode())


def _reading(cand):
    """What reading CAND gives: its source, or its refusal less the hand-in's own label."""
    try:
        return read_source(cand, LIMIT)
    except SubmissionError as err:
        return "refused: " + str(err).split(": ", 1)[1]


@pytest.mark.parametrize("members, folder_reads", [
    ({"handin/mm.c": GOOD, "handin/README": "hi"}, GOOD),
    ({"kate-malloclab/src/mm.c": GOOD, "kate-malloclab/src/mm.h": "/* */"}, GOOD),
    ({"a/mm.c": GOOD, "b/mm.c": GOOD}, "refused: several mm.c files in the folder (a/mm.c, b/mm.c)"),
    # the folder graded its top mm.c, the archive refused both: unpacking changed the verdict
    ({"mm.c": GOOD, "old/mm.c": GOOD}, "refused: several mm.c files in the folder (mm.c, old/mm.c)"),
    # hidden files and OS litter are no part of a folder, nor now of an archive: the archive was refused
    ({"h/mm.c": GOOD, "h/.old/mm.c": "x", "__MACOSX/h/mm.c": "x"}, GOOD),
    ({"handin/malloc.c": GOOD}, "refused: missing: the folder kate has no mm.c (it holds handin)"),
    ({}, "refused: missing: the folder kate has no mm.c (it is empty)"),
], ids=["nested", "deeper", "two-mm-c", "top-and-nested-mm-c", "hidden-mm-c", "no-mm-c", "empty"])
def test_a_folder_reads_as_the_archive_it_was_unpacked_from(tmp_path, members, folder_reads):
    """kate/handin/mm.c was refused ('the folder kate has no mm.c (it holds handin)') though kate.zip
    holding handin/mm.c is graded: a TA who unpacked the archives got refusals the archives did not."""
    _zip(tmp_path / "kate.zip", members)
    (tmp_path / "unpacked" / "kate").mkdir(parents=True)
    _unpacked(tmp_path / "unpacked" / "kate", members)
    archive, folder = _reading(discover(tmp_path / "kate.zip")[0]), _reading(discover(tmp_path / "unpacked")[0])
    assert folder == folder_reads
    assert (archive == GOOD) == (folder == GOOD)          # graded both ways, or refused both ways


@pytest.mark.parametrize("members", [
    {"kate.zip": None},
    {"download/kate.tar.gz": None, "download/README.txt": "from the LMS", ".DS_Store": "x"},
], ids=["archive", "nested-archive"])
def test_a_folder_holding_only_an_archive_reads_as_that_archive(tmp_path, members):
    """An LMS download gives kate/kate.zip: it was 'the folder kate has no mm.c (it holds kate.zip)'."""
    kate = tmp_path / "kate"
    kate.mkdir()
    for name, data in members.items():
        (kate / name).parent.mkdir(parents=True, exist_ok=True)
        if data is None:
            (_zip if name.endswith(".zip") else _tar)(kate / name, {"kate/mm.c": GOOD if name.endswith(".zip")
                                                                     else GOOD.encode()})
        else:
            (kate / name).write_text(data)
    assert read_source(discover(tmp_path)[0], LIMIT) == GOOD


def test_an_archive_in_a_folder_is_refused_as_that_archive(tmp_path):
    (tmp_path / "kate").mkdir()
    _zip(tmp_path / "kate" / "kate.zip", {"a/mm.c": GOOD, "b/mm.c": GOOD})
    with pytest.raises(SubmissionError) as err:
        read_source(discover(tmp_path)[0], LIMIT)
    assert str(err.value) == "kate/kate.zip: several mm.c files in the archive (a/mm.c, b/mm.c)"


@pytest.mark.parametrize("files", [
    {"kate.zip": None, "malloc.c": GOOD},           # a .c file beside it: which is the hand-in?
    {"kate.zip": None, "old.tar.gz": None},          # two archives
], ids=["archive-and-c-file", "two-archives"])
def test_a_folder_with_an_archive_and_another_candidate_is_refused(tmp_path, files):
    kate = tmp_path / "kate"
    kate.mkdir()
    for name, data in files.items():
        if data is None:
            (_zip if name.endswith(".zip") else _tar)(kate / name, {"mm.c": GOOD if name.endswith(".zip")
                                                                     else GOOD.encode()})
        else:
            (kate / name).write_text(data)
    with pytest.raises(SubmissionError) as err:
        read_source(discover(tmp_path)[0], LIMIT)
    listed = ", ".join(sorted(files))
    assert str(err.value) == f"kate/mm.c: missing: the folder kate has no mm.c (it holds {listed})"


def test_links_in_a_folder_lead_nowhere_outside_it(tmp_path):
    """A nested mm.c that is a link is refused as one at the top is; a linked folder is not followed."""
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "mm.c").write_text(GOOD)
    (tmp_path / "class" / "kate" / "handin").mkdir(parents=True)
    (tmp_path / "class" / "kate" / "handin" / "mm.c").symlink_to(tmp_path / "outside" / "mm.c")
    (tmp_path / "class" / "leo").mkdir()
    (tmp_path / "class" / "leo" / "handin").symlink_to(tmp_path / "outside")
    found = {c.name: c for c in discover(tmp_path / "class")}
    assert _reading(found["kate"]) == "refused: a symbolic link, not a file"
    assert _reading(found["leo"]) == "refused: missing: the folder leo has no mm.c (it holds handin)"


@pytest.mark.parametrize("folders, said", [
    (["a/mm.c", "b/mm.c"], "{root}: no file mm.c in the folder, but folders named mm.c (a/mm.c, b/mm.c)"),
    (["h/mm.c"], "{root}/h/mm.c: a folder, not a file"),
    # found as the hand-in, it was read as a whole student's folder: 'mm.c/mm.c: missing: the folder mm.c has no mm.c'
    (["mm.c"], "{root}/mm.c: a folder, not a file"),
])
def test_gradescope_says_its_submission_holds_only_folders_named_mm_c(tmp_path, folders, said):
    """find_one (Gradescope's reader of one hand-in folder) said 'expected mm.c (found 0 candidate
    files)' of a folder holding h/mm.c/ and no file mm.c, as if it had found nothing like it; it now
    says what it found, in the class reader's words (the test above)."""
    from grader.submissions import find_one
    root = tmp_path / "submission"
    for folder in folders:
        (root / folder).mkdir(parents=True)
    (root / folders[0] / "notes.txt").write_text("x")
    with pytest.raises(SubmissionError) as err:
        find_one(root)
    assert str(err.value) == said.format(root=root)


def test_gradescope_names_the_candidate_files_on_one_line(tmp_path):
    """The candidate files find_one lists were shown raw: a file named 'a\\nb.c' broke its one line."""
    from grader.submissions import find_one
    (tmp_path / "a\nb.c").write_text(GOOD)
    (tmp_path / "c.c").write_text(GOOD)
    with pytest.raises(SubmissionError) as err:
        find_one(tmp_path)
    assert str(err.value) == f"{tmp_path}: expected mm.c (found 2 candidate files: a\\nb.c, c.c)"


# The bounds below are the real ones, not patched: a test that lowers a bound cannot tell a
# bound raised tenfold (or dropped) from the one the module promises.
MEMBERS = 10_000


def _many(folder, count):
    for i in range(count):
        (folder / f"f{i}").write_bytes(b"")


@pytest.mark.parametrize("form", ["zip", "tar", "folder"])
def test_a_hand_in_of_more_than_ten_thousand_entries_is_refused(tmp_path, form):
    """A second mm.c may lie past them: so many entries are refused, with mm.c among them."""
    names = {f"f{i}": b"" for i in range(MEMBERS)} | {"mm.c": GOOD.encode()}
    if form == "zip":
        _zip(tmp_path / "kim.zip", names)
    elif form == "tar":
        _tar(tmp_path / "kim.tar", names, mode="w")
    else:
        (tmp_path / "kim").mkdir()
        _many(tmp_path / "kim", MEMBERS)
        (tmp_path / "kim" / "mm.c").write_text(GOOD)
    with pytest.raises(SubmissionError, match=f"more than {MEMBERS} (entries|files)"):
        read_source(discover(tmp_path)[0], LIMIT)


def test_a_zip_member_compressed_past_any_c_source_is_refused(tmp_path):
    """Within the size limit, but 900 KB that deflate to 1 KB: the ratio says bomb, not source."""
    with zipfile.ZipFile(tmp_path / "kim.zip", "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("mm.c", b"/*" + b" " * 900_000 + b"*/")
    with pytest.raises(SubmissionError, match="mm.c in the archive claims 900004 bytes; refusing"):
        read_source(discover(tmp_path)[0], LIMIT)


def test_a_zip_unpacking_past_64_mib_is_refused_unread(tmp_path):
    with zipfile.ZipFile(tmp_path / "kim.zip", "w", zipfile.ZIP_DEFLATED, compresslevel=1) as z:
        for name in ("core1", "core2"):
            z.writestr(name, bytes(33 << 20))
        z.writestr("mm.c", GOOD)
    with pytest.raises(SubmissionError, match=f"more than {MEMBERS} entries or {64 << 20} bytes; refusing"):
        read_source(discover(tmp_path)[0], LIMIT)


@pytest.mark.parametrize("name", ["kim.zip", "kim.tar.gz"])
def test_an_archive_file_past_16_mib_is_refused_unread(tmp_path, name):
    with open(tmp_path / name, "wb") as handle:         # sparse: its size is all that is read
        handle.truncate((16 << 20) + 1)
    with pytest.raises(SubmissionError, match=f"^{name}: the archive is larger than {16 << 20} bytes; refusing$"):
        read_source(discover(tmp_path)[0], LIMIT)


def test_a_top_level_mm_c_linked_to_a_folder_is_refused_as_a_link(tmp_path):
    """The walk lists no link to a folder, so kim/mm.c -> elsewhere/ would read as 'no mm.c'."""
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "mm.c").write_text(GOOD)
    (tmp_path / "class" / "kim").mkdir(parents=True)
    (tmp_path / "class" / "kim" / "mm.c").symlink_to(tmp_path / "elsewhere")
    assert _reading(discover(tmp_path / "class")[0]) == "refused: a symbolic link, not a file"


def test_a_folder_s_hidden_files_and_folders_are_no_part_of_its_hand_in(tmp_path):
    """macOS's ._kate.zip beside kate.zip, an editor's .vscode/scratch.c: the folder reads as kate.zip."""
    kate = tmp_path / "kate"
    (kate / ".vscode").mkdir(parents=True)
    _zip(kate / "kate.zip", {"mm.c": GOOD})
    (kate / "._kate.zip").write_bytes(b"\0\5\26\7 AppleDouble")
    (kate / ".vscode" / "scratch.c").write_text("int x;")
    assert read_source(discover(tmp_path)[0], LIMIT) == GOOD


def _nested(folder, depth):
    deep = folder.joinpath(*["d"] * depth)
    deep.mkdir(parents=True)
    (deep / "mm.c").write_text(GOOD)


def test_a_folder_may_nest_a_hundred_deep_and_no_more(tmp_path):
    _nested(tmp_path / "ok" / "ann", 100)
    _nested(tmp_path / "deep" / "bob", 101)
    assert read_source(discover(tmp_path / "ok")[0], LIMIT) == GOOD
    with pytest.raises(SubmissionError, match="^bob: the folder nests folders more than 100 deep; refusing$"):
        read_source(discover(tmp_path / "deep")[0], LIMIT)


@pytest.mark.parametrize("members", [
    {"mm.c": GOOD, "alice/mm.c": GOOD, "bob/mm.c": GOOD},                  # one hand-in with three mm.c
    {"a/ada@cmu.edu_1_handin.c": GOOD, "b/bob@cmu.edu_2_handin.c": GOOD},  # Autolab's are in one folder
], ids=["top-mm-c", "autolab-apart"])
def test_an_archive_that_only_resembles_a_class_is_one_hand_in(tmp_path, members):
    from grader.submissions import whole_class
    _zip(tmp_path / "kim.zip", members)
    assert whole_class(tmp_path / "kim.zip") is None

"""Which files the driver runs, and how it shows their names."""
from __future__ import annotations

import gzip
import os
import subprocess

from driver_common import run, write_trace

OPS = ["a 0 16", "f 0"]


def refused(driver, *args, cwd=None):
    done = subprocess.run([str(driver), *map(str, args)], capture_output=True, text=True, timeout=60, cwd=cwd)
    assert done.returncode == 2 and done.stdout == "", done.stdout + done.stderr
    assert len(done.stderr.splitlines()) == 1, done.stderr
    return done.stderr


def test_the_same_file_given_twice_is_refused(driver, tmp_path):
    """A trace given twice was run and scored twice (-t traces -t traces doubled every op count)."""
    folder = tmp_path / "t"
    folder.mkdir()
    a = write_trace(folder, "a", OPS, weight=1)
    write_trace(folder, "b", OPS, weight=1)
    assert refused(driver, "-f", a, "-f", a) == \
        f"mdriver: the same trace given twice: -f {a} and -f {a}; each trace is run once (mdriver -h for help)\n"
    err = refused(driver, "-t", folder, "-f", a)
    assert err.startswith(f"mdriver: the same trace given twice: -f {a} and {a} from -t {folder};"), err
    assert f"{a} from -t {folder} and {a} from -t {folder};" in refused(driver, "-t", folder, "-t", folder)
    # the same inode under another name: a hard link, or a path with ..
    (folder / "c.rep").hardlink_to(a)
    assert f"{a} from -t {folder} and {folder / 'c.rep'} from -t {folder};" in refused(driver, "-t", folder)
    other = folder / ".." / "t" / "a.rep"
    assert f"-f {a} and -f {other};" in refused(driver, "-f", a, "-f", other)
    # a copy is another file
    copy = write_trace(tmp_path, "a", OPS, weight=1)
    assert run(driver, "-f", a, "-f", copy, tmp=tmp_path).rc == 0


def test_a_missing_file_given_twice_is_refused_as_an_existing_one_is(driver, tmp_path):
    """`-f nope.rep -f nope.rep` ran the missing file twice, two 'cannot open' lines (the check
    knew files by inode, and a missing one has none): one line now, as for a file that exists;
    spelt otherwise in its folder, or a dangling link given by -f and -t, it is still one trace."""
    nope = tmp_path / "nope.rep"
    assert refused(driver, "-f", nope, "-f", nope) == \
        f"mdriver: the same trace given twice: -f {nope} and -f {nope}; each trace is run once (mdriver -h for help)\n"
    assert "-f nope.rep and -f ./nope.rep;" in refused(driver, "-f", "nope.rep", "-f", "./nope.rep", cwd=tmp_path)
    folder = tmp_path / "t"
    folder.mkdir()
    write_trace(folder, "a", OPS, weight=1)
    (folder / "gone.rep").symlink_to(tmp_path / "deleted.rep")
    link = folder / "gone.rep"
    assert f"-f {link} and {link} from -t {folder};" in refused(driver, "-t", folder, "-f", link)
    # two missing files are two traces, each said missing once
    two = run(driver, "-f", nope, "-f", folder / "nope.rep", tmp=tmp_path)
    assert two.rc == 2 and two.err.count("cannot open: No such file or directory") == 2, two.err


def test_hidden_files_in_a_trace_directory_are_skipped(driver, tmp_path):
    write_trace(tmp_path, "seen", OPS, weight=1)
    write_trace(tmp_path, ".hidden", OPS, weight=1)
    write_trace(tmp_path, "._seen", OPS, weight=1)     # a zip's resource fork
    r = run(driver, "-t", tmp_path, tmp=tmp_path)
    assert r.rc == 0 and [t["name"] for t in r.doc["traces"]] == ["seen"]
    # named with -f, a hidden file is run
    assert run(driver, "-f", tmp_path / ".hidden.rep", tmp=tmp_path).rc == 0


def test_control_characters_in_names_are_escaped(driver, tmp_path):
    """A file named new<LF>line.rep split its table row, and any message naming it, in two."""
    good = write_trace(tmp_path, "new\nline", OPS, weight=1)
    bad = write_trace(tmp_path, "esc\x1b[31mred\t", ["a 0 16", "x 0"], weight=1)
    r = run(driver, "-V", "-f", good, "-f", bad, tmp=tmp_path)
    assert r.rc == 2
    assert "\x1b" not in r.out + r.err and "\t" not in r.out + r.err
    rows = [line for line in r.out.splitlines() if line[:3].strip().isdigit()]
    assert rows[0].split()[:2] == ["0", "new\\nline"] and rows[1].split()[:2] == ["1", "esc\\x1b[31mred\\t"]
    assert "[1/2] new\\nline" in r.out
    assert r.err == f"mdriver: {tmp_path}/esc\\x1b[31mred\\t.rep:6: bad token 'x': expected an op (a, f, r or n)\n"
    # the JSON keeps the real names
    assert [t["name"] for t in r.doc["traces"]] == ["new\nline", "esc\x1b[31mred\t"]
    missing = tmp_path / "gone\n.rep"
    err = subprocess.run([str(driver), "-f", missing], capture_output=True, text=True).stderr
    assert err == f"mdriver: {tmp_path}/gone\\n.rep:0: cannot open: No such file or directory\n"
    assert refused(driver, "-t", tmp_path / "no\ndir") == \
        f"mdriver: -t {tmp_path}/no\\ndir: cannot open the trace directory (mdriver -h for help)\n"


def test_control_characters_in_output_and_baseline_paths_are_escaped(driver, tmp_path):
    """The paths of --json, --save-baseline and --baseline went into their messages as given:
    a newline in one split the message in two."""
    trace = write_trace(tmp_path, "t", OPS, weight=1)
    gone = tmp_path / "no\ndir"
    shown = f"{tmp_path}/no\\ndir"
    assert refused(driver, "--json", gone / "r.json", "-f", trace) == \
        f"mdriver: --json {shown}/r.json: cannot write there: No such file or directory\n"
    assert refused(driver, "--save-baseline", gone / "b", "-f", trace) == \
        f"mdriver: --save-baseline {shown}/b: cannot write there: No such file or directory (mdriver -h for help)\n"
    assert refused(driver, "--baseline", gone / "b", "-f", trace) == \
        f"mdriver: {shown}/b:0: cannot open the baseline: No such file or directory\n"
    odd = tmp_path / "odd\n.rep"
    odd.write_bytes(trace.read_bytes())
    assert refused(driver, "--json", odd, "-f", odd) == \
        f"mdriver: --json {tmp_path}/odd\\n.rep: that file is the trace {tmp_path}/odd\\n.rep; refusing to " \
        "overwrite it (mdriver -h for help)\n"
    damaged = tmp_path / "bad\n.baseline"
    damaged.write_text("not a baseline\n")
    assert refused(driver, "--baseline", damaged, "-f", trace) == \
        f"mdriver: {tmp_path}/bad\\n.baseline:1: not an mdriver baseline file\n"
    # a baseline that is fine, at such a path: its header line is one line too
    base = tmp_path / "good\n.baseline"
    assert run(driver, "-r", "1", "--save-baseline", base, "-f", trace, tmp=tmp_path).rc == 0
    r = run(driver, "-r", "1", "--baseline", base, "-f", trace, tmp=tmp_path)
    assert r.rc == 0, r.err
    source = r.doc["settings"]["baseline_source"].replace("\n", "\\n")
    assert f"\nlibc baseline: {source}\n" in r.out and "\n.baseline, taken on" not in r.out, r.out
    assert r.doc["settings"]["baseline_source"].startswith(f"cached in {base}, ")


def test_long_names_keep_their_ends_in_the_table(driver, tmp_path):
    """Names were cut to 22 characters: two differing only near the end looked the same."""
    a = write_trace(tmp_path, "lab64-synthetic-mixture-a", OPS, weight=1)
    b = write_trace(tmp_path, "lab64-synthetic-mixture-b", OPS, weight=1)
    u = write_trace(tmp_path, "τ" * 30 + "-x", OPS, weight=1)
    r = run(driver, "-f", a, "-f", b, "-f", u, tmp=tmp_path)
    assert r.rc == 0
    rows = [line for line in r.out.splitlines() if line[:3].strip().isdigit()]
    names = [row[5:27] for row in rows]   # the name column: 22 characters
    assert names == ["lab64-synt\u2026c-mixture-a", "lab64-synt\u2026c-mixture-b", "τ" * 10 + "\u2026" + "τ" * 9 + "-x"]
    assert all(row[27] == " " and row[28:30] == "ok" for row in rows)


def test_long_file_names_of_one_folder_keep_names_of_their_own(driver, tmp_path):
    """Names were cut to 127 bytes: two files whose names differ only after that were one name
    in the JSON, and a baseline saved from the run timed only the first, so --baseline then
    refused the second (its ops were not those timed)."""
    stem = "x" * 130
    a = write_trace(tmp_path, stem + "a", OPS, weight=1)
    b = write_trace(tmp_path, stem + "b", ["a 0 32", "a 1 48", "f 0", "f 1"], weight=1)
    base = tmp_path / "long.baseline"
    saved = run(driver, "-r", "1", "-f", a, "-f", b, "--save-baseline", base, tmp=tmp_path)
    assert saved.rc == 0, saved.err
    assert [t["name"] for t in saved.doc["traces"]] == [stem + "a", stem + "b"]
    cached = run(driver, "-r", "1", "-f", a, "-f", b, "--baseline", base, tmp=tmp_path)
    assert cached.rc == 0 and cached.err == "", cached.err
    for name in (stem + "a", stem + "b"):
        assert cached.trace(name)["libc"]["seconds"] == saved.trace(name)["libc"]["seconds"]


def piped(*traces: bytes) -> tuple[list[str], tuple[int, ...]]:
    """Each trace in a pipe of its own, as a shell's `-f <(cat x.rep)` gives it: the -f
    arguments (/dev/fd/N) and the descriptors to pass.  The traces are small enough for a
    pipe's buffer, so the writing ends are closed at once."""
    args, fds = [], []
    for data in traces:
        r, w = os.pipe()
        os.write(w, data)
        os.close(w)
        args += ["-f", f"/dev/fd/{r}"]
        fds.append(r)
    return args, tuple(fds)


def trace_bytes(comment: str | None) -> bytes:
    return ((f"# {comment}\n" if comment is not None else "") + "20000\n1\n2\n1\na 0 16\nf 0\n").encode()


def test_a_piped_trace_is_named_by_its_first_comment_else_by_its_descriptor(driver, tmp_path):
    """`-f <(zcat x.rep.gz)` was named "63", after /dev/fd/63: now by its first line
    "# NAME: ...", as the kit's traces begin, else "fd63".  A name another trace of the run
    has (a file's, an earlier pipe's) is not taken twice."""
    same = write_trace(tmp_path, "same", OPS, weight=1)
    args, fds = piped(trace_bytes("mine: a trace of my own"), trace_bytes(None),
                      trace_bytes("made by: mmtrace gen binary"), trace_bytes("same: as the file"),
                      trace_bytes("mine: again"))
    try:
        r = run(driver, *args, "-f", same, "-r", "1", tmp=tmp_path, pass_fds=fds)
    finally:
        for fd in fds:
            os.close(fd)
    assert r.rc == 0, r.out + r.err
    want = ["mine", f"fd{fds[1]}", f"fd{fds[2]}", f"fd{fds[3]}", f"fd{fds[4]}", "same"]
    assert [t["name"] for t in r.doc["traces"]] == want
    assert [t["path"] for t in r.doc["traces"]][:5] == [f"/dev/fd/{fd}" for fd in fds]
    rows = [line.split()[1] for line in r.out.splitlines() if line[:3].strip().isdigit()]
    assert rows == want


def test_a_piped_trace_matches_the_baseline_saved_from_its_file(driver, tmp_path):
    """Named by its first comment, the piped copy of a trace finds the timing a baseline
    took of the file (it was "no timing for trace 63")."""
    data = trace_bytes("mine: a trace of my own")
    folder = tmp_path / "t"
    folder.mkdir()
    (folder / "mine.rep").write_bytes(data)
    base = tmp_path / "base.txt"
    assert run(driver, "-f", folder / "mine.rep", "-r", "1", "--save-baseline", base, tmp=tmp_path).rc == 0
    args, fds = piped(data)
    try:
        r = run(driver, *args, "--baseline", base, tmp=tmp_path, pass_fds=fds)
    finally:
        os.close(fds[0])
    assert r.rc == 0 and r.err == "", r.out + r.err
    assert r.doc["settings"]["baseline"] == "cached" and r.trace("mine")["timing"] is not None


def test_traces_of_one_name_from_different_folders_are_named_apart(driver, tmp_path):
    """a/x.rep and b/x.rep were both "x" in the table and the JSON, which a reader of the JSON
    keys by name (one row hid the other) and a baseline too.  Now each trace whose name another
    of the run shares is named by as many of its folders as tell it apart; the others keep theirs."""
    for folder in ("a", "b", "c/a", "d"):
        (tmp_path / folder).mkdir(parents=True)
    ax = write_trace(tmp_path / "a", "x", OPS, weight=1)
    bx = write_trace(tmp_path / "b", "x", ["a 0 32", "a 1 48", "f 0", "f 1"], weight=1)
    cax = write_trace(tmp_path / "c" / "a", "x", OPS, weight=1)
    y = write_trace(tmp_path / "d", "y", OPS, weight=1)

    def names(*args, **kw):
        r = run(driver, *args, "-r", "1", tmp=tmp_path, **kw)
        assert r.rc == 0, r.out + r.err
        rows = [line.split()[1] for line in r.out.splitlines() if line[:3].strip().isdigit()]
        json_names = [t["name"] for t in r.doc["traces"]]
        assert rows == json_names and len(set(json_names)) == len(json_names), r.out
        return dict(zip(json_names, (t["path"] for t in r.doc["traces"])))

    assert names("-f", ax, "-f", bx, "-f", y) == {"a/x": str(ax), "b/x": str(bx), "y": str(y)}
    assert names("-t", tmp_path / "a", "-t", tmp_path / "b") == \
        {"a/x": f"{tmp_path}/a/x.rep", "b/x": f"{tmp_path}/b/x.rep"}
    assert names("-t", tmp_path / "a", "-f", bx) == {"b/x": str(bx), "a/x": f"{tmp_path}/a/x.rep"}
    # one folder more where the last ones are the same, relative paths, ./ and // telling nothing
    assert names("-f", "a/x.rep", "-f", "c/a/x.rep", "-f", "b//x.rep", cwd=tmp_path) == \
        {"a/x": "a/x.rep", "c/a/x": "c/a/x.rep", "b/x": "b//x.rep"}
    assert names("-t", "./a/", "-f", "./d/y.rep", cwd=tmp_path) == {"x": "./a//x.rep", "y": "./d/y.rep"}
    # the same folder and name, plain and gzip: only the file's ending tells them apart
    (tmp_path / "a" / "x.rep.gz").write_bytes(gzip.compress(ax.read_bytes()))
    assert names("-t", tmp_path / "a", "-f", bx) == \
        {"b/x": str(bx), "a/x.rep": f"{tmp_path}/a/x.rep", "a/x.rep.gz": f"{tmp_path}/a/x.rep.gz"}


def test_names_in_the_json_keep_utf8_and_escape_the_bytes_that_are_not(driver, tmp_path):
    """A character past U+FFFF is written as its surrogate pair; an overlong sequence and an
    encoded surrogate are not UTF-8, and go byte by byte.  The only such text a test wrote (an
    allocator's output) had a pair whose low half kept its bit 9 clear and no overlong or low
    surrogate sequence: a low half cut to 9 bits, an overlong '/' read as '/', or U+DC00 taken for
    a character, all left every test passing."""
    names = {b"smile\xf0\x9f\x98\x80": "smile\U0001f600",
             b"slash\xe0\x80\xaf": "slash\xe0\x80\xaf",
             b"low\xed\xb0\x80": "low\xed\xb0\x80"}
    files = []
    for raw in names:
        path = os.fsencode(tmp_path) + b"/" + raw + b".rep"
        with open(path, "w") as f:
            f.write("20000\n1\n2\n1\n" + "".join(f"{op}\n" for op in OPS))
        files += ["-f", os.fsdecode(path)]
    r = run(driver, *files, tmp=tmp_path)
    assert r.rc == 0, r.err
    assert [t["name"] for t in r.doc["traces"]] == list(names.values())


def test_control_bytes_below_0x10_and_del_are_shown_as_two_hex_digits(driver, tmp_path):
    """\\x01 and \\x7f are escaped like \\x1b, always two digits: a name that ends in \\x1 and one
    whose DEL went through raw both left every test passing (the names tested held \\x1b only)."""
    one = write_trace(tmp_path, "one\x01x", OPS, weight=1)
    rub = write_trace(tmp_path, "rub\x7fout", OPS, weight=1)
    r = run(driver, "-f", one, "-f", rub, tmp=tmp_path)
    assert r.rc == 0, r.err
    rows = [line.split()[1] for line in r.out.splitlines() if line[:3].strip().isdigit()]
    assert rows == ["one\\x01x", "rub\\x7fout"]
    assert [t["name"] for t in r.doc["traces"]] == ["one\x01x", "rub\x7fout"]


def test_a_name_as_wide_as_its_column_is_shown_whole(driver, tmp_path):
    """22 characters fit the table's 22-character column: only longer names are cut.  Cutting
    those that fit exactly left every test passing (the names tested were 25 characters)."""
    name = "abcdefghijklmnopqrstuv"
    r = run(driver, "-f", write_trace(tmp_path, name, OPS, weight=1), tmp=tmp_path)
    assert r.rc == 0, r.err
    assert r.row(name)[0][5:27] == name

"""A class as Gradescope ("Export Submissions") or Autolab ("Download All Submissions") gives it.

Gradescope: submission_<id>/ folders beside submission_metadata.yml, whose Ruby-symbol keys
(:submitters:, :name:, :sid:, :email:) name each folder's students.  Autolab: files named
<email>_<version>_<handin>, every version of every student.  Without reading them, the grader
named every student submission_<id>, or graded each Autolab version as a student of its own.
"""
import csv
import io
import json
import re

import jsonschema
import pytest

from grader.downloads import display_name
from grader.model import Versions
from grader.submissions import discover, read_source, unrecognised
from grader_fixtures.helpers import KIT, TRACES, make_fake_kit, run_grader, write_policy
from grader_fixtures.submissions import source

GOOD = "int mm_init(void) { return 0; }\n"
LIMIT = 1 << 20

# As Gradescope writes it (otter-grader's sample export has the same keys), with a group of two
# whose second member has no name, only an sid.
METADATA = """---
submission_1001:
  :submitters:
  - :name: Ada Lovelace
    :sid: '1815'
    :email: ada@example.edu
  :created_at: 2026-11-20 09:58:05.746365000 Z
  :score: 0.0
submission_1002:
  :submitters:
  - :name: Alan Turing
    :sid: '1912'
    :email: alan@example.edu
  - :name: ''
    :sid: 1906
    :email: grace@example.edu
  :created_at: 2026-11-20 10:17:49.412963000 Z
  :score: 0.0
"""


def _gradescope(root, metadata=METADATA, folders=("submission_1001", "submission_1002")):
    root.mkdir(exist_ok=True)
    for folder in folders:
        (root / folder).mkdir()
        (root / folder / "mm.c").write_text(GOOD)
    (root / "submission_metadata.yml").write_text(metadata)
    return root


def _discover(root):
    notes = []
    found = discover(root, notes)
    return {c.origin.name: c for c in found}, notes


def test_gradescope_folders_are_named_by_their_submitters(tmp_path):
    found, notes = _discover(_gradescope(tmp_path / "export"))
    assert {k: c.name for k, c in found.items()} == {"submission_1001": "Ada_Lovelace",
                                                     "submission_1002": "Alan_Turing__1906"}
    assert found["submission_1002"].label == "Alan Turing, 1906"          # a group: each member, joined
    assert {c.handin for c in found.values()} == {"submission_1001", "submission_1002"}
    assert all(read_source(c, LIMIT) == GOOD for c in found.values())
    assert notes == [] and unrecognised(tmp_path / "export") == []      # the metadata is no stray entry


def test_a_folder_the_metadata_does_not_name_keeps_its_name_and_a_lost_one_is_said(tmp_path):
    root = _gradescope(tmp_path / "export", METADATA + "submission_1004:\n  :submitters:\n  - :name: Lin Wu\n",
                       folders=("submission_1001", "submission_1002", "submission_1003"))
    found, notes = _discover(root)
    assert found["submission_1003"].name == "submission_1003" and found["submission_1001"].name == "Ada_Lovelace"
    meta = root / "submission_metadata.yml"
    assert notes == [f"warning: {meta} lists submission_1004 (Lin Wu), which is not in the folder; not graded",
                     f"warning: {meta} does not name submission_1003; graded as submission_1003"]


def test_two_students_of_one_name_stay_apart(tmp_path):
    twins = METADATA.replace("Alan Turing", "Ada Lovelace")
    found, _ = _discover(_gradescope(tmp_path / "export", twins))
    names = [c.name for c in found.values()]
    assert len(set(names)) == 2 and all(n.startswith("Ada_Lovelace") for n in names)
    assert not any(c.problem for c in found.values())


@pytest.mark.parametrize("metadata, why", [
    ("submission_1001:\n  :submitters:\n  - :name: 'Ada\n", "line 4"),                 # cut off mid-string
    ("submission_1001: [unclosed\n", "line 2"),
    ("- submission_1001\n- submission_1002\n", "not a mapping"),
    ("", "not a mapping"),
    ("\xff\xfe\x00binary", "incomplete UTF-16 character)"),
    ("submission_1001: !ruby/object:Gradescope::Submission {}\n", "could not determine a constructor"),
])
def test_broken_metadata_is_one_warning_and_the_folders_keep_their_names(tmp_path, metadata, why):
    root = tmp_path / "export"
    root.mkdir()
    (root / "submission_metadata.yml").write_bytes(metadata.encode("latin-1"))
    for folder in ("submission_1001", "submission_1002"):
        (root / folder).mkdir()
        (root / folder / "mm.c").write_text(GOOD)
    found, notes = _discover(root)
    assert sorted(c.name for c in found.values()) == ["submission_1001", "submission_1002"]
    assert len(notes) == 1 and "\n" not in notes[0] and why in notes[0], notes
    assert notes[0].startswith(f"warning: {root / 'submission_metadata.yml'}: cannot read Gradescope's metadata (")
    assert notes[0].endswith("); the submissions keep their folder names")


def test_entries_without_a_usable_submitter_keep_their_folder_names(tmp_path):
    partial = ("submission_1001:\n  :submitters: []\nsubmission_1002:\n  :submitters:\n  - :name: null\n"
               "submission_1003: just text\n")
    root = _gradescope(tmp_path / "export", partial, folders=("submission_1001", "submission_1002", "submission_1003"))
    found, notes = _discover(root)
    assert sorted(c.name for c in found.values()) == ["submission_1001", "submission_1002", "submission_1003"]
    assert len(notes) == 3 and all("has no submitter with a name, sid or email" in n for n in notes)


AUTOLAB = ["ada@cmu.edu_1_mm.c", "ada@cmu.edu_3_mm.c", "ada@cmu.edu_2_mm.c", "john_doe@cs.cmu.edu_1_mm.c",
           "zoe@andrew.cmu.edu_2_handin.tar"]


def _autolab(root, names=AUTOLAB):
    root.mkdir()
    for name in names:
        if name.endswith(".tar"):
            import tarfile
            with tarfile.open(root / name, "w") as t:
                info = tarfile.TarInfo("mm.c")
                info.size = len(GOOD)
                t.addfile(info, io.BytesIO(GOOD.encode()))
        else:
            (root / name).write_text(GOOD + f"/* {name} */\n")
    return root


def test_autolab_grades_each_students_latest_version_only(tmp_path):
    root = _autolab(tmp_path / "download")
    found, notes = _discover(root)
    assert sorted(found) == ["ada@cmu.edu_3_mm.c", "john_doe@cs.cmu.edu_1_mm.c", "zoe@andrew.cmu.edu_2_handin.tar"]
    assert {c.label for c in found.values()} == {"ada@cmu.edu", "john_doe@cs.cmu.edu", "zoe@andrew.cmu.edu"}
    assert read_source(found["ada@cmu.edu_3_mm.c"], LIMIT).endswith("/* ada@cmu.edu_3_mm.c */\n")
    assert read_source(found["zoe@andrew.cmu.edu_2_handin.tar"], LIMIT) == GOOD
    assert notes == ["note: ada@cmu.edu: graded version 3 (ada@cmu.edu_3_mm.c); older versions 1, 2 left out"]
    assert found["ada@cmu.edu_3_mm.c"].versions == Versions(3, (1, 2))        # for the record (below)
    assert found["john_doe@cs.cmu.edu_1_mm.c"].versions == Versions(1, ())


def test_only_a_clear_autolab_name_is_read_as_one(tmp_path):
    """bob_2_mm.c has no address, x@localhost_1_mm.c no dotted domain: NAME.c as before, each its own."""
    names = ["bob_1_mm.c", "bob_2_mm.c", "x@localhost_1_mm.c", "x@localhost_2_mm.c", "ann.c", "carol-mm.c"]
    found, notes = _discover(_autolab(tmp_path / "class", names))
    assert sorted(c.name for c in found.values()) == ["ann", "bob_1_mm", "bob_2_mm", "carol", "x_localhost_1_mm",
                                                     "x_localhost_2_mm"]
    assert notes == []


def test_the_class_folder_forms_read_as_before(tmp_path):
    (tmp_path / "alice").mkdir()
    (tmp_path / "alice" / "mm.c").write_text(GOOD)
    (tmp_path / "bob.c").write_text(GOOD)
    (tmp_path / "carol-mm.c").write_text(GOOD)
    (tmp_path / "a b").mkdir()
    (tmp_path / "a b" / "mm.c").write_text(GOOD)
    (tmp_path / "a_b").mkdir()
    (tmp_path / "a_b" / "mm.c").write_text(GOOD)
    found, notes = _discover(tmp_path)
    names = {k: c.name for k, c in found.items()}
    assert names["alice"] == "alice" and names["bob.c"] == "bob" and names["carol-mm.c"] == "carol"
    assert names["a_b"] == "a_b" and names["a b"].startswith("a_b-") and notes == []
    assert all(c.label == "" for c in found.values())


def test_grade_reads_both_downloads_and_names_each_student(tmp_path):
    """End to end with the fake kit: the outputs' names are the students', the handin column the
    download's own entry, and stderr has one line for each thing the instructor must know."""
    kit = make_fake_kit(tmp_path / "kit")
    config = write_policy(tmp_path)
    gs = _gradescope(tmp_path / "gs", folders=("submission_1001", "submission_1002", "submission_1003"))
    (gs / "submission_1002" / "mm.c").write_text(source("compile_error"))
    for folder in ("submission_1001", "submission_1003"):
        (gs / folder / "mm.c").write_text(source("good"))
    al = tmp_path / "al"
    al.mkdir()
    (al / "ada@cmu.edu_1_mm.c").write_text(source("compile_error"))
    (al / "ada@cmu.edu_2_mm.c").write_text(source("good"))
    for given, expected, said in (
            (gs, {"Ada_Lovelace": ("ok", "submission_1001"), "Alan_Turing__1906": ("compile_error", "submission_1002"),
                  "submission_1003": ("ok", "submission_1003")},
             [f"mmgrade: warning: {gs / 'submission_metadata.yml'} does not name submission_1003; "
              "graded as submission_1003"]),
            (al, {"ada_cmu.edu": ("ok", "ada@cmu.edu_2_mm.c")},
             ["mmgrade: note: ada@cmu.edu: graded version 2 (ada@cmu.edu_2_mm.c); older version 1 left out"])):
        out = tmp_path / f"out-{given.name}"
        done = run_grader("grade", given, "-o", out, "--kit", kit, "--config", config, "--traces", TRACES,
                          "--no-report", capture_output=True, text=True, timeout=300)
        assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
        assert [line for line in done.stderr.splitlines() if line.startswith(("mmgrade: note: ada", "mmgrade: warning"))] \
            == said, done.stderr
        rows = {r["name"]: (r["verdict"], r["handin"])
                for r in csv.DictReader(io.StringIO((out / "grades.csv").read_text()))}
        assert rows == expected
        records = {s["name"] for s in json.loads((out / "results.json").read_text())["submissions"]}
        assert records == set(expected)


def test_grade_with_broken_metadata_says_so_in_one_line(tmp_path):
    kit = make_fake_kit(tmp_path / "kit")
    gs = _gradescope(tmp_path / "gs", "submission_1001:\n  :submitters: [\n", folders=("submission_1001",))
    (gs / "submission_1001" / "mm.c").write_text(source("good"))
    out = tmp_path / "out"
    done = run_grader("grade", gs, "-o", out, "--kit", kit, "--config", write_policy(tmp_path), "--traces", TRACES,
                      "--no-report", capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    warned = [line for line in done.stderr.splitlines() if "submission_metadata.yml" in line]
    assert len(warned) == 1 and warned[0].startswith(f"mmgrade: warning: {gs / 'submission_metadata.yml'}: cannot read")
    assert [s["name"] for s in json.loads((out / "results.json").read_text())["submissions"]] == ["submission_1001"]


def _refused_then_graded(tmp_path, archive, message):
    """`mmgrade grade ARCHIVE` stops before building with one line starting with MESSAGE; its advice,
    followed as given, grades the unpacked folder: the records' names."""
    import subprocess
    kit = make_fake_kit(tmp_path / "kit")
    config = write_policy(tmp_path)
    out = tmp_path / "out"
    done = run_grader("grade", archive, "-o", out, "--kit", kit, "--config", config, "--traces", TRACES,
                      capture_output=True, text=True, timeout=300)
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(lines) == 1 and lines[0].startswith(f"mmgrade: {archive}: {message}"), \
        done.stderr
    assert not out.exists()
    mkdir, unpack, rerun = lines[0].split("grade the folder: ", 1)[1].split(" && ")
    assert subprocess.run(f"{mkdir} && {unpack}", shell=True, cwd=tmp_path).returncode == 0
    folder, _, outdir = rerun.removeprefix("mmgrade grade ").partition(" -o ")
    graded = run_grader("grade", tmp_path / folder, "-o", outdir, "--kit", kit, "--config", config,
                        "--traces", TRACES, "--no-report", capture_output=True, text=True, timeout=300)
    assert graded.returncode == 0, graded.stderr
    return {s["name"]: s["verdict"] for s in json.loads((out / "results.json").read_text())["submissions"]}


def test_a_gradescope_export_zip_given_whole_is_refused_with_how_to_grade_it(tmp_path):
    """Its folders hold mm.c or an archive: with one mm.c among them, the whole export was graded
    as one student named after the zip."""
    import zipfile
    archive = tmp_path / "submissions.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("assignment_77_export/submission_metadata.yml", METADATA)
        z.writestr("assignment_77_export/submission_1001/mm.c", source("good"))
        inner = io.BytesIO()
        with zipfile.ZipFile(inner, "w") as student:
            student.writestr("handin/mm.c", source("good"))
        z.writestr("assignment_77_export/submission_1002/handin.zip", inner.getvalue())
    names = _refused_then_graded(tmp_path, archive, "holds 2 submission folders of a Gradescope export "
                                 "(submission_1001/, submission_1002/): it looks like a whole class")
    assert names == {"Ada_Lovelace": "ok", "Alan_Turing__1906": "ok"}


def test_an_autolab_download_zip_given_whole_is_refused_with_how_to_grade_it(tmp_path):
    """It was one student, bad_submission: no mm.c in the archive."""
    import zipfile
    archive = tmp_path / "15213_f26_malloclab_submissions.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("ada@cmu.edu_1_mm.c", source("compile_error"))
        z.writestr("ada@cmu.edu_2_mm.c", source("good"))
        z.writestr("bob@cmu.edu_1_mm.c", source("good"))
    names = _refused_then_graded(tmp_path, archive, "holds 2 students' hand-ins of an Autolab download "
                                 "(ada@cmu.edu, bob@cmu.edu): it looks like a whole class")
    assert names == {"ada_cmu.edu": "ok", "bob_cmu.edu": "ok"}


def _row(index_html, name):
    """The report's table row of the record NAME."""
    rows = [r for r in re.findall(r"<tr\b.*?</tr>", index_html, re.S) if f'href="sub/{name}.html"' in r]
    assert len(rows) == 1, index_html
    return rows[0]


def test_autolab_versions_left_out_are_kept_where_the_grades_are(tmp_path):
    """The note naming the versions left out went to stderr only: results.json, grades.csv and the
    report now say which version was graded and which were not, and a resumed run keeps it (and
    follows the download when it changes: an older version no longer in it is no longer named)."""
    kit = make_fake_kit(tmp_path / "kit")
    config = write_policy(tmp_path)
    al = tmp_path / "al"
    al.mkdir()
    (al / "ada@cmu.edu_1_mm.c").write_text(source("compile_error"))
    (al / "ada@cmu.edu_2_mm.c").write_text(source("compile_error") + "/* 2 */\n")
    (al / "ada@cmu.edu_3_mm.c").write_text(source("good"))
    (al / "bob@cmu.edu_4_mm.c").write_text(source("good") + "/* bob */\n")
    out = tmp_path / "out"
    schema = json.loads((KIT / "grader" / "schemas" / "results.schema.json").read_text())
    record_schema = {"$schema": schema["$schema"], "$defs": schema["$defs"], "$ref": "#/$defs/submission"}

    def grade(*extra):
        done = run_grader("grade", al, "-o", out, "--kit", kit, "--config", config, "--traces", TRACES, *extra,
                          capture_output=True, text=True, timeout=300)
        assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
        return done.stderr

    def check(left_out, shown):
        data = json.loads((out / "results.json").read_text())
        jsonschema.validate(data, schema)
        for path in (out / "submissions").glob("*.json"):
            jsonschema.validate(json.loads(path.read_text()), record_schema)
        subs = {s["name"]: s for s in data["submissions"]}
        assert subs["ada_cmu.edu"]["verdict"] == "ok" and subs["ada_cmu.edu"]["origin"].endswith("ada@cmu.edu_3_mm.c")
        assert subs["ada_cmu.edu"]["versions"] == {"graded": 3, "left_out": left_out}
        assert subs["bob_cmu.edu"]["versions"] == {"graded": 4, "left_out": []}
        rows = {r["name"]: r for r in csv.DictReader(io.StringIO((out / "grades.csv").read_text()))}
        assert (rows["ada_cmu.edu"]["version"], rows["ada_cmu.edu"]["left_out"]) == ("3", ", ".join(map(str, left_out)))
        assert (rows["bob_cmu.edu"]["version"], rows["bob_cmu.edu"]["left_out"]) == ("4", "")
        index = (out / "report" / "index.html").read_text()
        assert f"graded version 3; {shown} left out" in _row(index, "ada_cmu.edu")
        assert "graded version 4<" in _row(index, "bob_cmu.edu") and "left out" not in _row(index, "bob_cmu.edu")
        assert f"graded version 3; {shown} left out" in (out / "report" / "sub" / "ada_cmu.edu.html").read_text()

    said = grade()
    assert "mmgrade: note: ada@cmu.edu: graded version 3 (ada@cmu.edu_3_mm.c); older versions 1, 2 left out" in said
    check([1, 2], "older versions 1, 2")
    said = grade()                      # resumed: both records reused, the versions kept
    assert "ada_cmu.edu: ok (unchanged)" in said and "bob_cmu.edu: ok (unchanged)" in said, said
    check([1, 2], "older versions 1, 2")
    (al / "ada@cmu.edu_1_mm.c").unlink()
    said = grade()                      # the same file graded: reused, but version 1 is no longer in the download
    assert "ada_cmu.edu: ok (unchanged)" in said, said
    check([2], "older version 2")
    done = run_grader("report", out, capture_output=True, text=True, timeout=300)     # rebuilt from results.json
    assert done.returncode == 0, done.stderr
    check([2], "older version 2")


# Groups: of two with names; one whose members lack a name (sid, then email used) and whose name
# was typed over two lines; the first group again and in other case (two submissions of the same
# people); and a student in a second group.
GROUPS = {
    "submission_2001": [("Alan Turing", "'1912'", "alan@example.edu"), ("Grace Hopper", "'1906'", "grace@example.edu")],
    "submission_2002": [('"Ada\\nLovelace"', "'1815'", "ada@example.edu"), ("''", "1843", "babbage@example.edu"),
                        ("null", "''", "kate@example.edu")],
    "submission_2003": [("Alan Turing", "'1912'", "alan@example.edu"), ("Grace Hopper", "'1906'", "grace@example.edu")],
    "submission_2004": [("alan turing", "'1912'", "alan@example.edu"), ("GRACE HOPPER", "'1906'", "grace@example.edu")],
    "submission_2005": [("Grace Hopper", "'1906'", "grace@example.edu"), ("Ada Lovelace", "'1815'", "ada@example.edu")],
}
LABELS = {"submission_2001": "Alan Turing, Grace Hopper", "submission_2002": "Ada Lovelace, 1843, kate@example.edu",
          "submission_2003": "Alan Turing, Grace Hopper", "submission_2004": "alan turing, GRACE HOPPER",
          "submission_2005": "Grace Hopper, Ada Lovelace"}


def _groups_metadata():
    return "".join(f"{folder}:\n  :submitters:\n" + "".join(f"  - :name: {n}\n    :sid: {s}\n    :email: {e}\n"
                                                          for n, s, e in people)
                   for folder, people in GROUPS.items())


def test_a_groups_name_reads_as_its_members_and_its_files_stay_safe_and_apart(tmp_path):
    """A group's record was shown as its file name, `Alan_Turing__Grace_Hopper`: results.json,
    grades.csv and the report now show `Alan Turing, Grace Hopper`, on one line, while the record's
    name, which its files are named by, stays safe and differs from every other group's, also in
    case only (two submissions of the same people)."""
    kit = make_fake_kit(tmp_path / "kit")
    gs = _gradescope(tmp_path / "gs", _groups_metadata(), folders=tuple(GROUPS))
    for folder in GROUPS:
        (gs / folder / "mm.c").write_text(source("good") + f"/* {folder} */\n")
    out = tmp_path / "out"
    done = run_grader("grade", gs, "-o", out, "--kit", kit, "--config", write_policy(tmp_path), "--traces", TRACES,
                      capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and "Traceback" not in done.stderr and "warning" not in done.stderr, done.stderr
    data = json.loads((out / "results.json").read_text())
    jsonschema.validate(data, json.loads((KIT / "grader" / "schemas" / "results.schema.json").read_text()))
    records = {s["origin"].rsplit("/", 1)[1]: s for s in data["submissions"]}
    assert {folder: s["label"] for folder, s in records.items()} == LABELS
    names = {folder: s["name"] for folder, s in records.items()}
    assert len({n.casefold() for n in names.values()}) == len(GROUPS)          # no two files one, anywhere
    assert all(re.fullmatch(r"[\w.-]+", n) for n in names.values()), names
    assert names["submission_2005"] == "Grace_Hopper__Ada_Lovelace"            # no other takes it: no hash
    assert names["submission_2002"] == "Ada_Lovelace__1843__kate_example.edu"
    assert all(names[f].casefold().startswith("alan_turing__grace_hopper-") for f in
               ("submission_2001", "submission_2003", "submission_2004"))
    index = (out / "report" / "index.html").read_text()
    for folder, name in names.items():
        assert (out / "submissions" / f"{name}.json").is_file()
        page = (out / "report" / "sub" / f"{name}.html").read_text()
        assert f"<h1>{LABELS[folder]}" in page and f"(record {name})" in page
        assert f'<a href="sub/{name}.html">{LABELS[folder]}</a>' in _row(index, name)
    rows = {r["handin"]: r for r in csv.DictReader(io.StringIO((out / "grades.csv").read_text()))}
    assert {folder: (r["name"], r["label"]) for folder, r in rows.items()} == \
        {folder: (names[folder], label) for folder, label in LABELS.items()}


def test_shown_names_keep_to_one_line():
    """White space in a name (a newline, a tab) is one space; any other control character is escaped."""
    assert display_name("Ada\n  Lovelace\t") == "Ada Lovelace"
    assert display_name("Ada\x1bLovelace") == "Ada\\x1bLovelace" and display_name("x\ud800") == "x\\ud800"


def test_a_name_of_dots_is_no_file_name_of_dots(tmp_path):
    """A submitter called '..' or '.alan' would name a record '..' or a hidden '.alan__1906': leading dots go."""
    root = tmp_path / "gradescope"
    metadata = METADATA.replace(":name: Ada Lovelace", ":name: '..'").replace(":name: Alan Turing", ":name: '.alan'")
    found, _ = _discover(_gradescope(root, metadata))
    assert {k: c.name for k, c in found.items()} == {"submission_1001": "submission", "submission_1002": "alan__1906"}

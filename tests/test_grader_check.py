"""mmgrade check: what a student runs before handing in, and what it says of a build that fails
(the file checked named as the student knows it, never the grader's folders)."""
import json
import re

import pytest

from grader_fixtures.helpers import KIT, TRACES, bare_path, classroom, cli, make_fake_kit, one_line_error, write_policy  # noqa: F401 (a fixture)
from grader_fixtures.submissions import source


@pytest.mark.parametrize("name, status, expected", [
    ("good", 0, ["pass    writable_data", "passes the grader's build and static rules"]),
    ("globals", 1, ["more than the 128 allowed (big_table 512, helper_count 4)",
                    "warn    other_globals      non-static globals (make them static): big_table, helper_count",
                    "the grader would reject it: writable_data"]),
    ("compile_error", 1, ["mm.c: does not compile: mm.c:"]),
    ("link_error", 1, ["does not link with the driver", "reject  undefined_symbols",
                       "helper_nobody_defines"]),
])
def test_check_tells_a_student_what_the_grader_would_refuse(tmp_path, name, status, expected):
    (tmp_path / "mm.c").write_text(source(name))
    done = cli("check", "--kit", make_fake_kit(tmp_path / "kit"), "--config", write_policy(tmp_path), cwd=tmp_path)
    assert done.returncode == status, done.stdout + done.stderr
    assert all(line in done.stdout for line in expected), done.stdout
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("text, expected", [
    # the assembler, stopped by build.file_size_bytes, left a partial alloc.o: was "does not link"
    ("#include \"mm.h\"\nchar big[1 << 30] = {1};\nint mm_init(void) { return big[0]; }\n", "mm.c: does not compile: cc: internal compiler error: File size limit exceeded"),
    # the error came after 64 KiB of "In file included from": the reason was one of those lines
    ('#include "mm.c"\n', "error: #include nested depth"),
])
def test_check_names_the_stage_and_the_line_that_failed(tmp_path, text, expected):
    (tmp_path / "mm.c").write_text(text)
    done = cli("check", "--kit", make_fake_kit(tmp_path / "kit"), "--config", write_policy(tmp_path), cwd=tmp_path)
    first = done.stdout.splitlines()[0] if done.stdout else ""
    assert done.returncode == 1 and first.startswith("mm.c: does not compile: ") and expected in first, done.stdout



@pytest.mark.parametrize("change, said", [
    (("return block + MM_ALIGNMENT", "return block +"), r"does not compile: mm-new\.c:\d+:\d+: error: "),
    (("/*INIT*/", "void helper_nobody_defines(void); helper_nobody_defines();"),
     r"does not link with the driver: mm-new\.c:\d+: undefined reference to `helper_nobody_defines'"),
], ids=["compile", "link"])
def test_a_build_error_names_the_file_checked_not_the_graders_copy(tmp_path, change, said):
    """`mmgrade check mm-new.c` said 'mm-new.c: does not compile: mm.c:27:...' (or '/sub/mm.c:27' for
    the linker): the grader's copy is named mm.c, so a student with an mm.c beside it opened the
    wrong file at that line."""
    (tmp_path / "mm.c").write_text(source("good"))
    (tmp_path / "mm-new.c").write_text(source("good").replace(*change))
    done = cli("check", "mm-new.c", "--kit", KIT, "--config", write_policy(tmp_path), cwd=tmp_path)
    first = done.stdout.splitlines()[0] if done.stdout else ""
    assert done.returncode == 1 and re.match(r"mm-new\.c: " + said, first), first

def test_a_link_error_names_the_missing_function_not_the_linkers_last_line(tmp_path):
    """An mm.c without mm_realloc breaks no rule: the one line was the linker's last,
    'collect2: error: ld returned 1 exit status', which does not say what is missing."""
    good = source("good")
    (tmp_path / "mm.c").write_text(good[:good.index("void *mm_realloc")])
    done = cli("check", "--kit", KIT, "--config", write_policy(tmp_path), cwd=tmp_path)   # the driver calls it
    first = done.stdout.splitlines()[0] if done.stdout else ""
    assert done.returncode == 1 and first.startswith("mm.c: does not link with the driver: "), done.stdout
    assert "undefined reference to `mm_realloc'" in first and "collect2" not in first, first

GRADERS_FOLDER = re.compile(r"/mmgrade-[^/\s]*/|(?<![\w.-])/sub/")   # its temporary folders, the sandbox's mount


@pytest.mark.parametrize("bubblewrap", [True, False], ids=["bwrap", "no-bwrap"])
def test_build_errors_name_the_students_file_never_the_graders_folders(tmp_path, bubblewrap):
    """Without bubblewrap (setpriv as root) the link error read '/tmp/mmgrade-check-x/sub/mm.c:12:
    undefined reference to ...', in check's line and in a grade's reason and build log; in every
    mode a clash with the driver said '...mdriver.r.o:/tmp/mmgrade-x/template/mdriver.c:282'."""
    env = None if bubblewrap else bare_path(tmp_path, without=("bwrap",))
    subs = tmp_path / "subs"
    subs.mkdir()
    (subs / "ann.c").write_text(source("link_error"))
    (subs / "bob.c").write_text(source("good").replace("/*EXTRA*/", "int main(void) { return 0; }"))
    checked = cli("check", subs / "ann.c", "--kit", KIT, "--config", write_policy(tmp_path), env=env)
    first = checked.stdout.splitlines()[0] if checked.stdout else ""
    assert re.match(r"ann\.c: does not link with the driver: ann\.c:\d+: undefined reference to "
                    r"`helper_nobody_defines'$", first), checked.stdout + checked.stderr
    clash = cli("check", subs / "bob.c", "--kit", KIT, "--config", write_policy(tmp_path), env=env)
    assert "main" in clash.stdout and not GRADERS_FOLDER.search(clash.stdout), clash.stdout
    out = tmp_path / "out"
    graded = cli("grade", subs, "-o", out, "--kit", KIT, "--config", write_policy(tmp_path), "--traces", TRACES,
                  "--no-report", env=env)
    assert graded.returncode == 0, graded.stderr
    for name in ("ann", "bob"):
        record = json.loads((out / "submissions" / f"{name}.json").read_text())
        assert record["verdict"] == "link_error" and "mm.c" in record["reason"], record["reason"]
        assert not GRADERS_FOLDER.search(record["reason"] + record["build_log"]), record["build_log"]
    assert not GRADERS_FOLDER.search((out / "grades.csv").read_text())


def test_a_clash_with_the_drivers_names_is_said_in_one_line(tmp_path):
    """An mm.c with a main of its own (a test harness) was 'does not link with the driver:
    mm.c:(.text.startup+0x0): multiple definition of `main'; build/mm-a16/mdriver.r.o:/tmp/mmgrade-x/
    template/mdriver.c:282: first defined here': ld's words, and the grader's folder."""
    said = "it defines names the driver itself defines (main, mem_sbrk): remove them, make them static or rename them"
    extra = "int main(void) { return 0; }\nvoid *mem_sbrk(intptr_t n) { (void)n; return 0; }"
    subs = tmp_path / "subs"
    subs.mkdir()
    (subs / "bob.c").write_text(source("good").replace("/*EXTRA*/", extra))
    checked = cli("check", subs / "bob.c", "--kit", KIT, "--config", write_policy(tmp_path))
    assert checked.returncode == 1, checked.stdout + checked.stderr
    assert checked.stdout.splitlines()[0] == f"bob.c: does not link with the driver: {said}", checked.stdout
    out = tmp_path / "out"
    graded = cli("grade", subs, "-o", out, "--kit", KIT, "--config", write_policy(tmp_path), "--traces", TRACES,
                  "--no-report")
    record = json.loads((out / "submissions" / "bob.json").read_text())
    assert (record["verdict"], record["reason"]) == ("link_error", f"mm.c does not link with the driver: {said}")


@pytest.mark.parametrize("data, message", [(b"\x7fELF\0\0\0", "binary data"), (b"", "the file is empty"),
                                           (b"int caf\xe9;\n", "not UTF-8")])
def test_check_on_a_file_the_grader_would_refuse_is_status_1(tmp_path, data, message):
    """The file is the student's to fix, as a failing rule is: 1, not the 2 of a check not made."""
    (tmp_path / "mm.c").write_bytes(data)
    done = cli("check", "--kit", make_fake_kit(tmp_path / "kit"), "--config", write_policy(tmp_path), cwd=tmp_path)
    error = one_line_error(done, status=1)
    assert "mm.c" in error and message in error and "would refuse it (bad_submission)" in error


def test_check_names_a_folder_with_a_newline_on_one_line(tmp_path):
    """check printed the folder's name raw: its verdict line was two lines."""
    folder = tmp_path / "kim\nlee"
    folder.mkdir()
    (folder / "mm.c").write_text(source("good"))
    done = cli("check", folder, "--kit", make_fake_kit(tmp_path / "kit"), "--config", write_policy(tmp_path))
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1].startswith("kim\\nlee: passes the grader's build and static rules"), done.stdout


def test_check_agrees_with_the_grader(classroom, tmp_path):
    """The same build and rules: what check refuses, grade rejects, and the other way round."""
    kit, subs, config = classroom
    for name in ("globals", "ifunc"):
        (subs / f"{name}.c").write_text(source(name))
    (subs / "cid.c").unlink()
    out = tmp_path / "out"
    graded = cli("grade", subs, "-o", out, "--kit", kit, "--config", config, "--traces", TRACES, "--no-report")
    assert graded.returncode == 0, graded.stderr
    verdicts = {s["name"]: s["verdict"] for s in json.loads((out / "results.json").read_text())["submissions"]}
    for name in ("ann", "bob", "globals", "ifunc"):
        path = next(subs.glob(f"{name}*.c"))
        checked = cli("check", path, "--kit", kit, "--config", config)
        assert (checked.returncode == 0) == (verdicts[name] == "ok"), (name, verdicts[name], checked.stdout)
        assert ("would reject" in checked.stdout) == (verdicts[name] == "rejected"), (name, checked.stdout)


def test_check_reads_a_hand_in_folder_as_grade_does(classroom, tmp_path):
    """`mmgrade check kate` (kate/handin/mm.c) took kate for a class of one hand-in, handin; a folder
    holding mm.c and a helper .c was 'expected one submission, found 2', though grade grades its mm.c.
    Check and grade read a folder in one place: kate/handin/mm.c is kate's mm.c (it was refused by
    both until a folder read as the archive it was unpacked from), mona/malloc.c is refused by both."""
    kit, subs, config = classroom
    for name in ("ann", "bob-mm", "cid"):
        (subs / f"{name}.c").unlink()
    (subs / "kate" / "handin").mkdir(parents=True)
    (subs / "kate" / "handin" / "mm.c").write_text(source("good"))
    (subs / "liam").mkdir()
    (subs / "liam" / "mm.c").write_text(source("good"))
    (subs / "liam" / "old-try.c").write_text(source("compile_error"))
    (subs / "mona").mkdir()
    (subs / "mona" / "malloc.c").write_text(source("good"))
    out = tmp_path / "out"
    graded = cli("grade", subs, "-o", out, "--kit", kit, "--config", config, "--traces", TRACES, "--no-report")
    assert graded.returncode == 0, graded.stderr
    verdicts = {s["name"]: s["verdict"] for s in json.loads((out / "results.json").read_text())["submissions"]}
    assert verdicts == {"kate": "ok", "liam": "ok", "mona": "bad_submission"}
    refused = one_line_error(cli("check", subs / "mona", "--kit", kit, "--config", config), status=1)
    assert refused == ("mmgrade: mona/mm.c: missing: the folder mona has no mm.c (it holds malloc.c); the grader "
                       "would refuse it (bad_submission)")
    for name in ("kate", "liam"):
        passed = cli("check", subs / name, "--kit", kit, "--config", config)
        assert passed.returncode == 0 and f"{name}: passes the grader's build and static rules" in passed.stdout, passed


@pytest.mark.parametrize("command", ["check", "autolab"])
def test_a_folder_named_mm_c_is_refused_as_a_folder(tmp_path, command):
    """`mmgrade check mm.c` (or autolab) on a folder mm.c/ read it as a whole hand-in, student 'mm':
    its mm.c/mm.c passed the check, or was graded.  The student meant a file: it is refused in one
    line naming it as a folder, in the words gradescope (find_one) uses."""
    (tmp_path / "mm.c").mkdir()
    (tmp_path / "mm.c" / "mm.c").write_text(source("good"))
    done = cli(command, "mm.c", "--kit", make_fake_kit(tmp_path / "kit"), "--config", write_policy(tmp_path),
               cwd=tmp_path)
    if command == "check":
        assert one_line_error(done) == "mmgrade: mm.c: a folder, not a file"
    else:
        # the hand-in's fault, not the grader's: a bad_submission's 0, as in a class, not 'the grader failed'
        assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
        assert done.stdout.splitlines() == [
            "bad_submission: mm.c: a folder, not a file",
            '{"scores":{"Correctness":0,"Performance":0},"scoreboard":[0,0,0]}'], done.stdout

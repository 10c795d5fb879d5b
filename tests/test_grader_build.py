"""grader.build: what a build's folder holds, and how a build's outcome is classified.

The classification is driven by a stand-in Makefile run without a sandbox: what matters here is
which files make leaves and what it says, not the compiler."""
import dataclasses

import pytest

from grader.build import KitError, build_submission, copy_kit, prepare_folder
from grader.policy import load_policy
from grader.sandbox import unsafe_sandbox


@pytest.fixture(scope="module")
def policy(kit):
    return load_policy(kit)


def test_a_build_gets_the_variants_headers_and_none_of_their_sources(tmp_path, kit):
    """The course's variants are its answers: a build sees the shared headers only."""
    copy_kit(kit, tmp_path / "t")
    copied = sorted(p.name for p in (tmp_path / "t" / "variants").iterdir())
    assert copied and all(name.endswith(".h") for name in copied), copied


def test_a_kit_without_the_driver_is_the_kits_error(tmp_path):
    with pytest.raises(KitError, match="the kit has no Makefile"):
        copy_kit(tmp_path, tmp_path / "t")


def test_a_fresh_folder_has_the_source_and_none_of_the_templates_allocator(tmp_path):
    """A stale alloc.o or mdriver would stand for a build that failed."""
    template = tmp_path / "template"
    (template / "build" / "k-a16").mkdir(parents=True)
    for name in ("alloc.o", "alloc.d", "mdriver", "memlib.o"):
        (template / "build" / "k-a16" / name).write_text("old")
    (template / "mm.c").write_text("the course's own")
    prepare_folder(template, tmp_path / "sub", "int student;\n")
    assert sorted(p.name for p in (tmp_path / "sub" / "build" / "k-a16").iterdir()) == ["memlib.o"]
    assert (tmp_path / "sub" / "mm.c").read_text() == "int student;\n"


# Stand-in Makefiles: `make driver` makes build/k-a16/alloc.o, then build/k-a16/mdriver.
MAKEFILES = {
    "ok": "driver:\n\tmkdir -p build/k-a16 && touch build/k-a16/alloc.o build/k-a16/mdriver\n",
    # the assembler, stopped by the file-size limit, leaves a partial alloc.o: still mm.c's failure
    "partial": "driver: build/k-a16/alloc.o\nbuild/k-a16/alloc.o:\n\tmkdir -p build/k-a16 && touch $@ && "
               "echo 'mm.c:3:1: error: no' >&2 && false\n",
    "link": "driver: build/k-a16/alloc.o\n\techo \"undefined reference to \\`sbrk'\" >&2 && false\n"
            "build/k-a16/alloc.o:\n\tmkdir -p build/k-a16 && touch $@\n",
    "slow": "driver:\n\tsleep 30\n",
    # mdriver made, then a later step of the recipe failed: not a driver to run
    "after": "driver: build/k-a16/alloc.o\n\ttouch build/k-a16/mdriver && echo 'ld: error: late' >&2 && false\n"
             "build/k-a16/alloc.o:\n\tmkdir -p build/k-a16 && touch $@\n",
    # 2 MB: past the run's file-size limit (1 MB), within the build's own (cc1 writes large .s files)
    "large": "driver:\n\tmkdir -p build/k-a16 && head -c 2000000 /dev/zero > build/k-a16/alloc.o "
             "&& touch build/k-a16/mdriver\n",
    "sandbox": "driver:\n\techo 'bwrap: Creating new namespace failed' >&2 && false\n",
}


def _build(tmp_path, policy, makefile):
    folder = tmp_path / "sub"
    folder.mkdir()
    (folder / "Makefile").write_text(MAKEFILES[makefile])
    quick = dataclasses.replace(policy, build=dataclasses.replace(policy.build, compile_timeout=2, alignment=16))
    return build_submission(folder, quick, unsafe_sandbox(), 0)


@pytest.mark.parametrize("makefile, status, said", [
    ("ok", "ok", ""),
    ("partial", "compile_error", "mm.c:3:1: error: no"),
    ("link", "link_error", "undefined reference to `sbrk'"),
    ("slow", "compile_error", "the build took longer than 2 s"),
    ("large", "ok", ""),
    ("after", "link_error", "ld: error: late"),
])
def test_a_builds_outcome_is_classified_by_what_make_left_and_said(tmp_path, policy, makefile, status, said):
    built = _build(tmp_path, policy, makefile)
    assert built.status == status and said in built.log, built
    assert (built.driver is not None) == (status == "ok")
    assert (built.alloc_obj is not None) == (status in ("ok", "link_error"))


def test_a_sandbox_that_fails_to_start_the_build_is_the_graders_error(tmp_path, policy):
    """Not a compile error charged to the student."""
    with pytest.raises(KitError, match="the sandbox failed to start the build: bwrap: Creating"):
        _build(tmp_path, policy, "sandbox")


def test_an_assembler_error_is_the_reason_and_nothing_is_marked_left_out():
    """The assembler writes 'Error:', not 'error': an mm.c whose inline asm was wrong got the reason
    'Assembler messages', the line before the error, and a '[...]' mark after its two-line log, as if
    the error had been left out."""
    from grader.build import _first_lines, first_error
    log = ("/tmp/ccVFvLCP.s: Assembler messages:\n"
           "/tmp/ccVFvLCP.s:6: Error: file not found: /etc/passwd\n"
           "make: *** [Makefile:40: build/mm-a16/alloc.o] Error 1\n")
    assert first_error(log) == "/tmp/ccVFvLCP.s:6: Error: file not found: /etc/passwd"
    assert _first_lines(log) == ("/tmp/ccVFvLCP.s: Assembler messages:\n"
                                 "/tmp/ccVFvLCP.s:6: Error: file not found: /etc/passwd")
    long = "".join(f"mm.c:{i}: warning: unused\n" for i in range(30)) + "/tmp/cc1.s:9: Error: bad register\n"
    assert _first_lines(long).splitlines()[-2:] == ["[...]", "/tmp/cc1.s:9: Error: bad register"]


def test_the_template_builds_whatever_makeflags_the_grader_inherits(tmp_path, policy, monkeypatch):
    """Run under `make -C KIT bench-grader` (or with MAKEFLAGS=w), make printed 'Entering directory'
    around the driver's path, and the grader took its last line, 'make: Leaving directory ...', for
    the driver: a Python traceback (FileNotFoundError) before anything was graded."""
    from grader.build import build_template
    from grader_fixtures.helpers import make_fake_kit
    kit = make_fake_kit(tmp_path / "kit")
    monkeypatch.setenv("MAKEFLAGS", "w")
    driver = build_template(kit, tmp_path / "template", policy)
    assert driver.parent.parent.name == "build" and driver.name == "mdriver", driver


def test_a_kit_whose_make_names_no_driver_is_the_kits_error(tmp_path, policy):
    """A kit whose `make driver` printed nothing was an IndexError traceback; it is the kit's fault,
    said in one line."""
    from grader.build import build_template
    from grader_fixtures.helpers import make_fake_kit
    kit = make_fake_kit(tmp_path / "kit")
    makefile = kit / "Makefile"
    makefile.write_text(makefile.read_text().replace("\t@echo $(BUILD)/mdriver", "\t@true"))
    with pytest.raises(KitError, match=r"^the kit's `make driver` did not print the driver it built"):
        build_template(kit, tmp_path / "template", policy)


def test_the_template_builds_as_the_sandboxed_builds_do_whatever_the_environment(tmp_path, kit, policy, monkeypatch):
    """The template (the driver every submission links with) was built with the grader's environment,
    the students' builds with the sandbox's clean one: VARIANT=segregated exported for a benchmark
    stopped mmgrade grade and check with 'the kit does not build: no allocator variants/segregated.c
    (variants: )', and SANITIZE=address likewise; now the template takes the Makefile's defaults too."""
    from grader.build import build_template
    monkeypatch.setenv("VARIANT", "segregated")
    monkeypatch.setenv("SANITIZE", "address")
    driver = build_template(kit, tmp_path / "template", policy)
    assert driver.relative_to(tmp_path / "template").as_posix() == f"build/mm-a{policy.build.alignment}/mdriver"

"""The mmtrace command line: examples in every --help, convert round trips, and bad
input answered in one line with a non-zero exit, never a traceback."""
from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from grader_fixtures.helpers import run_python
from mmtrace.linter import read_trace
from mmtrace_common import KIT, mmtrace, one_line_error

COMMANDS = ["gen", "stats", "check", "convert", "record", "suite", "list", "readme"]


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_has_help_with_an_example(command):
    done = mmtrace(command, "--help")
    assert done.returncode == 0
    assert "Example" in done.stdout and "mmtrace " + command in done.stdout


def test_convert_round_trip_keeps_the_ops(tmp_path, driver):
    src = KIT / "traces" / "classic-binary.rep"
    lab = tmp_path / "b64.rep"
    back = tmp_path / "b.rep.gz"
    assert mmtrace("convert", str(src), "--to", "lab64", "-o", str(lab)).returncode == 0
    assert mmtrace("convert", str(lab), "--to", "classic", "-o", str(back)).returncode == 0
    a, b, c = read_trace(src), read_trace(lab), read_trace(back)
    assert list(a.ops()) == list(b.ops()) == list(c.ops())
    assert lab.read_text().splitlines()[:4] == ["1", "6000", "12000", "1152000"]
    assert c.header == a.header
    for f in (lab, back):
        assert subprocess.run([str(driver), "--parse-only", "-f", str(f)],
                              capture_output=True).returncode == 0


def test_gen_is_reproducible_from_the_command_line(tmp_path):
    a, b = tmp_path / "a.rep", tmp_path / "b.rep.gz"
    for out in (a, b):
        assert mmtrace("gen", "syn", "--seed", "9", "-p", "allocs=500", "-p", "live=100",
                       "--header", "lab64", "-o", str(out)).returncode == 0
    assert read_trace(a).header.order == "lab64"
    assert list(read_trace(a).ops()) == list(read_trace(b).ops())
    assert mmtrace("gen", "--list").stdout.count("parameters:") >= 18


def test_stats_json_and_plot(tmp_path):
    f = str(KIT / "traces" / "classic-realloc.rep")
    done = mmtrace("stats", "--json", f)
    s = json.loads(done.stdout)[f]
    assert s["reallocs"] == 4799 and s["peak_live_blocks"] == 2
    done = mmtrace("stats", "--plot", "--plot-dir", str(tmp_path), f)
    assert done.returncode == 0
    png = tmp_path / "classic-realloc.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_check_exit_status_and_fix(tmp_path):
    bad = tmp_path / "bad.rep"
    bad.write_text("20000000\n3\n5\n1\na 0 8\nf 1\na 1 8\n")
    done = mmtrace("check", str(bad))
    assert done.returncode == 1
    assert f"{bad}:6: free of id 1, which is not live" in done.stdout
    assert mmtrace("check", "--fix", str(bad)).returncode == 0
    fixed = tmp_path / "bad.fixed.rep"
    assert mmtrace("check", str(fixed)).stdout == ""
    assert mmtrace("check", str(KIT / "traces" / "classic-cccp.rep")).returncode == 0


def test_a_name_holding_rep_keeps_it_in_its_fixed_copy_and_plot(tmp_path):
    """gcc.report.rep's fixed copy had been named gcc.fixed.rep (the name cut at its first
    '.rep'), so `check --fix gcc.report.rep gcc.rep` wrote the second copy over the first; its
    plot was gcc.png. Only a .rep / .rep.gz suffix is dropped, as the driver drops it."""
    report, plain = tmp_path / "gcc.report.rep", tmp_path / "gcc.rep"
    report.write_text("20000000\n1\n1\n1\na 0 5\n")
    plain.write_text("20000000\n1\n1\n1\na 0 7\n")
    assert mmtrace("check", "-q", "--fix", str(report), str(plain)).returncode == 0
    assert "a 0 5" in (tmp_path / "gcc.report.fixed.rep").read_text()
    assert "a 0 7" in (tmp_path / "gcc.fixed.rep").read_text()
    assert mmtrace("stats", "--plot", "--plot-dir", str(tmp_path), str(tmp_path / "gcc.report.fixed.rep")).returncode == 0
    assert (tmp_path / "gcc.report.fixed.png").exists()


def test_check_fix_writes_no_copy_of_a_trace_with_nothing_to_fix(tmp_path):
    """`check --fix traces/*.rep*` had written x.fixed.rep beside every clean trace too, the same
    ops again: `./mdriver -t traces` then ran (and scored) each such trace twice. A copy is still
    written to an -o that is asked for."""
    clean = tmp_path / "clean.rep"
    clean.write_text("# a comment\n20000\n1\n2\n1\na 0 16\nf 0\n")
    done = mmtrace("check", "--fix", str(clean))
    assert done.returncode == 0 and f"{clean}: nothing to fix; no copy written" in done.stdout, done.stdout
    assert sorted(p.name for p in tmp_path.iterdir()) == ["clean.rep"]
    out = tmp_path / "out.rep"
    assert mmtrace("check", "--fix", "-o", str(out), str(clean)).returncode == 0 and out.exists()


def test_stats_and_convert_read_a_trace_made_for_a_larger_heap(tmp_path):
    """A 100 MB request, which `mdriver -M 1G` replays, had been refused by stats and convert
    ('this run's maximum heap is 20971520 bytes'), which replay nothing and have no -M to give.
    They read up to the largest heap the driver can make; past it is still an error."""
    big = tmp_path / "big.rep"
    big.write_text("20000000\n1\n2\n1\na 0 104857600\nf 0\n")
    done = mmtrace("stats", "--json", str(big))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)[str(big)]["peak_live_bytes"] == 104857600
    out = tmp_path / "big64.rep"
    assert mmtrace("convert", str(big), "--to", "lab64", "-o", str(out)).returncode == 0
    assert out.read_text().splitlines()[3] == "104857600"
    past = tmp_path / "past.rep"
    past.write_text("20000000\n1\n2\n1\na 0 4294967297\nf 0\n")
    one_line_error(mmtrace("stats", str(past)), 2, f"{past}:5: size 4294967297 cannot fit in the heap: no heap the driver")


def test_suite_names_a_group_and_a_name_that_select_nothing(tmp_path):
    """`suite --group kit --name classic-binary` (a trace of another group) wrote nothing, exit 0,
    and with --verify said '0 generated traces match the recipe': a check of nothing passed."""
    for extra in ([], ["--verify"]):
        done = mmtrace("suite", "--group", "kit", "--name", "classic-binary", "-o", str(tmp_path / "out"), *extra)
        one_line_error(done, 2, "no trace named classic-binary is in group kit")
    assert not (tmp_path / "out").exists()


def test_list_selects_a_group():
    names = mmtrace("list", "--group", "classic").stdout.split()
    assert len(names) == 11 and "classic-binary2" in names
    paths = mmtrace("list", "--group", "recorded", "--paths").stdout.split()
    assert all(Path(KIT / p).exists() for p in paths)
    assert "classic" in mmtrace("list", "--groups").stdout


def test_suite_verify_and_readme_check_pass_on_the_committed_suite():
    assert mmtrace("suite", "--verify").returncode == 0
    assert mmtrace("readme", "--check").returncode == 0


@pytest.mark.parametrize("args,code,words", [
    (["stats", "no/such.rep"], 2, ["no/such.rep:0: cannot read"]),
    (["check", "no/such.rep"], 2, ["mmtrace: no/such.rep:0: cannot read"]),
    (["check", "."], 2, ["mmtrace: .:0: cannot read: Is a directory"]),
    (["check", "--fix", "no/such.rep", "-o", "x.rep"], 2, ["mmtrace: no/such.rep:0: cannot read"]),
    (["check", "--fix", "-o", "x.rep", "a.rep", "b.rep"], 2, ["-o works with one file"]),
    (["convert", "no/such.rep", "--to", "lab64", "-o", "x.rep"], 2, ["no/such.rep:0: cannot read"]),
    (["gen", "nope", "-o", "x.rep"], 2, ["no pattern 'nope'"]),
    (["gen", "--seed", "3", "-o", "x.rep"], 2, ["gen needs a PATTERN"]),   # listed the patterns, exit 0
    (["gen", "-p", "pairs=3"], 2, ["gen needs a PATTERN"]),
    (["gen", "binary", "-p", "pairs", "-o", "x.rep"], 2, ["not KEY=VALUE"]),
    (["gen", "binary", "-p", "pairs=lots", "-o", "x.rep"], 2, ["wants a whole number, got 'lots'"]),
    (["list", "--group", "nope"], 2, ["no group 'nope'"]),
    (["suite", "no/recipe.toml"], 2, ["no/recipe.toml: cannot read"]),
    # outputs that cannot be written: one line, before any work
    (["gen", "binary", "-o", "/nonexistent/dir/x.rep"], 2, ["/nonexistent/dir/x.rep: cannot write"]),
    (["convert", str(KIT / "traces" / "classic-binary.rep"), "--to", "lab64", "-o", "/nonexistent/x.rep"], 2,
     ["/nonexistent/x.rep: cannot write"]),
    (["check", "--fix", str(KIT / "traces" / "classic-binary.rep"), "-o", "/nonexistent/x.rep"], 2,
     ["/nonexistent/x.rep: cannot write"]),
    (["stats", str(KIT / "traces" / "classic-binary.rep"), "--json", "--plot", "--plot-dir", "/proc/mmtrace-x"], 2,
     ["/proc/mmtrace-x: cannot write the plot"]),
    # parameters checked with their names
    (["gen", "syn", "-p", "kind=nosuch", "-o", "x.rep"], 2, ["'kind' of 'syn' is one of struct"]),
    (["gen", "binary", "-p", "small=0", "-o", "x.rep"], 2, ["'small' of 'binary' must be at least 1"]),
    (["gen", "binary", "-p", "pairs=-5", "-o", "x.rep"], 2, ["'pairs' of 'binary' must be at least 1"]),
    (["gen", "binary", "-p", "pairs=1.5", "-o", "x.rep"], 2, ["'pairs' of 'binary' wants a whole number"]),
    (["gen", "random", "-p", "alloc_bias=nan", "-o", "x.rep"], 2, ["'alloc_bias' of 'random' wants a finite"]),
    (["gen", "binary", "-p", "small=99999999999", "-o", "x.rep"], 2, ["small=99999999999", "larger than the driver's heap"]),
    (["gen", "syn", "-p", "live=5", "-p", "max_live=1", "-o", "x.rep"], 2, ["makes no valid trace with live=5 max_live=1"]),
    # a traceback (KeyError) until fit-stress checked its two counts together
    (["gen", "fit-stress", "-p", "blocks=1", "-o", "x.rep"], 2, ["with blocks=1: 'first' (10000) is above 'blocks' (1)"]),
    (["gen", "binary", "--weight", "9", "-o", "x.rep"], 2, ["mmtrace gen: Invalid value for '--weight'"]),
    (["record", "--max-size", "-1", "-o", "r.rep", "--", "true"], 2, ["mmtrace record:", "'--max-size'"]),
    (["record", "--skip", "-5", "-o", "r.rep", "--", "true"], 2, ["mmtrace record:", "'--skip'"]),
])
def test_bad_input_is_one_line(tmp_path, args, code, words):
    one_line_error(mmtrace(*args, cwd=tmp_path), code, *words)


@pytest.mark.parametrize("args", [
    ["gen", "binary", "-o", "OUT"],
    ["convert", str(KIT / "traces" / "classic-binary.rep"), "--to", "lab64", "-o", "OUT"],
    ["check", "--fix", "COPY", "-o", "OUT"],
    ["record", "-o", "OUT", "--", "true"],
], ids=lambda a: a[0])
@pytest.mark.parametrize("out, words", [
    ("new/", "mmtrace: new/: cannot write: it names a folder (ends in /); name a file in it"),
    ("", "mmtrace: -o: an empty file name; name one, e.g. -o build/x.rep"),
], ids=["slash", "empty"])
def test_an_output_named_as_a_folder_or_empty_is_one_line(tmp_path, args, out, words):
    """`-o new/` had written a file named new; `check --fix -o ''` the copy beside the trace,
    `convert -o ''` said `mmtrace: : cannot write: it is a folder`."""
    copy = tmp_path / "t.rep"
    copy.write_bytes((KIT / "traces" / "classic-binary.rep").read_bytes())
    done = mmtrace(*[out if a == "OUT" else str(copy) if a == "COPY" else a for a in args], cwd=tmp_path)
    assert done.returncode == 2 and done.stderr.splitlines() == [words], done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.rep"]


RECIPE_HEAD = '[groups]\ng = "G"\n[[trace]]\ngroup = "g"\nstresses = "s"\npattern = "binary"\nseed = 1\n'


@pytest.mark.parametrize("fields, words", [
    ('name = "x"\nparams = 5\n', ["trace #1 (x): 'params' must be a table"]),
    ('name = "../../escape"\n', ["trace #1 (../../escape): 'name' must be a plain file name"]),
    ('name = "sub/x"\n', ["trace #1 (sub/x): 'name' must be a plain file name"]),
])
def test_suite_refuses_a_broken_recipe_in_one_line_and_writes_nothing(tmp_path, fields, words):
    folder = tmp_path / "a" / "b"
    folder.mkdir(parents=True)
    recipe = folder / "recipe.toml"
    recipe.write_text(RECIPE_HEAD + fields)
    one_line_error(mmtrace("suite", str(recipe), cwd=tmp_path), 2, str(recipe), *words)
    assert [p.name for p in tmp_path.rglob("*") if p.is_file()] == ["recipe.toml"]


@pytest.mark.parametrize("verify", [False, True])
def test_suite_names_a_trace_its_parameters_cannot_make(tmp_path, verify):
    """Parameters each valid alone that make no trace (a request larger than the heap) had ended
    `suite` and `suite --verify` in a traceback."""
    recipe = tmp_path / "recipe.toml"
    recipe.write_text(RECIPE_HEAD + 'name = "x"\nparams = { small = 30000000 }\n')
    done = mmtrace("suite", str(recipe), *(["--verify"] if verify else []))
    one_line_error(done, 2, f"{recipe}: trace 'x': pattern 'binary' with small=30000000",
                    "larger than the driver's heap")
    assert not (tmp_path / "x.rep").exists()


def test_gen_and_suite_refuse_parameters_that_make_no_op(tmp_path):
    """peak-drain under a peak of 1 byte wrote a trace of 0 ops, exit 0 (the driver lists such a
    trace as ok, with no figures). Refused in one line naming the recipe and the trace; the
    traces before it are written."""
    out = tmp_path / "zero.rep"
    one_line_error(mmtrace("gen", "peak-drain", "-p", "peak=1", "-o", str(out)), 2,
                    "pattern 'peak-drain' with peak=1 makes no ops")
    assert not out.exists()
    recipe = tmp_path / "recipe.toml"
    recipe.write_text(RECIPE_HEAD + 'name = "first"\nparams = { pairs = 10 }\n'
                      '[[trace]]\nname = "empty"\ngroup = "g"\nstresses = "s"\npattern = "peak-drain"\n'
                      'seed = 1\nparams = { peak = 1 }\n')
    one_line_error(mmtrace("suite", str(recipe)), 2,
                    f"{recipe}: trace 'empty': pattern 'peak-drain' with peak=1 makes no ops")
    assert (tmp_path / "first.rep").exists() and not (tmp_path / "empty.rep").exists()


@pytest.mark.parametrize("damage, why", [
    ("folder", "cannot read: Is a directory"),
    ("fifo", "cannot read: a named pipe (FIFO)"),
    ("gzip", "damaged gzip data"),
])
def test_suite_verify_names_a_trace_it_cannot_read_as_differing(tmp_path, damage, why):
    """A trace file that is a folder, a FIFO or broken gzip had ended `suite --verify` in a
    traceback (IsADirectoryError, OSError) or in click's `aborted` (gzip's EOFError); now it is
    one of the traces that differ, with why, and the others are still compared."""
    recipe = tmp_path / "recipe.toml"
    recipe.write_text(RECIPE_HEAD + 'name = "x"\nparams = { pairs = 10 }\n'
                      '[[trace]]\nname = "y"\ngroup = "g"\nstresses = "s"\npattern = "binary"\nseed = 2\n')
    assert mmtrace("suite", str(recipe)).returncode == 0
    (tmp_path / "x.rep").unlink()
    if damage == "folder":
        (tmp_path / "x.rep").mkdir()
    elif damage == "fifo":
        os.mkfifo(tmp_path / "x.rep")
    else:
        (tmp_path / "x.rep").write_bytes(b"\x1f\x8bjunk")
    done = mmtrace("suite", str(recipe), "--verify", timeout=60)
    one_line_error(done, 1, "these traces differ from their recipe: x.rep (", why)
    assert "y.rep" not in done.stderr


def test_suite_verify_compares_the_folder_o_names_and_makes_none(tmp_path):
    """`suite --verify -o DIR` had made DIR (it writes nothing) and compared the recipe's folder
    instead, so an empty or stale DIR was reported as matching the recipe."""
    recipe = tmp_path / "recipe.toml"
    recipe.write_text(RECIPE_HEAD + 'name = "x"\nparams = { pairs = 10 }\n')
    assert mmtrace("suite", str(recipe)).returncode == 0
    missing = tmp_path / "never"
    done = mmtrace("suite", str(recipe), "--verify", "-o", str(missing))
    one_line_error(done, 1, "these traces differ from their recipe: x.rep")
    assert not missing.exists()
    made = tmp_path / "made"
    assert mmtrace("suite", str(recipe), "-o", str(made)).returncode == 0
    assert mmtrace("suite", str(recipe), "--verify", "-o", str(made)).returncode == 0
    (made / "x.rep").write_text("20000000\n1\n2\n1\na 0 1\nf 0\n")
    one_line_error(mmtrace("suite", str(recipe), "--verify", "-o", str(made)), 1,
                    "these traces differ from their recipe: x.rep")


def test_suite_names_an_output_folder_it_cannot_make(tmp_path):
    recipe = tmp_path / "recipe.toml"
    recipe.write_text(RECIPE_HEAD + 'name = "x"\nparams = { pairs = 10 }\n')
    one_line_error(mmtrace("suite", str(recipe), "-o", "/proc/mmtrace-x"), 2,
                    "/proc/mmtrace-x: cannot make the folder")


@pytest.mark.parametrize("given, meant", [
    ("t", "t.rep"), ("g", "g.rep.gz"), ("g.rep", "g.rep.gz"), ("t.rep.gz", "t.rep")])
@pytest.mark.parametrize("command", [["check"], ["stats"], ["convert", "--to", "lab64", "-o", "OUT"]])
def test_a_trace_named_without_its_suffix_gets_a_hint(tmp_path, command, given, meant):
    """`mdriver -f traces/classic-binary` suggests classic-binary.rep; mmtrace's commands said only
    'No such file or directory'."""
    (tmp_path / "t.rep").write_bytes((KIT / "traces" / "classic-binary.rep").read_bytes())
    (tmp_path / "g.rep.gz").write_bytes((KIT / "traces" / "rec-perl.rep.gz").read_bytes())
    args = [str(tmp_path / "out.rep") if a == "OUT" else a for a in command]
    done = mmtrace(*args, str(tmp_path / given))
    one_line_error(done, 2, f"mmtrace: {tmp_path / given}:0: cannot read: No such file or directory; "
                    f"did you mean {tmp_path / meant}?")
    assert not (tmp_path / "out.rep").exists()


def test_a_missing_trace_with_nothing_like_it_gets_no_hint(tmp_path):
    (tmp_path / "t.rep").mkdir()                 # a folder is no trace to suggest
    done = mmtrace("check", str(tmp_path / "t"))
    one_line_error(done, 2)
    assert done.stderr.strip().endswith("cannot read: No such file or directory")


@pytest.mark.parametrize("command", [["check"], ["stats"], ["convert", "--to", "lab64", "-o", "OUT"],
                                     ["check", "--fix", "-o", "OUT"]])
def test_a_path_with_a_newline_is_named_on_one_line(tmp_path, command):
    """'a<newline>b.rep' split the one-line error in two: escaped as the driver shows it."""
    bad = tmp_path / "a\nb.rep"
    bad.write_text("20000\n1\n1\n1\nx 0 1\n")
    args = [str(tmp_path / "out.rep") if a == "OUT" else a for a in command]
    for given in (bad, tmp_path / "gone\tx.rep"):
        done = mmtrace(*args, str(given))
        assert done.returncode in ((0, 2) if "--fix" in command else (1, 2)), done.stderr
        said = (done.stdout + done.stderr).strip().splitlines()
        assert said and all(line.startswith(("mmtrace: ", str(tmp_path))) for line in said), said
        assert str(given).replace("\n", "\\n").replace("\t", "\\t") in said[0]


def test_a_file_or_command_with_a_newline_is_named_on_one_line(tmp_path):
    out = tmp_path / "new\nfile.rep"
    done = mmtrace("gen", "binary", "-p", "pairs=10", "-o", str(out))
    assert done.returncode == 0 and out.exists()
    assert done.stdout.count("\n") == 1 and done.stdout.startswith(f"{tmp_path}/new\\nfile.rep: ")
    done = mmtrace("record", "-o", str(tmp_path / "x.rep"), "--", "no\nsuch-program")
    assert done.returncode == 2 and done.stderr == "mmtrace: record: command not found: no\\nsuch-program\n"


@pytest.mark.parametrize("command", [["gen", "binary", "-p", "pairs=10"], ["record", "--", "true"],
                                     ["convert", str(KIT / "traces" / "classic-binary.rep"), "--to", "lab64"]])
def test_an_output_that_links_to_no_folder_is_refused_first(tmp_path, command):
    """-o a symbolic link into a missing folder was found only when the trace was written, after
    the work, as 'cannot write (No such file or directory)' of a folder that is there."""
    link = tmp_path / "out.rep"
    link.symlink_to(tmp_path / "gone" / "x.rep")
    at = command.index("--") if "--" in command else len(command)
    done = mmtrace(*command[:at], "-o", str(link), *command[at:])
    one_line_error(done, 2, f"{link}: cannot write: it is a symbolic link to {tmp_path}/gone/x.rep, "
                    f"and there is no folder {tmp_path}/gone")
    assert not (tmp_path / "gone").exists()


def test_stats_measures_every_file_and_names_each_bad_one(tmp_path):
    ok = tmp_path / "ok.rep"
    ok.write_text("20000\n2\n4\n1\na 0 16\na 1 32\nf 0\nf 1\n")
    bad = tmp_path / "idrange.rep"
    bad.write_text("20000\n2\n2\n1\na 5 16\nf 5\n")
    done = mmtrace("stats", "--json", str(ok), str(bad), str(tmp_path / "none.rep"))
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert list(json.loads(done.stdout)) == [str(ok)]
    assert done.stderr.strip().splitlines() == [f"mmtrace: {bad}:5: id 5 out of range: the header says 2 ids (0..1)",
                                                f"mmtrace: {tmp_path / 'none.rep'}:0: cannot read: No such file or "
                                                "directory"]
    done = mmtrace("stats", str(ok), str(tmp_path / "none.rep"), str(ok))
    assert done.returncode == 2 and done.stdout.count(f"{ok}\n") == 2
    assert len(done.stderr.strip().splitlines()) == 1


def test_check_reads_on_past_an_unreadable_file_and_exits_2(tmp_path):
    bad = tmp_path / "idrange.rep"
    bad.write_text("20000\n2\n2\n1\na 5 16\nf 5\n")
    done = mmtrace("check", "none.rep", str(bad), cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == ["mmtrace: none.rep:0: cannot read: No such file or directory"]
    assert f"{bad}:5: id 5 out of range" in done.stdout


@pytest.mark.parametrize("args, words", [
    (["stats", "t.rep", "--plot", "--plot-dir", ""], "mmtrace stats: --plot-dir: an empty folder name; name one"),
    (["suite", "RECIPE", "-o", ""], "mmtrace suite: -o: an empty folder name; name one"),
    (["suite", "RECIPE", "--out-dir", ""], "mmtrace suite: -o: an empty folder name; name one"),
    (["stats", "t.rep", ""], "mmtrace stats: FILES: an empty path; name one"),
    (["readme", ""], "mmtrace readme: RECIPE: an empty path; name one"),
], ids=["plot-dir", "suite-o", "suite-out-dir", "stats-file", "readme-recipe"])
def test_an_empty_path_is_a_usage_error_naming_the_option(tmp_path, args, words):
    """Path("") is the current folder: `stats --plot-dir ''` had written its plot there and
    `suite -o ''` the traces into the recipe's folder, without a word."""
    recipe, work = tmp_path / "rec" / "recipe.toml", tmp_path / "work"
    recipe.parent.mkdir()
    work.mkdir()
    recipe.write_text(RECIPE_HEAD + 'name = "x"\nparams = { pairs = 10 }\n')
    (work / "t.rep").write_bytes((KIT / "traces" / "classic-binary.rep").read_bytes())
    done = mmtrace(*[str(recipe) if a == "RECIPE" else a for a in args], cwd=work, timeout=120)
    assert done.returncode == 2 and done.stderr.splitlines() == [words], done.stderr
    assert [p.name for p in work.iterdir()] == ["t.rep"] and [p.name for p in recipe.parent.iterdir()] == ["recipe.toml"]


def test_readme_check_says_the_readme_is_missing(tmp_path):
    recipe = tmp_path / "recipe.toml"
    recipe.write_text(RECIPE_HEAD + 'name = "x"\nparams = { pairs = 10 }\n')
    one_line_error(mmtrace("readme", str(recipe), "--check"), 1, f"{tmp_path / 'README.md'}: no README.md to check")
    assert mmtrace("suite", str(recipe)).returncode == 0
    assert mmtrace("readme", str(recipe)).returncode == 0
    assert mmtrace("readme", str(recipe), "--check").returncode == 0


def test_readme_table_keeps_a_row_whole_whatever_the_recipe_says(tmp_path):
    """A 'stresses' holding '|' or a newline (TOML's \\n) had split the table's row: the ops
    were shown under 'ids', the rest of the row on a line of its own. Each is a cell's text now:
    '|' escaped, a newline a space."""
    recipe = tmp_path / "recipe.toml"
    recipe.write_text('[groups]\ng = "G"\n[[trace]]\nname = "x"\ngroup = "g"\n'
                      'stresses = "64 | 448 B pairs\\nthen 512"\npattern = "binary"\nseed = 1\nparams = { pairs = 10 }\n')
    assert mmtrace("suite", str(recipe)).returncode == 0
    assert mmtrace("readme", str(recipe)).returncode == 0
    rows = [line for line in (tmp_path / "README.md").read_text().splitlines() if "x.rep" in line or "then 512" in line]
    assert rows == ["| `x.rep` | 64 \\| 448 B pairs then 512 | 60 | 30 | 5,760 | 20 | 64 / 448 / 512 | 0 (0 / 0) |"]


@pytest.mark.parametrize("markers", ["BEGIN", "END", "END BEGIN", "BEGIN BEGIN END"])
def test_readme_refuses_broken_markers_and_keeps_the_prose(tmp_path, markers):
    """A README whose END line was lost had a second table appended, and the next run replaced
    everything from the first BEGIN to that table's END, the prose between them too."""
    from mmtrace.readme import BEGIN, END
    recipe = tmp_path / "recipe.toml"
    recipe.write_text(RECIPE_HEAD + 'name = "x"\nparams = { pairs = 10 }\n')
    assert mmtrace("suite", str(recipe)).returncode == 0
    lines = ["# Our traces", *[{"BEGIN": BEGIN, "END": END}[m] for m in markers.split()],
             "## Notes", "prose that must stay"]
    readme = tmp_path / "README.md"
    readme.write_text("\n".join(lines) + "\n")
    before = readme.read_text()
    for args in ([], ["--check"]):
        one_line_error(mmtrace("readme", str(recipe), *args), 2, f"{readme}: the trace table's markers are")
        assert readme.read_text() == before


def test_readme_that_is_a_fifo_never_hangs(tmp_path):
    """`mmtrace readme` had waited forever for a writer to the recipe folder's README.md, a FIFO."""
    recipe = tmp_path / "recipe.toml"
    recipe.write_text(RECIPE_HEAD + 'name = "x"\nparams = { pairs = 10 }\n')
    assert mmtrace("suite", str(recipe)).returncode == 0
    readme = tmp_path / "README.md"
    os.mkfifo(readme)                    # no one will ever write to it
    for args in ([], ["--check"]):
        done = mmtrace("readme", str(recipe), *args, timeout=60)
        assert done.returncode == 2, done.stderr
        assert done.stderr.splitlines() == [f"mmtrace: {readme}: cannot read: a named pipe (FIFO), not a README "
                                            "file; nothing written"]


def test_readme_with_windows_line_ends_is_read_as_before(tmp_path):
    """The README is read as text with its line ends translated (as read_text() did before the
    FIFO-safe read): a table written, then saved with CRLF by an editor, is still up to date."""
    recipe = tmp_path / "recipe.toml"
    recipe.write_text(RECIPE_HEAD + 'name = "x"\nparams = { pairs = 10 }\n')
    assert mmtrace("suite", str(recipe)).returncode == 0
    readme = tmp_path / "README.md"
    readme.write_text("# Traces\n\nProse kept.\n")
    assert mmtrace("readme", str(recipe)).returncode == 0
    readme.write_bytes(readme.read_bytes().replace(b"\n", b"\r\n"))
    done = mmtrace("readme", str(recipe), "--check")
    assert done.returncode == 0, done.stderr
    assert "table up to date" in done.stdout


def test_record_refuses_an_unwritable_output_before_running_the_command(tmp_path):
    marker = tmp_path / "ran"
    done = mmtrace("record", "-o", "/nonexistent/r.rep", "--", "touch", str(marker), cwd=tmp_path)
    one_line_error(done, 2, "/nonexistent/r.rep: cannot write")
    assert not marker.exists()


def test_check_fix_that_writes_nothing_fails(tmp_path):
    junk = tmp_path / "garbage.rep"
    junk.write_bytes(b"\x1f\x8bnot gzip at all")
    done = mmtrace("check", "--fix", str(junk), "-o", "f1.rep", cwd=tmp_path)
    assert done.returncode == 1 and "nothing written" in done.stderr
    assert not (tmp_path / "f1.rep").exists()


def test_a_binary_file_is_one_line(tmp_path):
    junk = tmp_path / "junk.rep"
    junk.write_bytes(bytes(range(256)) * 4)
    one_line_error(mmtrace("stats", str(junk)), 2, f"{junk}:1: binary data")


@pytest.mark.parametrize("args, words", [
    (["--seed", "-5"], "Invalid value for '--seed': '-5': a whole number from 0"),
    (["-p", "pairs=5", "-p", "pairs=6"], "parameter 'pairs' given twice (-p pairs=5, -p pairs=6): give it once"),
    (["-p", "pairs=1e3"], "'pairs' of 'binary' wants a whole number, got '1e3'"),
    # int() took these as 1000, 5, 5 and 5: the driver and docs/traces.md read ASCII digits only
    (["-p", "pairs=1_000"], "parameter 'pairs' of 'binary' wants a whole number, got '1_000'"),
    (["-p", "pairs=+5"], "parameter 'pairs' of 'binary' wants a whole number, got '+5'"),
    (["-p", "pairs= 5"], "parameter 'pairs' of 'binary' wants a whole number, got ' 5'"),
    (["-p", "pairs=\u0665"], "parameter 'pairs' of 'binary' wants a whole number, got '\u0665'"),
])
def test_gen_refuses_what_it_used_to_take_quietly(tmp_path, args, words):
    """--seed -5 gave --seed 5's bytes, a repeated -p took the last value, 1e3 passed as 1000."""
    out = tmp_path / "x.rep"
    done = mmtrace("gen", "binary", *args, "-o", str(out))
    one_line_error(done, 2, words)
    assert not out.exists()


@pytest.mark.parametrize("args, words", [
    (["gen", "binary", "--seed", "abc"], "Invalid value for '--seed': 'abc': a whole number from 0"),
    (["gen", "binary", "--seed", "9" * 5000], "'--seed': '999999999999999999999999...': a whole number from 0"),
    (["gen", "binary", "--weight", "x"], "Invalid value for '--weight': 'x': a whole number from 0 to 3"),
    (["convert", "traces/classic-binary.rep", "--to", "lab64", "--weight", "9"], "'--weight': '9': a whole number from 0 to 3"),
    (["record", "--max-ops", "many"], "Invalid value for '--max-ops': 'many': a whole number from 0 to 12,000,000"),
    (["record", "--skip", "1.5"], "Invalid value for '--skip': '1.5': a whole number from 0"),
])
def test_a_bad_whole_number_is_named_as_one(tmp_path, args, words):
    """click's IntRange called 'abc' "not a valid integer range" and echoed a 5,000-digit seed whole."""
    out = tmp_path / "x.rep"
    tail = ["--", "true"] if args[0] == "record" else []
    done = mmtrace(*args, "-o", str(out), *tail)
    one_line_error(done, 2, words)
    assert len(done.stderr) < 300 and not out.exists()


@pytest.mark.parametrize("value", ["nan", "inf", "abc", "0", "-1"])
def test_record_timeout_is_a_finite_number_of_seconds(tmp_path, value):
    """--timeout nan was taken, and then meant no time limit at all."""
    marker = tmp_path / "ran"
    done = mmtrace("record", "--timeout", value, "-o", str(tmp_path / "x.rep"), "--", "touch", str(marker))
    one_line_error(done, 2, f"Invalid value for '--timeout': '{value}': a number of seconds above 0")
    assert not marker.exists()


def test_an_option_that_does_nothing_alone_is_refused(tmp_path):
    """check -o without --fix, stats --plot-dir without --plot: quietly ignored, nothing written."""
    bad = tmp_path / "lie.rep"
    bad.write_text("20000\n1\n5\n1\na 0 8\nf 0\n")
    one_line_error(mmtrace("check", "-o", str(tmp_path / "good.rep"), str(bad)), 2,
                    "check: -o is where --fix writes its corrected copy; add --fix")
    one_line_error(mmtrace("stats", "--plot-dir", str(tmp_path / "plots"), "traces/classic-binary.rep"), 2,
                    "stats: --plot-dir is where --plot writes; add --plot")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["lie.rep"]
    assert mmtrace("check", "--fix", "-o", str(tmp_path / "good.rep"), str(bad)).returncode == 0
    assert mmtrace("stats", "--plot", "--plot-dir", str(tmp_path / "plots"), "traces/classic-binary.rep").returncode == 0


def test_a_newline_in_a_comment_does_not_break_the_trace(tmp_path):
    """A recipe's stresses (or a recorded `sh -c` script) with a newline was written as two
    lines, the second not a comment: the trace it made neither mmtrace nor the driver read."""
    recipe = tmp_path / "recipe.toml"
    recipe.write_text(RECIPE_HEAD.replace('stresses = "s"', 'stresses = "two\\nlines\\r"')
                      + 'name = "x"\nparams = { pairs = 10 }\n')
    done = mmtrace("suite", str(recipe))
    assert done.returncode == 0, done.stderr
    t = read_trace(tmp_path / "x.rep")
    assert len(t) > 0
    assert (tmp_path / "x.rep").read_text().splitlines()[0] == "# x: two\\nlines\\r"
    assert mmtrace("suite", "--verify", str(recipe)).returncode == 0


def test_stats_plots_files_of_the_same_name_apart(tmp_path):
    """a/x.rep and b/x.rep (or x.rep and x.rep.gz) were both plotted as x.png, the second over
    the first, and both said so."""
    trace = KIT / "traces" / "classic-binary.rep"
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    for d in ("a", "b"):
        (tmp_path / d / "x.rep").write_bytes(trace.read_bytes())
    plots = tmp_path / "plots"
    done = mmtrace("stats", "--plot", "--plot-dir", str(plots), str(tmp_path / "a" / "x.rep"),
                   str(tmp_path / "b" / "x.rep"))
    assert done.returncode == 0, done.stderr
    said = [l.split("plot: ")[1] for l in done.stdout.splitlines() if "plot: " in l]
    assert said == [str(plots / "x.png"), str(plots / "x-2.png")]
    assert sorted(p.name for p in plots.iterdir()) == ["x-2.png", "x.png"]


def bench(*args: str) -> subprocess.CompletedProcess:
    return run_python("-m", "mmtrace.bench", *args, capture_output=True, text=True, cwd=KIT, timeout=600)


def test_bench_traces_help_shows_an_example():
    """Every mmtrace command's --help shows one; python -m mmtrace.bench's did not."""
    done = bench("--help")
    assert done.returncode == 0 and "Example:\n    python -m mmtrace.bench --variant " in done.stdout, done.stdout


def test_bench_traces_refuses_a_variant_that_does_not_build_before_generating():
    """make bench-traces BENCH_VARIANT=typo was a traceback, after generating the trace."""
    trace = KIT / "build" / "bench-traces" / "syn-mix-1234.rep"
    trace.unlink(missing_ok=True)
    one_line_error(bench("--variant", "no-such-variant", "--ops", "1234"), 1,
                    "--variant no-such-variant", "no allocator variants/no-such-variant.c")
    assert not trace.exists()


@pytest.mark.parametrize("args", [["--runs", "0"], ["--ops", "0"], ["--ops", "1235"]])
def test_bench_traces_refuses_counts_it_cannot_measure(args):
    """--runs 0 was a traceback (no median of nothing); --ops 0 measured an empty trace; an odd
    --ops made a trace of one op fewer (each block is allocated and freed), which the figures,
    rates included, and the trace's file name then called --ops."""
    one_line_error(bench(*args), 2, f"Invalid value for '{args[0]}'")


@pytest.mark.parametrize("value", ["0", "-1", "abc", "1.5", "20M", "", str((4 << 30) + 1), "9" * 5000])
def test_check_names_a_bad_max_heap_in_one_line(value):
    """click called 'abc' "not a valid integer range", and took 5000000000, past the
    driver's -M: now one line in -M's terms, naming the option and the value."""
    done = mmtrace("check", f"--max-heap={value}", str(KIT / "traces" / "classic-binary.rep"))
    shown = value if len(value) < 100 else value[:20]
    one_line_error(done, 2, "mmtrace check:", "'--max-heap'", f"'{shown}",
                    f"a whole number of bytes from 1 to {4 << 30} (mdriver's -M at most, 4G; no K/M/G suffix here)")


def test_check_takes_a_max_heap_up_to_the_drivers(tmp_path):
    trace = tmp_path / "big.rep"
    trace.write_text("20000\n1\n2\n1\na 0 100000000\nf 0\n")
    assert "cannot fit in the heap" in mmtrace("check", str(trace)).stdout
    for value in ("100000000", str(4 << 30)):
        done = mmtrace("check", "--max-heap", value, str(trace))
        assert done.returncode == 0 and done.stdout == done.stderr == "", done.stdout + done.stderr


def test_a_file_name_that_is_not_utf8_is_shown_as_its_bytes(tmp_path):
    """A byte of a file name that is not UTF-8 went out raw (or as '\\udcff', Python's surrogate) in
    mmtrace's message; it is shown as the driver and the grader show it, '\\xff'."""
    name = os.fsdecode(b"bad\xff\n.rep")
    (tmp_path / name).write_bytes(b"\x00junk\n")
    done = run_python("-m", "mmtrace", "check", name, capture_output=True, cwd=tmp_path, timeout=600)
    assert done.returncode == 1 and done.stdout.decode().splitlines() == \
        ["bad\\xff\\n.rep:1: binary data (byte 0x00): not a trace file"], done.stdout


def test_check_fix_refuses_two_files_whose_fixed_copies_share_a_name(tmp_path):
    """`check --fix x x.rep` fixed both into x.fixed.rep, the second copy over the first, and
    said 'fixed copy written to x.fixed.rep' twice, exit 0. Now it is one line naming both,
    exit 2, before anything is written; the same file given twice is not such a pair."""
    for name in ("x", "x.rep"):
        (tmp_path / name).write_text("20000\n1\n1\n1\na 0 5\n")
    done = mmtrace("check", "--fix", str(tmp_path / "x"), str(tmp_path / "x.rep"))
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        f"mmtrace: check --fix: {tmp_path / 'x'} and {tmp_path / 'x.rep'} would both be fixed "
        f"to {tmp_path / 'x.fixed.rep'}; fix one of them at a time with -o"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x", "x.rep"]
    done = mmtrace("check", "-q", "--fix", str(tmp_path / "x.rep"), str(tmp_path / ".." / tmp_path.name / "x.rep"))
    assert done.returncode == 0, done.stderr
    assert "a 0 5" in (tmp_path / "x.fixed.rep").read_text()


def test_check_help_names_the_copy_a_gzip_trace_is_fixed_into(tmp_path):
    """--help said the copy is NAME.fixed.rep; a gzip trace's is NAME.fixed.rep.gz (gzip too),
    which a user looking for the .rep did not find. The help now names both."""
    import gzip
    bad = tmp_path / "t.rep.gz"
    bad.write_bytes(gzip.compress(b"20000\n1\n1\n1\na 0 5\n"))
    assert mmtrace("check", "-q", "--fix", str(bad)).returncode == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.fixed.rep.gz", "t.rep.gz"]
    assert gzip.decompress((tmp_path / "t.fixed.rep.gz").read_bytes()).startswith(b"20000\n")
    help_text = " ".join(mmtrace("check", "--help").stdout.split())
    assert "NAME.fixed.rep.gz" in help_text


def test_check_fix_goes_on_past_a_copy_it_cannot_write(tmp_path):
    """`check --fix x y`, x's copy unwritable (a folder named x.fixed.rep in its place), had
    stopped at x: y was neither checked nor fixed. Now x's is one line, y is still fixed,
    and the exit status is 2 as for a file that cannot be read."""
    for name in ("x.rep", "y.rep"):
        (tmp_path / name).write_text("20000\n1\n1\n1\na 0 5\n")
    (tmp_path / "x.fixed.rep").mkdir()
    done = mmtrace("check", "-q", "--fix", str(tmp_path / "x.rep"), str(tmp_path / "y.rep"))
    assert done.returncode == 2
    assert done.stderr.splitlines() == [f"mmtrace: {tmp_path / 'x.rep'}: cannot write its fixed copy "
                                        f"{tmp_path / 'x.fixed.rep'} (Is a directory); nothing written"]
    assert "a 0 5" in (tmp_path / "y.fixed.rep").read_text()

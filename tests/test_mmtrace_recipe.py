"""mmtrace.recipe and the committed suite: it is exactly what its recipe makes, its
README table is measured, and every trace fits the simulated heap."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from mmtrace.linter import lint
from mmtrace.readme import measure_suite, table, updated
from mmtrace.recipe import RecipeError, comments, load_recipe, make_trace
from mmtrace.stats import measure
from mmtrace.trace import MAX_HEAP, format_trace, read_bytes

KIT = Path(__file__).resolve().parent.parent
RECIPE = KIT / "traces" / "recipe.toml"


@pytest.fixture(scope="module")
def recipe():
    return load_recipe(RECIPE)


@pytest.fixture(scope="module")
def measured(recipe):
    return measure_suite(recipe)


def test_every_generated_trace_equals_its_regeneration(recipe):
    for e in recipe.entries:
        if not e.recorded:
            want = format_trace(make_trace(e), comments(e)).encode()
            assert read_bytes(recipe.folder / e.file) == want, e.name


def test_the_folder_holds_the_recipe_and_nothing_else(recipe):
    on_disk = {p.name for p in recipe.folder.iterdir() if ".rep" in p.name}
    assert on_disk == {e.file for e in recipe.entries}


def test_the_groups_and_what_they_must_contain(recipe):
    names = {g: [e.name for e in recipe.select((g,))] for g in recipe.groups}
    assert len(names["classic"]) == 11 and all(n.startswith("classic-") for n in names["classic"])
    assert len(names["lab64"]) >= 8 and all(n.startswith("lab64-") for n in names["lab64"])
    assert len(names["recorded"]) >= 3
    assert 25 <= len(recipe.entries) <= 40


def test_every_trace_is_clean_balanced_and_fits_the_heap(recipe, measured):
    for e in recipe.entries:
        r = lint(recipe.folder / e.file)
        assert not r.problems, r.problems
        s = measured[e.name]
        assert s.never_freed == 0
        assert s.peak_live_bytes <= MAX_HEAP * 0.8, e.name
    assert sum(s.ops for s in measured.values()) < 3_000_000


def test_classic_program_mixes_and_lab64_small_blocks(recipe):
    for e in recipe.select(("classic",)):
        if e.pattern == "program":
            t = make_trace(e)
            sizes = [s for k, _, s in t.ops() if k == "a"]
            assert 0.70 <= sizes.count(4072) / len(sizes) <= 0.78, e.name
            assert sizes[:4] == [2040, 2040, 48, 4072]
    small = [measure(make_trace(e)) for e in recipe.select(("lab64",))
             if e.params.get("kind") != "array"]
    assert all(s.size_median <= 100 for s in small)


def test_the_kit_group_covers_null_and_zero_reallocs(measured):
    assert measured["realloc-many"].realloc_null > 0 and measured["realloc-many"].realloc_zero > 0


def test_readme_table_is_measured_and_current(recipe, measured):
    text = (recipe.folder / "README.md").read_text()
    assert updated(text, table(recipe, measured)) == text
    for e in recipe.entries:
        assert f"`{e.file}`" in text


def _bad(tmp: Path, body: str) -> str:
    p = tmp / "r.toml"
    p.write_text('[groups]\ng = "a group"\n' + body)
    with pytest.raises(RecipeError) as caught:
        load_recipe(p)
    assert str(caught.value).startswith(str(p))
    return str(caught.value)


def test_recipe_mistakes_are_named(tmp_path):
    ok = 'name = "x"\ngroup = "g"\nstresses = "s"\n'
    assert "unknown key" in _bad(tmp_path, f"[[trace]]\n{ok}pattern = \"binary\"\nseed = 1\ncolour = 2\n")
    assert "not in [groups]" in _bad(tmp_path, '[[trace]]\nname = "x"\ngroup = "h"\nstresses = "s"\n'
                                     'pattern = "binary"\nseed = 1\n')
    assert "exactly one" in _bad(tmp_path, f"[[trace]]\n{ok}seed = 1\n")
    assert "no pattern" in _bad(tmp_path, f"[[trace]]\n{ok}pattern = \"nope\"\nseed = 1\n")
    assert "has no parameter" in _bad(tmp_path, f"[[trace]]\n{ok}pattern = \"binary\"\nseed = 1\n"
                                      "params = { nope = 1 }\n")
    assert "integer 'seed'" in _bad(tmp_path, f"[[trace]]\n{ok}pattern = \"binary\"\n")
    twice = f"[[trace]]\n{ok}pattern = \"binary\"\nseed = 1\n" * 2
    assert "used twice" in _bad(tmp_path, twice)
    assert "not valid TOML" in _bad(tmp_path, "[[trace\n")


@pytest.mark.parametrize("body, message", [
    ('name = "x"\npattern = "binary"\nseed = 1\nparams = 5\n', "(x): 'params' must be a table, not an integer"),
    ('name = "x"\npattern = "binary"\nseed = "1"\n', "(x): 'seed' must be an integer, not a string"),
    ('name = "x"\npattern = "binary"\nseed = true\n', "(x): 'seed' must be an integer, not true/false"),
    ('name = "x"\npattern = "binary"\nseed = -1\n', "(x): 'seed' must be 0 or more"),   # was a traceback
    ('name = "x"\npattern = "binary"\nseed = 1\nweight = true\n', "(x): 'weight' must be an integer"),
    ('name = "x"\npattern = "binary"\nseed = 1\ngzip = "yes"\n', "(x): 'gzip' must be true or false, not a string"),
    ('name = "x"\npattern = "binary"\nseed = 1\nheader = 1\n', "(x): 'header' must be a string"),
    ('name = "x"\ncommand = "ls"\n', "(x): 'command' must be a list of strings, not a string"),
    ('name = "x"\ncommand = ["ls", 3]\n', "(x): 'command' must be a list of non-empty strings"),
    ('name = "x"\ncommand = ["ls"]\nmax_ops = -1\n', "(x): 'max_ops' must be 0 or more"),
    ('name = "x"\ncommand = ["ls"]\nmax_ops = 12000001\n', "(x): 'max_ops' must be at most 12,000,000"),
    ('name = "x"\ncommand = ["ls"]\nskip = 1.5\n', "(x): 'skip' must be an integer, not a number"),
    ('name = "x"\ncommand = ["ls"]\nprocess = "biggest"\n', "(x): process 'biggest' is not largest"),
    ('name = "x"\ncommand = ["ls"]\nprocess = 12\n', "(x): 'process' must be a string"),
    ('name = "sub/x"\npattern = "binary"\nseed = 1\n', "(sub/x): 'name' must be a plain file name"),
    ('name = "../../escape"\npattern = "binary"\nseed = 1\n', "(../../escape): 'name' must be a plain file name"),
    ('name = ".."\npattern = "binary"\nseed = 1\n', "(..): 'name' must be a plain file name"),
    ('name = ""\npattern = "binary"\nseed = 1\n', "'name' must be a non-empty string"),
    ('name = 7\npattern = "binary"\nseed = 1\n', "'name' must be a string, not an integer"),
    ('name = "x"\npattern = "a\\nb"\nseed = 1\n', "(x): no pattern 'a\\nb'"),
    # a parameter is typed like the other fields: these were read as 10 (the command line's strings are not TOML)
    ('name = "x"\npattern = "binary"\nseed = 1\nparams = { pairs = "10" }\n',
     "(x): parameter 'pairs' must be an integer, not a string"),
    ('name = "x"\npattern = "binary"\nseed = 1\nparams = { pairs = 10.0 }\n',
     "(x): parameter 'pairs' must be an integer, not a number"),
    ('name = "x"\npattern = "binary"\nseed = 1\nparams = { pairs = true }\n',
     "(x): parameter 'pairs' must be an integer, not true/false"),
    # one parameter spelt both ways: the later had been taken silently, and the trace's 'made by'
    # line (-p max-size=2000 -p max_size=100) was a command line gen refuses
    ('name = "x"\npattern = "realloc-many"\nseed = 1\nparams = { max_size = 100, "max-size" = 2000 }\n',
     "(x): parameter 'max-size' of 'realloc-many' given twice (max_size=100, max-size=2000): give it once"),
    # past the ops limit: refused when the recipe is read, not after 12,000,000 ops drawn
    ('name = "x"\npattern = "binary"\nseed = 1\nparams = { pairs = 2000001, small = 1, large = 1, new = 2 }\n',
     "(x): pattern 'binary' with pairs=2000001 small=1 large=1 new=2: the trace would have more than "
     "12,000,000 ops (at least 12,000,006)"),
])
def test_every_field_is_type_checked(tmp_path, body, message):
    got = _bad(tmp_path, f'[[trace]]\ngroup = "g"\nstresses = "s"\n{body}')
    assert "trace #1" in got and message in got and "\n" not in got


@pytest.mark.parametrize("text, message", [
    ('trace = 3\n[groups]\ng = "a"\n', "'trace' must be an array of tables"),
    ('trace = [3]\n[groups]\ng = "a"\n', "trace #1 must be a table"),
    ('[groups]\ng = 1\n', "[groups] 'g' must be a string"),
])
def test_the_recipe_shape_is_checked(tmp_path, text, message):
    p = tmp_path / "r.toml"
    p.write_text(text)
    with pytest.raises(RecipeError, match=re.escape(f"{p}: {message}")):
        load_recipe(p)


def test_a_recipe_saved_with_a_byte_order_mark_is_read(tmp_path):
    """An editor's UTF-8 byte-order mark, invisible, had made the recipe 'not valid TOML: Invalid
    statement (at line 1, column 1)'; it is no part of the text."""
    p = tmp_path / "r.toml"
    p.write_bytes(b"\xef\xbb\xbf" + '[groups]\ng = "a"\n[[trace]]\nname = "x"\ngroup = "g"\nstresses = "s"\n'
                  'pattern = "binary"\nseed = 1\n'.encode())
    assert [e.name for e in load_recipe(p).entries] == ["x"]

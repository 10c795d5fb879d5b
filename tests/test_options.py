"""tools/options.py: the checks results.py, results_seeds.py and compare.py make of their options
and outputs before any build: the driver's own ranges, and a one-line error for an output that
cannot be written."""
from __future__ import annotations

import sys

import click
import pytest

from variants_common import KIT

sys.path.insert(0, str(KIT / "tools"))
import options  # noqa: E402


@pytest.mark.parametrize("value, ok", [("1", True), ("86400", True), ("86401", False), ("0", False)])
def test_time_limit_is_the_drivers_range(value, ok):
    """mdriver's -T: whole seconds, 1 up to a day."""
    if ok:
        assert options.TIME_LIMIT.convert(value, None, None) == int(value)
    else:
        with pytest.raises(click.BadParameter):
            options.TIME_LIMIT.convert(value, None, None)


def test_a_missing_folder_is_made_with_its_parents(tmp_path):
    folder = tmp_path / "a" / "b" / "c"
    assert options.writable_folder(folder) == folder and folder.is_dir()
    assert options.writable_file(tmp_path / "d" / "e" / "page.md") == tmp_path / "d" / "e" / "page.md"
    assert (tmp_path / "d" / "e").is_dir()


def test_a_file_where_the_folder_should_be_is_named_so(tmp_path):
    (tmp_path / "f").write_text("")
    with pytest.raises(click.ClickException) as refused:
        options.writable_folder(tmp_path / "f")
    assert refused.value.message == f"{tmp_path / 'f'}: cannot make the folder: it exists and is not a folder"


def test_a_folder_that_cannot_be_written_is_refused():
    """/proc/self exists and is readable, but no file can be made in it (not even by root)."""
    with pytest.raises(click.ClickException) as refused:
        options.writable_folder(options.Path("/proc/self"))
    assert refused.value.message == "/proc/self: cannot write there"


def test_an_output_file_that_is_a_folder_is_refused(tmp_path):
    with pytest.raises(click.ClickException) as refused:
        options.writable_file(tmp_path)
    assert refused.value.message == f"{tmp_path}: cannot write: it is a folder"


@pytest.mark.parametrize("tool, option", [("compare", "--json"), ("results_seeds", "--out")])
def test_a_dash_for_an_output_file_is_refused_not_a_file_named_dash(tool, option):
    """`compare.py --json -` (as `mdriver --json -`, standard output) had written a file named
    '-' in the current folder, the report alone on stdout. Now it is one line before any work."""
    import importlib
    module = importlib.import_module(tool)
    args = ["segregated", "best", option, "-"] if tool == "compare" else [option, "-"]
    with pytest.raises(click.ClickException) as refused:
        module.main.make_context(f"{tool}.py", args)
    assert refused.value.format_message() == (f"Invalid value for '{option}': -: name a file (here - is not "
                                              "standard output, as it is for mdriver --json)")

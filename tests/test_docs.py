"""The newcomer's documentation against the kit: every make setting a user may give is
named in README.md or docs/, and every link between the docs leads somewhere."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

KIT = Path(__file__).resolve().parent.parent
DOCS = [KIT / "README.md", KIT / "traces" / "README.md", *sorted((KIT / "docs").glob("*.md"))]
MAKEFILES = [KIT / "Makefile", *sorted((KIT / "mk").glob("*.mk"))]


def settings() -> list[str]:
    """The variables the makefiles let a user set (NAME ?= default)."""
    found = set()
    for makefile in MAKEFILES:
        found.update(re.findall(r"^\s*([A-Z][A-Z0-9_]*)\s*\?=", makefile.read_text(), re.M))
    return sorted(found)


@pytest.mark.parametrize("name", settings())
def test_every_make_setting_is_documented(name):
    text = "\n".join(doc.read_text() for doc in DOCS)
    assert re.search(rf"`{name}`|\b{name}=", text), f"make {name}=... is named in no README or docs page"


def anchor(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces as '-'."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def links() -> list[tuple[Path, str]]:
    return [(doc, target) for doc in DOCS
            for target in re.findall(r"\]\(([^)\s]+)\)", doc.read_text()) if not re.match(r"[a-z]+:", target)]


@pytest.mark.parametrize("doc,target", links(), ids=lambda v: v.name if isinstance(v, Path) else v)
def test_every_link_resolves(doc, target):
    path, _, fragment = target.partition("#")
    dest = (doc.parent / path).resolve() if path else doc
    assert dest.exists(), f"{doc.relative_to(KIT)}: link to {target}, which is not there"
    if fragment:
        headings = re.findall(r"^#+\s+(.*)$", dest.read_text(), re.M)
        assert fragment in {anchor(h) for h in headings}, f"{doc.relative_to(KIT)}: no heading #{fragment} in {path}"


def click_options(group, prefix=()):
    """(command path, the option's spellings) of every option of GROUP's commands but --help."""
    import click
    for name, command in group.commands.items():
        if isinstance(command, click.Group):
            yield from click_options(command, (*prefix, name))
            continue
        for param in command.params:
            if isinstance(param, click.Option) and "--help" not in param.opts:
                yield " ".join((*prefix, name)), param.opts + param.secondary_opts


def cli_options() -> list[tuple[str, str, tuple[str, ...]]]:
    from bench.cli import main as bench
    from grader.cli import main as mmgrade
    from mmtrace.cli import main as mmtrace
    return [pytest.param(tool, command, tuple(opts), id=f"{tool} {command} {opts[0]}")
            for tool, group in (("mmtrace", mmtrace), ("mmgrade", mmgrade), ("python -m bench", bench))
            for command, opts in click_options(group)]


@pytest.mark.parametrize("tool,command,opts", cli_options())
def test_every_cli_option_is_documented(tool, command, opts):
    text = "\n".join(doc.read_text() for doc in DOCS)
    assert any(re.search(rf"(?<![\w-]){re.escape(o)}(?![\w-])", text) for o in opts), \
        f"{tool} {command} {opts[0]} is named in no README or docs page"


def test_every_mdriver_flag_is_in_the_readme(driver):
    import subprocess
    usage = subprocess.run([str(driver), "-h"], capture_output=True, text=True, check=True).stdout
    flags = sorted(set(re.findall(r"(?<![\w-])(--?[a-zA-Z][\w-]*)", usage)))
    readme = (KIT / "README.md").read_text()
    missing = [f for f in flags if not re.search(rf"`{re.escape(f)}[ `=]", readme)]
    assert not missing, f"mdriver -h names flags the README's table does not: {missing}"



def layout() -> str:
    """README's Layout section."""
    return (KIT / "README.md").read_text().split("\n## Layout\n", 1)[1].split("\n## ", 1)[0]


@pytest.mark.parametrize("folder", ["driver", "tools"])
def test_every_module_is_in_the_layout(folder):
    text = layout()
    # A C module (its .c and .h) is named by its stem or a file's path; a script by its file name.
    modules: dict[str, set[str]] = {}
    for p in (KIT / folder).iterdir():
        if p.suffix in (".c", ".h"):
            modules.setdefault(p.stem, {f"`{p.stem}`"}).add(f"`{folder}/{p.name}`")
        elif p.suffix in (".py", ".sh"):
            modules[p.name] = {f"`{p.name}`", f"`{folder}/{p.name}`"}
    missing = sorted(name for name, spellings in modules.items() if not any(s in text for s in spellings))
    assert not missing, f"README's Layout does not say what {folder}/ {', '.join(missing)} hold"


def test_every_shim_file_is_in_the_pieces_table():
    """docs/bench-shim.md's table of shim/'s files had left shim.h out."""
    text = (KIT / "docs" / "bench-shim.md").read_text().split("\n## The pieces", 1)[1].split("\n## ", 1)[0]
    missing = sorted(p.name for p in (KIT / "shim").iterdir() if p.suffix in (".c", ".h") and f"`{p.name}`" not in text)
    assert not missing, f"docs/bench-shim.md's pieces table does not say what shim/ {', '.join(missing)} own"


def test_the_readmes_figures_for_the_starter_are_the_starters():
    """README: on the suite the starter mm.c runs out of heap on N of M traces and scores I/100.
    Recomputed with mmreplay (mdriver's outcomes and utilization, in a second or two); the index
    takes the throughput term as capped, the bump allocator running near twice libc's speed."""
    import json
    import subprocess
    from conftest import build_driver
    from grader.kitconfig import read_kit_config
    said = re.search(r"kit's suite (\d+) of (\d+) traces run out of heap, `alloc_failed`, and the index is (\d+)/100",
                     " ".join((KIT / "README.md").read_text().split()))
    assert said, "README no longer states the starter's figures in the words this test reads"
    replay = build_driver(target="replay")
    done = subprocess.run([str(replay), "-t", str(KIT / "traces"), "--json", "-"], capture_output=True, text=True,
                          timeout=300)
    doc = json.loads(done.stdout)
    outcomes = [t["outcome"] for t in doc["traces"]]
    w = read_kit_config(KIT)["MM_UTIL_WEIGHT"]
    index = round(100 * (w * doc["summary"]["utilization"] + (1 - w)))
    assert (outcomes.count("alloc_failed"), len(outcomes), index) == tuple(int(n) for n in said.groups())

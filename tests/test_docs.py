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
    assert re.search(rf"\b{name}\b", text), f"make {name}=... is named in no README or docs page"


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

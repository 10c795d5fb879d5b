"""Issue 3: the families of variants share their code honestly.  The four implicit-*
variants are one core (implicit.h on tags-core.h) plus one small fit function each,
the three explicit-* ones that core plus their insertion policy, and the two
segregated ones seglist.h plus their realloc: no variant carries a copy of the core."""
from __future__ import annotations

import re

import pytest

from variants_common import KIT, present

# family: (the header each includes, the only functions each may define)
FAMILIES = {
    "implicit-": ("implicit.h", {"find_fit"}),
    "explicit-": ("explicit.h", {"fl_insert"}),
    "segregated": ("seglist.h", {"mm_realloc"}),
}
DEFINITION = re.compile(r"^[A-Za-z_][\w \t*]*?\b(\w+)\s*\([^;{)]*\)\s*\{", re.M)


def _code(variant: str) -> str:
    text = (KIT / "variants" / f"{variant}.c").read_text()
    return re.sub(r"/\*.*?\*/|//[^\n]*", "", text, flags=re.S)


def _family(variant: str) -> tuple[str, set[str]]:
    return next(v for k, v in FAMILIES.items() if variant.startswith(k))


@pytest.mark.parametrize("variant", present(["implicit-first", "implicit-next", "implicit-best", "implicit-worst",
                                             "explicit-lifo", "explicit-fifo", "explicit-addr",
                                             "segregated", "segregated-realloc"]))
def test_variant_is_its_core_plus_its_policy(variant):
    header, allowed = _family(variant)
    code = _code(variant)
    assert f'#include "{header}"' in code, f"variants/{variant}.c does not build on {header}"
    defined = DEFINITION.findall(code)
    assert defined and set(defined) <= allowed, \
        f"variants/{variant}.c defines {sorted(set(defined) - allowed) or 'nothing'}; its family shares all but {sorted(allowed)}"


def test_definitions_are_found():
    """The pattern sees one-line and multi-line definitions, and not declarations."""
    code = "static void *find_fit(size_t asize);\nstatic void *find_fit(size_t asize)\n{\n}\n" \
           "static void fl_insert(void *bp) { list_link_after(0, NULL, bp); }\n"
    assert DEFINITION.findall(code) == ["find_fit", "fl_insert"]

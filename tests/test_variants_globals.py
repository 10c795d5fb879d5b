"""The reference allocators obey the lab's rule on writable globals that the
grader enforces on students (.data + .bss + COMMON of alloc.o, at most
grader.toml's writable_data_max): students read these files as models, and a
reference whose metadata sat outside the heap would score utilization no
student could match by the rules.

The size is measured by the grader's own function, so this test and the grader
cannot disagree on what counts."""
from __future__ import annotations

import pytest

from grader.policy import load_policy
from grader.rules import code_bytes, sections, symbols, writable_bytes
from variants_common import KIT, VARIANTS, make, present


@pytest.fixture(scope="module")
def limit() -> int:
    return load_policy(KIT).rules.writable_data_max


@pytest.mark.parametrize("alignment", [8, 16])
@pytest.mark.parametrize("variant", present(VARIANTS))
def test_writable_globals_within_limit(variant, alignment, limit):
    obj = make("driver", variant, alignment).parent / "alloc.o"
    used = writable_bytes(sections(obj), symbols(obj))
    assert used <= limit, f"{variant} at {alignment}: {used} bytes of writable globals, more than {limit}"


@pytest.mark.parametrize("variant", present(VARIANTS))
def test_code_within_limit(variant):
    """The grader's code_size rule (a bound on compiled-in tables) passes every reference."""
    obj = make("driver", variant, 16).parent / "alloc.o"
    used, limit = code_bytes(sections(obj)), load_policy(KIT).rules.code_size_max
    assert used <= limit, f"{variant}: {used} bytes of code and read-only data, more than {limit}"

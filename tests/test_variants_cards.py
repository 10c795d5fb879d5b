"""Every variant opens with its card (issue 3): free-list discipline, fit, coalescing,
split threshold, realloc strategy and minimum block, each a row students can find.
test_variants_unit.py holds the split row to the measured behaviour."""
from __future__ import annotations

import pytest

from variants_common import CARD_ROWS, card, present, split_threshold, VARIANTS


@pytest.mark.parametrize("variant", present(list(VARIANTS)))
def test_card_has_every_row(variant):
    rows = card(variant)
    missing = [row for row in CARD_ROWS if not rows.get(row)]
    assert not missing, f"variants/{variant}.c: its opening card has no row for {missing}"
    assert split_threshold(variant) > 0


def test_card_rows_are_read_whole():
    rows = card("implicit-first")
    assert rows["split"].startswith("when the rest is at least 16 bytes")
    assert rows["min block"].startswith("16 bytes")

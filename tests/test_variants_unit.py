"""The tricky paths of every variant, through the C unit tests in tests/c/variants/unit.c.

Each variant is built against memlib.c with ASan and UBSan, at both alignments,
and every test in unit.c runs in its own process (so one crash names one test).
"""
from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from variants_common import (CLASS_BEST, GROW_BY_LACK, KIT, OFFSETS_32, TAG_BYTES, UNIT_TESTED, VARIANTS,
                             ZERO_BLOCK, card, make, present, sanitized, split_threshold)

ALIGNMENTS = (8, 16)


def _tests() -> list[str]:
    unit = make("variant-unit", "implicit-first", 16)
    return subprocess.run([str(unit), "--list"], capture_output=True, text=True,
                          check=True).stdout.split()


@pytest.fixture(scope="module", params=[(v, a) for v in present(UNIT_TESTED) for a in ALIGNMENTS],
                ids=lambda p: f"{p[0]}-a{p[1]}")
def unit(request):
    variant, alignment = request.param
    return variant, make("variant-unit", variant, alignment, sanitize=True)


def test_unit_list_is_not_empty():
    assert {"coalesce_both", "realloc_absorb", "edge_sizes", "rover_after_coalesce", "split_exact",
            "stats_counts", "reinit_same", "heap_past_4g", "class_neighbours",
            "stats_before_init", "tag_bytes", "insertion_order",
            "fit_policy", "top_block_unprobed", "top_block_exact", "realloc_absorb_rest",
            "realloc_shrink_split", "realloc_grow_under_free_top", "realloc_move_no_growth", "realloc_copies",
            "rover_after_growth", "best_fit_exact_later", "worst_fit_largest_by_a_unit",
            "grow_by_lack", "larger_class_fit", "class_best_fit"} <= set(_tests())


def test_unit(unit):
    variant, binary = unit
    assert variant in TAG_BYTES, f"tests/variants_common.py TAG_BYTES: give {variant}'s bytes of tags"
    # split_exact measures the smallest rest a split leaves against the card's split row
    flags = (["--in-place"] if VARIANTS[variant] else []) + [f"--split={split_threshold(variant)}"]
    # a card whose realloc is "allocate, copy, free" alone moves every block it resizes
    flags += ["--copies"] if card(variant).get("realloc") == "allocate, copy, free" else []
    flags += [f"--tags={TAG_BYTES[variant]}"] + (["--offsets32"] if variant in OFFSETS_32 else [])
    flags += [] if variant in ZERO_BLOCK else ["--zero-null"]
    flags += ["--class-best"] if variant in CLASS_BEST else []
    flags += ["--grow-by-lack"] if variant in GROW_BY_LACK else []
    # an explicit list's insertion policy is its name (lifo, fifo, addr), an implicit list's fit too;
    # a card's "one LIFO list per ... size class" is LIFO within each class
    flags += [f"--order={variant.removeprefix('explicit-')}"] if variant.startswith("explicit-") else []
    flags += ["--order=lifo"] if "one LIFO list per" in card(variant).get("free list", "") else []
    flags += [f"--fit={variant.removeprefix('implicit-')}"] if variant.startswith("implicit-") else []
    failures = []
    for name in _tests():
        done = subprocess.run([str(binary), name, *flags], capture_output=True, text=True,
                              timeout=120, cwd=KIT)
        if done.returncode != 0 or done.stdout.strip() != "ok":
            failures.append(f"{name}: rc={done.returncode} {done.stdout.strip()} {done.stderr.strip()[:800]}")
    assert not failures, f"{variant}:\n" + "\n".join(failures)


def test_checker_catches_a_broken_heap():
    """The checker is real: a footer overwritten behind its back is reported, not ignored."""
    src = KIT / "tests" / "c" / "variants" / "corrupt.c"
    for variant in present(["implicit-first", "explicit-lifo", "segregated", "best"]):
        binary = make("variant-corrupt", variant, 16)
        # a header bit; a freed block's links, where the variant keeps free lists (best's checker had crashed);
        # a second free of the block (implicit-first's running count alone sees it)
        for how in ([], ["links"], ["double"]) if variant != "implicit-first" else ([], ["double"]):
            done = subprocess.run([str(binary), *how], capture_output=True, text=True, timeout=60)
            assert done.returncode == 0, f"{variant} {how}: {done.stdout}{done.stderr}"
            assert "mm_checkheap(line" in done.stderr, (variant, how)
    assert src.exists()


def test_seglist_checker_sees_a_class_bitmap_that_disagrees_with_the_lists(tmp_path):
    """find_fit trusts the bitmap of non-empty classes: the segregated checker compares it with
    the lists, a lost bit, a stale bit and a bit past the last class each reported."""
    binary = tmp_path / "seglist-bits"
    subprocess.run(["cc", "-O1", "-g", f"-I{KIT}", "-o", str(binary),
                    str(KIT / "tests" / "c" / "variants" / "seglist_bits.c"), str(KIT / "memlib.c")],
                   check=True, capture_output=True, text=True)
    done = subprocess.run([str(binary)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, f"rc={done.returncode} {done.stdout}{done.stderr}"
    assert done.stdout.count(": reported\n") == 3, done.stdout
    assert done.stderr.count("class bitmap") == 3, done.stderr


@pytest.mark.parametrize("alignment", ALIGNMENTS)
@pytest.mark.parametrize("variant", present(["segregated", "segregated-realloc"]))
@pytest.mark.parametrize("case", ["class-edges", "next-class", "probes"])
def test_seglist_search_follows_its_card(damage_builds, variant, case, alignment):
    """The segregated cards' search, which the checker cannot see (it files blocks with the
    allocator's own class_of): classes [32 << k, 64 << k) with the last one open above, an empty
    class passed to the next non-empty one up, 8 blocks probed.  Moving a class's edge, skipping a
    class, taking the highest one or probing one block more or fewer had left every test passing."""
    binary = _damage_binary(damage_builds, "seglist_fit.c", variant, alignment)
    done = subprocess.run([str(binary), case], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.endswith("ok\n"), \
        f"{variant} {case}: rc={done.returncode} {done.stdout}{done.stderr[-800:]}"


def _best_harness(tmp_path: Path, source: str, alignment: int) -> subprocess.CompletedProcess:
    """Build tests/c/variants/SOURCE (it includes best.c whole, to reach its state) warning-free under
    ASan and UBSan, and run it."""
    binary = sanitized(tmp_path / Path(source).stem, [f"tests/c/variants/{source}"], alignment)
    return subprocess.run([str(binary)], capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("alignment", ALIGNMENTS)
def test_best_uses_a_fitting_top_block_its_search_passed_over(tmp_path, alignment):
    """best's search looks at BEST_PROBES blocks of a class; a free block at the heap's top that
    fits but lay past them made grow_for grow by a size below zero: malloc returned NULL.
    alloc_meta (the run index's block) searched and subtracted the same way."""
    done = _best_harness(tmp_path, "best_top.c", alignment)
    assert done.returncode == 0, f"rc={done.returncode} {done.stdout}{done.stderr}"
    assert done.stdout.count(": ok\n") == 4, done.stdout


BEST_RULES_CASES = 43        # the lines of "NAME MODE: ok" tests/c/variants/best_rules.c prints


@pytest.mark.parametrize("alignment", ALIGNMENTS)
def test_best_places_by_its_stated_rules(tmp_path, alignment):
    """best's stated placement rules, each on a heap built by hand (tests/c/variants/best_rules.c
    names them): breaking one moved only placements, which no test looked at."""
    done = _best_harness(tmp_path, "best_rules.c", alignment)
    assert done.returncode == 0, f"rc={done.returncode} {done.stdout}{done.stderr[-800:]}"
    assert done.stdout.count(": ok\n") == BEST_RULES_CASES, done.stdout


@pytest.mark.parametrize("alignment", ALIGNMENTS)
def test_best_paths_keep_the_cards_rules_and_count_what_they_do(tmp_path, alignment):
    """best's realloc ladder, runs and entry points (tests/c/variants/best_paths.c), each case on
    a heap built by hand: where the card says a block lands, and what each path adds to the
    statistics (a kept block or a run's slot reused is a reuse on either list mode)."""
    done = _best_harness(tmp_path, "best_paths.c", alignment)
    assert done.returncode == 0 and done.stdout.endswith(": ok\n") and "FAILED" not in done.stdout, \
        f"rc={done.returncode} {done.stdout}{done.stderr[-2000:]}"


@pytest.mark.parametrize("variant", present(list(VARIANTS)))
def test_checker_reports_damaged_state_at_the_heaps_start(variant):
    """The tags-core checkers followed core->heap from the heap's first bytes before testing
    it, so damage there was a SIGSEGV inside mm_checkheap (a `crashed` trace under -c)."""
    binary = make("variant-corrupt", variant, 16)
    done = subprocess.run([str(binary), "state"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, f"{variant}: rc={done.returncode} {done.stdout}{done.stderr}"
    assert done.stdout.endswith("damage reported\n") and "checkheap" in done.stdout + done.stderr, variant


# Damage that one layer of the tags-core checker alone can see (tests/c/variants/tags_damage.c),
# by the variants whose layout has it: allocated blocks' footers (implicit, explicit), free lists
# (explicit, segregated), classes (segregated), a tail (fifo), an address order (addr).
TAGS_DAMAGE = ["footer", "prev-alloc", "prologue", "epilogue", "epilogue-prev", "adjacent", "rover", "count"]
LIST_DAMAGE = ["small", "unlisted", "listed-alloc", "outside", "misaligned", "prev-link"]
TAGS_DAMAGE_CASES = {
    "implicit-first": TAGS_DAMAGE + ["alloc-footer"],
    "explicit-lifo": TAGS_DAMAGE + ["alloc-footer"] + LIST_DAMAGE,
    "explicit-fifo": TAGS_DAMAGE + ["alloc-footer"] + LIST_DAMAGE + ["tail"],
    "explicit-addr": TAGS_DAMAGE + ["alloc-footer"] + LIST_DAMAGE + ["order"],
    "segregated": TAGS_DAMAGE + LIST_DAMAGE + ["class", "last-class"],
}


def _damage_binary(cache, source: str, variant: str, alignment: int) -> Path:
    """The harness `source` (a *_damage.c, or seglist_fit.c) built with variants/<variant>.c whole,
    under ASan and UBSan."""
    key = (source, variant, alignment)
    if key not in cache:
        cache[key] = sanitized(cache["dir"] / f"{Path(source).stem}-{variant}-a{alignment}",
                               [f"tests/c/variants/{source}"], alignment, (f'VARIANT_SRC="variants/{variant}.c"',))
    return cache[key]


@pytest.fixture(scope="module")
def damage_builds(tmp_path_factory):
    return {"dir": tmp_path_factory.mktemp("damage")}


@pytest.mark.parametrize("alignment", ALIGNMENTS)
@pytest.mark.parametrize("variant,how", [(v, h) for v, cases in TAGS_DAMAGE_CASES.items() for h in cases])
def test_tags_checker_reports_damage_only_one_layer_sees(damage_builds, variant, how, alignment):
    """Each layer of the tags-core checker (block, walk, lists, counts) had checks whose damage no
    test made: dropping one left every test passing.  Each case damages one invariant alone."""
    binary = _damage_binary(damage_builds, "tags_damage.c", variant, alignment)
    done = subprocess.run([str(binary), how], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, f"{variant} {how}: rc={done.returncode} {done.stdout}{done.stderr[-800:]}"
    assert "mm_checkheap(line" in done.stderr, (variant, how)


# Damage that one layer of best's checker alone can see (tests/c/variants/best_damage.c), on a heap
# of one list and, `classed`, on one with the class tables (their lists, bitmap and quick lists'
# lengths checked apart); the medium sizes' live counts exist only at 16-byte alignment.
BEST_DAMAGE = ["footer", "prev-alloc", "epilogue", "epilogue-prev", "adjacent", "count", "unlisted",
               "listed-alloc", "prev-link", "kept-footer", "stray-kept", "quick-count", "run-count", "run-live",
               "run-unopened", "outside", "kept-above-free", "index-words", "run-inv", "run-prev",
               "kept-footer-size", "sbrk"]
BEST_DAMAGE_CASES = ([(h, "few", a) for h in BEST_DAMAGE for a in ALIGNMENTS]
                     + [(h, "classed", a) for h in BEST_DAMAGE + ["class", "bitmap", "quick-len", "quick-class"] for a in ALIGNMENTS]
                     + [("quick-lost", "few", a) for a in ALIGNMENTS] + [("mid-live", "classed", 16), ("mid-mark", "few", 16), ("mid-mark", "classed", 16)])


@pytest.mark.parametrize("how,mode,alignment", BEST_DAMAGE_CASES)
def test_best_checker_reports_damage_only_one_layer_sees(damage_builds, how, mode, alignment):
    """Each layer of best's checker (block, walk, lists, runs, medium counts, quick lists, counts)
    had checks whose damage no test made: dropping one left every test passing."""
    binary = _damage_binary(damage_builds, "best_damage.c", "best", alignment)
    done = subprocess.run([str(binary), how, mode], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, f"{how} {mode}: rc={done.returncode} {done.stdout}{done.stderr[-800:]}"
    assert "mm_checkheap(line" in done.stderr, (how, mode)


# Damage that one layer of ts-nolock's checker alone can see (tests/c/variants/ts_damage.c).
TS_DAMAGE = ["footer", "alloc-footer", "small", "owner", "prologue", "epilogue", "adjacent", "bitmap", "listed-alloc", "class",
             "prev-link", "remote", "borrowed", "unlisted", "count", "outside", "high-class", "slot"]


@pytest.mark.parametrize("alignment", ALIGNMENTS)
@pytest.mark.parametrize("how", TS_DAMAGE)
def test_ts_nolock_checker_reports_damage_only_one_layer_sees(damage_builds, how, alignment):
    """Each layer of ts-nolock's checker (block, chunk, arena lists and stacks, counts) had checks
    whose damage no test made: dropping one left every test passing."""
    binary = _damage_binary(damage_builds, "ts_damage.c", "ts-nolock", alignment)
    done = subprocess.run([str(binary), how], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, f"{how}: rc={done.returncode} {done.stdout}{done.stderr[-800:]}"
    assert "ts-nolock checkheap (line" in done.stdout, how

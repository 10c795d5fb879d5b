"""mmtrace.gen: determinism and the shapes the patterns promise."""
from __future__ import annotations

import dataclasses
import random
import re
from collections import Counter

import pytest

from conftest import KIT
from mmtrace.gen import PATTERNS, PatternError, coerce_params, generate
from mmtrace.stats import measure
from mmtrace.trace import MAX_HEAP, format_trace

# Small parameters so every pattern runs in milliseconds.
SMALL = {
    "program": {"allocs": 400, "peak_blocks": 100}, "coalescing": {"rounds": 50},
    "random": {"allocs": 300}, "binary": {"pairs": 200}, "growing-buffer": {"steps": 100},
    "bdd": {"allocs": 3000, "gc_every": 1000}, "cbit": {"allocs": 3000, "phase": 1000},
    "ngram": {"tokens": 2000}, "syn": {"allocs": 3000, "live": 800},
    "realloc-many": {"steps": 2000, "buffers": 40}, "realloc-strings": {"appends": 2000},
    "realloc-vectors": {"vectors": 5, "rounds": 2}, "fit-stress": {},
    "size-sweep": {"rounds": 1}, "tiny-flood": {"allocs": 3000, "live": 1000},
    "large-churn": {"allocs": 200}, "long-short": {"allocs": 2000}, "peak-drain": {"peak": 1_000_000},
}


def test_every_pattern_has_small_parameters():
    assert set(SMALL) == set(PATTERNS)


@pytest.mark.parametrize("name", sorted(PATTERNS))
def test_same_seed_same_bytes_and_a_balanced_valid_trace(name):
    a = format_trace(generate(name, 5, SMALL[name]))
    b = format_trace(generate(name, 5, SMALL[name]))
    assert a == b
    t = generate(name, 5, SMALL[name])
    s = measure(t)
    assert s.never_freed == 0
    assert s.size_max <= MAX_HEAP
    assert t.header.ids == s.ids and t.header.ops == s.ops


@pytest.mark.parametrize("name", ["program", "random", "bdd", "cbit", "syn", "realloc-many",
                                  "tiny-flood", "peak-drain"])
def test_another_seed_gives_another_trace(name):
    assert format_trace(generate(name, 1, SMALL[name])) != format_trace(generate(name, 2, SMALL[name]))


def test_binary_leaves_holes_just_too_small():
    t = generate("binary", 3, {"pairs": 100, "small": 64, "large": 448, "new": 512})
    ops = list(t.ops())
    allocs = [s for k, _, s in ops[:200] if k == "a"]
    assert allocs == [64, 448] * 100                      # alternating neighbours
    frees = ops[200:300]
    assert all(k == "f" for k, _, _ in frees)
    freed = {i for _, i, _ in frees}
    assert {s for k, i, s in ops[:200] if i in freed} == {448}   # every hole is 448 bytes
    assert [s for k, _, s in ops[300:400]] == [512] * 100        # then requests just too big


def test_coalescing_asks_for_the_sum_of_two_freed_neighbours():
    ops = list(generate("coalescing", 1, {"rounds": 3, "size": 100}).ops())
    assert [(k, s) for k, _, s in ops[:6]] == [("a", 100), ("a", 100), ("f", 0), ("f", 0),
                                              ("a", 200), ("f", 0)]
    assert len(ops) == 18


def test_program_mix_is_mostly_4072_bytes():
    s = Counter(sz for k, _, sz in generate("program", 4, {"allocs": 3000}).ops() if k == "a")
    share = s[4072] / sum(s.values())
    assert 0.70 <= share <= 0.78
    assert s.most_common(3)[1][0] == 72


def test_growing_buffer_grows_only_id_0_by_the_step():
    ops = list(generate("growing-buffer", 1, {"start": 100, "step": 7, "steps": 50}).ops())
    rs = [(i, s) for k, i, s in ops if k == "r"]
    assert [i for i, _ in rs] == [0] * 50
    assert [s for _, s in rs] == [100 + 7 * k for k in range(1, 51)]


def test_fit_stress_follows_the_course_recipe():
    t = generate("fit-stress", 1, {"big": 2_000_000, "blocks": 1400, "first": 1000})
    ops = list(t.ops())
    assert ops[0] == ("a", 0, 2_000_000) and ops[1] == ("f", 0, 0)
    sizes = Counter(s for k, _, s in ops if k == "a")
    assert sizes[1024] == 1400 and sizes[100] == 140 and sizes[150] == 100
    assert sizes[10] == 1 and sizes[1] == 1
    # the 1 KiB blocks still live at the end of the main phases fit in the big block
    assert measure(t).peak_live_bytes == 2_000_000


def test_size_sweep_reaches_the_largest_power_the_heap_allows():
    sizes = {s for k, _, s in generate("size-sweep", 1).ops() if k == "a"}
    powers = [2**k for k in range(1, 40) if 2**k in sizes]
    assert powers[0] == 2 and powers[-1] * 2 > MAX_HEAP * 0.8 and powers[-1] <= MAX_HEAP


def test_realloc_many_uses_null_and_zero_reallocs_both_ways():
    ops = list(generate("realloc-many", 2, SMALL["realloc-many"]).ops())
    size_of: dict[int, int] = {}
    grew = shrank = 0
    for k, i, s in ops:
        if k == "r" and s:
            grew += s > size_of[i]
            shrank += s < size_of[i]
        size_of[i] = s
    kinds = Counter(k for k, _, s in ops if k != "r" or s)
    assert kinds["n"] > 0 and sum(1 for k, _, s in ops if k == "r" and s == 0) > 0
    assert grew > 100 and shrank > 100



def test_realloc_many_with_more_buffers_than_it_draws_is_made_in_little_memory():
    """A slot for each of `buffers` came first: buffers=10**12 was a MemoryError traceback, and
    10**9 took 8 GB.  Only the buffers drawn are kept now, and the trace is the same."""
    t = generate("realloc-many", 1, {"buffers": 10**12, "steps": 300})
    assert len(t) > 300 and Counter(chr(k) for k in t.kinds)["n"] > 100
    assert (KIT / "traces" / "realloc-many.rep").read_text().endswith(
        format_trace(generate("realloc-many", 3001)))

def test_ngram_table_doubles_and_its_old_copy_is_freed():
    t = generate("ngram", 1, {"tokens": 3000, "table_start": 16})
    ops = list(t.ops())
    tables = [(n, i, s) for n, (k, i, s) in enumerate(ops) if k == "a" and s >= 8 * 16]
    assert len(tables) >= 3
    for (n, i, s), (n2, _, s2) in zip(tables, tables[1:]):
        assert s2 > s
        assert ops[n2 + 1] == ("f", i, 0)     # the old copy goes right after the new one


def test_unknown_pattern_or_parameter_is_reported():
    with pytest.raises(PatternError, match="no pattern 'nope'"):
        generate("nope", 1)
    with pytest.raises(PatternError, match="has no parameter 'wrong'"):
        generate("binary", 1, {"wrong": 1})
    with pytest.raises(PatternError, match="wants a whole number, got .many."):
        generate("binary", 1, {"pairs": "many"})


@pytest.mark.parametrize("pattern, key, words", [
    ("binary", "pairs", "the trace would have more than 12,000,000 ops"),
    ("size-sweep", "max_heap", "makes no valid trace"),
])
def test_a_whole_number_of_hundreds_of_digits_is_refused_in_one_line(pattern, key, words):
    """'9' * 400 is an int int() reads, but math.isfinite raised OverflowError on it: a traceback."""
    with pytest.raises(PatternError, match=words):
        generate(pattern, 1, {key: "9" * 400})


@pytest.mark.parametrize("params, words", [
    ({"pairs": "-5"}, "'pairs' of 'binary' must be at least 1"),
    ({"pairs": 0}, "'pairs' of 'binary' must be at least 1"),
    ({"pairs": "1.5"}, "wants a whole number"),
    ({"pairs": 1.5}, "wants a whole number"),
    ({"small": "99999999999"}, "larger than the driver's heap"),
    ({"new": "inf"}, "wants a whole number, got 'inf'"),
    ({"pairs": "1e3"}, "'pairs' of 'binary' wants a whole number, got '1e3'"),   # was taken as 1000
    ({"pairs": "2.0"}, "'pairs' of 'binary' wants a whole number, got '2.0'"),
])
def test_bad_parameter_values_are_refused_with_their_names(params, words):
    with pytest.raises(PatternError, match=words):
        generate("binary", 1, params)


@pytest.mark.parametrize("pattern, key, value", [
    ("binary", "pairs", "1_000"), ("binary", "pairs", "+5"), ("binary", "pairs", " 5"),
    ("binary", "pairs", "5 "), ("binary", "pairs", "\u0665\u0660"), ("binary", "pairs", "\uff15"),
    ("random", "alloc_bias", "0_0.5"), ("random", "alloc_bias", "+0.5"), ("random", "alloc_bias", " 0.5"),
    ("random", "alloc_bias", "\u0660.5"), ("cbit", "mean_life", "1_2"), ("cbit", "mean_life", "\u0661\u0662"),
])
def test_a_value_not_written_in_plain_ascii_digits_is_refused(pattern, key, value):
    """int() and float() took 1_000, +5, ' 5' and Arabic-Indic or full-width digits: the driver
    and docs/traces.md read ASCII digits only, so a value is refused, named, in one line."""
    what = "a whole number" if key == "pairs" else "a number"
    with pytest.raises(PatternError) as caught:
        generate(pattern, 1, {**SMALL[pattern], key: value})
    assert str(caught.value) == f"parameter '{key}' of '{pattern}' wants {what}, got '{value}'"


@pytest.mark.parametrize("value", ["9" * 400, "9" * 5000, "1e400", 10 ** 400],
                         ids=["400-nines", "5000-nines", "1e400", "int-10-400"])
def test_a_fraction_too_large_for_a_float_is_not_finite(value):
    """float() of a 400-digit int raised OverflowError: a traceback, not a message."""
    with pytest.raises(PatternError, match="'mean_life' of 'cbit' wants a finite number"):
        generate("cbit", 1, {**SMALL["cbit"], "mean_life": value})


@pytest.mark.parametrize("pattern, key, value", [
    ("binary", "pairs", "0200"), ("random", "alloc_bias", "0.5"), ("random", "alloc_bias", ".5"),
    ("random", "alloc_bias", "5e-1"), ("random", "alloc_bias", "1"), ("cbit", "mean_life", "12.5E0"),
])
def test_plain_ascii_values_are_still_taken(pattern, key, value):
    assert len(generate(pattern, 1, {**SMALL[pattern], key: value}))


SHARES = [("program", "hot_share"), ("program", "lifo"), ("random", "alloc_bias"), ("bdd", "gc_keep"),
          ("bdd", "death"), ("cbit", "long_share"), ("realloc-strings", "finish"),
          ("realloc-vectors", "small_per_push"), ("long-short", "long_share"), ("peak-drain", "keep")]


@pytest.mark.parametrize("name, key", SHARES, ids=[f"{n}-{k}" for n, k in SHARES])
def test_a_share_above_1_is_refused(name, key):
    """hot_share=1.5 had given the other sizes negative weights; keep=1e9 had been taken as 1."""
    assert isinstance(PATTERNS[name].defaults()[key], float)
    with pytest.raises(PatternError, match=f"'{key}' of '{name}' is a share, from 0 to 1, got '1.5'"):
        generate(name, 1, {**SMALL[name], key: "1.5"})
    assert len(generate(name, 1, {**SMALL[name], key: 1}))


@pytest.mark.parametrize("params, words", [
    ({"pairs": True}, "'pairs' of 'binary' wants a whole number, got 'true'"),     # was "wants a int, got 'True'"
    ({"pairs": [1]}, "'pairs' of 'binary' wants a whole number, got '[1]'"),
])
def test_a_recipe_value_of_the_wrong_type_is_named_plainly(params, words):
    with pytest.raises(PatternError, match=re.escape(words)):
        generate("binary", 1, params)
    with pytest.raises(PatternError, match=re.escape("'alloc_bias' of 'random' wants a number, got 'false'")):
        generate("random", 1, {"alloc_bias": False})


def test_a_str_parameter_takes_only_its_choices():
    with pytest.raises(PatternError, match="'kind' of 'syn' is one of struct, string, array, mix"):
        generate("syn", 1, {"kind": "nosuch"})


def test_a_pattern_that_trips_on_its_parameters_is_one_error_not_a_traceback(monkeypatch):
    """fit-stress with blocks=1 looked up a block it never made: a KeyError, which the net under
    the patterns (IndexError, not LookupError) let through as a traceback."""
    with pytest.raises(PatternError, match=re.escape("with blocks=1: 'first' (10000) is above 'blocks' (1)")):
        generate("fit-stress", 1, {"blocks": 1})
    assert len(generate("fit-stress", 1, {"blocks": 20, "first": 20})) > 0

    def lost(rng, pairs: int = 2000):       # a block looked up that was never made
        return {}[pairs]
    monkeypatch.setitem(PATTERNS, "binary", dataclasses.replace(PATTERNS["binary"], func=lost))
    with pytest.raises(PatternError, match=re.escape("pattern 'binary' makes no valid trace with pairs=3 (KeyError")):
        generate("binary", 1, {"pairs": 3})


@pytest.mark.parametrize("max_size, words", [
    (1, "'sizes' (26) wants 23 sizes besides the hot ones, and only 0 lie from 7 to 'max_size' (1)"),
    (28, "'sizes' (26) wants 23 sizes besides the hot ones, and only 22 lie from 7 to 'max_size' (28)"),
])
def test_a_palette_with_too_few_sizes_to_draw_is_refused_not_drawn_forever(max_size, words):
    """program drew its spread sizes until enough differed: with max_size=1 (or any range
    holding fewer) `mmtrace gen` never returned."""
    with pytest.raises(PatternError, match=re.escape(words)):
        generate("program", 1, {"max_size": max_size})
    assert len(set(generate("program", 1, {"max_size": 29}).sizes)) >= 26



# A count a pattern works through before (or without) writing ops: the ops limit never stopped it.
MOSTS = [
    # the palette drawn until enough sizes differ: for ever, in a set 1 GB large after 30 s
    ("program", {"sizes": 10**12, "max_size": 10**13}, "'sizes' of 'program' is at most 10,000"),
    # the text and the vocabulary drawn whole first: memory without end
    ("ngram", {"tokens": 10**12}, "'tokens' of 'ngram' is at most 6,000,000"),
    ("ngram", {"vocab": 10**12}, "'vocab' of 'ngram' is at most 1,000,000"),
    # a peak below every size: each phase allocates nothing, and phases ran for ever
    ("peak-drain", {"phases": 10**12, "peak": 1}, "'phases' of 'peak-drain' is at most 12,000,000"),
]


@pytest.mark.parametrize("pattern, params, words", MOSTS)
def test_a_count_worked_through_before_any_op_has_a_most(pattern, params, words):
    """Refused when the parameters are read (gen, and a recipe when it is loaded), not after a
    run that did not end."""
    with pytest.raises(PatternError, match=re.escape(words)):
        coerce_params(PATTERNS[pattern], params)
    at_most = {k: int(re.search(r"at most ([0-9,]+)", words)[1].replace(",", "")) for k in params
               if f"'{k}'" in words}
    assert coerce_params(PATTERNS[pattern], {**params, **at_most})


def test_the_largest_palette_is_drawn_in_moments():
    """Every size from 7 to max_size wanted, the rarest drawn with odds of 1 in 90,000."""
    from mmtrace.gen.classic import _palette
    sizes, _ = _palette(random.Random(1), [(4072, 0.74), (72, 0.1), (160, 0.06)], 10_000, 10_006)
    assert len(set(sizes)) == 10_000

def test_a_live_budget_below_the_sizes_draws_only_sizes_that_fit(monkeypatch):
    """random drew sizes up to max_size and, with nothing live and the size over max_live, drew
    again: max_live=1 took about 32,767 draws a block, minutes for the trace.  Sizes above the
    budget are no longer drawn; under the defaults the draws, and so the trace, are unchanged."""
    import mmtrace.gen as gen
    tops = []

    class Recording(gen.random.Random):
        def randrange(self, start, stop=None, *rest):
            tops.append(stop)
            return super().randrange(start, stop, *rest)
    monkeypatch.setattr(gen.random, "Random", Recording)
    tiny = generate("random", 1, {"max_live": 3, "allocs": 200})
    assert len(tiny) == 400 and max(tiny.sizes) <= 3
    assert tops and max(t for t in tops if t is not None) == 4     # sizes drawn from [1, 4) only
    monkeypatch.undo()
    assert (KIT / "traces" / "classic-random.rep").read_text().endswith(format_trace(generate("random", 1006)))


def test_generated_traces_have_an_upper_bound(monkeypatch):
    import mmtrace.gen.builder as builder
    monkeypatch.setattr(builder, "MAX_OPS", 1000)
    assert len(generate("binary", 1, {"pairs": 100})) == 600
    with pytest.raises(PatternError, match="pairs=2000: the trace would have more than 1,000 ops"):
        generate("binary", 1, {"pairs": 2000})      # harmless even where there is no bound


@pytest.mark.parametrize("pattern, params", [
    ("peak-drain", {"peak": 100_000_000, "phases": 1}),
    ("random", {"max_live": 100_000_000, "allocs": 20_000, "alloc_bias": 0.9}),
    ("large-churn", {"max_live": 100_000_000}),
    ("syn", {"kind": "array", "max_live": 100_000_000}),
])
def test_a_live_set_larger_than_the_heap_is_refused(pattern, params):
    """Each request fit, but the payload live at once outgrew the 20 MiB heap: the trace was
    written, passed `check`, and every allocator failed it (alloc_failed)."""
    with pytest.raises(PatternError, match=r"live payload would reach [0-9,]+ bytes, more than the driver's heap"):
        generate(pattern, 1, params)
    assert measure(generate(pattern, 1)).peak_live_bytes <= MAX_HEAP     # the defaults still fit


def test_a_range_with_its_bounds_swapped_is_refused():
    """large-churn drew from [log max, log min] as if the bounds were given in order."""
    with pytest.raises(PatternError, match=r"'min_size' of 'large-churn' \(3000000\) is above 'max_size' \(2000000\)"):
        generate("large-churn", 1, {"min_size": 3_000_000, "max_size": 2_000_000, "allocs": 10})
    with pytest.raises(PatternError, match=r"'min_size' of 'large-churn' \(3000000\) is above 'max_size' \(2097152\)"):
        generate("large-churn", 1, {"min_size": "3000000", "allocs": 10})
    assert len(generate("large-churn", 1, {"min_size": 70000, "max_size": 70000, "allocs": 10}))


@pytest.mark.parametrize("seed", [-5, -1, True, 1.0])
def test_a_negative_or_non_integer_seed_is_refused(seed):
    """random.Random(-5) is random.Random(5): --seed -5 had given --seed 5's trace."""
    with pytest.raises(PatternError, match="the seed must be a whole number from 0"):
        generate("binary", seed, {"pairs": 10})


@pytest.mark.parametrize("pattern, params", [
    ("peak-drain", {"peak": 1}),          # every size of its first phase is above the peak
    ("size-sweep", {"max_heap": 2}),      # no power of two fits 80% of the heap
])
def test_parameters_that_make_no_op_are_refused_not_an_empty_trace(pattern, params):
    """A trace of 0 ops was written, exit 0: `check` passed it and the driver listed it as ok
    with no figures (alone, a Perf index of 0.0), as `record` already refuses to write one."""
    given = " ".join(f"{k}={v}" for k, v in params.items())
    with pytest.raises(PatternError, match=re.escape(f"pattern '{pattern}' with {given} makes no ops")):
        generate(pattern, 1, params)
    assert len(generate(pattern, 1))          # the defaults make ops


# Counts whose ops are past the limit: each had drawn 12,000,000 ops before it was refused.
PAST_THE_LIMIT = [
    ("binary", {"pairs": 2_000_001, "small": 1, "large": 1, "new": 2}, 12_000_006),
    ("program", {"allocs": 6_000_001}, 12_000_002),
    ("syn", {"allocs": 6_000_001}, 12_000_002),
    ("tiny-flood", {"allocs": 6_000_001}, 12_000_002),
    ("coalescing", {"rounds": 2_000_001, "size": 1}, 12_000_006),
    ("realloc-vectors", {"vectors": 2_000, "rounds": 858}, 12_012_000),
    # neither had a floor: 2^k - 1, 2^k, 2^k + 1 for k to 22 (of 80% of 20 MiB), each freed, per round
    ("size-sweep", {"rounds": 2_000_000}, 276_000_126),
    # and a phase of 12,000,000 bytes, drained to 10%, allocs its sizes until they pass 10,800,000
    ("peak-drain", {"phases": 12_000_000, "peak": 12_000_000}, 149_105_149_472),
    # about 12,600,000 ops: the floor by each range's largest size (4,200,000) had let it draw 12,000,000
    ("peak-drain", {"phases": 1000}, 12_372_712),
]


@pytest.mark.parametrize("pattern, params, least", PAST_THE_LIMIT)
def test_counts_past_the_ops_limit_are_refused_before_any_op(monkeypatch, pattern, params, least):
    import mmtrace.gen.builder as builder
    drawn = []
    monkeypatch.setattr(builder.TraceBuilder, "_emit", lambda self, *op: drawn.append(op))
    words = f"the trace would have more than 12,000,000 ops (at least {least:,})"
    with pytest.raises(PatternError, match=re.escape(words)):
        coerce_params(PATTERNS[pattern], params)       # as a recipe is loaded
    with pytest.raises(PatternError, match=re.escape(words)):
        generate(pattern, 1, params)
    assert drawn == []


@pytest.mark.parametrize("name", sorted(n for n, p in PATTERNS.items() if getattr(p, "least_ops", None)))
def test_the_fewest_ops_a_pattern_promises_are_never_more_than_it_makes(name):
    """least_ops is a floor: a trace under the limit is never refused by it."""
    least = PATTERNS[name].least_ops
    defaults = PATTERNS[name].defaults()
    for seed in (1, 2):
        assert least({**defaults, **SMALL[name]}) <= len(generate(name, seed, SMALL[name]))
    assert least(defaults) <= len(generate(name, 1))


# Parameters each pattern's floor is held to, and how close to the real count it must come:
# peak-drain's floor by its sizes' tops was a third of the count, coalescing's 5 of its 6 ops a
# round, realloc-many's one op a step half, fit-stress's blocks alone 85%: a count a little past
# the limit drew 12,000,000 ops before it was refused.
FLOORS = [
    ("peak-drain", {}, 0.85), ("peak-drain", {"phases": 4}, 0.85),
    ("peak-drain", {"phases": 9, "keep": 0.0}, 0.9), ("peak-drain", {"phases": 200, "peak": 200_000}, 0.8),
    ("peak-drain", {"phases": 7, "peak": 1_000_000}, 0.7), ("peak-drain", {"phases": 40, "peak": 300_000, "keep": 0.5}, 0.6),
    ("peak-drain", {"phases": 5, "peak": 5000}, 0.0), ("peak-drain", {"phases": 3, "peak": 70_000, "keep": 0.9}, 0.0),
    ("coalescing", {"rounds": 300, "size": 7}, 1.0), ("fit-stress", {"blocks": 3000, "first": 2995}, 1.0),
    ("realloc-many", {}, 0.9), ("realloc-many", {"steps": 5000, "buffers": 3}, 0.9),
    ("realloc-vectors", {"vectors": 3, "rounds": 4, "max_elems": 64}, 0.25),
    ("size-sweep", {"rounds": 4, "max_heap": 5000}, 0.9), ("realloc-strings", {"builders": 10, "appends": 500}, 0.9),
    ("growing-buffer", {"steps": 7}, 1.0), ("binary", {"pairs": 9}, 1.0), ("cbit", {"allocs": 500, "vectors": 20}, 0.9),
    ("ngram", {"tokens": 300, "vocab": 5}, 0.5), ("tiny-flood", {"allocs": 500, "live": 10}, 1.0),
    ("long-short", {"allocs": 300, "burst": 3}, 0.9), ("large-churn", {"allocs": 50}, 1.0),
    ("program", {"allocs": 100, "peak_blocks": 10}, 1.0), ("random", {"allocs": 70}, 1.0),
    ("bdd", {"allocs": 500, "gc_every": 50}, 0.9), ("syn", {"allocs": 400, "live": 30}, 1.0),
]


def test_every_pattern_has_its_floor_checked():
    assert {name for name, _, _ in FLOORS} == {n for n, p in PATTERNS.items() if p.least_ops}


@pytest.mark.parametrize("name, params, share", FLOORS, ids=[f"{n}-{'-'.join(map(str, p.values()))}" for n, p, _ in FLOORS])
def test_a_floor_is_at_most_the_real_count_and_near_it(name, params, share):
    """least_ops refuses a count past the limit before any op is drawn: never a trace that
    fits (at most the count of every seed), and close enough to refuse most that would not."""
    pattern = PATTERNS[name]
    least = pattern.least_ops({**pattern.defaults(), **params})
    counts = [len(generate(name, seed, params)) for seed in (1, 2, 3)]
    assert least <= min(counts)
    assert least >= share * max(counts)


@pytest.mark.parametrize("key, value, words", [
    # int() refuses more than 4,300 digits: a whole number had been called no whole number
    ("pairs", "9" * 5000, "parameter 'pairs' of 'binary' is far too large, got '999999999999999999999999...'"),
    ("small", "1e" + "9" * 5000, "parameter 'small' of 'binary' wants a whole number, got '1e9999999999999999999999...'"),
])
def test_a_value_thousands_of_digits_long_is_quoted_short(key, value, words):
    """The error quoted the value whole: a line of 5,000 characters."""
    with pytest.raises(PatternError) as caught:
        generate("binary", 1, {key: value})
    assert str(caught.value) == words

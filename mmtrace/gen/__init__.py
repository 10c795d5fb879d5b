"""The trace generator: named patterns, each a function of a seeded RNG and parameters.

    generate("binary", seed=1, params={"pairs": 2000}) -> Trace

The same pattern, seed and parameters always give the same ops (random.Random's
algorithms are fixed across Python versions for the calls the patterns use).
"""
from __future__ import annotations

import inspect
import math
import random
import re
from dataclasses import dataclass, field
from typing import Callable

from ..trace import CLASSIC, MAX_HEAP, MAX_OPS, Trace, ascii_digits
from . import classic, kit, lab64
from .builder import PatternError, TraceBuilder, too_many_ops


@dataclass(frozen=True)
class Pattern:
    name: str
    func: Callable[..., TraceBuilder]
    choices: dict[str, tuple[str, ...]] = field(default_factory=dict)   # the values a str parameter takes
    shares: tuple[str, ...] = ()       # float parameters that are a share or a probability: 0 to 1
    # int parameters with a most of their own, and why: a count the pattern works through
    # before (or without) writing ops, which the ops limit does not stop
    most: dict[str, tuple[int, str]] = field(default_factory=dict)
    # the fewest ops the parameters (all of them, defaults filled in) make: a count past the ops
    # limit is refused when read, not after millions of ops drawn (14 s and more)
    least_ops: Callable[[dict], int] | None = None

    @property
    def doc(self) -> str:
        return " ".join((self.func.__doc__ or "").split())

    def defaults(self) -> dict[str, object]:
        sig = inspect.signature(self.func)
        return {k: p.default for k, p in sig.parameters.items() if k != "rng"}


def _size_sweep_ops(v: dict) -> int:
    """Each round allocs and frees 2^k - 1, 2^k and 2^k + 1 for k up to log2 of 80% of max_heap,
    then holds two blocks per k below top - 2 and sweeps 2^k again.  One k fewer than
    kit.size_sweep's float arithmetic may reach; a max_heap past the heap's is refused at its
    first request too large, so only the heap's counts here."""
    top = max(0, (min(v["max_heap"], MAX_HEAP) * 4 // 5).bit_length() - 2)
    return 6 * top * v["rounds"] + 4 * max(0, top - 3) + 2 * top


# The chance, per random count, that a floor below counts more than a seed makes: a floor on
# drawn counts by their largest values alone was a third or half of the real count.
_MISS = 1e-15


def _peak_drain_ops(v: dict) -> int:
    """Each phase starts at most keep * peak live (after the drain) and allocs its range's
    log-uniform sizes until the next would pass the peak, so the sizes it draws (the last not
    allocated) add up to more than room = (1 - keep) * peak; each alloc is freed.  Every size at
    its range's top gave a floor a third of the real count, so instead: over all the phases of a
    range, the draws' sum passes phases * room only if the draws number at least
    (phases * room - t) / mean, but for a chance under _MISS (Freedman's inequality:
    t^2 = 2 ln(1/miss) (variance + top * t / 3)).  int() makes each size at most the real number
    drawn, so more of them.  A peak past the heap is refused when the live payload passes it, so
    only the heap's share counts here."""
    room = (1 - v["keep"]) * min(v["peak"], MAX_HEAP)
    cycles, rest = divmod(v["phases"], len(kit.PEAK_DRAIN_RANGES))
    log_miss = math.log(1 / _MISS)
    allocs = 0
    for k, (lo, hi) in enumerate(kit.PEAK_DRAIN_RANGES):
        phases = cycles + (k < rest)
        spread = math.log(hi / lo)
        mean = (hi - lo) / spread
        variance = (hi * hi - lo * lo) / (2 * spread) - mean * mean
        total = phases * room
        bias = log_miss * hi / 3
        t = bias + math.sqrt(bias * bias + 2 * log_miss * variance * total / mean)
        draws = math.floor((total - t) / mean) + 1 if total > t else 0
        allocs += max(0, draws - phases)        # a phase's last draw is not allocated
    return 2 * allocs


def _realloc_many_ops(v: dict) -> int:
    """One op a step (a realloc, a realloc(NULL, n) or a free), and a small block, freed, at
    each step with a chance of one half: at least steps / 2 - t of them but for a chance under
    _MISS (Hoeffding: t = sqrt(steps ln(1/miss) / 2))."""
    smalls = v["steps"] / 2 - math.sqrt(v["steps"] * math.log(1 / _MISS) / 2)
    return v["steps"] + 2 * max(0, math.floor(smalls))


def _fit_stress_ops(v: dict) -> int:
    """Every count is fixed: the big block, the blocks, one 100 for every tenth, the 10- and the
    1-byte blocks, one 150 for every tenth of the first; each freed."""
    return 2 * (1 + v["blocks"] + v["blocks"] // 10 + 2 + v["first"] // 10)


def _each_freed(*counts: str) -> Callable[[dict], int]:
    """The fewest ops of a pattern whose COUNTS are blocks allocated, each freed by the end."""
    return lambda v: 2 * sum(v[c] for c in counts)


PATTERNS: dict[str, Pattern] = {p.name: p for p in [
    Pattern("program", classic.program, shares=("hot_share", "lifo"),
            most={"sizes": (10_000, "each drawn until it differs from the others")},
            least_ops=_each_freed("allocs")),
    Pattern("coalescing", classic.coalescing, least_ops=lambda v: 6 * v["rounds"]),   # 3 allocs, 3 frees
    Pattern("random", classic.uniform_random, shares=("alloc_bias",), least_ops=_each_freed("allocs")),
    Pattern("binary", classic.binary, least_ops=lambda v: 6 * v["pairs"]),
    Pattern("growing-buffer", classic.growing_buffer, least_ops=lambda v: 3 * v["steps"] + 4),
    Pattern("bdd", lab64.bdd, shares=("gc_keep", "death"), least_ops=_each_freed("allocs")),
    Pattern("cbit", lab64.cbit, shares=("long_share",), least_ops=_each_freed("allocs", "vectors")),
    Pattern("ngram", lab64.ngram,
            most={"tokens": (MAX_OPS // 2, "the text is drawn whole first, and each token is two ops"),
                  "vocab": (1_000_000, "each word's length and weight are drawn first")},
            least_ops=_each_freed("tokens")),      # a token's string, then its free or its node
    Pattern("syn", lab64.syn, {"kind": tuple(lab64.SYN_KINDS)}, least_ops=_each_freed("allocs")),
    Pattern("realloc-many", kit.realloc_many, least_ops=_realloc_many_ops),
    Pattern("realloc-strings", kit.realloc_strings, shares=("finish",),
            least_ops=lambda v: v["appends"] + 2 * v["builders"]),
    Pattern("realloc-vectors", kit.realloc_vectors, shares=("small_per_push",),
            # born, doubled from at most 64 bytes to at least 16 * 64 (4 times), shrunk to fit, freed
            least_ops=lambda v: 7 * v["vectors"] * v["rounds"]),
    Pattern("fit-stress", kit.fit_stress, least_ops=_fit_stress_ops),
    Pattern("size-sweep", kit.size_sweep, least_ops=_size_sweep_ops),
    Pattern("tiny-flood", kit.tiny_flood, least_ops=_each_freed("allocs")),
    Pattern("large-churn", kit.large_churn, least_ops=_each_freed("allocs")),
    Pattern("long-short", kit.long_short, shares=("long_share",), least_ops=_each_freed("allocs")),
    Pattern("peak-drain", kit.peak_drain, shares=("keep",),
            most={"phases": (MAX_OPS, "a phase under a small peak writes no op")}, least_ops=_peak_drain_ops),
]}


def _quoted(v: object) -> str:
    """V as an error quotes it: TOML's true, not Python's True, and a long value cut short."""
    text = str(v).lower() if isinstance(v, bool) else str(v)
    return text if len(text) <= 24 else text[:24] + "..."


# A fraction as written in ASCII: 0.25, .5, 2, 1e-3 (a sign, '_', spaces or other digits are not)
_FRACTION = re.compile(r"([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")
_MOST_DIGITS = 4000        # past int()'s limit (4,300) and past every parameter's


def _plain(where: str, text: str, want: type) -> int | float | None:
    """TEXT from the command line as a number, or None if it is not one written plainly: ASCII
    digits (a fraction's '.' and exponent too) after an optional '-', so that a negative value
    is named as such; int() and float() alone took '1_000', '+5', ' 5' and Arabic-Indic digits."""
    sign, body = (-1, text[1:]) if text.startswith("-") else (1, text)
    if want is int and ascii_digits(body):
        if len(body.lstrip("0")) > _MOST_DIGITS:
            raise PatternError(f"{where} is far too large, got '{_quoted(text)}'")
        return sign * int(body)
    if want is float and (_FRACTION.fullmatch(body) or body.lower() in ("nan", "inf", "infinity")):
        return sign * float(body)     # 400 nines, nan and inf: refused below as not finite
    return None


def _number(pattern: Pattern, k: str, v: object, want: type) -> int | float:
    """V (a number, or a string from the command line) as WANT: ints whole and at least 1
    (every int parameter is a count or a size), floats finite and not negative, shares at most 1."""
    where = f"parameter '{k}' of '{pattern.name}'"
    number: object = _plain(where, v, want) if isinstance(v, str) else v
    if isinstance(number, bool) or not isinstance(number, (int, float)):
        what = "a whole number" if want is int else "a number"
        raise PatternError(f"{where} wants {what}, got '{_quoted(v)}'")
    if want is float and isinstance(number, int) and not isinstance(number, bool) and abs(number) > 1e308:
        number = math.inf        # float() of a 400-digit int raised OverflowError: a traceback
    if isinstance(number, float) and not math.isfinite(number):     # an int is finite; isfinite overflows on 400 digits
        raise PatternError(f"{where} wants a finite number, got '{_quoted(v)}'")
    if want is int:
        if number != int(number):
            raise PatternError(f"{where} wants a whole number, got '{_quoted(v)}'")
        if number < 1:
            raise PatternError(f"{where} must be at least 1, got '{_quoted(v)}'")
        most, why = pattern.most.get(k.replace("-", "_"), (None, ""))
        if most is not None and number > most:
            raise PatternError(f"{where} is at most {most:,} ({why}), got '{_quoted(v)}'")
        return int(number)
    if number < 0:
        raise PatternError(f"{where} must not be negative, got '{_quoted(v)}'")
    if k.replace("-", "_") in pattern.shares and number > 1:   # 1.5 had been taken as 1, or worse
        raise PatternError(f"{where} is a share, from 0 to 1, got '{_quoted(v)}'")
    return float(number)


def coerce_params(pattern: Pattern, params: dict[str, object]) -> dict[str, object]:
    """Check names and values and convert them (e.g. strings from the command line) to the
    type of each parameter's default."""
    defaults = pattern.defaults()
    out: dict[str, object] = {}
    spelt: dict[str, str] = {}          # key -> the name it was given as
    for k, v in params.items():
        key = k.replace("-", "_")
        if key not in defaults:
            raise PatternError(f"pattern '{pattern.name}' has no parameter '{k}' "
                               f"(it has: {', '.join(defaults) or 'none'})")
        if key in spelt:                # max_size and max-size: which one counts is no choice to make silently
            first = spelt[key]
            raise PatternError(f"parameter '{k}' of '{pattern.name}' given twice ({first}={_quoted(params[first])}, "
                               f"{k}={_quoted(v)}): give it once")
        spelt[key] = k
        want = type(defaults[key])
        if want is str:
            allowed = pattern.choices.get(key)
            if allowed and str(v) not in allowed:
                raise PatternError(f"parameter '{k}' of '{pattern.name}' is one of {', '.join(allowed)}, "
                                   f"got '{_quoted(v)}'")
            out[key] = str(v)
        else:
            out[key] = _number(pattern, k, v, want)
    # a range's bounds (min_size, max_size) in order: a pattern would swap or empty it
    for key, low in out.items():
        top = key.replace("min_", "max_", 1)
        if key.startswith("min_") and top in defaults:
            high = out.get(top, defaults[top])
            if low > high:
                raise PatternError(f"parameter '{key}' of '{pattern.name}' ({low}) is above '{top}' ({high})")
    if pattern.least_ops:
        err = too_many_ops(max(1, pattern.least_ops({**defaults, **out})))     # 0 would mean one past
        if err:
            raise PatternError(f"pattern '{pattern.name}' with {_given(params)}: {err}")
    return out


def _given(params: dict[str, object] | None) -> str:
    """The parameters as an error names them."""
    return " ".join(f"{k}={_quoted(v)}" for k, v in (params or {}).items()) or "the defaults"


def generate(pattern: str, seed: int, params: dict[str, object] | None = None,
             order: str = CLASSIC, weight: int = 1) -> Trace:
    p = PATTERNS.get(pattern)
    if p is None:
        raise PatternError(f"no pattern '{pattern}' (patterns: {', '.join(PATTERNS)})")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        # random.Random(-5) is random.Random(5): a negative seed would repeat another's trace
        raise PatternError(f"the seed must be a whole number from 0, got '{seed}'")
    values = coerce_params(p, params or {})
    given = _given(params)
    try:
        builder = p.func(random.Random(seed), **values)
    except PatternError as err:              # the builder's limits: too many ops, too large a request
        raise PatternError(f"pattern '{pattern}' with {given}: {err}") from None
    except (ArithmeticError, LookupError, ValueError, AssertionError) as err:
        # parameters each valid alone but not together (a live set larger than its budget...)
        raise PatternError(f"pattern '{pattern}' makes no valid trace with {given} "
                           f"({type(err).__name__}{': ' + str(err) if str(err) else ''})") from None
    if builder.live:
        raise PatternError(f"pattern '{pattern}' left {len(builder.live)} blocks live")
    if not len(builder):     # the driver would list a trace of nothing as ok, with no figures
        raise PatternError(f"pattern '{pattern}' with {given} makes no ops (a request or a live "
                           "budget smaller than every size it draws?); use other parameters")
    return builder.trace(order, weight)


__all__ = ["PATTERNS", "Pattern", "PatternError", "generate"]

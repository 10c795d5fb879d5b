"""The trace generator: named patterns, each a function of a seeded RNG and parameters.

    generate("binary", seed=1, params={"pairs": 2000}) -> Trace

The same pattern, seed and parameters always give the same ops (random.Random's
algorithms are fixed across Python versions for the calls the patterns use).
"""
from __future__ import annotations

import inspect
import random
from dataclasses import dataclass
from typing import Callable

from ..trace import CLASSIC, Trace
from . import classic, kit, lab64
from .builder import TraceBuilder


@dataclass(frozen=True)
class Pattern:
    name: str
    func: Callable[..., TraceBuilder]

    @property
    def doc(self) -> str:
        return " ".join((self.func.__doc__ or "").split())

    def defaults(self) -> dict[str, object]:
        sig = inspect.signature(self.func)
        return {k: p.default for k, p in sig.parameters.items() if k != "rng"}


PATTERNS: dict[str, Pattern] = {p.name: p for p in [
    Pattern("program", classic.program),
    Pattern("coalescing", classic.coalescing),
    Pattern("random", classic.uniform_random),
    Pattern("binary", classic.binary),
    Pattern("growing-buffer", classic.growing_buffer),
    Pattern("bdd", lab64.bdd),
    Pattern("cbit", lab64.cbit),
    Pattern("ngram", lab64.ngram),
    Pattern("syn", lab64.syn),
    Pattern("realloc-many", kit.realloc_many),
    Pattern("realloc-strings", kit.realloc_strings),
    Pattern("realloc-vectors", kit.realloc_vectors),
    Pattern("fit-stress", kit.fit_stress),
    Pattern("size-sweep", kit.size_sweep),
    Pattern("tiny-flood", kit.tiny_flood),
    Pattern("large-churn", kit.large_churn),
    Pattern("long-short", kit.long_short),
    Pattern("peak-drain", kit.peak_drain),
]}


class PatternError(ValueError):
    """An unknown pattern or parameter; the message says which and what is allowed."""


def coerce_params(pattern: Pattern, params: dict[str, object]) -> dict[str, object]:
    """Check names and convert values (e.g. strings from the command line) to the
    type of each parameter's default."""
    defaults = pattern.defaults()
    out: dict[str, object] = {}
    for k, v in params.items():
        key = k.replace("-", "_")
        if key not in defaults:
            raise PatternError(f"pattern '{pattern.name}' has no parameter '{k}' "
                               f"(it has: {', '.join(defaults) or 'none'})")
        want = type(defaults[key])
        try:
            out[key] = want(float(v)) if want is int and isinstance(v, str) and "." in v \
                else want(v)
        except (TypeError, ValueError):
            raise PatternError(f"parameter '{k}' of '{pattern.name}' wants a {want.__name__}, "
                               f"got '{v}'") from None
    return out


def generate(pattern: str, seed: int, params: dict[str, object] | None = None,
             order: str = CLASSIC, weight: int = 1) -> Trace:
    p = PATTERNS.get(pattern)
    if p is None:
        raise PatternError(f"no pattern '{pattern}' (patterns: {', '.join(PATTERNS)})")
    builder = p.func(random.Random(seed), **coerce_params(p, params or {}))
    assert not builder.live, f"pattern {pattern} left blocks live"
    return builder.trace(order, weight)


__all__ = ["PATTERNS", "Pattern", "PatternError", "generate"]

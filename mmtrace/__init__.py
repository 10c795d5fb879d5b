"""mmtrace: the malloc-lab kit's trace tools.

Generate traces from seeded patterns, measure and lint them, switch header
orders, and record real programs with an LD_PRELOAD recorder.  The command line
is `mmtrace` (or `python -m mmtrace`); these are the pieces it is made of.
"""
from .gen import PATTERNS, generate
from .linter import Problem, TraceError, fixed, lint, read_trace
from .stats import TraceStats, measure
from .trace import Header, Trace, format_trace, write_trace

__all__ = ["PATTERNS", "Header", "Problem", "Trace", "TraceError", "TraceStats", "fixed",
           "format_trace", "generate", "lint", "measure", "read_trace", "write_trace"]

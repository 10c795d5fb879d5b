"""The kit's benchmark studies: allocators side by side in real processes.

Each study (sizes, threads, stress, align, programs) runs its C program or real
programs under every allocator found (glibc, the optional Debian allocators and
one shim per variant), repeats the runs interleaved, and writes a Markdown table,
plots and the raw results into docs/.  `python -m bench --help` lists them.
"""
from bench.allocators import Allocator, discover
from bench.measure import Summary, summarize

__all__ = ["Allocator", "Summary", "discover", "summarize"]

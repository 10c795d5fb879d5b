"""The measured table of traces/README.md: one row per trace, from `stats`, never typed.

Only the text between the two markers is replaced; the prose around it is kept.
"""
from __future__ import annotations

from .linter import read_trace
from .recipe import Recipe
from .stats import TraceStats, measure

BEGIN = "<!-- BEGIN TRACE TABLE (made by `mmtrace readme`; do not edit) -->"
END = "<!-- END TRACE TABLE -->"


def _cell(text: str) -> str:
    """TEXT as one cell of a Markdown row: a '|' would end the cell, a newline the row."""
    return " ".join(text.split()).replace("|", "\\|")


def table(recipe: Recipe, measured: dict[str, TraceStats]) -> list[str]:
    lines = []
    for group, what in recipe.groups.items():
        entries = [e for e in recipe.entries if e.group == group]
        if not entries:
            continue
        lines += [f"### Group `{group}`", "", what, "",
                  "| trace | stresses | ops | ids | peak live bytes | max live blocks "
                  "| sizes min / median / max | reallocs (n / r 0) |",
                  "|---|---|---:|---:|---:|---:|---|---|"]
        for e in entries:
            s = measured[e.name]
            realloc = f"{s.reallocs:,} ({s.realloc_null:,} / {s.realloc_zero:,})"
            lines.append(f"| `{e.file}` | {_cell(e.stresses)} | {s.ops:,} | {s.ids:,} | "
                         f"{s.peak_live_bytes:,} | {s.peak_live_blocks:,} | "
                         f"{s.size_min:,} / {s.size_median:,} / {s.size_max:,} "
                         f"| {realloc} |")
        lines.append("")
    total = sum(s.ops for s in measured.values())
    lines.append(f"{len(measured)} traces, {total:,} ops in all.")
    return lines


def measure_suite(recipe: Recipe) -> dict[str, TraceStats]:
    return {e.name: measure(read_trace(recipe.folder / e.file)) for e in recipe.entries}


class MarkerError(ValueError):
    """The README's markers are not one BEGIN then one END; str() says what to put back."""


def updated(readme_text: str, lines: list[str]) -> str:
    """The README with the table between the markers replaced (appended if there are none).
    Markers that are not one BEGIN then one END are refused: a lone BEGIN had a second table
    appended, and the next run replaced all from that BEGIN to the new END, prose and all."""
    block = "\n".join([BEGIN, *lines, END])
    begins, ends = readme_text.count(BEGIN), readme_text.count(END)
    if begins == ends == 0:
        return readme_text.rstrip("\n") + "\n\n" + block + "\n"
    if begins == ends == 1 and readme_text.index(BEGIN) < readme_text.index(END):
        head, rest = readme_text.split(BEGIN, 1)
        return head + block + rest.split(END, 1)[1]
    raise MarkerError(f"the trace table's markers are {begins} BEGIN and {ends} END line(s)"
                      f"{' in the wrong order' if begins == ends == 1 else ''}: leave one '{BEGIN}' "
                      f"line before the table and one '{END}' line after it")

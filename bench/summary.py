"""`bench summary`: the headline figures of every study, read from docs/bench-*.json.

Pure: takes the loaded results, returns Markdown.  Checks the kit's targets
(best within 2x of glibc on small sizes; ts-nolock faster than ts-lock at 4+
threads with under 1.5x its heap; best runs every program correctly).
"""
from __future__ import annotations

import json
import statistics
from pathlib import Path

from bench import align, programs, report, sizes, stress, threads
from mmtrace.regular import read_regular

SMALL = (16, 32, 64, 128, 256, 512)


class SummaryError(ValueError):
    """A study's JSON that cannot be read; the message names the file, in one line."""


def load(out: Path) -> dict:
    """Each study's result, by name, and its measured record (report.measured) under
    `measured` as {name: record or None}: None for a JSON written before studies kept one."""
    kinds = {"sizes": sizes.Result, "threads": threads.Result, "stress": stress.Result,
             "align": align.Result, "programs": programs.Result}
    got: dict = {}
    seen: dict = {}
    for name, cls in kinds.items():
        path = out / f"bench-{name}.json"
        if path.exists():
            try:
                data = json.loads(read_regular(path).decode("utf-8"))
                got[name] = cls.from_json(data)
                LINES[name](got[name])      # rendered once here: a figure of the wrong type names its file
                seen[name] = measured_record(data.get("measured"))
            except OSError as err:
                raise SummaryError(f"{path}: cannot read it ({err.strerror})") from None
            except (ValueError, KeyError, TypeError, AttributeError, IndexError, ZeroDivisionError) as err:
                reason = " ".join(str(err).split())[:120] or type(err).__name__
                raise SummaryError(f"{path}: not the results `make bench-{name}` writes ({type(err).__name__}: "
                                   f"{reason}); rerun the study or remove the file") from None
    if got:
        got["measured"] = seen
    return got


def measured_record(m) -> dict | None:
    """The record when it has what the Measured line needs; else None (not recorded)."""
    if isinstance(m, dict) and isinstance(m.get("date"), str) and isinstance(m.get("machine"), str):
        return m
    return None


def measured_line(m: dict | None) -> str:
    if m is None:
        return "Measured: not recorded (this study's JSON predates the record of machine, date and commit)."
    return report.machine_note(m)


def spread(s, fmt: str) -> str:
    """`median [min–max]`, each as fmt formats it: a headline keeps the run's spread."""
    return f"{s.median:{fmt}} [{s.lo:{fmt}}–{s.hi:{fmt}}]"


def mark(ok: bool) -> str:
    return "met" if ok else "**not met**"


def sizes_lines(res: sizes.Result) -> list[str]:
    lines = ["## Sizes ([bench-sizes.md](bench-sizes.md))", "",
             "Steady-state malloc+free, geometric mean of the ratio to glibc over 16–512 B:", ""]
    for a in res.allocators:
        ratios = []
        for s in SMALL:
            p, g = res.point(a, "malloc", s), res.point("glibc", "malloc", s)
            if p and g and p.steady and g.steady:
                ratios.append(p.steady.median / g.steady.median)
        if ratios:
            lines.append(f"- {a}: ×{statistics.geometric_mean(ratios):.2f}")
    best = [res.point("best", "malloc", s) for s in SMALL]
    glibc = [res.point("glibc", "malloc", s) for s in SMALL]
    if all(b and b.steady for b in best) and all(g and g.steady for g in glibc):
        worst = max(b.steady.median / g.steady.median for b, g in zip(best, glibc))
        lines += ["", f"Target, best within 2× of glibc at every small size: worst ×{worst:.2f}, {mark(worst <= 2)}."]
    return lines


def threads_lines(res: threads.Result) -> list[str]:
    lines = ["## Threads ([bench-threads.md](bench-threads.md))", ""]
    ok = True
    for t in (t for t in res.threads if t >= 4):
        lock, nolock = res.value("ts-lock", t, "seconds"), res.value("ts-nolock", t, "seconds")
        hl, hn = res.value("ts-lock", t, "region_kb"), res.value("ts-nolock", t, "region_kb")
        if not (lock and nolock and hl and hn):
            continue
        speed, heap = nolock.median / lock.median, hn.median / hl.median
        ok &= speed < 1 and heap < 1.5
        g = res.value("glibc", t, "seconds")
        glibc = f"glibc {spread(g, '.3f')} s" if g else "glibc: no run succeeded"
        lines.append(f"- {t} threads: ts-nolock {spread(nolock, '.3f')} s vs ts-lock {spread(lock, '.3f')} s "
                     f"(×{speed:.2f}); heap ×{heap:.2f}; {glibc}")
    verdict = mark(ok) if len(lines) > 2 else ("not measured (no thread count of 4 or more with both "
                                                "ts-lock's and ts-nolock's time and heap)")
    lines += ["", f"Target, ts-nolock faster than ts-lock at 4+ threads with under 1.5× its heap: {verdict}."]
    return lines


def stress_lines(res: stress.Result) -> list[str]:
    lines = ["## Fit-policy stress ([bench-stress.md](bench-stress.md))", ""]
    base = next((r.seconds for r in res.rows if r.allocator == "glibc" and r.seconds), None)
    for r in res.rows:
        if r.seconds:
            ratio = f" (×{r.seconds.median / base.median:,.2f} glibc)" if base and r.allocator != "glibc" else ""
            heap = f", max heap {r.counters['max heap'] / 2**20:.1f} MiB" if "max heap" in r.counters else ""
            lines.append(f"- {r.allocator}: {spread(r.seconds, '.4g')} s{ratio}{heap}")
    return lines


def align_lines(res: align.Result) -> list[str]:
    lines = ["## Alignment ([bench-align.md](bench-align.md))", "", "glibc, MB/s, malloc'd vs page-aligned buffer:", ""]
    for s in res.sizes:
        m, p, o = (res.get("glibc", k, s) for k in align.KINDS)
        if m and p and o and m.mbps and p.mbps and o.mbps:
            lines.append(f"- {s >> 10} KiB: malloc {spread(m.mbps, ',.0f')} (offset {', '.join(map(str, m.offsets)) or '?'}), "
                         f"page {spread(p.mbps, ',.0f')}, odd {spread(o.mbps, ',.0f')}: "
                         f"malloc/page ×{m.mbps.median / p.mbps.median:.2f}")
    return lines


def programs_lines(res: programs.Result) -> list[str]:
    lines = ["## Programs ([bench-programs.md](bench-programs.md))", "", "Wall time ×glibc (median):", ""]
    for a in res.allocators:
        parts = []
        for w in res.workloads:
            r, g = res.get(a, w), res.get("glibc", w)
            if r and (r.failures or r.wrong):
                parts.append(f"{w} FAILED")
            elif r and g and r.wall and g.wall:
                parts.append(f"{w} ×{r.wall.median / g.wall.median:.2f}")
        lines.append(f"- {a}: " + ", ".join(parts))
    best = [res.get("best", w) for w in res.workloads]
    if all(best):
        ok = all(r.failures == 0 and r.wrong == 0 for r in best)
        lines += ["", f"Target, best runs every program correctly: {mark(ok)}."]
    return lines


LINES = {"sizes": sizes_lines, "threads": threads_lines, "stress": stress_lines, "align": align_lines,
         "programs": programs_lines}


def render(results: dict) -> str:
    measured = results.get("measured", {})
    parts = ["# Benchmark studies: summary", "",
             "Headline figures of the five studies, computed from the `docs/bench-*.json` files the "
             "studies wrote (`python -m bench summary` regenerates this page); each study's section "
             "says where, when and from which commit it was measured, as its JSON records. Figures are "
             "medians, with [min–max] over the study's runs where this page gives them; ratios (×) are of "
             "medians, and each study's page gives the range of every figure behind them.", "",
             "How to run: `make bench` (all five, then this page), or one of `make bench-sizes`, "
             "`bench-threads`, `bench-stress`, `bench-align`, `bench-programs`; `BENCH_ARGS` holds options for "
             "every study: `--quick` for short runs, `--only best,ts-lock` to choose allocators, "
             "`--reps N` repetitions. A study's own options (`sizes --max-log2 N`, `threads --threads "
             "1,2`, `stress --trace FILE`) and `--out DIR`, to write elsewhere than `docs/`, are for "
             "`.venv/bin/python -m bench STUDY` (`--help` lists them). The targets "
             "install jemalloc, tcmalloc and mimalloc from Debian packages when they can (a missing one "
             "is reported and skipped) and build one shim per variant (`make shims`; see "
             "[bench-shim.md](bench-shim.md) for how a variant becomes the process's malloc). Ctrl-C, "
             "SIGTERM or SIGHUP stop a study without losing what it measured: its page and JSON are "
             "written from the runs finished so far, marked partial, and it exits 128 + the signal.", ""]
    for name, fn in LINES.items():
        if name in results:
            lines = fn(results[name])
            partial = results[name].partial
            note = [f"**Partial:** {partial}: these figures are of the runs finished before it.", ""] if partial else []
            parts += lines[:2] + [measured_line(measured.get(name)), ""] + note + lines[2:] + [""]
        else:
            parts += [f"## {name}", "", f"(not run: `make bench-{name}`)", ""]
    return "\n".join(parts)

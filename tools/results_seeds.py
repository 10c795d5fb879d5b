"""results_seeds.py - how much of a trace's utilization is its seed.

A generated trace of the suite is one draw of its pattern: its utilization can
reflect that one seed more than the allocator.  This tool regenerates every
generated trace of the recipe on K other seeds, with the recipe's pattern,
parameters, header and weight, runs the chosen variants on them and writes
docs/results-seeds.md: per trace, the suite seed's utilization beside the mean,
min and max over the other seeds.  Throughput is not reported: short runs timed
on a shared machine are noise.  Only main() prints.

Seed rule: the other seeds of a trace with recipe seed S are S*100 + j, j = 1..K
(K <= 99, so no two traces with different recipe seeds share one).

    .venv/bin/python tools/results_seeds.py                          # best, segregated-realloc, K=4
    .venv/bin/python tools/results_seeds.py --trace realloc-many --variant best --seeds 8
"""
from __future__ import annotations

import sys
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from pathlib import Path
from statistics import mean

import click

sys.path.insert(0, str(Path(__file__).resolve().parent))

from options import TIME_LIMIT, OutputFile, kit_path, writable_file, writable_folder  # noqa: E402
from results import KIT, measure, pct, table  # noqa: E402

sys.path.insert(0, str(KIT))
from bench.report import source_note  # noqa: E402
from mmtrace.oneline import IntRange, NonEmptyPath, OneLineCommand  # noqa: E402
from mmtrace.recipe import Entry, RecipeError, comments, load_recipe, make_trace  # noqa: E402
from mmtrace.trace import SCORES_UTILIZATION, replace_file, write_trace  # noqa: E402

DEFAULT_VARIANTS = ("best", "segregated-realloc")


def other_seeds(seed: int, k: int) -> list[int]:
    return [seed * 100 + j for j in range(1, k + 1)]


@dataclass(frozen=True)
class SeedResult:
    """One variant on one seed of one trace, as the driver's JSON reports it."""
    seed: int
    path: str
    outcome: str
    utilization: float | None
    message: str = ""

    @property
    def score(self) -> float:
        """What the driver's score counts: a failed run counts 0."""
        return (self.utilization or 0.0) if self.outcome == "ok" else 0.0

    def cell(self) -> str:
        return pct(self.utilization) if self.outcome == "ok" else self.outcome


@dataclass(frozen=True)
class TraceSeeds:
    """One variant on one trace: its suite seed and the K others."""
    name: str
    suite: SeedResult
    others: tuple[SeedResult, ...]

    @property
    def others_mean(self) -> float:
        return mean(r.score for r in self.others)

    def row(self) -> list[str]:
        scores = [r.score for r in self.others]
        failed = [r.outcome for r in self.others if r.outcome != "ok"]
        note = f" ({len(failed)} failed: {', '.join(sorted(set(failed)))})" if failed else ""
        return [self.name, self.suite.cell(), pct(self.others_mean) + note, pct(min(scores)), pct(max(scores))]


# ---------------------------------------------------------------- the traces

def chosen_entries(recipe_path: Path, names: tuple[str, ...]) -> list[Entry]:
    """The recipe's generated traces (or the named ones); a named recorded trace is an error."""
    recipe = load_recipe(recipe_path)
    entries = recipe.select(names=names)
    recorded = [e.name for e in entries if e.recorded and names]
    if recorded:
        raise RecipeError(f"{recipe_path}: {', '.join(recorded)} is recorded, not generated: it has no seed")
    return [e for e in entries if not e.recorded and e.weight in SCORES_UTILIZATION]


def seed_file(entry: Entry, seed: int, folder: Path) -> Path:
    """Write ENTRY on SEED into FOLDER, exactly as `mmtrace gen` writes it with the recipe's
    parameters (sorted): the file's one comment line is that command."""
    e = replace(entry, seed=seed)
    path = folder / f"{e.name}-s{seed}.rep"
    write_trace(path, make_trace(e), comments(e)[-1:])
    return path


def seed_files(entries: list[Entry], k: int, folder: Path) -> dict[str, list[tuple[int, Path]]]:
    """trace name -> [(seed, file)], the suite's seed first."""
    folder.mkdir(parents=True, exist_ok=True)
    return {e.name: [(s, seed_file(e, s, folder)) for s in [e.seed, *other_seeds(e.seed, k)]]
            for e in entries}


# ---------------------------------------------------------------- measuring

def results_by_path(driver_json: dict) -> dict[str, SeedResult]:
    out = {}
    for t in driver_json["traces"]:
        out[t["path"]] = SeedResult(seed=0, path=t["path"], outcome=t["outcome"],
                                    utilization=t["utilization"], message=t.get("message") or "")
    return out


def collect(files: dict[str, list[tuple[int, Path]]], driver_json: dict) -> list[TraceSeeds]:
    got = results_by_path(driver_json)
    rows = []
    for name, seeded in files.items():
        rs = [replace(got[str(p)], seed=s) for s, p in seeded]
        rows.append(TraceSeeds(name=name, suite=rs[0], others=tuple(rs[1:])))
    return rows


def failures(variant: str, rows: list[TraceSeeds]) -> list[str]:
    """One line per failed run, naming the variant, the trace and its file."""
    out = []
    for t in rows:
        for r in (t.suite, *t.others):
            if r.outcome != "ok":
                why = (r.message.strip().splitlines() or [""])[0]
                out.append(f"{variant} failed on {t.name} seed {r.seed} ({r.path}): {r.outcome}"
                           + (f": {why}" if why else ""))
    return out


def run_variant(variant: str, alignment: int, files: dict[str, list[tuple[int, Path]]], folder: Path,
                time_limit: int) -> list[TraceSeeds]:
    """Build and run VARIANT on every file (results.measure raises a one-line ClickException)."""
    paths = [p for seeded in files.values() for _, p in seeded]
    # -r 1: the driver still times each trace, but only utilization is used here.
    d = measure(variant, alignment, paths, time_limit, 1, folder / f"{variant}-a{alignment}.json")
    return collect(files, d)


# ---------------------------------------------------------------- rendering

def variant_section(variant: str, rows: list[TraceSeeds], k: int) -> list[str]:
    out = [f"## `{variant}`", ""]
    out += table(["trace", "suite seed", f"mean of {k} other seeds", "min", "max"], [t.row() for t in rows])
    suite = mean(t.suite.score for t in rows)
    others = mean(t.others_mean for t in rows)
    return out + ["",
                  f"- average over these {len(rows)} traces, suite seeds: **{pct(suite)}**",
                  f"- average over these {len(rows)} traces, each trace's mean of {k} other seeds: "
                  f"**{pct(others)}**", ""]


def render(measured: dict[str, list[TraceSeeds]], k: int, alignment: int, recipe: str, seeds_dir: str,
           when: str, source: str, unmeasured: list[str], time_limit: int = 60, names: tuple[str, ...] = ()) -> str:
    """The page; NAMES, the traces --trace chose (none: every generated trace of the recipe)."""
    names = tuple(dict.fromkeys(names))
    chosen = (f"Every generated trace of `{recipe}` is" if not names else
              f"The generated trace `{names[0]}` of `{recipe}` is" if len(names) == 1 else
              f"The generated traces {', '.join(f'`{n}`' for n in names)} of `{recipe}` are")
    out = ["# Results on other seeds", "",
           "Generated by `make results-seeds` (tools/results_seeds.py); do not edit by hand.", "",
           f"Measured {when}, {alignment}-byte alignment, `mdriver -r 1 -T {time_limit}`.{source}  {chosen}"
           f" regenerated with its pattern, parameters and header on its suite seed"
           f" S and on K = {k} other seeds, S*100 + j for j = 1..{k}, into `{seeds_dir}/` (each file is what"
           " `mmtrace gen` writes; its comment line is the command).  Recorded traces are skipped.  The"
           " figures are utilization (peak live payload over the heap's high-water mark); a failed run"
           " counts 0, as in the driver's score.  Throughput is not reported.", ""]
    if unmeasured:
        out += ["Not measured: " + "; ".join(unmeasured), ""]
    for variant, rows in measured.items():
        out += variant_section(variant, rows, k)
    return "\n".join(out)


# ---------------------------------------------------------------- the CLI

def shown(p: Path) -> str:
    return str(p.relative_to(KIT)) if p.is_relative_to(KIT) else str(p)


def check_variants(names: tuple[str, ...]) -> list[str]:
    unknown = [n for n in names if not (KIT / "variants" / f"{n}.c").exists()]
    if unknown:
        raise click.ClickException(f"no such variant: {', '.join(unknown)} (no variants/{unknown[0]}.c)")
    return list(dict.fromkeys(names))


@click.command(cls=OneLineCommand, epilog="example: .venv/bin/python tools/results_seeds.py --trace realloc-many --variant best")
@click.option("--recipe", "recipe_path", type=NonEmptyPath(dir_okay=False, path_type=Path),
              help="the suite's recipe (default: the kit's traces/recipe.toml)")
@click.option("--trace", "names", multiple=True, help="only this generated trace (repeatable)")
@click.option("--variant", "variants", multiple=True,
              help=f"measure these (repeatable; default: {', '.join(DEFAULT_VARIANTS)})")
@click.option("--seeds", "k", default=4, show_default=True, type=IntRange(1, 99),
              help="K, the other seeds per trace: S*100+1 .. S*100+K")
@click.option("--alignment", default="16", show_default=True, type=click.Choice(["16", "8"]))
@click.option("--seeds-dir", type=NonEmptyPath(file_okay=False, path_type=Path),
              help="where the seed traces and driver JSON go (default: the kit's build/seeds/)")
@click.option("--out", "out_file", type=OutputFile(),
              help="the page to write (default: the kit's docs/results-seeds.md)")
@click.option("--time-limit", default=60, show_default=True, type=TIME_LIMIT,
              help="per-trace limit in seconds (-T)")
def main(recipe_path: Path | None, names: tuple[str, ...], variants: tuple[str, ...], k: int, alignment: str,
         seeds_dir: Path | None, out_file: Path | None, time_limit: int) -> None:
    """Run variants on K other seeds of each generated trace; write docs/results-seeds.md."""
    recipe_path, seeds_dir, out_file = (kit_path(recipe_path, "traces/recipe.toml"), kit_path(seeds_dir, "build/seeds"),
                                        kit_path(out_file, "docs/results-seeds.md"))
    chosen = check_variants(variants or DEFAULT_VARIANTS)
    try:
        entries = chosen_entries(recipe_path, names)
    except RecipeError as e:
        raise click.ClickException(str(e)) from None
    if not entries:
        raise click.ClickException(f"{recipe_path}: no generated traces to measure")
    writable_file(out_file)
    try:
        files = seed_files(entries, k, writable_folder(seeds_dir))
    except RecipeError as e:            # parameters each valid alone that make no trace
        raise click.ClickException(f"{recipe_path}: {e}") from None
    click.echo(f"{len(entries)} traces x {k + 1} seeds in {seeds_dir}", err=True)
    measured: dict[str, list[TraceSeeds]] = {}
    errors: list[str] = []
    unmeasured: list[str] = []
    stopped = ""                   # Ctrl-C: the variants measured before it still make the page
    for n, variant in enumerate(chosen):
        click.echo(f"measuring {variant} at {alignment}-byte alignment", err=True)
        try:
            measured[variant] = run_variant(variant, int(alignment), files, seeds_dir, time_limit)
            errors += failures(variant, measured[variant])
        except click.ClickException as e:     # a build or driver failure: keep the others' results
            errors.append(e.message)
            unmeasured.append(f"`{variant}` ({e.message})")
        except KeyboardInterrupt:
            unmeasured += [f"`{v}` (interrupted)" for v in chosen[n:]]
            stopped = f"interrupted by SIGINT while measuring {variant}"
            break
    if measured:                   # a page of nothing measured would only replace a good one
        when = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
        page = render(measured, k, int(alignment), shown(recipe_path), shown(seeds_dir), when,
                      source_note(KIT, ("variants",)), unmeasured, time_limit, names) + "\n"
        try:
            replace_file(out_file, page.encode("utf-8"))       # whole or not at all
            click.echo(f"wrote {out_file}")
        except OSError as e:      # a full disk: the runs' JSON is kept beside the seed traces
            errors.append(f"{shown(out_file)}: cannot write it ({e.strerror or e}); the driver's results are in "
                          f"{shown(seeds_dir)}")
        if stopped:
            errors.append(f"{stopped}: {shown(out_file)} has {', '.join(measured)}, not "
                          f"{', '.join(chosen[n:])}")
    elif stopped:
        errors.append(f"{stopped}: nothing was measured; {shown(out_file)} is left as it was")
    else:
        errors.append(f"nothing was measured; {shown(out_file)} is left as it was")
    for line in errors:
        click.echo(f"Error: {line}", err=True)
    if stopped:
        sys.exit(130)
    if errors:
        sys.exit(1)


if __name__ == "__main__":
    main()

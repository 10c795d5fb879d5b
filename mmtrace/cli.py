"""mmtrace: make, inspect, lint, convert and record malloc-lab traces.

Only this module prints.  Exit status: 0 fine, 1 a problem was found (a trace
with errors, a recording of a program that failed), 2 bad usage or input.
"""
from __future__ import annotations

import errno
import gzip
import io
import json
import math
import os
import re
import shlex
import sys
import tempfile
import zlib
from pathlib import Path

import click

from .gen import PATTERNS, PatternError, generate
from .linter import ERROR, TraceError, fixed, lint, read_trace
from .oneline import NonEmptyPath, OneLineGroup, StdoutWriteError, one_line
from .rawlog import DEFAULT_MAX_LIVE, DEFAULT_MAX_SIZE
from .recipe import RecipeError, comments, load_recipe, make_trace
from .regular import NotRegular, read_regular, special_kind
from .stats import measure, render
from .trace import (CLASSIC, HEAP_LIMIT, LAB64, MAX_HEAP, MAX_OPS, ORDERS, SUGGESTED_HEAP, Header, TooBig, Trace,
                    encode_trace, format_trace, read_bytes, replace_file, trace_stem, write_trace)

# The recipe in the current folder's traces/, else the kit's own.
DEFAULT_RECIPE = "traces/recipe.toml" if Path("traces/recipe.toml").exists() else str(
    Path(__file__).resolve().parent.parent / "traces" / "recipe.toml")


def _given(name: str) -> bool:
    """Whether the option NAME was on the command line (not its default)."""
    source = click.get_current_context().get_parameter_source(name)
    return source is click.core.ParameterSource.COMMANDLINE


def _warn(message: str) -> None:
    """A one-line message on stderr; a name in it that holds a newline is shown escaped."""
    click.echo(f"mmtrace: {one_line(message)}", err=True)


def _fail(message: str, code: int = 2) -> None:
    _warn(message)
    sys.exit(code)


def _read(path: str, max_heap: int = HEAP_LIMIT) -> Trace:
    """PATH's trace, any heap the driver can make (-M up to 4 GiB) taken: one that is measured or
    rewritten is not replayed, so a trace made for `mdriver -M 1G` is read too."""
    try:
        return read_trace(Path(path), max_heap)
    except TraceError as e:
        _fail(str(e))
        raise  # unreachable


def _writable(path: str) -> Path:
    """PATH if a file can be written there; a one-line error before any work otherwise."""
    if not path:             # Path("") is the current folder
        _fail("-o: an empty file name; name one, e.g. -o build/x.rep")
    if path.endswith("/"):   # Path() drops the slash: `-o new/` had written a file named new
        _fail(f"{path}: cannot write: it names a folder (ends in /); name a file in it")
    out = Path(path)
    folder = out.parent
    if out.is_dir():
        _fail(f"{path}: cannot write: it is a folder")
    if not folder.is_dir():
        _fail(f"{path}: cannot write: no folder {folder}")
    if kind := special_kind(out):   # /dev/stdout, a pipe: written directly, not beside it in /dev
        if not os.access(out, os.W_OK):
            _fail(f"{path}: cannot write: it is {kind} without write permission")
        return out
    if not os.access(folder, os.W_OK | os.X_OK):
        _fail(f"{path}: cannot write: {folder} is not writable")
    real = Path(os.path.realpath(out))      # a link's target is what replace_file writes
    if real != out.absolute() and not real.parent.is_dir():
        _fail(f"{path}: cannot write: it is a symbolic link to {os.readlink(out)}, and there is no "
              f"folder {real.parent}")
    return out


def _is_stdout(output) -> bool:
    """Whether OUTPUT is standard output itself (-o /dev/stdout into a pipe or a file)."""
    try:
        return os.path.samestat(os.stat(output), os.fstat(sys.stdout.fileno()))
    except (OSError, ValueError, AttributeError, io.UnsupportedOperation):
        return False


def _done(output, message: str) -> None:
    """A command's summary line; on stderr when the trace went to standard output, where the
    next reader would take it for one more line of the trace."""
    click.echo(one_line(message), err=_is_stdout(output))


def _folder(folder: Path, why: str = "cannot make the folder") -> Path:
    """FOLDER, made if missing, before any work; a one-line error if it cannot be."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        _fail(f"{folder}: {why} ({e.strerror or e})")
    return folder


def _write(path: str, trace: Trace, comments: list[str] | None = None) -> None:
    too_big = _written(path, trace, comments)
    if too_big:
        _fail(f"{path}: not written: the trace would be {too_big}")


def _written(path: str, trace: Trace, comments: list[str] | None = None, go_on: bool = False) -> str | None:
    """Write the trace, or say (nothing written) how far past the driver's file limit it is.
    A write that fails is a one-line error, or with GO_ON the OSError, for a caller with more to do."""
    try:
        write_trace(Path(path), trace, comments)
    except OSError as e:
        # `-o /dev/stdout | head`, whose reader is gone (ENXIO if before the open): as stdout's own writes
        if e.errno in (errno.EPIPE, errno.ENXIO) and _is_stdout(path):
            raise StdoutWriteError(e.errno, e.strerror) from None
        if go_on:
            raise
        _fail(f"{path}: cannot write ({e.strerror or e})")
    except TooBig as e:
        return str(e)
    return None


def _recipe(path: str):
    try:
        return load_recipe(Path(path))
    except RecipeError as e:
        _fail(str(e))


class _HeapBytes(click.ParamType):
    """A maximum heap as mdriver's -M takes it, 1 byte to 4 GiB, in bytes: no mmtrace size takes
    -M's K/M/G.  Its own message: click's IntRange calls 'abc' "not a valid integer range"."""
    name = "bytes"

    def convert(self, value, param, ctx):
        if isinstance(value, int):
            return value
        if re.fullmatch(r"[0-9]{1,12}", value) and 1 <= int(value) <= HEAP_LIMIT:
            return int(value)
        self.fail(f"{value!r}: the maximum heap is a whole number of bytes from 1 to {HEAP_LIMIT} "
                  "(mdriver's -M at most, 4G; no K/M/G suffix here)", param, ctx)


class _Output(click.Path):
    """An -o FILE; `-` is standard output, as mdriver's `--json -` (it had made a file named -)."""

    def __init__(self):
        super().__init__(dir_okay=False)

    def convert(self, value, param, ctx):
        return "/dev/stdout" if value == "-" else super().convert(value, param, ctx)


class _Whole(click.ParamType):
    """A whole number from LOW (to HIGH), said so in its message: click's IntRange calls 'abc',
    and a seed of 5,000 digits, "not a valid integer range", and quotes the value whole."""
    name = "integer"

    def __init__(self, low: int, high: int | None = None):
        self.low, self.high = low, high

    def convert(self, value, param, ctx):
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        text = str(value)
        if re.fullmatch(r"[0-9]{1,4000}", text) and self.low <= int(text) and (
                self.high is None or int(text) <= self.high):
            return int(text)
        shown = text if len(text) <= 24 else text[:24] + "..."
        to = "" if self.high is None else f" to {self.high:,}"
        self.fail(f"{shown!r}: a whole number from {self.low}{to}", param, ctx)


class _Seconds(click.ParamType):
    """A time limit: a finite number of seconds above 0 (click's FloatRange took nan, which then
    meant no limit at all, and called 'abc' "not a valid float range")."""
    name = "seconds"

    def convert(self, value, param, ctx):
        try:
            seconds = float(value)
        except (TypeError, ValueError):
            seconds = math.nan
        if math.isfinite(seconds) and seconds > 0:
            return seconds
        shown = str(value) if len(str(value)) <= 24 else str(value)[:24] + "..."
        self.fail(f"{shown!r}: a number of seconds above 0", param, ctx)


@click.group(name="mmtrace", cls=OneLineGroup, context_settings={"help_option_names": ["-h", "--help"]})
def main() -> None:
    """Make, inspect, lint, convert and record malloc-lab traces (.rep, .rep.gz).

    \b
    Examples:
      mmtrace gen binary --seed 7 -p pairs=500 -o build/b.rep
      mmtrace stats traces/classic-binary.rep --plot
      mmtrace check traces/*.rep
      mmtrace list --group classic
      mmtrace record -o build/ls.rep -- ls -l /
    """


# ------------------------------------------------------------------ gen
@main.command()
@click.argument("pattern", required=False)
@click.option("--seed", type=_Whole(0), default=1, show_default=True,
              help="RNG seed, from 0 (a negative one would give a positive one's trace).")
@click.option("-p", "--param", "params", multiple=True, metavar="KEY=VALUE",
              help="A pattern parameter (repeatable); see --list.")
@click.option("--header", type=click.Choice(ORDERS), default=CLASSIC, show_default=True,
              help="Header order: classic (heap, ids, ops, weight) or lab64 (weight, ids, ops, peak).")
@click.option("--weight", type=_Whole(0, 3), default=1, show_default=True)
@click.option("-o", "--output", type=_Output(), help="Output file (.gz compresses).")
@click.option("--list", "list_", is_flag=True, help="List the patterns and their parameters.")
def gen(pattern, seed, params, header, weight, output, list_):
    """Generate a trace from PATTERN with a seed: same seed, same bytes.

    \b
    Example:
      mmtrace gen fit-stress --seed 1 -o build/fit.rep
      mmtrace gen syn --seed 3 -p kind=array -p allocs=20000 -o build/a.rep.gz
    """
    if not pattern and not list_ and (output or params):
        _fail("gen needs a PATTERN before its options (mmtrace gen --list shows them)")
    if list_ or not pattern:
        for p in PATTERNS.values():
            args = ", ".join(f"{k}={v}" for k, v in p.defaults().items())
            click.echo(f"{p.name}\n    {p.doc}\n    parameters: {args or 'none'}")
        return
    if output is None:
        _fail("gen needs -o FILE")
    _writable(output)
    kv = {}
    for item in params:
        if "=" not in item:
            _fail(f"parameter '{item}' is not KEY=VALUE")
        k, v = item.split("=", 1)
        same = [g for g in kv if g.replace("-", "_") == k.replace("-", "_")]
        if same:
            _fail(f"parameter '{k}' given twice (-p {same[0]}={kv[same[0]]}, -p {item}): give it once")
        kv[k] = v
    try:
        trace = generate(pattern, seed, kv, header, weight)
    except PatternError as e:
        _fail(str(e))
    line = " ".join(f"-p {k}={v}" for k, v in kv.items())
    _write(output, trace, [f"made by: mmtrace gen {pattern} --seed {seed} {line} "
                           f"--header {header} --weight {weight}".replace("  ", " ")])
    _done(output, f"{output}: {len(trace):,} ops, {trace.header.ids:,} ids")


# ------------------------------------------------------------------ stats
@main.command()
@click.argument("files", nargs=-1, required=True, type=NonEmptyPath())
@click.option("--json", "as_json", is_flag=True, help="One JSON object per file, keyed by path.")
@click.option("--plot", is_flag=True, help="Also write NAME.png: size histogram, live bytes over time.")
@click.option("--plot-dir", type=NonEmptyPath(file_okay=False), default=".", show_default=True)
def stats(files, as_json, plot, plot_dir):
    """Ops, ids, request sizes and peak live payload of each trace.  A file that cannot be
    read is named on stderr and the others are still measured (exit 2 at the end).

    \b
    Example:
      mmtrace stats traces/classic-random.rep --plot --plot-dir build/plots
    """
    if not plot and _given("plot_dir"):
        _fail("stats: --plot-dir is where --plot writes; add --plot")
    if plot:
        _folder(Path(plot_dir), "cannot write the plot there")
    out = {}
    failed = False
    plotted: set[str] = set()             # names of this run's plots: none written over another
    stopped = None
    for f in files:
        try:
            try:
                trace = read_trace(Path(f), HEAP_LIMIT)      # as _read: a trace for a larger -M too
            except TraceError as e:
                click.echo(f"mmtrace: {e}", err=True)
                failed = True
                continue
            s = measure(trace)
            out[f] = s.to_json()
            if not as_json:
                click.echo("\n".join(render(one_line(f), s)))
            if plot:
                failed |= not _plot(f, trace, Path(plot_dir), as_json, plotted)
        except KeyboardInterrupt:         # Ctrl-C: the files measured before it are still given
            stopped = f
            break
    if as_json:
        click.echo(json.dumps(out, indent=1))
    if stopped is not None:
        _fail(f"stats: interrupted by SIGINT at {stopped}: {len(out)} of {len(files)} file(s) measured"
              + (", in the JSON above" if as_json and out else ""), 130)
    sys.exit(2 if failed else 0)


def _plot(f: str, trace: Trace, folder: Path, quiet: bool, taken: set[str]) -> bool:
    """Write F's plot into FOLDER as NAME.png, or NAME-2.png, ... when another file of this run
    (a/x.rep and b/x.rep, x.rep and x.rep.gz) had NAME; False (and a line on stderr) if it
    cannot be written."""
    from .plot import plot_trace
    stem = name = trace_stem(Path(f).name)
    n = 1
    while name in taken:
        n += 1
        name = f"{stem}-{n}"
    taken.add(name)
    try:
        png = plot_trace(name, trace, folder / f"{name}.png")
    except OSError as e:
        _warn(f"{folder}: cannot write the plot there ({e.strerror or e})")
        return False
    if not quiet:
        click.echo(f"  plot: {png}")
    return True


# ------------------------------------------------------------------ check
@main.command()
@click.argument("files", nargs=-1, required=True, type=NonEmptyPath())
@click.option("--fix", is_flag=True, help="Write a corrected copy (counts, missing frees, "
              "unreplayable ops dropped, a weight out of range set to 1) as NAME.fixed.rep "
              "(NAME.fixed.rep.gz for a .gz file) beside each file with something to fix, "
              "or to -o.")
@click.option("-o", "--output", type=_Output(), help="Where --fix writes (one file).")
@click.option("--max-heap", type=_HeapBytes(), default=MAX_HEAP, show_default=True,
              help="Largest size a request may have, in bytes (as mdriver's -M, at most 4 GiB).")
@click.option("-q", "--quiet", is_flag=True, help="Errors only, no warnings.")
def check(files, fix, output, max_heap, quiet):
    """Lint traces: FILE:LINE: message for everything the driver would reject,
    plus warnings (blocks never freed, header counts that do not match).

    \b
    Example:
      mmtrace check traces/*.rep*
      mmtrace check --fix -o build/good.rep build/bad.rep
    """
    if output is not None and not fix:
        _fail("check: -o is where --fix writes its corrected copy; add --fix")
    if output is not None and len(files) != 1:
        _fail("-o works with one file")
    if fix and output is not None:          # -o '' too: not the copy beside the file
        _writable(output)
    if fix and output is None:
        _apart(files)
    bad = unfixed = unreadable = False
    report_to_stderr = bool(fix and output and _is_stdout(output))    # stdout is the fixed trace
    for f in files:
        r = lint(Path(f), max_heap, "--max-heap")
        if r.unreadable:             # bad input, not a trace with problems: stderr, exit 2
            click.echo(f"mmtrace: {r.problems[0]}", err=True)
            unreadable = True
            continue
        for p in r.problems:
            if p.severity == ERROR or not quiet:
                click.echo(str(p), err=report_to_stderr)
        bad |= bool(r.errors)
        if fix:
            t = fixed(r)
            if t is None:
                # the last error is the one that stopped the reading (binary data after a bad op)
                why = next((p.message for p in reversed(r.problems) if p.severity == ERROR), "no trace in it")
                click.echo(one_line(f"{f}: cannot fix: {why}; nothing written"), err=True)
                unfixed = True
                continue
            same = (t.header, t.kinds, t.ids, t.sizes) == (r.trace.header, r.trace.kinds, r.trace.ids, r.trace.sizes)
            if same and not output:     # beside it, a copy of the same ops: `mdriver -t` would run it twice
                click.echo(one_line(f"{f}: nothing to fix; no copy written"))
                continue
            dest = Path(output) if output else _fixed_name(Path(f))
            try:
                too_big = _written(str(dest), t, go_on=not output)  # the frees it adds can take it past the limit
            except StdoutWriteError:
                raise
            except OSError as e:                 # a copy beside one file: the next ones are still fixed
                click.echo(one_line(f"mmtrace: {f}: cannot write its fixed copy {dest} ({e.strerror or e}); "
                                    "nothing written"), err=True)
                unreadable = True                # exit 2, as for a file that cannot be read
                continue
            if too_big:
                click.echo(one_line(f"{f}: cannot fix: the fixed copy would be {too_big}; nothing written"), err=True)
                unfixed = True
                continue
            _done(dest, f"{f}: fixed copy written to {dest} ({len(t):,} ops)")
    sys.exit(2 if unreadable else 1 if unfixed or (bad and not fix) else 0)


def _apart(files) -> None:
    """A one-line error, before any is written, when two of FILES would be fixed into the same
    copy (x and x.rep: x.fixed.rep), the second over the first; one file named twice is not."""
    seen: dict[Path, tuple[Path, str]] = {}
    for f in files:
        dest = _fixed_name(Path(f))
        key = dest.parent.resolve() / dest.name
        if key in seen and seen[key][0] != Path(f).resolve():
            _fail(f"check --fix: {seen[key][1]} and {f} would both be fixed to {dest}; "
                  "fix one of them at a time with -o")
        seen.setdefault(key, (Path(f).resolve(), f))


def _fixed_name(path: Path) -> Path:
    stem = trace_stem(path.name)
    return path.with_name(stem + ".fixed.rep" + (".gz" if path.name.endswith(".gz") else ""))


# ------------------------------------------------------------------ convert
@main.command()
@click.argument("file", type=NonEmptyPath())
@click.option("--to", "order", type=click.Choice(ORDERS), required=True,
              help="classic: heap, ids, ops, weight.  lab64: weight, ids, ops, peak bytes.")
@click.option("-o", "--output", type=_Output(), required=True)
@click.option("--weight", type=_Whole(0, 3), help="Set the weight (default: keep it).")
def convert(file, order, output, weight):
    """Rewrite a trace's header in the other order (ops unchanged, comments dropped).

    \b
    Example:
      mmtrace convert traces/classic-binary.rep --to lab64 -o build/binary64.rep
    """
    _writable(output)
    t = _read(file)
    h = t.header
    w = h.weight if weight is None else weight
    extra = measure(t).peak_live_bytes if order == LAB64 else (
        h.extra if h.order == CLASSIC else SUGGESTED_HEAP)
    out = Trace(Header(order, w, h.ids, h.ops, extra), t.kinds, t.ids, t.sizes)
    _write(output, out)
    _done(output, f"{output}: {order} header, {len(t):,} ops")


# ------------------------------------------------------------------ record
@main.command(context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False})
@click.option("-o", "--output", type=_Output(), required=True)
@click.option("--process", default="largest", show_default=True,
              help="Which log to keep: largest (most events), or first or a pid (that process's "
              "program with the most events: a process that execs has one log per program).")
@click.option("--max-ops", type=_Whole(0, MAX_OPS), default=0,
              help=f"Stop after about this many ops (0: all, up to {MAX_OPS:,}, the most a trace "
              "the driver reads can hold).")
@click.option("--max-size", type=_Whole(1, MAX_HEAP), default=DEFAULT_MAX_SIZE, show_default=True,
              help="Cap each request at this many bytes.")
@click.option("--max-live", type=_Whole(1), default=DEFAULT_MAX_LIVE, show_default=True,
              help="Leave out blocks that would push live payload past this.")
@click.option("--skip", type=_Whole(0), default=0, help="Ignore the first N events (e.g. start-up).")
@click.option("--timeout", type=_Seconds(),
              help="Stop the command (all its processes) after this many seconds.")
@click.option("--allow-unrecorded", is_flag=True,
              help="Exit 0 even if the command started a program with an environment that drops "
              "the recorder (env -i): by default that is exit 1, as the trace is not of it.")
@click.argument("command", nargs=-1, required=True, type=click.UNPROCESSED)
def record(output, process, max_ops, max_size, max_live, skip, timeout, allow_unrecorded,
           command):
    """Run COMMAND with the LD_PRELOAD recorder and write what it allocated as a trace.

    \b
    Example:
      mmtrace record -o build/sort.rep.gz -- sh -c 'seq 200000 | sort -r -o /dev/null'
      mmtrace record --process largest -o build/cc1.rep -- gcc -c -o /dev/null hello.c
    """
    from .record import RecordError, running_note, unrecorded_message
    from .record import record as do_record
    _writable(output)                  # before the command runs, not after
    try:
        # a trace on stdout: the command's own output goes to stderr, not into the trace
        rec = do_record(list(command), process=process, timeout=timeout, max_ops=max_ops,
                        max_size=max_size, max_live=max_live, skip=skip,
                        stdout=sys.stderr.fileno() if _is_stdout(output) else None)
    except RecordError as e:
        _fail(f"record: {e}")
    # quoted as a shell needs it: `sh -c 'a; b'` joined with spaces ran something else
    notes = [f"recorded from: {shlex.join(command)}", rec.report.summary()]
    if rec.status.startswith("exited"):        # the file outlives the run's stderr that said so
        notes.append(f"failed run: {command[0]} {rec.status}")
    elif not rec.ok:
        notes.append(f"partial: {command[0]} {rec.status}; these are the ops before that")
    try:
        write_trace(Path(output), rec.trace, notes)
    except OSError as e:               # the recording is not lost: it goes to a temporary file
        keep = None
        try:
            fd, keep = tempfile.mkstemp(prefix="mmtrace-record-", suffix=".rep")
            os.close(fd)
            write_trace(Path(keep), rec.trace, notes)
        except OSError as again:           # a full disk there too: say so, leave no empty file
            if keep is not None:
                Path(keep).unlink(missing_ok=True)
            where = f" in {tempfile.tempdir}" if tempfile.tempdir else ""   # None: no usable folder
            _fail(f"{output}: cannot write ({e.strerror or e}); nor could a temporary copy be written"
                  f"{where} ({again.strerror or again}): the recording is lost")
        _fail(f"{output}: cannot write ({e.strerror or e}); the recording is kept in {keep}")
    programs = (f" running {rec.programs} programs (exec)" if rec.programs > rec.processes
                else "")
    image = f" (its program {rec.kept_image + 1})" if rec.programs > rec.processes else ""
    unrecorded = (f"; {len(rec.unrecorded)} program(s) ran unrecorded (pids "
                  f"{', '.join(str(u.pid) for u in rec.unrecorded)})" if rec.unrecorded else "")
    _done(output, f"{output}: {rec.report.summary()}; {rec.processes} process(es){programs}, kept "
               f"pid {rec.kept_pid}{image}{unrecorded}")
    running = running_note(rec.left_running)
    if rec.unrecorded and not allow_unrecorded:
        _warn("record: " + unrecorded_message(
            rec.unrecorded, f"{output} holds pid {rec.kept_pid}'s {rec.report.ops:,} ops "
            f"({rec.status})", " (--allow-unrecorded: keep such a trace, exit 0)") + running)
        sys.exit(1)
    if rec.report.log_cut:
        _warn(f"record: the recorder's log in {rec.log_folder} could not grow (no space left "
              f"there?) and {command[0]} ran on unrecorded ({rec.status}); kept the "
              f"{rec.report.ops:,} ops recorded before that{running}")
        sys.exit(1)
    if not rec.ok:
        _warn(f"record: {command[0]} {rec.status}; kept the {rec.report.ops:,} ops recorded "
              f"before that{running}")
        sys.exit(1)
    if running:                        # a daemon it started: left running, but not silently
        _warn(f"record: {command[0]} {rec.status}{running}")


# ------------------------------------------------------------------ the suite
@main.command()
@click.argument("recipe", default=DEFAULT_RECIPE, type=NonEmptyPath())
@click.option("-o", "--out-dir", type=NonEmptyPath(file_okay=False),
              help="Where to write (default: the recipe's folder).")
@click.option("--group", "groups", multiple=True, help="Only this group (repeatable).")
@click.option("--name", "names", multiple=True, help="Only this trace (repeatable).")
@click.option("--verify", is_flag=True, help="Write nothing; fail if a file (in -o's folder, "
              "if given) differs from a regeneration.")
@click.option("--record", "rerecord", is_flag=True, help="Also re-record the recorded traces.")
def suite(recipe, out_dir, groups, names, verify, rerecord):
    """Generate the suite's traces from its recipe (recorded ones are kept as committed).

    \b
    Example:
      mmtrace suite traces/recipe.toml
      mmtrace suite --verify --group classic
    """
    r = _recipe(recipe)
    try:
        chosen = r.select(tuple(groups), tuple(names))
    except RecipeError as e:
        _fail(str(e))
    folder = Path(out_dir) if out_dir is not None else r.folder
    if not verify:                  # --verify writes nothing, so makes no folder either
        _folder(folder)
    differ = []
    for e in chosen:
        if e.recorded:
            if rerecord and not verify:
                _record_entry(e, r.folder, folder)
            continue
        try:
            trace = make_trace(e)
        except RecipeError as err:
            _fail(f"{r.path}: {err}")
        if verify:
            have = folder / e.file          # -o's folder, when given, is the one compared
            why = _unlike(have, encode_trace(format_trace(trace, comments(e))))
            if why is not None:
                differ.append(f"{e.file} ({why})" if why else e.file)
            continue
        path = folder / e.file
        _write(str(path), trace, comments(e))
        click.echo(f"{path}")
    if verify:
        if differ:
            _fail(f"these traces differ from their recipe: {', '.join(differ)}", 1)
        click.echo(f"{sum(not e.recorded for e in chosen)} generated traces match the recipe")


def _unlike(have: Path, want: bytes) -> str | None:
    """None when the trace file HAVE holds WANT; else '' (missing, or other bytes) or why it
    could not be read: a folder, a FIFO or broken gzip in its place is a trace that differs,
    not the end of the comparison."""
    if not have.exists():
        return ""
    try:
        return None if read_bytes(have) == want else ""
    except TooBig as e:
        return str(e)
    except (gzip.BadGzipFile, EOFError, zlib.error) as e:
        return f"damaged gzip data: {e}"
    except OSError as e:
        return f"cannot read: {e.strerror or e}"


def _record_entry(e, sources: Path, folder: Path) -> None:
    """Record E into FOLDER; {traces} in its command is the recipe's folder, which holds
    sources/ (not FOLDER, the -o one). A recording of a program that failed, or one the
    recorder could not log whole, is not a trace of what the recipe says: nothing is written."""
    from .record import RecordError
    from .record import record as do_record
    cmd = [c.replace("{traces}", str(sources.resolve())) for c in e.command]
    try:
        rec = do_record(cmd, process=e.process, max_ops=e.max_ops, skip=e.skip,
                        weight=e.weight, order=e.header)
    except RecordError as err:
        _fail(f"record {e.name}: {err}")
    if not rec.ok or rec.report.log_cut or rec.unrecorded:
        why = (f"{cmd[0]} {rec.status}" if not rec.ok
               else f"the recorder's log in {rec.log_folder} could not grow" if rec.report.log_cut
               else f"{rec.unrecorded[0].program} ran unrecorded ({rec.unrecorded[0].cause})")
        _fail(f"record {e.name}: {why}; {e.file} left as it was", 1)
    out = folder / e.file
    _write(str(out), rec.trace, [f"{e.name}: {e.stresses}",
                                 f"recorded from: {shlex.join(e.command)}", rec.report.summary()])
    click.echo(f"{out}: {rec.report.summary()}")


@main.command(name="list")
@click.argument("recipe", default=DEFAULT_RECIPE, type=NonEmptyPath())
@click.option("--group", "groups", multiple=True, help="Only this group (repeatable).")
@click.option("--paths", is_flag=True, help="Print file paths instead of names.")
@click.option("--groups", "show_groups", is_flag=True, help="List the groups instead.")
def list_(recipe, groups, paths, show_groups):
    """List the suite's traces (optionally of some groups), one per line.

    \b
    Example:
      ./mdriver $(mmtrace list --group classic --paths | sed 's/^/-f /')
    """
    r = _recipe(recipe)
    if show_groups:
        for g, what in r.groups.items():
            click.echo(f"{g}\t{what}")
        return
    try:
        chosen = r.select(tuple(groups))
    except RecipeError as e:
        _fail(str(e))
    for e in chosen:
        click.echo(str(r.folder / e.file) if paths else e.name)


@main.command()
@click.argument("recipe", default=DEFAULT_RECIPE, type=NonEmptyPath())
@click.option("--check", "check_only", is_flag=True, help="Fail if the README's table is stale.")
def readme(recipe, check_only):
    """Rewrite the measured trace table in the recipe folder's README.md.

    \b
    Example:
      mmtrace readme traces/recipe.toml
    """
    from .readme import MarkerError, measure_suite, table, updated
    r = _recipe(recipe)
    path = r.folder / "README.md"
    if check_only and not path.exists():
        _fail(f"{path}: no README.md to check; run `mmtrace readme {recipe}` to write it", 1)
    try:
        lines = table(r, measure_suite(r))
        # read_regular: a FIFO had hung here; newlines translated as read_text() did
        old = read_regular(path).decode("utf-8").replace("\r\n", "\n").replace("\r", "\n") if path.exists() else ""
    except TraceError as e:
        _fail(str(e))
    except NotRegular as e:
        _fail(f"{path}: cannot read: {e.kind}, not a README file; nothing written")
    except (OSError, UnicodeDecodeError) as e:
        _fail(f"{path}: cannot read ({getattr(e, 'strerror', None) or e})")
    try:
        new = updated(old, lines)
    except MarkerError as e:
        _fail(f"{path}: {e}; nothing written")
    if check_only:
        if new != old:
            _fail(f"{path}: the trace table is stale; run `mmtrace readme {recipe}`", 1)
        click.echo(f"{path}: table up to date")
        return
    if new != old:
        try:
            replace_file(path, new.encode("utf-8"))
        except OSError as e:
            _fail(f"{path}: cannot write ({e.strerror or e})")
    click.echo(f"{path}: table of {len(r.entries)} traces")


if __name__ == "__main__":
    main()

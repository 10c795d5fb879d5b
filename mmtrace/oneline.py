"""oneline.py - the kit's command lines report a usage mistake as every other error: one
line, exit status 2, not click's usage block of three lines.  mmtrace, mmgrade and python -m
bench say `PROGRAM COMMAND: what is wrong` (OneLineGroup); the scripts in tools/, whose every
error is click's `Error: what is wrong`, say it that way (OneLineCommand).  Both also report
a failed write to standard output (a full disk) in one line, exit status 1, and leave quietly
when it is a closed pipe (`mmtrace list | head -1`), as Unix tools do (stdout_guarded).  A
standard output or error the shell closed (`mmgrade grade ... >&-`) takes what is written to it
as /dev/null would, and a failed write to standard error (a closed pipe, a full disk) is dropped:
the command runs to its end and keeps its files."""
from __future__ import annotations

import errno
import io
import os
import re
import signal
import sys

import click

_HELP = getattr(click.exceptions, "NoArgsIsHelpError", ())


def _shown(c: str) -> str:
    """One character of a message as one_line shows it."""
    if "\udc80" <= c <= "\udcff":          # a byte that was not UTF-8, held by Python as a surrogate
        return f"\\x{ord(c) - 0xdc00:02x}"
    return c if c.isprintable() else repr(c)[1:-1]          # as repr writes it: a newline as backslash n


# Characters that print nothing yet change what is read: the bidirectional controls (U+202A-U+202E,
# U+2066-U+2069, the marks U+200E, U+200F, U+061C), which can reverse the text after them on a page
# or a terminal (CVE-2021-42574, "Trojan Source": a grade read backwards), and the zero-width ones
# (U+200B, U+2060-U+2064, U+FEFF) that split a word invisibly.  ZWNJ and ZWJ (U+200C, U+200D) are
# kept: Persian names and emoji need them, and they move nothing.
_INVISIBLE = re.compile("[\u061c\u200b\u200e\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]")


def visible(text: str) -> str:
    """TEXT with its invisible characters (_INVISIBLE) shown as one_line shows them, '\\u202e', and all
    else as it was (newlines, tabs, letters of any script): for text that keeps its lines, an
    allocator's output or a compiler's, a file name in a page.  Applied twice it changes nothing."""
    return _INVISIBLE.sub(lambda m: _shown(m.group(0)), text)


def one_line(text: str) -> str:
    """TEXT as a one-line message shows it: a byte of a name that is not UTF-8 (a Latin-1 name, held
    by Python as a surrogate) as the driver shows it (driver/shown.c), 'jos\\xe9.c'; a control or
    other non-printable character escaped (\\n, \\t, \\r, \\xNN, \\uNNNN), so that a file named
    'a\\nb' leaves a one-line message on one line."""
    return "".join(map(_shown, text))


class StdoutWriteError(OSError):
    """A write to standard output failed (errno as the system gave it)."""


class _StdoutRaw(io.FileIO):
    """fd 1, whose failed writes say they were stdout's: an OSError from anywhere else
    (a file a command opens) is not taken for one."""

    def write(self, b):
        try:
            return super().write(b)
        except OSError as e:
            raise StdoutWriteError(e.errno, e.strerror) from None


class _StderrRaw(io.FileIO):
    """fd 2, whose failed writes (a closed pipe, a full disk) are dropped: there is nowhere left to
    say so, and a progress line that cannot be shown had stopped `mmgrade grade` half-way, its
    report unwritten."""

    def write(self, b):
        try:
            return super().write(b)
        except OSError:
            return len(b)


def _retag(name: str, fd: int, raw_class: type) -> None:
    """sys.NAME (stdout or stderr) rebuilt over RAW_CLASS on FD, as it was (encoding, line
    buffering); left alone when it is not FD (a test's capture)."""
    out = getattr(sys, name)
    try:
        buffered = not isinstance(out.buffer, io.FileIO)          # PYTHONUNBUFFERED: FileIO itself
        if out.fileno() != fd or isinstance(out.buffer.raw if buffered else out.buffer, raw_class):
            return
        out.flush()
    except (OSError, ValueError, AttributeError):
        return
    raw = raw_class(fd, "w", closefd=False)
    setattr(sys, name, io.TextIOWrapper(io.BufferedWriter(raw) if buffered else raw, encoding=out.encoding,
                                        errors=out.errors, line_buffering=out.line_buffering,
                                        write_through=out.write_through))


def _tag_stdout() -> None:
    """sys.stdout over _StdoutRaw, sys.stderr over _StderrRaw."""
    _retag("stdout", 1, _StdoutRaw)
    _retag("stderr", 2, _StderrRaw)


def _stdout_to_devnull() -> None:
    """What stdout still buffers goes nowhere, so Python's own flush at exit stays quiet."""
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 1)
        os.close(null)
    except OSError:
        pass


def _open_closed_streams() -> None:
    """sys.stdout and sys.stderr, None when the shell closed fd 1 or 2 (`>&-`), opened on /dev/null,
    and a free fd 1 or 2 held by /dev/null too: a file the command opens later would take it, and a
    child (the compiler, the driver) would write its own output into that file."""
    for fd, name in ((1, "stdout"), (2, "stderr")):
        if getattr(sys, name) is not None:
            continue
        try:
            os.fstat(fd)
        except OSError:
            null = os.open(os.devnull, os.O_WRONLY)
            if null != fd:
                os.dup2(null, fd)
                os.close(null)
        setattr(sys, name, open(os.devnull, "w", encoding="utf-8"))


def stdout_guarded(name: str, call) -> None:
    """Run a command line's main, flush stdout, and exit with its status.  A failed write to
    stdout is one line on stderr and status 1; a closed pipe, status 1 and no message; a closed
    stdout or stderr, as /dev/null (_open_closed_streams); a failed write to stderr, dropped."""
    _open_closed_streams()
    _tag_stdout()
    try:
        try:
            status = call()
        except SystemExit as e:
            status = e.code
        sys.stdout.flush()
    except StdoutWriteError as e:
        _stdout_to_devnull()
        if e.errno != errno.EPIPE:
            click.echo(f"{name}: cannot write to standard output: {e.strerror}", err=True)
        sys.exit(1)
    sys.exit(status)


class Interrupted(click.ClickException):
    """Ctrl-C (or a signal a command takes as one): `interrupted by SIGINT`, then WHAT as written
    (" after 2 of 5 rounds", ": the runs are kept"), exit status 128 + the signal, as a shell gives it."""

    def __init__(self, what: str = "", name: str = "SIGINT", where: str = ""):
        super().__init__(f"{where}interrupted by {name}{what}")
        self.exit_code = 128 + getattr(signal, name, signal.SIGINT)


def _interrupted(stop: KeyboardInterrupt, where: str = "") -> Interrupted:
    """STOP, which the command did not handle itself, as one line; a KeyboardInterrupt subclass
    may carry the signal's name (bench's Stopped("SIGTERM"))."""
    name = stop.args[0] if stop.args and str(stop.args[0]).startswith("SIG") else "SIGINT"
    return Interrupted(name=name, where=where)


class OneLineGroup(click.Group):
    """A click group whose usage errors are one line (`mmtrace record: Invalid value for
    '--skip': ...`); its commands' own exit statuses pass through.  Ctrl-C in a command that
    keeps nothing of its own is `mmtrace: check: interrupted by SIGINT`, status 130, as a shell
    gives it (click's had been an empty line, then `aborted`, status 1)."""

    def main(self, *args, **kwargs):
        kwargs["standalone_mode"] = False
        stdout_guarded(self.name, lambda: self._main(*args, **kwargs))

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt as stop:
            raise _interrupted(stop, f"{ctx.invoked_subcommand or ctx.command_path}: ") from None

    def _main(self, *args, **kwargs) -> int:
        try:
            status = super().main(*args, **kwargs)
        except _HELP as e:               # the program alone: its help, as click shows it
            e.show()
            return e.exit_code
        except click.ClickException as e:
            ctx = getattr(e, "ctx", None)
            click.echo(f"{ctx.command_path if ctx else self.name}: {e.format_message()}", err=True)
            return e.exit_code
        except click.Abort:
            click.echo(f"{self.name}: aborted", err=True)
            return 1
        return status if isinstance(status, int) else 0


class OneLineCommand(click.Command):
    """A single click command whose usage errors (a value out of range, an unknown option) are
    one `Error: ...` line, as its other errors are; exit status 2 as click gives.  `-h` is
    help, as it is for mdriver, mmtrace and mmgrade.  Ctrl-C that the command does not handle
    itself is `Error: interrupted by SIGINT`, status 130."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("context_settings", {"help_option_names": ["-h", "--help"]})
        super().__init__(*args, **kwargs)

    def main(self, *args, **kwargs):
        stdout_guarded("Error", lambda: super(OneLineCommand, self).main(*args, **kwargs))

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt as stop:        # click's: an empty line, then `Aborted!`, status 1
            raise _interrupted(stop) from None

    def make_context(self, *args, **kwargs) -> click.Context:
        try:
            return super().make_context(*args, **kwargs)
        except click.UsageError as e:
            err = click.ClickException(e.format_message())
            err.exit_code = e.exit_code
            raise err from None


class NonEmptyPath(click.Path):
    """click.Path that refuses an empty value in one line naming the option: Path("") is the
    current folder, so `stats --plot-dir ''` had written there and `suite -o ''` into the recipe's."""

    def convert(self, value, param, ctx):
        if isinstance(value, str) and not value:
            what = ("an empty folder name" if not self.file_okay else "an empty file name" if not self.dir_okay
                    else "an empty path")
            name = param.opts[0] if isinstance(param, click.Option) else getattr(param, "human_readable_name", "path")
            raise click.UsageError(f"{name}: {what}; name one", ctx)
        return super().convert(value, param, ctx)


class IntRange(click.IntRange):
    """click.IntRange that calls a value that is no number what it is: click's says "'x' is not a
    valid integer range", as if a range had been asked for (`-j x`, `--reps x`)."""
    name = "integer"


class FloatRange(click.FloatRange):
    """click.FloatRange whose message for 'x' is "not a valid float", as IntRange's above, and
    which refuses nan: click's took it, and every comparison with it is false (results.py's
    --repeat-limit nan had meant no limit)."""
    name = "float"

    def convert(self, value, param, ctx):
        number = super().convert(value, param, ctx)
        if number != number:
            self.fail(f"{value!r} is not a number", param, ctx)
        return number

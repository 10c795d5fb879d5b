"""oneline.py - the kit's command lines report a usage mistake as every other error: one
line, exit status 2, not click's usage block of three lines.  mmtrace, mmgrade and python -m
bench say `PROGRAM COMMAND: what is wrong` (OneLineGroup); the scripts in tools/, whose every
error is click's `Error: what is wrong`, say it that way (OneLineCommand)."""
from __future__ import annotations

import sys

import click

_HELP = getattr(click.exceptions, "NoArgsIsHelpError", ())


class OneLineGroup(click.Group):
    """A click group whose usage errors are one line (`mmtrace record: Invalid value for
    '--skip': ...`); its commands' own exit statuses pass through."""

    def main(self, *args, **kwargs):
        kwargs["standalone_mode"] = False
        try:
            status = super().main(*args, **kwargs)
        except _HELP as e:               # the program alone: its help, as click shows it
            e.show()
            sys.exit(e.exit_code)
        except click.ClickException as e:
            ctx = getattr(e, "ctx", None)
            click.echo(f"{ctx.command_path if ctx else self.name}: {e.format_message()}", err=True)
            sys.exit(e.exit_code)
        except click.Abort:
            click.echo(f"{self.name}: aborted", err=True)
            sys.exit(1)
        sys.exit(status if isinstance(status, int) else 0)


class OneLineCommand(click.Command):
    """A single click command whose usage errors (a value out of range, an unknown option) are
    one `Error: ...` line, as its other errors are; exit status 2 as click gives."""

    def make_context(self, *args, **kwargs) -> click.Context:
        try:
            return super().make_context(*args, **kwargs)
        except click.UsageError as e:
            err = click.ClickException(e.format_message())
            err.exit_code = e.exit_code
            raise err from None

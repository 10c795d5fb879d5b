"""The Makefile's probe of the allocator's hooks (which forms of mm_init and mm_checkheap it
defines) writes build/<config>/hooks.flags and hooks.mk, a makefile make remakes before it
reads the rest.  It must run once per edit of the allocator, not on every make after one, and
a dry run (make -n), which make would still let remake its makefiles, must write nothing.
The builds run in a copy of the kit (test_build_shared.py's), with a compiler that logs its calls."""
from __future__ import annotations

import subprocess
from pathlib import Path

from test_build_shared import kit_copy, starter_in_forms  # noqa: F401 (a fixture)


def logging_cc(kit: Path) -> tuple[str, Path]:
    """CC=a script that notes each call's arguments in a log, then runs cc; and the log."""
    log = kit / "cc.log"
    script = kit / "logged-cc"
    script.write_text(f'#!/bin/sh\necho "$*" >> {log}\nexec cc "$@"\n')
    script.chmod(0o755)
    return f"CC={script}", log


def make(kit: Path, *args: str) -> subprocess.CompletedProcess:
    done = subprocess.run(["make", "-C", str(kit), "--no-print-directory", *args], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    return done


def calls(log: Path) -> list[str]:
    """The compiler's calls since the last look (the log is emptied)."""
    text = log.read_text() if log.exists() else ""
    log.write_text("")
    return text.splitlines()


def test_an_edited_allocator_is_probed_once_not_by_every_make_after(kit_copy):  # noqa: F811
    """hooks.flags is rewritten only when the forms change (so that the objects using them do
    not rebuild), so it stayed older than the edited mm.c, and every later make probed again."""
    cc, log = logging_cc(kit_copy)
    mm = starter_in_forms(kit_copy, "probed.c", bool_init=False)
    make(kit_copy, "driver", mm, cc)
    assert any("-fsyntax-only" in c for c in calls(log))
    source = kit_copy / "probed.c"
    source.write_text(source.read_text() + "/* an edit */\n")
    make(kit_copy, "driver", mm, cc)
    edited = calls(log)
    assert any("-fsyntax-only" in c for c in edited) and any(c.endswith(" probed.c") for c in edited), edited
    make(kit_copy, "driver", mm, cc)
    assert calls(log) == []


def test_a_dry_run_probes_nothing_and_writes_nothing(kit_copy):  # noqa: F811
    """make -n remade hooks.mk as any makefile: it ran the probe and wrote build/."""
    cc, log = logging_cc(kit_copy)
    mm = starter_in_forms(kit_copy, "dry.c", bool_init=False)
    done = make(kit_copy, "-n", "driver", mm, cc)
    assert not (kit_copy / "build").exists() and calls(log) == []
    assert done.stdout.splitlines()[0] == ("make: dry run: the allocator's hooks are not probed (that writes build/): "
                                           "no build has probed them: the commands put the objects that call them in "
                                           "hooks-unknown/")
    assert "-fsyntax-only" in done.stdout         # the probe is among the commands shown
    make(kit_copy, "driver", mm, cc)
    calls(log)
    source = kit_copy / "dry.c"
    source.write_text(source.read_text() + "/* an edit */\n")
    state = {p: p.stat().st_mtime_ns for p in (kit_copy / "build").rglob("*") if p.is_file()}
    done = make(kit_copy, "-n", "driver", mm, cc)
    assert calls(log) == []
    assert {p: p.stat().st_mtime_ns for p in (kit_copy / "build").rglob("*") if p.is_file()} == state
    assert done.stdout.splitlines()[0].endswith("the commands are for the forms the last build found "
                                                "(hooks-checkheap-void)")
    assert any(line.endswith(" dry.c") for line in done.stdout.splitlines()), done.stdout  # what make would do

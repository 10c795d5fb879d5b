"""Build each submission in a fresh folder made from the kit, with fixed flags.

A template folder is built once per batch from the kit's own files (trusted, so
outside the sandbox); each submission's folder is a copy of it with the
submission as mm.c and the allocator's object removed, so `make driver` rebuilds
only alloc.o and relinks.  The submission's build runs in the sandbox: a
`#include "/dev/zero"` or a compiler bomb meets the same limits as the run.
"""
from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
from dataclasses import dataclass, replace
from pathlib import Path

from mmtrace.oneline import one_line

from .policy import Policy
from .sandbox import Mount, Sandbox, run, sandbox_failed

KIT_FILES = ("Makefile", "mm.h", "memlib.h", "memlib.c", "config.h", "mm_stats.h", "mdriver.c")
KIT_DIRS = ("driver",)
INSIDE = "/sub"                  # where a submission's folder appears in the sandbox
STARTER_STUB = """/* stand-in allocator: the kit has no mm.c to build its template with */
#include <stddef.h>
#include "mm.h"
#include "memlib.h"
int mm_init(void) { return 0; }
void *mm_malloc(size_t n) { (void)n; return NULL; }
void mm_free(void *p) { (void)p; }
void *mm_realloc(void *p, size_t n) { (void)p; (void)n; return NULL; }
"""


class KitError(RuntimeError):
    """The kit itself does not build: the grader's fault, never a student's."""


@dataclass(frozen=True)
class BuildResult:
    status: str                  # ok, compile_error, link_error
    log: str                     # the compiler's first lines when it failed
    driver: Path | None          # host path of the built mdriver
    alloc_obj: Path | None
    driver_objs: tuple[Path, ...]


def linked_with(out_dir: Path) -> tuple[Path, ...]:
    """The objects the allocator's is linked with, whose globals it must not define: the driver
    as one object whose only globals are main and memlib's API (its own names are local, so a
    student's `heap_lo` is the student's, as `make` builds it) and the marks around the
    allocator's data; every object when the build stopped before that one was made, the
    configuration's and the driver's shared ones (build/driver/, see the Makefile)."""
    whole = out_dir / "mdriver.r.o"
    if whole.exists():
        return (whole, *sorted((out_dir / "driver" / "mark").glob("*.o")))
    return tuple(p for d in (out_dir, out_dir.parent / "driver") for p in sorted(d.rglob("*.o")) if p.name != "alloc.o")


def copy_kit(kit: Path, dest: Path, with_variants: bool = False) -> None:
    """The files `make driver` needs, and nothing a submission could use to learn more."""
    dest.mkdir(parents=True, exist_ok=True)
    for name in KIT_FILES:
        if not (kit / name).exists():
            raise KitError(f"{kit}: the kit has no {name}; is the driver in place?")
        shutil.copy2(kit / name, dest / name)
    for name in KIT_DIRS:
        if (kit / name).is_dir():
            shutil.copytree(kit / name, dest / name, dirs_exist_ok=True)
    (dest / "variants").mkdir(exist_ok=True)
    if (kit / "variants").is_dir():
        pattern = "*" if with_variants else "*.h"
        for path in (kit / "variants").glob(pattern):
            if path.is_file():
                shutil.copy2(path, dest / "variants" / path.name)


def kit_digest(kit: Path, traces: list[Path]) -> str:
    """A hash of every kit file a grade depends on (sources, headers, traces)."""
    digest = hashlib.sha256()
    files = [kit / n for n in KIT_FILES] + sorted(p for d in KIT_DIRS for p in (kit / d).rglob("*") if p.is_file())
    files += sorted((kit / "variants").glob("*.h"))        # copied into every build, so they count
    for path in files + sorted(traces):
        if path.is_file():
            digest.update(os.fsencode(path.name) + b"\0" + path.read_bytes())   # any bytes a name holds
    return digest.hexdigest()[:16]


def _make_args(policy: Policy, variant: str | None = None) -> list[str]:
    # DRIVER_SECCOMP always given: make would otherwise take it from the grader's environment.
    # ALLOC_CHECK=off: the rules (constructors, shadowing) judge that under the course's policy.
    seccomp = "on" if policy.sandbox.driver_seccomp else "off"
    # --no-print-directory: MAKEFLAGS=w (inherited under `make -C KIT ...`) would print 'Entering
    # directory' lines around the driver's path, the template's build's last line of output.
    args = ["make", "-s", "--no-print-directory", "driver", f"ALIGNMENT={policy.build.alignment}",
            f"CFLAGS={policy.build.cflags}",
            f"DRIVER_SECCOMP={seccomp}", "ALLOC_CHECK=off"]
    return args + ([f"VARIANT={variant}"] if variant else [])


def _template_env() -> dict[str, str]:
    """The template's build environment: the sandboxed builds' (sandbox.py: LC_ALL=C, nothing of the
    grader's but where the tools are), so that the driver every submission links with is the
    Makefile's own.  A make variable in the grader's environment (VARIANT or SANITIZE exported for
    a benchmark, MAKEFLAGS under `make -C KIT ...`) changed it, or stopped the build."""
    return {"LC_ALL": "C", **{name: os.environ[name] for name in ("PATH", "HOME", "TMPDIR") if name in os.environ}}


def build_template(kit: Path, dest: Path, policy: Policy, variant: str | None = None) -> Path:
    """Build the kit once (trusted code) and return the folder of its objects."""
    copy_kit(kit, dest, with_variants=variant is not None)
    if not (dest / "mm.c").exists():
        starter = kit / "mm.c"
        if starter.exists():
            shutil.copy2(starter, dest / "mm.c")
        else:
            (dest / "mm.c").write_text(STARTER_STUB)
    done = subprocess.run(_make_args(policy, variant), cwd=dest, capture_output=True, text=True, errors="replace",
                          timeout=600, env=_template_env())
    if done.returncode != 0:
        reason = first_error(done.stderr or done.stdout) or "make failed"
        raise KitError(f"the kit does not build{' ' + variant if variant else ''}: {reason}")
    dest.chmod(0o700)       # the kit's own mm.c may be the course's answer: no build may read it
    said = done.stdout.strip().splitlines()
    if not said or not (dest / said[-1]).is_file():
        raise KitError(f"the kit's `make driver` did not print the driver it built (its last line of output "
                       f"should be its path, as build/mm-a16/mdriver; it printed {one_line(said[-1]) if said else 'nothing'})")
    return dest / said[-1]


def prepare_folder(template: Path, dest: Path, source: str) -> None:
    """A fresh copy of the built template with SOURCE as mm.c and no allocator object."""
    shutil.copytree(template, dest, symlinks=False)
    for build in (dest / "build").glob("*"):
        for name in ("alloc.o", "alloc.d", "mdriver"):
            (build / name).unlink(missing_ok=True)
    (dest / "mm.c").write_text(source, encoding="utf-8")


def _is_error(line: str) -> bool:
    """LINE says an error: the compiler's and the linker's 'error', or the assembler's 'Error:'
    (an inline asm the assembler refuses: 'x.s:6: Error: file not found: /etc/passwd')."""
    return "error" in line or ": Error: " in line


def _first_lines(text: str, limit: int = 25) -> str:
    """The first LIMIT lines of the compiler's output, and its first error line when that comes
    later (after thousands of 'In file included from' lines of a recursive #include)."""
    lines = [ln for ln in text.splitlines()
             if ln.strip() and not re.match(r"^(make(\[\d+\])?: \*\*\*|cc |gcc )", ln)]
    head = lines[:limit]
    if not any(map(_is_error, head)) and len(lines) > limit:
        head += ["[...]", *[ln for ln in lines[limit:] if _is_error(ln)][:1]]
    return "\n".join(head)


# The linker's lines that say what is wrong carry no "error"; its summary, which does, says nothing.
_LINK_PROBLEM = re.compile(r"undefined reference to|multiple definition of")
_LINK_SUMMARY = re.compile(r"^collect2: error: ld returned")


# ld's line for a name two objects define ('mm.c:(.text+0x0): multiple definition of `main'; ...');
# the compiler's quoted source lines start with blanks, so a string in mm.c never matches.
_CLASH = re.compile(r"^[^\s|]*: multiple definition of `([^']+)'")


def first_error(text: str) -> str:
    """The compiler's or linker's first error line in a build's output (make's own '***' lines
    and the echoed commands skipped), else its first line: what a one-line reason should show.
    Names mm.c defines that the driver does too are said in words, all of them, as `make` says them
    (tools/alloc_check.sh): ld's lines name the driver's object and source."""
    lines = _first_lines(text, limit=1 << 20).splitlines()
    clash = list(dict.fromkeys(m.group(1) for ln in lines if (m := _CLASH.match(ln))))
    if clash:
        more = f" and {len(clash) - 6} more" if len(clash) > 6 else ""
        return (f"it defines names the driver itself defines ({', '.join(clash[:6])}{more}): remove them, "
                "make them static or rename them")
    problems = (ln for ln in lines
                if _LINK_PROBLEM.search(ln) or (_is_error(ln) and not _LINK_SUMMARY.match(ln)))
    return next(problems, next((ln for ln in lines if _is_error(ln)), lines[0] if lines else ""))


def _failed_target(text: str) -> str:
    """The target make says it failed to make ('make: *** [Makefile:12: build/x/alloc.o] Error 1'), or ''."""
    found = re.search(r"^make(?:\[\d+\])?: \*\*\* \[(?:[^\]]*?:\d+: )?([^\]]+)\] Error", text, re.M)
    return found.group(1) if found else ""


def own_names(text: str, *folders: Path | str) -> str:
    """TEXT with each of FOLDERS (the grader's temporary copies, and where the sandbox mounts them)
    left out of the paths it names: a student is shown mm.c:12, which is their file, never the
    grader's /tmp/mmgrade-x/subs/ann-0/mm.c:12."""
    for folder in folders:
        for prefix in dict.fromkeys((str(folder), os.path.realpath(folder))):
            # only where a path starts: /usr/include/sub/x.h is not the sandbox's /sub
            text = re.sub(rf"(?<![\w./-]){re.escape(prefix.rstrip('/'))}/", "", text)
    return text


def build_submission(folder: Path, policy: Policy, sandbox: Sandbox, slot: int,
                     template: Path | None = None) -> BuildResult:
    """Compile and link FOLDER/mm.c (a copy of TEMPLATE) in the sandbox; classify a failure as
    compile or link error.  The log names files as the student knows them, relative to the folder."""
    sandbox.prepare(folder, slot, writable=True)
    mount = Mount(folder, INSIDE, writable=True)
    limits = replace(policy.limits, file_size_bytes=policy.build.file_size_bytes)   # the build's own
    cmd = sandbox.command(_make_args(policy), [mount], mount, limits, slot, build=True)
    result = run(cmd, policy.build.compile_timeout, 64 * 1024, cwd=folder, tail=8 * 1024)
    if sandbox_failed(result):
        raise KitError(f"the sandbox failed to start the build: {result.stderr.strip().splitlines()[0]}")
    builds = sorted((folder / "build").glob(f"*-a{policy.build.alignment}*"))
    out_dir = builds[0] if builds else folder / "build"
    alloc = out_dir / "alloc.o"
    driver = out_dir / "mdriver"
    objs = linked_with(out_dir)
    log = own_names(result.stderr + result.stdout, folder, INSIDE, *([template] if template else []))
    if result.timed_out:
        return BuildResult("compile_error", f"the build took longer than {policy.build.compile_timeout:g} s "
                           "(an #include of a device or an endless template?)", None, None, objs)
    if not alloc.exists() or _failed_target(log).endswith("alloc.o"):
        # make names the target whose recipe failed: alloc.o is compiling (and assembling) mm.c, even
        # when the assembler, stopped by the file-size limit, left a partial alloc.o behind
        return BuildResult("compile_error", _first_lines(log), None, None, objs)
    if result.returncode != 0 or not driver.exists():
        return BuildResult("link_error", _first_lines(log), None, alloc, objs)
    return BuildResult("ok", "", driver, alloc, objs)

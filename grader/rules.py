"""Static rules on the compiled allocator object (alloc.o), read with binutils.

Each rule returns a RuleResult whose verdict follows the policy's action for it:
reject (the submission's verdict becomes `rejected`), warn (noted) or off.
The rules look at the object, not the source, so no macro or spelling trick
changes what they see.
"""
from __future__ import annotations

import functools
import re
import subprocess
from pathlib import Path

from .model import RuleResult
from .policy import Policy

LIBRARIES = ("libc.so.6", "libm.so.6")
LIBRARY_DIRS = ("/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64", "/lib", "/usr/lib")
CONSTRUCTOR_SECTIONS = (".init_array", ".fini_array", ".preinit_array", ".ctors", ".dtors")
# Section types the linker runs at start-up or exit whatever the section is called.
CONSTRUCTOR_TYPES = ("INIT_ARRAY", "FINI_ARRAY", "PREINIT_ARRAY")
IFUNC = "i"                      # nm's letter for an indirect function: its resolver runs at load time
_SECTION = re.compile(r"^\s*\[\s*\d+\]\s+(\S+)\s+(\S+)\s+[0-9a-f]+\s+[0-9a-f]+\s+([0-9a-f]+)\s+[0-9a-f]+\s+([A-Za-z]*)\s")
_SYSCALL = re.compile(r"^\s*([0-9a-f]+):\s+(syscall|sysenter|int\s+\$0x80)\b", re.M)


class ToolError(RuntimeError):
    """binutils failed on an object the build produced: the grader's fault, not the student's."""


def _tool(*args: str) -> str:
    try:
        done = subprocess.run(list(args), capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as err:
        raise ToolError(f"{args[0]}: {err}") from None
    if done.returncode != 0:
        raise ToolError(f"{' '.join(args)}: {done.stderr.strip()[:200]}")
    return done.stdout


def symbols(obj: Path) -> list[tuple[str, str, int]]:
    """(name, nm type letter, size) for every symbol of OBJ."""
    out = []
    for line in _tool("nm", "-P", "--no-sort", str(obj)).splitlines():
        parts = line.split()
        if len(parts) >= 2:
            size = int(parts[3], 16) if len(parts) >= 4 else 0
            out.append((parts[0], parts[1], size))
    return out


@functools.lru_cache(maxsize=1)
def library_symbols() -> frozenset[str]:
    """Every function and object the C library (and libm) exports: names a submission must not define."""
    names: set[str] = set()
    for lib in LIBRARIES:
        path = next((Path(d) / lib for d in LIBRARY_DIRS if (Path(d) / lib).exists()), None)
        if path is None:
            continue
        for line in _tool("nm", "-D", "--defined-only", str(path)).splitlines():
            parts = line.split()
            if len(parts) >= 3 and parts[1] not in ("A",):
                names.add(parts[2].split("@")[0])
    return frozenset(names)


def defined_globals(objs: list[Path]) -> frozenset[str]:
    names = set()
    for obj in objs:
        names |= {n for n, kind, _ in symbols(obj) if kind in "TDBRCVWGSIu"}
    return frozenset(names)


def _verdict(rule: str, policy: Policy, bad: list[str], ok_detail: str, bad_detail: str) -> RuleResult:
    action = policy.rules.action.get(rule, "reject")
    if action == "off":
        return RuleResult(rule, action, True, "off", "not checked (off in this course's policy)", ())
    if not bad:
        return RuleResult(rule, action, True, "pass", ok_detail, ())
    verdict = "reject" if action == "reject" else "warn"
    return RuleResult(rule, action, False, verdict, bad_detail, tuple(sorted(set(bad))))


def _names(items: list[str], limit: int = 6) -> str:
    items = sorted(set(items))
    more = f" and {len(items) - limit} more" if len(items) > limit else ""
    return ", ".join(items[:limit]) + more


def check_undefined(syms, policy: Policy) -> RuleResult:
    allowed = policy.rules.allowed()
    bad = [n for n, kind, _ in syms if kind in "Uwv" and n not in allowed]
    return _verdict("undefined_symbols", policy, bad,
                    "calls only allow-listed functions (mem_*, mem* and printf family)",
                    f"calls functions outside the allow-list: {_names(bad)}")


def check_shadowing(syms, reserved: frozenset[str], policy: Policy) -> tuple[RuleResult, RuleResult]:
    api = set(policy.rules.api_symbols)
    globals_ = [n for n, kind, _ in syms if kind in "TDBRCVWGSI" and n not in api]
    shadows = [n for n in globals_ if n in reserved]
    others = [n for n in globals_ if n not in reserved]
    return (_verdict("shadowing", policy, shadows,
                     "defines no C-library or driver symbol",
                     f"defines C-library or driver symbols, which would replace them inside the driver: {_names(shadows)}"),
            _verdict("other_globals", policy, others,
                     "every helper is static",
                     f"non-static globals (make them static): {_names(others)}"))


def sections(obj: Path) -> list[tuple[str, str, int, str]]:
    """(name, type, size, flags) for every section of OBJ."""
    out = []
    for line in _tool("readelf", "-S", "-W", str(obj)).splitlines():
        match = _SECTION.match(line)
        if match:
            out.append((match.group(1), match.group(2), int(match.group(3), 16), match.group(4)))
    return out


def check_constructors(secs, syms, policy: Policy) -> RuleResult:
    """Code that runs before main or after exit: constructor sections and IFUNC resolvers."""
    bad = [name for name, kind, size, _ in secs
           if size and (kind in CONSTRUCTOR_TYPES
                        or any(name == s or name.startswith(s + ".") for s in CONSTRUCTOR_SECTIONS))]
    bad += [f"{name} (IFUNC)" for name, kind, _ in syms if kind == IFUNC]
    return _verdict("constructors", policy, bad, "no constructors, destructors or IFUNC resolvers",
                    "has constructors, destructors or IFUNC resolvers that would run inside the driver "
                    f"before main ({_names(bad)})")


def writable_bytes(secs, syms) -> int:
    """.data + .bss (+ thread-local) + common symbols; relocated read-only data is not counted."""
    total = 0
    for name, kind, size, flags in secs:
        if "W" in flags and "A" in flags and not name.startswith(".data.rel.ro") \
                and not any(name.startswith(s) for s in CONSTRUCTOR_SECTIONS):
            total += size
    return total + sum(size for _, kind, size in syms if kind == "C")


def check_writable(secs, syms, policy: Policy) -> RuleResult:
    used = writable_bytes(secs, syms)
    limit = policy.rules.writable_data_max
    bad = [f"{used} bytes"] if used > limit else []
    return _verdict("writable_data", policy, bad, f"{used} bytes of writable globals (limit {limit})",
                    f"{used} bytes of writable globals, more than the {limit} allowed")


def check_syscalls(obj: Path, policy: Policy) -> RuleResult:
    listing = _tool("objdump", "-d", "--no-show-raw-insn", str(obj))
    bad = [f"{m.group(2)} at 0x{m.group(1)}" for m in _SYSCALL.finditer(listing)]
    return _verdict("raw_syscalls", policy, bad, "no raw system-call instructions",
                    f"raw system-call instructions: {_names(bad)}")


def check_object(obj: Path, driver_objs: list[Path], policy: Policy) -> tuple[RuleResult, ...]:
    """Every static rule on OBJ; DRIVER_OBJS are the objects it is linked with."""
    syms = symbols(obj)
    secs = sections(obj)
    reserved = library_symbols() | defined_globals(driver_objs)
    shadowing, others = check_shadowing(syms, reserved, policy)
    return (check_undefined(syms, policy), shadowing, others, check_constructors(secs, syms, policy),
            check_writable(secs, syms, policy), check_syscalls(obj, policy))

"""Static rules on the compiled allocator object (alloc.o), read with binutils.

Each rule returns a RuleResult whose verdict follows the policy's action for it:
reject (the submission's verdict becomes `rejected`), warn (noted) or off.
The rules look at the object, not the source, so no macro or spelling trick
changes what they see.
"""
from __future__ import annotations

import functools
import re
import struct
import subprocess
from pathlib import Path

from .model import RuleResult
from .policy import RULES, Policy

LIBRARIES = ("libc.so.6", "libm.so.6")
LIBRARY_DIRS = ("/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64", "/lib", "/usr/lib")
# Sections the C runtime runs or registers by name: code in .init/.fini is pasted into _init/_fini.
CONSTRUCTOR_SECTIONS = (".init_array", ".fini_array", ".preinit_array", ".ctors", ".dtors",
                        ".init", ".fini", ".tm_clone_table")
# Section types the linker runs at start-up or exit whatever the section is called.
CONSTRUCTOR_TYPES = ("INIT_ARRAY", "FINI_ARRAY", "PREINIT_ARRAY")
IFUNC = "i"                      # nm's letter for an indirect function: its resolver runs at load time
# Writable sections gcc makes for C globals (name == X or X.*).  Any other writable name is refused:
# the linker places an unknown name where it likes, and no C global needs one.
DATA_SECTIONS = (".data", ".bss", ".tdata", ".tbss", ".ldata", ".lbss")
# A writable section aligned past this has padding before it that its size does not count.
MAX_DATA_ALIGN = 64
# Relocated read-only data: written by the loader, then made read-only (RELRO) before main.
RELRO_SECTIONS = (".data.rel.ro",)
# Names the toolchain and the C runtime call or look up on their own, which a global definition
# would capture: crti's _init calls __gmon_start__ (with the program's argc and argv) before main.
# Every global name that starts with an underscore is refused too: C reserves them, and the
# runtime's hooks (_init, _fini, _ITM_*, __libc_*, __cxa_*, __dso_handle, ...) are all spelt so.
RUNTIME_SYMBOLS = frozenset({"main", "_start", "_init", "_fini", "__gmon_start__", "data_start", "etext",
                             "edata", "end", "_ITM_registerTMCloneTable", "_ITM_deregisterTMCloneTable",
                             "__cxa_finalize", "__cxa_atexit", "__dso_handle", "__libc_start_main"})
# What the grader reads with binutils, outside the sandbox: objdump's listing of 6 MB of one-byte
# instructions took 20 s and 1.9 GB of the grader's memory (a 60 MB object, 840 MB of listing,
# would take the host's), nm's of an object's symbol table grows the same way.  No allocator
# comes near either (the kit's best.c: 32 KB of code, a 322 KB object at -O2 -g).
MAX_OBJECT_BYTES = 8 << 20
MAX_LISTED_CODE = 512 << 10
_SYSCALL = re.compile(r"^\s*([0-9a-f]+):\s+(syscall|sysenter|int\s+\$0x80)\b", re.M)
_INSN = re.compile(r"^\s*([0-9a-f]+):\s+(\S+)(?:\s+([0-9a-f]+) <)?", re.M)
_SECTION = re.compile(r"^Disassembly of section (\S+):$", re.M)


class ToolError(RuntimeError):
    """binutils failed on an object the build produced: the grader's fault, not the student's."""


def _tool(*args: str) -> str:
    try:
        done = subprocess.run(list(args), capture_output=True, text=True, errors="replace", timeout=60)
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


def is_reserved(name: str, reserved: frozenset[str]) -> bool:
    """NAME belongs to the C library, the runtime or the driver (RESERVED), or is spelt like a runtime name.

    A versioned definition (.symver f, clock_gettime@@V1) is named clock_gettime@@V1 in the object
    but satisfies the driver's calls to clock_gettime: the part before '@' is what counts, and no
    allocator has a reason to version a symbol at all."""
    base = name.split("@")[0]
    return "@" in name or base in reserved or base in RUNTIME_SYMBOLS or base.startswith("_")


def check_shadowing(syms, reserved: frozenset[str], policy: Policy) -> tuple[RuleResult, RuleResult]:
    api = set(policy.rules.api_symbols)
    globals_ = [n for n, kind, _ in syms if kind in "TDBRCVWGSIAu" and n not in api]
    shadows = [n for n in globals_ if is_reserved(n, reserved)]
    others = [n for n in globals_ if not is_reserved(n, reserved)]
    return (_verdict("shadowing", policy, shadows,
                     "defines no C-library, runtime or driver symbol",
                     "defines C-library, runtime or driver symbols (or global names starting with _, which C "
                     "reserves), which would replace them inside the driver or run before main: "
                     f"{_names(shadows)} (make your own helpers static)"),
            _verdict("other_globals", policy, others,
                     "every helper is static",
                     f"non-static globals (make them static): {_names(others)}"))


_SHT = {0: "NULL", 1: "PROGBITS", 2: "SYMTAB", 3: "STRTAB", 4: "RELA", 5: "HASH", 6: "DYNAMIC", 7: "NOTE",
        8: "NOBITS", 9: "REL", 11: "DYNSYM", 14: "INIT_ARRAY", 15: "FINI_ARRAY", 16: "PREINIT_ARRAY",
        17: "GROUP", 18: "SYMTAB_SHNDX", 0x70000001: "X86_64_UNWIND"}
_SHF = ((0x1, "W"), (0x2, "A"), (0x4, "X"), (0x10, "M"), (0x20, "S"), (0x40, "I"), (0x80, "L"),
        (0x100, "O"), (0x200, "G"), (0x400, "T"), (0x800, "C"), (0x80000000, "E"))


def _in(name: str, families: tuple[str, ...]) -> bool:
    """NAME is one of FAMILIES or a dotted sub-section of one (.data, .data.x; not .data_x)."""
    return any(name == f or name.startswith(f + ".") for f in families)


def sections(obj: Path) -> list[tuple[str, str, int, str, int]]:
    """(name, type, size, flags, alignment) for every section of OBJ, read from its ELF section headers.

    Parsed here rather than from readelf's table, whose columns a section name with a space in
    it shifts (such a section used to be skipped, and its size never counted)."""
    try:
        data = Path(obj).read_bytes()
    except OSError as err:
        raise ToolError(f"{obj}: {err.strerror}") from None
    try:
        return _elf_sections(data)
    except (struct.error, IndexError, ValueError) as err:
        raise ToolError(f"{obj}: not an ELF object the grader can read ({err})") from None


def _elf_sections(data: bytes) -> list[tuple[str, str, int, str, int]]:
    if data[:4] != b"\x7fELF" or data[4] not in (1, 2) or data[5] not in (1, 2):
        raise ValueError("bad ELF header")
    wide, end = data[4] == 2, "<" if data[5] == 1 else ">"
    if wide:
        shoff, = struct.unpack_from(end + "Q", data, 0x28)
        shentsize, shnum, shstrndx = struct.unpack_from(end + "HHH", data, 0x3A)
        header = end + "IIQQQQIIQQ"
    else:
        shoff, = struct.unpack_from(end + "I", data, 0x20)
        shentsize, shnum, shstrndx = struct.unpack_from(end + "HHH", data, 0x2E)
        header = end + "IIIIIIIIII"
    if shoff == 0:
        return []
    if shentsize < struct.calcsize(header):
        raise ValueError("section headers too small")
    rows = [struct.unpack_from(header, data, shoff)]
    if shnum == 0:                       # extended numbering: the count is in section 0
        shnum = rows[0][5]
    if shstrndx == 0xFFFF:               # SHN_XINDEX: the index is in section 0's sh_link
        shstrndx = rows[0][6]
    if shnum > len(data) // shentsize:
        raise ValueError("more section headers than the file holds")
    rows = [struct.unpack_from(header, data, shoff + i * shentsize) for i in range(shnum)]
    names_at = rows[shstrndx][4]

    def name(offset: int) -> str:
        start = names_at + offset
        stop = data.index(b"\0", start)
        return data[start:stop].decode("utf-8", "backslashreplace")

    out = []
    for sh_name, sh_type, sh_flags, _addr, _off, sh_size, _link, _info, sh_addralign, _entsize in rows[1:]:
        flags = "".join(letter for bit, letter in _SHF if sh_flags & bit)
        out.append((name(sh_name), _SHT.get(sh_type, hex(sh_type)), sh_size, flags, sh_addralign))
    return out


def check_constructors(secs, syms, policy: Policy) -> RuleResult:
    """Code that runs before main or after exit: constructor sections and IFUNC resolvers."""
    bad = [name for name, kind, size, *_ in secs
           if size and (_in(name, CONSTRUCTOR_SECTIONS) or kind in CONSTRUCTOR_TYPES)]
    bad += [f"{name} (IFUNC)" for name, kind, _ in syms if kind == IFUNC]
    return _verdict("constructors", policy, bad, "no constructors, destructors or IFUNC resolvers",
                    "has constructors, destructors or IFUNC resolvers that would run inside the driver "
                    f"before main ({_names(bad)})")


def writable_bytes(secs, syms) -> int:
    """Every allocated writable section + common symbols; RELRO data and constructor tables
    (refused by their own rule) are not counted.  Names are matched exactly (X or X.*)."""
    total = 0
    for name, kind, size, flags, _ in secs:
        if "W" in flags and "A" in flags and not _in(name, RELRO_SECTIONS) \
                and not _in(name, CONSTRUCTOR_SECTIONS) and kind not in CONSTRUCTOR_TYPES:
            total += size
    return total + sum(size for _, kind, size in syms if kind == "C")


def unknown_writable(secs) -> list[str]:
    """Writable sections with a name gcc never gives C globals (set with __attribute__((section)))."""
    return [name for name, kind, size, flags, _ in secs
            if size and "W" in flags and "A" in flags and kind not in CONSTRUCTOR_TYPES
            and not _in(name, DATA_SECTIONS + RELRO_SECTIONS + CONSTRUCTOR_SECTIONS)]


def over_aligned(secs) -> list[str]:
    """Writable sections aligned past MAX_DATA_ALIGN: the linker's padding before one is memory
    the section's size does not count, and the driver cannot tell from the allocator's own."""
    return [f"{name} (aligned to {align} bytes)" for name, kind, size, flags, align in secs
            if size and "W" in flags and "A" in flags and align > MAX_DATA_ALIGN]


def _largest_data(syms, limit: int = 4) -> str:
    """The biggest writable variables by name, so a student sees which ones to move into the heap."""
    found = sorted(((size, name) for name, kind, size in syms if kind in "dDbBC" and size), reverse=True)
    return (" (" + ", ".join(f"{name} {size}" for size, name in found[:limit]) + ")") if found else ""


def check_writable(secs, syms, policy: Policy) -> RuleResult:
    used = writable_bytes(secs, syms)
    limit = policy.rules.writable_data_max
    odd, padded = unknown_writable(secs), over_aligned(secs)
    bad = ([f"{used} bytes"] if used > limit else []) + [f"section {n}" for n in odd + padded]
    detail = f"{used} bytes of writable globals, more than the {limit} allowed{_largest_data(syms)}" \
        if used > limit else f"{used} bytes of writable globals (limit {limit})"
    if odd:
        detail += f"; writable sections with names no C global gets (use .data/.bss): {_names(odd)}"
    if padded:
        detail += (f"; writable sections aligned past {MAX_DATA_ALIGN} bytes, whose padding would be uncounted "
                   f"storage: {_names(padded)}")
    return _verdict("writable_data", policy, bad, f"{used} bytes of writable globals (limit {limit})", detail)


def code_bytes(secs) -> int:
    """Every allocated section the program cannot write: code, constants, unwind tables, and RELRO
    data (a `static const char *const` table lands there)."""
    return sum(size for name, kind, size, flags, _ in secs
               if "A" in flags and ("W" not in flags or _in(name, RELRO_SECTIONS)))


def _largest_code(syms, limit: int = 4) -> str:
    """The biggest functions and constants by name, so a student sees what made the object large."""
    found = sorted(((size, name) for name, kind, size in syms if kind in "tTrRdD" and size), reverse=True)   # d: .data.rel.ro
    return (" (" + ", ".join(f"{name} {size}" for size, name in found[:limit]) + ")") if found else ""


def check_code_size(secs, syms, policy: Policy) -> RuleResult:
    """Code and read-only data past the limit: a trace's placements compiled in as a constant table
    replay in a lookup per op, at any speed and with hindsight no allocator has (red team)."""
    used, limit = code_bytes(secs), policy.rules.code_size_max
    return _verdict("code_size", policy, [f"{used} bytes"] if used > limit else [],
                    f"{used} bytes of code and read-only data (limit {limit})",
                    f"{used} bytes of code and read-only data, more than the {limit} allowed (a table of "
                    f"precomputed answers?){_largest_code(syms)}")


def _jumps_into_instructions(listing: str) -> list[str]:
    """Direct jumps and calls whose target is inside an instruction: overlapping
    instructions (`jmp 1f+2` into a constant holding 0f 05) run code that the
    listing does not show, such as a hidden `syscall`.  No compiler emits them."""
    odd = []
    for section in _SECTION.split(listing)[2::2]:
        insns = _INSN.findall(section)
        starts = {int(at, 16) for at, _, _ in insns}
        last = max(starts, default=0)   # a branch there may target its own end (a relocated call)
        odd += [f"{op} at 0x{at} into 0x{to}" for at, op, to in insns
                if to and op.startswith(("j", "call", "loop", "xbegin")) and int(to, 16) not in starts
                and not (int(at, 16) == last and int(to, 16) > last)]
    return odd


def executable_bytes(secs) -> int:
    return sum(size for _, kind, size, flags, _ in secs if "X" in flags and kind != "NOBITS")


def check_syscalls(obj: Path, secs, policy: Policy) -> RuleResult:
    code = executable_bytes(secs)
    if policy.rules.action.get("raw_syscalls", "reject") == "off":
        return _verdict("raw_syscalls", policy, [], "", "")
    if code > MAX_LISTED_CODE:
        return _verdict("raw_syscalls", policy, [f"{code} bytes of code"], "",
                        f"{code} bytes of code, more than the grader disassembles ({MAX_LISTED_CODE}): "
                        "its system calls cannot be checked")
    listing = _tool("objdump", "-d", "--no-show-raw-insn", str(obj))
    bad = [f"{m.group(2)} at 0x{m.group(1)}" for m in _SYSCALL.finditer(listing)]
    hidden = _jumps_into_instructions(listing)
    detail = "; ".join(part for part in (
        bad and f"raw system-call instructions: {_names(bad)}",
        hidden and f"jumps into the middle of an instruction, which hide what runs: {_names(hidden)}") if part)
    return _verdict("raw_syscalls", policy, bad + hidden, "no raw system-call instructions", detail)


def check_object(obj: Path, driver_objs: list[Path], policy: Policy) -> tuple[RuleResult, ...]:
    """Every static rule on OBJ; DRIVER_OBJS are the objects it is linked with."""
    size = _object_size(obj)
    if size > MAX_OBJECT_BYTES:     # refused before binutils reads it: see MAX_OBJECT_BYTES
        why = f"the object is {size} bytes, more than the grader inspects ({MAX_OBJECT_BYTES}): not checked"
        return tuple(_verdict(rule, policy, [f"{size} bytes"], "", why) for rule in RULES)
    syms = symbols(obj)
    secs = sections(obj)
    reserved = library_symbols() | defined_globals(driver_objs)
    shadowing, others = check_shadowing(syms, reserved, policy)
    return (check_undefined(syms, policy), shadowing, others, check_constructors(secs, syms, policy),
            check_writable(secs, syms, policy), check_code_size(secs, syms, policy), check_syscalls(obj, secs, policy))


def _object_size(obj: Path) -> int:
    try:
        return Path(obj).stat().st_size
    except OSError as err:
        raise ToolError(f"{obj}: {err.strerror}") from None

"""What the variants' tests share: the list of variants and how to build them.

VARIANTS is written out on purpose: test_variants_listed fails when a file in
variants/ is missing from it, so a new allocator cannot slip past the tests.
"""
from __future__ import annotations

import re
import subprocess
from pathlib import Path

from filelock import FileLock

KIT = Path(__file__).resolve().parent.parent

# name -> does it promise realloc in place (shrink, absorb, grow at the top)?
VARIANTS: dict[str, bool] = {
    "implicit-first": False,
    "implicit-next": False,
    "implicit-best": False,
    "implicit-worst": False,
    "explicit-lifo": False,
    "explicit-fifo": False,
    "explicit-addr": False,
    "segregated": False,
    "segregated-realloc": True,
    "best": True,
    "ts-lock": True,
    "ts-nolock": True,
}

# The variants issue 3 asks for by name: present() must never skip one of these.
REQUIRED = ["implicit-first", "implicit-next", "implicit-best", "implicit-worst", "explicit-lifo",
            "explicit-fifo", "explicit-addr", "segregated", "segregated-realloc", "best"]

# Variants whose 32-bit offsets limit the heap to 4 GiB: past it they must refuse
# to grow (unit.c's heap_past_4g), where the others serve the request.
OFFSETS_32 = {"best"}

# Bytes of tags on an allocated block (unit.c's tag_bytes measures them): the
# textbook header and footer; the segregated lists' header alone (issue 3: no
# footer on allocated blocks); best's 4-byte header.
TAG_BYTES = {**{v: 16 for v in VARIANTS if v.startswith(("implicit-", "explicit-"))},
             "segregated": 8, "segregated-realloc": 8, "best": 4, "ts-lock": 8, "ts-nolock": 16}

# Variants whose malloc(0) returns a block, as mm.h allows; the others return NULL and take no heap
# (unit.c's edge_sizes with --zero-null), as issue 3 asks of its variants.
ZERO_BLOCK = {"ts-nolock"}

# Variants whose card says best fit among the blocks of a size class (unit.c's class_best_fit);
# the other segregated lists take a class's first fit.
CLASS_BEST = {"ts-lock", "ts-nolock"}

# The variants built on tags-core.h, whose grow_for extends the heap by what a request lacks
# (unit.c's grow_by_lack); best grows by slices for small requests, ts-nolock by chunks.
GROW_BY_LACK = {v for v in VARIANTS if v.startswith(("implicit-", "explicit-", "segregated"))} | {"ts-lock"}

# Every variant goes through the C unit tests of the tricky paths.
UNIT_TESTED = list(VARIANTS)


# What every variant's opening card states (issue 3), as the card's row names.
CARD_ROWS = {
    "free list": r"free lists?",
    "fit": r"fit",
    "coalescing": r"coalescing",
    "split": r"split",
    "realloc": r"realloc",
    "min block": r"min block",
}


def card(variant: str) -> dict[str, str]:
    """The rows of variants/<variant>.c's opening card: row name -> its text, lines joined."""
    head = (KIT / "variants" / f"{variant}.c").read_text().split("*/", 1)[0]
    rows: dict[str, str] = {}
    name = None
    for line in head.splitlines():
        text = line.lstrip(" /*").rstrip()
        indent = len(line) - len(line.lstrip(" /*"))
        for row, pattern in CARD_ROWS.items():
            if 3 <= indent <= 6 and re.match(rf"({pattern})\s{{2,}}\S", text):
                name = row
                rows[row] = re.sub(rf"^({pattern})\s+", "", text)
                break
        else:
            if name and indent > 6 and text:
                rows[name] += " " + text
            else:
                name = None
    return rows


def split_threshold(variant: str) -> int:
    """The smallest rest the card says a split leaves, in bytes."""
    found = re.search(r"(\d+) bytes", card(variant)["split"])
    assert found, f"variants/{variant}.c: the card's split row gives no size in bytes"
    return int(found.group(1))


def variant_files() -> list[str]:
    return sorted(p.stem for p in (KIT / "variants").glob("*.c"))


def present(names: list[str]) -> list[str]:
    """The names whose variants/<name>.c exists (another engineer's may land later)."""
    have = set(variant_files())
    return [n for n in names if n in have]


def sanitized(out: Path, sources: list[str], alignment: int = 16, defines: tuple[str, ...] = (),
              sanitizers: str = "address,undefined") -> Path:
    """Build OUT from SOURCES (paths in the kit) and memlib.c, warning-free under ASan and UBSan, as
    the C harnesses in tests/c/variants/ are, or under other SANITIZERS ("thread": TSan, which cannot
    share a build with ASan); a build error fails the test with the compiler's words."""
    built = subprocess.run(["cc", "-std=gnu11", "-O1", "-g", "-Wall", "-Wextra", "-Wno-unused-parameter", "-Werror",
                            f"-fsanitize={sanitizers}", "-fno-sanitize-recover=all", f"-DMM_ALIGNMENT={alignment}",
                            *(f"-D{d}" for d in defines), f"-I{KIT}", "-o", str(out),
                            *(str(KIT / s) for s in sources), str(KIT / "memlib.c"), "-lpthread"],
                           capture_output=True, text=True)
    assert built.returncode == 0, f"{' '.join(sources)}: {built.stderr[-2000:]}"
    return out


def make(target: str, variant: str, alignment: int, sanitize: bool = False, *settings: str) -> Path:
    """Run `make TARGET` for one configuration (settings: more NAME=value); return the path it prints last."""
    args = ["make", "-s", "-C", str(KIT), target, f"VARIANT={variant}", f"ALIGNMENT={alignment}", *settings]
    if sanitize:
        args.append("SANITIZE=1")
    (KIT / "build").mkdir(exist_ok=True)
    with FileLock(str(KIT / "build" / ".make.lock")):
        done = subprocess.run(args, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"make {target} failed for {variant}:\n{done.stdout}\n{done.stderr}")
    return KIT / done.stdout.strip().splitlines()[-1]

"""Which allocators a study can run: glibc, optional packages, variant shims."""
from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

# name -> (Debian package, library file names to look for)
OPTIONAL = {
    "jemalloc": ("libjemalloc2", ("libjemalloc.so.2",)),
    "tcmalloc": ("libtcmalloc-minimal4", ("libtcmalloc_minimal.so.4",)),
    "mimalloc": ("libmimalloc2.0", ("libmimalloc.so.2", "libmimalloc.so.2.0")),
}
LIB_DIRS = ("/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/lib")


@dataclass(frozen=True)
class Allocator:
    """One allocator: `preload` is the library to LD_PRELOAD (None: the system malloc);
    `version`, what the pages name it by beside its name (None: a shim, named by the commit)."""

    name: str
    kind: str                 # "system", "package" or "shim"
    preload: str | None = None
    version: str | None = None

    def env(self, base: dict[str, str] | None = None) -> dict[str, str]:
        """The environment build/bench/rusage starts with: no LD_PRELOAD (it runs on glibc's
        malloc) and BENCH_PRELOAD, the library it preloads into the command (if any)."""
        env = dict(os.environ if base is None else base)
        env.pop("LD_PRELOAD", None)
        env.pop("BENCH_PRELOAD", None)
        if self.preload:
            env["BENCH_PRELOAD"] = self.preload
        return env

    def to_json(self) -> dict:
        return {"name": self.name, "kind": self.kind, "preload": self.preload, "version": self.version}

    @classmethod
    def from_json(cls, data: dict) -> "Allocator":
        return cls(data["name"], data["kind"], data.get("preload"), data.get("version"))


def glibc_version() -> str:
    try:
        return os.confstr("CS_GNU_LIBC_VERSION") or "glibc, version unknown"
    except (ValueError, OSError):
        return "glibc, version unknown"


def package_version(package: str, lib: str) -> str:
    """`5.3.0-1 (libjemalloc2: /usr/lib/.../libjemalloc.so.2)`: dpkg's version of the package
    and the file preloaded; without dpkg's word, the file alone, as it resolves."""
    try:
        done = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", package], capture_output=True,
                              text=True, errors="replace", timeout=30)
        version = done.stdout.strip() if done.returncode == 0 else ""
    except (OSError, subprocess.SubprocessError):
        version = ""
    real = os.path.realpath(lib)
    where = lib if real == lib else f"{lib} -> {real}"
    if version:
        return f"{version} ({package}: {where})"
    return f"version unknown: {package} not known to dpkg ({where})"


GLIBC = Allocator("glibc", "system", None, glibc_version())


def find_library(names: tuple[str, ...], dirs: tuple[str, ...] = LIB_DIRS) -> str | None:
    for d in dirs:
        for n in names:
            path = Path(d) / n
            if path.exists():
                return str(path)
    return None


def discover(kit: Path, shims: list[str] | None = None, packages: bool = True,
             lib_dirs: tuple[str, ...] = LIB_DIRS) -> tuple[list[Allocator], list[str]]:
    """The allocators available, glibc first, and a message per one skipped.

    `shims`: the variant names wanted (None: every variants/*.c).  A shim counts
    only if its variant source exists and build/libmm-<name>.so was built.
    """
    found, skipped = [GLIBC], []
    if packages:
        for name, (package, files) in OPTIONAL.items():
            lib = find_library(files, lib_dirs)
            if lib:
                found.append(Allocator(name, "package", lib, package_version(package, lib)))
            else:
                skipped.append(f"{name}: package {package} not installed, skipped")
    sources = sorted(p.stem for p in (kit / "variants").glob("*.c"))
    for name in (sources if shims is None else shims):
        lib = kit / "build" / f"libmm-{name}.so"
        if name not in sources:
            skipped.append(f"{name}: no variants/{name}.c, skipped")
        elif not lib.exists():
            skipped.append(f"{name}: build/libmm-{name}.so was not built (make shim VARIANT={name}), skipped")
        elif newer := newer_source(kit, name, lib):
            skipped.append(f"{name}: build/libmm-{name}.so is older than {newer} (make shim VARIANT={name}), skipped")
        else:
            found.append(Allocator(name, "shim", str(lib)))
    return found, skipped


# What a shim is built from (mk/bench.mk's SHIM_DEPS), besides its variants/<name>.c.
SHIM_SOURCES = ("shim/*.c", "shim/*.h", "variants/*.h", "mm.h", "memlib.h", "config.h", "mm_stats.h")


def newer_source(kit: Path, name: str, lib: Path) -> str | None:
    """A source of the shim edited since it was built (as make would see it), or None: a stale
    library would be measured under a page that names the commit's allocator."""
    built = lib.stat().st_mtime
    for path in [kit / "variants" / f"{name}.c"] + [p for g in SHIM_SOURCES for p in sorted(kit.glob(g))]:
        try:
            if path.stat().st_mtime > built:
                return str(path.relative_to(kit))
        except OSError:
            continue
    return None

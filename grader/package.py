"""Bundles an instructor uploads: Gradescope's autograder.zip and Autolab's autograde files.

Both carry a copy of the kit (driver sources, traces, policy) and this grader, so
the hosted grader builds and runs submissions exactly as `mmgrade grade` does
here.  Gradescope runs setup.sh once per image and run_autograder per submission;
Autolab runs `make` with autograde-Makefile, autograde.tar and the student's handin.
"""
from __future__ import annotations

import io
import os
import re
import tarfile
import tomllib
import zipfile
from pathlib import Path

from mmtrace.trace import replace_file

from .build import KIT_DIRS, KIT_FILES
from .grade import BatchError, find_traces
from .policy import Policy, load_policy

EXTRA = ("grader.toml", "mm.c", "pyproject.toml")
FOLDERS = ("variants", "traces", "schema")
PACKAGES = ("grader", "mmtrace")                 # the grader imports mmtrace (scores, one-line usage errors)
COURSE = "course.toml"


class PackageError(RuntimeError):
    """The bundle cannot be built (a kit file is missing)."""


def _policy_traces(kit: Path, policy: Policy) -> list[tuple[Path, str]]:
    """The policy's traces, placed where the hosted grader looks for them: KIT/traces.dir."""
    where = os.path.normpath(policy.traces.dir)
    if os.path.isabs(where) or where.split(os.sep)[0] == "..":
        raise PackageError(f"{policy.source}: traces.dir = {policy.traces.dir!r} is not a folder inside the kit "
                           f"({kit}); the bundle carries only the kit: put the traces in a folder inside it")
    try:
        paths = find_traces(kit / where, policy.traces.files)
    except BatchError as err:
        raise PackageError(f"{policy.source}: traces.dir: {err}") from None
    return [_bundled_trace(kit, path, policy) for path in paths]


def _bundled_trace(kit: Path, path: Path, policy: Policy) -> tuple[Path, str]:
    """(the real file, its place in the bundle) for a trace at PATH: where the hosted grader's
    KIT/traces.dir/NAME leads (course-traces/../other/t.rep is other/t.rep: a tar member holding
    '..' is not unpacked, and a zip drops a leading one); a trace outside the kit is refused."""
    inside = os.path.relpath(path, kit)         # lexical, as the hosted grader's path leads
    if os.path.isabs(inside) or inside.split(os.sep)[0] == "..":
        raise PackageError(f"{policy.source}: traces.files: {path} is not inside the kit ({kit}); the bundle "
                           "carries only the kit: put the trace in a folder inside it")
    # the real file, as a symlink in the tar would point nowhere on the host
    return path.resolve(), f"kit/{Path(inside).as_posix()}"


def _kit_files(kit: Path, policy: Policy) -> list[tuple[Path, str]]:
    """(host path, path in the bundle) for every file the hosted grader needs."""
    files: list[tuple[Path, str]] = []
    for name in KIT_FILES + EXTRA:
        if (kit / name).is_file():
            files.append((kit / name, f"kit/{name}"))
        elif name in KIT_FILES:
            raise PackageError(f"{kit}: the kit has no {name}")
    for package in PACKAGES:
        if not (kit / package / "__init__.py").is_file():
            raise PackageError(f"{kit}: the kit has no {package}/ package; the hosted grader needs it")
    for folder in KIT_DIRS + FOLDERS + PACKAGES:
        base = kit / folder
        if not base.is_dir():
            continue
        for path in sorted(base.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts and not path.name.endswith(".pyc"):
                files.append((path, f"kit/{path.relative_to(kit)}"))
    files += _policy_traces(kit, policy)
    return list({arc: (path, arc) for path, arc in files}.values())


def _requirements(kit: Path) -> list[str]:
    """The grader's pinned dependencies, from the kit's pyproject.toml."""
    try:
        data = tomllib.loads((kit / "pyproject.toml").read_text())
        return list(data["project"]["dependencies"])
    except (OSError, KeyError, tomllib.TOMLDecodeError):
        return ["click", "rich", "matplotlib", "jinja2", "jsonschema", "numpy", "PyYAML"]   # unpinned


SETUP = """#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder image.
set -euo pipefail
apt-get update
DEBIAN_FRONTEND=noninteractive apt-get install -y build-essential binutils python3 python3-venv bubblewrap util-linux
# The grader needs Python >= 3.11; Ubuntu 22.04 (Gradescope's default image) has 3.10 as python3.
recent() {{ "$1" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; }}
PY=python3
if ! recent "$PY"; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y python3.11 python3.11-venv || true
    PY=python3.11
fi
if ! recent "$PY"; then
    echo "setup.sh: the grader needs Python >= 3.11; this image has $(python3 --version 2>&1) and no python3.11 package: choose a newer base image" >&2
    exit 1
fi
"$PY" -m venv /autograder/venv
/autograder/venv/bin/pip install {requirements}
# Without bubblewrap (no user namespaces) a build reads what every user may: keep the traces and policy root's.
chmod -R go-rwx /autograder/source
"""

RUN = """#!/usr/bin/env bash
# Gradescope runs this for every submission; results land in /autograder/results/results.json.
cd /autograder/source/kit
PYTHONPATH=/autograder/source/kit exec /autograder/venv/bin/python -m grader gradescope \\
    --root /autograder --kit /autograder/source/kit {config}
"""

MAKEFILE = """# Autolab's autograde Makefile: unpack the kit, grade the handin, end with the scores line.
# The handin file is mm.c (set the assessment's handin filename to mm.c).  The image's python3
# must have the grader's packages: pip install {pins}
all:
\t@python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))' || \\
\t  {{ echo "autograde: the grader needs Python >= 3.11, python3 here is $$(python3 --version 2>&1)"; exit 1; }}
\t@python3 -c 'import importlib.util as u, sys; gone = [m for m in sys.argv[1:] if u.find_spec(m) is None]; \\
\t  gone and (print("autograde: python3 here lacks Python packages the grader needs (" + ", ".join(gone) + "); install them in the image: pip install {pins}") or sys.exit(1))' {modules}
\ttar xf autograde.tar
\tcd kit && PYTHONPATH=. python3 -m grader autolab ../mm.c --kit . {config}

clean:
\trm -rf kit
"""


def _modules(requirements: list[str]) -> list[str]:
    """The module each requirement is imported as (PyYAML is yaml)."""
    names = [re.split(r"[<>=!~;\[ ]", r, maxsplit=1)[0] for r in requirements]
    return [{"pyyaml": "yaml"}.get(n.lower(), n.lower().replace("-", "_")) for n in names]


def autolab_makefile(kit: Path, flag: str) -> str:
    """The autograde Makefile: the job checks python3's version and the grader's packages first,
    each in one line (a missing package had been a ModuleNotFoundError traceback, no score line)."""
    requirements = _requirements(kit)
    return MAKEFILE.format(config=flag, pins=" ".join(requirements), modules=" ".join(_modules(requirements)))


def _course(config: Path | None) -> tuple[str, bytes | None]:
    if config is None:
        return "", None
    return f"--config {COURSE}", Path(config).read_bytes()


def _cannot_write(out: Path, err: OSError) -> PackageError:
    where = err.filename or out
    return PackageError(f"{where}: cannot write the bundle there ({err.strerror or err})")


def gradescope_zip(kit: Path, config: Path | None, out: Path) -> Path:
    """Write OUT (autograder.zip) with setup.sh and run_autograder at its root."""
    kit = Path(kit)
    policy = load_policy(kit, config)             # refuse a policy that would fail on every submission
    flag, course = _course(config)
    files = _kit_files(kit, policy)
    try:
        _write_zip(kit, files, flag, course, Path(out))
    except OSError as err:
        raise _cannot_write(Path(out), err) from None
    return Path(out)


def _write_zip(kit: Path, files: list[tuple[Path, str]], flag: str, course: bytes | None, out: Path) -> None:
    requirements = " ".join(f"'{r}'" for r in _requirements(kit))
    data = io.BytesIO()              # then OUT whole or not at all: never a zip cut short by Ctrl-C
    with zipfile.ZipFile(data, "w", zipfile.ZIP_DEFLATED) as bundle:
        for name, text in (("setup.sh", SETUP.format(requirements=requirements)),
                           ("run_autograder", RUN.format(config=flag))):
            info = zipfile.ZipInfo(name)
            info.external_attr = 0o755 << 16
            bundle.writestr(info, text)
        for path, arc in files:
            bundle.write(path, arc)
        if course is not None:
            bundle.writestr(f"kit/{COURSE}", course)
    replace_file(out, data.getvalue())


def autolab_bundle(kit: Path, config: Path | None, out: Path) -> list[Path]:
    """Write OUT/autograde-Makefile and OUT/autograde.tar."""
    kit = Path(kit)
    policy = load_policy(kit, config)
    flag, course = _course(config)
    out = Path(out)
    files = _kit_files(kit, policy)
    try:
        return _write_autolab(files, autolab_makefile(kit, flag), course, out)
    except OSError as err:
        raise _cannot_write(out, err) from None


def _write_autolab(files: list[tuple[Path, str]], makefile_text: str, course: bytes | None, out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    data = io.BytesIO()              # each file whole or not at all: never a tar cut short by Ctrl-C
    with tarfile.open(fileobj=data, mode="w") as bundle:
        for path, arc in files:
            bundle.add(path, arc)
        if course is not None:
            info = tarfile.TarInfo(f"kit/{COURSE}")
            info.size = len(course)
            bundle.addfile(info, io.BytesIO(course))
    makefile, tar_path = out / "autograde-Makefile", out / "autograde.tar"
    replace_file(tar_path, data.getvalue())
    replace_file(makefile, makefile_text.encode())
    return [makefile, tar_path]

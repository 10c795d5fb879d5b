"""The suite's recipe (traces/recipe.toml): every trace's name, group, what it
stresses, and how it is made, either a pattern with a seed and parameters or a
command to record.  `make traces` regenerates the generated ones byte for byte.
"""
from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from .gen import PATTERNS, PatternError, coerce_params, generate
from .record import RecordError, check_process
from .regular import NotRegular, read_regular
from .trace import MAX_OPS, ORDERS, Trace

# A recipe larger than this is none (the suite's is a few KB): the read stops there.
MAX_RECIPE_BYTES = 1 << 20


class RecipeError(ValueError):
    """A recipe that cannot be used; str() names the file and the entry, in one line
    (a value quoted from the recipe may hold a newline)."""

    def __init__(self, message: str):
        super().__init__(message.replace("\r", "\\r").replace("\n", "\\n"))


@dataclass(frozen=True)
class Entry:
    name: str
    group: str
    stresses: str
    file: str                       # file name inside the suite's folder
    pattern: str = ""               # generated traces
    seed: int = 0
    params: dict = field(default_factory=dict)
    header: str = "classic"
    weight: int = 1
    command: tuple[str, ...] = ()   # recorded traces
    process: str = "largest"
    max_ops: int = 0
    skip: int = 0                   # recorded events to ignore at the start

    @property
    def recorded(self) -> bool:
        return bool(self.command)

    def to_json(self) -> dict:
        d = dict(self.__dict__)
        d["command"] = list(self.command)
        return d

    @staticmethod
    def from_json(d: dict) -> "Entry":
        return Entry(**{**d, "command": tuple(d.get("command", ()))})


@dataclass(frozen=True)
class Recipe:
    path: Path
    groups: dict[str, str]          # group name -> what the group is for
    entries: tuple[Entry, ...]

    @property
    def folder(self) -> Path:
        return self.path.parent

    def select(self, groups: tuple[str, ...] = (), names: tuple[str, ...] = ()) -> list[Entry]:
        for g in groups:
            if g not in self.groups:
                raise RecipeError(f"{self.path}: no group '{g}' (groups: {', '.join(self.groups)})")
        known = {e.name for e in self.entries}
        for n in names:
            if n not in known:
                raise RecipeError(f"{self.path}: no trace '{n}'")
        chosen = [e for e in self.entries
                  if (not groups or e.group in groups) and (not names or e.name in names)]
        if not chosen and groups and names:     # each known, but apart: a run of nothing had passed
            raise RecipeError(f"{self.path}: no trace named {', '.join(names)} is in group "
                              f"{', '.join(groups)}")
        return chosen


# Each key's TOML type, and how an error names it.
_TYPES = {"name": (str, "a string"), "group": (str, "a string"), "stresses": (str, "a string"),
          "pattern": (str, "a string"), "seed": (int, "an integer"), "params": (dict, "a table"),
          "header": (str, "a string"), "weight": (int, "an integer"),
          "command": (list, "a list of strings"), "process": (str, "a string"),
          "max_ops": (int, "an integer"), "skip": (int, "an integer"), "gzip": (bool, "true or false")}
# A name becomes a file in the suite's folder: a plain stem, never a path out of it.
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]*")


def _toml_type(value: object) -> str:
    return {bool: "true/false", int: "an integer", float: "a number", str: "a string",
            list: "a list", dict: "a table"}.get(type(value), type(value).__name__)


def _check_types(where: str, raw: dict) -> None:
    unknown = set(raw) - set(_TYPES)
    if unknown:
        raise RecipeError(f"{where}: unknown key(s) {', '.join(sorted(unknown))}")
    for key, value in raw.items():
        want, what = _TYPES[key]
        if not isinstance(value, want) or (want is int and isinstance(value, bool)):
            raise RecipeError(f"{where}: '{key}' must be {what}, not {_toml_type(value)}")
    if not all(isinstance(c, str) and c for c in raw.get("command", [])):
        raise RecipeError(f"{where}: 'command' must be a list of non-empty strings")
    for key in ("max_ops", "skip"):
        if raw.get(key, 0) < 0:
            raise RecipeError(f"{where}: '{key}' must be 0 or more")
    if raw.get("max_ops", 0) > MAX_OPS:
        raise RecipeError(f"{where}: 'max_ops' must be at most {MAX_OPS:,} (what a trace the "
                          "driver reads can hold)")


def _check_fields(where: str, raw: dict, groups: dict[str, str]) -> None:
    for key in ("name", "group", "stresses"):
        if not raw.get(key):
            raise RecipeError(f"{where}: '{key}' must be a non-empty string")
    if not _NAME.fullmatch(raw["name"]):
        raise RecipeError(f"{where}: 'name' must be a plain file name (letters, digits, '.', '_', "
                          "'+', '-'; no '/', not starting with '.')")
    if raw["group"] not in groups:
        raise RecipeError(f"{where}: group '{raw['group']}' is not in [groups]")
    if bool(raw.get("pattern")) == bool(raw.get("command")):
        raise RecipeError(f"{where}: give exactly one of 'pattern' and 'command'")
    if raw.get("header", "classic") not in ORDERS:
        raise RecipeError(f"{where}: header must be one of {', '.join(ORDERS)}")
    if raw.get("weight", 1) not in (0, 1, 2, 3):
        raise RecipeError(f"{where}: weight must be 0, 1, 2 or 3")
    try:
        check_process(raw.get("process", "largest"))
    except RecordError as e:
        raise RecipeError(f"{where}: {e}") from None


def _check_param_types(where: str, pattern: str, params: dict) -> None:
    """The recipe is typed TOML, not the command line's strings: a count written "10" or
    10.0 is refused, as 'seed' would be, rather than read as 10."""
    defaults = PATTERNS[pattern].defaults()
    wanted = {int: ((int,), "an integer"), float: ((int, float), "a number"), str: ((str,), "a string")}
    for key, value in params.items():
        default = defaults.get(key.replace("-", "_"))       # an unknown name: coerce_params says so
        if type(default) not in wanted:
            continue
        types, what = wanted[type(default)]
        if isinstance(value, bool) or not isinstance(value, types):
            raise RecipeError(f"{where}: parameter '{key}' must be {what}, not {_toml_type(value)}")


def _check_pattern(where: str, raw: dict) -> None:
    if raw["pattern"] not in PATTERNS:
        raise RecipeError(f"{where}: no pattern '{raw['pattern']}'")
    if "seed" not in raw:
        raise RecipeError(f"{where}: a generated trace needs an integer 'seed'")
    if raw["seed"] < 0:          # random.Random(-5) is random.Random(5), as gen refuses it
        raise RecipeError(f"{where}: 'seed' must be 0 or more")
    _check_param_types(where, raw["pattern"], raw.get("params", {}))
    try:
        coerce_params(PATTERNS[raw["pattern"]], raw.get("params", {}))
    except PatternError as e:
        raise RecipeError(f"{where}: {e}") from None


def _entry(path: Path, n: int, raw: object, groups: dict[str, str]) -> Entry:
    if not isinstance(raw, dict):
        raise RecipeError(f"{path}: trace #{n + 1} must be a table ([[trace]])")
    where = f"{path}: trace #{n + 1} ({raw.get('name', '?')})"
    _check_types(where, raw)
    _check_fields(where, raw, groups)
    if raw.get("pattern"):
        _check_pattern(where, raw)
    ext = ".rep.gz" if raw.get("gzip") else ".rep"
    return Entry(name=raw["name"], group=raw["group"], stresses=raw["stresses"],
                 file=raw["name"] + ext, pattern=raw.get("pattern", ""),
                 seed=raw.get("seed", 0), params=dict(raw.get("params", {})),
                 header=raw.get("header", "classic"), weight=raw.get("weight", 1),
                 command=tuple(raw.get("command", ())), process=raw.get("process", "largest"),
                 max_ops=raw.get("max_ops", 0), skip=raw.get("skip", 0))


def _groups(path: Path, raw: dict) -> dict[str, str]:
    groups = raw.get("groups", {})
    if not isinstance(groups, dict) or not groups:
        raise RecipeError(f"{path}: needs a [groups] table (name = \"what it is for\")")
    for g, what in groups.items():
        if not isinstance(what, str):
            raise RecipeError(f"{path}: [groups] '{g}' must be a string (what the group is for)")
    return groups


def _traces(path: Path, raw: dict) -> list:
    traces = raw.get("trace", [])
    if not isinstance(traces, list):
        raise RecipeError(f"{path}: 'trace' must be an array of tables ([[trace]] sections)")
    return traces


def _recipe_text(path: Path) -> str:
    """PATH's text, read without ever waiting: a named pipe (FIFO), which may never get a writer,
    and a device such as /dev/zero, which would be read forever, are refused unread."""
    try:
        data = read_regular(path, MAX_RECIPE_BYTES)          # a folder: OSError, Is a directory
    except NotRegular as err:
        raise RecipeError(f"{path}: cannot read: {err.kind}, not a recipe file") from None
    if len(data) > MAX_RECIPE_BYTES:
        raise RecipeError(f"{path}: larger than {MAX_RECIPE_BYTES} bytes, so not a recipe")
    return data.decode("utf-8-sig")        # an editor's byte-order mark is no part of the text


def load_recipe(path: Path) -> Recipe:
    path = Path(path)
    try:
        raw = tomllib.loads(_recipe_text(path))
    except OSError as e:
        raise RecipeError(f"{path}: cannot read: {e.strerror}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise RecipeError(f"{path}: not valid TOML: {e}") from None
    groups = _groups(path, raw)
    entries = tuple(_entry(path, n, t, groups) for n, t in enumerate(_traces(path, raw)))
    names = [e.name for e in entries]
    dup = {n for n in names if names.count(n) > 1}
    if dup:
        raise RecipeError(f"{path}: trace names used twice: {', '.join(sorted(dup))}")
    return Recipe(path, dict(groups), entries)


def make_trace(entry: Entry) -> Trace:
    """ENTRY's trace; RecipeError naming the trace if its parameters, each valid alone, make none
    (a request or a live set larger than the heap, too many ops, no op at all)."""
    assert not entry.recorded
    try:
        return generate(entry.pattern, entry.seed, entry.params, entry.header, entry.weight)
    except PatternError as e:
        raise RecipeError(f"trace '{entry.name}': {e}") from None


def comments(entry: Entry) -> list[str]:
    """The lines written at the top of a generated trace: how to make it again."""
    params = " ".join(f"-p {k}={v}" for k, v in sorted(entry.params.items()))
    return [f"{entry.name}: {entry.stresses}",
            f"made by: mmtrace gen {entry.pattern} --seed {entry.seed} {params} "
            f"--header {entry.header} --weight {entry.weight}".replace("  ", " ")]


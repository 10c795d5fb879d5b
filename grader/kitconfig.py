"""Read the kit's constants from config.h, their single source.

config.h writes them in two forms this parser understands:
    static const double NAME = value;      (scoring weights, tolerances)
    NAME = value,                          (inside an enum: limits, counts)
Values may use integer arithmetic such as `20 << 20`; anything else is skipped,
never guessed.
"""
from __future__ import annotations

import ast
import operator
import re
from pathlib import Path

from mmtrace.regular import NotRegular, read_regular

_STATIC = re.compile(r"\bstatic\s+const\s+(?:double|float|int|long|unsigned)\s+(\w+)\s*=\s*([^;]+);")
_ENUM = re.compile(r"\benum\b\s*\w*\s*\{(.*?)\}", re.S)
_ENUM_ITEM = re.compile(r"^\s*(\w+)\s*=\s*(.+?)\s*$", re.S)
_DEFINE = re.compile(r"^\s*#\s*define\s+(\w+)\s+([0-9][0-9xXa-fA-F.]*)\s*$", re.M)

_OPS = {ast.LShift: operator.lshift, ast.RShift: operator.rshift, ast.Mult: operator.mul,
        ast.Add: operator.add, ast.Sub: operator.sub, ast.FloorDiv: operator.floordiv,
        ast.Div: operator.truediv}


class KitConfigError(ValueError):
    """config.h is missing or unreadable."""


def _evaluate(text: str) -> float | int | None:
    """Evaluate a C constant expression made of numbers and + - * / << >>."""
    text = re.sub(r"(?<=[0-9])[uUlLfF]+\b", "", text.strip())
    try:
        tree = ast.parse(text, mode="eval").body
    except SyntaxError:
        return None

    def walk(node: ast.AST) -> float | int:
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
            return node.value
        if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
            return _OPS[type(node.op)](walk(node.left), walk(node.right))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -walk(node.operand)
        raise ValueError(text)

    try:
        return walk(tree)
    except (ValueError, ZeroDivisionError):
        return None


def parse_config_text(text: str) -> dict[str, float | int]:
    """Every constant config.h defines, by name."""
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    pairs: list[tuple[str, str]] = []
    for body in _ENUM.findall(text):
        pairs += [m.groups() for m in map(_ENUM_ITEM.match, body.split(",")) if m]
    pairs += _STATIC.findall(text) + _DEFINE.findall(text)
    values: dict[str, float | int] = {}
    for name, expression in pairs:
        value = _evaluate(expression)
        if value is not None:
            values[name] = value
    return values


def read_kit_config(kit: Path) -> dict[str, float | int]:
    """The constants of KIT/config.h; raises KitConfigError when it is absent or not text."""
    path = Path(kit) / "config.h"
    try:
        # read_regular: a FIFO here had hung every mmgrade command that takes --kit
        return parse_config_text(read_regular(path).decode("utf-8"))
    except NotRegular as err:
        raise KitConfigError(f"{path}: cannot read the kit's config.h: it is {err.kind}, not a regular file") from None
    except OSError as err:
        raise KitConfigError(f"{path}: cannot read the kit's config.h ({err.strerror})") from None
    except UnicodeDecodeError as err:       # --kit at a folder whose config.h is not the kit's
        raise KitConfigError(f"{path}: not UTF-8 text (byte {err.start}), so not the kit's config.h") from None

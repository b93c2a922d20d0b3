"""The errors of tool signatures.

``SchemaError``, ``ArgumentError`` and ``ResultError`` are public (re-exported by ``hypermcp._schema``).
``_Invalid`` is the internal error every converter raises: it carries the path of the bad value, and
``ToolSignature`` turns it into an ``ArgumentError`` or a ``ResultError``.
"""

from __future__ import annotations

import json
from typing import Any


class SchemaError(TypeError):
    """A signature or type hint that has no JSON Schema (raised when the tool is defined)."""


class ArgumentError(ValueError):
    """Tool arguments that do not convert to the types of the function's parameters."""


class ResultError(TypeError):
    """A tool's return value that does not match its return annotation."""


class _Invalid(Exception):
    """A value that does not convert; ``path`` grows from the inside out as it propagates."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason
        self.path: list[str | int] = []

    def at(self, key: str | int) -> _Invalid:
        self.path.append(key)
        return self

    def where(self, root: str) -> str:
        out = root
        for key in reversed(self.path):
            if isinstance(key, int):
                out += f"[{key}]"
            elif key.isidentifier():
                out += "." + key
            else:
                out += f"[{json.dumps(key, ensure_ascii=False)}]"
        return out


_JSON_NAMES = {
    type(None): "null",
    bool: "boolean",
    int: "integer",
    float: "number",
    str: "string",
    list: "array",
    tuple: "array",
    dict: "object",
}


def _kind_of(value: Any) -> str:
    return _JSON_NAMES.get(type(value)) or type(value).__name__


def _expected(what: str, value: Any) -> _Invalid:
    return _Invalid(f"expected {what}, got {_kind_of(value)}")

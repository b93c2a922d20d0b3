"""Python values to JSON when no type hint says what they are.

``_to_json`` gives the best-effort JSON form of any value: for ``Any``-typed results, for the
defaults written into schemas (``_json_default``) and for values quoted in error messages.
Conversions driven by a type hint are in ``_convert``.
"""

from __future__ import annotations

import base64
import enum
import inspect
import math
import sys
from collections import abc
from typing import Any

from ._errors import _Invalid
from ._shapes import _NO_DEFAULT, _is_dataclass, _is_pydantic_model, _pure_path


def _b64(data: bytes | bytearray | memoryview) -> str:
    return base64.b64encode(data).decode("ascii")


def _to_json(value: Any) -> Any:
    """Best-effort JSON form of any value (for Any-typed results and defaults)."""
    kind = type(value)
    if kind is str or kind is int or kind is bool or value is None:
        return value
    if kind is float:
        if not math.isfinite(value):
            raise _Invalid(f"{value!r} has no JSON form")
        return value
    if isinstance(value, enum.Enum):
        return _to_json(value.value)
    if isinstance(value, str):
        return str.__str__(value)
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return _to_json(float(value))
    if isinstance(value, abc.Mapping):
        out = {}
        for key, item in value.items():
            key = _json_key(key)
            try:
                out[key] = _to_json(item)
            except _Invalid as exc:
                raise exc.at(key) from None
        return out
    if isinstance(value, (list, tuple, set, frozenset)):
        items = []
        for i, item in enumerate(value):
            try:
                items.append(_to_json(item))
            except _Invalid as exc:
                raise exc.at(i) from None
        return _sorted(items) if isinstance(value, (set, frozenset)) else items
    if _is_dataclass(value) and not isinstance(value, type):
        import dataclasses  # loaded: value is a dataclass instance

        out = {}
        for f in dataclasses.fields(value):
            try:
                out[f.name] = _to_json(getattr(value, f.name))
            except _Invalid as exc:
                raise exc.at(f.name) from None
        return out
    model_dump = getattr(value, "model_dump", None)
    if _is_pydantic_model(kind) and callable(model_dump):
        return model_dump(mode="json", by_alias=True)
    datetime = sys.modules.get("datetime")
    if datetime is not None and isinstance(value, (datetime.datetime, datetime.date, datetime.time)):
        return value.isoformat()
    uuid = sys.modules.get("uuid")
    pure_path = _pure_path()
    if (uuid is not None and isinstance(value, uuid.UUID)) or (pure_path is not None and isinstance(value, pure_path)):
        return str(value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return _b64(value)
    raise _Invalid(f"{type(value).__name__} has no JSON form")


def _json_key(key: Any) -> str:
    if isinstance(key, enum.Enum):
        key = key.value
    if isinstance(key, str):
        return str.__str__(key)
    if isinstance(key, int) and not isinstance(key, bool):
        return str(int(key))
    raise _Invalid(f"object keys must be strings, got {type(key).__name__}")


def _sorted(items: list[Any]) -> list[Any]:
    """Set members in a stable order when they compare, else as iterated."""
    try:
        return sorted(items)
    except TypeError:
        return items


def _to_json_or_repr(value: Any) -> Any:
    try:
        return _to_json(value)
    except _Invalid:
        return repr(value)


def _json_default(value: Any) -> Any:
    """A default as JSON, or _NO_DEFAULT when it has no JSON form (it is then left out)."""
    if value is _NO_DEFAULT or value is inspect.Parameter.empty:
        return _NO_DEFAULT
    try:
        return _to_json(value)
    except _Invalid:
        return _NO_DEFAULT

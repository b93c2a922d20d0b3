"""Converters: JSON -> Python (load) and Python -> JSON (dump), compiled once per hint.

``_Converters.loader(hint)`` turns the JSON arguments of a call into the Python values a tool
expects; ``_Converters.dumper(hint)`` turns a return value into JSON as its annotation says.
Both raise ``_Invalid``; ``_label`` names a hint in their error messages.
"""

from __future__ import annotations

import base64
import binascii
import enum
import json
import math
import re
import typing
from collections import abc
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ._errors import _expected, _Invalid
from ._shapes import (
    _NO_DEFAULT,
    _fields,
    _format_tables,
    _hint_repr,
    _key_shape,
    _literal_values,
    _Shape,
    _shape,
)
from ._to_json import _b64, _json_key, _sorted, _to_json, _to_json_or_repr

if TYPE_CHECKING:
    from pathlib import PurePath


def _identity(value: Any) -> Any:
    return value


_Convert = Callable[[Any], Any]


class _Converters:
    """Compiles hints into ``load`` (validated JSON -> Python) and ``dump`` (Python -> JSON)
    functions. Both raise ``_Invalid``; recursive types are compiled once through a cache."""

    def __init__(self) -> None:
        self._loaders: dict[Any, _Convert] = {}
        self._dumpers: dict[Any, _Convert] = {}

    def loader(self, hint: Any) -> _Convert:
        return self._compile(hint, "_load_", self._loaders)

    def dumper(self, hint: Any) -> _Convert:
        return self._compile(hint, "_dump_", self._dumpers)

    def _compile(self, hint: Any, prefix: str, cache: dict[Any, _Convert]) -> _Convert:
        shape = _shape(hint)
        if shape.key is None:
            return getattr(self, prefix + shape.kind)(shape)
        cached = cache.get(shape.key)
        if cached is not None:
            return cached
        slot: list[_Convert] = []
        cache[shape.key] = lambda value: slot[0](value)  # stands in while compiling a recursion
        convert = getattr(self, prefix + shape.kind)(shape)
        slot.append(convert)
        cache[shape.key] = convert
        return convert

    # -- load --------------------------------------------------------------------------------------

    def _load_any(self, shape: _Shape) -> _Convert:
        return _identity

    def _load_null(self, shape: _Shape) -> _Convert:
        def load(value: Any) -> None:
            if value is not None:
                raise _expected("null", value)

        return load

    def _load_str(self, shape: _Shape) -> _Convert:
        def load(value: Any) -> str:
            if isinstance(value, str):
                return value
            raise _expected("string", value)

        return load

    def _load_int(self, shape: _Shape) -> _Convert:
        def load(value: Any) -> int:
            kind = type(value)
            if kind is int:
                return value
            if kind is float and value.is_integer():
                return int(value)
            raise _expected("integer", value)

        return load

    def _load_float(self, shape: _Shape) -> _Convert:
        def load(value: Any) -> float:
            kind = type(value)
            if kind is float or kind is int:
                return float(value)
            raise _expected("number", value)

        return load

    def _load_bool(self, shape: _Shape) -> _Convert:
        def load(value: Any) -> bool:
            if value is True or value is False:
                return value
            raise _expected("boolean", value)

        return load

    def _load_bytes(self, shape: _Shape) -> _Convert:
        cls = shape.cls

        def load(value: Any) -> bytes | bytearray:
            if not isinstance(value, str):
                raise _expected("base64 string", value)
            try:
                data = base64.b64decode(value, validate=True)
            except (binascii.Error, ValueError):
                raise _Invalid("expected base64 string, got text that is not base64") from None
            return data if cls is bytes else cls(data)

        return load

    def _load_format(self, shape: _Shape) -> _Convert:
        parse, what = _format_tables()[1][shape.cls], _format_tables()[0][shape.cls] + " string"

        def load(value: Any) -> Any:
            if not isinstance(value, str):
                raise _expected(what, value)
            try:
                return parse(value)
            except ValueError:
                raise _Invalid(f"expected {what}, got {value!r}") from None

        return load

    def _load_path(self, shape: _Shape) -> _Convert:
        cls = shape.cls

        def load(value: Any) -> PurePath:
            if isinstance(value, str):
                return cls(value)
            raise _expected("string", value)

        return load

    def _load_literal(self, shape: _Shape) -> _Convert:
        pairs = list(zip(_literal_values(shape), shape.args, strict=True))
        what = "one of " + json.dumps([v for v, _ in pairs], ensure_ascii=False)

        def load(value: Any) -> Any:
            for json_value, member in pairs:
                if value == json_value and type(value) is type(json_value):
                    return member
            raise _Invalid(f"expected {what}, got {json.dumps(_to_json_or_repr(value), ensure_ascii=False)}")

        return load

    def _load_enum(self, shape: _Shape) -> _Convert:
        cls = shape.cls
        what = "one of " + json.dumps([m.value for m in cls], ensure_ascii=False)

        def load(value: Any) -> enum.Enum:
            if isinstance(value, cls):
                return value
            try:
                member = cls(value)
            except (ValueError, TypeError):
                member = None
            if member is None or isinstance(value, bool) != isinstance(member.value, bool):
                shown = json.dumps(_to_json_or_repr(value), ensure_ascii=False)
                raise _Invalid(f"expected {what}, got {shown}")
            return member

        return load

    def _load_union(self, shape: _Shape) -> _Convert:
        return self._union(shape, self.loader)

    def _union(self, shape: _Shape, make: Callable[[Any], _Convert]) -> _Convert:
        branches = [(make(arg), _shape(arg).kind == "null", _label(arg)) for arg in shape.args]
        nullable = any(is_null for _, is_null, _ in branches)
        others = [(convert, label) for convert, is_null, label in branches if not is_null]
        what = " or ".join(label for _, label in others) + (" or null" if nullable else "")

        def convert(value: Any) -> Any:
            if value is None and nullable:
                return None
            errors = []
            for branch, _ in others:
                try:
                    return branch(value)
                except _Invalid as exc:
                    errors.append(exc)
            if len(errors) == 1:  # Optional[X]: X's own message says more
                raise errors[0]
            raise _expected(what, value)

        return convert

    def _load_array(self, shape: _Shape) -> _Convert:
        item, container = self.loader(shape.args[0]), shape.cls

        def load(value: Any) -> Any:
            if not isinstance(value, (list, tuple)):
                raise _expected("array", value)
            if item is _identity:
                items = list(value)
            else:
                items = []
                for i, element in enumerate(value):
                    try:
                        items.append(item(element))
                    except _Invalid as exc:
                        raise exc.at(i) from None
            if container is list:
                return items
            try:
                return container(items)
            except TypeError:
                raise _Invalid("array items must be hashable to make a set") from None

        return load

    def _load_tuple(self, shape: _Shape) -> _Convert:
        items = [self.loader(arg) for arg in shape.args]
        size = len(items)

        def load(value: Any) -> tuple[Any, ...]:
            if not isinstance(value, (list, tuple)):
                raise _expected("array", value)
            if len(value) != size:
                raise _Invalid(f"expected an array of {size} items, got {len(value)}")
            out = []
            for i, (convert, element) in enumerate(zip(items, value, strict=True)):
                try:
                    out.append(convert(element))
                except _Invalid as exc:
                    raise exc.at(i) from None
            return tuple(out)

        return load

    def _load_object(self, shape: _Shape) -> _Convert:
        key_kind, _ = _key_shape(shape.args[0])
        key_load = self.loader(shape.args[0]) if key_kind == "enum" else None
        item = self.loader(shape.args[1])

        def load(value: Any) -> dict[Any, Any]:
            if not isinstance(value, dict):
                raise _expected("object", value)
            out = {}
            for key, element in value.items():
                try:
                    if key_kind == "int":
                        if not isinstance(key, str) or not re.fullmatch(r"-?[0-9]+", key):
                            raise _Invalid(f"expected an integer key, got {key!r}")
                        converted_key: Any = int(key)
                    else:
                        converted_key = key if key_load is None else key_load(key)
                    out[converted_key] = item(element)
                except _Invalid as exc:
                    raise exc.at(key) from None
            return out

        return load

    def _load_typeddict(self, shape: _Shape) -> _Convert:
        fields = [(f.name, self.loader(f.hint), f.required) for f in _fields(shape)]

        def load(value: Any) -> dict[str, Any]:
            if not isinstance(value, dict):
                raise _expected("object", value)
            out = dict(value)  # keys the TypedDict does not declare are kept as they are
            for name, convert, required in fields:
                if name in value:
                    try:
                        out[name] = convert(value[name])
                    except _Invalid as exc:
                        raise exc.at(name) from None
                elif required:
                    raise _Invalid(f"missing required key {name!r}")
            return out

        return load

    def _load_dataclass(self, shape: _Shape) -> _Convert:
        cls = shape.cls
        fields = [(f.name, self.loader(f.hint), f.required) for f in _fields(shape) if f.init]

        def load(value: Any) -> Any:
            if isinstance(value, cls):
                return value
            if not isinstance(value, dict):
                raise _expected("object", value)
            kwargs = {}
            for name, convert, required in fields:
                if name in value:
                    try:
                        kwargs[name] = convert(value[name])
                    except _Invalid as exc:
                        raise exc.at(name) from None
                elif required:
                    raise _Invalid(f"missing required field {name!r}")
            try:
                return cls(**kwargs)
            except (TypeError, ValueError) as exc:  # e.g. a __post_init__ check
                raise _Invalid(f"{cls.__name__}: {exc}") from None

        return load

    def _load_pydantic(self, shape: _Shape) -> _Convert:
        cls = shape.cls

        def load(value: Any) -> Any:
            if isinstance(value, typing.get_origin(cls) or cls):
                return value
            try:
                return cls.model_validate(value)
            except ValueError as exc:  # pydantic.ValidationError is a ValueError
                raise _Invalid(str(exc)) from None

        return load

    def _load_annotated(self, shape: _Shape) -> _Convert:
        return self.loader(shape.args[0])

    def _load_alias(self, shape: _Shape) -> _Convert:
        return self.loader(shape.cls.__value__)

    # -- dump --------------------------------------------------------------------------------------

    def _dump_any(self, shape: _Shape) -> _Convert:
        return _to_json

    def _dump_null(self, shape: _Shape) -> _Convert:
        return self._load_null(shape)

    def _dump_str(self, shape: _Shape) -> _Convert:
        def dump(value: Any) -> str:
            if type(value) is str:
                return value
            if isinstance(value, str):
                return str.__str__(value)
            raise _expected("string", value)

        return dump

    def _dump_int(self, shape: _Shape) -> _Convert:
        def dump(value: Any) -> int:
            if type(value) is int:
                return value
            if isinstance(value, int) and not isinstance(value, bool):
                return int(value)
            raise _expected("integer", value)

        return dump

    def _dump_float(self, shape: _Shape) -> _Convert:
        def dump(value: Any) -> float | int:
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise _expected("number", value)
            if isinstance(value, int):
                return int(value)
            if not math.isfinite(value):
                raise _Invalid(f"{value!r} has no JSON form")
            return float(value)

        return dump

    def _dump_bool(self, shape: _Shape) -> _Convert:
        return self._load_bool(shape)

    def _dump_bytes(self, shape: _Shape) -> _Convert:
        def dump(value: Any) -> str:
            if isinstance(value, (bytes, bytearray, memoryview)):
                return _b64(value)
            raise _expected("bytes", value)

        return dump

    def _dump_format(self, shape: _Shape) -> _Convert:
        import datetime as dt  # loaded: shape.cls is one of theirs (_format_tables imported both)
        import uuid

        cls, parse, what = shape.cls, _format_tables()[1][shape.cls], _format_tables()[0][shape.cls]

        def dump(value: Any) -> str:
            if isinstance(value, str):  # already text: checked, then kept
                try:
                    parse(value)
                except ValueError:
                    raise _Invalid(f"expected {what} string, got {value!r}") from None
                return value
            if not isinstance(value, cls):
                raise _expected(cls.__name__, value)
            if cls is dt.date and isinstance(value, dt.datetime):
                value = value.date()
            return str(value) if cls is uuid.UUID else value.isoformat()

        return dump

    def _dump_path(self, shape: _Shape) -> _Convert:
        from pathlib import PurePath  # loaded: shape.cls is a PurePath

        def dump(value: Any) -> str:
            if isinstance(value, (str, PurePath)):
                return str(value)
            raise _expected("path", value)

        return dump

    def _dump_literal(self, shape: _Shape) -> _Convert:
        pairs = list(zip(_literal_values(shape), shape.args, strict=True))
        what = "one of " + json.dumps([v for v, _ in pairs], ensure_ascii=False)

        def dump(value: Any) -> Any:
            for json_value, member in pairs:
                if value is member or (value == json_value and type(value) is type(json_value)):
                    return json_value
            raise _Invalid(f"expected {what}, got {value!r}")

        return dump

    def _dump_enum(self, shape: _Shape) -> _Convert:
        load = self._load_enum(shape)

        def dump(value: Any) -> Any:
            return load(value).value

        return dump

    def _dump_union(self, shape: _Shape) -> _Convert:
        return self._union(shape, self.dumper)

    def _dump_array(self, shape: _Shape) -> _Convert:
        item, unique = self.dumper(shape.args[0]), shape.cls in (set, frozenset)

        def dump(value: Any) -> list[Any]:
            if isinstance(value, (str, bytes, bytearray, abc.Mapping)) or not isinstance(value, abc.Iterable):
                raise _expected("array", value)
            items = []
            for i, element in enumerate(value):
                try:
                    items.append(item(element))
                except _Invalid as exc:
                    raise exc.at(i) from None
            return _sorted(items) if unique else items

        return dump

    def _dump_tuple(self, shape: _Shape) -> _Convert:
        items = [self.dumper(arg) for arg in shape.args]
        size = len(items)

        def dump(value: Any) -> list[Any]:
            if not isinstance(value, (list, tuple)):
                raise _expected("array", value)
            if len(value) != size:
                raise _Invalid(f"expected {size} items, got {len(value)}")
            out = []
            for i, (convert, element) in enumerate(zip(items, value, strict=True)):
                try:
                    out.append(convert(element))
                except _Invalid as exc:
                    raise exc.at(i) from None
            return out

        return dump

    def _dump_object(self, shape: _Shape) -> _Convert:
        _key_shape(shape.args[0])
        item = self.dumper(shape.args[1])

        def dump(value: Any) -> dict[str, Any]:
            if not isinstance(value, abc.Mapping):
                raise _expected("object", value)
            out = {}
            for key, element in value.items():
                key = _json_key(key)
                try:
                    out[key] = item(element)
                except _Invalid as exc:
                    raise exc.at(key) from None
            return out

        return dump

    def _dump_fields(self, fields: list[tuple[str, _Convert, bool]], value: Any, get: Callable[..., Any]) -> Any:
        out = {}
        for name, convert, required in fields:
            element = get(value, name, _NO_DEFAULT)
            if element is _NO_DEFAULT:
                if required:
                    raise _Invalid(f"missing required key {name!r}")
                continue
            try:
                out[name] = convert(element)
            except _Invalid as exc:
                raise exc.at(name) from None
        return out

    def _dump_typeddict(self, shape: _Shape) -> _Convert:
        fields = [(f.name, self.dumper(f.hint), f.required) for f in _fields(shape)]
        names = {name for name, _, _ in fields}

        def dump(value: Any) -> dict[str, Any]:
            if not isinstance(value, abc.Mapping):
                raise _expected("object", value)
            out = self._dump_fields(fields, value, type(value).get)
            for key, element in value.items():
                if key not in names:  # undeclared keys are passed through
                    out[_json_key(key)] = _to_json(element)
            return out

        return dump

    def _dump_dataclass(self, shape: _Shape) -> _Convert:
        cls = shape.cls
        fields = [(f.name, self.dumper(f.hint), f.required) for f in _fields(shape)]

        def dump(value: Any) -> dict[str, Any]:
            if isinstance(value, cls):
                return self._dump_fields(fields, value, getattr)
            if isinstance(value, abc.Mapping):  # a dict shaped like the dataclass is fine too
                return self._dump_fields(fields, value, type(value).get)
            raise _expected(cls.__name__, value)

        return dump

    def _dump_pydantic(self, shape: _Shape) -> _Convert:
        cls = shape.cls
        runtime_cls = typing.get_origin(cls) or cls

        def dump(value: Any) -> Any:
            if not isinstance(value, runtime_cls):
                try:
                    value = cls.model_validate(value)
                except ValueError as exc:
                    raise _Invalid(str(exc)) from None
            return value.model_dump(mode="json", by_alias=True)

        return dump

    def _dump_annotated(self, shape: _Shape) -> _Convert:
        return self.dumper(shape.args[0])

    def _dump_alias(self, shape: _Shape) -> _Convert:
        return self.dumper(shape.cls.__value__)


_LABELS = {
    "any": "any value",
    "null": "null",
    "str": "string",
    "int": "integer",
    "float": "number",
    "bool": "boolean",
    "bytes": "base64 string",
    "path": "string",
    "array": "array",
    "tuple": "array",
    "object": "object",
}


def _label(hint: Any) -> str:
    """A short name for a hint in error messages."""
    shape = _shape(hint)
    while shape.kind == "annotated":
        shape = _shape(shape.args[0])
    if shape.kind in _LABELS:
        return _LABELS[shape.kind]
    if shape.kind == "format":
        return _format_tables()[0][shape.cls] + " string"
    if shape.kind == "literal":
        return "one of " + json.dumps(_literal_values(shape), ensure_ascii=False)
    if shape.kind == "union":
        return " or ".join(_label(arg) for arg in shape.args)
    if shape.kind == "alias":
        return shape.cls.__name__
    return getattr(typing.get_origin(shape.cls) or shape.cls, "__name__", _hint_repr(hint))

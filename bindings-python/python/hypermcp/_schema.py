"""Tool metadata from a Python signature: JSON Schemas, argument binding and result dumping.

``ToolSignature.from_function(fn)`` reads the type hints and the docstring of ``fn`` once, when the
tool is defined, and compiles them into an input schema, an output schema, a ``bind`` function that
turns JSON arguments into the Python values the function expects, and a ``dump_result`` function
that turns the return value back into JSON.

Standard library only: pydantic models are recognised by their methods (``model_json_schema``,
``model_validate``), so importing this module never imports pydantic.
"""

from __future__ import annotations

import base64
import binascii
import enum
import functools
import inspect
import json
import math
import re
import sys
import types
import typing
from collections import abc
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    import datetime as dt
    from pathlib import PurePath

__all__ = ["ArgumentError", "ResultError", "SchemaError", "ToolSignature", "schema_for"]


class SchemaError(TypeError):
    """A signature or type hint that has no JSON Schema (raised when the tool is defined)."""


class ArgumentError(ValueError):
    """Tool arguments that do not convert to the types of the function's parameters."""


class ResultError(TypeError):
    """A tool's return value that does not match its return annotation."""


# --------------------------------------------------------------------------------------------------
# Type hints, classified once into shapes that the schema builder and the converters share.

_NONE_TYPE = type(None)
_UNION_ORIGINS = (typing.Union, types.UnionType)
_QUALIFIERS = frozenset({"Required", "NotRequired", "ReadOnly"})
_SCALARS = {str: "str", int: "int", float: "float", bool: "bool"}
_SEQUENCES = {list, abc.Sequence, abc.MutableSequence, abc.Iterable, abc.Collection}
_SETS = {set: set, frozenset: frozenset, abc.Set: frozenset, abc.MutableSet: set}
_MAPPINGS = {dict, abc.Mapping, abc.MutableMapping}


# dataclasses, datetime, uuid and pathlib are imported only once something else has: no value and
# no type hint of theirs exists before that, and `import hypermcp` (timed at every server start)
# stays without them. The checks look in sys.modules and never import.
def _is_dataclass(obj: Any) -> bool:
    dataclasses = sys.modules.get("dataclasses")
    return dataclasses is not None and dataclasses.is_dataclass(obj)


def _pure_path() -> type | None:
    pathlib = sys.modules.get("pathlib")
    return None if pathlib is None else pathlib.PurePath


@functools.cache
def _format_tables() -> tuple[dict[Any, str], dict[Any, Callable[[str], Any]]]:
    """The string formats (datetime before date: it is a subclass) and their parsers."""
    import datetime as dt
    import uuid

    formats = {dt.datetime: "date-time", dt.date: "date", dt.time: "time", uuid.UUID: "uuid"}
    parsers = {dt.datetime: _parse_datetime, dt.date: dt.date.fromisoformat, dt.time: _parse_time, uuid.UUID: uuid.UUID}
    return formats, parsers


def _format_classes() -> dict[Any, str]:
    if "datetime" in sys.modules or "uuid" in sys.modules:
        return _format_tables()[0]
    return {}


_SUPPORTED = (
    "str, int, float, bool, None, bytes, list, tuple, set, dict, Any, Literal, Enum, Optional/Union, "
    "TypedDict, dataclasses, pydantic models, datetime, date, time, UUID, Path"
)
_NAMED = frozenset({"dataclass", "typeddict", "alias"})


class _Shape(NamedTuple):
    """What a hint is: ``kind`` plus what that kind needs.

    ``args`` holds child hints (or the values of a Literal), ``cls`` the class or container, ``extra``
    the Annotated metadata or the TypeVar bindings of a generic class; ``key`` is set on the named
    kinds (dataclass, TypedDict, type alias), which may be recursive.
    """

    kind: str
    args: tuple[Any, ...] = ()
    cls: Any = None
    extra: Any = None
    key: Any = None


def _shape(hint: Any) -> _Shape:
    if hint is Any or hint is object or hint is inspect.Parameter.empty:
        return _Shape("any")
    if hint is None or hint is _NONE_TYPE:
        return _Shape("null")
    if isinstance(hint, type) and hint in _SCALARS:
        return _Shape(_SCALARS[hint])
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin is typing.Annotated:
        return _Shape("annotated", (hint.__origin__,), extra=hint.__metadata__)
    if getattr(origin, "_name", None) in _QUALIFIERS:
        return _shape(args[0])
    if origin is typing.Literal:
        return _Shape("literal", args)
    if origin in _UNION_ORIGINS:
        return _Shape("union", args)
    if isinstance(hint, typing.TypeVar):
        if hint.__bound__ is not None:
            return _shape(hint.__bound__)
        return _Shape("union", hint.__constraints__) if hint.__constraints__ else _Shape("any")
    if hasattr(hint, "__supertype__"):  # typing.NewType
        return _shape(hint.__supertype__)
    if type(hint).__name__ == "TypeAliasType" and hasattr(hint, "__value__"):  # `type X = ...`
        return _Shape("alias", cls=hint, key=hint)
    if isinstance(hint, (str, typing.ForwardRef)):
        raise SchemaError(f"unresolved forward reference {_hint_repr(hint)}")
    base = hint if origin is None else origin
    if not isinstance(base, type):
        raise SchemaError(f"unsupported type hint {_hint_repr(hint)} (supported: {_SUPPORTED})")
    if base is tuple:
        if hint is tuple or hint is typing.Tuple:  # noqa: UP006 (the bare alias itself: any items)
            return _Shape("array", (Any,), cls=tuple)
        if len(args) == 2 and args[1] is Ellipsis:
            return _Shape("array", (args[0],), cls=tuple)
        return _Shape("tuple", () if args == ((),) else args)
    if base in _SEQUENCES:
        return _Shape("array", (args[0] if args else Any,), cls=list)
    if base in _SETS:
        return _Shape("array", (args[0] if args else Any,), cls=_SETS[base])
    if base in _MAPPINGS:
        return _Shape("object", args if len(args) == 2 else (str, Any))
    if origin is not None:  # a parametrized generic class: Page[Item]
        params = getattr(origin, "__parameters__", ())
        bindings = dict(zip(params, args, strict=False))
        if _is_typeddict(origin):
            return _Shape("typeddict", cls=origin, extra=bindings, key=hint)
        if _is_dataclass(origin):
            return _Shape("dataclass", cls=origin, extra=bindings, key=hint)
        if _is_pydantic_model(origin):
            return _Shape("pydantic", cls=hint)
        raise SchemaError(f"unsupported type hint {_hint_repr(hint)} (supported: {_SUPPORTED})")
    if issubclass(hint, enum.Enum):
        return _Shape("enum", cls=hint)
    if _is_pydantic_model(hint):
        return _Shape("pydantic", cls=hint)
    if _is_typeddict(hint):
        return _Shape("typeddict", cls=hint, extra={}, key=hint)
    if _is_dataclass(hint):
        return _Shape("dataclass", cls=hint, extra={}, key=hint)
    if issubclass(hint, (bytes, bytearray)):
        return _Shape("bytes", cls=bytearray if issubclass(hint, bytearray) else bytes)
    for cls in _format_classes():
        if issubclass(hint, cls):
            return _Shape("format", cls=cls)
    pure_path = _pure_path()
    if pure_path is not None and issubclass(hint, pure_path):
        return _Shape("path", cls=hint)
    raise SchemaError(f"unsupported type hint {_hint_repr(hint)} (supported: {_SUPPORTED})")


def _is_typeddict(cls: Any) -> bool:
    # typing.is_typeddict misses typing_extensions.TypedDict on older Pythons; this does not.
    return (
        isinstance(cls, type)
        and issubclass(cls, dict)
        and hasattr(cls, "__required_keys__")
        and hasattr(cls, "__total__")
    )


def _is_pydantic_model(cls: Any) -> bool:
    return (
        isinstance(cls, type)
        and callable(getattr(cls, "model_json_schema", None))
        and callable(getattr(cls, "model_validate", None))
    )


def _is_pydantic_field(value: Any) -> bool:
    cls = type(value)
    return cls.__name__ == "FieldInfo" and cls.__module__.startswith("pydantic")


def _hint_repr(hint: Any) -> str:
    if isinstance(hint, type):
        if hint.__module__ == "builtins":
            return hint.__qualname__
        return f"{hint.__module__}.{hint.__qualname__}"
    if isinstance(hint, typing.ForwardRef):
        return repr(hint.__forward_arg__)
    return re.sub(r"\btyping\.", "", repr(hint))


def _substitute(hint: Any, bindings: dict[Any, Any]) -> Any:
    """Replaces the TypeVars of a generic class's field hint with the class's arguments."""
    if not bindings:
        return hint
    if isinstance(hint, typing.TypeVar):
        return bindings.get(hint, hint)
    params = getattr(hint, "__parameters__", None)
    if params and not isinstance(hint, type) and any(p in bindings for p in params):
        try:
            return hint[tuple(bindings.get(p, p) for p in params)]
        except TypeError:
            return hint
    return hint


def _class_hints(cls: type) -> dict[str, Any]:
    try:
        return typing.get_type_hints(cls, include_extras=True)
    except Exception as exc:
        raise SchemaError(f"cannot resolve the type hints of {_hint_repr(cls)}: {exc}") from exc


class _Field(NamedTuple):
    name: str
    hint: Any
    required: bool
    default: Any  # _NO_DEFAULT when there is none (or only a default_factory)
    init: bool
    description: str | None


class _NoDefault:
    def __repr__(self) -> str:
        return "<no default>"


_NO_DEFAULT: Any = _NoDefault()


def _fields(shape: _Shape) -> list[_Field]:
    cls, bindings = shape.cls, shape.extra
    hints = _class_hints(cls)
    docs = _parse_docstring(_own_doc(cls)).params
    out = []
    if shape.kind == "typeddict":
        # __required_keys__ ignores Required/NotRequired written as strings (PEP 563), so the
        # qualifiers of the resolved hints have the last word.
        required = set(cls.__required_keys__)
        for name, hint in hints.items():
            qualifier = _qualifier(hint)
            if qualifier == "Required":
                required.add(name)
            elif qualifier == "NotRequired":
                required.discard(name)
            hint = _substitute(hint, bindings)
            out.append(_Field(name, hint, name in required, _NO_DEFAULT, True, docs.get(name)))
        return out
    import dataclasses  # loaded: cls is a dataclass

    for f in dataclasses.fields(cls):
        has_default = f.default is not dataclasses.MISSING
        has_factory = f.default_factory is not dataclasses.MISSING
        description = f.metadata.get("description")
        if not isinstance(description, str):
            description = docs.get(f.name)
        hint = _substitute(hints.get(f.name, Any), bindings)
        default = f.default if has_default else _NO_DEFAULT
        out.append(_Field(f.name, hint, not (has_default or has_factory), default, f.init, description))
    return out


def _qualifier(hint: Any) -> str | None:
    while True:
        origin = typing.get_origin(hint)
        if origin is typing.Annotated:
            hint = typing.get_args(hint)[0]
            continue
        name = getattr(origin, "_name", None)
        if name in ("Required", "NotRequired"):
            return name
        if name == "ReadOnly":
            hint = typing.get_args(hint)[0]
            continue
        return None


def _own_doc(cls: type) -> str | None:
    doc = cls.__dict__.get("__doc__")
    if not isinstance(doc, str):
        return None
    if _is_dataclass(cls) and doc.startswith(cls.__name__ + "("):
        return None  # the signature dataclasses writes when there is no docstring
    return doc


def _def_name(hint: Any) -> str:
    if isinstance(hint, type) or type(hint).__name__ == "TypeAliasType":
        name = hint.__name__
    else:
        parts = [_def_name(typing.get_origin(hint))]
        parts += [getattr(a, "__name__", None) or str(a) for a in typing.get_args(hint)]
        name = "_".join(parts)
    return re.sub(r"[^A-Za-z0-9_.-]", "_", name)


# --------------------------------------------------------------------------------------------------
# JSON Schema


def schema_for(hint: Any) -> dict[str, Any]:
    """The JSON Schema of a type hint (recursive types are given through ``$defs``)."""
    builder = _SchemaBuilder("validation")
    schema = builder.build(hint)
    if builder.defs:
        schema = {**schema, "$defs": builder.defs}
    return schema


_LENGTH_KEYWORDS = {
    "string": ("minLength", "maxLength"),
    "array": ("minItems", "maxItems"),
    "object": ("minProperties", "maxProperties"),
}
_BOUND_KEYWORDS = (
    ("ge", "minimum"),
    ("le", "maximum"),
    ("gt", "exclusiveMinimum"),
    ("lt", "exclusiveMaximum"),
    ("multiple_of", "multipleOf"),
)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _main_type(schema: dict[str, Any]) -> str | None:
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), None)
    if kind is None and "anyOf" in schema:
        kind = next((_main_type(s) for s in schema["anyOf"] if s.get("type") != "null"), None)
    return kind


def _apply_metadata(schema: dict[str, Any], metadata: typing.Iterable[Any]) -> dict[str, Any]:
    """Annotated[T, ...] extras: a str is a description; Field-like objects give ``description``
    and the constraints ge/le/gt/lt/multiple_of/min_length/max_length/pattern (pydantic keeps those
    in ``metadata``, annotated_types objects carry them directly)."""
    schema = dict(schema)
    pending = list(metadata)
    while pending:
        item = pending.pop(0)
        if isinstance(item, str):
            schema["description"] = item
            continue
        if isinstance(item, type):
            continue
        description = getattr(item, "description", None)
        if isinstance(description, str):
            schema["description"] = description
        for attr, keyword in _BOUND_KEYWORDS:
            value = getattr(item, attr, None)
            if _is_number(value):
                schema[keyword] = value
        low, high = _LENGTH_KEYWORDS.get(_main_type(schema) or "string", _LENGTH_KEYWORDS["string"])
        for attr, keyword in (("min_length", low), ("max_length", high)):
            value = getattr(item, attr, None)
            if isinstance(value, int) and not isinstance(value, bool):
                schema[keyword] = value
        pattern = getattr(item, "pattern", None)
        if isinstance(pattern, re.Pattern):
            pattern = pattern.pattern
        if isinstance(pattern, str):
            schema["pattern"] = pattern
        nested = getattr(item, "metadata", None)
        if isinstance(nested, (list, tuple)):
            pending[:0] = nested
    return schema


def _json_type(value: Any) -> str | None:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    return None


def _enum_schema(values: list[Any], where: Any) -> dict[str, Any]:
    kinds = []
    for value in values:
        kind = _json_type(value)
        if kind is None:
            raise SchemaError(f"{_hint_repr(where)} has a value that is not a JSON scalar: {value!r}")
        if kind not in kinds:
            kinds.append(kind)
    schema: dict[str, Any] = {"enum": values}
    if len(kinds) == 1:
        schema = {"type": kinds[0], **schema}
    return schema


def _literal_values(shape: _Shape) -> list[Any]:
    return [v.value if isinstance(v, enum.Enum) else v for v in shape.args]


class _SchemaBuilder:
    """Builds schemas, collecting the definitions of recursive types in ``defs``.

    Classes are inlined; a class that refers to itself (directly or through others) is written once
    under ``$defs`` and referenced with ``$ref``. ``mode`` is passed to pydantic ("validation" for
    inputs, "serialization" for outputs) and decides whether dataclass fields with ``init=False``
    are listed (outputs only).
    """

    def __init__(self, mode: str) -> None:
        self.mode = mode
        self.defs: dict[str, dict[str, Any]] = {}
        self._names: dict[Any, str] = {}  # key of a recursive type -> its name in defs
        self._used: set[str] = set()
        self._building: set[Any] = set()

    def build(self, hint: Any) -> dict[str, Any]:
        shape = _shape(hint)
        if shape.kind in _NAMED:
            return self._named(hint, shape)
        return getattr(self, "_" + shape.kind)(shape)

    def _named(self, hint: Any, shape: _Shape) -> dict[str, Any]:
        key = shape.key
        if key in self._names:
            return {"$ref": "#/$defs/" + self._names[key]}
        if key in self._building:  # recursion: this type goes to $defs
            self._names[key] = self._unique(_def_name(hint))
            return {"$ref": "#/$defs/" + self._names[key]}
        self._building.add(key)
        try:
            schema = getattr(self, "_" + shape.kind)(shape)
        finally:
            self._building.discard(key)
        if key in self._names:
            self.defs[self._names[key]] = schema
            return {"$ref": "#/$defs/" + self._names[key]}
        return schema

    def _unique(self, name: str) -> str:
        candidate, n = name, 1
        while candidate in self._used:
            n += 1
            candidate = f"{name}{n}"
        self._used.add(candidate)
        return candidate

    def _any(self, shape: _Shape) -> dict[str, Any]:
        return {}

    def _null(self, shape: _Shape) -> dict[str, Any]:
        return {"type": "null"}

    def _str(self, shape: _Shape) -> dict[str, Any]:
        return {"type": "string"}

    def _int(self, shape: _Shape) -> dict[str, Any]:
        return {"type": "integer"}

    def _float(self, shape: _Shape) -> dict[str, Any]:
        return {"type": "number"}

    def _bool(self, shape: _Shape) -> dict[str, Any]:
        return {"type": "boolean"}

    def _bytes(self, shape: _Shape) -> dict[str, Any]:
        return {"type": "string", "contentEncoding": "base64"}

    def _format(self, shape: _Shape) -> dict[str, Any]:
        return {"type": "string", "format": _format_tables()[0][shape.cls]}

    def _path(self, shape: _Shape) -> dict[str, Any]:
        return {"type": "string"}

    def _literal(self, shape: _Shape) -> dict[str, Any]:
        return _enum_schema(_literal_values(shape), typing.Literal[shape.args])  # type: ignore[valid-type]

    def _enum(self, shape: _Shape) -> dict[str, Any]:
        return _enum_schema([m.value for m in shape.cls], shape.cls)

    def _union(self, shape: _Shape) -> dict[str, Any]:
        branches = [self.build(arg) for arg in shape.args]
        if any(not b for b in branches):  # Any absorbs the rest
            return {}
        if all(len(b) == 1 and isinstance(b.get("type"), str) for b in branches):
            kinds: list[str] = []
            for b in branches:
                if b["type"] not in kinds:
                    kinds.append(b["type"])
            return {"type": kinds[0] if len(kinds) == 1 else kinds}
        return {"anyOf": branches}

    def _array(self, shape: _Shape) -> dict[str, Any]:
        schema: dict[str, Any] = {"type": "array"}
        items = self.build(shape.args[0])
        if items:
            schema["items"] = items
        if shape.cls in (set, frozenset):
            schema["uniqueItems"] = True
        return schema

    def _tuple(self, shape: _Shape) -> dict[str, Any]:
        if not shape.args:
            return {"type": "array", "maxItems": 0}
        n = len(shape.args)
        items = [self.build(arg) for arg in shape.args]
        return {"type": "array", "prefixItems": items, "minItems": n, "maxItems": n}

    def _object(self, shape: _Shape) -> dict[str, Any]:
        schema: dict[str, Any] = {"type": "object"}
        key_kind, key_values = _key_shape(shape.args[0])
        if key_kind == "int":
            schema["propertyNames"] = {"pattern": "^-?[0-9]+$"}
        elif key_kind == "enum":
            schema["propertyNames"] = {"enum": key_values}
        values = self.build(shape.args[1])
        if values:
            schema["additionalProperties"] = values
        return schema

    def _properties(self, fields: list[_Field]) -> dict[str, Any]:
        properties: dict[str, Any] = {}
        required = []
        for field in fields:
            prop = self.build(field.hint)
            if field.description and "description" not in prop:
                prop = {**prop, "description": field.description}
            default = _json_default(field.default)
            if default is not _NO_DEFAULT:
                prop = {**prop, "default": default}
            properties[field.name] = prop
            if field.required:
                required.append(field.name)
        schema: dict[str, Any] = {"type": "object", "properties": properties}
        if required:
            schema["required"] = required
        return schema

    def _described(self, shape: _Shape, schema: dict[str, Any]) -> dict[str, Any]:
        description = _parse_docstring(_own_doc(shape.cls)).description
        if description:
            schema = {"type": "object", "description": description, **schema}
        return schema

    def _typeddict(self, shape: _Shape) -> dict[str, Any]:
        return self._described(shape, self._properties(_fields(shape)))

    def _dataclass(self, shape: _Shape) -> dict[str, Any]:
        fields = [f for f in _fields(shape) if f.init or self.mode == "serialization"]
        return self._described(shape, self._properties(fields))

    def _annotated(self, shape: _Shape) -> dict[str, Any]:
        return _apply_metadata(self.build(shape.args[0]), shape.extra)

    def _alias(self, shape: _Shape) -> dict[str, Any]:
        return self.build(shape.cls.__value__)

    def _pydantic(self, shape: _Shape) -> dict[str, Any]:
        schema = dict(shape.cls.model_json_schema(mode=self.mode))
        defs = schema.pop("$defs", {})
        renames = {}
        for name, body in defs.items():
            if name not in self._used:
                self._used.add(name)
            elif self.defs.get(name) != body:
                renames[name] = self._unique(name)
        if renames:
            schema = _rename_refs(schema, renames)
            defs = {renames.get(name, name): _rename_refs(body, renames) for name, body in defs.items()}
        for name, body in defs.items():
            self.defs.setdefault(name, body)
        return schema


def _key_shape(hint: Any) -> tuple[str, list[Any]]:
    """Dict keys are JSON object keys: str, int (as digits), or str Literal/Enum values."""
    shape = _shape(hint)
    while shape.kind == "annotated":
        shape = _shape(shape.args[0])
    if shape.kind in ("str", "any"):
        return "str", []
    if shape.kind == "int":
        return "int", []
    if shape.kind in ("literal", "enum"):
        values = _literal_values(shape) if shape.kind == "literal" else [m.value for m in shape.cls]
        if all(isinstance(v, str) for v in values):
            return "enum", values
    raise SchemaError(f"dict keys must be str, int or a str Literal/Enum, not {_hint_repr(hint)}")


def _rename_refs(node: Any, renames: dict[str, str]) -> Any:
    if isinstance(node, dict):
        out = {}
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str) and value.startswith("#/$defs/"):
                value = "#/$defs/" + renames.get(value[8:], value[8:])
            out[key] = _rename_refs(value, renames)
        return out
    if isinstance(node, list):
        return [_rename_refs(v, renames) for v in node]
    return node


def _json_default(value: Any) -> Any:
    """A default as JSON, or _NO_DEFAULT when it has no JSON form (it is then left out)."""
    if value is _NO_DEFAULT or value is inspect.Parameter.empty:
        return _NO_DEFAULT
    try:
        return _to_json(value)
    except _Invalid:
        return _NO_DEFAULT


# --------------------------------------------------------------------------------------------------
# Converters: JSON -> Python (load) and Python -> JSON (dump), compiled once per hint.


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


def _identity(value: Any) -> Any:
    return value


_Convert = Callable[[Any], Any]


def _parse_datetime(text: str) -> dt.datetime:
    # Python 3.10's fromisoformat rejects the "Z" suffix that JSON producers favour.
    if text[-1:] in ("Z", "z"):
        text = text[:-1] + "+00:00"
    import datetime as dt  # loaded: a datetime hint is why this parser exists

    return dt.datetime.fromisoformat(text)


def _parse_time(text: str) -> dt.time:
    if text[-1:] in ("Z", "z"):
        text = text[:-1] + "+00:00"
    import datetime as dt

    return dt.time.fromisoformat(text)


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


def _to_json_or_repr(value: Any) -> Any:
    try:
        return _to_json(value)
    except _Invalid:
        return repr(value)


# --------------------------------------------------------------------------------------------------
# Docstrings: Google ("Args:"), NumPy ("Parameters" + dashes) and Sphinx (":param x:") styles.

# Section name -> whether its entries document parameters (or dataclass/TypedDict attributes).
_SECTIONS = {
    "args": True,
    "arguments": True,
    "parameters": True,
    "params": True,
    "keyword args": True,
    "keyword arguments": True,
    "other parameters": True,
    "attributes": True,
    "returns": False,
    "return": False,
    "yields": False,
    "yield": False,
    "raises": False,
    "raise": False,
}
_GOOGLE_HEADER = re.compile(r"([A-Za-z][A-Za-z ]*?)\s*:")
_GOOGLE_ENTRY = re.compile(r"\*{0,2}([A-Za-z_]\w*)\s*(?:\([^)]*\))?\s*:(.*)")
_NUMPY_RULE = re.compile(r"-{3,}")
_NUMPY_ENTRY = re.compile(r"(\*{0,2}[A-Za-z_]\w*(?:\s*,\s*\*{0,2}[A-Za-z_]\w*)*)\s*(?::.*)?")
_SPHINX_FIELD = re.compile(
    r":(param|parameter|arg|argument|key|keyword|var|ivar|cvar|type|vartype|returns?|rtype|"
    r"raises?|except|exception|yields?|ytype)\b([^:]*):(.*)"
)
_SPHINX_PARAMS = frozenset({"param", "parameter", "arg", "argument", "key", "keyword", "var", "ivar", "cvar"})


class _Docstring(NamedTuple):
    description: str
    params: dict[str, str]


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _join(lines: list[str]) -> str:
    """Entry text: wrapped lines joined with spaces, paragraphs with a blank line."""
    paragraphs, current = [], []
    for line in lines:
        if line:
            current.append(line)
        elif current:
            paragraphs.append(" ".join(current))
            current = []
    if current:
        paragraphs.append(" ".join(current))
    return "\n\n".join(paragraphs)


def _parse_docstring(doc: str | None) -> _Docstring:
    """The description (the text before the first Args/Returns/Raises-like section) and the
    parameter descriptions of a docstring."""
    if not doc:
        return _Docstring("", {})
    lines = inspect.cleandoc(doc).splitlines()
    params: dict[str, str] = {}
    end = len(lines)
    i = 0
    while i < len(lines):
        stripped = lines[i].strip()
        header = _GOOGLE_HEADER.fullmatch(stripped)
        if header and header.group(1).lower() in _SECTIONS:
            end = min(end, i)
            i = _google_section(lines, i, params if _SECTIONS[header.group(1).lower()] else None)
        elif stripped.lower() in _SECTIONS and i + 1 < len(lines) and _NUMPY_RULE.fullmatch(lines[i + 1].strip()):
            end = min(end, i)
            i = _numpy_section(lines, i, params if _SECTIONS[stripped.lower()] else None)
        elif _SPHINX_FIELD.match(stripped):
            end = min(end, i)
            i = _sphinx_field(lines, i, params)
        else:
            i += 1
    description = "\n".join(line.rstrip() for line in lines[:end]).strip()
    return _Docstring(description, params)


def _google_section(lines: list[str], start: int, params: dict[str, str] | None) -> int:
    header_indent = _indent(lines[start])
    entry_indent = None
    name, text = None, []
    i = start + 1
    while i < len(lines):
        line = lines[i]
        if line.strip() and _indent(line) <= header_indent:
            break
        i += 1
        if not line.strip():
            if name is not None:
                text.append("")
            continue
        if entry_indent is None:
            entry_indent = _indent(line)
        entry = _GOOGLE_ENTRY.fullmatch(line.strip()) if _indent(line) <= entry_indent else None
        if entry:
            if name is not None and params is not None:
                params[name] = _join(text)
            name, text = entry.group(1), [entry.group(2).strip()]
        elif name is not None:
            text.append(line.strip())
    if name is not None and params is not None:
        params[name] = _join(text)
    return i


def _numpy_section(lines: list[str], start: int, params: dict[str, str] | None) -> int:
    base = _indent(lines[start])
    names: list[str] = []
    text: list[str] = []
    i = start + 2
    while i < len(lines):
        line = lines[i]
        if line.strip() and i + 1 < len(lines) and _NUMPY_RULE.fullmatch(lines[i + 1].strip()):
            break  # the next section
        i += 1
        if not line.strip():
            if names:
                text.append("")
            continue
        entry = _NUMPY_ENTRY.fullmatch(line.strip()) if _indent(line) <= base else None
        if entry:
            if params is not None:
                params.update(dict.fromkeys(names, _join(text)))
            names = [n.strip().lstrip("*") for n in entry.group(1).split(",")]
            text = []
        elif names:
            text.append(line.strip())
    if params is not None:
        params.update(dict.fromkeys(names, _join(text)))
    return i


def _sphinx_field(lines: list[str], start: int, params: dict[str, str]) -> int:
    field = _SPHINX_FIELD.match(lines[start].strip())
    assert field is not None
    indent = _indent(lines[start])
    text = [field.group(3).strip()]
    i = start + 1
    while i < len(lines) and lines[i].strip() and _indent(lines[i]) > indent:
        text.append(lines[i].strip())
        i += 1
    words = field.group(2).split()
    if field.group(1) in _SPHINX_PARAMS and words:
        params[words[-1].lstrip("*")] = _join(text)
    return i


# --------------------------------------------------------------------------------------------------
# Tool signatures


class _Factory(NamedTuple):
    """A default computed per call (pydantic ``Field(default_factory=...)``)."""

    make: Callable[[], Any]


class _Param(NamedTuple):
    name: str
    load: _Convert
    default: Any  # _NO_DEFAULT when required
    none_ok: bool  # the default is None, so null is accepted whatever the hint says


def _callable_target(fn: Any) -> Any:
    """The object whose annotations, globals and docstring describe ``fn``."""
    while isinstance(fn, functools.partial):
        fn = fn.func
    if inspect.isfunction(fn) or inspect.ismethod(fn) or inspect.isbuiltin(fn):
        return fn
    if isinstance(fn, type):
        return fn.__init__
    return type(fn).__call__ if callable(fn) else fn


def _is_hypermcp_class(cls: type) -> bool:
    module = getattr(cls, "__module__", None) or ""
    return module == "hypermcp" or module.startswith("hypermcp.")


def _context_class(hint: Any) -> type | None:
    """The class of a hint that is C, Optional[C] or Annotated[C, ...]; else None."""
    origin = typing.get_origin(hint)
    if origin is typing.Annotated:
        return _context_class(typing.get_args(hint)[0])
    if origin in _UNION_ORIGINS:
        args = [a for a in typing.get_args(hint) if a is not _NONE_TYPE]
        return _context_class(args[0]) if len(args) == 1 else None
    return hint if isinstance(hint, type) else None


def _is_context(hint: Any, context_type: Any) -> bool:
    cls = _context_class(hint)
    if cls is None:
        return False
    if context_type is not None:
        try:
            return issubclass(cls, context_type)
        except TypeError:
            return False
    return any(k.__name__ == "Context" and _is_hypermcp_class(k) for k in cls.__mro__)


def _mentions_hypermcp(hint: Any) -> bool:
    """Whether a hint involves hypermcp's own classes (content blocks, results...), which the server
    turns into content itself rather than into structured output."""
    if isinstance(hint, type) and _is_hypermcp_class(hint):
        return True
    return any(_mentions_hypermcp(arg) for arg in typing.get_args(hint) if not isinstance(arg, str))


def _resolve_hints(fn: Any, qualname: str, context_type: Any) -> dict[str, Any]:
    target = _callable_target(fn)
    try:
        return typing.get_type_hints(target, include_extras=True)
    except NameError as exc:
        # `from __future__ import annotations` plus `if TYPE_CHECKING: from hypermcp import Context`
        # is common (linters suggest it): the context class can still be named here.
        names = {}
        hypermcp = sys.modules.get("hypermcp")
        if getattr(hypermcp, "Context", None) is not None:
            names["Context"] = hypermcp.Context  # type: ignore[union-attr]
        if isinstance(context_type, type):
            names[context_type.__name__] = context_type
        if getattr(exc, "name", None) in names:
            try:
                return typing.get_type_hints(target, localns=names, include_extras=True)
            except Exception as retry:
                raise SchemaError(f"cannot resolve the type hints of {qualname}: {retry}") from retry
        raise SchemaError(f"cannot resolve the type hints of {qualname}: {exc}") from exc
    except Exception as exc:
        raise SchemaError(f"cannot resolve the type hints of {qualname}: {exc}") from exc


def _resolve_root(schema: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    """A root that is only a $ref to a definition, replaced by that definition (MCP wants an
    object schema at the top of outputSchema)."""
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/") and ref[8:] in defs:
        rest = {k: v for k, v in schema.items() if k != "$ref"}
        return {**defs[ref[8:]], **rest}
    return schema


def _unwrap_annotated(hint: Any) -> Any:
    while typing.get_origin(hint) is typing.Annotated:
        hint = typing.get_args(hint)[0]
    return hint


class ToolSignature:
    """MCP tool metadata read from a function, and the conversions a call needs.

    Attributes:
        name: The function's ``__name__``.
        description: The docstring's text before its first Args/Returns/Raises section, or None.
        input_schema: JSON Schema of the arguments (an object schema).
        output_schema: JSON Schema of ``structuredContent`` when the return annotation is
            structured, else None.
        context_param: Name of the parameter that receives the request context, or None.
        wraps_output: Whether structured output is ``{"result": value}`` (the return type is not
            an object).
    """

    __slots__ = (
        "_dump",
        "_params",
        "_return_hint",
        "context_param",
        "description",
        "input_schema",
        "name",
        "output_schema",
        "wraps_output",
    )

    def __init__(
        self,
        name: str,
        description: str | None,
        input_schema: dict[str, Any],
        output_schema: dict[str, Any] | None,
        context_param: str | None,
        wraps_output: bool,
        params: list[_Param],
        dump: _Convert | None,
        return_hint: Any,
    ) -> None:
        self.name = name
        self.description = description
        self.input_schema = input_schema
        self.output_schema = output_schema
        self.context_param = context_param
        self.wraps_output = wraps_output
        self._params = params
        self._dump = dump
        self._return_hint = return_hint

    def __repr__(self) -> str:
        return f"<ToolSignature {self.name}>"

    @classmethod
    def from_function(cls, fn: Callable[..., Any], *, context_type: Any = None) -> ToolSignature:
        """Reads ``fn``'s signature, type hints and docstring.

        ``context_type`` is the class of the context parameter; when None, a parameter annotated
        with hypermcp's ``Context`` (or ``Context | None``) is the context parameter.

        Raises:
            SchemaError: ``*args``/``**kwargs``, positional-only parameters, or a parameter whose
                type hint has no JSON Schema.
        """
        inner = fn
        while isinstance(inner, functools.partial):
            inner = inner.func
        name = getattr(inner, "__name__", None) or type(inner).__name__  # a callable object: its class
        qualname = getattr(inner, "__qualname__", None) or name
        try:
            signature = inspect.signature(fn)
        except (TypeError, ValueError) as exc:
            raise SchemaError(f"cannot read the signature of {qualname}: {exc}") from exc
        hints = _resolve_hints(fn, qualname, context_type)
        target = _callable_target(inner)
        doc = getattr(target, "__doc__", None)
        if not doc and target is not inner and not isinstance(inner, type):
            doc = type(inner).__doc__  # a callable object documented on its class
        docs = _parse_docstring(doc)

        inputs = _SchemaBuilder("validation")
        converters = _Converters()
        properties: dict[str, Any] = {}
        required: list[str] = []
        params: list[_Param] = []
        context_param = None
        for p in signature.parameters.values():
            if p.kind is p.VAR_POSITIONAL or p.kind is p.VAR_KEYWORD:
                stars = "*" if p.kind is p.VAR_POSITIONAL else "**"
                raise SchemaError(
                    f"{qualname}: {stars}{p.name} is not supported in a tool; declare each argument "
                    "as a named parameter (or take one dict/dataclass parameter)"
                )
            hint = hints.get(p.name, Any)
            if _is_context(hint, context_type):
                if context_param is not None:
                    raise SchemaError(f"{qualname}: two context parameters, {context_param!r} and {p.name!r}")
                context_param = p.name
                continue
            if p.kind is p.POSITIONAL_ONLY:
                raise SchemaError(
                    f"{qualname}: parameter {p.name!r} is positional-only, but tool arguments are passed by name"
                )
            default, field = p.default, None
            if _is_pydantic_field(default):  # def f(x: int = Field(3, description=...))
                field = default
                default = _pydantic_field_default(field)
            try:
                schema = inputs.build(hint)
                load = converters.loader(hint)
            except SchemaError as exc:
                raise SchemaError(
                    f"{qualname}: parameter {p.name!r} has a type hint with no JSON Schema, {_hint_repr(hint)}: {exc}"
                ) from None
            if field is not None:
                schema = _apply_metadata(schema, (field,))
            if "description" not in schema and docs.params.get(p.name):
                schema = {**schema, "description": docs.params[p.name]}
            if default is inspect.Parameter.empty:
                required.append(p.name)
                default = _NO_DEFAULT
            else:
                json_default = _json_default(default) if not isinstance(default, _Factory) else _NO_DEFAULT
                if json_default is not _NO_DEFAULT:
                    schema = {**schema, "default": json_default}
            properties[p.name] = schema
            params.append(_Param(p.name, load, default, default is None))

        input_schema: dict[str, Any] = {"type": "object", "properties": properties}
        if required:
            input_schema["required"] = required
        if inputs.defs:
            input_schema["$defs"] = inputs.defs

        output_schema, wraps_output, dump = None, False, None
        return_hint = hints.get("return", inspect.Parameter.empty)
        if _is_structured(return_hint):
            outputs = _SchemaBuilder("serialization")
            try:
                root = outputs.build(return_hint)
                dump = converters.dumper(return_hint)
            except SchemaError:
                dump = None  # not JSON-shaped: the result is rendered as text (as the official SDKs do)
            else:
                root = _resolve_root(root, outputs.defs)
                wraps_output = root.get("type") != "object"
                if wraps_output:
                    output_schema = {"type": "object", "properties": {"result": root}, "required": ["result"]}
                else:
                    output_schema = dict(root)
                if outputs.defs:
                    output_schema["$defs"] = outputs.defs

        return cls(
            name,
            docs.description or None,
            input_schema,
            output_schema,
            context_param,
            wraps_output,
            params,
            dump,
            return_hint,
        )

    def bind(self, arguments: dict[str, Any] | None) -> dict[str, Any]:
        """Converts a call's JSON arguments into keyword arguments for the function.

        Every parameter except the context one is in the result (defaults filled in); arguments
        the function does not declare are ignored. The caller adds the context parameter.

        Raises:
            ArgumentError: A required argument is missing or a value does not convert.
        """
        if arguments is None:
            arguments = {}
        elif not isinstance(arguments, dict):
            raise ArgumentError(f"tool arguments must be an object, got {_kind_of(arguments)}")
        bound: dict[str, Any] = {}
        missing = []
        for name, load, default, none_ok in self._params:
            if name in arguments:
                value = arguments[name]
                if value is None and none_ok:
                    bound[name] = None
                    continue
                try:
                    bound[name] = load(value)
                except _Invalid as exc:
                    raise ArgumentError(f"invalid argument {exc.where(name)!r}: {exc.reason}") from None
            elif default is _NO_DEFAULT:
                missing.append(name)
            elif isinstance(default, _Factory):
                bound[name] = default.make()
            else:
                bound[name] = default
        if missing:
            names = ", ".join(repr(name) for name in missing)
            raise ArgumentError(f"missing required argument{'s' if len(missing) > 1 else ''} {names}")
        return bound

    def dump_result(self, value: Any) -> tuple[dict[str, Any] | None, str]:
        """Converts a return value into ``(structured_content, text)``.

        With a structured return annotation, ``structured_content`` is the JSON form of the value
        (``{"result": ...}`` when ``wraps_output``) and ``text`` is its JSON text. Otherwise
        ``structured_content`` is None and ``text`` is the string returned, the JSON text of the
        value, or its ``str()`` when it has no JSON form ("" for None).

        Raises:
            ResultError: The value does not match the return annotation.
        """
        if self._dump is None or self.output_schema is None:  # also when a caller cleared output_schema
            if isinstance(value, str):
                return None, value
            if value is None:
                return None, ""
            try:
                return None, json.dumps(_to_json(value), ensure_ascii=False)
            except _Invalid:
                return None, str(value)
        try:
            structured = self._dump(value)
        except _Invalid as exc:
            where = exc.where("result")
            raise ResultError(
                f"{self.name} returned a value that does not match its return annotation "
                f"{_hint_repr(self._return_hint)}: {where}: {exc.reason}"
            ) from None
        if self.wraps_output:
            structured = {"result": structured}
        return structured, json.dumps(structured, ensure_ascii=False)


def _is_structured(hint: Any) -> bool:
    """Return annotations that give structured output: all but none, ``str``, ``Any`` and
    hypermcp's own content classes."""
    if hint is inspect.Parameter.empty:
        return False
    bare = _unwrap_annotated(hint)
    if bare is str or bare is Any or bare is object:
        return False
    return not _mentions_hypermcp(bare)


def _pydantic_field_default(field: Any) -> Any:
    default = field.default
    if type(default).__name__ != "PydanticUndefinedType":
        return default
    factory = getattr(field, "default_factory", None)
    return _Factory(factory) if callable(factory) else inspect.Parameter.empty

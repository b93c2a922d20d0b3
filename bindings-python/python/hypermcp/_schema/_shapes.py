"""Type hints, classified once into shapes that the schema builder and the converters share.

``_shape(hint)`` says what a hint is (``_Shape.kind``: "int", "array", "union", "dataclass"...);
``_fields`` lists the fields of a dataclass or TypedDict. Also here: what the other modules ask of a
hint (its repr in messages, its name in ``$defs``, its Literal values, what its dict keys may be)
and the string formats (datetime, date, time, UUID) with their parsers.
"""

from __future__ import annotations

import enum
import functools
import inspect
import re
import sys
import types
import typing
from collections import abc
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NamedTuple

from ._docstrings import _parse_docstring
from ._errors import SchemaError

if TYPE_CHECKING:
    import datetime as dt

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


def _literal_values(shape: _Shape) -> list[Any]:
    return [v.value if isinstance(v, enum.Enum) else v for v in shape.args]


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

"""JSON Schema from type hints.

``schema_for(hint)`` is the public entry point; ``_SchemaBuilder`` does the work, collecting the
definitions of recursive types in ``$defs`` (``ToolSignature`` uses one builder per schema).
``_apply_metadata`` reads ``Annotated`` extras (descriptions and constraints).
"""

from __future__ import annotations

import re
import typing
from typing import Any

from ._docstrings import _parse_docstring
from ._errors import SchemaError
from ._shapes import (
    _NAMED,
    _NO_DEFAULT,
    _def_name,
    _Field,
    _fields,
    _format_tables,
    _hint_repr,
    _key_shape,
    _literal_values,
    _own_doc,
    _Shape,
    _shape,
)
from ._to_json import _json_default


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

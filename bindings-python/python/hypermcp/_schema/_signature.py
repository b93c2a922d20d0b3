"""Tool signatures: ``ToolSignature.from_function(fn)`` and what it needs.

It reads the type hints and the docstring of ``fn`` once, when the tool is defined, and compiles
them into an input schema, an output schema, a ``bind`` function that turns JSON arguments into the
Python values the function expects, and a ``dump_result`` function that turns the return value back
into JSON. Also here: finding the context parameter, and which return annotations give structured
output.
"""

from __future__ import annotations

import functools
import inspect
import json
import sys
import typing
from collections.abc import Callable
from typing import Any, NamedTuple

from ._builder import _apply_metadata, _SchemaBuilder
from ._convert import _Convert, _Converters
from ._docstrings import _parse_docstring
from ._errors import ArgumentError, ResultError, SchemaError, _Invalid, _kind_of
from ._shapes import _NO_DEFAULT, _NONE_TYPE, _UNION_ORIGINS, _hint_repr, _is_pydantic_field
from ._to_json import _json_default, _to_json


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

"""hypermcp._schema: JSON Schemas from type hints, docstrings, argument binding and result dumping."""

import dataclasses
import datetime as dt
import enum
import json
import math
import subprocess
import sys
import textwrap
import types
import typing
import uuid
from collections.abc import Mapping, Sequence
from pathlib import Path, PurePosixPath
from typing import Annotated, Any, Literal, NewType, Optional, TypedDict, TypeVar, Union

import pytest

from hypermcp._schema import ArgumentError, ResultError, SchemaError, ToolSignature, schema_for

Required = getattr(typing, "Required", None)
NotRequired = getattr(typing, "NotRequired", None)
needs_required = pytest.mark.skipif(Required is None, reason="typing.Required is Python 3.11+")


# --------------------------------------------------------------------------------------------------
# Types used by the tests (module level, so that string annotations resolve).


class Color(enum.Enum):
    RED = "red"
    GREEN = "green"


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 2


class Mixed(enum.Enum):
    A = 1
    B = "b"


@dataclasses.dataclass
class Point:
    x: int
    y: int = 0


@dataclasses.dataclass
class Shape:
    """A shape on the canvas.

    Attributes:
        name: What to call it.
        points: Its corners.
    """

    name: str
    points: list[Point]
    color: Color = Color.RED
    tags: list[str] = dataclasses.field(default_factory=list)
    area: Annotated[float, "Square units"] = 0.0
    note: str = dataclasses.field(default="", metadata={"description": "Free text"})
    computed: int = dataclasses.field(default=0, init=False)


@dataclasses.dataclass
class Positive:
    value: int

    def __post_init__(self) -> None:
        if self.value <= 0:
            raise ValueError("value must be positive")


@dataclasses.dataclass
class Node:
    value: int
    children: list["Node"] = dataclasses.field(default_factory=list)


@dataclasses.dataclass
class Person:
    name: str
    employer: "Company | None" = None


@dataclasses.dataclass
class Company:
    name: str
    staff: list[Person] = dataclasses.field(default_factory=list)


T = TypeVar("T")


@dataclasses.dataclass
class Page(typing.Generic[T]):
    items: list[T]
    next: str | None = None


class Movie(TypedDict):
    title: str
    year: int


class MovieDraft(TypedDict, total=False):
    """A movie being written."""

    title: str
    year: int


class Tree(TypedDict):
    label: str
    kids: list["Tree"]


class Opaque:
    """No schema for this one."""


class FieldLike:
    """Stands for pydantic.Field / annotated_types objects: only attributes matter."""

    def __init__(self, **attrs: Any) -> None:
        self.__dict__.update(attrs)


OPAQUE = Opaque()
UserId = NewType("UserId", int)
Bounded = TypeVar("Bounded", bound=str)
Constrained = TypeVar("Constrained", int, str)


def load_module(name: str, source: str) -> types.ModuleType:
    """A module made from source, registered so that its classes' string hints resolve."""
    module = types.ModuleType(name)
    sys.modules[name] = module
    exec(compile(textwrap.dedent(source), f"<{name}>", "exec"), module.__dict__)
    return module


@pytest.fixture
def fresh_module():
    names = []

    def make(name: str, source: str) -> types.ModuleType:
        names.append(name)
        return load_module(name, source)

    yield make
    for name in names:
        sys.modules.pop(name, None)


def sig(fn, **kw) -> ToolSignature:
    return ToolSignature.from_function(fn, **kw)


# --------------------------------------------------------------------------------------------------
# Import hygiene


def test_import_loads_only_the_standard_library():
    code = textwrap.dedent(
        """
        import sys
        before = set(sys.modules)
        import hypermcp._schema
        new = {name.split(".")[0] for name in set(sys.modules) - before}
        print(sorted(n for n in new if n != "hypermcp" and n not in sys.stdlib_module_names))
        print("pydantic" in sys.modules)
        """
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=None)
    assert out.stdout.split("\n")[:2] == ["[]", "False"], out.stderr


# --------------------------------------------------------------------------------------------------
# schema_for: scalars and containers


@pytest.mark.parametrize(
    ("hint", "expected"),
    [
        (str, {"type": "string"}),
        (int, {"type": "integer"}),
        (float, {"type": "number"}),
        (bool, {"type": "boolean"}),
        (None, {"type": "null"}),
        (type(None), {"type": "null"}),
        (bytes, {"type": "string", "contentEncoding": "base64"}),
        (bytearray, {"type": "string", "contentEncoding": "base64"}),
        (Any, {}),
        (object, {}),
        (dt.datetime, {"type": "string", "format": "date-time"}),
        (dt.date, {"type": "string", "format": "date"}),
        (dt.time, {"type": "string", "format": "time"}),
        (uuid.UUID, {"type": "string", "format": "uuid"}),
        (Path, {"type": "string"}),
        (PurePosixPath, {"type": "string"}),
        (UserId, {"type": "integer"}),
        (Bounded, {"type": "string"}),
        (Constrained, {"type": ["integer", "string"]}),
        (T, {}),
    ],
    ids=repr,
)
def test_scalars(hint, expected):
    assert schema_for(hint) == expected


@pytest.mark.parametrize(
    ("hint", "expected"),
    [
        (list[int], {"type": "array", "items": {"type": "integer"}}),
        (list[str], {"type": "array", "items": {"type": "string"}}),
        (Sequence[float], {"type": "array", "items": {"type": "number"}}),
        (typing.Sequence[bool], {"type": "array", "items": {"type": "boolean"}}),
        (list, {"type": "array"}),
        (list, {"type": "array"}),
        (list[Any], {"type": "array"}),
        (set[str], {"type": "array", "items": {"type": "string"}, "uniqueItems": True}),
        (frozenset[int], {"type": "array", "items": {"type": "integer"}, "uniqueItems": True}),
        (set[int], {"type": "array", "items": {"type": "integer"}, "uniqueItems": True}),
        (frozenset[str], {"type": "array", "items": {"type": "string"}, "uniqueItems": True}),
        (tuple[int, ...], {"type": "array", "items": {"type": "integer"}}),
        (tuple[str, ...], {"type": "array", "items": {"type": "string"}}),
        (tuple, {"type": "array"}),
        (
            tuple[int, str],
            {"type": "array", "prefixItems": [{"type": "integer"}, {"type": "string"}], "minItems": 2, "maxItems": 2},
        ),
        (tuple[float], {"type": "array", "prefixItems": [{"type": "number"}], "minItems": 1, "maxItems": 1}),
        (tuple[()], {"type": "array", "maxItems": 0}),
        (dict[str, int], {"type": "object", "additionalProperties": {"type": "integer"}}),
        (
            dict[str, list[str]],
            {"type": "object", "additionalProperties": {"type": "array", "items": {"type": "string"}}},
        ),
        (Mapping[str, float], {"type": "object", "additionalProperties": {"type": "number"}}),
        (dict, {"type": "object"}),
        (dict[str, Any], {"type": "object"}),
        (
            dict[int, str],
            {"type": "object", "propertyNames": {"pattern": "^-?[0-9]+$"}, "additionalProperties": {"type": "string"}},
        ),
        (
            dict[Color, int],
            {
                "type": "object",
                "propertyNames": {"enum": ["red", "green"]},
                "additionalProperties": {"type": "integer"},
            },
        ),
        (
            dict[Literal["a", "b"], bool],
            {"type": "object", "propertyNames": {"enum": ["a", "b"]}, "additionalProperties": {"type": "boolean"}},
        ),
        (
            list[dict[str, tuple[int, int]]],
            {
                "type": "array",
                "items": {
                    "type": "object",
                    "additionalProperties": {
                        "type": "array",
                        "prefixItems": [{"type": "integer"}, {"type": "integer"}],
                        "minItems": 2,
                        "maxItems": 2,
                    },
                },
            },
        ),
    ],
    ids=repr,
)
def test_containers(hint, expected):
    assert schema_for(hint) == expected


# --------------------------------------------------------------------------------------------------
# schema_for: Literal, Enum, unions


@pytest.mark.parametrize(
    ("hint", "expected"),
    [
        (Literal["a", "b"], {"type": "string", "enum": ["a", "b"]}),
        (Literal[1, 2, 3], {"type": "integer", "enum": [1, 2, 3]}),
        (Literal[True], {"type": "boolean", "enum": [True]}),
        (Literal["x"], {"type": "string", "enum": ["x"]}),
        (Literal["a", 1], {"enum": ["a", 1]}),
        (Literal["a", None], {"enum": ["a", None]}),
        (Literal[Color.RED], {"type": "string", "enum": ["red"]}),
        (Color, {"type": "string", "enum": ["red", "green"]}),
        (Level, {"type": "integer", "enum": [1, 2]}),
        (Mixed, {"enum": [1, "b"]}),
    ],
    ids=repr,
)
def test_literals_and_enums(hint, expected):
    assert schema_for(hint) == expected


@pytest.mark.parametrize(
    ("hint", "expected"),
    [
        (Optional[int], {"type": ["integer", "null"]}),  # noqa: UP045
        (int | None, {"type": ["integer", "null"]}),
        (Union[int, str], {"type": ["integer", "string"]}),  # noqa: UP007
        (str | int | None, {"type": ["string", "integer", "null"]}),
        (int | Any, {}),
        (
            list[int] | None,
            {"anyOf": [{"type": "array", "items": {"type": "integer"}}, {"type": "null"}]},
        ),
        (
            dt.date | None,
            {"anyOf": [{"type": "string", "format": "date"}, {"type": "null"}]},
        ),
        (
            Literal["a"] | int,
            {"anyOf": [{"type": "string", "enum": ["a"]}, {"type": "integer"}]},
        ),
        (
            Point | None,
            {
                "anyOf": [
                    {
                        "type": "object",
                        "properties": {"x": {"type": "integer"}, "y": {"type": "integer", "default": 0}},
                        "required": ["x"],
                    },
                    {"type": "null"},
                ]
            },
        ),
    ],
    ids=repr,
)
def test_unions(hint, expected):
    assert schema_for(hint) == expected


# --------------------------------------------------------------------------------------------------
# schema_for: TypedDict and dataclasses


def test_typeddict():
    assert schema_for(Movie) == {
        "type": "object",
        "properties": {"title": {"type": "string"}, "year": {"type": "integer"}},
        "required": ["title", "year"],
    }


def test_typeddict_total_false_and_docstring():
    assert schema_for(MovieDraft) == {
        "type": "object",
        "description": "A movie being written.",
        "properties": {"title": {"type": "string"}, "year": {"type": "integer"}},
    }


@needs_required
def test_typeddict_required_and_not_required():
    class Partial(TypedDict, total=False):
        id: Required[int]
        name: str

    class Full(TypedDict):
        id: int
        name: NotRequired[Annotated[str, "Display name"]]

    assert schema_for(Partial) == {
        "type": "object",
        "properties": {"id": {"type": "integer"}, "name": {"type": "string"}},
        "required": ["id"],
    }
    assert schema_for(Full) == {
        "type": "object",
        "properties": {"id": {"type": "integer"}, "name": {"type": "string", "description": "Display name"}},
        "required": ["id"],
    }


def test_dataclass():
    assert schema_for(Point) == {
        "type": "object",
        "properties": {"x": {"type": "integer"}, "y": {"type": "integer", "default": 0}},
        "required": ["x"],
    }


def test_dataclass_defaults_descriptions_and_nesting():
    point = {
        "type": "object",
        "properties": {"x": {"type": "integer"}, "y": {"type": "integer", "default": 0}},
        "required": ["x"],
    }
    assert schema_for(Shape) == {
        "type": "object",
        "description": "A shape on the canvas.",
        "properties": {
            "name": {"type": "string", "description": "What to call it."},
            "points": {"type": "array", "items": point, "description": "Its corners."},
            "color": {"type": "string", "enum": ["red", "green"], "default": "red"},
            "tags": {"type": "array", "items": {"type": "string"}},  # a default_factory is not recorded
            "area": {"type": "number", "description": "Square units", "default": 0.0},
            "note": {"type": "string", "description": "Free text", "default": ""},
            # init=False: not an input
        },
        "required": ["name", "points"],
    }


def test_dataclass_default_without_json_form_is_left_out():
    sentinel = Opaque()

    @dataclasses.dataclass
    class WithSentinel:
        marker: Any = sentinel

    assert schema_for(WithSentinel) == {"type": "object", "properties": {"marker": {}}}


def test_generic_dataclass():
    assert schema_for(Page[Point]) == {
        "type": "object",
        "properties": {
            "items": {"type": "array", "items": schema_for(Point)},
            "next": {"type": ["string", "null"], "default": None},
        },
        "required": ["items"],
    }


# --------------------------------------------------------------------------------------------------
# schema_for: recursion


def test_recursive_dataclass_uses_defs():
    node = {
        "type": "object",
        "properties": {
            "value": {"type": "integer"},
            "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}},
        },
        "required": ["value"],
    }
    assert schema_for(Node) == {"$ref": "#/$defs/Node", "$defs": {"Node": node}}
    assert schema_for(list[Node]) == {"type": "array", "items": {"$ref": "#/$defs/Node"}, "$defs": {"Node": node}}


def test_mutually_recursive_dataclasses():
    assert schema_for(Person) == {
        "$ref": "#/$defs/Person",
        "$defs": {
            "Person": {
                "type": "object",
                "properties": {
                    "name": {"type": "string"},
                    "employer": {
                        "anyOf": [
                            {
                                "type": "object",
                                "properties": {
                                    "name": {"type": "string"},
                                    "staff": {"type": "array", "items": {"$ref": "#/$defs/Person"}},
                                },
                                "required": ["name"],
                            },
                            {"type": "null"},
                        ],
                        "default": None,
                    },
                },
                "required": ["name"],
            }
        },
    }


def test_recursive_typeddict():
    assert schema_for(Tree) == {
        "$ref": "#/$defs/Tree",
        "$defs": {
            "Tree": {
                "type": "object",
                "properties": {
                    "label": {"type": "string"},
                    "kids": {"type": "array", "items": {"$ref": "#/$defs/Tree"}},
                },
                "required": ["label", "kids"],
            }
        },
    }


def test_def_names_do_not_collide(fresh_module):
    other = fresh_module(
        "schema_other_nodes",
        """
        from __future__ import annotations
        import dataclasses

        @dataclasses.dataclass
        class Node:
            name: str
            next: Node | None = None
        """,
    )

    def walk(a: Node, b: other.Node) -> None: ...

    schema = sig(walk).input_schema
    assert schema["properties"] == {"a": {"$ref": "#/$defs/Node"}, "b": {"$ref": "#/$defs/Node2"}}
    assert set(schema["$defs"]) == {"Node", "Node2"}
    assert schema["$defs"]["Node2"]["properties"]["next"] == {
        "anyOf": [{"$ref": "#/$defs/Node2"}, {"type": "null"}],
        "default": None,
    }


def test_type_alias():
    typing_extensions = pytest.importorskip("typing_extensions")
    if not hasattr(typing_extensions, "TypeAliasType"):
        pytest.skip("typing_extensions has no TypeAliasType")
    Pair = typing_extensions.TypeAliasType("Pair", tuple[int, int])
    assert schema_for(list[Pair]) == {
        "type": "array",
        "items": {
            "type": "array",
            "prefixItems": [{"type": "integer"}, {"type": "integer"}],
            "minItems": 2,
            "maxItems": 2,
        },
    }


@pytest.mark.skipif(sys.version_info < (3, 12), reason="the type statement is Python 3.12+")
def test_recursive_type_statement(fresh_module):
    module = fresh_module(
        "schema_type_statement", "type Json = str | float | bool | None | list[Json] | dict[str, Json]\n"
    )
    assert schema_for(module.Json) == {
        "$ref": "#/$defs/Json",
        "$defs": {
            "Json": {
                "anyOf": [
                    {"type": "string"},
                    {"type": "number"},
                    {"type": "boolean"},
                    {"type": "null"},
                    {"type": "array", "items": {"$ref": "#/$defs/Json"}},
                    {"type": "object", "additionalProperties": {"$ref": "#/$defs/Json"}},
                ]
            }
        },
    }

    def f(value: module.Json) -> module.Json: ...

    s = sig(f)
    assert s.bind({"value": [1, {"a": None}]}) == {"value": [1.0, {"a": None}]}
    assert s.dump_result({"a": [True]}) == ({"result": {"a": [True]}}, '{"result": {"a": [true]}}')


# --------------------------------------------------------------------------------------------------
# schema_for: Annotated


@pytest.mark.parametrize(
    ("hint", "expected"),
    [
        (Annotated[str, "The city"], {"type": "string", "description": "The city"}),
        (
            Annotated[int, FieldLike(description="Days", ge=1, le=14)],
            {"type": "integer", "description": "Days", "minimum": 1, "maximum": 14},
        ),
        (
            Annotated[float, FieldLike(gt=0, lt=1.5, multiple_of=0.5)],
            {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1.5, "multipleOf": 0.5},
        ),
        (
            Annotated[str, FieldLike(min_length=2, max_length=8, pattern="^[a-z]+$")],
            {"type": "string", "minLength": 2, "maxLength": 8, "pattern": "^[a-z]+$"},
        ),
        (
            Annotated[list[int], FieldLike(min_length=1, max_length=3)],
            {"type": "array", "items": {"type": "integer"}, "minItems": 1, "maxItems": 3},
        ),
        (
            Annotated[dict[str, int], FieldLike(max_length=5)],
            {"type": "object", "additionalProperties": {"type": "integer"}, "maxProperties": 5},
        ),
        (Annotated[str | None, FieldLike(max_length=5)], {"type": ["string", "null"], "maxLength": 5}),
        # pydantic's FieldInfo keeps its constraints in .metadata
        (
            Annotated[int, FieldLike(description="n", metadata=[FieldLike(ge=0)])],
            {"type": "integer", "description": "n", "minimum": 0},
        ),
        (Annotated[int, "first", "second"], {"type": "integer", "description": "second"}),
        (Annotated[int, object(), int], {"type": "integer"}),  # unrelated metadata is ignored
        (list[Annotated[str, "a tag"]], {"type": "array", "items": {"type": "string", "description": "a tag"}}),
        (Annotated[Color, "Paint"], {"type": "string", "enum": ["red", "green"], "description": "Paint"}),
    ],
    ids=repr,
)
def test_annotated(hint, expected):
    assert schema_for(hint) == expected


def test_annotated_on_a_recursive_reference():
    assert schema_for(Annotated[Node, "The root"])["description"] == "The root"
    assert schema_for(Annotated[Node, "The root"])["$ref"] == "#/$defs/Node"


# --------------------------------------------------------------------------------------------------
# schema_for: errors


@pytest.mark.parametrize(
    ("hint", "message"),
    [
        (Opaque, "unsupported type hint test_schema.Opaque"),
        (list[Opaque], "unsupported type hint test_schema.Opaque"),
        (typing.Callable[[int], int], "unsupported type hint Callable[[int], int]"),
        (dict[float, int], "dict keys must be str, int or a str Literal/Enum, not float"),
        (dict[Level, int], "dict keys must be str, int or a str Literal/Enum, not test_schema.Level"),
        (Literal[b"x"], "is not a JSON scalar"),
        ("Undefined", "unresolved forward reference 'Undefined'"),
        (typing.ForwardRef("Later"), "unresolved forward reference 'Later'"),
    ],
    ids=repr,
)
def test_unsupported_hints(hint, message):
    with pytest.raises(SchemaError, match=None) as info:
        schema_for(hint)
    assert message in str(info.value)
    assert isinstance(info.value, TypeError)


def test_enum_with_non_json_values():
    class Pair(enum.Enum):
        A = (1, 2)

    with pytest.raises(SchemaError, match="not a JSON scalar"):
        schema_for(Pair)


# --------------------------------------------------------------------------------------------------
# ToolSignature: input schema, description, parameters


def test_tool_signature_basics():
    def forecast(city: str, days: int = 3, units: Literal["C", "F"] = "C", verbose=False) -> str:
        """Forecast for a city.

        Looks a few days ahead.

        Args:
            city: The city name.
            days (int): How many days,
                at most 14.
            units: Temperature units.

        Returns:
            The forecast.
        """
        return ""

    s = sig(forecast)
    assert s.name == "forecast"
    assert s.description == "Forecast for a city.\n\nLooks a few days ahead."
    assert s.input_schema == {
        "type": "object",
        "properties": {
            "city": {"type": "string", "description": "The city name."},
            "days": {"type": "integer", "description": "How many days, at most 14.", "default": 3},
            "units": {"type": "string", "enum": ["C", "F"], "description": "Temperature units.", "default": "C"},
            "verbose": {"default": False},
        },
        "required": ["city"],
    }
    assert s.output_schema is None
    assert s.wraps_output is False
    assert s.context_param is None


def test_no_parameters_and_no_docstring():
    def ping():
        pass

    s = sig(ping)
    assert s.input_schema == {"type": "object", "properties": {}}
    assert s.description is None
    assert s.bind({}) == {}
    assert s.bind(None) == {}


def test_annotated_description_wins_over_docstring():
    def f(a: Annotated[int, "From the hint"]) -> None:
        """F.

        Args:
            a: From the docstring.
        """

    assert sig(f).input_schema["properties"]["a"] == {"type": "integer", "description": "From the hint"}


def test_defaults_are_json():
    def f(
        color: Color = Color.GREEN,
        when: dt.date = dt.date(2024, 1, 2),
        pair: tuple[int, int] = (1, 2),
        maybe: int | None = None,
        blob: bytes = b"hi",
        opaque: Any = OPAQUE,
    ) -> None: ...

    props = sig(f).input_schema["properties"]
    assert props["color"]["default"] == "green"
    assert props["when"]["default"] == "2024-01-02"
    assert props["pair"]["default"] == [1, 2]
    assert props["maybe"] == {"type": ["integer", "null"], "default": None}
    assert props["blob"]["default"] == "aGk="
    assert props["opaque"] == {}  # no JSON form: not written, still optional
    assert "required" not in sig(f).input_schema


def test_keyword_only_parameters_are_fine():
    def f(a: int, *, b: str) -> None: ...

    assert sig(f).input_schema["required"] == ["a", "b"]


def test_var_args_are_refused():
    def spread(*items: int) -> None: ...

    def options(a: int, **extra: str) -> None: ...

    with pytest.raises(SchemaError, match=r"spread: \*items is not supported"):
        sig(spread)
    with pytest.raises(SchemaError, match=r"options: \*\*extra is not supported"):
        sig(options)


def test_positional_only_is_refused():
    def f(a: int, /) -> None: ...

    with pytest.raises(SchemaError, match="parameter 'a' is positional-only"):
        sig(f)


def test_unsupported_parameter_names_parameter_and_hint():
    def f(ok: int, bad: list[Opaque]) -> None: ...

    with pytest.raises(SchemaError) as info:
        sig(f)
    message = str(info.value)
    assert "parameter 'bad'" in message
    assert "list[test_schema.Opaque]" in message
    assert "f" in message


def test_unresolvable_hint_names_function():
    def f(a: "Missing") -> None: ...  # noqa: F821

    with pytest.raises(SchemaError, match=r"cannot resolve the type hints of .*f: name 'Missing' is not defined"):
        sig(f)


def test_partial_and_method_and_callable_object():
    import functools

    def add(a: int, b: int) -> int:
        """Adds."""
        return a + b

    p = functools.partial(add, 1)
    s = sig(p)
    assert s.name == "add"
    assert s.description == "Adds."
    assert s.input_schema == {"type": "object", "properties": {"b": {"type": "integer"}}, "required": ["b"]}

    class Tools:
        def scale(self, x: float) -> float:
            """Scales."""
            return x * 2

        def __call__(self, text: str) -> str:
            return text

    s = sig(Tools().scale)
    assert s.name == "scale"
    assert s.input_schema["properties"] == {"x": {"type": "number"}}
    s = sig(Tools())
    assert s.name == "Tools"
    assert s.input_schema["properties"] == {"text": {"type": "string"}}


def test_wrapped_function_keeps_hints():
    import functools

    def deco(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            return fn(*args, **kwargs)

        return wrapper

    @deco
    def f(a: int) -> int:
        """F."""
        return a

    s = sig(f)
    assert s.input_schema == {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]}
    assert s.description == "F."


def test_input_defs_for_recursion():
    def f(root: Node) -> int:
        return 0

    s = sig(f)
    assert s.input_schema["properties"] == {"root": {"$ref": "#/$defs/Node"}}
    assert s.input_schema["required"] == ["root"]
    assert set(s.input_schema["$defs"]) == {"Node"}


# --------------------------------------------------------------------------------------------------
# Docstrings


def test_google_docstring_variants():
    def f(a: int, b: str, c: bool) -> None:
        """Summary line.

        More text
        over two lines.

        Example:
            f(1, "x", True)

        Arguments:
            a (int, optional): First.
            b: Second, with a long
                explanation.

                And a second paragraph.
            c: Third.

        Raises:
            ValueError: never.
        """

    s = sig(f)
    assert s.description == 'Summary line.\n\nMore text\nover two lines.\n\nExample:\n    f(1, "x", True)'
    props = s.input_schema["properties"]
    assert props["a"]["description"] == "First."
    assert props["b"]["description"] == "Second, with a long explanation.\n\nAnd a second paragraph."
    assert props["c"]["description"] == "Third."


@pytest.mark.parametrize("header", ["Args", "Arguments", "Parameters", "Returns", "Raises"])
def test_description_stops_at_section(header):
    def f(a: int) -> None: ...

    f.__doc__ = f"""Do it.

    {header}:
        a: The a.
    """
    assert sig(f).description == "Do it."


def test_numpy_docstring():
    def f(a: int, b: str, c: float, d: float) -> int:
        """Compute things.

        Extended summary.

        Parameters
        ----------
        a : int
            The first one.
        b
            The second one,
            on two lines.
        c, d : float
            Both coordinates.

        Returns
        -------
        int
            A number.
        """
        return 0

    s = sig(f)
    assert s.description == "Compute things.\n\nExtended summary."
    props = s.input_schema["properties"]
    assert props["a"]["description"] == "The first one."
    assert props["b"]["description"] == "The second one, on two lines."
    assert props["c"]["description"] == "Both coordinates."
    assert props["d"]["description"] == "Both coordinates."


def test_sphinx_docstring():
    def f(a: int, b: str, c: list[int]) -> int:
        """Compute things.

        :param a: The first one.
        :param str b: The second one,
            continued.
        :type b: str
        :param list[int] c: Third.
        :returns: A number.
        :rtype: int
        :raises ValueError: when sad.
        """
        return 0

    s = sig(f)
    assert s.description == "Compute things."
    props = s.input_schema["properties"]
    assert props["a"]["description"] == "The first one."
    assert props["b"]["description"] == "The second one, continued."
    assert props["c"]["description"] == "Third."


def test_docstring_first_line_on_the_quotes_line_and_only_summary():
    def f() -> None:
        """One line only."""

    def g() -> None:
        """
        Starts on the next line.
            Keeps relative indentation.
        """

    assert sig(f).description == "One line only."
    assert sig(g).description == "Starts on the next line.\n    Keeps relative indentation."


# --------------------------------------------------------------------------------------------------
# Context detection


class MyContext:
    pass


class HyperContext:
    pass


HyperContext.__name__ = HyperContext.__qualname__ = "Context"
HyperContext.__module__ = "hypermcp.context"


def test_context_by_type():
    def a(x: int, ctx: MyContext) -> None: ...

    def b(ctx: Optional[MyContext] = None) -> None: ...  # noqa: UP045

    def c(ctx: MyContext | None = None) -> None: ...

    def d(ctx: Annotated[MyContext, "injected"]) -> None: ...

    s = sig(a, context_type=MyContext)
    assert s.context_param == "ctx"
    assert s.input_schema == {"type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"]}
    for fn in (b, c, d):
        s = sig(fn, context_type=MyContext)
        assert s.context_param == "ctx"
        assert s.input_schema == {"type": "object", "properties": {}}


def test_context_subclass_and_any_parameter_name():
    class Special(MyContext):
        pass

    def f(request_context: Special, q: str) -> None: ...

    s = sig(f, context_type=MyContext)
    assert s.context_param == "request_context"
    assert list(s.input_schema["properties"]) == ["q"]


def test_hypermcp_context_found_without_context_type():
    def f(q: str, ctx: HyperContext | None = None) -> None: ...

    s = sig(f)
    assert s.context_param == "ctx"
    assert list(s.input_schema["properties"]) == ["q"]


def test_other_classes_named_context_are_not_hidden():
    class Context:
        pass

    def f(ctx: Context) -> None: ...

    with pytest.raises(SchemaError, match="parameter 'ctx'"):
        sig(f)

    # ...and with an explicit context_type, hypermcp's class is no longer assumed
    def g(ctx: HyperContext, x: int) -> None: ...

    with pytest.raises(SchemaError, match="parameter 'ctx'"):
        sig(g, context_type=MyContext)


def test_union_with_context_is_not_a_context():
    def f(ctx: MyContext | int) -> None: ...

    with pytest.raises(SchemaError, match="parameter 'ctx'"):
        sig(f, context_type=MyContext)


def test_two_context_parameters_are_refused():
    def f(a: MyContext, b: MyContext) -> None: ...

    with pytest.raises(SchemaError, match="two context parameters, 'a' and 'b'"):
        sig(f, context_type=MyContext)


def test_context_imported_only_for_type_checking(fresh_module, monkeypatch):
    monkeypatch.setattr(sys.modules["hypermcp"], "Context", HyperContext, raising=False)
    module = fresh_module(
        "schema_type_checking_tools",
        """
        from __future__ import annotations
        from typing import TYPE_CHECKING

        if TYPE_CHECKING:
            from hypermcp import Context
            from somewhere import Ctx

        def tool(q: str, ctx: Context) -> str:
            return q

        def other(q: str, ctx: Ctx | None = None) -> str:
            return q
        """,
    )
    s = sig(module.tool)
    assert s.context_param == "ctx"
    assert list(s.input_schema["properties"]) == ["q"]

    class Ctx:
        pass

    s = sig(module.other, context_type=Ctx)
    assert s.context_param == "ctx"


def test_bind_never_takes_the_context_from_arguments():
    def f(q: str, ctx: MyContext) -> None: ...

    assert sig(f, context_type=MyContext).bind({"q": "x", "ctx": "forged"}) == {"q": "x"}


# --------------------------------------------------------------------------------------------------
# Forward references and postponed annotations


def test_postponed_annotations(fresh_module):
    if NotRequired is None:
        pytest.skip("typing.NotRequired is Python 3.11+")
    module = fresh_module(
        "schema_future_tools",
        """
        from __future__ import annotations
        import dataclasses
        from typing import Annotated, Literal, NotRequired, TypedDict

        class Filters(TypedDict):
            kind: Literal["a", "b"]
            limit: NotRequired[int]

        def search(query: Annotated[str, "What to find"], filters: Filters, hit: Hit | None = None) -> list[Hit]:
            return []

        @dataclasses.dataclass
        class Hit:
            title: str
            score: float = 0.0
            parent: Hit | None = None
        """,
    )
    s = sig(module.search)
    hit = {
        "type": "object",
        "properties": {
            "title": {"type": "string"},
            "score": {"type": "number", "default": 0.0},
            "parent": {"anyOf": [{"$ref": "#/$defs/Hit"}, {"type": "null"}], "default": None},
        },
        "required": ["title"],
    }
    assert s.input_schema == {
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "What to find"},
            "filters": {
                "type": "object",
                "properties": {"kind": {"type": "string", "enum": ["a", "b"]}, "limit": {"type": "integer"}},
                "required": ["kind"],  # NotRequired as a string is honoured
            },
            "hit": {"anyOf": [{"$ref": "#/$defs/Hit"}, {"type": "null"}], "default": None},
        },
        "required": ["query", "filters"],
        "$defs": {"Hit": hit},
    }
    assert s.output_schema == {
        "type": "object",
        "properties": {"result": {"type": "array", "items": {"$ref": "#/$defs/Hit"}}},
        "required": ["result"],
        "$defs": {"Hit": hit},
    }
    bound = s.bind({"query": "q", "filters": {"kind": "a"}, "hit": {"title": "t", "parent": {"title": "p"}}})
    assert bound["hit"] == module.Hit("t", 0.0, module.Hit("p"))
    assert s.dump_result([module.Hit("t", 1.5)]) == (
        {"result": [{"title": "t", "score": 1.5, "parent": None}]},
        '{"result": [{"title": "t", "score": 1.5, "parent": null}]}',
    )


def test_string_forward_reference_without_future_import(fresh_module):
    module = fresh_module(
        "schema_forward_tools",
        """
        import dataclasses

        def place(where: "Spot", many: "list[Spot]") -> "Spot":
            return where

        @dataclasses.dataclass
        class Spot:
            lat: float
            lon: float
        """,
    )
    s = sig(module.place)
    spot = {
        "type": "object",
        "properties": {"lat": {"type": "number"}, "lon": {"type": "number"}},
        "required": ["lat", "lon"],
    }
    assert s.input_schema["properties"] == {"where": spot, "many": {"type": "array", "items": spot}}
    assert s.output_schema == spot
    assert s.wraps_output is False


# --------------------------------------------------------------------------------------------------
# bind


def test_bind_scalars_and_defaults():
    def f(s: str, i: int, x: float, b: bool, n: None, anything, opt: int = 5, tag: str | None = None) -> None: ...

    bound = sig(f).bind({"s": "a", "i": 3.0, "x": 2, "b": True, "n": None, "anything": [1, {"k": None}]})
    assert bound == {
        "s": "a",
        "i": 3,
        "x": 2.0,
        "b": True,
        "n": None,
        "anything": [1, {"k": None}],
        "opt": 5,
        "tag": None,
    }
    assert type(bound["i"]) is int
    assert type(bound["x"]) is float


def test_bind_ignores_unknown_arguments():
    def f(a: int) -> None: ...

    assert sig(f).bind({"a": 1, "zzz": 2}) == {"a": 1}


def test_bind_null_for_a_none_default():
    def f(limit: int = None) -> None: ...  # noqa: RUF013

    assert sig(f).bind({"limit": None}) == {"limit": None}
    assert sig(f).bind({"limit": 4}) == {"limit": 4}


def test_bind_structures():
    def f(
        shape: Shape,
        movie: Movie,
        color: Color,
        level: Level,
        mode: Literal["fast", "slow"],
        pair: tuple[int, str],
        many: tuple[float, ...],
        tags: set[str],
        frozen: frozenset[int],
        ids: dict[int, str],
        by_color: dict[Color, int],
        seq: Sequence[int],
        page: Page[Point],
        user: UserId,
        nested: list[dict[str, Point]],
    ) -> None: ...

    bound = sig(f).bind(
        {
            "shape": {"name": "tri", "points": [{"x": 1}, {"x": 2, "y": 3}], "color": "green", "extra": 1},
            "movie": {"title": "Up", "year": 2009, "rating": 5},
            "color": "red",
            "level": 2,
            "mode": "slow",
            "pair": [1, "a"],
            "many": [1, 2.5],
            "tags": ["a", "b", "a"],
            "frozen": [1, 2],
            "ids": {"1": "one", "-2": "minus two"},
            "by_color": {"green": 1},
            "seq": [1, 2],
            "page": {"items": [{"x": 9}]},
            "user": 7,
            "nested": [{"p": {"x": 1, "y": 2}}],
        }
    )
    assert bound["shape"] == Shape("tri", [Point(1), Point(2, 3)], Color.GREEN)
    assert bound["movie"] == {"title": "Up", "year": 2009, "rating": 5}
    assert bound["color"] is Color.RED
    assert bound["level"] is Level.HIGH
    assert bound["mode"] == "slow"
    assert bound["pair"] == (1, "a")
    assert bound["many"] == (1.0, 2.5)
    assert bound["tags"] == {"a", "b"}
    assert bound["frozen"] == frozenset({1, 2})
    assert type(bound["frozen"]) is frozenset
    assert bound["ids"] == {1: "one", -2: "minus two"}
    assert bound["by_color"] == {Color.GREEN: 1}
    assert bound["seq"] == [1, 2]
    assert bound["page"] == Page([Point(9)])
    assert bound["user"] == 7
    assert bound["nested"] == [{"p": Point(1, 2)}]


def test_bind_literal_enum_members():
    def f(c: Literal[Color.RED]) -> None: ...

    assert sig(f).bind({"c": "red"}) == {"c": Color.RED}


def test_bind_formats():
    def f(
        when: dt.datetime,
        utc: dt.datetime,
        day: dt.date,
        at: dt.time,
        at_utc: dt.time,
        id: uuid.UUID,
        path: Path,
        blob: bytes,
        buffer: bytearray,
    ) -> None: ...

    bound = sig(f).bind(
        {
            "when": "2024-05-06T07:08:09",
            "utc": "2024-05-06T07:08:09Z",
            "day": "2024-05-06",
            "at": "07:08:09",
            "at_utc": "07:08:09Z",
            "id": "12345678-1234-5678-1234-567812345678",
            "path": "/tmp/x.txt",
            "blob": "aGVsbG8=",
            "buffer": "aGk=",
        }
    )
    assert bound == {
        "when": dt.datetime(2024, 5, 6, 7, 8, 9),
        "utc": dt.datetime(2024, 5, 6, 7, 8, 9, tzinfo=dt.timezone.utc),
        "day": dt.date(2024, 5, 6),
        "at": dt.time(7, 8, 9),
        "at_utc": dt.time(7, 8, 9, tzinfo=dt.timezone.utc),
        "id": uuid.UUID("12345678-1234-5678-1234-567812345678"),
        "path": Path("/tmp/x.txt"),
        "blob": b"hello",
        "buffer": bytearray(b"hi"),
    }
    assert type(bound["buffer"]) is bytearray


def test_bind_unions_try_each_branch():
    def f(a: int | str, b: Point | list[int], c: Optional[Point] = None, d: float | None = 1.0) -> None: ...  # noqa: UP045

    s = sig(f)
    assert s.bind({"a": "x", "b": [1]}) == {"a": "x", "b": [1], "c": None, "d": 1.0}
    assert s.bind({"a": 1, "b": {"x": 1}, "c": {"x": 2}, "d": None}) == {
        "a": 1,
        "b": Point(1),
        "c": Point(2),
        "d": None,
    }


def test_bind_recursive():
    def f(tree: Node, t: Tree) -> None: ...

    bound = sig(f).bind(
        {"tree": {"value": 1, "children": [{"value": 2, "children": [{"value": 3}]}]}, "t": {"label": "a", "kids": []}}
    )
    assert bound["tree"] == Node(1, [Node(2, [Node(3)])])
    assert bound["t"] == {"label": "a", "kids": []}


def test_bind_mutable_defaults_come_from_the_function():
    marker: list[int] = []

    def f(items: list[int] = marker) -> None: ...

    assert sig(f).bind({})["items"] is marker


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"i": "3"}, "invalid argument 'i': expected integer, got string"),
        ({"i": 3.5}, "invalid argument 'i': expected integer, got number"),
        ({"i": True}, "invalid argument 'i': expected integer, got boolean"),
        ({"x": "1"}, "invalid argument 'x': expected number, got string"),
        ({"x": False}, "invalid argument 'x': expected number, got boolean"),
        ({"b": 1}, "invalid argument 'b': expected boolean, got integer"),
        ({"s": None}, "invalid argument 's': expected string, got null"),
        ({"n": 0}, "invalid argument 'n': expected null, got integer"),
        ({"color": "blue"}, 'invalid argument \'color\': expected one of ["red", "green"], got "blue"'),
        ({"level": True}, "invalid argument 'level': expected one of [1, 2], got true"),
        ({"mode": "FAST"}, 'invalid argument \'mode\': expected one of ["fast", "slow"], got "FAST"'),
        ({"flag": 1}, "invalid argument 'flag': expected one of [true], got 1"),
        ({"pair": [1]}, "invalid argument 'pair': expected an array of 2 items, got 1"),
        ({"pair": [1, 2]}, "invalid argument 'pair[1]': expected string, got integer"),
        ({"items": [1, "2"]}, "invalid argument 'items[1]': expected integer, got string"),
        ({"items": {"a": 1}}, "invalid argument 'items': expected array, got object"),
        ({"ids": {"x": "a"}}, "invalid argument 'ids.x': expected an integer key, got 'x'"),
        ({"mapping": {"a b": "x"}}, "invalid argument 'mapping[\"a b\"]': expected integer, got string"),
        ({"point": {"y": 1}}, "invalid argument 'point': missing required field 'x'"),
        ({"point": {"x": "1"}}, "invalid argument 'point.x': expected integer, got string"),
        ({"point": [1, 2]}, "invalid argument 'point': expected object, got array"),
        ({"movie": {"title": "x"}}, "invalid argument 'movie': missing required key 'year'"),
        (
            {"shape": {"name": "s", "points": [{"x": 1}, {"x": None}]}},
            "invalid argument 'shape.points[1].x': expected integer, got null",
        ),
        ({"positive": {"value": -1}}, "invalid argument 'positive': Positive: value must be positive"),
        ({"when": "yesterday"}, "invalid argument 'when': expected date-time string, got 'yesterday'"),
        ({"when": 1700000000}, "invalid argument 'when': expected date-time string, got integer"),
        ({"id": "not-a-uuid"}, "invalid argument 'id': expected uuid string, got 'not-a-uuid'"),
        ({"blob": "***"}, "invalid argument 'blob': expected base64 string, got text that is not base64"),
        ({"either": 1.5}, "invalid argument 'either': expected integer or string, got number"),
        ({"maybe": "x"}, "invalid argument 'maybe': expected integer, got string"),
        ({"hashed": [[1]]}, "invalid argument 'hashed[0]': expected integer, got array"),
        (
            {"tree": {"value": 1, "children": [{"value": "x"}]}},
            "invalid argument 'tree.children[0].value': expected integer, got string",
        ),
    ],
    ids=lambda v: v if isinstance(v, str) else None,
)
def test_bind_errors(arguments, message):
    def f(
        s: str = "",
        i: int = 0,
        x: float = 0.0,
        b: bool = False,
        n: None = None,
        color: Color = Color.RED,
        level: Level = Level.LOW,
        mode: Literal["fast", "slow"] = "fast",
        flag: Literal[True] = True,
        pair: tuple[int, str] = (0, ""),
        items: list[int] = (),
        ids: dict[int, str] = (),
        mapping: dict[str, int] = (),
        point: Point | None = None,
        movie: Movie | None = None,
        shape: Shape | None = None,
        positive: Positive | None = None,
        when: dt.datetime = dt.datetime(2000, 1, 1),
        id: uuid.UUID | None = None,
        blob: bytes = b"",
        either: int | str = 0,
        maybe: int | None = 0,
        hashed: set[int] = frozenset(),
        tree: Node | None = None,
    ) -> None: ...

    with pytest.raises(ArgumentError) as info:
        sig(f).bind(arguments)
    assert str(info.value) == message
    assert isinstance(info.value, ValueError)


def test_bind_union_of_object_and_str_reports_all_branches():
    def f(movie: Movie | str) -> None: ...

    with pytest.raises(ArgumentError, match=r"^invalid argument 'movie': expected Movie or string, got object$"):
        sig(f).bind({"movie": {"title": "x"}})


def test_bind_missing_arguments():
    def f(a: int, b: str, c: int = 0) -> None: ...

    with pytest.raises(ArgumentError, match=r"^missing required arguments 'a', 'b'$"):
        sig(f).bind({"c": 1})
    with pytest.raises(ArgumentError, match=r"^missing required argument 'b'$"):
        sig(f).bind({"a": 1})


def test_bind_rejects_non_object_arguments():
    def f(a: int = 0) -> None: ...

    with pytest.raises(ArgumentError, match=r"^tool arguments must be an object, got array$"):
        sig(f).bind([1])  # type: ignore[arg-type]


def test_bind_set_of_unhashable_items():
    def f(s: set[Any]) -> None: ...

    with pytest.raises(ArgumentError, match="array items must be hashable"):
        sig(f).bind({"s": [[1]]})


# --------------------------------------------------------------------------------------------------
# output schema and dump_result


def structured(fn) -> tuple[dict | None, bool]:
    s = sig(fn)
    return s.output_schema, s.wraps_output


@pytest.mark.parametrize(
    ("hint", "value", "expected_schema", "expected_value"),
    [
        (int, 3, {"type": "integer"}, 3),
        (float, 2.5, {"type": "number"}, 2.5),
        (float, 2, {"type": "number"}, 2),
        (bool, False, {"type": "boolean"}, False),
        (None, None, {"type": "null"}, None),
        (list[str], ("a", "b"), {"type": "array", "items": {"type": "string"}}, ["a", "b"]),
        (set[int], {33, 1, 10}, {"type": "array", "items": {"type": "integer"}, "uniqueItems": True}, [1, 10, 33]),
        (
            tuple[int, str],
            (1, "x"),
            {"type": "array", "prefixItems": [{"type": "integer"}, {"type": "string"}], "minItems": 2, "maxItems": 2},
            [1, "x"],
        ),
        (Color, Color.GREEN, {"type": "string", "enum": ["red", "green"]}, "green"),
        (Literal["ok", "ko"], "ok", {"type": "string", "enum": ["ok", "ko"]}, "ok"),
        (
            dt.datetime,
            dt.datetime(2024, 1, 2, 3, 4, 5),
            {"type": "string", "format": "date-time"},
            "2024-01-02T03:04:05",
        ),
        (dt.date, dt.datetime(2024, 1, 2, 3, 4, 5), {"type": "string", "format": "date"}, "2024-01-02"),
        (uuid.UUID, uuid.UUID(int=1), {"type": "string", "format": "uuid"}, "00000000-0000-0000-0000-000000000001"),
        (Path, PurePosixPath("/a/b"), {"type": "string"}, "/a/b"),
        (bytes, b"hi", {"type": "string", "contentEncoding": "base64"}, "aGk="),
        (int | None, None, {"type": ["integer", "null"]}, None),
        (Point | None, Point(1, 2), {"anyOf": [schema_for(Point), {"type": "null"}]}, {"x": 1, "y": 2}),
        (Annotated[int, "A count"], 4, {"type": "integer", "description": "A count"}, 4),
    ],
    ids=repr,
)
def test_wrapped_outputs(hint, value, expected_schema, expected_value):
    def f() -> None: ...

    f.__annotations__["return"] = hint
    s = sig(f)
    assert s.wraps_output is True
    assert s.output_schema == {"type": "object", "properties": {"result": expected_schema}, "required": ["result"]}
    assert s.dump_result(value) == ({"result": expected_value}, json.dumps({"result": expected_value}))


def test_object_outputs():
    def as_dict() -> dict[str, int]: ...

    def as_any_dict() -> dict: ...

    def as_dataclass() -> Point: ...

    def as_typeddict() -> Movie: ...

    assert structured(as_dict) == ({"type": "object", "additionalProperties": {"type": "integer"}}, False)
    assert structured(as_any_dict) == ({"type": "object"}, False)
    assert structured(as_dataclass) == (schema_for(Point), False)
    assert structured(as_typeddict) == (schema_for(Movie), False)

    assert sig(as_dict).dump_result({"a": 1}) == ({"a": 1}, '{"a": 1}')
    assert sig(as_any_dict).dump_result({"a": Color.RED, "when": dt.date(2024, 1, 1), 3: (1,)}) == (
        {"a": "red", "when": "2024-01-01", "3": [1]},
        '{"a": "red", "when": "2024-01-01", "3": [1]}',
    )
    assert sig(as_dataclass).dump_result(Point(1)) == ({"x": 1, "y": 0}, '{"x": 1, "y": 0}')
    assert sig(as_dataclass).dump_result({"x": 1}) == ({"x": 1}, '{"x": 1}')
    assert sig(as_typeddict).dump_result({"title": "Up", "year": 2009, "extra": Color.RED}) == (
        {"title": "Up", "year": 2009, "extra": "red"},
        '{"title": "Up", "year": 2009, "extra": "red"}',
    )


def test_dataclass_output_includes_init_false_fields():
    def f() -> Shape: ...

    s = sig(f)
    assert s.output_schema["properties"]["computed"] == {"type": "integer", "default": 0}
    value = Shape("s", [Point(1)], area=2.0)
    assert s.dump_result(value)[0] == {
        "name": "s",
        "points": [{"x": 1, "y": 0}],
        "color": "red",
        "tags": [],
        "area": 2.0,
        "note": "",
        "computed": 0,
    }


def test_recursive_output_root_is_an_object():
    def f() -> Node: ...

    s = sig(f)
    node = schema_for(Node)["$defs"]["Node"]
    assert s.wraps_output is False
    assert s.output_schema == {**node, "$defs": {"Node": node}}
    assert s.dump_result(Node(1, [Node(2)])) == (
        {"value": 1, "children": [{"value": 2, "children": []}]},
        '{"value": 1, "children": [{"value": 2, "children": []}]}',
    )


def test_text_is_not_ascii_escaped():
    def f() -> dict[str, str]: ...

    assert sig(f).dump_result({"city": "Zürich"}) == ({"city": "Zürich"}, '{"city": "Zürich"}')


def test_unstructured_returns():
    def text() -> str: ...

    def annotated_text() -> Annotated[str, "the answer"]: ...

    def anything() -> Any: ...

    def unannotated(): ...

    def opaque() -> Opaque: ...

    for fn in (text, annotated_text, anything, unannotated, opaque):
        s = sig(fn)
        assert (s.output_schema, s.wraps_output) == (None, False), fn.__name__
    assert sig(text).dump_result("hello") == (None, "hello")
    assert sig(unannotated).dump_result("hello") == (None, "hello")
    assert sig(unannotated).dump_result({"a": [1, Color.RED]}) == (None, '{"a": [1, "red"]}')
    assert sig(unannotated).dump_result(None) == (None, "")
    assert sig(anything).dump_result(Point(1)) == (None, '{"x": 1, "y": 0}')
    thing = Opaque()
    assert sig(opaque).dump_result(thing) == (None, str(thing))


def test_hypermcp_content_types_are_not_structured():
    class Image:
        pass

    Image.__module__ = "hypermcp.content"

    def one() -> Image: ...

    def many() -> list[Image | str]: ...

    assert sig(one).output_schema is None
    assert sig(many).output_schema is None


@pytest.mark.parametrize(
    ("hint", "value", "message"),
    [
        (int, "3", "result: expected integer, got string"),
        (int, True, "result: expected integer, got boolean"),
        (float, math.nan, "result: nan has no JSON form"),
        (bool, 1, "result: expected boolean, got integer"),
        (None, 0, "result: expected null, got integer"),
        (list[int], "abc", "result: expected array, got string"),
        (list[int], [1, "2"], "result[1]: expected integer, got string"),
        (dict[str, int], {"a": "x"}, "result.a: expected integer, got string"),
        (dict[str, int], {(1, 2): 1}, "result: object keys must be strings, got tuple"),
        (Point, {"y": 1}, "result: missing required key 'x'"),
        (Point, Movie(title="x", year=1), "result: missing required key 'x'"),
        (Point, 3, "result: expected Point, got integer"),
        (Point, Point("a"), "result.x: expected integer, got string"),  # type: ignore[arg-type]
        (Movie, {"title": "x"}, "result: missing required key 'year'"),
        (Color, "blue", 'result: expected one of ["red", "green"], got "blue"'),
        (tuple[int, int], (1,), "result: expected 2 items, got 1"),
        (dt.date, "not a date", "result: expected date string, got 'not a date'"),
        (list[Any], [Opaque()], "result[0]: Opaque has no JSON form"),
        (int | str, 1.5, "result: expected integer or string, got number"),
    ],
    ids=repr,
)
def test_dump_result_mismatch(hint, value, message):
    def tool() -> None: ...

    tool.__annotations__["return"] = hint
    s = sig(tool)
    if s.output_schema is None:
        pytest.fail("expected a structured output")
    with pytest.raises(ResultError) as info:
        s.dump_result(value)
    assert str(info.value).startswith("tool returned a value that does not match its return annotation ")
    assert str(info.value).endswith(message)
    assert isinstance(info.value, TypeError)


def test_structured_str_subclasses_and_int_enums_dump_as_plain_json():
    def f() -> dict[str, Any]: ...

    assert sig(f).dump_result({"level": Level.HIGH, "color": Color.RED, "big": 10**20}) == (
        {"level": 2, "color": "red", "big": 10**20},
        '{"level": 2, "color": "red", "big": 100000000000000000000}',
    )


def test_dump_accepts_iso_strings_and_validates_them():
    def f() -> dt.datetime: ...

    assert sig(f).dump_result("2024-01-01T00:00:00Z")[0] == {"result": "2024-01-01T00:00:00Z"}


# --------------------------------------------------------------------------------------------------
# pydantic (optional)


@pytest.fixture
def pydantic():
    return pytest.importorskip("pydantic")


def test_pydantic_model_parameter(pydantic, fresh_module):
    module = fresh_module(
        "schema_pydantic_models",
        """
        from pydantic import BaseModel, Field

        class Address(BaseModel):
            street: str
            city: str = "Paris"

        class User(BaseModel):
            '''A user.'''
            name: str = Field(description="Full name", min_length=1)
            age: int = Field(ge=0)
            address: Address | None = None
        """,
    )

    def register(user: module.User, note: str = "") -> module.User:
        return user

    s = sig(register)
    expected_user = module.User.model_json_schema()
    defs = expected_user.pop("$defs")
    assert s.input_schema["properties"]["user"] == expected_user
    assert s.input_schema["$defs"] == defs
    assert s.input_schema["required"] == ["user"]
    assert s.output_schema["type"] == "object"
    assert s.wraps_output is False

    bound = s.bind({"user": {"name": "Ann", "age": 30, "address": {"street": "Main"}}})
    assert bound["user"] == module.User(name="Ann", age=30, address=module.Address(street="Main"))
    with pytest.raises(ArgumentError, match="invalid argument 'user'") as info:
        s.bind({"user": {"name": "", "age": -1}})
    assert "age" in str(info.value)

    result = s.dump_result(bound["user"])
    assert result[0] == {"name": "Ann", "age": 30, "address": {"street": "Main", "city": "Paris"}}
    assert json.loads(result[1]) == result[0]
    assert s.dump_result({"name": "Bo", "age": 1})[0] == {"name": "Bo", "age": 1, "address": None}
    with pytest.raises(ResultError):
        s.dump_result({"name": "Bo"})


def test_pydantic_field_in_annotated_and_as_default(pydantic):
    Field = pydantic.Field

    def f(
        days: Annotated[int, Field(description="How many days", ge=1, le=14)],
        city: str = Field("Paris", description="The city", min_length=1, pattern="^[A-Z]"),
        tags: list[str] = Field(default_factory=list, max_length=3),  # noqa: B008 (the pattern under test)
        units: str = Field(description="Units"),
    ) -> None: ...

    s = sig(f)
    assert s.input_schema == {
        "type": "object",
        "properties": {
            "days": {"type": "integer", "description": "How many days", "minimum": 1, "maximum": 14},
            "city": {
                "type": "string",
                "description": "The city",
                "minLength": 1,
                "pattern": "^[A-Z]",
                "default": "Paris",
            },
            "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 3},
            "units": {"type": "string", "description": "Units"},
        },
        "required": ["days", "units"],
    }
    first = s.bind({"days": 2, "units": "C"})
    second = s.bind({"days": 2, "units": "C"})
    assert first == {"days": 2, "city": "Paris", "tags": [], "units": "C"}
    assert first["tags"] is not second["tags"]


def test_pydantic_recursive_model_output(pydantic, fresh_module):
    module = fresh_module(
        "schema_pydantic_recursive",
        """
        from __future__ import annotations
        from pydantic import BaseModel

        class Category(BaseModel):
            name: str
            children: list[Category] = []
        """,
    )

    def f() -> module.Category: ...

    s = sig(f)
    assert s.wraps_output is False
    assert s.output_schema["type"] == "object"
    assert s.output_schema["properties"]["children"]["items"] == {"$ref": "#/$defs/Category"}
    assert "Category" in s.output_schema["$defs"]
    value = module.Category(name="a", children=[module.Category(name="b")])
    assert s.dump_result(value)[0] == {"name": "a", "children": [{"name": "b", "children": []}]}


def test_pydantic_defs_with_clashing_names_are_renamed(pydantic, fresh_module):
    source = """
        from pydantic import BaseModel

        class Item(BaseModel):
            {field}: int

        class {outer}(BaseModel):
            item: Item
        """
    a = fresh_module("schema_pydantic_a", textwrap.dedent(source).format(field="a", outer="Order"))
    b = fresh_module("schema_pydantic_b", textwrap.dedent(source).format(field="b", outer="Basket"))

    def f(order: a.Order, basket: b.Basket, again: a.Order) -> None: ...

    schema = sig(f).input_schema
    assert schema["properties"]["order"]["properties"]["item"] == {"$ref": "#/$defs/Item"}
    assert schema["properties"]["basket"]["properties"]["item"] == {"$ref": "#/$defs/Item2"}
    assert schema["properties"]["again"]["properties"]["item"] == {"$ref": "#/$defs/Item"}
    assert schema["$defs"]["Item"]["properties"] == {"a": {"title": "A", "type": "integer"}}
    assert schema["$defs"]["Item2"]["properties"] == {"b": {"title": "B", "type": "integer"}}


def test_pydantic_inside_dataclass(pydantic, fresh_module):
    module = fresh_module(
        "schema_pydantic_nested",
        """
        import dataclasses
        from pydantic import BaseModel

        class Tag(BaseModel):
            label: str

        @dataclasses.dataclass
        class Post:
            tags: list[Tag]
        """,
    )

    def f(post: module.Post) -> module.Post: ...

    s = sig(f)
    assert s.input_schema["properties"]["post"]["properties"]["tags"] == {
        "type": "array",
        "items": module.Tag.model_json_schema(),
    }
    bound = s.bind({"post": {"tags": [{"label": "x"}]}})
    assert bound["post"] == module.Post([module.Tag(label="x")])
    assert s.dump_result(bound["post"])[0] == {"tags": [{"label": "x"}]}


def test_pydantic_stays_unimported_when_installed(pydantic):
    code = "import sys, hypermcp._schema; print('pydantic' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False", out.stderr

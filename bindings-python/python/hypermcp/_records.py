"""Light result objects: plain dicts and lists with attribute access.

A :class:`Record` *is* a ``dict`` (``json.dumps`` works, ``==`` compares with dicts); reading
an attribute finds the key, trying the camelCase spelling of a snake_case name
(``result.structured_content`` -> ``result["structuredContent"]``, ``tool.input_schema`` ->
``tool["inputSchema"]``, ``x.meta`` -> ``x["_meta"]``). Nested dicts come back as records and
lists of dicts as lists of records, converted in place on first access (so changes made
through them stay in the tree).
"""

from __future__ import annotations

from typing import Any, cast

__all__ = ["CompleteResult", "Completion", "Page", "Record", "ResourceResult", "ToolResult", "as_object", "wrap"]

_CAMEL: dict[str, str] = {}


def _camel(name: str) -> str:
    camel = _CAMEL.get(name)
    if camel is None:
        head, *rest = name.split("_")
        camel = head + "".join(part[:1].upper() + part[1:] for part in rest)
        if len(_CAMEL) < 4096:
            _CAMEL[name] = camel
    return camel


def wrap(value: Any) -> Any:
    """``value`` with dicts as :class:`Record` (lists are converted in place)."""
    if type(value) is dict:
        return Record(value)  # pyright: ignore[reportUnknownArgumentType]
    if type(value) is list:
        items: list[Any] = value  # pyright: ignore[reportUnknownVariableType]
        for i, item in enumerate(items):
            if type(item) is dict or type(item) is list:
                items[i] = wrap(item)
        return items
    return value


def _list(value: Any) -> list[Any]:
    return cast("list[Any]", value) if isinstance(value, list) else []


def as_object(value: Any) -> dict[str, Any]:
    return cast("dict[str, Any]", value) if isinstance(value, dict) else {}


class Record(dict[str, Any]):
    """A ``dict`` whose keys read as attributes (snake_case finds camelCase keys)."""

    __slots__ = ()

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        if name in self:
            key = name
        else:
            key = _camel(name)
            if key not in self:
                if name == "meta" and "_meta" in self:
                    key = "_meta"
                else:
                    raise AttributeError(f"{type(self).__name__} has no field {name!r}")
        value = self[key]
        if type(value) is dict or type(value) is list:
            value = wrap(value)
            self[key] = value
        return value

    def get_field(self, name: str, default: Any = None) -> Any:
        """Like attribute access, with a default for a missing field."""
        try:
            return self.__getattr__(name)
        except AttributeError:
            return default

    def __dir__(self) -> list[str]:
        return sorted(set(super().__dir__()) | {k for k in self if k.isidentifier()})

    def __repr__(self) -> str:
        return f"{type(self).__name__}({super().__repr__()})"


class ToolResult(Record):
    """The result of ``tools/call``: ``content``, ``structured_content``, ``is_error``, ``text``."""

    __slots__ = ()

    @property
    def content(self) -> list[Record]:
        """The content blocks (empty when the server sent none)."""
        return _list(self.get_field("content"))

    @property
    def structured_content(self) -> Any:
        """``structuredContent``, or ``None``."""
        return self.get_field("structuredContent")

    @property
    def is_error(self) -> bool:
        """Whether the tool failed (``isError``)."""
        return bool(self.get("isError", False))

    @property
    def text(self) -> str:
        """The text of every text block, joined by newlines."""
        blocks = [as_object(b) for b in _list(self.get_field("content"))]
        return "\n".join(str(b.get("text", "")) for b in blocks if b.get("type") == "text")


class ResourceResult(Record):
    """The result of ``resources/read``: ``contents`` and a ``text`` convenience."""

    __slots__ = ()

    @property
    def contents(self) -> list[Record]:
        """The resource contents (text or blob items)."""
        return _list(self.get_field("contents"))

    @property
    def text(self) -> str:
        """The text of every text item, joined by newlines."""
        items = [as_object(i) for i in _list(self.get_field("contents"))]
        return "\n".join(str(i["text"]) for i in items if "text" in i)


class Completion(Record):
    """``completion`` of a ``completion/complete`` result: ``values``, ``total``, ``has_more``.

    (``values`` here is the list of suggestions, not ``dict.values``.)
    """

    __slots__ = ()

    @property
    def values(self) -> list[str]:  # type: ignore[override]  # pyright: ignore[reportIncompatibleMethodOverride]
        """The suggested values."""
        return _list(self.get("values"))

    @property
    def total(self) -> int | None:
        """How many values exist in all (when the server says)."""
        return self.get("total")

    @property
    def has_more(self) -> bool:
        """Whether more values exist than were sent."""
        return bool(self.get("hasMore", False))


class CompleteResult(Record):
    """The result of ``completion/complete``: ``completion.values`` as in the official SDKs."""

    __slots__ = ()

    @property
    def completion(self) -> Completion:
        """The suggestions."""
        value = self.get("completion")
        if not isinstance(value, Completion):
            value = Completion(as_object(value))
            self["completion"] = value
        return value


class Page(list[Any]):
    """A list of records from a paginated ``*/list`` request; ``next_cursor`` is the cursor
    of the page after it (``None`` on the last page, and when every page was fetched)."""

    __slots__ = ("next_cursor",)

    next_cursor: str | None

    def __init__(self, items: list[Any] | None = None, next_cursor: str | None = None) -> None:
        super().__init__(items or ())
        self.next_cursor = next_cursor

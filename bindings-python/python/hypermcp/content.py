"""Content a tool, resource or prompt can return, and the full tool result.

A tool returning ``str`` answers with one text block; these helpers cover everything else::

    @server.tool
    def chart() -> Image:
        return Image(png_bytes, "image/png")
"""

from __future__ import annotations

import base64
import json
from typing import Any

__all__ = [
    "Content",
    "Text",
    "Image",
    "Audio",
    "EmbeddedResource",
    "ResourceLink",
    "CallToolResult",
    "PromptMessage",
]


def _b64(data: bytes | str) -> str:
    if isinstance(data, str):
        return data
    return base64.b64encode(data).decode("ascii")


class Content:
    """A content block (base class)."""

    __slots__ = ("annotations", "meta")

    def __init__(self, *, annotations: dict[str, Any] | None = None, meta: dict[str, Any] | None = None) -> None:
        self.annotations = annotations
        self.meta = meta

    def _extra(self, out: dict[str, Any]) -> dict[str, Any]:
        if self.annotations:
            out["annotations"] = self.annotations
        if self.meta:
            out["_meta"] = self.meta
        return out

    def to_dict(self) -> dict[str, Any]:
        """The wire form."""
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.to_dict()!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Content) and self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]


class Text(Content):
    """A text block."""

    __slots__ = ("text",)

    def __init__(self, text: str, **kw: Any) -> None:
        super().__init__(**kw)
        self.text = text

    def to_dict(self) -> dict[str, Any]:
        return self._extra({"type": "text", "text": self.text})


class Image(Content):
    """An image: raw bytes (encoded here) or a base64 string."""

    __slots__ = ("data", "mime_type")

    def __init__(self, data: bytes | str, mime_type: str = "image/png", **kw: Any) -> None:
        super().__init__(**kw)
        self.data = _b64(data)
        self.mime_type = mime_type

    def to_dict(self) -> dict[str, Any]:
        return self._extra({"type": "image", "data": self.data, "mimeType": self.mime_type})


class Audio(Content):
    """Audio: raw bytes (encoded here) or a base64 string."""

    __slots__ = ("data", "mime_type")

    def __init__(self, data: bytes | str, mime_type: str = "audio/wav", **kw: Any) -> None:
        super().__init__(**kw)
        self.data = _b64(data)
        self.mime_type = mime_type

    def to_dict(self) -> dict[str, Any]:
        return self._extra({"type": "audio", "data": self.data, "mimeType": self.mime_type})


class EmbeddedResource(Content):
    """A resource's contents embedded in the result: ``text`` or ``blob`` (bytes)."""

    __slots__ = ("blob", "mime_type", "text", "uri")

    def __init__(
        self,
        uri: str,
        *,
        text: str | None = None,
        blob: bytes | str | None = None,
        mime_type: str | None = None,
        **kw: Any,
    ) -> None:
        super().__init__(**kw)
        if (text is None) == (blob is None):
            raise ValueError("EmbeddedResource needs exactly one of text= or blob=")
        self.uri = uri
        self.text = text
        self.blob = None if blob is None else _b64(blob)
        self.mime_type = mime_type

    def to_dict(self) -> dict[str, Any]:
        res: dict[str, Any] = {"uri": self.uri}
        if self.mime_type:
            res["mimeType"] = self.mime_type
        if self.text is not None:
            res["text"] = self.text
        else:
            res["blob"] = self.blob
        return self._extra({"type": "resource", "resource": res})


class ResourceLink(Content):
    """A link to a resource the client can read (2025-06-18; older clients see text)."""

    __slots__ = ("description", "mime_type", "name", "size", "title", "uri")

    def __init__(
        self,
        uri: str,
        name: str | None = None,
        *,
        title: str | None = None,
        description: str | None = None,
        mime_type: str | None = None,
        size: int | None = None,
        **kw: Any,
    ) -> None:
        super().__init__(**kw)
        self.uri = uri
        self.name = name or uri
        self.title = title
        self.description = description
        self.mime_type = mime_type
        self.size = size

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": "resource_link", "uri": self.uri, "name": self.name}
        for key, value in (
            ("title", self.title),
            ("description", self.description),
            ("mimeType", self.mime_type),
            ("size", self.size),
        ):
            if value is not None:
                out[key] = value
        return self._extra(out)


class CallToolResult:
    """A complete tool result, passed to the client unchanged."""

    __slots__ = ("content", "is_error", "meta", "structured_content")

    def __init__(
        self,
        content: list[Content | dict[str, Any] | str] | None = None,
        *,
        structured_content: Any = None,
        is_error: bool = False,
        meta: dict[str, Any] | None = None,
    ) -> None:
        self.content = content or []
        self.structured_content = structured_content
        self.is_error = is_error
        self.meta = meta

    def to_dict(self) -> dict[str, Any]:
        """The wire form."""
        out: dict[str, Any] = {"content": [content_dict(c) for c in self.content]}
        if self.structured_content is not None:
            out["structuredContent"] = self.structured_content
            if not self.content:
                out["content"] = [{"type": "text", "text": json.dumps(self.structured_content, ensure_ascii=False)}]
        if self.is_error:
            out["isError"] = True
        if self.meta:
            out["_meta"] = self.meta
        return out


class PromptMessage:
    """One message of a prompt."""

    __slots__ = ("content", "role")

    def __init__(self, content: Content | str | dict[str, Any], role: str = "user") -> None:
        if role not in ("user", "assistant"):
            raise ValueError(f"role must be 'user' or 'assistant', not {role!r}")
        self.role = role
        self.content = content

    def to_dict(self) -> dict[str, Any]:
        """The wire form."""
        return {"role": self.role, "content": content_dict(self.content)}


def content_dict(c: Content | dict[str, Any] | str) -> dict[str, Any]:
    """The wire form of one content item (str is text)."""
    if isinstance(c, str):
        return {"type": "text", "text": c}
    if isinstance(c, Content):
        return c.to_dict()
    if isinstance(c, dict):
        return c
    raise TypeError(f"not content: {type(c).__name__} (use str, Text, Image, Audio, EmbeddedResource, ResourceLink)")

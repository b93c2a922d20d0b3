"""A registered function (a tool's, a resource's, a prompt's, a completion's) and what
calling it needs: how its arguments bind, which take the context, how template variables and
prompt arguments convert from strings, and how its return value becomes a result."""

from __future__ import annotations

import base64
import inspect
import json
from collections.abc import Callable
from typing import Any

from ._schema import ToolSignature
from .content import Content, EmbeddedResource, PromptMessage, content_dict

_PRIMITIVES = (str, int, float, bool, dict, list, Any, inspect.Parameter.empty)


def _is_async(fn: Callable[..., Any]) -> bool:
    # A callable object with an ``async def __call__`` counts as async too.
    return inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(type(fn).__call__)


class _Handler:
    """A registered function and what calling it needs."""

    __slots__ = (
        "completion_params",
        "context_param",
        "converters",
        "description",
        "fn",
        "inline",
        "is_async",
        "mime_type",
        "name",
        "needs_bind",
        "param_names",
        "signature",
    )

    def __init__(
        self,
        name: str,
        fn: Callable[..., Any],
        *,
        inline: bool,
        signature: ToolSignature | None,
        context_param: str | None = None,
    ) -> None:
        self.name = name
        self.fn = fn
        self.is_async = _is_async(fn)
        self.inline = inline or self.is_async
        self.signature = signature
        self.context_param = signature.context_param if signature is not None else context_param
        params = [p for p in inspect.signature(fn).parameters.values() if p.name != self.context_param]
        self.param_names = frozenset(p.name for p in params)
        hints = _hints(fn)
        self.needs_bind = signature is not None and any(
            hints.get(p.name, p.annotation) not in _PRIMITIVES for p in params
        )
        self.mime_type: str | None = None
        self.converters: dict[str, Callable[[str], Any]] = {}
        self.completion_params: frozenset[str] = frozenset()
        self.description: str | None = signature.description if signature is not None else None

    # Results of resources, prompts and completions.

    def resource_result(self, uri: str, result: Any) -> dict[str, Any]:
        mime = self.mime_type
        if isinstance(result, dict) and "contents" in result and isinstance(result["contents"], list):
            return result
        items = (
            result
            if isinstance(result, list) and result and all(isinstance(r, EmbeddedResource) for r in result)
            else [result]
        )
        contents = []
        for item in items:
            if isinstance(item, EmbeddedResource):
                contents.append(item.to_dict()["resource"])
            elif isinstance(item, str):
                contents.append({"uri": uri, "mimeType": mime or "text/plain", "text": item})
            elif isinstance(item, (bytes, bytearray, memoryview)):
                contents.append(
                    {
                        "uri": uri,
                        "mimeType": mime or "application/octet-stream",
                        "blob": base64.b64encode(bytes(item)).decode("ascii"),
                    }
                )
            else:
                text = json.dumps(_jsonable(item), ensure_ascii=False)
                contents.append({"uri": uri, "mimeType": mime or "application/json", "text": text})
        return {"contents": contents}

    def prompt_result(self, result: Any) -> dict[str, Any]:
        if isinstance(result, dict) and "messages" in result:
            return result
        items = result if isinstance(result, (list, tuple)) else [result]
        messages = []
        for item in items:
            if isinstance(item, PromptMessage):
                messages.append(item.to_dict())
            elif isinstance(item, (str, Content)):
                messages.append({"role": "user", "content": content_dict(item)})
            elif isinstance(item, dict) and "role" in item:
                messages.append({"role": item["role"], "content": content_dict(item["content"])})
            else:
                raise TypeError(f"a prompt returns str, PromptMessage or a list of them, not {type(item).__name__}")
        out: dict[str, Any] = {"messages": messages}
        if self.description:
            out["description"] = self.description
        return out

    def completion_args(self, params: dict[str, Any]) -> dict[str, Any]:
        available = {
            "value": params.get("argument", {}).get("value", ""),
            "argument": params.get("argument", {}).get("name", ""),
            "context": (params.get("context") or {}).get("arguments") or {},
            "ref": params.get("ref", {}),
        }
        return {k: v for k, v in available.items() if k in self.completion_params}

    @staticmethod
    def completion_result(result: Any) -> dict[str, Any]:
        if isinstance(result, dict) and "completion" in result:
            return result
        values = [str(v) for v in (result or [])]
        return {"completion": {"values": values[:100], "total": len(values), "hasMore": len(values) > 100}}


def _hints(fn: Callable[..., Any]) -> dict[str, Any]:
    try:
        import typing

        return typing.get_type_hints(fn)
    except Exception:  # noqa: BLE001 - unresolvable hints: treat as unannotated
        return {}


def _parse_bool(text: str) -> bool:
    lowered = text.strip().lower()
    if lowered in ("1", "true", "yes", "on"):
        return True
    if lowered in ("0", "false", "no", "off", ""):
        return False
    raise ValueError(f"not a boolean: {text!r}")


def _string_converters(fn: Callable[..., Any], names: frozenset[str]) -> dict[str, Callable[[str], Any]]:
    """Converters for parameters that arrive as strings (template variables, prompt
    arguments) but are annotated int, float or bool."""
    import typing

    out: dict[str, Callable[[str], Any]] = {}
    for pname, hint in _hints(fn).items():
        if pname not in names:
            continue
        args = [a for a in typing.get_args(hint) if a is not type(None)]
        if len(args) == 1:  # Optional[int] and the like
            hint = args[0]
        if hint in (int, float):
            out[pname] = hint
        elif hint is bool:
            out[pname] = _parse_bool
    return out


def _jsonable(value: Any) -> Any:
    import dataclasses

    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        return dump(mode="json")
    return value

"""What users pass to definitions and rules, checked and shaped as the engine reads it
(``tags=``, ``scopes=``, ``task=``, visibility filters), and the process option of ``run()``."""

from __future__ import annotations

import os
from collections.abc import Collection, Sequence
from typing import Any, TypedDict

from . import _core
from .errors import DefinitionError

_MALLOC_TUNABLES = ("GLIBC_TUNABLES", "MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_")


def keep_freed_memory() -> None:
    """When ``run()`` owns the process: let glibc keep freed blocks of up to 16 MiB for reuse
    (at most 32 MiB of free heap stays resident) rather than return each to the kernel and
    fault it in again for the next large message (a 1 MiB answer: 2.2x faster). Off with
    ``HYPERMCP_TUNE_MALLOC=0``; left alone when glibc's own tunables are set."""
    if os.environ.get("HYPERMCP_TUNE_MALLOC", "1") != "0" and not any(k in os.environ for k in _MALLOC_TUNABLES):
        _core.keep_freed_memory()


def name_set(what: str, value: Collection[str]) -> list[str]:
    """A set of names (``tags``, ``names``, ``components``) as a sorted list: a set, list or
    tuple, never one string (which would read as its characters)."""
    if isinstance(value, str):
        raise DefinitionError(f"{what}: give a set, not the string {value!r}")
    return sorted(set(value))


def tag_list(tags: Collection[str] | None) -> list[str]:
    """``tags=`` as a sorted list (a set, list or tuple of non-empty strings)."""
    if tags is None:
        return []
    items = name_set("tags", tags)
    for t in items:
        if not isinstance(t, str) or not t:
            raise DefinitionError(f"tags: {t!r} is not a tag (a non-empty string)")
    return items


class Filter(TypedDict, total=False):
    """The criteria of a visibility rule (``server.enable(**filter)`` and its kin)."""

    #: Names of tools and prompts, URIs of resources, URI templates of templates.
    names: Collection[str] | None
    #: Tags, any of which matches.
    tags: Collection[str] | None
    #: ``"tool"``, ``"resource"``, ``"template"``, ``"prompt"``.
    components: Collection[str] | None
    #: Every component (given alone).
    match_all: bool


def visibility_filter(where: str, filter: Filter) -> dict[str, Any]:
    """The filter of a visibility rule, as the engine reads it."""
    unknown = sorted(set(filter) - set(Filter.__annotations__))
    if unknown:
        raise TypeError(f"{where}() got unexpected keyword arguments: {', '.join(unknown)}")
    out: dict[str, Any] = {}
    for key in ("names", "tags", "components"):
        value = filter.get(key)
        if value is not None:
            out[key] = name_set(key, value)
    if filter.get("match_all"):
        out["match_all"] = True
    return out


def scope_list(scopes: str | Sequence[str] | None) -> list[str]:
    """``scopes=`` as a list: a space-separated string or a sequence of scope names."""
    if scopes is None:
        return []
    items = scopes.split() if isinstance(scopes, str) else list(scopes)
    for s in items:
        if not isinstance(s, str) or not s or any(c.isspace() for c in s):
            raise DefinitionError(f"scopes: {s!r} is not a scope name (a non-empty string without spaces)")
    return items


def task_mode(tool: str, task: bool | str | None) -> str | None:
    """``task=`` as the engine's task mode."""
    if task is None or task is False:
        return None
    if task is True:
        return "optional"
    if task in ("optional", "required", "manual"):
        return task
    raise DefinitionError(f'tool {tool!r}: task must be True, "optional", "required" or "manual", not {task!r}')


def clean(d: dict[str, Any]) -> dict[str, Any]:
    """``d`` without its None values."""
    return {k: v for k, v in d.items() if v is not None}

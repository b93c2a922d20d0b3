"""Docstrings: Google ("Args:"), NumPy ("Parameters" + dashes) and Sphinx (":param x:") styles.

``_parse_docstring`` gives a docstring's description (a tool's or a class's) and the descriptions of
its parameters (or of a dataclass's / TypedDict's attributes), which go into the JSON Schemas.
"""

from __future__ import annotations

import inspect
import re
from typing import NamedTuple

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

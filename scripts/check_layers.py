"""Checks the floors of the core (ARCHITECTURE.md, section 2): the files of a floor name
nothing of the floors that sit above it. Run by `make lint` (so by `make check` and `make test`);
prints every offending reference with its file and line and exits 1 if there is one.

A reference is any path in code (comments and doc links are not read) that starts at the crate
root (`crate::x`, `crate::{x, y}`) or climbs out of the floor with `super::`. The names the crate
root re-exports from a floor (`pub use server::{Server, ...}` in lib.rs) count as that floor.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "core" / "src"

# floor -> the floors it must not name. The runtime sits between the engine and the
# transports; the Rust API (server/, client/) and the command line sit on top of both.
FORBIDDEN: dict[str, set[str]] = {
    "runtime": {"transport", "server", "client", "cli"},
    "transport": {"server", "client", "cli"},
}

PATH = re.compile(r"\b(crate|super)((?:::super)*)::")


def root_reexports() -> dict[str, str]:
    """Names the crate root re-exports, mapped to the floor they come from."""
    lib = (SRC / "lib.rs").read_text()
    names: dict[str, str] = {}
    for m in re.finditer(r"pub use (\w+)(?:::\w+)*::\{([^}]*)\};", lib):
        for name in re.findall(r"\w+", m.group(2)):
            names[name] = m.group(1)
    for m in re.finditer(r"pub use (\w+)(?:::\w+)*::(\w+);", lib):
        names[m.group(2)] = m.group(1)
    for m in re.finditer(r"pub use (\w+);", lib):
        names[m.group(1)] = m.group(1)
    # `pub use transport::http;`: crate::http is the transport floor.
    for m in re.finditer(r"pub use (\w+)::(\w+);", lib):
        names[m.group(2)] = m.group(1)
    return names


def module_of(path: Path) -> list[str]:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] == "mod":
        parts.pop()
    return parts


def first_names(text: str, at: int) -> list[str]:
    """The first segment of each path a reference starting at `at` names: one, or each
    item of a `{...}` group."""
    if text.startswith("{", at):
        depth, item, names, i = 0, "", [], at
        while i < len(text):
            c = text[i]
            if c == "{":
                depth += 1
                if depth == 1:
                    i += 1
                    continue
            elif c == "}":
                depth -= 1
                if depth == 0:
                    break
            if depth == 1 and c == ",":
                item = ""
            elif depth == 1 and not item and (c.isalnum() or c == "_"):
                m = re.match(r"\w+", text[i:])
                assert m is not None
                names.append(m.group(0))
                item = m.group(0)
                i += len(item)
                continue
            i += 1
        return names
    m = re.match(r"\w+", text[at:])
    return [m.group(0)] if m else []


def main() -> int:
    reexports = root_reexports()
    problems: list[str] = []
    for path in sorted(SRC.rglob("*.rs")):
        module = module_of(path)
        floor = module[0]
        if floor not in FORBIDDEN:
            continue
        # Code only: a doc comment may point a reader upwards, a floor's code may not.
        text = re.sub(r"//[^\n]*", "", path.read_text())
        for m in PATH.finditer(text):
            if m.group(1) == "super" and len(module) > 1 + m.group(2).count("super"):
                continue  # a `super` path that stays inside this floor's modules
            for name in first_names(text, m.end()):
                target = reexports.get(name, name)
                if target in FORBIDDEN[floor]:
                    line = text.count("\n", 0, m.start()) + 1
                    problems.append(
                        f"{path.relative_to(SRC.parent.parent)}:{line}: the {floor} floor names "
                        f"{m.group(0)}{name} ({target}/, a floor above it)"
                    )
    for p in problems:
        print(p)
    if problems:
        print(f"check_layers: {len(problems)} reference(s) to a floor above (ARCHITECTURE.md, section 2)")
        return 1
    print("check_layers: the runtime and transport floors name nothing above them")
    return 0


if __name__ == "__main__":
    sys.exit(main())

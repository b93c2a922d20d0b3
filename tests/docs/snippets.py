"""The code blocks of the README and the guide (docs/), and how each is tested.

Every fenced block is tested by `make test` (tests/docs/test_docs.py); an HTML comment on the
line before a block says how, as `<!-- test: KEY[=VALUE] ... -->` (shell-quoted values):

- `file=NAME`: the block is saved as NAME in the page's working directory (one per page,
  shared by its blocks in order), where later blocks of the page find it.
- `server`: the saved file is a server: `hypermcp inspect NAME` (the package's command line)
  must reach it over stdio and print its description.
- `run`: the block runs as a program in the page's directory (Python blocks with the
  installed package, JavaScript with Node and the repository's package, TypeScript with
  Node 22, shell blocks with bash and the package's `hypermcp` first on PATH) and must exit 0.
- `http=NAME`: before the run, the server file NAME is started over Streamable HTTP on a free
  port (`hypermcp run NAME --http PORT`); the block's `127.0.0.1:8000` names that port.
- `expect=TEXT`: what ran printed TEXT.
- `after=NAME`: the block continues the saved file NAME (its text comes first).
- `check`: type-checked only (Python by pyright, TypeScript and JavaScript by tsc against the
  package's declarations; a page's blocks in one run of each): for fragments that need a peer
  the test cannot start.
- `peer=python` / `peer=node`: the block is another SDK's code (the migration guide's "theirs"):
  it is saved, run or checked in the page's `peer/` directory, with the Python of
  .peers/docs-venv (FastMCP 2.x, the official Python SDK 1.x) first on PATH, or with the
  official TypeScript SDK of .peers/npm as its node_modules.
- `skip=REASON`: not run, with the reason shown (commands that install or build, run by
  other suites).

Rust blocks need no comment: they are compiled, each in a module of
core/tests/doc_snippets.rs (which `cargo test` builds), generated from the pages by
`python3 tests/docs/snippets.py --write` and checked current by the docs test. `wrap` makes a
fragment the body of an async function returning `hypermcp::Result<()>`, and `prelude=TEXT`
puts lines (`use` declarations) before it. JSON blocks must parse, TOML blocks too; `text`
and `console` blocks are output and are not run.
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
RUST_OUT = ROOT / "core" / "tests" / "doc_snippets.rs"

LANGS = {
    "python": "python",
    "py": "python",
    "js": "js",
    "javascript": "js",
    "mjs": "js",
    "ts": "ts",
    "typescript": "ts",
    "rust": "rust",
    "bash": "sh",
    "sh": "sh",
    "shell": "sh",
    "json": "json",
    "toml": "toml",
    "text": "text",
    "console": "text",
    "nginx": "text",
    "yaml": "text",
}
KEYS = {"file", "server", "run", "http", "expect", "after", "check", "skip", "wrap", "prelude", "peer"}
DIRECTIVE = re.compile(r"^\s*<!--\s*test:(.*?)-->\s*$")
FENCE = re.compile(r"^(\s*)(```+|~~~+)\s*([\w+-]*)(.*)$")


@dataclass
class Block:
    """One fenced code block and its test directive."""

    page: Path
    line: int
    lang: str
    info: str
    code: str
    opts: dict[str, str] = field(default_factory=dict)

    @property
    def where(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


def pages() -> list[Path]:
    """The README and every page of the guide."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def parse(page: Path) -> list[Block]:
    """The fenced blocks of a page, with the directive of the comment before each."""
    lines = page.read_text().splitlines()
    blocks: list[Block] = []
    pending: dict[str, str] | None = None
    i = 0
    while i < len(lines):
        text = lines[i]
        directive = DIRECTIVE.match(text)
        if directive:
            pending = {}
            for word in shlex.split(directive.group(1)):
                key, _, value = word.partition("=")
                if key not in KEYS:
                    raise ValueError(f"{page.relative_to(ROOT)}:{i + 1}: unknown test directive {key!r}")
                pending[key] = value
            i += 1
            continue
        fence = FENCE.match(text)
        if fence:
            indent, marks, info = fence.group(1), fence.group(2), fence.group(3).lower()
            body: list[str] = []
            start = i + 1
            i += 1
            while i < len(lines) and not lines[i].strip().startswith(marks):
                line = lines[i]
                body.append(line[len(indent) :] if line.startswith(indent) else line.lstrip())
                i += 1
            lang = LANGS.get(info)
            if lang is None:
                raise ValueError(f"{page.relative_to(ROOT)}:{start}: a code block of unknown language {info!r}")
            blocks.append(Block(page, start, lang, info, "\n".join(body) + "\n", pending or {}))
            pending = None
            i += 1
            continue
        if text.strip():
            pending = None
        i += 1
    return blocks


def rust_module(index: int, block: Block, ordinal: int) -> str:
    """A Rust block as a module of the generated test file (named by its page and its rank
    among the page's Rust blocks, not its line: editing the text around it changes nothing)."""
    prelude = block.opts.get("prelude", "")
    code = block.code.rstrip()
    if "wrap" in block.opts:
        body = "\n".join("    " + line if line else "" for line in code.splitlines())
        code = f"pub async fn snippet() -> hypermcp::Result<()> {{\n{body}\n    Ok(())\n}}"
    inner = "\n".join("    " + line if line else "" for line in (prelude + "\n" + code).strip("\n").splitlines())
    return f"// {block.page.relative_to(ROOT)}, Rust block {ordinal}\nmod block_{index} {{\n{inner}\n}}\n"


def rust_file() -> str:
    """core/tests/doc_snippets.rs: every Rust block of the pages, compiled by `cargo test`."""
    head = (
        "//! The Rust code blocks of the README and docs/, compiled (type-checked) by `cargo test`.\n"
        "//! Generated by `python3 tests/docs/snippets.py --write`; do not edit (the docs test\n"
        "//! fails when this file is not what the pages give).\n"
        "#![allow(dead_code, unused_imports, unused_variables, missing_docs, clippy::all)]\n\n"
    )
    modules = []
    for page in pages():
        ordinal = 0
        for block in parse(page):
            if block.lang == "rust" and "skip" not in block.opts:
                ordinal += 1
                modules.append(rust_module(len(modules), block, ordinal))
    return rustfmt(head + "\n".join(modules))


def rustfmt(source: str) -> str:
    """The file as `cargo fmt` leaves it (with the repository's rustfmt.toml), so that
    `make check` finds nothing to change."""
    done = subprocess.run(
        ["rustfmt", "--edition", "2021", "--config-path", str(ROOT / "rustfmt.toml"), "--emit", "stdout"],
        input=source,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"rustfmt failed on the Rust blocks:\n{done.stderr}")
    return done.stdout


if __name__ == "__main__":
    generated = rust_file()
    if sys.argv[1:] == ["--write"]:
        RUST_OUT.write_text(generated)
        print(f"wrote {RUST_OUT.relative_to(ROOT)}")
    elif sys.argv[1:] == ["--check"]:
        sys.exit(0 if RUST_OUT.exists() and RUST_OUT.read_text() == generated else 1)
    else:
        sys.exit("usage: snippets.py --write | --check")

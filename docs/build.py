"""Builds the documentation site (`make docs`): the guide in docs/ and the API references.

1. The pages of docs/ are staged in target/docs/src with the generated references: rustdoc of
   the `hypermcp` crate (api/rust/) and TypeDoc of the Node package's declarations (api/node/);
   the Python reference is rendered from the package's docstrings by mkdocstrings.
2. MkDocs builds target/docs/site in strict mode: a link to a missing page or heading fails.
3. Every page of the site is read back and each relative link (href, src) checked: it must name
   a file of the site and, with a fragment, an element of that page with that id. This covers
   what MkDocs does not validate: links into the generated references, and theirs back.

Usage: python docs/build.py [--serve]   (`--serve`: build, then serve the site on 127.0.0.1:8001)
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
OUT = ROOT / "target" / "docs"
SRC = OUT / "src"
SITE = OUT / "site"
NOT_PAGES = {"mkdocs.yml", "build.py"}


def step(what: str, argv: list[str], **env: str) -> None:
    print(f"== {what}", flush=True)
    done = subprocess.run(argv, cwd=ROOT, env={**os.environ, **env}, check=False)
    if done.returncode != 0:
        sys.exit(f"docs: {what} failed (exit {done.returncode}): {' '.join(argv)}")


def stage() -> None:
    shutil.rmtree(SRC, ignore_errors=True)
    shutil.copytree(DOCS, SRC, ignore=lambda _dir, names: [n for n in names if n in NOT_PAGES or n == "__pycache__"])
    cargo = os.environ.get("CARGO", "cargo")
    step(
        "rustdoc: the hypermcp crate",
        [cargo, "doc", "--no-deps", "--lib", "-p", "hypermcp"],
        RUSTDOCFLAGS="-D warnings",
    )
    # Under target/TRIPLE/ when the build names its target (the Makefile does, as napi-rs does).
    triple = os.environ.get("CARGO_BUILD_TARGET")
    shutil.copytree(ROOT / "target" / triple / "doc" if triple else ROOT / "target" / "doc", SRC / "api" / "rust")
    step(
        "TypeDoc: the Node package's declarations",
        [
            "node",
            str(ROOT / "node_modules" / "typedoc" / "bin" / "typedoc"),
            "--entryPoints",
            "bindings-node/js/index.d.ts",
            "--tsconfig",
            "tsconfig.json",
            "--out",
            str(SRC / "api" / "node"),
            "--name",
            "hypermcp (Node)",
            "--readme",
            "none",
            "--disableSources",
            "--treatWarningsAsErrors",
            "--logLevel",
            "Warn",
        ],
    )


class Links(HTMLParser):
    """The ids of a page and the relative links it makes."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.links: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if value is None:
                continue
            if name in ("id", "name"):
                self.ids.add(value)
            elif name in ("href", "src") and tag in ("a", "img", "link", "script"):
                self.links.append(value)


def check_links() -> int:
    pages: dict[Path, Links] = {}

    def page(path: Path) -> Links:
        if path not in pages:
            parser = Links()
            parser.feed(path.read_text(errors="replace"))
            pages[path] = parser
        return pages[path]

    # The guide's pages and the references' entry pages; rustdoc and TypeDoc check their own.
    roots = [p for p in SITE.rglob("*.html") if not re.match(r"api/(rust|node)/", str(p.relative_to(SITE)))]
    roots += [SITE / "api" / "rust" / "hypermcp" / "index.html", SITE / "api" / "node" / "index.html"]
    broken: list[str] = []
    for source in roots:
        for link in page(source).links:
            parts = urlsplit(link)
            if parts.scheme or parts.netloc or link.startswith(("mailto:", "javascript:", "data:")):
                continue
            if parts.path.startswith("/"):  # root-relative (MkDocs' 404 page): the site's root
                target = (SITE / unquote(parts.path).lstrip("/")).resolve()
            else:
                target = (source.parent / unquote(parts.path)).resolve() if parts.path else source
            if target.is_dir():
                target = target / "index.html"
            if not target.exists():
                broken.append(f"{source.relative_to(SITE)}: {link} (no such file)")
            elif (
                parts.fragment
                and target.suffix == ".html"
                and not re.fullmatch(r"\d+(-\d+)?", parts.fragment)  # rustdoc's source line ranges (scripted)
                and unquote(parts.fragment) not in page(target).ids
            ):
                broken.append(f"{source.relative_to(SITE)}: {link} (no such anchor)")
    for line in broken:
        print(f"broken link: {line}", file=sys.stderr)
    print(f"== links: {sum(len(page(p).links) for p in roots)} checked in {len(roots)} pages, {len(broken)} broken")
    return len(broken)


def main() -> None:
    stage()
    shutil.rmtree(SITE, ignore_errors=True)
    step("MkDocs (strict)", [sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-f", str(DOCS / "mkdocs.yml")])
    if check_links():
        sys.exit("docs: broken links (above)")
    print(f"docs: the site is in {SITE.relative_to(ROOT)} (open index.html)")
    if sys.argv[1:] == ["--serve"]:
        step("serving on http://127.0.0.1:8001", [sys.executable, "-m", "http.server", "-d", str(SITE), "8001"])


if __name__ == "__main__":
    main()

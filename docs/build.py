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

import json
import os
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import tomllib

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
    rustdoc()
    shutil.copytree(RUST_DOC, SRC / "api" / "rust")
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


# Under target/TRIPLE/ when the build names its target (the Makefile does, as napi-rs does).
TRIPLE = os.environ.get("CARGO_BUILD_TARGET")
RUST_DOC = ROOT / "target" / TRIPLE / "doc" if TRIPLE else ROOT / "target" / "doc"
# The build whose libraries rustdoc reads: what `make rust` builds first (the examples, and
# the engine with the features they use).
BUILD = ["build", "-p", "hypermcp-examples", "--examples"]
LEVELS = {"allow": "-A", "warn": "-W", "deny": "-D", "forbid": "-F"}


def rustdoc() -> None:
    """rustdoc of the hypermcp crate, run as `cargo doc -p hypermcp --no-deps` runs it, but on
    the libraries the build compiled: cargo doc would first check every dependency once more
    (190 crates, some 110 CPU-seconds) for the metadata that the build's libraries carry too.
    The build (BUILD, fresh after `make rust`; run here otherwise) names its libraries and the
    engine's features (--message-format=json), `cargo metadata` the engine's dependencies by the
    names its code uses them by; warnings are errors (as RUSTDOCFLAGS=-D warnings)."""
    cargo = os.environ.get("CARGO", "cargo")
    profile = os.environ.get("CARGO_DOC_PROFILE", "dev")
    built = subprocess.run(
        [cargo, *BUILD, "--profile", profile, "--message-format=json-render-diagnostics"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
        check=False,
    )
    if built.returncode != 0:
        sys.exit(f"docs: `cargo {' '.join(BUILD)} --profile {profile}` failed (exit {built.returncode})")
    libs: dict[str, list[str]] = {}
    features: list[str] | None = None
    for line in built.stdout.splitlines():
        msg = json.loads(line) if line.startswith("{") else {}
        if msg.get("reason") != "compiler-artifact":
            continue
        kinds = msg["target"]["kind"]
        if "proc-macro" in kinds:
            libs[msg["package_id"]] = [f for f in msg["filenames"] if f.endswith(".so")]
        elif {"lib", "rlib"} & set(kinds):
            # A library built for the target (not one built for the host, for a build script).
            files = [f for f in msg["filenames"] if f.endswith(".rlib")]
            if not files or (TRIPLE is not None and f"/{TRIPLE}/" not in files[0]):
                continue
            libs[msg["package_id"]] = files
            if msg["target"]["name"] == "hypermcp":
                features = msg["features"]
    meta = json.loads(
        subprocess.run(
            [cargo, "metadata", "--format-version", "1", *(["--filter-platform", TRIPLE] if TRIPLE else [])],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            text=True,
            check=True,
        ).stdout
    )
    pkg = next(p for p in meta["packages"] if p["name"] == "hypermcp" and p["id"] in meta["workspace_members"])
    node = next(n for n in meta["resolve"]["nodes"] if n["id"] == pkg["id"])
    if features is None:
        sys.exit(f"docs: `cargo {' '.join(BUILD)}` built no hypermcp library")
    argv = [os.environ.get("RUSTDOC", "rustdoc"), "--edition", pkg["edition"], "--crate-type", "lib"]
    lib = next(t for t in pkg["targets"] if "lib" in t["kind"])
    src = Path(lib["src_path"]).relative_to(ROOT)  # relative, as cargo passes it: the pages name it
    argv += ["--crate-name", "hypermcp", str(src), "-o", str(RUST_DOC)]
    argv += ["--crate-version", pkg["version"]]
    for feature in features:
        argv += ["--cfg", f'feature="{feature}"']
    deps = {Path(f).parent for files in libs.values() for f in files}
    for folder in sorted(deps):
        argv += ["-L", f"dependency={folder}"]
    for dep in node["deps"]:
        if not any(k["kind"] is None for k in dep["dep_kinds"]):
            continue  # a dev- or build-dependency
        if dep["pkg"] not in libs:
            sys.exit(f"docs: the build gave no library of {dep['pkg']}, which hypermcp uses")
        argv += ["--extern", f"{dep['name']}={libs[dep['pkg']][0]}"]
    with open(ROOT / "Cargo.toml", "rb") as f:
        lints = tomllib.load(f).get("workspace", {}).get("lints", {}).get("rust", {})
    for lint, level in lints.items():
        argv += [LEVELS[level if isinstance(level, str) else level["level"]], lint]
    argv += ["-D", "warnings"]
    env = {
        "CARGO_PKG_NAME": pkg["name"],
        "CARGO_PKG_VERSION": pkg["version"],
        "CARGO_CRATE_NAME": "hypermcp",
        "CARGO_MANIFEST_DIR": str(Path(pkg["manifest_path"]).parent),
    }
    shutil.rmtree(RUST_DOC, ignore_errors=True)
    step("rustdoc: the hypermcp crate", argv, **env)


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

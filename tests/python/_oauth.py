"""Helpers of the tests against a real authorization server (tests/oauth/provider.mjs, on
oidc-provider): a test CA and a certificate for 127.0.0.1 (openssl), the provider (and the
servers of the other languages) as child processes, HTTPS requests trusting that CA, the login
and consent pages driven over HTTP (no browser), tokens straight from the token endpoint, and a
raw MCP POST to look at a refusal's status and ``WWW-Authenticate``.

The Node counterpart is tests/oauth/oauth.mjs; the Rust one is in core/tests/suite/oauth_provider.rs.
Every function here blocks: call them through ``asyncio.to_thread`` from a test's event loop.
Only the standard library (pytest in ``need_provider`` alone): the official SDK's scripts in
tests/oauth/ (run by the peers venv's python) use the login and consent driver too.
"""

from __future__ import annotations

import base64
import html
import http.client
import json
import os
import re
import shutil
import socket
import ssl
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urljoin, urlsplit

REPO = Path(__file__).resolve().parents[2]
PEERS = Path(os.environ.get("HYPERMCP_PEERS") or os.environ.get("PEERS") or REPO / ".peers")
PROVIDER = REPO / "tests" / "oauth" / "provider.mjs"
REDIRECT_URI = "http://127.0.0.1:8765/callback"


def need_provider() -> str:
    """The ``node`` to run the provider with; skips (fails under HYPERMCP_REQUIRE_PEERS=1)
    when node or oidc-provider is missing."""
    import pytest  # here: the official SDK's scripts (tests/oauth/py_sdk_*.py) import this module without it

    node = shutil.which("node")
    pkg = PEERS / "oauth" / "node_modules" / "oidc-provider" / "package.json"
    why = None
    if node is None:
        why = "node is not installed"
    elif not pkg.exists():
        why = f"{pkg} not found (run make peers)"
    elif shutil.which("openssl") is None:
        why = "openssl is not installed"
    if why is not None:
        if os.environ.get("HYPERMCP_REQUIRE_PEERS") == "1":
            pytest.fail(f"HYPERMCP_REQUIRE_PEERS=1 but the OAuth provider cannot run: {why}")
        pytest.skip(why)
    assert node is not None
    return node


@dataclass
class Pki:
    """A CA and a certificate it signs for localhost and 127.0.0.1."""

    ca: Path
    cert: Path
    key: Path


def make_pki(folder: Path) -> Pki:
    """Makes the CA and the certificate in ``folder`` (openssl)."""
    ca_key, ca, key, csr, cert, ext = (folder / n for n in ("ca.key", "ca.pem", "key.pem", "c.csr", "cert.pem", "ext"))
    ext.write_text("subjectAltName=DNS:localhost,IP:127.0.0.1\n")
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"]
    for argv in (
        ["req", "-x509", *ec, "-keyout", ca_key, "-out", ca, "-days", "2", "-subj", "/CN=hypermcp test CA"],
        ["req", *ec, "-keyout", key, "-out", csr, "-subj", "/CN=localhost"],
        ["x509", "-req", "-in", csr, "-CA", ca, "-CAkey", ca_key, "-CAcreateserial", "-out", cert, "-extfile", ext],
    ):
        subprocess.run(["openssl", *map(str, argv)], check=True, capture_output=True)
    return Pki(ca, cert, key)


def free_port() -> int:
    """A TCP port of 127.0.0.1 free at the time of the call."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Child:
    """A child process that printed one JSON line (``info``) when it was ready; its later
    stdout lines and its stderr are collected for the failure messages."""

    proc: subprocess.Popen[str]
    info: dict[str, Any]
    what: str
    lines: list[str] = field(default_factory=list)
    stderr: list[str] = field(default_factory=list)

    def output(self) -> str:
        return f"{self.what}: stdout:\n{''.join(self.lines)}\nstderr:\n{''.join(self.stderr)}"

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.proc.stdin is not None:
            self.proc.stdin.close()


def start_child(argv: list[str], what: str, limit: float = 60.0) -> Child:
    """Starts ``argv`` (stdin a pipe, which it may watch to exit with us) and waits for its
    first stdout line, a JSON object; fails with its output if it exits or stays silent.
    ``limit`` is generous, as tests/oauth/oauth.mjs's: oidc-provider, ready in half a second
    on an idle machine, once took over 20 s in CI while other suites ran beside this one; only a
    child that never starts waits that long."""
    proc = subprocess.Popen(
        argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, bufsize=1
    )
    assert proc.stdout is not None and proc.stderr is not None
    stderr: list[str] = []
    lines: list[str] = []
    first: list[str] = []
    ready = threading.Event()

    def read_out() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            if not first:
                first.append(line)
                ready.set()
            else:
                lines.append(line)
        ready.set()

    def read_err() -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            stderr.append(line)

    threading.Thread(target=read_out, daemon=True).start()
    threading.Thread(target=read_err, daemon=True).start()
    ready.wait(limit)
    if not first:
        proc.kill()
        proc.wait()
        time.sleep(0.1)
        raise AssertionError(
            f"{what} was not ready within {limit} s (exit {proc.returncode}); stderr:\n{''.join(stderr)}"
        )
    try:
        info = json.loads(first[0])
    except ValueError as e:
        proc.kill()
        raise AssertionError(f"{what} printed no JSON line ({e}): {first[0]!r}; stderr:\n{''.join(stderr)}") from e
    return Child(proc, info, what, lines, stderr)


def start_provider(node: str, pki: Pki, signing_key: Path | None = None) -> Child:
    """oidc-provider over HTTPS on 127.0.0.1 with ``pki``'s certificate; ``signing_key``: a
    file sharing the signing key with another instance (another issuer)."""
    argv = [node, str(PROVIDER), "--cert", str(pki.cert), "--key", str(pki.key), "--peers", str(PEERS)]
    argv += ["--exit-with-stdin", "--redirect-uri", REDIRECT_URI]
    if signing_key is not None:
        argv += ["--signing-key", str(signing_key)]
    return start_child(argv, "the authorization server (tests/oauth/provider.mjs)")


@dataclass
class Response:
    status: int
    headers: list[tuple[str, str]]
    text: str

    def header(self, name: str) -> str:
        return next((v for k, v in self.headers if k.lower() == name.lower()), "")


def request(
    url: str,
    method: str = "GET",
    body: str | None = None,
    headers: dict[str, str] | None = None,
    ca: Path | None = None,
) -> Response:
    """One HTTP(S) exchange; redirects are not followed."""
    u = urlsplit(url)
    conn: http.client.HTTPConnection
    if u.scheme == "https":
        conn = http.client.HTTPSConnection(
            u.hostname or "", u.port, context=ssl.create_default_context(cafile=ca), timeout=10
        )
    else:
        conn = http.client.HTTPConnection(u.hostname or "", u.port, timeout=10)
    try:
        conn.request(method, u.path + (f"?{u.query}" if u.query else ""), body=body, headers=headers or {})
        r = conn.getresponse()
        return Response(r.status, r.getheaders(), r.read().decode("utf-8", "replace"))
    finally:
        conn.close()


def authorize_over_http(
    url: str, redirect_uri: str, ca: Path, login: str = "alice", steps: list[str] | None = None
) -> str:
    """What a user does in a browser, over plain HTTP requests: opens the authorization URL,
    follows the redirects (carrying the provider's cookies), fills the login form (any user
    name and password) and the consent form, until the provider redirects to ``redirect_uri``;
    returns that URL (with ``code``, ``state`` and ``iss``). ``steps`` receives
    "METHOD path status" of each request."""
    steps = [] if steps is None else steps
    cookies: dict[str, str] = {}
    method, body = "GET", None
    for _ in range(20):
        headers = {"Cookie": "; ".join(f"{k}={v}" for k, v in cookies.items())}
        if body is not None:
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        r = request(url, method, body, headers, ca)
        steps.append(f"{method} {urlsplit(url).path} {r.status}")
        for k, v in r.headers:
            if k.lower() == "set-cookie":
                name, _, rest = v.partition("=")
                cookies[name.strip()] = rest.split(";", 1)[0]
        if 300 <= r.status < 400:
            nxt = urljoin(url, r.header("location"))
            if nxt.startswith(redirect_uri):
                return nxt
            method, body, url = "GET", None, nxt
            continue
        form = re.search(r'<form[^>]*action="([^"]*)"[^>]*method="post"', r.text, re.I)
        if r.status != 200 or form is None:
            raise AssertionError(f"{url} answered {r.status} without a form to fill (steps: {steps}):\n{r.text[:1500]}")
        fields: dict[str, str] = {}
        for tag in re.findall(r"<input[^>]*>", r.text, re.I):
            name = re.search(r'name="([^"]*)"', tag)
            if name is None:
                continue
            value = re.search(r'value="([^"]*)"', tag)
            fields[name.group(1)] = html.unescape(value.group(1)) if value else ""
        if "login" in fields:
            fields["login"] = login
        if "password" in fields:
            fields["password"] = "wonderland"
        method, body, url = "POST", urlencode(fields), urljoin(url, html.unescape(form.group(1)))
    raise AssertionError(f"the authorization did not come back to {redirect_uri} (steps: {steps})")


def client_credentials(
    info: dict[str, Any], ca: Path, resource: str, scope: str | None = "mcp:tools", client_id: str | None = None
) -> str:
    """A token from the token endpoint by client credentials (client_secret_basic)."""
    client_id = client_id or info["clients"]["service"]
    basic = base64.b64encode(f"{client_id}:{info['clients']['service_secret']}".encode()).decode()
    form = {"grant_type": "client_credentials", "resource": resource}
    if scope:
        form["scope"] = scope
    r = request(
        info["token_endpoint"],
        "POST",
        urlencode(form),
        {"Authorization": f"Basic {basic}", "Content-Type": "application/x-www-form-urlencoded"},
        ca,
    )
    assert r.status == 200, f"the token endpoint answered {r.status}: {r.text}"
    return str(json.loads(r.text)["access_token"])


def decode_jwt(token: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """A JWT's header and payload."""

    def part(s: str) -> dict[str, Any]:
        return dict(json.loads(base64.urlsafe_b64decode(s + "=" * (-len(s) % 4))))

    h, p = token.split(".")[:2]
    return part(h), part(p)


#: The ``initialize`` request of the raw POSTs.
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}},
}


def post_mcp(url: str, token: str | None, message: dict[str, Any], headers: dict[str, str] | None = None) -> Response:
    """POSTs the JSON-RPC ``message`` to the MCP endpoint ``url`` with ``token`` (and extra
    ``headers``, e.g. ``Mcp-Session-Id``)."""
    sent = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream", **(headers or {})}
    if token is not None:
        sent["Authorization"] = f"Bearer {token}"
    return request(url, "POST", json.dumps(message), sent)


def post_initialize(url: str, token: str | None) -> Response:
    """:func:`post_mcp` of an ``initialize``."""
    return post_mcp(url, token, INITIALIZE)


def provider_events(info: dict[str, Any], ca: Path) -> list[dict[str, Any]]:
    """What the provider's token endpoint issued: one entry per access token."""
    return list(json.loads(request(f"{info['control']}/events", ca=ca).text))


def rotate_key(info: dict[str, Any], ca: Path) -> dict[str, Any]:
    """Rotates the provider's signing key: ``{kid, previous}``."""
    return dict(json.loads(request(f"{info['control']}/rotate", "POST", ca=ca).text))

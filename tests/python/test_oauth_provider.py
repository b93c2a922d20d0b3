"""OAuth against a real authorization server: oidc-provider (a certified OpenID provider,
tests/oauth/provider.mjs) over HTTPS on loopback with a certificate from a CA made here.

The Python client gets tokens by authorization code + PKCE (registering by Dynamic Client
Registration; the provider's login and consent pages driven over HTTP, no browser) and by
client credentials, refreshes them once they expire (a refresh token for ``offline_access``
asked with ``prompt=consent``, the provider's stock rule), and steps up for a tool with its own
scope; the Python server verifies them against the provider's JWKS, refuses, with the right
status and ``WWW-Authenticate``, a token for another audience, from another issuer, expired, or
without the scope (the server's, or a tool's), and shows the handlers who called
(``ctx.auth``). The Python client also calls the Node server (tests/oauth/server.mjs).

Interop with the official Python SDK (mcp 2.3.0, in the peers venv): its OAuth client
(tests/oauth/py_sdk_client.py) registers, authorizes and steps up at the Python server, and the
Python client authorizes at its resource server (tests/oauth/py_sdk_server.py).

The Node suite (tests/node/oauth_provider.test.mjs) and the Rust one
(core/tests/suite/oauth_provider.rs, with the key rotation) cover the other languages.

Needs oidc-provider in <peers>/oauth (make peers), and the official SDK in <peers>/venv for the
interop tests: skipped without them, unless HYPERMCP_REQUIRE_PEERS=1, which makes that a
failure.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from _helpers import run, until, within
from _oauth import (
    PEERS,
    REDIRECT_URI,
    REPO,
    Child,
    Pki,
    authorize_over_http,
    client_credentials,
    decode_jwt,
    free_port,
    make_pki,
    need_provider,
    post_initialize,
    post_mcp,
    provider_events,
    rotate_key,
    start_child,
    start_provider,
)
from hypermcp import Client, Context, OAuth, Server
from hypermcp.errors import Unauthorized

#: Seconds an await that talks to the authorization server may take.
LIMIT = 20.0


@dataclass
class Env:
    node: str
    pki: Pki
    #: The authorization server.
    auth_server: Child
    #: A second one (another issuer) signing with the same key.
    other: Child

    @property
    def info(self) -> dict[str, Any]:
        return self.auth_server.info


@pytest.fixture(scope="module")
def env() -> Iterator[Env]:
    node = need_provider()
    with tempfile.TemporaryDirectory() as tmp:
        pki = make_pki(Path(tmp))
        key = Path(tmp) / "signing-key.json"
        auth_server = start_provider(node, pki, key)
        try:
            other = start_provider(node, pki, key)
            try:
                yield Env(node, pki, auth_server, other)
            finally:
                other.stop()
        finally:
            auth_server.stop()


@dataclass
class Running:
    url: str
    #: The texts the tools were called with.
    calls: list[str]
    #: Who called them, as the handlers saw it (``ctx.auth``): (tool, subject, client_id, scopes).
    callers: list[tuple[str, str | None, str | None, tuple[str, ...]]]


@asynccontextmanager
async def python_server(env: Env, info: dict[str, Any] | None = None, **options: Any) -> AsyncIterator[Running]:
    """The Python server on a free port, requiring ``mcp:tools`` (and ``mcp:admin`` for its tool
    ``admin``) of the tokens of the provider ``info`` (default: the module's); its calls are
    recorded. ``options``: more of the ``auth`` option."""
    info = info or env.info
    rs = Running("", [], [])
    server = Server("oauth-python", "1.0.0")

    def record(tool: str, text: str, ctx: Context) -> None:
        rs.calls.append(text)
        auth = ctx.auth
        assert auth is not None, "a handler of a server with the auth option sees ctx.auth"
        rs.callers.append((tool, auth.subject, auth.client_id, auth.scopes))

    @server.tool()
    def echo(text: str, ctx: Context) -> str:
        """Echo the text."""
        record("echo", text, ctx)
        return f"python: {text}"

    @server.tool(scopes=["mcp:admin"])
    def admin(text: str, ctx: Context) -> str:
        """Echo the text, for tokens with mcp:admin."""
        record("admin", text, ctx)
        return f"python admin: {text}"

    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    auth = {
        "resource": url,
        "authorization_servers": [info["issuer"]],
        "jwks_uri": info["jwks_uri"],
        "required_scopes": ["mcp:tools"],
        "scopes_supported": ["mcp:tools", "mcp:admin"],
        "ca_file": str(env.pki.ca),
        **options,
    }
    async with await server.start_http("127.0.0.1", port, auth=auth) as http:
        assert http.url == url
        rs.url = url
        yield rs


def browser(env: Env, steps: list[str] | None = None, redirects: list[str] | None = None) -> Any:
    """An ``on_authorize`` that drives the provider's pages over HTTP."""

    async def on_authorize(url: str, redirect_uri: str) -> str:
        back = await asyncio.to_thread(authorize_over_http, url, redirect_uri, env.pki.ca, "alice", steps)
        if redirects is not None:
            redirects.append(back)
        return back

    return on_authorize


def test_the_python_server_refuses_tokens_for_another_audience_issuer_expired_or_without_the_scope(env: Env) -> None:
    ca = env.pki.ca

    async def main() -> None:
        async with python_server(env) as rs:
            metadata = f'resource_metadata="{rs.url.replace("/mcp", "/.well-known/oauth-protected-resource/mcp")}"'

            async def token(**kwargs: Any) -> str:
                kwargs.setdefault("resource", rs.url)
                return await asyncio.to_thread(client_credentials, kwargs.pop("info", env.info), ca, **kwargs)

            async def refused(token: str | None, status: int, error: str | None, why: str) -> str:
                r = await within(asyncio.to_thread(post_initialize, rs.url, token), LIMIT)
                www = r.header("www-authenticate")
                assert r.status == status, f"{why}: {r.status} {r.text}"
                assert www.startswith("Bearer ") and metadata in www, f"{why}: {www}"
                assert 'scope="mcp:tools"' in www, f"{why}: {www}"
                if error is not None:
                    assert f'error="{error}"' in www, f"{why}: {www}"
                return www

            await refused(None, 401, None, "no token")
            good = await token()
            header, claims = decode_jwt(good)
            assert header["typ"] == "at+jwt" and claims["aud"] == rs.url and claims["iss"] == env.info["issuer"]
            assert (await asyncio.to_thread(post_initialize, rs.url, good)).status == 200

            www = await refused(await token(resource="http://127.0.0.1:1/elsewhere"), 401, "invalid_token", "audience")
            assert "not for this server" in www, www
            foreign = await token(info=env.other.info)
            assert decode_jwt(foreign)[0]["kid"] == header["kid"], "the two issuers share the signing key"
            www = await refused(foreign, 401, "invalid_token", "another issuer")
            assert "not issued by" in www, www
            expired = await token(client_id=env.info["clients"]["serviceBackdated"])
            assert decode_jwt(expired)[1]["exp"] < time.time() - 60
            www = await refused(expired, 401, "invalid_token", "expired")
            assert "expired" in www, www
            await refused(await token(scope="mcp:admin"), 403, "insufficient_scope", "without the scope")

            # A tool with its own scope (scopes=["mcp:admin"]) called with a mcp:tools token: 403
            # naming both scopes, before the handler runs (no session needed to learn that).
            call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "admin", "arguments": {}}}
            r = await within(asyncio.to_thread(post_mcp, rs.url, good, call), LIMIT)
            www = r.header("www-authenticate")
            assert r.status == 403, f"a tool's own scope: {r.status} {r.text}"
            assert 'error="insufficient_scope"' in www and 'scope="mcp:tools mcp:admin"' in www, www
            assert metadata in www, www
            assert rs.calls == []

    run(main(), 60)


def test_a_python_client_with_client_credentials_calls_the_python_server(env: Env) -> None:
    async def main() -> None:
        async with python_server(env) as rs:
            auth = OAuth(
                grant="client_credentials",
                client_id=env.info["clients"]["service"],
                client_secret=env.info["clients"]["service_secret"],
            )
            async with Client.http(rs.url, auth=auth, ca_file=env.pki.ca) as client:
                r = await within(client.call_tool("echo", {"text": "as a service"}), LIMIT)
                assert r.text == "python: as a service"
            assert rs.calls == ["as a service"]
            # The handler saw the token's subject (the client itself, acting on its own behalf).
            service = env.info["clients"]["service"]
            assert rs.callers == [("echo", service, service, ("mcp:tools",))], rs.callers
            events = await asyncio.to_thread(provider_events, env.info, env.pki.ca)
            mine = [(e["grant_type"], e["client_id"], e["scope"]) for e in events if e["aud"] == rs.url]
            assert mine == [("client_credentials", env.info["clients"]["service"], "mcp:tools")], mine

    run(main(), 60)


def test_the_command_line_authorizes_with_client_credentials(env: Env, tmp_path: Path) -> None:
    # `hypermcp call URL ... --auth client-credentials`: the engine's OAuth client, from the
    # shell; without --auth the refusal says what to add.
    cli = str(Path(sys.executable).parent / "hypermcp")
    store = tmp_path / "tokens.json"

    def shell(*args: str) -> subprocess.CompletedProcess[str]:
        env_vars = {**os.environ, "NO_COLOR": "1", "XDG_CONFIG_HOME": str(tmp_path / "config")}
        return subprocess.run([cli, *args], capture_output=True, text=True, env=env_vars, timeout=60, check=False)

    async def main() -> None:
        async with python_server(env) as rs:
            call = ["call", rs.url, "echo", "text=from the shell", "--ca-file", str(env.pki.ca)]
            refused = await asyncio.to_thread(shell, *call)
            assert refused.returncode == 1, refused
            assert "requires authorization: add --auth" in refused.stderr, refused.stderr
            service = env.info["clients"]["service"]
            secret = env.info["clients"]["service_secret"]
            creds = ["--auth", "client-credentials", "--client-id", service, "--client-secret", secret]
            done = await asyncio.to_thread(shell, *call, *creds, "--token-store", str(store))
            assert done.returncode == 0, done.stderr
            assert "python: from the shell" in done.stdout
            assert rs.calls == ["from the shell"]
            assert rs.callers == [("echo", service, service, ("mcp:tools",))], rs.callers
            # The token is kept (0600) for the next command; by default under XDG_CONFIG_HOME.
            assert store.stat().st_mode & 0o777 == 0o600
            again = await asyncio.to_thread(shell, *call, *creds)
            assert again.returncode == 0, again.stderr
            assert (tmp_path / "config" / "hypermcp" / "oauth.json").exists()
            wrong = await asyncio.to_thread(shell, *call, "--auth", "client-credentials", "--client-id", service)
            assert wrong.returncode == 2 and "needs --client-id and --client-secret" in wrong.stderr, wrong

    run(main(), 90)


def test_the_python_client_refreshes_its_token_once_it_expired(env: Env) -> None:
    client_id = env.info["clients"]["publicShort"]  # 2 s access tokens

    async def main() -> None:
        async with python_server(env) as rs:

            async def mine() -> list[dict[str, Any]]:
                events = await asyncio.to_thread(provider_events, env.info, env.pki.ca)
                return [e for e in events if e["aud"] == rs.url and e["client_id"] == client_id]

            auth = OAuth(client_id=client_id, redirect_uri=REDIRECT_URI, on_authorize=browser(env))
            # No GET stream: no request in the background, the calls alone decide when to refresh.
            async with Client.http(rs.url, auth=auth, ca_file=env.pki.ca, open_get_stream=False) as client:
                assert (await within(client.call_tool("echo", {"text": "first"}), LIMIT)).text == "python: first"
                before = await mine()
                assert before and before[0]["grant_type"] == "authorization_code", before
                # Past the expiry of the token the client holds: the next call needs a refresh.
                await asyncio.sleep(max(0.0, max(e["exp"] for e in before) - time.time()) + 1.1)
                before = await mine()
                held = before[-1]
                assert held["exp"] <= time.time(), "the token held has expired"
                assert (await within(client.call_tool("echo", {"text": "second"}), LIMIT)).text == "python: second"
            after = (await mine())[len(before) :]
            assert after, "a new token for the second call"
            assert all(e["grant_type"] == "refresh_token" for e in after), f"refreshed, not authorized again: {after}"
            assert after[0]["iat"] >= held["exp"], "the refresh came after the token expired"
            assert rs.calls == ["first", "second"]

    run(main(), 60)


def test_a_python_client_registers_gets_a_token_by_authorization_code_and_calls_the_node_server(env: Env) -> None:
    native = REPO / "bindings-node" / "native" / "index.js"
    if not native.exists():
        pytest.fail(f"{native} not found: the Node addon is not built (make node)")
    port = free_port()
    argv = [env.node, str(REPO / "tests" / "oauth" / "server.mjs"), "--port", str(port)]
    argv += ["--issuer", env.info["issuer"], "--ca-file", str(env.pki.ca), "--required-scope", "mcp:tools"]
    server = start_child(argv, "the Node server (tests/oauth/server.mjs)")

    async def main() -> None:
        steps: list[str] = []
        redirects: list[str] = []
        # No client_id: the client registers by Dynamic Client Registration.
        auth = OAuth(
            redirect_uri=REDIRECT_URI, client_name="hypermcp oauth test", on_authorize=browser(env, steps, redirects)
        )
        async with Client.http(server.info["url"], auth=auth, ca_file=env.pki.ca) as client:
            r = await within(client.call_tool("echo", {"text": "from python"}), LIMIT)
            assert r.text == "node server: from python"
        # The provider's own pages: a login form, then a consent form, each answered by a redirect.
        assert [s.split()[2] for s in steps if s.startswith("POST")] == ["303", "303"], steps
        query = parse_qs(urlsplit(redirects[0]).query)
        assert query["iss"] == [env.info["issuer"]], "RFC 9207 iss in the authorization response"
        events = [
            e for e in await asyncio.to_thread(provider_events, env.info, env.pki.ca) if e["aud"] == server.info["url"]
        ]
        assert [(e["grant_type"], e["scope"]) for e in events] == [("authorization_code", "mcp:tools")], events
        assert events[0]["client_id"] not in env.info["clients"].values(), "a dynamically registered client"
        # A thread reads the server's stdout: its line about the call may come after the answer.
        with contextlib.suppress(TimeoutError):
            await until(lambda: any('"from python"' in line for line in server.lines), 10)
        assert any('"from python"' in line for line in server.lines), server.output()
        # Without a way to authorize, the server's refusal reaches the app.
        with pytest.raises(Unauthorized):
            await within(Client.http(server.info["url"], ca_file=env.pki.ca).connect(), LIMIT)

    try:
        run(main(), 60)
    except BaseException:
        print(server.output())
        raise
    finally:
        server.stop()


def test_offline_access_is_asked_with_prompt_consent(env: Env) -> None:
    urls: list[str] = []

    async def on_authorize(url: str, redirect_uri: str) -> str:
        urls.append(url)
        raise RuntimeError("enough: the test only looks at the authorization URL")

    async def main() -> None:
        async with python_server(env) as rs:
            auth = OAuth(client_id=env.info["clients"]["public"], redirect_uri=REDIRECT_URI, on_authorize=on_authorize)
            with pytest.raises(Unauthorized):
                await within(Client.http(rs.url, auth=auth, ca_file=env.pki.ca).connect(), LIMIT)

    run(main(), 60)
    query = parse_qs(urlsplit(urls[0]).query)
    assert "offline_access" in query["scope"][0].split(), urls[0]
    assert query.get("prompt") == ["consent"], urls[0]


def test_the_python_client_steps_up_for_a_tool_with_its_own_scope(env: Env) -> None:
    client_id = env.info["clients"]["public"]

    async def main() -> None:
        async with python_server(env) as rs:
            urls: list[str] = []
            authorize = browser(env)

            async def on_authorize(url: str, redirect_uri: str) -> str:
                urls.append(url)
                return await authorize(url, redirect_uri)

            auth = OAuth(client_id=client_id, redirect_uri=REDIRECT_URI, on_authorize=on_authorize)
            async with Client.http(rs.url, auth=auth, ca_file=env.pki.ca, open_get_stream=False) as client:
                assert (await within(client.call_tool("echo", {"text": "plain"}), LIMIT)).text == "python: plain"
                # 403 insufficient_scope naming mcp:admin: the client authorizes again for both scopes.
                r = await within(client.call_tool("admin", {"text": "stepped up"}), LIMIT)
                assert r.text == "python admin: stepped up"
            scopes = [parse_qs(urlsplit(u).query)["scope"][0].split() for u in urls]
            assert len(scopes) == 2, urls
            assert "mcp:admin" not in scopes[0] and {"mcp:tools", "mcp:admin"} <= set(scopes[1]), scopes
            events = await asyncio.to_thread(provider_events, env.info, env.pki.ca)
            mine = [(e["grant_type"], e["scope"]) for e in events if e["aud"] == rs.url]
            assert mine == [("authorization_code", "mcp:tools"), ("authorization_code", "mcp:tools mcp:admin")], mine
            # The handlers saw the provider's subject (the user who logged in) and the scopes.
            assert rs.callers == [
                ("echo", "alice", client_id, ("mcp:tools",)),
                ("admin", "alice", client_id, ("mcp:tools", "mcp:admin")),
            ], rs.callers

    run(main(), 60)


def test_a_key_rotation_is_picked_up_after_jwks_refetch_interval(env: Env) -> None:
    # A provider of its own: the rotation must not disturb the other tests.
    provider = start_provider(env.node, env.pki)
    info, ca, every = provider.info, env.pki.ca, 1.0

    async def main() -> None:
        async with python_server(env, info, jwks_refetch_interval=every) as rs:  # seconds

            async def post(token: str) -> Any:
                return await within(asyncio.to_thread(post_initialize, rs.url, token), LIMIT)

            old = await asyncio.to_thread(client_credentials, info, ca, rs.url)
            asked = time.monotonic()  # the server fetches the JWKS after this
            assert (await post(old)).status == 200, "the first key"
            fetched = time.monotonic()  # and before this
            rotated = await asyncio.to_thread(rotate_key, info, ca)
            assert rotated["previous"] == decode_jwt(old)[0]["kid"]
            new = await asyncio.to_thread(client_credentials, info, ca, rs.url)
            assert decode_jwt(new)[0]["kid"] == rotated["kid"]
            # Within the interval of its last fetch the server keeps its keys (checked only when
            # this request goes out in time, on a slow machine).
            sent = time.monotonic()
            early = await post(new)
            if sent < asked + every:
                assert early.status == 401 and "unknown key" in early.header("www-authenticate"), early
            # Past it, the unknown kid makes it fetch the JWKS again: the new key's token is
            # accepted, the removed key's is not any more.
            await asyncio.sleep(max(0.0, fetched + every + 0.1 - time.monotonic()))
            assert (await post(new)).status == 200, "the new key, after the interval"
            stale = await post(old)
            assert stale.status == 401 and "unknown key" in stale.header("www-authenticate"), stale

    try:
        run(main(), 60)
    except BaseException:
        print(provider.output())
        raise
    finally:
        provider.stop()


# ---- interop with the official Python SDK ----------------------------------------------------

SDK_PYTHON = PEERS / "venv" / "bin" / "python"


def need_sdk() -> Path:
    """The peers venv's python (with the official SDK); skips (fails under
    HYPERMCP_REQUIRE_PEERS=1) without it."""
    if not SDK_PYTHON.exists():
        why = f"{SDK_PYTHON} not found (run make peers)"
        if os.environ.get("HYPERMCP_REQUIRE_PEERS") == "1":
            pytest.fail(f"HYPERMCP_REQUIRE_PEERS=1 but the official Python SDK cannot run: {why}")
        pytest.skip(why)
    return SDK_PYTHON


@dataclass
class SdkRun:
    """What the official SDK's client did: its exit code, its events, its output."""

    returncode: int
    events: list[dict[str, Any]]
    output: str

    def of(self, kind: str) -> list[dict[str, Any]]:
        return [e for e in self.events if e["event"] == kind]


def sdk_client(env: Env, url: str, *calls: str, client_id: str | None = None) -> SdkRun:
    """Runs the official SDK's OAuth client (tests/oauth/py_sdk_client.py) against ``url``,
    calling each ``TOOL=TEXT`` of ``calls``, registering by DCR unless ``client_id``."""
    argv = [str(need_sdk()), str(REPO / "tests" / "oauth" / "py_sdk_client.py"), "--url", url]
    argv += ["--redirect-uri", REDIRECT_URI, "--timeout", "30"]
    argv += [a for c in calls for a in ("--call", c)]
    if client_id is not None:
        argv += ["--client-id", client_id]
    # The SDK (httpx2) trusts SSL_CERT_FILE: the test CA, for the authorization server.
    sdk_env = {**os.environ, "SSL_CERT_FILE": str(env.pki.ca)}
    sdk_env.pop("SSL_CERT_DIR", None)
    p = subprocess.run(argv, env=sdk_env, capture_output=True, text=True, timeout=45)
    events = [json.loads(line) for line in p.stdout.splitlines() if line.startswith("{")]
    return SdkRun(p.returncode, events, f"the official SDK client (exit {p.returncode}):\n{p.stdout}\n{p.stderr}")


def test_the_official_sdk_client_registers_authorizes_and_steps_up_at_the_python_server(env: Env) -> None:
    async def main() -> None:
        async with python_server(env) as rs:

            async def issued() -> list[tuple[str, str, str]]:
                events = await asyncio.to_thread(provider_events, env.info, env.pki.ca)
                return [(e["grant_type"], e["client_id"], e["scope"]) for e in events if e["aud"] == rs.url]

            # A pre-registered public client: discovery, authorization code + PKCE, a tool; then
            # the tool with its own scope: 403 insufficient_scope, and the SDK steps up.
            public = env.info["clients"]["public"]
            sdk = await asyncio.to_thread(
                sdk_client, env, rs.url, "echo=from the sdk", "admin=sdk step-up", client_id=public
            )
            assert sdk.returncode == 0, sdk.output
            called = [(e["tool"], e["text"]) for e in sdk.of("called")]
            assert called == [("echo", "python: from the sdk"), ("admin", "python admin: sdk step-up")], sdk.output
            # Two authorizations for our resource: the challenge's scope (with offline_access,
            # so prompt=consent), then the union with the scope of the 403 (SEP-2350).
            asked = sdk.of("authorize")
            # The provider is on another origin than our server: the SDK found it only through
            # our Protected Resource Metadata (authorization_servers), then its AS metadata.
            assert all(e["url"].startswith(env.info["authorization_endpoint"] + "?") for e in asked), sdk.output
            assert [e["resource"] for e in asked] == [rs.url, rs.url], sdk.output
            assert [e["scope"].split() for e in asked] == [
                ["mcp:tools", "offline_access"],
                ["mcp:tools", "offline_access", "mcp:admin"],
            ], sdk.output
            assert [e["prompt"] for e in asked] == ["consent", "consent"], sdk.output
            assert [e["refresh_token"] for e in sdk.of("tokens")] == [True, True], sdk.output
            assert await issued() == [
                ("authorization_code", public, "mcp:tools"),
                ("authorization_code", public, "mcp:tools mcp:admin"),
            ]
            assert rs.callers == [
                ("echo", "alice", public, ("mcp:tools",)),
                ("admin", "alice", public, ("mcp:tools", "mcp:admin")),
            ], rs.callers

            # Dynamic Client Registration: the SDK registers with the scope of the first
            # challenge (RFC 7591 `scope`: what the client may ask for), which oidc-provider then
            # enforces: the step-up to mcp:admin is refused (invalid_scope) and the SDK gives up
            # (it does not register again). A limit of the SDK with such servers, not ours.
            sdk = await asyncio.to_thread(sdk_client, env, rs.url, "echo=registered", "admin=not allowed")
            assert sdk.returncode == 1, sdk.output
            registered = sdk.of("registered")
            assert len(registered) == 1, sdk.output
            client_id = registered[0]["client_id"]
            assert client_id not in env.info["clients"].values(), sdk.output
            assert [(e["tool"], e["text"]) for e in sdk.of("called")] == [("echo", "python: registered")], sdk.output
            assert [e["scope"] for e in sdk.of("authorize")] == [
                "mcp:tools offline_access",
                "mcp:tools offline_access mcp:admin",
            ], sdk.output
            refused = sdk.of("refused")
            assert [(e["error"], e["scope"]) for e in refused] == [("invalid_scope", "mcp:admin")], sdk.output
            assert (await issued())[2:] == [("authorization_code", client_id, "mcp:tools")]
            assert rs.callers[2:] == [("echo", "alice", client_id, ("mcp:tools",))], rs.callers

    run(main(), 60)


def test_the_python_client_authorizes_at_the_official_sdk_server(env: Env) -> None:
    python = need_sdk()
    port = free_port()
    argv = [str(python), str(REPO / "tests" / "oauth" / "py_sdk_server.py"), "--port", str(port)]
    argv += ["--issuer", env.info["issuer"], "--ca-file", str(env.pki.ca), "--required-scope", "mcp:tools"]
    server = start_child(argv, "the official SDK's server (tests/oauth/py_sdk_server.py)")
    url = server.info["url"]

    async def main() -> None:
        # The SDK's refusal without a token: 401 naming its Protected Resource Metadata.
        r = await asyncio.to_thread(post_initialize, url, None)
        assert r.status == 401, r
        assert 'resource_metadata="' in r.header("www-authenticate"), r.headers

        steps: list[str] = []
        client_id = env.info["clients"]["public"]
        auth = OAuth(client_id=client_id, redirect_uri=REDIRECT_URI, on_authorize=browser(env, steps))
        async with Client.http(url, auth=auth, ca_file=env.pki.ca) as client:
            r = await within(client.call_tool("echo", {"text": "from hypermcp"}), LIMIT)
            assert r.text == "sdk server: from hypermcp"
        assert [s.split()[2] for s in steps if s.startswith("POST")] == ["303", "303"], steps
        events = [e for e in await asyncio.to_thread(provider_events, env.info, env.pki.ca) if e["aud"] == url]
        assert [(e["grant_type"], e["client_id"], e["scope"]) for e in events] == [
            ("authorization_code", client_id, "mcp:tools")
        ], events
        with contextlib.suppress(TimeoutError):
            await until(lambda: any('"called"' in line for line in server.lines), 10)
        calls = [json.loads(line) for line in server.lines if '"called"' in line]
        assert calls == [
            {
                "called": "echo",
                "text": "from hypermcp",
                "subject": "alice",
                "client_id": client_id,
                "scopes": ["mcp:tools"],
            }
        ], server.output()

    try:
        run(main(), 60)
    except BaseException:
        print(server.output())
        raise
    finally:
        server.stop()

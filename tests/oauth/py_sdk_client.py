"""The official Python SDK's OAuth client (mcp 2.3.0, run by the peers venv's python) against
an MCP server that requires tokens from the test's authorization server: for our servers in
the OAuth tests.

    SSL_CERT_FILE=CA.pem .peers/venv/bin/python tests/oauth/py_sdk_client.py --url URL \\
        --redirect-uri URI [--client-id ID] [--call TOOL=TEXT]... [--timeout SECONDS]

The SDK's ``OAuthClientProvider`` (an httpx2 auth) with an in-memory ``TokenStorage``: on the
server's 401 it discovers the Protected Resource Metadata and the authorization server's
metadata, registers by Dynamic Client Registration (or uses ``--client-id``, a pre-registered
public client), and authorizes by code + PKCE; its redirect handler drives the provider's login
and consent pages over HTTP (tests/python/_oauth.py, no browser), its callback handler hands the
code back. Then it initializes and calls each ``--call`` tool with ``{"text": TEXT}`` in order
(a tool needing another scope makes the server answer 403 ``insufficient_scope``: the SDK
steps up). The SDK reaches the authorization server over HTTPS trusting ``SSL_CERT_FILE``
(httpx2's default context honours it); the login driver uses the same file.

One JSON line on stdout per step: ``{"event": "authorize", "url", "scope", "prompt",
"resource"}``, ``{"event": "registered", "client_id", "token_endpoint_auth_method"}``,
``{"event": "tokens", "scope", "refresh_token": bool}``, ``{"event": "called", "tool", "text",
"is_error"}``, ``{"event": "refused", "error", "error_description", "scope"}`` (an authorization
answered with an error instead of a code). Exits 0 when every call succeeded, 1 with a message on stderr otherwise.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import anyio
from mcp import ClientSession
from mcp.client.auth import OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.auth import AuthorizationCodeResult, OAuthClientInformationFull, OAuthClientMetadata, OAuthToken

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))
from _oauth import authorize_over_http


def say(obj: object) -> None:
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def first(query: dict[str, list[str]], name: str) -> str | None:
    values = query.get(name)
    return values[0] if values else None


class MemoryStorage:
    """The SDK's ``TokenStorage`` protocol, in memory; reports what it is given."""

    def __init__(self, client_info: OAuthClientInformationFull | None) -> None:
        self.tokens: OAuthToken | None = None
        self.client_info = client_info

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens
        say({"event": "tokens", "scope": tokens.scope, "refresh_token": tokens.refresh_token is not None})

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client_info

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client_info = client_info
        say(
            {
                "event": "registered",
                "client_id": client_info.client_id,
                "token_endpoint_auth_method": client_info.token_endpoint_auth_method,
            }
        )


async def run(args: argparse.Namespace) -> None:
    ca = os.environ.get("SSL_CERT_FILE")
    if not ca:
        raise SystemExit("py_sdk_client: set SSL_CERT_FILE to the test CA")
    redirects: list[str] = []

    async def redirect_handler(url: str) -> None:
        query = parse_qs(urlsplit(url).query)
        say(
            {
                "event": "authorize",
                "url": url,
                "scope": first(query, "scope"),
                "prompt": first(query, "prompt"),
                "resource": first(query, "resource"),
            }
        )
        redirects.append(await anyio.to_thread.run_sync(authorize_over_http, url, args.redirect_uri, Path(ca)))

    async def callback_handler() -> AuthorizationCodeResult:
        query = parse_qs(urlsplit(redirects.pop()).query)
        code = first(query, "code")
        if code is None:
            error = {k: first(query, k) for k in ("error", "error_description", "scope")}
            say({"event": "refused", **error})
            raise RuntimeError(f"the authorization server sent no code back: {error}")
        return AuthorizationCodeResult(code=code, state=first(query, "state"), iss=first(query, "iss"))

    metadata = OAuthClientMetadata(client_name="official python sdk oauth test", redirect_uris=[args.redirect_uri])
    known = None
    if args.client_id:
        known = OAuthClientInformationFull(
            client_id=args.client_id, token_endpoint_auth_method="none", redirect_uris=[args.redirect_uri]
        )
    provider = OAuthClientProvider(
        server_url=args.url,
        client_metadata=metadata,
        storage=MemoryStorage(known),
        redirect_handler=redirect_handler,
        callback_handler=callback_handler,
    )
    async with (
        create_mcp_http_client(auth=provider) as http,
        streamable_http_client(args.url, http_client=http) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        for call in args.call:
            tool, _, text = call.partition("=")
            r = await session.call_tool(tool, {"text": text})
            content = r.content[0] if r.content else None
            say({"event": "called", "tool": tool, "text": getattr(content, "text", None), "is_error": r.is_error})
            if r.is_error:
                raise RuntimeError(f"{tool} answered an error: {r.model_dump(mode='json', exclude_none=True)}")


def describe(exc: BaseException) -> str:
    """One line for a failure, unwrapping the exception groups of the SDK's task groups."""
    from builtins import BaseExceptionGroup  # Python 3.11, as the peers venv's

    while isinstance(exc, BaseExceptionGroup) and len(exc.exceptions) == 1:
        exc = exc.exceptions[0]
    if isinstance(exc, BaseExceptionGroup):
        return "; ".join(describe(e) for e in exc.exceptions)
    return f"{type(exc).__name__}: {exc}"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", required=True)
    parser.add_argument("--redirect-uri", required=True)
    parser.add_argument("--client-id")
    parser.add_argument("--call", action="append", default=[], metavar="TOOL=TEXT")
    parser.add_argument("--timeout", type=float, default=30.0)
    args = parser.parse_args()

    async def bounded() -> None:
        with anyio.fail_after(args.timeout):
            await run(args)

    try:
        anyio.run(bounded)
    except BaseException as exc:  # noqa: BLE001 - any failure fails the run, with its reason
        print(f"py_sdk_client: FAIL: {describe(exc)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

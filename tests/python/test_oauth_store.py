"""The app's own token store (``OAuth(token_store=obj)``) against a real authorization server
(oidc-provider, as in test_oauth_provider.py): the client's registrations and tokens go to the
app's object (sync or async methods), a second client reuses the stored token without a new
grant, and a store that fails makes the authorization fail with its reason.

Needs oidc-provider in <peers>/oauth (make peers): skipped without it, unless
HYPERMCP_REQUIRE_PEERS=1, which makes that a failure.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from _helpers import run, within
from _oauth import provider_events
from hypermcp import Client, OAuth, TokenStore
from hypermcp.errors import Unauthorized
from test_oauth_provider import (
    LIMIT,
    Env,
    env,  # noqa: F401 - its fixture, shared
    python_server,
)


class DictStore:
    """A store in dicts: async loads, sync saves (both kinds are accepted)."""

    def __init__(self, fail_saves: bool = False) -> None:
        self.clients: dict[str, dict[str, Any]] = {}
        self.tokens: dict[tuple[str, str], dict[str, Any]] = {}
        self.calls: list[str] = []
        self.fail_saves = fail_saves

    async def load_client(self, issuer: str) -> dict[str, Any] | None:
        self.calls.append("load_client")
        return self.clients.get(issuer)

    def save_client(self, issuer: str, client: dict[str, Any]) -> None:
        self.calls.append("save_client")
        self.clients[issuer] = client

    async def load_tokens(self, issuer: str, resource: str) -> dict[str, Any] | None:
        self.calls.append("load_tokens")
        await asyncio.sleep(0)
        return self.tokens.get((issuer, resource))

    def save_tokens(self, issuer: str, resource: str, tokens: dict[str, Any] | None) -> None:
        self.calls.append("save_tokens")
        if self.fail_saves:
            raise OSError("the keychain is locked")
        if tokens is None:
            self.tokens.pop((issuer, resource), None)
        else:
            self.tokens[(issuer, resource)] = tokens


def test_the_apps_token_store_keeps_and_gives_back_the_tokens(env: Env) -> None:  # noqa: F811 - the fixture
    service = env.info["clients"]["service"]

    async def main() -> None:
        with pytest.raises(TypeError, match="load_client"):
            OAuth(token_store=object())  # type: ignore[arg-type]
        store = DictStore()
        assert isinstance(store, TokenStore)
        async with python_server(env) as rs:

            def auth(s: DictStore) -> OAuth:
                secret = env.info["clients"]["service_secret"]
                return OAuth(grant="client_credentials", client_id=service, client_secret=secret, token_store=s)

            async with Client.http(rs.url, auth=auth(store), ca_file=env.pki.ca) as client:
                r = await within(client.call_tool("echo", {"text": "stored"}), LIMIT)
                assert r.text == "python: stored"
            ((issuer, resource), tokens) = next(iter(store.tokens.items()))
            assert issuer == env.info["issuer"] and resource == rs.url, (issuer, resource)
            assert tokens["access_token"] and tokens["scopes"] == ["mcp:tools"], sorted(tokens)
            assert "save_tokens" in store.calls

            # A second client with the same store: the stored token, no new grant.
            async with Client.http(rs.url, auth=auth(store), ca_file=env.pki.ca) as client:
                r = await within(client.call_tool("echo", {"text": "again"}), LIMIT)
                assert r.text == "python: again"
            events = await asyncio.to_thread(provider_events, env.info, env.pki.ca)
            grants = [e for e in events if e["aud"] == rs.url]
            assert len(grants) == 1, grants
            assert rs.calls == ["stored", "again"]

            # A store that cannot save: the authorization fails with its reason.
            with pytest.raises(Unauthorized, match="save_tokens failed: OSError: the keychain is locked"):
                await within(Client.http(rs.url, auth=auth(DictStore(fail_saves=True)), ca_file=env.pki.ca).connect())

    run(main(), 60)

"""A notes server that requires an OAuth access token: the HTTP server is an OAuth 2.1
resource server (the ``auth`` option). It publishes its Protected Resource Metadata, verifies
each request's JWT against the authorization server's JWKS (issuer, audience = this server's
URL, expiry, signature), answers 401 / 403 with ``WWW-Authenticate`` so that clients know
where to get a token, and tells handlers who called (``ctx.auth``). Writing a note needs a
scope of its own: a token without it gets 403 ``insufficient_scope`` and the client steps up.

    python examples/python/protected_server.py --issuer https://login.example.com \\
        --jwks-uri https://login.example.com/jwks --port 8000

Any OAuth 2.1 / OpenID provider issuing JWT access tokens with the RFC 8707 ``resource`` works
(Keycloak, Auth0, Okta, Entra ID, oidc-provider...). Clients: ``examples/node/oauth_client.mjs``
or any MCP client that supports authorization.
"""

from __future__ import annotations

import argparse
from typing import Any

from hypermcp import Context, Server

server = Server("notes", "1.0.0", instructions="Personal notes, per signed-in user.")
NOTES: dict[str, list[str]] = {}


def _user(ctx: Context) -> str:
    auth = ctx.auth
    assert auth is not None, "the auth option admits only verified tokens"
    return auth.subject or auth.client_id or "anonymous"


@server.tool
def whoami(ctx: Context) -> dict[str, Any]:
    """Who the access token speaks for."""
    auth = ctx.auth
    assert auth is not None
    return {"subject": auth.subject, "client_id": auth.client_id, "scopes": list(auth.scopes)}


@server.tool
def list_notes(ctx: Context) -> list[str]:
    """The caller's notes."""
    return NOTES.get(_user(ctx), [])


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--issuer", required=True, help="the authorization server (its issuer URL)")
    p.add_argument("--jwks-uri", required=True, help="where its signing keys are published")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument("--resource", help="this server's public URL (default http://HOST:PORT/mcp)")
    p.add_argument("--read-scope", default="notes:read", help="the scope every request needs")
    p.add_argument("--write-scope", default="notes:write", help="the scope add_note needs")
    p.add_argument("--ca-file", help="PEM CA certificates to trust for the JWKS (a private CA)")
    args = p.parse_args()

    @server.tool(scopes=[args.write_scope])
    def add_note(text: str, ctx: Context) -> str:
        """Adds a note (needs the write scope)."""
        NOTES.setdefault(_user(ctx), []).append(text)
        return f"saved note {len(NOTES[_user(ctx)])}"

    resource = args.resource or f"http://{args.host}:{args.port}/mcp"
    auth = {
        "resource": resource,
        "authorization_servers": [args.issuer],
        "jwks_uri": args.jwks_uri,
        "required_scopes": [args.read_scope],
        "scopes_supported": [args.read_scope, args.write_scope],
        "ca_file": args.ca_file,
    }
    print(f"notes server at {resource} (tokens from {args.issuer})", flush=True)
    server.run("http", host=args.host, port=args.port, auth=auth)


if __name__ == "__main__":
    main()

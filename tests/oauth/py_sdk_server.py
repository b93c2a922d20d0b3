"""An MCP server written with the official Python SDK (mcp 2.3.0, run by the peers venv's
python) that requires OAuth access tokens from the test's authorization server: for our
clients in the OAuth tests.

    .peers/venv/bin/python tests/oauth/py_sdk_server.py --port PORT --issuer URL --ca-file CA.pem \\
        [--required-scope S]...

The SDK's own resource server: ``AuthSettings`` (the issuer, ``resource_server_url`` =
http://127.0.0.1:PORT/mcp, ``required_scopes``, ``validate_token_resource``) and a
``TokenVerifier`` that checks the provider's JWTs with PyJWT against its JWKS (fetched over
HTTPS trusting CA.pem): signature, ``iss``, ``aud`` (the resource) and ``exp``. The SDK then
serves the Protected Resource Metadata and answers a request without a good token with 401 (403
without the scopes) and ``WWW-Authenticate: Bearer ... resource_metadata=...``.

Prints ``{"url": ...}`` on stdout when it listens, then one JSON line per tool call
(``{"called": "echo", "text": ..., "subject": ..., "client_id": ..., "scopes": [...]}``, who the
SDK says called) and one per refused token (``{"refused": why}``). Stops on SIGTERM or when
stdin closes.
"""

from __future__ import annotations

import argparse
import json
import socket
import ssl
import sys
import threading
from typing import Any

import anyio
import jwt
import uvicorn
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import MCPServer


def say(obj: object) -> None:
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


class JwtVerifier:
    """The SDK's ``TokenVerifier`` protocol: a JWT access token signed by a key of the issuer's
    JWKS, for this resource."""

    def __init__(self, issuer: str, resource: str, ca_file: str) -> None:
        self.issuer = issuer
        self.resource = resource
        context = ssl.create_default_context(cafile=ca_file)
        self.keys = jwt.PyJWKClient(f"{issuer}/jwks", ssl_context=context, timeout=10)

    def check(self, token: str) -> dict[str, Any]:
        key = self.keys.get_signing_key_from_jwt(token)
        return dict(
            jwt.decode(
                token,
                key.key,
                algorithms=["ES256", "RS256", "PS256"],
                audience=self.resource,
                issuer=self.issuer,
                options={"require": ["exp", "iss", "aud"]},
            )
        )

    async def verify_token(self, token: str) -> AccessToken | None:
        try:
            claims = await anyio.to_thread.run_sync(self.check, token)
        except Exception as e:  # noqa: BLE001 - any failure refuses the token
            say({"refused": f"{type(e).__name__}: {e}"})
            return None
        aud = claims["aud"]
        return AccessToken(
            token=token,
            client_id=str(claims.get("client_id") or claims.get("azp") or ""),
            scopes=str(claims.get("scope") or "").split(),
            expires_at=int(claims["exp"]),
            resource=aud if isinstance(aud, str) else self.resource,
            subject=claims.get("sub"),
            claims=claims,
        )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--issuer", required=True)
    parser.add_argument("--ca-file", required=True)
    parser.add_argument("--required-scope", action="append", default=[])
    args = parser.parse_args()

    resource = f"http://127.0.0.1:{args.port}/mcp"
    auth = AuthSettings(
        issuer_url=args.issuer,
        resource_server_url=resource,
        required_scopes=args.required_scope,
        validate_token_resource=True,
    )
    mcp = MCPServer(
        "oauth-py-sdk-server",
        version="1.0.0",
        auth=auth,
        token_verifier=JwtVerifier(args.issuer, resource, args.ca_file),
        log_level="WARNING",
    )

    @mcp.tool()
    def echo(text: str) -> str:
        """Echo the text."""
        token = get_access_token()
        say(
            {
                "called": "echo",
                "text": text,
                "subject": token.subject if token else None,
                "client_id": token.client_id if token else None,
                "scopes": token.scopes if token else None,
            }
        )
        return f"sdk server: {text}"

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", args.port))
    sock.listen(128)
    config = uvicorn.Config(mcp.streamable_http_app(host="127.0.0.1"), log_level="warning", access_log=False)

    class Server(uvicorn.Server):
        async def startup(self, sockets: list[socket.socket] | None = None) -> None:
            await super().startup(sockets)
            say({"url": resource})

    server = Server(config)

    def watch_stdin() -> None:
        while sys.stdin.buffer.read1(4096):
            pass
        server.should_exit = True

    threading.Thread(target=watch_stdin, daemon=True).start()
    anyio.run(lambda: server.serve(sockets=[sock]))


if __name__ == "__main__":
    main()

"""OAuth 2.1 for :meth:`Client.http <hypermcp.client.Client.http>`: what the client needs to
authorize at the server's authorization server (spec "Authorization").

The flows run in the engine: on ``401`` (or ``403`` with ``insufficient_scope``) the client
discovers the authorization server from the server's Protected Resource Metadata, registers
(a pre-registered ``client_id``, a Client ID Metadata Document, or Dynamic Client
Registration), sends the user to authorize (authorization code + PKCE), gets a token and sends
the request again; tokens are refreshed before they expire. ::

    from hypermcp import Client, OAuth

    auth = OAuth(redirect_uri="http://127.0.0.1:8765/callback", token_store="~/.myapp/tokens.json")
    async with Client.http("https://mcp.example.com/mcp", auth=auth) as client:
        print(await client.list_tools())
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Literal, Protocol, runtime_checkable

#: Sends the user to ``url`` and returns the URL the authorization server redirected to (the
#: ``redirect_uri`` with ``code``, ``state`` and ``iss``); may be async. Raising fails the
#: authorization with that message.
AuthorizeHandler = Callable[[str, str], "str | Awaitable[str]"]

__all__ = ["AuthorizeHandler", "OAuth", "TokenStore"]


@runtime_checkable
class TokenStore(Protocol):
    """Where an :class:`OAuth` client keeps its registrations and tokens: the app's own (a
    keychain, a database), passed as ``OAuth(token_store=...)``. Methods may be sync or async;
    they are called around authorizations only, never per request.

    Registrations are keyed by the authorization server's ``issuer``, tokens by issuer and
    ``resource`` (the MCP server's URI). Values are plain dicts: a client ``{"client_id",
    "client_secret"?, "token_endpoint_auth_method"?, "redirect_uri"?}``, tokens
    ``{"access_token", "token_type", "refresh_token"?, "expires_at"?, "scopes"}``: store them
    as they come (they are secrets). A load returns None when there is nothing; an exception
    fails the authorization with its message."""

    def load_client(self, issuer: str) -> dict[str, Any] | None | Awaitable[dict[str, Any] | None]: ...

    def save_client(self, issuer: str, client: dict[str, Any]) -> None | Awaitable[None]: ...

    def load_tokens(self, issuer: str, resource: str) -> dict[str, Any] | None | Awaitable[dict[str, Any] | None]: ...

    def save_tokens(self, issuer: str, resource: str, tokens: dict[str, Any] | None) -> None | Awaitable[None]:
        """Saves the tokens (None: forget them)."""
        ...


class OAuth:
    """How the client authorizes (every argument is optional).

    - ``client_id`` / ``client_secret`` / ``token_endpoint_auth_method``: a pre-registered
      client (used first); the method defaults to what the authorization server supports
      (``client_secret_basic``, ``client_secret_post``, ``private_key_jwt`` with
      ``private_key_pem``, or ``none``).
    - ``client_metadata_url``: the HTTPS URL of this client's Client ID Metadata Document, used
      as the client id where the authorization server supports such documents.
    - ``client_name``, ``redirect_uri``, ``application_type`` (``"native"`` or ``"web"``;
      by default ``native`` for a loopback redirect URI): what Dynamic Client Registration sends.
    - ``scopes``: scopes always asked for, besides those the server challenges with (by
      default the challenge's, else the resource's ``scopes_supported``).
    - ``offline_access``: ask for a refresh token where offered (default True).
    - ``grant``: ``"authorization_code"`` (a user authorizes; the default),
      ``"client_credentials"`` (the client acts on its own behalf; needs ``client_id`` and
      ``client_secret`` or ``private_key_pem``), ``"jwt_bearer"`` (workload identity
      federation: ``assertion``, or ``assertion_file`` read at each token request) or
      ``"enterprise_managed"`` (the user's ``id_token`` is exchanged at the identity provider's
      ``idp_token_endpoint``, as ``idp_client_id`` / ``idp_client_secret``, for an ID-JAG the
      authorization server takes).
    - ``private_key_pem`` / ``signing_algorithm`` (``ES256`` by default): authenticate at the
      token endpoint with ``private_key_jwt`` instead of a secret.
    - ``dpop``: bind tokens to a DPoP key where the authorization server supports it (default
      True); every request then carries a fresh proof, with the servers' nonces.
    - ``authorize``: ``"browser"`` (open the system browser and receive the redirect on the
      loopback ``redirect_uri``; the URL is printed too) or ``"headless"`` (follow the
      authorization server's redirects without a browser, for servers that approve without
      user interaction).
    - ``on_authorize``: the app's own way to send the user (``on_authorize(url, redirect_uri)``,
      sync or async, returns the URL the authorization server redirected to); overrides
      ``authorize``.
    - ``token_store``: a JSON file keeping registrations and tokens across runs (mode 0600),
      or the app's own :class:`TokenStore` object; by default they live in memory.
    - ``max_authorizations``: authorizations one request may trigger (default 3), so a server
      that keeps refusing cannot loop the client.
    """

    __slots__ = ("on_authorize", "options", "store")

    def __init__(
        self,
        *,
        client_id: str | None = None,
        client_secret: str | None = None,
        token_endpoint_auth_method: Literal["client_secret_basic", "client_secret_post", "private_key_jwt", "none"]
        | None = None,
        client_metadata_url: str | None = None,
        client_name: str | None = None,
        redirect_uri: str | None = None,
        application_type: Literal["native", "web"] | None = None,
        scopes: str | Sequence[str] | None = None,
        offline_access: bool = True,
        grant: Literal["authorization_code", "client_credentials", "jwt_bearer", "enterprise_managed"] = (
            "authorization_code"
        ),
        private_key_pem: str | None = None,
        signing_algorithm: str | None = None,
        assertion: str | None = None,
        assertion_file: str | os.PathLike[str] | None = None,
        id_token: str | None = None,
        idp_token_endpoint: str | None = None,
        idp_client_id: str | None = None,
        idp_client_secret: str | None = None,
        dpop: bool = True,
        authorize: Literal["browser", "headless"] = "browser",
        token_store: str | os.PathLike[str] | TokenStore | None = None,
        max_authorizations: int = 3,
        on_authorize: AuthorizeHandler | None = None,
    ) -> None:
        options: dict[str, Any] = {
            "offline_access": offline_access,
            "grant": grant,
            "authorize": authorize,
            "max_authorizations": max_authorizations,
            "dpop": dpop,
        }
        given = {
            "client_id": client_id,
            "client_secret": client_secret,
            "token_endpoint_auth_method": token_endpoint_auth_method,
            "client_metadata_url": client_metadata_url,
            "client_name": client_name,
            "redirect_uri": redirect_uri,
            "application_type": application_type,
            "private_key_pem": private_key_pem,
            "signing_algorithm": signing_algorithm,
            "assertion": assertion,
            "id_token": id_token,
            "idp_token_endpoint": idp_token_endpoint,
            "idp_client_id": idp_client_id,
            "idp_client_secret": idp_client_secret,
        }
        options.update({k: v for k, v in given.items() if v is not None})
        if scopes is not None:
            options["scopes"] = scopes if isinstance(scopes, str) else list(scopes)
        if assertion_file is not None:
            options["assertion_file"] = os.fspath(assertion_file)
        #: The app's own token store, if any.
        self.store: TokenStore | None = None
        if isinstance(token_store, (str, os.PathLike)):
            options["token_store"] = os.path.expanduser(os.fspath(token_store))
        elif token_store is not None:
            if not isinstance(token_store, TokenStore):
                raise TypeError(
                    "token_store: a file path or an object with load_client, save_client, load_tokens "
                    f"and save_tokens methods, not {type(token_store).__name__}"
                )
            self.store = token_store
            options["token_store"] = True
        if on_authorize is not None:
            options["authorize"] = "host"
        #: The app's authorization handler, if any.
        self.on_authorize = on_authorize
        #: The options as the engine reads them.
        self.options = options

    def __repr__(self) -> str:
        secret = {"client_secret", "private_key_pem", "assertion", "id_token", "idp_client_secret"}
        shown = {k: ("<set>" if k in secret else v) for k, v in self.options.items()}
        return f"OAuth({shown})"

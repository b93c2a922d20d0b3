"""The MCP conformance-suite client: ``conformance_client.py <server-url>``.

The official harness (``@modelcontextprotocol/conformance client``) starts a mock server per
scenario and runs this with the scenario name in ``MCP_CONFORMANCE_SCENARIO``:

- ``initialize``: connect (Streamable HTTP, protocol 2025-11-25) and list the tools;
- ``tools_call``: call ``add_numbers`` with ``{a, b}``;
- ``elicitation-sep1034-client-defaults``: answer the server's elicitation by accepting with
  every default its schema gives;
- ``sse-retry`` (and anything else): call each tool; the transport resumes broken SSE streams
  with ``Last-Event-ID`` after the server's ``retry`` delay;
- ``json-schema-2020-12-preservation``: hand the listed ``inputSchema`` of
  ``json_schema_2020_12_tool`` back, as listed, to the ``json_schema_echo`` tool;
- ``sep-2640-client-no-prefetch``: list the skills, fetch nothing;
- ``sep-2640-client-verify-*``: load the first skill and read its files, each verified against
  the skill's entry; a file failing verification is refused (printed, exit 0).

The era comes from ``MCP_CONFORMANCE_PROTOCOL_VERSION``: ``2026-07-28`` runs the stateless
client (``mode="modern"``: per-request ``_meta`` and ``Mcp-*`` headers, ``input_required``
answered through the elicitation handler, tools with invalid ``x-mcp-header`` annotations
dropped), which calls each tool (with the arguments ``MCP_CONFORMANCE_CONTEXT`` gives, else
sample values of the required ones), reads every resource and gets every prompt; another
revision runs the ``initialize`` handshake; unset, the client probes (``mode="auto"``).

The ``auth/*`` scenarios put an OAuth-protected server before the same plays: the client
authorizes with :class:`~hypermcp.OAuth` (``on_authorize`` reads the redirect the harness's
authorization servers answer with at once; its Client ID Metadata Document URL; the
pre-registered credentials ``MCP_CONFORMANCE_CONTEXT`` gives, a secret or a private key; the
workload token of ``auth/wif-jwt-bearer`` and the identity provider of
``auth/enterprise-managed-authorization``; DPoP where the authorization server offers it).

Exits 0 on success, 1 with a message otherwise.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from typing import Any

from hypermcp import Client, OAuth, SkillVerificationError

#: The harness's Client ID Metadata Document URL (its authorization servers accept it as is).
CLIENT_METADATA_URL = "https://conformance-test.local/client-metadata.json"


def conformance_auth(scenario: str) -> OAuth:
    """OAuth for an ``auth/*`` scenario."""
    ctx = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}")
    grant = "authorization_code"
    if scenario.startswith("auth/client-credentials"):
        grant = "client_credentials"
    elif scenario == "auth/wif-jwt-bearer":
        grant = "jwt_bearer"
    elif scenario == "auth/enterprise-managed-authorization":
        grant = "enterprise_managed"
    return OAuth(
        client_id=ctx.get("client_id"),
        client_secret=ctx.get("client_secret"),
        private_key_pem=ctx.get("private_key_pem"),
        signing_algorithm=ctx.get("signing_algorithm"),
        assertion=ctx.get("valid_jwt"),
        id_token=ctx.get("idp_id_token"),
        idp_token_endpoint=ctx.get("idp_token_endpoint"),
        idp_client_id=ctx.get("idp_client_id"),
        client_metadata_url=CLIENT_METADATA_URL,
        client_name="hypermcp-conformance-client",
        redirect_uri="http://localhost:3000/callback",
        grant=grant,
        on_authorize=approve,
    )


async def approve(url: str, redirect_uri: str) -> str:
    """The app's side of the authorization: the harness's authorization servers approve at
    once, so their answer to the authorization URL is the redirect (read, not followed)."""
    import urllib.error
    import urllib.request

    class Keep(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args: Any, **kwargs: Any) -> None:
            return None

    def fetch() -> str:
        try:
            urllib.request.build_opener(Keep).open(url, timeout=10)
        except urllib.error.HTTPError as exc:
            location = exc.headers.get("Location")
            if exc.code in (301, 302, 303, 307, 308) and location:
                return str(location)
            raise
        raise RuntimeError(f"{url} did not redirect to {redirect_uri}")

    return await asyncio.to_thread(fetch)


def accept_defaults(params: dict[str, Any]) -> dict[str, Any]:
    """Accepts a form elicitation with the defaults of its schema applied."""
    props = (params.get("requestedSchema") or {}).get("properties") or {}
    content = {name: schema["default"] for name, schema in props.items() if "default" in schema}
    return {"action": "accept", "content": content}


def sample_arguments(schema: Any) -> dict[str, Any]:
    """Sample values for a tool's required parameters."""
    samples: dict[str, Any] = {"integer": 1, "number": 1, "boolean": True, "object": {}, "array": []}
    props = schema.get("properties") or {}
    out: dict[str, Any] = {}
    for name in schema.get("required") or []:
        kind = str((props.get(name) or {}).get("type"))
        out[name] = samples.get(kind, "us-west1")
    return out


async def play_modern(client: Client) -> None:
    caps = client.server_capabilities
    if "tools" in caps:
        tools = await client.list_tools()
        calls = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}").get("toolCalls")
        if calls is None:
            calls = [{"name": t.name, "arguments": sample_arguments(t["inputSchema"])} for t in tools]
        for call in calls:
            result = await client.call_tool(call["name"], call.get("arguments") or {})
            print(f"{call['name']}: {result.text}")
    if "resources" in caps:
        for resource in await client.list_resources():
            await client.read_resource(resource.uri)
    if "prompts" in caps:
        for prompt in await client.list_prompts():
            await client.get_prompt(prompt.name)


async def play_schema_echo(client: Client) -> None:
    """A host passing a tool's ``inputSchema`` on (to a model, a validator) as the server
    listed it: every JSON Schema 2020-12 keyword kept (``$schema``, ``$defs``, ``$anchor``,
    ``additionalProperties``, ``allOf``/``anyOf``, ``if``/``then``/``else``). The server's
    echo tool receives it back and the harness compares."""
    tools = {tool.name: tool for tool in await client.list_tools()}
    focal = tools.get("json_schema_2020_12_tool")
    if focal is None:
        raise RuntimeError("the server lists no json_schema_2020_12_tool")
    result = await client.call_tool("json_schema_echo", {"schema": focal["inputSchema"]})
    print(f"json_schema_echo: {result.text}")


async def play_skills(client: Client) -> None:
    """A host loading the first listed skill (its ``SKILL.md``, verified against the entry),
    then reading its other files as the model asks for them. Content failing verification is
    refused and nothing more of the skill is read: that ends the scenario, not as an error."""
    skills = await client.list_skills()
    if not skills:
        raise RuntimeError("the server lists no skill")
    try:
        loaded = await client.load_skill(skills[0])
        print(f"loaded {loaded.uri} ({len(loaded.text)} characters)")
        for uri in loaded.files:
            if uri != loaded.uri:
                print(f"read {uri} ({len(await loaded.read(uri))} bytes)")
    except SkillVerificationError as exc:
        print(f"refused {skills[0].uri}: {exc}")


async def play(scenario: str, url: str) -> None:
    version = os.environ.get("MCP_CONFORMANCE_PROTOCOL_VERSION")
    mode = "auto" if version is None else "modern" if version == "2026-07-28" else "legacy"
    handler = accept_defaults if scenario.startswith("elicitation") or mode != "legacy" else None
    auth = conformance_auth(scenario) if scenario.startswith("auth/") else None
    async with Client.http(
        url, name="hypermcp-conformance-client", mode=mode, elicitation_handler=handler, auth=auth
    ) as client:
        if scenario == "sep-2640-client-no-prefetch":
            # A host builds its skill registry from the listing and fetches nothing more.
            for skill in await client.list_skills():
                print(f"skill {skill.frontmatter['name']}: {skill.frontmatter['description']}")
            return
        if scenario.startswith("sep-2640-client-verify"):
            return await play_skills(client)
        if scenario == "json-schema-2020-12-preservation":
            return await play_schema_echo(client)
        if client.modern and scenario not in ("initialize", "tools_call"):
            return await play_modern(client)
        tools = await client.list_tools() if "tools" in client.server_capabilities else []
        if scenario == "initialize":
            return
        if scenario == "tools_call":
            result = await client.call_tool("add_numbers", {"a": 5, "b": 3})
            print("add_numbers:", result.text)
            return
        for tool in tools:
            result = await client.call_tool(tool.name, {})
            print(f"{tool.name}: {result.text}")


def main() -> int:
    if len(sys.argv) != 2:
        print("usage: conformance_client.py <server-url> (scenario in MCP_CONFORMANCE_SCENARIO)", file=sys.stderr)
        return 2
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
    try:
        asyncio.run(asyncio.wait_for(play(scenario, sys.argv[1]), 25))
    except Exception as exc:  # noqa: BLE001 - reported to the harness
        print(f"scenario {scenario!r} against {sys.argv[1]}: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

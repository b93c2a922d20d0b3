"""Server resources, resource templates, prompts, completion and pagination, driven in memory
by the hypermcp client."""

import asyncio
import base64
import json
from typing import Any

import pytest

from _helpers import Messages, run, until, within
from hypermcp import (
    Client,
    Context,
    EmbeddedResource,
    Image,
    InternalError,
    InvalidParams,
    McpError,
    PromptMessage,
    ResourceNotFound,
    Server,
)
from hypermcp.client import prompt_ref, resource_ref


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


# ---- resources -----------------------------------------------------------------------------------


def resource_server() -> Server:
    server = Server("resources")

    @server.resource("file:///notes.txt")
    def notes() -> str:
        """Some notes."""
        return "remember the milk"

    @server.resource("file:///logo.bin", name="logo", title="Logo", mime_type="image/x-raw", size=4)
    def logo() -> bytes:
        return b"\x00\xffAB"

    @server.resource("data://config", description="The configuration.")
    async def config() -> dict[str, Any]:
        return {"debug": True, "levels": [1, 2], "name": "é"}

    @server.resource("data://typed.json", mime_type="application/vnd.example+json")
    def typed() -> list[int]:
        return [1, 2, 3]

    @server.resource("file:///parts")
    def parts() -> list[EmbeddedResource]:
        return [
            EmbeddedResource("file:///parts/a.txt", text="part a", mime_type="text/plain"),
            EmbeddedResource("file:///parts/b.bin", blob=b"\x01\x02"),
        ]

    @server.resource("users://{user_id}/profile", description="A user's profile.", mime_type="application/json")
    def profile(user_id: int) -> dict[str, Any]:
        return {"id": user_id, "type": type(user_id).__name__}

    @server.resource("files://{folder}/{name}{?verbose,scale}")
    def file(folder: str, name: str, verbose: bool = False, scale: float = 1.0) -> str:
        return f"{folder}|{name}|{verbose!r}|{scale!r}"

    @server.resource("ctx://request")
    async def with_context(ctx: Context) -> str:
        return f"request {ctx.request_id!r} from {ctx.client_info['name']}"

    @server.resource("fail://mcp")
    def fails_mcp() -> str:
        raise ResourceNotFound("gone for good", {"uri": "fail://mcp", "why": "deleted"})

    @server.resource("fail://other")
    def fails_other() -> str:
        raise RuntimeError("disk on fire")

    return server


def test_resources_and_templates_are_listed() -> None:
    async def main() -> None:
        async with Client(resource_server()) as client:
            assert client.server_capabilities.resources == {"subscribe": True, "listChanged": True}
            resources = {r.uri: r for r in await within(client.list_resources())}
            assert list(resources) == [
                "file:///notes.txt",
                "file:///logo.bin",
                "data://config",
                "data://typed.json",
                "file:///parts",
                "ctx://request",
                "fail://mcp",
                "fail://other",
            ]
            assert resources["file:///notes.txt"] == {
                "uri": "file:///notes.txt",
                "name": "notes",
                "description": "Some notes.",
            }
            assert resources["file:///logo.bin"] == {
                "uri": "file:///logo.bin",
                "name": "logo",
                "title": "Logo",
                "mimeType": "image/x-raw",
                "size": 4,
            }
            assert resources["data://config"].description == "The configuration."
            templates = await within(client.list_resource_templates())
            assert [dict(t) for t in templates] == [
                {
                    "uriTemplate": "users://{user_id}/profile",
                    "name": "profile",
                    "description": "A user's profile.",
                    "mimeType": "application/json",
                },
                {"uriTemplate": "files://{folder}/{name}{?verbose,scale}", "name": "file"},
            ]

    run(main())


def test_static_resources_text_blob_and_json() -> None:
    async def main() -> None:
        async with Client(resource_server()) as client:
            assert await within(client.read_resource("file:///notes.txt")) == {
                "contents": [{"uri": "file:///notes.txt", "mimeType": "text/plain", "text": "remember the milk"}]
            }
            blob = await within(client.read_resource("file:///logo.bin"))
            assert blob == {
                "contents": [{"uri": "file:///logo.bin", "mimeType": "image/x-raw", "blob": b64(b"\x00\xffAB")}]
            }
            assert base64.b64decode(blob.contents[0].blob) == b"\x00\xffAB"
            config = await within(client.read_resource("data://config"))
            assert config.contents[0].mime_type == "application/json"
            assert config.contents[0].uri == "data://config"
            assert json.loads(config.text) == {"debug": True, "levels": [1, 2], "name": "é"}
            typed = await within(client.read_resource("data://typed.json"))
            assert typed.contents[0].mime_type == "application/vnd.example+json"
            assert json.loads(typed.text) == [1, 2, 3]
            assert await within(client.read_resource("file:///parts")) == {
                "contents": [
                    {"uri": "file:///parts/a.txt", "mimeType": "text/plain", "text": "part a"},
                    {"uri": "file:///parts/b.bin", "blob": b64(b"\x01\x02")},
                ]
            }
            context = await within(client.read_resource("ctx://request"))
            assert context.text.startswith("request ") and context.text.endswith(" from hypermcp-client")

    run(main())


def test_templates_convert_annotated_variables() -> None:
    async def main() -> None:
        async with Client(resource_server()) as client:
            profile = await within(client.read_resource("users://42/profile"))
            assert profile.contents[0].uri == "users://42/profile"
            assert profile.contents[0].mime_type == "application/json"
            assert json.loads(profile.text) == {"id": 42, "type": "int"}

            plain = await within(client.read_resource("files://docs/readme.md"))
            assert plain.text == "docs|readme.md|False|1.0"
            query = await within(client.read_resource("files://docs/readme.md?verbose=true&scale=2.5"))
            assert query.text == "docs|readme.md|True|2.5"
            assert query.contents[0].uri == "files://docs/readme.md?verbose=true&scale=2.5"

            # A variable that does not convert to its annotation is an invalid request.
            with pytest.raises(InvalidParams) as caught:
                await within(client.read_resource("users://alice/profile"))
            assert "users://{user_id}/profile" in caught.value.message and "'alice'" in caught.value.message

    run(main())


def test_unknown_resources_and_failing_handlers() -> None:
    async def main() -> None:
        # 2026-07-28 reports a missing resource as invalid params (-32602); legacy as -32002.
        for mode, missing, code in (("legacy", ResourceNotFound, -32002), ("auto", InvalidParams, -32602)):
            async with Client(resource_server(), mode=mode) as client:
                for uri in ("file:///missing.txt", "users://42", "other://thing"):
                    with pytest.raises(missing) as caught:
                        await within(client.read_resource(uri))
                    assert caught.value.code == code
                    assert uri in caught.value.message
                with pytest.raises(missing) as raised:
                    await within(client.read_resource("fail://mcp"))
                assert raised.value.message == "gone for good"
                assert raised.value.data == {"uri": "fail://mcp", "why": "deleted"}
                with pytest.raises(InternalError) as internal:
                    await within(client.read_resource("fail://other"))
                assert "disk on fire" in internal.value.message
                # Still serving.
                assert (await within(client.read_resource("file:///notes.txt"))).text == "remember the milk"

    run(main())


def test_subscribe_and_resource_updated() -> None:
    server = resource_server()
    messages = Messages()
    updated = "notifications/resources/updated"

    async def main() -> None:
        async with Client(server, message_handler=messages) as client:
            await within(client.subscribe_resource("file:///notes.txt"))
            await within(client.subscribe_resource("users://7/profile"))
            server.notify_resource_updated("file:///notes.txt")
            server.notify_resource_updated("data://config")  # nobody subscribed
            server.notify_resource_updated("users://7/profile")
            await within(until(lambda: messages.count(updated) == 2))
            await within(client.ping())
            assert messages.received == [
                (updated, {"uri": "file:///notes.txt"}),
                (updated, {"uri": "users://7/profile"}),
            ]

            await within(client.unsubscribe_resource("file:///notes.txt"))
            server.notify_resource_updated("file:///notes.txt")
            server.notify_resource_updated("users://7/profile")
            await within(until(lambda: messages.count(updated) == 3))
            await within(client.ping())
            assert messages.received[2:] == [(updated, {"uri": "users://7/profile"})]

    run(main())


def test_add_and_remove_resources_while_connected() -> None:
    server = resource_server()
    messages = Messages()
    changed = "notifications/resources/list_changed"

    async def main() -> None:
        async with Client(server, message_handler=messages) as client:
            before = [r.uri for r in await within(client.list_resources())]

            server.add_resource(lambda: "new text", "file:///new.txt", name="new", description="Added.")
            await within(until(lambda: messages.count(changed) == 1))
            after = await within(client.list_resources())
            assert [r.uri for r in after] == [*before, "file:///new.txt"]
            assert after[-1] == {"uri": "file:///new.txt", "name": "new", "description": "Added."}
            assert (await within(client.read_resource("file:///new.txt"))).text == "new text"

            def shout(word: str) -> str:
                return word.upper()

            server.add_resource(shout, "shout://{word}")
            await within(until(lambda: messages.count(changed) == 2))
            templates = [t.uri_template for t in await within(client.list_resource_templates())]
            assert templates[-1] == "shout://{word}"
            assert (await within(client.read_resource("shout://hey"))).text == "HEY"

            assert server.remove_resource("file:///new.txt") is True
            assert server.remove_resource("shout://{word}") is True
            await within(until(lambda: messages.count(changed) == 4))
            assert [r.uri for r in await within(client.list_resources())] == before
            assert "shout://{word}" not in [t.uri_template for t in await within(client.list_resource_templates())]
            with pytest.raises((ResourceNotFound, InvalidParams)):
                await within(client.read_resource("file:///new.txt"))
            with pytest.raises((ResourceNotFound, InvalidParams)):
                await within(client.read_resource("shout://hey"))

            assert server.remove_resource("file:///new.txt") is False
            await within(client.ping())
            await asyncio.sleep(0.05)
            assert messages.methods() == [changed] * 4

    run(main())


# ---- prompts -------------------------------------------------------------------------------------


def prompt_server() -> Server:
    server = Server("prompts")

    @server.prompt
    def greet(name: str) -> str:
        """Greets someone.

        Args:
            name: Who to greet.
        """
        return f"Say hello to {name}."

    @server.prompt(name="review", title="Code review", description="Reviews code.", meta={"k": "v"})
    def review_prompt(code: str, language: str = "python", strictness: int = 2) -> list[PromptMessage]:
        return [
            PromptMessage(f"Review this {language} code (strictness {strictness!r}):\n{code}"),
            PromptMessage("I will look for bugs first.", role="assistant"),
            PromptMessage(Image(b"\x89PNG", "image/png")),
        ]

    @server.prompt()
    async def plain() -> str:
        return "No arguments."

    @server.prompt
    def fails(x: str) -> str:
        raise McpError(-31000, "prompt refused", {"x": x})

    return server


def test_prompts_are_listed_with_their_arguments() -> None:
    async def main() -> None:
        async with Client(prompt_server()) as client:
            assert client.server_capabilities.prompts == {"listChanged": True}
            prompts = {p.name: p for p in await within(client.list_prompts())}
            assert list(prompts) == ["greet", "review", "plain", "fails"]
            assert prompts["greet"] == {
                "name": "greet",
                "description": "Greets someone.",
                "arguments": [{"name": "name", "description": "Who to greet.", "required": True}],
            }
            assert prompts["review"] == {
                "name": "review",
                "title": "Code review",
                "description": "Reviews code.",
                "_meta": {"k": "v"},
                "arguments": [
                    {"name": "code", "required": True},
                    {"name": "language", "required": False},
                    {"name": "strictness", "required": False},
                ],
            }
            assert prompts["plain"] == {"name": "plain"}

    run(main())


def test_get_prompt_results() -> None:
    async def main() -> None:
        async with Client(prompt_server()) as client:
            assert await within(client.get_prompt("greet", {"name": "Ada"})) == {
                "description": "Greets someone.",
                "messages": [{"role": "user", "content": {"type": "text", "text": "Say hello to Ada."}}],
            }
            review = await within(client.get_prompt("review", {"code": "x = 1", "strictness": "5"}))
            assert review.description == "Reviews code."
            assert review.messages == [
                {"role": "user", "content": {"type": "text", "text": "Review this python code (strictness 5):\nx = 1"}},
                {"role": "assistant", "content": {"type": "text", "text": "I will look for bugs first."}},
                {
                    "role": "user",
                    "content": {"type": "image", "data": b64(b"\x89PNG"), "mimeType": "image/png"},
                },
            ]
            # Non-string values are sent as JSON text and converted by the annotation.
            converted = await within(client.get_prompt("review", {"code": "y", "language": "rust", "strictness": 3}))
            assert converted.messages[0].content.text == "Review this rust code (strictness 3):\ny"
            assert (await within(client.get_prompt("plain"))).messages[0].content.text == "No arguments."

    run(main())


def test_get_prompt_errors() -> None:
    async def main() -> None:
        async with Client(prompt_server()) as client:
            with pytest.raises(InvalidParams) as missing:
                await within(client.get_prompt("review", {"language": "go"}))
            assert "code" in missing.value.message
            with pytest.raises(InvalidParams):
                await within(client.get_prompt("greet"))
            with pytest.raises(InvalidParams) as not_int:
                await within(client.get_prompt("review", {"code": "x", "strictness": "high"}))
            assert "high" in not_int.value.message
            with pytest.raises(InvalidParams) as unknown:
                await within(client.get_prompt("nope"))
            assert "nope" in unknown.value.message
            with pytest.raises(McpError) as refused:
                await within(client.get_prompt("fails", {"x": "1"}))
            assert (refused.value.code, refused.value.message, refused.value.data) == (
                -31000,
                "prompt refused",
                {"x": "1"},
            )

    run(main())


def test_add_and_remove_prompts_while_connected() -> None:
    server = prompt_server()
    messages = Messages()
    changed = "notifications/prompts/list_changed"

    async def main() -> None:
        async with Client(server, message_handler=messages) as client:

            def farewell(name: str, formal: bool = False) -> str:
                """Says goodbye."""
                return f"{'Farewell' if formal else 'Bye'}, {name}."

            server.add_prompt(farewell)
            await within(until(lambda: messages.count(changed) == 1))
            prompts = {p.name: p for p in await within(client.list_prompts())}
            assert prompts["farewell"].arguments == [
                {"name": "name", "required": True},
                {"name": "formal", "required": False},
            ]
            result = await within(client.get_prompt("farewell", {"name": "Bo", "formal": "true"}))
            assert result.messages[0].content.text == "Farewell, Bo."

            assert server.remove_prompt("farewell") is True
            await within(until(lambda: messages.count(changed) == 2))
            assert "farewell" not in [p.name for p in await within(client.list_prompts())]
            with pytest.raises(InvalidParams):
                await within(client.get_prompt("farewell", {"name": "Bo"}))
            assert server.remove_prompt("farewell") is False

    run(main())


# ---- completion ----------------------------------------------------------------------------------


def completion_server(calls: list[tuple[str, Any]]) -> Server:
    server = Server("completion")
    languages = ["go", "haskell", "python", "pyret", "rust"]

    @server.prompt
    def review(language: str, framework: str = "") -> str:
        return f"{language} {framework}"

    @server.prompt
    def summarize(style: str) -> str:
        return style

    @server.resource("repo://{owner}/{name}")
    def repo(owner: str, name: str) -> str:
        return f"{owner}/{name}"

    @server.completion(prompt="review", argument="language")
    def complete_language(value: str) -> list[str]:
        calls.append(("language", value))
        return [lang for lang in languages if lang.startswith(value)]

    @server.completion(prompt="review", argument="framework")
    async def complete_framework(value: str, context: dict[str, str]) -> list[str]:
        calls.append(("framework", context))
        by_language = {"python": ["django", "flask", "fastapi"], "rust": ["axum", "actix"]}
        return [f for f in by_language.get(context.get("language", ""), []) if f.startswith(value)]

    @server.completion(resource="repo://{owner}/{name}", argument="name")
    def complete_repo(value: str, context: dict[str, str]) -> list[str]:
        calls.append(("repo", context))
        owner = context.get("owner", "")
        return [f"{owner}-{suffix}" for suffix in ("api", "web") if f"{owner}-{suffix}".startswith(value)]

    @server.completion
    def catch_all(value: str, argument: str, ref: dict[str, Any], context: dict[str, str]) -> list[str]:
        calls.append(("catch_all", (argument, ref, context)))
        return [f"{argument}={value}{i}" for i in range(150)]

    return server


def test_completion_handlers() -> None:
    calls: list[tuple[str, Any]] = []

    async def main() -> None:
        async with Client(completion_server(calls)) as client:
            assert "completions" in client.server_capabilities

            result = await within(client.complete(prompt_ref("review"), "language", "py"))
            assert result.completion == {"values": ["python", "pyret"], "total": 2, "hasMore": False}
            assert calls.pop() == ("language", "py")

            framework = await within(client.complete(prompt_ref("review"), "framework", "f", {"language": "python"}))
            assert framework.completion.values == ["flask", "fastapi"]
            assert calls.pop() == ("framework", {"language": "python"})
            none_yet = await within(client.complete(prompt_ref("review"), "framework", ""))
            assert none_yet.completion.values == []
            assert calls.pop() == ("framework", {})

            repo = resource_ref("repo://{owner}/{name}")
            repos = await within(client.complete(repo, "name", "acme-a", {"owner": "acme"}))
            assert repos.completion.values == ["acme-api"]
            assert calls.pop() == ("repo", {"owner": "acme"})

            # Everything else goes to the bare catch-all: at most 100 values, with the total.
            other = await within(client.complete(repo, "owner", "x", {"name": "n"}))
            assert other.completion.values == [f"owner=x{i}" for i in range(100)]
            assert other.completion.total == 150
            assert other.completion.has_more is True
            assert calls.pop() == (
                "catch_all",
                ("owner", {"type": "ref/resource", "uri": "repo://{owner}/{name}"}, {"name": "n"}),
            )
            await within(client.complete(prompt_ref("summarize"), "style", ""))
            assert calls.pop() == ("catch_all", ("style", {"type": "ref/prompt", "name": "summarize"}, {}))

            # References to what does not exist are refused before any handler runs.
            with pytest.raises(InvalidParams):
                await within(client.complete(prompt_ref("other"), "anything", ""))
            with pytest.raises(InvalidParams):
                await within(client.complete(prompt_ref("review"), "not_an_argument", ""))
            assert calls == []

    run(main())


def test_completion_without_a_matching_handler_is_empty() -> None:
    server = Server("completion")

    @server.prompt
    def review(language: str, tone: str = "kind") -> str:
        return language

    @server.completion(prompt="review", argument="language")
    def complete_language(value: str) -> list[str]:
        return ["python"]

    async def main() -> None:
        async with Client(server) as client:
            result = await within(client.complete(prompt_ref("review"), "tone", "x"))
            assert result.completion.values == []
            assert (await within(client.complete(prompt_ref("review"), "language", ""))).completion.values == ["python"]

    run(main())


# ---- pagination ----------------------------------------------------------------------------------


def test_pagination_walks_every_page() -> None:
    server = Server("paged", page_size=2)
    names = [f"tool_{i:02d}" for i in range(7)]
    for name in names:
        server.add_tool(lambda: "ok", name=name)
    for i in range(5):
        server.add_resource(lambda: "r", f"res://{i}", name=f"r{i}")
    for i in range(3):
        server.add_prompt(lambda: "p", name=f"p{i}")

    async def main() -> None:
        async with Client(server) as client:
            tools = await within(client.list_tools())
            assert [t.name for t in tools] == names
            assert tools.next_cursor is None

            # Page by page, by hand.
            first = await within(client.request("tools/list"))
            assert [t.name for t in first.tools] == names[:2]
            cursor = first.next_cursor
            seen = [t.name for t in first.tools]
            pages = 1
            while cursor is not None:
                page = await within(client.list_tools(cursor))
                assert len(page) <= 2
                seen += [t.name for t in page]
                cursor = page.next_cursor
                pages += 1
            assert seen == names
            assert pages == 4

            assert [r.uri for r in await within(client.list_resources())] == [f"res://{i}" for i in range(5)]
            assert [p.name for p in await within(client.list_prompts())] == ["p0", "p1", "p2"]

            with pytest.raises(InvalidParams):
                await within(client.list_tools("not-a-cursor"))

    run(main())

"""The per-request Context of server handlers, driven in memory by the hypermcp client:
progress, logging, elicitation (form and URL), sampling, roots, the request's identity,
cancellation, hanging handlers and the server's lifespan."""

import asyncio
import dataclasses
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, Optional

import pytest

from _helpers import Logs, Messages, run, until, within
from hypermcp import Client, Context, McpError, MethodNotFound, MissingRequiredClientCapability, Server
from hypermcp.context import ElicitResult


@dataclasses.dataclass
class Contact:
    name: str
    age: int = 30


# ---- finding the context -------------------------------------------------------------------------


def test_context_is_found_by_annotation_and_hidden_from_the_schema() -> None:
    server = Server("ctx")
    seen: dict[str, Any] = {}

    @server.tool
    async def required_ctx(text: str, ctx: Context) -> str:
        seen["required_ctx"] = ctx
        return text

    @server.tool
    def optional_ctx(text: str, ctx: Context | None = None) -> str:
        seen["optional_ctx"] = ctx
        return text

    @server.tool
    async def typing_optional(context: Optional[Context] = None, n: int = 1) -> int:  # noqa: UP045 - on purpose
        seen["typing_optional"] = context
        return n

    @server.tool
    async def only_ctx(whatever_name: Context) -> str:
        seen["only_ctx"] = whatever_name
        return "ok"

    async def main() -> None:
        async with Client(server) as client:
            tools = {t.name: t for t in await within(client.list_tools())}
            assert tools["required_ctx"].input_schema == {
                "type": "object",
                "properties": {"text": {"type": "string"}},
                "required": ["text"],
            }
            assert tools["optional_ctx"].input_schema == tools["required_ctx"].input_schema
            assert tools["typing_optional"].input_schema == {
                "type": "object",
                "properties": {"n": {"type": "integer", "default": 1}},
            }
            assert tools["only_ctx"].input_schema == {"type": "object", "properties": {}}
            assert (await within(client.call_tool("required_ctx", {"text": "a"}))).text == "a"
            assert (await within(client.call_tool("optional_ctx", {"text": "b"}))).text == "b"
            assert (await within(client.call_tool("typing_optional"))).structured_content == {"result": 1}
            assert (await within(client.call_tool("only_ctx"))).text == "ok"
            # A context argument sent by the client is not a way in.
            result = await within(client.call_tool("only_ctx", {"whatever_name": "forged"}))
            assert result.text == "ok"

    run(main())
    assert set(seen) == {"required_ctx", "optional_ctx", "typing_optional", "only_ctx"}
    assert all(isinstance(ctx, Context) for ctx in seen.values())


# ---- progress ------------------------------------------------------------------------------------


def test_progress_reaches_the_progress_handler_in_order() -> None:
    server = Server("ctx")
    sent: list[bool] = []

    @server.tool
    async def steps(n: int, ctx: Context) -> str:
        for i in range(1, n + 1):
            sent.append(await ctx.report_progress(i, total=n, message=f"step {i}"))
            await asyncio.sleep(0)
        sent.append(await ctx.report_progress(n + 0.5))  # no total, no message
        return "done"

    async def main() -> None:
        received: list[tuple[float, float | None, str | None]] = []
        async with Client(server) as client:
            result = await within(
                client.call_tool("steps", {"n": 5}, progress_handler=lambda p, t, m: received.append((p, t, m)))
            )
            assert result.text == "done"
            assert received == [(float(i), 5.0, f"step {i}") for i in range(1, 6)] + [(5.5, None, None)]
            assert sent == [True] * 6

            # Without a progress handler the client asks for no progress: nothing is sent.
            sent.clear()
            assert (await within(client.call_tool("steps", {"n": 2}))).text == "done"
            assert sent == [False] * 3

    run(main())


def test_progress_that_does_not_increase_raises() -> None:
    server = Server("ctx")
    raised: list[McpError] = []

    @server.tool
    async def backwards(ctx: Context) -> str:
        await ctx.report_progress(2, total=10)
        for value in (2, 1):
            try:
                await ctx.report_progress(value, total=10)
            except McpError as exc:
                raised.append(exc)
        await ctx.report_progress(3, total=10)
        return "ok"

    async def main() -> None:
        received: list[float] = []
        async with Client(server) as client:
            result = await within(client.call_tool("backwards", progress_handler=lambda p, t, m: received.append(p)))
            assert result.text == "ok" and result.is_error is False
            assert received == [2.0, 3.0]

    run(main())
    assert len(raised) == 2
    assert all("increase" in exc.message for exc in raised)


# ---- logging -------------------------------------------------------------------------------------


def test_logging_reaches_the_logging_handler_and_is_filtered_by_level() -> None:
    server = Server("ctx")

    @server.tool
    async def chatty(ctx: Context) -> str:
        await ctx.debug("a debug line")
        await ctx.info({"structured": [1, 2]}, logger="app.db")
        await ctx.warning("careful")
        await ctx.error("it failed")
        await ctx.log("notice", "a notice")
        await ctx.log("critical", "on fire", logger="app")
        return "logged"

    @server.tool
    async def bad_level(ctx: Context) -> str:
        try:
            await ctx.log("loud", "x")
        except ValueError as exc:
            return str(exc)
        return "accepted"

    async def main() -> None:
        logs = Logs()
        messages = Messages()
        async with Client(server, logging_handler=logs, message_handler=messages) as client:
            assert "logging" in client.server_capabilities
            assert (await within(client.call_tool("chatty"))).text == "logged"
            assert logs.levels_and_data() == [
                ("debug", "a debug line"),
                ("info", {"structured": [1, 2]}),
                ("warning", "careful"),
                ("error", "it failed"),
                ("notice", "a notice"),
                ("critical", "on fire"),
            ]
            assert logs.received[1]["logger"] == "app.db"
            assert logs.received[5]["logger"] == "app"
            assert "logger" not in logs.received[0]

            logs.received.clear()
            await within(client.set_logging_level("warning"))
            await within(client.call_tool("chatty"))
            assert logs.levels_and_data() == [("warning", "careful"), ("error", "it failed"), ("critical", "on fire")]

            logs.received.clear()
            await within(client.set_logging_level("critical"))
            await within(client.call_tool("chatty"))
            assert logs.levels_and_data() == [("critical", "on fire")]

            logs.received.clear()
            await within(client.set_logging_level("debug"))
            await within(client.call_tool("chatty"))
            assert len(logs.received) == 6

            assert "unknown logging level 'loud'" in (await within(client.call_tool("bad_level"))).text
            # Log messages go to the logging handler only.
            assert "notifications/message" not in messages.methods()

    run(main())


# ---- elicitation ---------------------------------------------------------------------------------


def test_elicit_form_with_a_dict_schema_and_a_dataclass() -> None:
    server = Server("ctx")
    schema = {
        "type": "object",
        "properties": {"city": {"type": "string", "enum": ["paris", "lima"]}, "days": {"type": "integer"}},
        "required": ["city"],
    }
    answers: list[ElicitResult] = []

    @server.tool
    async def ask_dict(ctx: Context) -> str:
        answer = await ctx.elicit("Where to?", schema)
        answers.append(answer)
        return f"{answer.action}:{answer.content}"

    @server.tool
    async def ask_dataclass(ctx: Context) -> str:
        answer = await ctx.elicit("Who are you?", Contact)
        answers.append(answer)
        return answer.action

    asked: list[Any] = []

    async def elicitation(params: Any) -> dict[str, Any]:
        asked.append(params)
        if "city" in params["requestedSchema"]["properties"]:
            return {"action": "accept", "content": {"city": "lima", "days": 2}}
        return {"action": "accept", "content": {"name": "Ada"}}

    async def main() -> None:
        async with Client(server, elicitation_handler=elicitation) as client:
            result = await within(client.call_tool("ask_dict"))
            assert result.text == "accept:{'city': 'lima', 'days': 2}"
            assert asked[0] == {"message": "Where to?", "requestedSchema": schema}

            assert (await within(client.call_tool("ask_dataclass"))).text == "accept"
            assert asked[1] == {
                "message": "Who are you?",
                "requestedSchema": {
                    "type": "object",
                    "properties": {"name": {"type": "string"}, "age": {"type": "integer", "default": 30}},
                    "required": ["name"],
                },
            }

    run(main())
    assert [(a.action, a.accepted, a.content) for a in answers] == [
        ("accept", True, {"city": "lima", "days": 2}),
        ("accept", True, {"name": "Ada"}),
    ]


@pytest.mark.parametrize("action", ["decline", "cancel"])
def test_elicit_declined_or_cancelled(action: str) -> None:
    server = Server("ctx")
    answers: list[ElicitResult] = []

    @server.tool
    async def ask(ctx: Context) -> str:
        answers.append(await ctx.elicit("Name?", {"type": "object", "properties": {"name": {"type": "string"}}}))
        return "asked"

    async def main() -> None:
        async with Client(server, elicitation_handler=lambda params: {"action": action}) as client:
            assert (await within(client.call_tool("ask"))).text == "asked"

    run(main())
    assert len(answers) == 1
    assert (answers[0].action, answers[0].accepted, answers[0].content) == (action, False, None)


def test_elicit_url_mode() -> None:
    server = Server("ctx")
    answers: list[ElicitResult] = []

    @server.tool
    async def authorize(ctx: Context) -> str:
        answers.append(await ctx.elicit("Sign in, please.", url="https://auth.example.com/x", elicitation_id="el-1"))
        generated = await ctx.elicit("Again.", url="https://auth.example.com/y")
        answers.append(generated)
        return "ok"

    asked: list[Any] = []

    def elicitation(params: Any) -> dict[str, Any]:
        asked.append(params)
        return {"action": "accept"} if len(asked) == 1 else {"action": "decline"}

    async def main() -> None:
        # Legacy: each ctx.elicit is a request of its own (at 2026-07-28 the tool runs again per
        # round, so `answers` would see the first answer once per round).
        async with Client(server, mode="legacy", elicitation_handler=elicitation, elicitation_url=True) as client:
            assert (await within(client.call_tool("authorize"))).text == "ok"

    run(main())
    assert asked[0] == {
        "mode": "url",
        "message": "Sign in, please.",
        "url": "https://auth.example.com/x",
        "elicitationId": "el-1",
    }
    assert asked[1]["mode"] == "url" and asked[1]["url"] == "https://auth.example.com/y"
    assert isinstance(asked[1]["elicitationId"], str) and asked[1]["elicitationId"]
    assert [(a.action, a.accepted) for a in answers] == [("accept", True), ("decline", False)]


# ---- sampling and roots --------------------------------------------------------------------------


def test_sample() -> None:
    server = Server("ctx")

    @server.tool
    async def advise(topic: str, ctx: Context) -> str:
        answer = await ctx.sample(
            [f"Advice about {topic}?", {"role": "assistant", "content": {"type": "text", "text": "Sure."}}],
            max_tokens=50,
            system_prompt="Be brief.",
            temperature=0.2,
            model_preferences={"hints": [{"name": "small"}]},
        )
        return f"{answer['model']}/{answer['role']}: {answer['content']['text']}"

    asked: list[Any] = []

    async def sampling(params: Any) -> dict[str, Any]:
        asked.append(params)
        return {
            "role": "assistant",
            "content": {"type": "text", "text": "Bring a scarf."},
            "model": "test-model",
            "stopReason": "endTurn",
        }

    async def main() -> None:
        async with Client(server, sampling_handler=sampling) as client:
            assert (await within(client.call_tool("advise", {"topic": "packing"}))).text == (
                "test-model/assistant: Bring a scarf."
            )

    run(main())
    assert asked == [
        {
            "messages": [
                {"role": "user", "content": {"type": "text", "text": "Advice about packing?"}},
                {"role": "assistant", "content": {"type": "text", "text": "Sure."}},
            ],
            "maxTokens": 50,
            "systemPrompt": "Be brief.",
            "temperature": 0.2,
            "modelPreferences": {"hints": [{"name": "small"}]},
        }
    ]


def test_two_samples_in_one_handler_get_their_own_answers_in_both_eras() -> None:
    # At 2026-07-28 each ctx.sample is an input request under its own key; the key must not
    # be taken from the optional parameters (it once was: every sample got "toolChoice", and
    # the second received the first one's answer).
    server = Server("ctx")

    @server.tool
    async def two(ctx: Context) -> str:
        first = await ctx.sample("first", temperature=0.5)
        second = await ctx.sample("second", system_prompt="Be brief.")
        return f"{first['content']['text']} / {second['content']['text']}"

    def sampling(params: Any) -> dict[str, Any]:
        text = params["messages"][0]["content"]["text"]
        return {"role": "assistant", "content": {"type": "text", "text": f"answer to {text}"}, "model": "m"}

    async def main() -> None:
        for mode in ("legacy", "modern"):
            async with Client(server, mode=mode, sampling_handler=sampling) as client:
                result = await within(client.call_tool("two"))
                assert result.text == "answer to first / answer to second", mode

    run(main())


def test_list_roots(tmp_path: Path) -> None:
    server = Server("ctx")

    @server.tool
    async def roots(ctx: Context) -> list[str]:
        return [r["uri"] for r in await ctx.list_roots()]

    @server.tool
    async def named_roots(ctx: Context) -> list[dict[str, Any]]:
        return await ctx.list_roots()

    async def main() -> None:
        given = ["file:///plain", tmp_path, {"uri": "file:///named", "name": "Named"}]
        async with Client(server, roots=given) as client:
            result = await within(client.call_tool("roots"))
            assert result.structured_content == {"result": ["file:///plain", tmp_path.as_uri(), "file:///named"]}
            named = (await within(client.call_tool("named_roots"))).structured_content["result"]
            assert named[0] == {"uri": "file:///plain"}
            assert named[1] == {"uri": tmp_path.as_uri(), "name": tmp_path.name}
            assert named[2] == {"uri": "file:///named", "name": "Named"}

    run(main())


def test_roots_list_changed_reaches_the_server() -> None:
    server = Server("ctx")
    changes: list[Any] = []
    server.on_notification("notifications/roots/list_changed")(changes.append)

    @server.tool
    async def roots(ctx: Context) -> list[str]:
        return [r["uri"] for r in await ctx.list_roots()]

    async def main() -> None:
        # 2026-07-28 has no roots/list_changed notification: a legacy session.
        async with Client(server, mode="legacy", roots=["file:///one"]) as client:
            assert (await within(client.call_tool("roots"))).structured_content == {"result": ["file:///one"]}
            await within(client.set_roots(["file:///two", "file:///three"]))
            await within(until(lambda: len(changes) == 1))
            assert (await within(client.call_tool("roots"))).structured_content == {
                "result": ["file:///two", "file:///three"]
            }

    run(main())


# ---- the request's identity ----------------------------------------------------------------------


def test_request_identity() -> None:
    server = Server("ctx")
    seen: list[dict[str, Any]] = []

    @server.tool
    async def who(ctx: Context) -> str:
        seen.append(
            {
                "request_id": ctx.request_id,
                "client_info": ctx.client_info,
                "protocol_version": ctx.protocol_version,
                "client_capabilities": ctx.client_capabilities,
                "progress_token": ctx.progress_token,
                "meta": ctx.meta,
                "cancelled": ctx.cancelled,
                "server": ctx.server,
                "lifespan_context": ctx.lifespan_context,
            }
        )
        return "ok"

    async def main() -> None:
        async with Client(
            server,
            name="identity-tester",
            version="9.8.7",
            sampling_handler=lambda params: {},
            roots=["file:///r"],
        ) as client:
            await within(client.call_tool("who"))
            await within(client.call_tool("who", progress_handler=lambda p, t, m: None, meta={"trace": "t-1"}))
            # Per-request identity at 2026-07-28 (the auto client's era with our servers).
            assert seen[0]["protocol_version"] == client.protocol_version == "2026-07-28"
        async with Client(server, protocol_version="2025-06-18", elicitation_handler=lambda p: {}) as old:
            await within(old.call_tool("who"))

    run(main())
    first, second, third = seen
    assert first["client_info"] == {"name": "identity-tester", "version": "9.8.7"}
    assert first["client_capabilities"] == {"sampling": {"tools": {}}, "roots": {"listChanged": True}}
    assert isinstance(first["request_id"], (int, str))
    assert first["request_id"] != second["request_id"]
    assert first["progress_token"] is None and first["meta"] is None
    assert second["progress_token"] is not None
    assert second["meta"]["trace"] == "t-1"
    assert second["meta"]["progressToken"] == second["progress_token"]
    assert first["cancelled"] is False
    assert first["server"] is server
    assert first["lifespan_context"] is None
    assert third["protocol_version"] == "2025-06-18"
    assert third["client_info"]["name"] == "hypermcp-client"
    assert "elicitation" in third["client_capabilities"] and "sampling" not in third["client_capabilities"]


def test_requests_to_a_client_without_the_handler_raise_method_not_found() -> None:
    server = Server("ctx")

    @server.tool
    async def try_all(ctx: Context) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for name, call in (
            ("sample", lambda: ctx.sample("hi")),
            ("elicit", lambda: ctx.elicit("Name?", {"type": "object", "properties": {}})),
            ("elicit_url", lambda: ctx.elicit("Go", url="https://example.com")),
            ("list_roots", lambda: ctx.list_roots()),
        ):
            try:
                await call()
            except McpError as exc:
                out[name] = [type(exc).__name__, exc.code]
            else:
                out[name] = "no error"
        return out

    async def main() -> None:
        # Legacy: the client answers each request -32601, which the tool may catch.
        # 2026-07-28: the server never asks a client for what it did not declare: the ctx call
        # raises MissingRequiredClientCapability (-32021; uncaught, it fails the request).
        for mode, refused in (
            ("legacy", ["MethodNotFound", -32601]),
            ("modern", ["MissingRequiredClientCapability", -32021]),
        ):
            async with Client(server, mode=mode) as bare:
                result = await within(bare.call_tool("try_all"))
                assert result.structured_content == {
                    "sample": refused,
                    "elicit": refused,
                    "elicit_url": refused,
                    "list_roots": refused,
                }
            # Form elicitation alone does not allow URL mode.
            async with Client(server, mode=mode, elicitation_handler=lambda p: {"action": "cancel"}) as form_only:
                result = await within(form_only.call_tool("try_all"))
                assert result.structured_content["elicit"] == "no error"
                assert result.structured_content["elicit_url"] == refused

    run(main())


def test_uncaught_method_not_found_from_a_ctx_call_fails_the_call() -> None:
    server = Server("ctx")

    @server.tool
    async def needs_sampling(ctx: Context) -> str:
        await ctx.sample("hi")
        return "unreachable"

    async def main() -> None:
        async with Client(server, mode="legacy") as client:
            with pytest.raises(MethodNotFound):
                await within(client.call_tool("needs_sampling"))
            await within(client.ping())
        async with Client(server, mode="modern") as client:
            with pytest.raises(MissingRequiredClientCapability):
                await within(client.call_tool("needs_sampling"))
            await within(client.ping())

    run(main())


# ---- cancellation and hanging handlers -----------------------------------------------------------


def test_client_cancellation_raises_cancelled_error_in_the_handler() -> None:
    server = Server("ctx")
    events: list[str] = []
    started = asyncio.Event()
    flags: dict[str, bool] = {}

    @server.tool
    async def forever(ctx: Context) -> str:
        events.append("started")
        started.set()
        try:
            await asyncio.Event().wait()  # never set
        except asyncio.CancelledError:
            events.append("cancelled")
            flags["ctx.cancelled"] = ctx.cancelled
            raise
        finally:
            events.append("finally")
        return "unreachable"

    @server.tool
    def quick(x: int) -> int:
        return x

    async def main() -> None:
        async with Client(server) as client:
            with pytest.raises(asyncio.TimeoutError):
                await asyncio.wait_for(client.call_tool("forever"), 0.3)
            assert started.is_set()
            await within(until(lambda: "finally" in events))
            assert events == ["started", "cancelled", "finally"]
            # The server keeps serving, the cancelled tool included.
            assert (await within(client.call_tool("quick", {"x": 5}))).structured_content == {"result": 5}
            started.clear()
            task = asyncio.ensure_future(client.call_tool("forever"))
            await within(started.wait())
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await within(task)
            await within(until(lambda: events.count("finally") == 2))
            await within(client.ping())

    run(main())
    assert events == ["started", "cancelled", "finally"] * 2
    assert flags == {"ctx.cancelled": True}


def test_cancelling_a_call_cancels_its_request_to_the_client() -> None:
    server = Server("ctx")
    server_side: list[str] = []
    client_side: list[str] = []
    sampling_started = asyncio.Event()

    @server.tool
    async def ask_model(ctx: Context) -> str:
        try:
            await ctx.sample("think forever")
        except asyncio.CancelledError:
            server_side.append("cancelled")
            raise
        return "unreachable"

    async def sampling(params: Any) -> dict[str, Any]:
        sampling_started.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            client_side.append("cancelled")
            raise
        return {}

    async def main() -> None:
        # Legacy: the server's request to the client is cancelled with the call (at 2026-07-28
        # the tool already ended with input_required; the client's handler is cancelled).
        async with Client(server, mode="legacy", sampling_handler=sampling) as client:
            task = asyncio.ensure_future(client.call_tool("ask_model"))
            await within(sampling_started.wait())
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await within(task)
            await within(until(lambda: server_side and client_side))
            await within(client.ping())

    run(main())
    assert server_side == ["cancelled"]
    assert client_side == ["cancelled"]


def test_a_hanging_sync_handler_does_not_block_other_calls() -> None:
    server = Server("ctx")
    release = threading.Event()
    entered = threading.Event()

    @server.tool
    def hang() -> str:
        entered.set()
        release.wait(10)  # bounded, so a failing test cannot leave the thread behind for long
        return "released"

    @server.tool
    def sync_quick() -> str:
        return "sync"

    @server.tool
    async def async_quick() -> str:
        return "async"

    async def main() -> None:
        async with Client(server) as client:
            hung = asyncio.ensure_future(client.call_tool("hang"))
            try:
                await within(asyncio.to_thread(entered.wait, 5))
                assert entered.is_set()
                assert (await within(client.call_tool("sync_quick"))).text == "sync"
                assert (await within(client.call_tool("async_quick"))).text == "async"
                await within(client.ping())
                assert not hung.done()
            finally:
                release.set()
            assert (await within(hung)).text == "released"

    run(main())


def test_a_hanging_async_handler_does_not_block_other_calls() -> None:
    server = Server("ctx")
    release = asyncio.Event()

    @server.tool
    async def hang() -> str:
        await release.wait()
        return "released"

    @server.tool
    async def quick(n: int) -> int:
        return n

    async def main() -> None:
        async with Client(server) as client:
            hung = asyncio.ensure_future(client.call_tool("hang"))
            results = await within(asyncio.gather(*(client.call_tool("quick", {"n": n}) for n in range(20))))
            assert [r.structured_content["result"] for r in results] == list(range(20))
            assert not hung.done()
            release.set()
            assert (await within(hung)).text == "released"

    run(main())


# ---- lifespan ------------------------------------------------------------------------------------


def test_lifespan_opens_before_the_first_call_and_closes_after_disconnect() -> None:
    events: list[str] = []

    @dataclasses.dataclass
    class State:
        calls: int = 0

    @asynccontextmanager
    async def lifespan(server: Server) -> AsyncIterator[State]:
        assert server.name == "with-lifespan"
        events.append("open")
        await asyncio.sleep(0)  # opening may wait
        try:
            yield State()
        finally:
            await asyncio.sleep(0)
            events.append("close")

    server = Server("with-lifespan", lifespan=lifespan)
    states: list[State] = []

    @server.tool
    async def count(ctx: Context) -> int:
        state = ctx.lifespan_context
        assert isinstance(state, State)
        states.append(state)
        state.calls += 1
        events.append("call")
        return state.calls

    async def main() -> None:
        assert server.lifespan_context is None
        async with Client(server) as client:
            assert events == ["open"]
            assert isinstance(server.lifespan_context, State)
            assert (await within(client.call_tool("count"))).structured_content == {"result": 1}
            assert (await within(client.call_tool("count"))).structured_content == {"result": 2}
            assert events == ["open", "call", "call"]
        assert events == ["open", "call", "call", "close"]
        assert server.lifespan_context is None
        # A new session opens it afresh.
        async with Client(server) as client:
            assert (await within(client.call_tool("count"))).structured_content == {"result": 1}
        assert events == ["open", "call", "call", "close", "open", "call", "close"]

    run(main())
    assert states[0] is states[1] and states[2] is not states[0]

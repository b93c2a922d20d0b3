"""Server tools driven in memory by the hypermcp client: decorator forms and options, input
schemas from type hints, argument validation, every kind of return value, errors, where
handlers run, and tools added and removed while a client is connected."""

import asyncio
import base64
import dataclasses
import enum
import json
import threading
from typing import Annotated, Any, Literal, Optional, TypedDict

import pytest

from _helpers import Messages, run, until, within
from hypermcp import (
    Audio,
    CallToolResult,
    Client,
    EmbeddedResource,
    Image,
    InvalidParams,
    McpError,
    MethodNotFound,
    ResourceLink,
    Server,
    Text,
    ToolError,
)

PNG = b"\x89PNG\r\n\x1a\nnot-really-a-png"
WAV = b"RIFF\x00\x00\x00\x00WAVEfmt "


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


# Types the tools use (module level, so their hints resolve).


class Color(enum.Enum):
    RED = "red"
    GREEN = "green"


class Point(TypedDict):
    x: int
    y: int


@dataclasses.dataclass
class Box:
    """A box.

    Attributes:
        width: How wide.
    """

    width: float
    label: str = "box"


@dataclasses.dataclass
class Summary:
    total: int
    names: list[str]


async def tools_by_name(client: Client) -> dict[str, Any]:
    return {t.name: t for t in await within(client.list_tools())}


# ---- decorators and options ----------------------------------------------------------------------


def test_decorator_without_and_with_parentheses() -> None:
    server = Server("tools")

    @server.tool
    def bare(text: str) -> str:
        """Without parentheses."""
        return "bare:" + text

    @server.tool()
    def empty(text: str) -> str:
        """With empty parentheses."""
        return "empty:" + text

    @server.tool(name="renamed")
    def original(text: str) -> str:
        return "renamed:" + text

    # The decorators give the function back unchanged.
    assert bare("x") == "bare:x" and empty("x") == "empty:x" and original("x") == "renamed:x"

    async def main() -> None:
        async with Client(server) as client:
            tools = await tools_by_name(client)
            assert list(tools) == ["bare", "empty", "renamed"]
            assert tools["bare"].description == "Without parentheses."
            assert tools["empty"].description == "With empty parentheses."
            assert "description" not in tools["renamed"]
            for name, prefix in (("bare", "bare"), ("empty", "empty"), ("renamed", "renamed")):
                result = await within(client.call_tool(name, {"text": "hi"}))
                assert result.text == f"{prefix}:hi"
                assert result.is_error is False
            with pytest.raises(InvalidParams):
                await within(client.call_tool("original", {"text": "hi"}))

    run(main())


def test_decorator_with_every_option() -> None:
    server = Server("tools")
    icons = [{"src": "https://example.com/icon.png", "mimeType": "image/png", "sizes": ["48x48"]}]
    annotations = {"title": "Annotated", "readOnlyHint": True, "destructiveHint": False, "openWorldHint": False}
    where: list[threading.Thread] = []

    @server.tool(
        name="everything",
        title="Every option",
        description="Given, not from the docstring.",
        annotations=annotations,
        icons=icons,
        meta={"example.com/owner": "tests"},
        structured_output=False,
        inline=True,
    )
    def options(key: str) -> dict[str, str]:
        """The docstring, overridden by description=."""
        where.append(threading.current_thread())
        return {"key": key}

    async def main() -> None:
        async with Client(server) as client:
            tool = (await tools_by_name(client))["everything"]
            assert tool == {
                "name": "everything",
                "title": "Every option",
                "description": "Given, not from the docstring.",
                "annotations": annotations,
                "icons": icons,
                "_meta": {"example.com/owner": "tests"},
                "inputSchema": {
                    "type": "object",
                    "properties": {"key": {"type": "string"}},
                    "required": ["key"],
                },
            }
            # structured_output=False: no outputSchema, and the dict comes back as text only.
            result = await within(client.call_tool("everything", {"key": "v"}))
            assert result.structured_content is None
            assert json.loads(result.text) == {"key": "v"}
            # inline=True: the sync function ran on the loop's (main) thread.
            assert where == [threading.main_thread()]

    run(main())


# ---- input schemas from type hints ---------------------------------------------------------------


def test_schemas_from_each_kind_of_hint() -> None:
    server = Server("tools")

    @server.tool
    def kinds(
        s: str,
        i: int,
        f: float,
        b: bool,
        n: None,
        items: list[int],
        mapping: dict[str, int],
        pair: tuple[int, str],
        mode: Literal["fast", "slow"],
        color: Color,
        maybe: Optional[int],  # noqa: UP045 - the typing spelling on purpose
        point: Point,
        box: Box,
        described: Annotated[int, "How many, from Annotated."],
        greeting: str = "hello",
        limit: int | None = None,
        ratio: float = 0.5,
        flag: bool = False,
    ) -> str:
        return "ok"

    async def main() -> None:
        async with Client(server) as client:
            schema = (await tools_by_name(client))["kinds"].input_schema
            props = schema["properties"]
            assert schema["type"] == "object"
            assert props["s"] == {"type": "string"}
            assert props["i"] == {"type": "integer"}
            assert props["f"] == {"type": "number"}
            assert props["b"] == {"type": "boolean"}
            assert props["n"] == {"type": "null"}
            assert props["items"] == {"type": "array", "items": {"type": "integer"}}
            assert props["mapping"] == {"type": "object", "additionalProperties": {"type": "integer"}}
            assert props["pair"] == {
                "type": "array",
                "prefixItems": [{"type": "integer"}, {"type": "string"}],
                "minItems": 2,
                "maxItems": 2,
            }
            assert props["mode"] == {"type": "string", "enum": ["fast", "slow"]}
            assert props["color"] == {"type": "string", "enum": ["red", "green"]}
            assert props["maybe"] == {"type": ["integer", "null"]}
            assert props["point"] == {
                "type": "object",
                "properties": {"x": {"type": "integer"}, "y": {"type": "integer"}},
                "required": ["x", "y"],
            }
            assert props["box"] == {
                "type": "object",
                "description": "A box.",
                "properties": {
                    "width": {"type": "number", "description": "How wide."},
                    "label": {"type": "string", "default": "box"},
                },
                "required": ["width"],
            }
            assert props["described"] == {"type": "integer", "description": "How many, from Annotated."}
            assert props["greeting"] == {"type": "string", "default": "hello"}
            assert props["limit"] == {"type": ["integer", "null"], "default": None}
            assert props["ratio"] == {"type": "number", "default": 0.5}
            assert props["flag"] == {"type": "boolean", "default": False}
            # Parameters without a default are required (Optional alone does not make one optional).
            assert schema["required"] == [
                "s",
                "i",
                "f",
                "b",
                "n",
                "items",
                "mapping",
                "pair",
                "mode",
                "color",
                "maybe",
                "point",
                "box",
                "described",
            ]

    run(main())


def test_arguments_arrive_converted_to_their_hints() -> None:
    server = Server("tools")
    got: dict[str, Any] = {}

    @server.tool
    def convert(pair: tuple[int, str], color: Color, point: Point, box: Box, maybe: int | None = 7) -> str:
        got.update(pair=pair, color=color, point=point, box=box, maybe=maybe)
        return "ok"

    async def main() -> None:
        async with Client(server) as client:
            args = {"pair": [1, "a"], "color": "green", "point": {"x": 1, "y": 2}, "box": {"width": 2}}
            result = await within(client.call_tool("convert", args))
            assert result.text == "ok" and result.is_error is False

    run(main())
    assert got == {
        "pair": (1, "a"),
        "color": Color.GREEN,
        "point": {"x": 1, "y": 2},
        "box": Box(width=2.0, label="box"),
        "maybe": 7,
    }
    assert type(got["pair"]) is tuple and type(got["box"]) is Box


def test_descriptions_from_the_docstring() -> None:
    server = Server("tools")

    @server.tool
    def documented(city: str, days: int = 3, note: Annotated[str, "From Annotated."] = "") -> str:
        """Forecast for a city.

        A second paragraph of the description.

        Args:
            city: Which city.
            days: How many days
                ahead (a continued line).
            note: Loses to the Annotated description.

        Returns:
            The forecast.
        """
        return city

    async def main() -> None:
        async with Client(server) as client:
            tool = (await tools_by_name(client))["documented"]
            assert tool.description == "Forecast for a city.\n\nA second paragraph of the description."
            props = tool.input_schema["properties"]
            assert props["city"] == {"type": "string", "description": "Which city."}
            assert props["days"] == {
                "type": "integer",
                "description": "How many days ahead (a continued line).",
                "default": 3,
            }
            assert props["note"] == {"type": "string", "description": "From Annotated.", "default": ""}

    run(main())


# ---- validation before the function runs -----------------------------------------------------------


def _validated_server() -> tuple[Server, list[dict[str, Any]]]:
    server = Server("tools")
    calls: list[dict[str, Any]] = []

    @server.tool
    def strict(count: int, mode: Literal["a", "b"] = "a", box: Box | None = None) -> str:
        calls.append({"count": count, "mode": mode, "box": box})
        return f"{count}{mode}"

    return server, calls


BAD_ARGUMENTS = [
    pytest.param({"count": "three"}, "count", id="wrong-type"),
    pytest.param({}, "count", id="missing-required"),
    pytest.param({"count": 1, "mode": "c"}, "mode", id="not-in-literal"),
    pytest.param({"count": 1.5}, "count", id="float-for-int"),
    pytest.param({"count": 1, "box": {"label": "no width"}}, "width", id="nested-missing"),
    pytest.param({"count": 1, "box": {"width": "wide"}}, "width", id="nested-wrong-type"),
]


@pytest.mark.parametrize(("arguments", "named"), BAD_ARGUMENTS)
def test_bad_arguments_are_an_error_result_and_never_call_the_function(arguments: dict[str, Any], named: str) -> None:
    server, calls = _validated_server()

    async def main() -> None:
        async with Client(server) as client:
            assert client.protocol_version == "2026-07-28"  # as at 2025-11-25: an error result
            result = await within(client.call_tool("strict", arguments))
            assert result.is_error is True
            assert named in result.text
            assert "structuredContent" not in result
            # The tool still works afterwards.
            ok = await within(client.call_tool("strict", {"count": 2, "mode": "b"}))
            assert ok.text == "2b" and ok.is_error is False

    run(main())
    assert calls == [{"count": 2, "mode": "b", "box": None}]


@pytest.mark.parametrize(("arguments", "named"), BAD_ARGUMENTS)
def test_bad_arguments_are_invalid_params_before_2025_11_25(arguments: dict[str, Any], named: str) -> None:
    server, calls = _validated_server()

    async def main() -> None:
        async with Client(server, protocol_version="2025-06-18") as client:
            assert client.protocol_version == "2025-06-18"
            with pytest.raises(InvalidParams) as caught:
                await within(client.call_tool("strict", arguments))
            assert caught.value.code == -32602
            assert named in caught.value.message
            assert caught.value.data["tool"] == "strict"

    run(main())
    assert calls == []


def test_unknown_tool_is_invalid_params() -> None:
    server, calls = _validated_server()

    async def main() -> None:
        async with Client(server) as client:
            with pytest.raises(InvalidParams) as caught:
                await within(client.call_tool("missing", {}))
            assert "missing" in caught.value.message

    run(main())
    assert calls == []


# ---- return values --------------------------------------------------------------------------------


def test_str_return_is_one_text_block() -> None:
    server = Server("tools")

    @server.tool
    def hello(name: str) -> str:
        return f"hello {name}"

    @server.tool
    async def unannotated(name: str):  # no return annotation on purpose
        return f"hi {name}"

    async def main() -> None:
        async with Client(server) as client:
            tools = await tools_by_name(client)
            assert "outputSchema" not in tools["hello"] and "outputSchema" not in tools["unannotated"]
            assert await within(client.call_tool("hello", {"name": "ann"})) == {
                "content": [{"type": "text", "text": "hello ann"}]
            }
            assert await within(client.call_tool("unannotated", {"name": "bo"})) == {
                "content": [{"type": "text", "text": "hi bo"}]
            }

    run(main())


def test_call_tool_result_passes_through_unchanged() -> None:
    server = Server("tools")

    @server.tool
    def full() -> CallToolResult:
        return CallToolResult(
            [Text("first"), "second", {"type": "text", "text": "third"}],
            structured_content={"n": 3},
            is_error=True,
            meta={"example.com/trace": "abc"},
        )

    @server.tool
    def structured_only() -> CallToolResult:
        return CallToolResult(structured_content={"n": 1})

    async def main() -> None:
        async with Client(server) as client:
            assert "outputSchema" not in (await tools_by_name(client))["full"]
            assert await within(client.call_tool("full")) == {
                "content": [
                    {"type": "text", "text": "first"},
                    {"type": "text", "text": "second"},
                    {"type": "text", "text": "third"},
                ],
                "structuredContent": {"n": 3},
                "isError": True,
                "_meta": {"example.com/trace": "abc"},
            }
            result = await within(client.call_tool("structured_only"))
            assert result.structured_content == {"n": 1}
            assert json.loads(result.text) == {"n": 1}

    run(main())


def test_content_helpers() -> None:
    server = Server("tools")

    @server.tool
    def image() -> Image:
        return Image(PNG, "image/png", annotations={"audience": ["user"]})

    @server.tool
    def audio() -> Audio:
        return Audio(WAV, "audio/wav")

    @server.tool
    def embedded_text() -> EmbeddedResource:
        return EmbeddedResource("file:///notes.txt", text="some notes", mime_type="text/plain")

    @server.tool
    def embedded_blob() -> EmbeddedResource:
        return EmbeddedResource("file:///data.bin", blob=b"\x00\x01\x02", mime_type="application/octet-stream")

    @server.tool
    def link() -> ResourceLink:
        return ResourceLink("file:///big.csv", "big.csv", description="A big file", mime_type="text/csv", size=10)

    @server.tool
    def several() -> list[Text | Image | ResourceLink]:
        return [Text("caption"), Image(PNG), ResourceLink("file:///x")]

    async def main() -> None:
        async with Client(server) as client:
            tools = await tools_by_name(client)
            for name in ("image", "audio", "embedded_text", "embedded_blob", "link", "several"):
                assert "outputSchema" not in tools[name], name
            assert await within(client.call_tool("image")) == {
                "content": [
                    {"type": "image", "data": b64(PNG), "mimeType": "image/png", "annotations": {"audience": ["user"]}}
                ]
            }
            assert await within(client.call_tool("audio")) == {
                "content": [{"type": "audio", "data": b64(WAV), "mimeType": "audio/wav"}]
            }
            assert await within(client.call_tool("embedded_text")) == {
                "content": [
                    {
                        "type": "resource",
                        "resource": {"uri": "file:///notes.txt", "mimeType": "text/plain", "text": "some notes"},
                    }
                ]
            }
            blob = await within(client.call_tool("embedded_blob"))
            assert blob.content[0].resource == {
                "uri": "file:///data.bin",
                "mimeType": "application/octet-stream",
                "blob": b64(b"\x00\x01\x02"),
            }
            assert await within(client.call_tool("link")) == {
                "content": [
                    {
                        "type": "resource_link",
                        "uri": "file:///big.csv",
                        "name": "big.csv",
                        "description": "A big file",
                        "mimeType": "text/csv",
                        "size": 10,
                    }
                ]
            }
            assert await within(client.call_tool("several")) == {
                "content": [
                    {"type": "text", "text": "caption"},
                    {"type": "image", "data": b64(PNG), "mimeType": "image/png"},
                    {"type": "resource_link", "uri": "file:///x", "name": "file:///x"},
                ]
            }

    run(main())


def test_structured_returns() -> None:
    server = Server("tools")

    @server.tool
    def as_dict() -> dict[str, int]:
        return {"a": 1, "b": 2}

    @server.tool
    def as_list() -> list[int]:
        return [1, 2, 3]

    @server.tool
    def as_dataclass() -> Summary:
        return Summary(total=2, names=["x", "y"])

    @server.tool
    def as_typeddict() -> Point:
        return {"x": 3, "y": 4}

    @server.tool
    def as_int(a: int, b: int) -> int:
        return a + b

    @server.tool
    async def as_async_enum() -> Color:
        return Color.RED

    async def main() -> None:
        async with Client(server) as client:
            tools = await tools_by_name(client)

            def check(result: Any, structured: Any) -> None:
                assert result.is_error is False
                assert result.structured_content == structured
                assert len(result.content) == 1 and result.content[0].type == "text"
                assert json.loads(result.text) == structured

            assert tools["as_dict"].output_schema == {"type": "object", "additionalProperties": {"type": "integer"}}
            check(await within(client.call_tool("as_dict")), {"a": 1, "b": 2})

            # Non-object results are wrapped as {"result": ...}.
            assert tools["as_list"].output_schema == {
                "type": "object",
                "properties": {"result": {"type": "array", "items": {"type": "integer"}}},
                "required": ["result"],
            }
            check(await within(client.call_tool("as_list")), {"result": [1, 2, 3]})

            assert tools["as_dataclass"].output_schema == {
                "type": "object",
                "properties": {"total": {"type": "integer"}, "names": {"type": "array", "items": {"type": "string"}}},
                "required": ["total", "names"],
            }
            check(await within(client.call_tool("as_dataclass")), {"total": 2, "names": ["x", "y"]})

            assert tools["as_typeddict"].output_schema == {
                "type": "object",
                "properties": {"x": {"type": "integer"}, "y": {"type": "integer"}},
                "required": ["x", "y"],
            }
            check(await within(client.call_tool("as_typeddict")), {"x": 3, "y": 4})

            assert tools["as_int"].output_schema == {
                "type": "object",
                "properties": {"result": {"type": "integer"}},
                "required": ["result"],
            }
            check(await within(client.call_tool("as_int", {"a": 2, "b": 5})), {"result": 7})

            assert tools["as_async_enum"].output_schema["properties"]["result"]["enum"] == ["red", "green"]
            check(await within(client.call_tool("as_async_enum")), {"result": "red"})

    run(main())


def test_structured_return_not_matching_its_annotation_is_an_error_result() -> None:
    server = Server("tools")

    @server.tool
    def liar() -> Summary:
        return {"total": "many"}  # type: ignore[return-value]

    async def main() -> None:
        async with Client(server) as client:
            result = await within(client.call_tool("liar"))
            assert result.is_error is True
            assert "liar" in result.text
            assert result.structured_content is None

    run(main())


def test_pydantic_models_in_and_out() -> None:
    pydantic = pytest.importorskip("pydantic")

    class Order(pydantic.BaseModel):
        item: str = pydantic.Field(description="What to buy.")
        quantity: int = 1

    class Receipt(pydantic.BaseModel):
        item: str
        total: float

    server = Server("tools")
    got: list[Any] = []

    @server.tool
    def buy(order: Order) -> Receipt:
        got.append(order)
        return Receipt(item=order.item, total=order.quantity * 2.5)

    async def main() -> None:
        async with Client(server) as client:
            tool = (await tools_by_name(client))["buy"]
            order_schema = json.dumps(tool.input_schema)
            assert "What to buy." in order_schema and "quantity" in order_schema
            assert tool.output_schema["type"] == "object"
            assert set(tool.output_schema["properties"]) == {"item", "total"}
            result = await within(client.call_tool("buy", {"order": {"item": "tea", "quantity": 2}}))
            assert result.structured_content == {"item": "tea", "total": 5.0}
            assert json.loads(result.text) == {"item": "tea", "total": 5.0}
            bad = await within(client.call_tool("buy", {"order": {"quantity": 2}}))
            assert bad.is_error is True

    run(main())
    assert len(got) == 1 and isinstance(got[0], Order) and got[0].quantity == 2


# ---- errors ------------------------------------------------------------------------------------


def test_mcp_error_is_a_json_rpc_error_with_code_and_data() -> None:
    server = Server("tools")

    @server.tool
    def custom() -> str:
        raise McpError(-31999, "custom failure", {"why": ["a", 1]})

    @server.tool
    async def invalid(x: int) -> str:
        raise InvalidParams("x is out of range", {"x": x})

    @server.tool
    def not_found() -> str:
        raise MethodNotFound("nothing here")

    async def main() -> None:
        async with Client(server) as client:
            with pytest.raises(McpError) as caught:
                await within(client.call_tool("custom"))
            assert type(caught.value) is McpError
            assert (caught.value.code, caught.value.message, caught.value.data) == (
                -31999,
                "custom failure",
                {"why": ["a", 1]},
            )
            with pytest.raises(InvalidParams) as invalid_caught:
                await within(client.call_tool("invalid", {"x": 5}))
            assert (invalid_caught.value.code, invalid_caught.value.message, invalid_caught.value.data) == (
                -32602,
                "x is out of range",
                {"x": 5},
            )
            with pytest.raises(MethodNotFound) as nf:
                await within(client.call_tool("not_found"))
            assert nf.value.code == -32601 and nf.value.data is None

    run(main())


def test_other_exceptions_are_error_results_with_their_message() -> None:
    server = Server("tools")

    @server.tool
    def sync_fails(x: int) -> int:
        raise ValueError(f"bad value {x}")

    @server.tool
    async def async_fails() -> dict[str, int]:
        await asyncio.sleep(0)
        raise ToolError("could not do it")

    @server.tool
    def no_message() -> str:
        raise KeyError()

    async def main() -> None:
        async with Client(server) as client:
            assert await within(client.call_tool("sync_fails", {"x": 3})) == {
                "content": [{"type": "text", "text": "bad value 3"}],
                "isError": True,
            }
            assert await within(client.call_tool("async_fails")) == {
                "content": [{"type": "text", "text": "could not do it"}],
                "isError": True,
            }
            result = await within(client.call_tool("no_message"))
            assert result.is_error is True and result.text == "KeyError"
            with pytest.raises(ToolError, match="bad value 4"):
                await within(client.call_tool("sync_fails", {"x": 4}, raise_on_error=True))

    run(main())


# ---- where handlers run --------------------------------------------------------------------------


def test_sync_handlers_run_in_a_worker_thread_unless_inline() -> None:
    server = Server("tools")
    threads: dict[str, threading.Thread] = {}

    @server.tool
    def worker() -> str:
        threads["worker"] = threading.current_thread()
        return "worker"

    @server.tool(inline=True)
    def inline() -> str:
        threads["inline"] = threading.current_thread()
        return "inline"

    @server.tool
    async def coroutine() -> str:
        threads["coroutine"] = threading.current_thread()
        return "coroutine"

    async def main() -> None:
        async with Client(server) as client:
            for name in ("worker", "inline", "coroutine"):
                assert (await within(client.call_tool(name))).text == name

    run(main())
    assert threads["worker"] is not threading.main_thread()
    assert threads["inline"] is threading.main_thread()
    assert threads["coroutine"] is threading.main_thread()


def test_sync_handlers_run_concurrently() -> None:
    server = Server("tools")
    barrier = threading.Barrier(3, timeout=5)

    @server.tool
    def meet(n: int) -> int:
        barrier.wait()  # returns only once all three calls are running at the same time
        return n

    async def main() -> None:
        async with Client(server) as client:
            results = await within(asyncio.gather(*(client.call_tool("meet", {"n": n}) for n in range(3))))
            assert [r.structured_content for r in results] == [{"result": n} for n in range(3)]

    run(main())


# ---- runtime changes -----------------------------------------------------------------------------


def test_add_and_remove_tools_while_connected() -> None:
    server = Server("tools")

    @server.tool
    def first() -> str:
        return "first"

    messages = Messages()

    async def main() -> None:
        async with Client(server, message_handler=messages) as client:
            assert client.server_capabilities.tools == {"listChanged": True}
            assert [t.name for t in await within(client.list_tools())] == ["first"]

            def second(x: int) -> int:
                """Added at run time."""
                return x * 2

            server.add_tool(second)
            await within(until(lambda: messages.count("notifications/tools/list_changed") == 1))
            tools = await tools_by_name(client)
            assert list(tools) == ["first", "second"]
            assert tools["second"].description == "Added at run time."
            assert (await within(client.call_tool("second", {"x": 4}))).structured_content == {"result": 8}

            assert server.remove_tool("first") is True
            await within(until(lambda: messages.count("notifications/tools/list_changed") == 2))
            assert [t.name for t in await within(client.list_tools())] == ["second"]
            with pytest.raises(InvalidParams):
                await within(client.call_tool("first"))

            # Removing what is not there changes nothing and notifies no one.
            assert server.remove_tool("first") is False
            await within(client.ping())
            await asyncio.sleep(0.05)
            assert messages.received == [
                ("notifications/tools/list_changed", None),
                ("notifications/tools/list_changed", None),
            ]

    run(main())

"""The tables the three languages share live once, as fixtures (tests/fixtures/): Python's
side of each must match."""

from __future__ import annotations

import builtins
import json
from pathlib import Path
from typing import Any

import pytest

from _helpers import run, within
from hypermcp import Client, Context, Server, _core, _events, errors

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def _fixture(name: str) -> dict:
    return json.loads((FIXTURES / name).read_text())


def test_error_codes_and_classes_match_the_fixture() -> None:
    table = _fixture("errors.json")
    for name, code in table["codes"].items():
        assert getattr(errors, name) == code, name
        assert name in errors.__all__
    for entry in table["classes"]:
        code = table["codes"][entry["code"]]
        made = errors.error_for_code(code, "m", {"d": 1})
        assert made.code == code and made.message == "m" and made.data == {"d": 1}
        if entry["python"] is None:
            assert type(made) is errors.McpError, entry
        else:
            cls = getattr(errors, entry["python"])
            assert type(made) is cls and issubclass(cls, errors.McpError), entry
            assert entry["python"] in errors.__all__
    for entry in table["other"]:
        cls = getattr(errors, entry["python"])
        assert issubclass(cls, getattr(builtins, entry["python_base"])), entry
        assert not issubclass(cls, errors.McpError)


def test_native_errors_are_the_classes_of_the_table() -> None:
    registry = _core.Registry()
    try:
        registry.add_tool({"name": "bad", "inputSchema": {"type": "string"}})
    except errors.DefinitionError as exc:
        assert isinstance(exc, ValueError)
    else:
        raise AssertionError("an input schema that is not an object schema is refused")
    try:
        _core.HttpServer.check_options({"bogus": 1})
    except errors.OptionError as exc:
        assert isinstance(exc, TypeError) and isinstance(exc, ValueError)
        assert "bogus" in str(exc)
    else:
        raise AssertionError("an unknown option is refused")


def test_event_layouts_match_the_fixture() -> None:
    table = _fixture("events.json")["layouts"]
    assert {kind: list(fields) for kind, fields in _events.LAYOUTS.items()} == table
    # The named indices read the same places as the fixture says.
    assert _events.TOOL_NAME == table["tool"].index("name") + 1
    assert _events.RESOURCE_VARIABLES == table["resource"].index("variables") + 1
    assert _events.RESPONSE_RESULT == table["response"].index("result") + 1
    assert _events.PROGRESS_MESSAGE == table["progress"].index("message") + 1
    assert _events.CALLS == {
        "tool",
        "resource",
        "prompt",
        "complete",
        "method",
        "list",
        "sampling",
        "elicitation",
        "roots",
    }


def _client_options(features: dict[str, Any]) -> dict[str, Any]:
    """The Client options that ask for a case's features (Python's names for them)."""
    options: dict[str, Any] = {}
    if features.get("sampling"):
        options["sampling_handler"] = lambda params: {}
    if features.get("elicitation"):
        options["elicitation_handler"] = lambda params: {"action": "decline"}
    if features.get("elicitation_url"):
        options["elicitation_url"] = True
    if features.get("roots"):
        options["roots"] = ["file:///r"]
    for flag in ("tasks", "apps", "extensions"):
        if flag in features:
            options[flag] = features[flag]
    return options


@pytest.mark.parametrize(
    "case", _fixture("client_capabilities.json")["cases"], ids=lambda c: c["name"].replace(" ", "-")
)
def test_client_capabilities_match_the_fixture(case: dict[str, Any]) -> None:
    if "capabilities" in case["features"]:
        pytest.skip("capabilities given as they are: an option of the Node and Rust clients")
    server = Server("caps")

    @server.tool
    def declared(ctx: Context) -> dict[str, Any]:
        return ctx.client_capabilities

    options = _client_options(case["features"])
    if "error" in case:
        with pytest.raises(ValueError):
            Client(server, **options)
        return

    async def main() -> dict[str, Any]:
        async with Client(server, **options) as client:
            result = await within(client.call_tool("declared"))
            return result.structured_content or {}

    assert run(main()) == case["capabilities"]

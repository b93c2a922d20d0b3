"""The tables the three languages share live once, as fixtures (tests/fixtures/): Python's
side of each must match."""

from __future__ import annotations

import builtins
import json
from pathlib import Path

from hypermcp import _core, _events, errors

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
    assert _events.CALLS == {"tool", "resource", "prompt", "complete", "sampling", "elicitation", "roots"}

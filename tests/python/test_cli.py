"""The `hypermcp` command line, as the Python package installs it (the console script in the
venv's bin/): list, call, read, prompt and inspect against servers of every kind (a Python
server file, a Node one, the Rust echo server as a command line, the official Python and
TypeScript SDK servers over stdio and HTTP), `run` and `dev`, and the error paths with
their exit codes."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from _helpers import free_port, wait_for_port

ROOT = Path(__file__).resolve().parents[2]
PEERS = Path(os.environ.get("HYPERMCP_PEERS") or ROOT / ".peers")
HYPERMCP = str(Path(sys.executable).parent / "hypermcp")
WEATHER_PY = str(ROOT / "examples/python/weather_server.py")
ECHO_NODE = str(ROOT / "examples/node/echo_server.mjs")
PY_SDK = [str(PEERS / "venv/bin/python"), str(ROOT / "tests/interop/peers/py_echo_server.py")]
TS_SDK = ["node", str(ROOT / "tests/interop/peers/ts_echo_server.mjs")]
# Server files run with this Python (the one the tests run in has hypermcp installed).
ENV = {**os.environ, "HYPERMCP_PYTHON": sys.executable, "PEERS": str(PEERS), "NO_COLOR": "1"}


def echo_server() -> str:
    path = Path(
        os.environ.get("HYPERMCP_ECHO_SERVER")
        or Path(os.environ.get("HYPERMCP_BUILD") or ROOT / "target/release") / "examples/echo_server"
    )
    assert path.is_file(), f"the Rust echo server is missing at {path}"
    return str(path)


def cli(*args: str, code: int = 0, cwd: Path | None = None, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    p = subprocess.run(
        [HYPERMCP, *args], capture_output=True, text=True, env=ENV, cwd=cwd, timeout=timeout, check=False
    )
    assert p.returncode == code, f"hypermcp {' '.join(args)} exited {p.returncode}, not {code}\n{p.stdout}\n{p.stderr}"
    return p


@contextmanager
def serve(cmd: list[str], port: int) -> Iterator[str]:
    proc = subprocess.Popen(cmd, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        wait_for_port(port, proc)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def test_help_version_and_usage_errors() -> None:
    out = cli("--help").stdout
    for command in ("list", "call", "read", "prompt", "inspect", "run", "dev"):
        assert re.search(rf"^  {command} ", out, re.M), command
    assert "Exit codes" in out
    assert cli("call", "--help").stdout.startswith("Usage: hypermcp call")
    assert cli("--version").stdout.strip() == cli("version").stdout.strip()
    v = subprocess.run([sys.executable, "-m", "hypermcp", "--version"], capture_output=True, text=True, check=True)
    assert v.stdout.startswith("hypermcp 0.")
    assert "unknown command" in cli("lst", code=2).stderr
    assert "no TARGET" in cli("list", code=2).stderr
    assert "unknown option --jsn" in cli("list", "--jsn", WEATHER_PY, code=2).stderr
    assert "no such server file" in cli("list", "missing_server.py", code=2).stderr
    assert "no such program" in cli("list", "no-such-program --flag", code=1).stderr
    assert cli(code=2).stdout.startswith("hypermcp: one command line")


def test_list_call_read_prompt_inspect_a_python_server_file() -> None:
    out = cli("list", WEATHER_PY).stdout
    assert "forecast(city: string, days?: integer" in out and "weather://cities" in out
    assert "weather://{city}/now" in out and "packing_list(city, days?)" in out
    lists = json.loads(cli("list", "--json", WEATHER_PY).stdout)
    assert {t["name"] for t in lists["tools"]} >= {"forecast", "alerts", "weather_map"}
    assert {"tools", "resources", "resourceTemplates", "prompts"} <= set(lists)
    # key=value words typed by the schema: days is an integer, city stays text.
    out = cli("call", WEATHER_PY, "forecast", "city=Paris", "days=2").stdout
    assert json.loads(out)["temperatures"] and json.loads(out)["days"] == 2
    result = json.loads(cli("call", "--json", WEATHER_PY, "forecast", '{"city": "Lima", "days": 1}').stdout)
    assert result["structuredContent"]["city"] == "Lima"
    assert "[image image/png" in cli("call", WEATHER_PY, "weather_map", "city=Tokyo").stdout
    assert "days takes integer" in cli("call", WEATHER_PY, "forecast", "city=Paris", "days=two", code=2).stderr
    assert "no tool" in cli("call", WEATHER_PY, "nope", code=2).stderr
    assert sorted(json.loads(cli("read", WEATHER_PY, "weather://cities").stdout)) == [
        "lima",
        "london",
        "paris",
        "tokyo",
    ]
    assert json.loads(cli("read", WEATHER_PY, "weather://tokyo/now").stdout)["name"].lower() == "tokyo"
    out = cli("prompt", WEATHER_PY, "packing_list", "city=London", "days=2").stdout
    assert "[user]" in out and "London" in out
    assert "needs city" in cli("prompt", WEATHER_PY, "packing_list", code=2).stderr
    doc = json.loads(cli("inspect", WEATHER_PY).stdout)
    assert doc["serverInfo"]["name"] == "weather" and doc["era"] in ("modern", "legacy")
    assert doc["capabilities"]["tools"] is not None and len(doc["tools"]) >= 4 and doc["prompts"]
    legacy = json.loads(cli("inspect", "--mode", "legacy", WEATHER_PY).stdout)
    assert legacy["era"] == "legacy" and legacy["protocolVersion"] < "2026"


def test_a_tool_error_exits_3_and_a_blob_goes_to_a_file(tmp_path: Path) -> None:
    server = tmp_path / "errs.py"
    server.write_text(
        "from hypermcp import Server\n"
        "server = Server('errs', version='1')\n"
        "@server.tool\n"
        "def boom(why: str) -> str:\n"
        "    '''Fails.'''\n"
        "    raise ValueError(why)\n"
        "@server.resource('data://blob', mime_type='application/octet-stream')\n"
        "def blob() -> bytes:\n"
        "    '''Bytes.'''\n"
        "    return bytes(range(256))\n"
    )
    p = cli("call", str(server), "boom", "why=on purpose", code=3)
    assert "on purpose" in p.stdout and "answered with an error" in p.stderr
    assert "256 bytes" in cli("read", str(server), "data://blob").stdout
    out = tmp_path / "blob.bin"
    cli("read", str(server), "data://blob", "--out", str(out))
    assert out.read_bytes() == bytes(range(256))


def test_commands_and_node_files_and_the_official_sdks_over_stdio() -> None:
    assert cli("call", "echo", "text=from a command", "--", echo_server()).stdout == "from a command\n"
    assert cli("call", echo_server(), "echo", "text=quoted target").stdout == "quoted target\n"
    assert cli("call", ECHO_NODE, "echo", "text=from node").stdout == "from node\n"
    for sdk in (PY_SDK, TS_SDK):
        assert "echo(text: string)" in cli("list", "--", *sdk).stdout
        assert cli("call", "echo", "text=official", "--", *sdk).stdout.strip() == "official"
        doc = json.loads(cli("inspect", "--", *sdk).stdout)
        assert doc["serverInfo"]["name"].endswith("echo-server") and [t["name"] for t in doc["tools"]] == ["echo"]


@pytest.mark.parametrize("sdk", ["python", "typescript"])
def test_the_official_sdks_over_http(sdk: str) -> None:
    port = free_port()
    cmd = [*(PY_SDK if sdk == "python" else TS_SDK), "--http", str(port)]
    with serve(cmd, port) as url:
        assert "echo(text: string)" in cli("list", url).stdout
        assert cli("call", url, "echo", "text=over http").stdout.strip() == "over http"
        assert json.loads(cli("inspect", url).stdout)["tools"][0]["name"] == "echo"


def test_headers_and_transport_options() -> None:
    port = free_port()
    cmd = [sys.executable, str(ROOT / "examples/python/echo_server.py"), "--http", str(port)]
    with serve(cmd, port) as url:
        assert cli("call", url, "--header", "X-Trace: 1", "--transport", "http", "echo", "text=h").stdout == "h\n"
        sse = url.replace("/mcp", "/sse")
        assert cli("call", sse, "--transport", "sse", "echo", "text=legacy").stdout == "legacy\n"
        assert "--header takes" in cli("list", url, "--header", "nocolon", code=2).stderr
        assert "--transport takes" in cli("list", url, "--transport", "ws", code=2).stderr
    refused = f"http://127.0.0.1:{free_port()}/mcp"
    assert cli("list", refused, code=1).stderr


def test_run_serves_a_file_over_http_and_finds_its_server(tmp_path: Path) -> None:
    app = tmp_path / "app.py"
    app.write_text(
        "from hypermcp import Server\n"
        "mine = Server('app', version='1')\n"
        "@mine.tool\n"
        "def hello(name: str) -> str:\n"
        "    '''Greets.'''\n"
        "    return f'hello {name}'\n"
    )
    port = free_port()
    with serve([HYPERMCP, "run", str(app), "--http", str(port)], port) as url:
        assert cli("call", url, "hello", "name=http").stdout == "hello http\n"
    assert cli("call", f"{app}:mine", "hello", "name=object").stdout == "hello object\n"
    assert "no Server named other" in cli("call", f"{app}:other", "hello", code=1).stderr
    two = tmp_path / "two.py"
    two.write_text("from hypermcp import Server\na = Server('a')\nb = Server('b')\n")
    assert "several Servers (a, b)" in cli("list", str(two), code=1).stderr
    none = tmp_path / "none.py"
    none.write_text("x = 1\n")
    assert "defines no Server" in cli("list", str(none), code=1).stderr
    assert "is not a server file" in cli("run", "notes.txt", code=2).stderr


def test_dev_restarts_the_server_when_its_file_changes(tmp_path: Path) -> None:
    app = tmp_path / "dev_app.py"
    app.write_text(
        "from hypermcp import Server\n"
        "server = Server('dev', version='1')\n"
        "@server.tool\n"
        "def which() -> str:\n"
        "    '''Which.'''\n"
        "    return 'first'\n"
    )
    port = free_port()
    proc = subprocess.Popen(
        [HYPERMCP, "dev", str(app), "--http", str(port)], env=ENV, stderr=subprocess.PIPE, text=True
    )
    try:
        wait_for_port(port, proc)
        url = f"http://127.0.0.1:{port}/mcp"
        assert cli("call", url, "which").stdout == "first\n"
        app.write_text(app.read_text().replace("'first'", "'second'"))
        deadline = time.monotonic() + 20
        while True:
            p = subprocess.run([HYPERMCP, "call", url, "which"], capture_output=True, text=True, env=ENV, check=False)
            if p.stdout == "second\n":
                break
            assert time.monotonic() < deadline, f"no restart after the change: {p.stdout!r} {p.stderr!r}"
            time.sleep(0.2)
    finally:
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=15)
    assert proc.returncode == 0, err
    assert "changed: restarting" in err
    # The server stopped with it.
    with pytest.raises(OSError), socket.create_connection(("127.0.0.1", port), timeout=0.5):
        pass


def test_bench_measures_a_server_over_stdio_and_http() -> None:
    result = json.loads(
        cli("bench", "--duration", "1", "--warmup", "0.2", "--inflight", "4", "--json", "--", echo_server()).stdout
    )
    assert result["calls"] > 100 and result["errors"] == 0, result
    assert result["call"].startswith("tools/call echo") and result["inflight"] == 4
    lat = result["latencyMs"]
    assert 0 < lat["p50"] <= lat["p90"] <= lat["p99"] <= lat["max"], lat
    assert abs(result["callsPerSecond"] - result["calls"] / result["seconds"]) < 0.01 * result["callsPerSecond"] + 1
    port = free_port()
    with serve([*TS_SDK, "--http", str(port)], port) as url:
        text = cli("bench", url, "--tool", "echo", "--args", '{"text": "x"}', "--duration", "0.5").stdout
        assert re.search(r"calls/s\s+[\d,]+", text) and "p99" in text, text
    # A tool that always fails is told at once; arguments that are not JSON are a usage error.
    assert "the first call failed" in cli("bench", WEATHER_PY, "--tool", "forecast", "--args", "{}", code=1).stderr
    assert "--args is not valid JSON" in cli("bench", WEATHER_PY, "--args", "{x", code=2).stderr


HOSTS = Path(__file__).parent / "hosts"


def _shape(entry: dict[str, object]) -> dict[str, type]:
    return {k: type(v) for k, v in entry.items()}


@pytest.mark.parametrize(
    ("host", "sample"),
    [
        ("claude-desktop", "claude_desktop.json"),
        ("cursor", "cursor.json"),
        ("vscode", "vscode.json"),
        ("claude-code", "claude_code.json"),
    ],
)
def test_install_writes_what_each_host_reads(tmp_path: Path, host: str, sample: str) -> None:
    documented = json.loads((HOSTS / sample).read_text())
    (key,) = documented.keys()
    shapes = [_shape(e) for e in documented[key].values()]
    config = tmp_path / "conf" / "mcp.json"
    config.parent.mkdir()
    config.write_text(json.dumps({"other": {"kept": True}, key: {"existing": {"command": "x", "args": []}}}))
    out = cli("install", host, WEATHER_PY, "--config", str(config), "--env", "UNITS=metric").stdout
    assert "added weather_server" in out and str(config) in out
    doc = json.loads(config.read_text())
    assert doc["other"] == {"kept": True} and "existing" in doc[key]
    entry = doc[key]["weather_server"]
    assert any(_shape(entry) == s for s in shapes), (entry, shapes)
    # The entry runs the file with this Python and the package's runner, by absolute paths.
    assert entry["command"] == sys.executable and entry["args"] == ["-m", "hypermcp._runner", WEATHER_PY]
    assert entry["env"] == {"UNITS": "metric"}
    # Started the way the host starts it, the entry serves.
    listed = subprocess.run(
        [HYPERMCP, "list", "--", entry["command"], *entry["args"]], capture_output=True, text=True, env=ENV, check=True
    )
    assert "forecast(" in listed.stdout
    # Installed again: replaced, not duplicated. A command line, under a name of one's own.
    assert "replaced weather_server" in cli("install", host, WEATHER_PY, "--config", str(config)).stdout
    cli("install", host, "--config", str(config), "--name", "echo", "--", "npx", "-y", "some-server")
    doc = json.loads(config.read_text())
    assert doc[key]["echo"]["command"] == "npx" and doc[key]["echo"]["args"] == ["-y", "some-server"]
    assert set(doc[key]["echo"]) <= set().union(*shapes)
    url = "https://mcp.example.com/mcp"
    if host == "claude-desktop":
        assert "connectors" in cli("install", host, url, "--config", str(config), code=2).stderr
    else:
        cli("install", host, url, "--config", str(config), "--header", "Authorization: Bearer t")
        remote = json.loads(config.read_text())[key]["mcp.example.com"]
        assert any(_shape(remote) == s for s in shapes), (remote, shapes)
        assert remote["url"] == url and remote["headers"] == {"Authorization": "Bearer t"}


def test_install_leaves_a_broken_file_alone_and_can_dry_run(tmp_path: Path) -> None:
    config = tmp_path / "claude_desktop_config.json"
    config.write_text("{ not json")
    assert "is not valid JSON" in cli("install", "claude-desktop", WEATHER_PY, "--config", str(config), code=1).stderr
    assert config.read_text() == "{ not json"
    fresh = tmp_path / "new" / "mcp.json"
    out = cli("install", "cursor", WEATHER_PY, "--config", str(fresh), "--dry-run").stdout
    assert "dry run" in out and not fresh.exists()
    assert "unknown host" in cli("install", "emacs", WEATHER_PY, code=2).stderr
    # The default files: under HOME for Claude Desktop and Cursor, the current folder for the others.
    home = tmp_path / "home"
    env = {**ENV, "HOME": str(home), "XDG_CONFIG_HOME": ""}
    for host, where in [
        ("claude-desktop", home / ".config/Claude/claude_desktop_config.json"),
        ("cursor", home / ".cursor/mcp.json"),
        ("vscode", tmp_path / ".vscode/mcp.json"),
        ("claude-code", tmp_path / ".mcp.json"),
    ]:
        subprocess.run([HYPERMCP, "install", host, WEATHER_PY], env=env, cwd=tmp_path, check=True, capture_output=True)
        assert "weather_server" in json.loads(where.read_text())[next(iter(json.loads(where.read_text())))]

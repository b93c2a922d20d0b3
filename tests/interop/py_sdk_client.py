#!/usr/bin/env python3
"""Drive an MCP stdio server with the official Python SDK client (mcp 2.3.0).

    py_sdk_client.py [--timeout SECONDS] -- CMD [ARGS...]

Starts CMD over stdio, initializes, checks that tools/list has a tool `echo`, calls
`echo {"text": "hello interop"}` and checks the result is exactly one text content equal
to "hello interop" and not isError, sends a ping, and exits 0. On any failure it prints a
message to stderr and exits 1. The whole run is bounded (30 s by default).

When ${PEERS:-<repo>/.peers}/venv exists (see setup_peers.sh), the script re-executes
itself with that venv's python, so the pinned SDK is used whatever python started it.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
PEERS = Path(os.environ.get("PEERS") or REPO / ".peers").resolve()
VENV_PYTHON = PEERS / "venv" / "bin" / "python"

# Prefer the pinned SDK in the peers venv over whatever the running interpreter has.
if (
    VENV_PYTHON.exists()
    and Path(sys.prefix).resolve() != VENV_PYTHON.parent.parent.resolve()
    and os.environ.get("_HYPERMCP_PY_CLIENT_REEXEC") != "1"
):
    os.environ["_HYPERMCP_PY_CLIENT_REEXEC"] = "1"
    os.execv(str(VENV_PYTHON), [str(VENV_PYTHON), str(Path(__file__).resolve()), *sys.argv[1:]])
os.environ.pop("_HYPERMCP_PY_CLIENT_REEXEC", None)  # not inherited by the server under test

try:
    import anyio

    if sys.version_info >= (3, 11):
        from builtins import BaseExceptionGroup
    else:  # anyio depends on the backport there
        from exceptiongroup import BaseExceptionGroup
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client
except ImportError as exc:
    sys.stderr.write(
        f"py_sdk_client: the official Python SDK (mcp) is not importable ({exc}); "
        f"run tests/interop/setup_peers.sh (PEERS={PEERS})\n"
    )
    sys.exit(1)


ECHO_TEXT = "hello interop"
PREFIX = "py_sdk_client"


class CheckFailed(Exception):
    pass


def check(cond: bool, msg: str) -> None:
    if not cond:
        raise CheckFailed(msg)


def usage() -> None:
    sys.stderr.write(f"usage: {Path(__file__).name} [--timeout SECONDS] -- CMD [ARGS...]\n")
    sys.exit(2)


def parse_args(argv: list[str]) -> tuple[float, list[str]]:
    timeout = 30.0
    i = 0
    while i < len(argv) and argv[i] != "--":
        if argv[i] == "--timeout" and i + 1 < len(argv):
            timeout = float(argv[i + 1])
            i += 2
        elif argv[i].startswith("--timeout="):
            timeout = float(argv[i].split("=", 1)[1])
            i += 1
        else:
            break
    if i < len(argv) and argv[i] == "--":
        i += 1
    cmd = argv[i:]
    if not cmd:
        usage()
    return timeout, cmd


async def run(cmd: list[str]) -> None:
    # Pass the whole environment (the SDK's default keeps only a few variables), so the
    # server under test sees PEERS, PATH, RUST_LOG, ...
    params = StdioServerParameters(command=cmd[0], args=cmd[1:], env=dict(os.environ))
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            info = init.server_info
            print(
                f"{PREFIX}: initialized: protocolVersion={init.protocol_version} server={info.name} {info.version}",
                file=sys.stderr,
            )

            tools = await session.list_tools()
            names = [t.name for t in tools.tools]
            check("echo" in names, f"tools/list has no tool 'echo' (tools: {names})")

            res = await session.call_tool("echo", {"text": ECHO_TEXT})
            wire = res.model_dump(by_alias=True, mode="json", exclude_none=True)
            check(not res.is_error, f"echo returned isError=true: {wire}")
            check(len(res.content) == 1, f"echo returned {len(res.content)} content items, want 1: {wire}")
            item = res.content[0]
            check(getattr(item, "type", None) == "text", f"echo content[0] is not text: {wire}")
            check(item.text == ECHO_TEXT, f"echo content[0].text is {item.text!r}, want {ECHO_TEXT!r}")

            await session.send_ping()


async def main_async(timeout: float, cmd: list[str]) -> None:
    with anyio.fail_after(timeout):
        await run(cmd)


def describe(exc: BaseException) -> str:
    # Unwrap exception groups from the task groups inside the SDK.
    while isinstance(exc, BaseExceptionGroup) and len(exc.exceptions) == 1:
        exc = exc.exceptions[0]
    if isinstance(exc, BaseExceptionGroup):
        return "; ".join(describe(e) for e in exc.exceptions)
    text = str(exc) or repr(exc)
    return text if isinstance(exc, CheckFailed) else f"{type(exc).__name__}: {text}"


def main() -> int:
    timeout, cmd = parse_args(sys.argv[1:])
    try:
        anyio.run(main_async, timeout, cmd)
    except TimeoutError:
        print(f"{PREFIX}: FAIL: timed out after {timeout:g}s (server: {' '.join(cmd)})", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except BaseException as exc:  # noqa: BLE001 - any failure is a test failure
        print(f"{PREFIX}: FAIL: {describe(exc)} (server: {' '.join(cmd)})", file=sys.stderr)
        return 1
    print(f"{PREFIX}: ok (initialize, tools/list, tools/call echo, ping)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Shared plumbing of the scripts that drive a server with the official Python SDK
(py_sdk_client.py, py_sdk_full.py, ../conformance/reference_client.py): run under the pinned
SDK of the peers venv, parse ``[--timeout SECONDS] (--url URL | --sse-url URL | -- CMD
[ARGS...])``, open the matching SDK transport (stdio child, Streamable HTTP, legacy HTTP+SSE),
check conditions, and turn the outcome into an exit code with one clear line."""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")

REPO = Path(__file__).resolve().parent.parent.parent
PEERS = Path(os.environ.get("PEERS") or REPO / ".peers").resolve()
VENV_PYTHON = PEERS / "venv" / "bin" / "python"
_REEXEC = "_HYPERMCP_PEER_PYTHON_REEXEC"


def use_peers_python(script: str) -> None:
    """Re-executes ``script`` with the peers venv's python (the pinned SDK), whatever python
    started it; does nothing once there (or when the venv is missing)."""
    if (
        VENV_PYTHON.exists()
        and Path(sys.prefix).resolve() != VENV_PYTHON.parent.parent.resolve()
        and os.environ.get(_REEXEC) != "1"
    ):
        os.environ[_REEXEC] = "1"
        os.execv(str(VENV_PYTHON), [str(VENV_PYTHON), str(Path(script).resolve()), *sys.argv[1:]])
    os.environ.pop(_REEXEC, None)  # not inherited by the server under test


def sdk_missing(prefix: str, exc: ImportError) -> None:
    """Exits with a hint when the official SDK cannot be imported."""
    sys.stderr.write(
        f"{prefix}: the official Python SDK (mcp) is not importable ({exc}); "
        f"run tests/interop/setup_peers.sh (PEERS={PEERS})\n"
    )
    sys.exit(1)


class CheckFailed(Exception):
    """A check of the server's behaviour failed."""


def check(cond: object, msg: str) -> None:
    if not cond:
        raise CheckFailed(msg)


@dataclass
class Target:
    """What the script talks to: a stdio command (``kind="stdio"``), a Streamable HTTP
    endpoint (``"http"``) or a legacy HTTP+SSE endpoint (``"sse"``, the URL of its GET
    stream)."""

    kind: str
    cmd: list[str] = field(default_factory=list)
    url: str = ""

    def __str__(self) -> str:
        if self.kind == "stdio":
            return f"server: {' '.join(self.cmd)}"
        return f"{'url' if self.kind == 'http' else 'sse url'}: {self.url}"


USAGE = "[--timeout SECONDS] (--url URL | --sse-url URL | -- CMD [ARGS...])"


def parse_args(script: str, argv: list[str]) -> tuple[float, Target]:
    """``[--timeout SECONDS] (--url URL | --sse-url URL | -- CMD [ARGS...])`` (30 s by
    default)."""
    timeout = 30.0
    url: tuple[str, str] | None = None
    i = 0
    try:
        while i < len(argv) and argv[i] != "--":
            arg = argv[i]
            name, eq, value = arg.partition("=")
            if name in ("--timeout", "--url", "--sse-url"):
                if not eq:
                    value = argv[i + 1]
                    i += 1
                if name == "--timeout":
                    timeout = float(value)
                else:
                    url = ("http" if name == "--url" else "sse", value)
                i += 1
            else:
                break
    except (IndexError, ValueError):
        timeout = 0
    if i < len(argv) and argv[i] == "--":
        i += 1
    cmd = argv[i:]
    if (not cmd) == (url is None) or not timeout > 0:
        sys.stderr.write(f"usage: {Path(script).name} {USAGE}\n")
        sys.exit(2)
    target = Target("stdio", cmd=cmd) if url is None else Target(url[0], url=url[1])
    return timeout, target


@asynccontextmanager
async def open_transport(target: Target) -> AsyncIterator[tuple[Any, Any]]:
    """The official SDK's transport for ``target``: yields ``(read, write)`` for a
    ``ClientSession``. A stdio child gets the whole environment (the SDK's default keeps
    only a few variables), so the server under test sees PEERS, PATH, RUST_LOG, ..."""
    if target.kind == "http":
        from mcp.client.streamable_http import streamable_http_client

        async with streamable_http_client(target.url) as streams:
            yield streams[0], streams[1]
    elif target.kind == "sse":
        from mcp.client.sse import sse_client

        async with sse_client(target.url) as streams:
            yield streams[0], streams[1]
    else:
        from mcp import StdioServerParameters
        from mcp.client.stdio import stdio_client

        params = StdioServerParameters(command=target.cmd[0], args=target.cmd[1:], env=dict(os.environ))
        async with stdio_client(params) as streams:
            yield streams[0], streams[1]


def describe(exc: BaseException) -> str:
    """One line for a failure, unwrapping the exception groups of the SDK's task groups."""
    if sys.version_info >= (3, 11):
        from builtins import BaseExceptionGroup
    else:  # anyio depends on the backport there
        from exceptiongroup import BaseExceptionGroup
    while isinstance(exc, BaseExceptionGroup) and len(exc.exceptions) == 1:
        exc = exc.exceptions[0]
    if isinstance(exc, BaseExceptionGroup):
        return "; ".join(describe(e) for e in exc.exceptions)
    text = str(exc) or repr(exc)
    return text if isinstance(exc, CheckFailed) else f"{type(exc).__name__}: {text}"


def run_main(script: str, prefix: str, body: Callable[[Target], Awaitable[T]], on_ok: Callable[[T], None]) -> int:
    """Runs ``body(target)`` within the timeout; returns the exit code."""
    import anyio

    timeout, target = parse_args(script, sys.argv[1:])

    async def bounded() -> Any:
        with anyio.fail_after(timeout):
            return await body(target)

    try:
        result = anyio.run(bounded)
    except TimeoutError:
        print(f"{prefix}: FAIL: timed out after {timeout:g}s ({target})", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except BaseException as exc:  # noqa: BLE001 - any failure is a test failure
        print(f"{prefix}: FAIL: {describe(exc)} ({target})", file=sys.stderr)
        return 1
    on_ok(result)
    return 0

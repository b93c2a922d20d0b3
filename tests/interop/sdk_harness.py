"""Shared plumbing of the scripts that drive a server with the official Python SDK
(py_sdk_client.py, py_sdk_full.py): run under the pinned SDK of the peers venv, parse
``[--timeout SECONDS] -- CMD [ARGS...]``, check conditions, and turn the outcome into an
exit code with one clear line."""

from __future__ import annotations

import os
import sys
from collections.abc import Awaitable, Callable
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


def parse_args(script: str, argv: list[str]) -> tuple[float, list[str]]:
    """``[--timeout SECONDS] -- CMD [ARGS...]`` (30 s by default)."""
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
    if not cmd or not timeout > 0:
        sys.stderr.write(f"usage: {Path(script).name} [--timeout SECONDS] -- CMD [ARGS...]\n")
        sys.exit(2)
    return timeout, cmd


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


def run_main(script: str, prefix: str, body: Callable[[list[str]], Awaitable[T]], on_ok: Callable[[T], None]) -> int:
    """Runs ``body(cmd)`` within the timeout; returns the exit code."""
    import anyio

    timeout, cmd = parse_args(script, sys.argv[1:])

    async def bounded() -> Any:
        with anyio.fail_after(timeout):
            return await body(cmd)

    try:
        result = anyio.run(bounded)
    except TimeoutError:
        print(f"{prefix}: FAIL: timed out after {timeout:g}s (server: {' '.join(cmd)})", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except BaseException as exc:  # noqa: BLE001 - any failure is a test failure
        print(f"{prefix}: FAIL: {describe(exc)} (server: {' '.join(cmd)})", file=sys.stderr)
        return 1
    on_ok(result)
    return 0

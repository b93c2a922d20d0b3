"""Shared helpers of the in-memory server tests: run a coroutine with a bound on time, and
collect what a client's callbacks receive.

Every test is a plain sync function calling :func:`run` (no pytest plugin); every await a
test makes goes through :func:`within` (10 s), so a hang fails instead of blocking the run.
"""

import asyncio
import queue
import re
import socket
import subprocess
import threading
import time
from collections.abc import Awaitable, Coroutine
from typing import Any, TypeVar

T = TypeVar("T")

#: Seconds any single await of a test may take.
AWAIT_LIMIT = 10.0


def run(coro: Coroutine[Any, Any, T], limit: float = 30.0) -> T:
    """Runs ``coro`` in a fresh event loop, failing after ``limit`` seconds."""
    return asyncio.run(asyncio.wait_for(coro, limit))


async def within(aw: Awaitable[T], limit: float = AWAIT_LIMIT) -> T:
    """``await aw``, failing with ``TimeoutError`` after ``limit`` seconds."""
    return await asyncio.wait_for(aw, limit)


async def until(predicate: Any, limit: float = AWAIT_LIMIT) -> None:
    """Waits (yielding to the loop) until ``predicate()`` is true."""

    async def poll() -> None:
        while not predicate():
            await asyncio.sleep(0.005)

    await asyncio.wait_for(poll(), limit)


class Messages:
    """A ``message_handler``: records ``(method, params)`` of every notification."""

    def __init__(self) -> None:
        self.received: list[tuple[str, Any]] = []

    def __call__(self, method: str, params: Any) -> None:
        self.received.append((method, params))

    def methods(self) -> list[str]:
        return [m for m, _ in self.received]

    def count(self, method: str) -> int:
        return sum(1 for m, _ in self.received if m == method)


class Logs:
    """A ``logging_handler``: records the params of every ``notifications/message``."""

    def __init__(self) -> None:
        self.received: list[Any] = []

    def __call__(self, params: Any) -> None:
        self.received.append(params)

    def levels_and_data(self) -> list[tuple[str, Any]]:
        return [(p["level"], p["data"]) for p in self.received]


def free_port() -> int:
    """A TCP port free on the loopback address now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_for_port(port: int, proc: "subprocess.Popen[Any]", limit: float = 20.0) -> None:
    """Waits until something listens on ``port`` of the loopback address; fails when ``proc``
    (the server meant to) exits first, or after ``limit`` seconds."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"the server exited ({proc.returncode}) before listening on {port}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.05)
    raise AssertionError(f"nothing listens on {port} after {limit} s")


def listening_url(proc: "subprocess.Popen[str]", limit: float = 20.0) -> str:
    """The URL in the ``... listening on URL`` line ``proc`` (started with ``stderr=PIPE``,
    text mode, and port 0) writes once it listens. A thread keeps reading its stderr after
    that, so the server never blocks on a full pipe.

    With a port the server binds itself there is no window in which another process (the
    suites run side by side) takes a port :func:`free_port` picked."""
    assert proc.stderr is not None
    lines: queue.Queue[str | None] = queue.Queue()

    def read() -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            lines.put(line)
        lines.put(None)

    threading.Thread(target=read, daemon=True).start()
    seen: list[str] = []
    deadline = time.monotonic() + limit
    while (left := deadline - time.monotonic()) > 0:
        try:
            line = lines.get(timeout=left)
        except queue.Empty:
            break
        if line is None:
            raise AssertionError(f"the server exited ({proc.wait(5)}) before listening: {''.join(seen)}")
        if found := re.search(r"listening on (\S+)", line):
            return found.group(1)
        seen.append(line)
    raise AssertionError(f"the server did not say where it listens after {limit} s: {''.join(seen)}")

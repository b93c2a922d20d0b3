"""The stdio client transport of :class:`~hypermcp.client.Client` (``Client.stdio``): a server
subprocess spoken to over its stdin/stdout, its stderr captured.

The client side of stdio, beside its server side in ``_stdio.py``; a module of its own so that
a server run over stdio never loads the client. Loaded on first use by ``client.py``."""

from __future__ import annotations

import asyncio
import inspect
import logging
import os
import signal
import sys
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from .client import _ClientConnection

if TYPE_CHECKING:
    from .client import Client, StderrHandler

_log = logging.getLogger("hypermcp.client")

_STDERR_KEEP = 64 * 1024
_STDERR_IN_MESSAGE = 2000
_DRAIN_ABOVE = 64 * 1024
_CHUNK = 256 * 1024


class _StdioConnection(_ClientConnection):
    """A server subprocess: JSON-RPC over its stdin/stdout, stderr captured."""

    def __init__(
        self,
        command: str | os.PathLike[str],
        args: Sequence[str | os.PathLike[str]],
        env: Mapping[str, str] | None,
        cwd: str | os.PathLike[str] | None,
        stderr_handler: StderrHandler | None,
    ) -> None:
        self._argv = [os.fspath(command), *(os.fspath(a) for a in args)]
        self._env = env
        self._cwd = cwd
        self._stderr_handler = stderr_handler
        self._proc: asyncio.subprocess.Process | None = None
        self._stdin: asyncio.StreamWriter | None = None
        self._stdout_task: asyncio.Task[None] | None = None
        self._stderr_task: asyncio.Task[None] | None = None
        self._tail = bytearray()
        self._new_group = sys.platform != "win32"

    @property
    def pid(self) -> int | None:
        """The server process id (``None`` before start)."""
        return None if self._proc is None else self._proc.pid

    @property
    def returncode(self) -> int | None:
        """The server's exit status once it exited."""
        return None if self._proc is None else self._proc.returncode

    async def start(self, client: Client) -> None:
        env = None if self._env is None else {**os.environ, **self._env}
        proc = await asyncio.create_subprocess_exec(
            *self._argv,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=env,
            cwd=self._cwd,
            # Its own process group, so closing can stop what it spawned (npx -> node) too.
            start_new_session=self._new_group,
        )
        self._proc = proc
        self._stdin = proc.stdin
        loop = asyncio.get_running_loop()
        self._stderr_task = loop.create_task(self._read_stderr())
        self._stdout_task = loop.create_task(self._read_stdout(client))

    async def _read_stdout(self, client: Client) -> None:
        proc = self._proc
        assert proc is not None and proc.stdout is not None
        stdout = proc.stdout
        try:
            while True:
                data = await stdout.read(_CHUNK)
                if not data:
                    break
                client._feed(data)  # pyright: ignore[reportPrivateUsage]
        except (ConnectionError, OSError) as exc:
            _log.debug("reading the server's stdout failed: %s", exc)
        # The server's output ended: give its stderr and exit status a moment to arrive so
        # the error reported to callers can name them.
        if self._stderr_task is not None:
            await asyncio.wait([self._stderr_task], timeout=0.5)
        if proc.returncode is None:
            waiter = asyncio.ensure_future(proc.wait())
            done, _ = await asyncio.wait([waiter], timeout=0.5)
            if not done:
                waiter.cancel()
        client._eof()  # pyright: ignore[reportPrivateUsage]

    async def _read_stderr(self) -> None:
        proc = self._proc
        assert proc is not None and proc.stderr is not None
        stderr = proc.stderr
        handler = self._stderr_handler
        partial = b""
        try:
            while True:
                chunk = await stderr.read(65536)
                if not chunk:
                    break
                self._tail += chunk
                if len(self._tail) > _STDERR_KEEP:
                    del self._tail[: len(self._tail) - _STDERR_KEEP]
                if handler is None:
                    continue
                partial += chunk
                *lines, partial = partial.split(b"\n")
                if len(partial) > _STDERR_KEEP:
                    lines.append(partial)
                    partial = b""
                for line in lines:
                    await self._emit(handler, line)
        except (ConnectionError, OSError) as exc:
            _log.debug("reading the server's stderr failed: %s", exc)
        if handler is not None and partial:
            await self._emit(handler, partial)

    @staticmethod
    async def _emit(handler: StderrHandler, line: bytes) -> None:
        try:
            out = handler(line.rstrip(b"\r").decode("utf-8", "replace"))
            if inspect.isawaitable(out):
                await out
        except Exception:  # noqa: BLE001 - a user callback must not stop the reader
            _log.exception("stderr_handler failed")

    def write(self, data: bytes) -> None:
        stdin = self._stdin
        if stdin is None or stdin.is_closing():
            return
        try:
            stdin.write(data)
        except (ConnectionError, OSError, RuntimeError) as exc:
            _log.debug("writing to the server failed: %s", exc)

    async def drain(self) -> None:
        stdin = self._stdin
        if stdin is None or stdin.is_closing() or stdin.transport.get_write_buffer_size() <= _DRAIN_ABOVE:
            return
        try:
            await stdin.drain()
        except (ConnectionError, OSError) as exc:
            _log.debug("writing to the server failed: %s", exc)

    def close(self) -> None:
        stdin = self._stdin
        if stdin is not None and not stdin.is_closing():
            try:
                stdin.close()
            except (ConnectionError, OSError, RuntimeError):
                pass

    def _signal(self, kill: bool) -> None:
        proc = self._proc
        if proc is None or proc.returncode is not None:
            return  # reaped: the pid (and group id) may belong to someone else now
        try:
            if sys.platform != "win32" and self._new_group:
                os.killpg(proc.pid, signal.SIGKILL if kill else signal.SIGTERM)
            elif kill:
                proc.kill()
            else:
                proc.terminate()
        except (ProcessLookupError, PermissionError):
            pass

    async def _exited_within(self, seconds: float) -> bool:
        proc = self._proc
        assert proc is not None
        if proc.returncode is not None:
            return True
        waiter = asyncio.ensure_future(proc.wait())
        done, _ = await asyncio.wait([waiter], timeout=seconds)
        if not done:
            waiter.cancel()
        return proc.returncode is not None

    async def wait_closed(self) -> None:
        """Closes stdin, waits up to 2 s for the server to exit, then SIGTERM (2 s more),
        then SIGKILL; the process is always reaped."""
        proc = self._proc
        if proc is None:
            return
        self.close()
        try:
            if not await self._exited_within(2.0):
                self._signal(kill=False)
                if not await self._exited_within(2.0):
                    self._signal(kill=True)
                    await proc.wait()
        except BaseException:
            # Cancelled while waiting: never leave the server running (the loop reaps it).
            self._signal(kill=True)
            raise
        finally:
            for task in (self._stdout_task, self._stderr_task):
                if task is not None and not task.done():
                    done, _ = await asyncio.wait([task], timeout=0.5)
                    if not done:
                        task.cancel()
            if self._stdin is not None:
                try:
                    await self._stdin.wait_closed()
                except (ConnectionError, OSError):
                    pass

    @property
    def stderr(self) -> str:
        return self._tail.decode("utf-8", "replace")

    def failure_detail(self) -> str:
        parts: list[str] = []
        code = self.returncode
        if code is not None:
            if code < 0:
                try:
                    name = signal.Signals(-code).name
                except ValueError:
                    name = f"signal {-code}"
                parts.append(f"the server process was killed by {name}")
            else:
                parts.append(f"the server process exited with code {code}")
        tail = self.stderr.strip()
        if tail:
            if len(tail) > _STDERR_IN_MESSAGE:
                tail = "..." + tail[-_STDERR_IN_MESSAGE:]
            parts.append(f"its stderr ended with:\n{tail}")
        return "; ".join(parts)

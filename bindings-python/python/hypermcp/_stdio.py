"""stdio owned by the asyncio loop: stdin is read with ``add_reader`` and fed straight to the
native session; answers are written to stdout without blocking the loop. No thread, no hop
per call. (When stdin cannot be polled, e.g. a regular file, a reader thread feeds it.)"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from collections import deque
from collections.abc import Callable
from typing import Any

_CHUNK = 1 << 16
# What stdout may hold for a client that does not read it: past half of it the server stops
# reading requests (backpressure); past all of it (handlers still writing) the session ends.
DEFAULT_STDIO_BUFFER = 16 << 20


def stdio_buffer_limit() -> int:
    """The stdout limit: ``HYPERMCP_STDIO_BUFFER`` (bytes) if set, else 16 MiB."""
    raw = os.environ.get("HYPERMCP_STDIO_BUFFER", "").strip()
    try:
        return max(1 << 16, int(raw)) if raw else DEFAULT_STDIO_BUFFER
    except ValueError:
        return DEFAULT_STDIO_BUFFER


class FdWriter:
    """Non-blocking writes to a file descriptor; what the pipe cannot take yet is queued
    and written when it becomes writable. The queue holds views of the caller's bytes, so
    a large answer (a 1 MiB resource) is written without being copied or shifted again
    for each pipe-full."""

    def __init__(self, loop: asyncio.AbstractEventLoop, fd: int, limit: int | None = None) -> None:
        self._loop = loop
        self._fd = fd
        self._pending: deque[memoryview] = deque()
        self._queued = 0
        self._waiting = False
        self.broken = False
        self.limit = limit if limit is not None else stdio_buffer_limit()
        # Told when the queue passes half the limit (True) and when it drains (False), and
        # when it overflows (the client stopped reading).
        self.on_pressure: Callable[[bool], None] | None = None
        self.on_overflow: Callable[[int], None] | None = None
        self._pressed = False
        self._blocking = os.get_blocking(fd)
        try:
            os.set_blocking(fd, False)
            self._pollable = True
        except OSError:
            self._pollable = False

    def write(self, data: bytes) -> None:
        if self.broken or not data:
            return
        if self._pending:
            if self._queued + len(data) > self.limit:
                # The client is not reading and handlers still write: nothing more is queued.
                self._overflow(self._queued + len(data))
                return
            self._pending.append(memoryview(data))
            self._queued += len(data)
            self._check()
            return
        try:
            n = os.write(self._fd, data)
        except BlockingIOError:
            n = 0
        except OSError:
            self.broken = True
            return
        if n < len(data):
            self._pending.append(memoryview(data)[n:])
            self._queued += len(data) - n
            self._wait()
            self._check()

    def _check(self) -> None:
        """Backpressure: past half the limit, the reading of requests pauses."""
        if not self._pressed and self._queued > self.limit // 2:
            self._pressed = True
            if self.on_pressure is not None:
                self.on_pressure(True)

    def _overflow(self, queued: int) -> None:
        """The client is not reading past the limit: what waits is dropped, nothing more is
        written, and the session is told to end."""
        self.broken = True
        self._pending.clear()
        self._queued = 0
        with contextlib.suppress(OSError, ValueError):
            self._loop.remove_writer(self._fd)
        if self.on_overflow is not None:
            self.on_overflow(queued)

    def _wait(self) -> None:
        if self._waiting:
            return
        try:
            self._loop.add_writer(self._fd, self._drain)
            self._waiting = True
        except (OSError, ValueError, NotImplementedError):
            # Not pollable (a regular file): finish the write blocking.
            os.set_blocking(self._fd, True)
            while self._pending:
                view = self._pending.popleft()
                while view:
                    view = view[os.write(self._fd, view) :]
            self._queued = 0

    def _drain(self) -> None:
        while self._pending:
            head = self._pending[0]
            try:
                n = os.write(self._fd, head)
            except BlockingIOError:
                return
            except OSError:
                # The reader went away: nothing more is written; reading resumes (to see
                # stdin end).
                self.broken = True
                self._pending.clear()
                self._queued = 0
                break
            self._queued -= n
            if n < len(head):
                self._pending[0] = head[n:]
                self._release()
                return
            self._pending.popleft()
        self._loop.remove_writer(self._fd)
        self._waiting = False
        self._release()

    def _release(self) -> None:
        """Reading resumes once the queue is down to a quarter of the limit."""
        if self._pressed and self._queued <= self.limit // 4:
            self._pressed = False
            if self.on_pressure is not None:
                self.on_pressure(False)

    async def flush(self) -> None:
        while self._pending and not self.broken:
            await asyncio.sleep(0.005)

    def restore(self) -> None:
        try:
            os.set_blocking(self._fd, self._blocking)
        except OSError:
            pass


async def read_fd(
    loop: asyncio.AbstractEventLoop,
    fd: int,
    on_data: Callable[[bytes], None],
    on_eof: Callable[[], None],
    writer: FdWriter | None = None,
) -> None:
    """Feeds everything read from ``fd`` to ``on_data`` until EOF. With ``writer``: reading
    pauses while the writer's queue is past half its limit, and ends when it overflows."""
    done: asyncio.Future[None] = loop.create_future()
    was_blocking = os.get_blocking(fd)
    if writer is not None:

        def pressure(on: bool) -> None:
            with contextlib.suppress(OSError, ValueError):
                if on:
                    loop.remove_reader(fd)
                elif not done.done():
                    loop.add_reader(fd, readable)

        def overflow(queued: int) -> None:
            sys.stderr.write(
                f"hypermcp: the client has not read {queued} bytes of stdout (limit {writer.limit}, "
                "HYPERMCP_STDIO_BUFFER); ending the session\n"
            )
            with contextlib.suppress(OSError, ValueError):
                loop.remove_reader(fd)
            if not done.done():
                done.set_result(None)

        writer.on_pressure = pressure
        writer.on_overflow = overflow

    def readable() -> None:
        try:
            data = os.read(fd, _CHUNK)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if data:
            on_data(data)
            return
        loop.remove_reader(fd)
        if not done.done():
            done.set_result(None)

    try:
        os.set_blocking(fd, False)
        loop.add_reader(fd, readable)
    except (OSError, ValueError, NotImplementedError):
        os.set_blocking(fd, was_blocking)
        # A regular file or something else epoll refuses: read it in a thread.
        while True:
            data = await asyncio.to_thread(os.read, fd, _CHUNK)
            if not data:
                break
            on_data(data)
        on_eof()
        return
    try:
        await done
    finally:
        try:
            loop.remove_reader(fd)
        except (OSError, ValueError):
            pass
        os.set_blocking(fd, was_blocking)
    on_eof()


class _StdoutToStderr:
    """``sys.stdout`` while a stdio server runs: what user code prints goes to stderr (stdout
    carries the protocol), with one warning line the first time."""

    def __init__(self, err: Any) -> None:
        self._err = err
        self._warned = False

    def write(self, s: str) -> int:
        if not self._warned and s:
            self._warned = True
            self._err.write(
                "hypermcp: print() and other writes to stdout go to stderr while the stdio server runs "
                "(stdout carries the MCP protocol)\n"
            )
        return self._err.write(s)

    def flush(self) -> None:
        self._err.flush()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._err, name)


class StdoutGuard:
    """Moves the protocol to a private duplicate of fd 1 and points fd 1 (and ``sys.stdout``)
    at stderr, so neither ``print()`` nor a C library or a child process writing to stdout can
    corrupt the protocol stream. ``restore()`` puts everything back."""

    def __init__(self, fd_out: int) -> None:
        self._fd_out = fd_out
        self._saved_stdout = sys.stdout
        sys.stdout.flush()
        self.protocol_fd = os.dup(fd_out)
        try:
            os.dup2(sys.stderr.fileno(), fd_out)
        except (OSError, ValueError, AttributeError):
            os.dup2(2, fd_out)
        sys.stdout = _StdoutToStderr(sys.stderr)

    def restore(self) -> None:
        try:
            sys.stdout.flush()
        except (OSError, ValueError):
            pass
        sys.stdout = self._saved_stdout
        try:
            os.dup2(self.protocol_fd, self._fd_out)
        finally:
            os.close(self.protocol_fd)

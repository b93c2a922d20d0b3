"""stdio owned by the asyncio loop: stdin is read with ``add_reader`` and fed straight to the
native session; answers are written to stdout without blocking the loop. No thread, no hop
per call. (When stdin cannot be polled, e.g. a regular file, a reader thread feeds it.)"""

from __future__ import annotations

import asyncio
import os
from collections import deque
from collections.abc import Callable

_CHUNK = 1 << 16


class FdWriter:
    """Non-blocking writes to a file descriptor; what the pipe cannot take yet is queued
    and written when it becomes writable. The queue holds views of the caller's bytes, so
    a large answer (a 1 MiB resource) is written without being copied or shifted again
    for each pipe-full."""

    def __init__(self, loop: asyncio.AbstractEventLoop, fd: int) -> None:
        self._loop = loop
        self._fd = fd
        self._pending: deque[memoryview] = deque()
        self._waiting = False
        self.broken = False
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
            self._pending.append(memoryview(data))
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
            self._wait()

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

    def _drain(self) -> None:
        while self._pending:
            head = self._pending[0]
            try:
                n = os.write(self._fd, head)
            except BlockingIOError:
                return
            except OSError:
                self.broken = True
                self._pending.clear()
                break
            if n < len(head):
                self._pending[0] = head[n:]
                return
            self._pending.popleft()
        self._loop.remove_writer(self._fd)
        self._waiting = False

    async def flush(self) -> None:
        while self._pending and not self.broken:
            await asyncio.sleep(0.005)

    def restore(self) -> None:
        try:
            os.set_blocking(self._fd, self._blocking)
        except OSError:
            pass


async def read_fd(
    loop: asyncio.AbstractEventLoop, fd: int, on_data: Callable[[bytes], None], on_eof: Callable[[], None]
) -> None:
    """Feeds everything read from ``fd`` to ``on_data`` until EOF."""
    done: asyncio.Future[None] = loop.create_future()
    was_blocking = os.get_blocking(fd)

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

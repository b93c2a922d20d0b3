"""For operators: the engine's log in the ``logging`` module, and its counters.

Loaded on first use of :func:`enable_logging`, :func:`metrics` or :func:`metrics_text` (they
are attributes of the ``hypermcp`` package)."""

from __future__ import annotations

import logging
from typing import Any

from . import _core

_LEVELS = {"CRITICAL": "error", "ERROR": "error", "WARNING": "warn", "WARN": "warn", "INFO": "info", "DEBUG": "debug"}


def _handler(levelno: int, target: str, message: str) -> None:
    # hypermcp::http -> the logger "hypermcp.http"
    logging.getLogger(target.replace("::", ".")).log(levelno, message)


#: The lowest level sent to ``logging`` now (None: not sent).
_sent: int | None = None


def ensure_logging(level: int) -> None:
    """Sends the engine's log to ``logging`` at ``level`` or below it (what the logging
    middleware needs), keeping a lower level set before."""
    if _sent is None or _sent > level:
        enable_logging(level)


def enable_logging(level: int | str | None = logging.INFO) -> None:
    """Sends what the engine says about itself to the ``logging`` module: sessions opened and
    closed and why, requests and messages refused and why, evictions, limits hit, clients
    losing their server. The loggers are ``hypermcp.http``, ``hypermcp.session`` and
    ``hypermcp.client``; ``level`` (``logging.INFO`` by default, or a name such as
    ``"DEBUG"``) is the lowest level the engine sends (the loggers' own levels filter
    further). ``None`` turns it off again. Without this the engine says nothing, unless the
    environment sets ``HYPERMCP_LOG`` (``info``, ``debug``...): then it writes to stderr.

    Records are handed over on a thread of their own (a burst beyond 4096 waiting records is
    dropped, and the drop is logged)."""
    global _sent
    if level is None:
        _core.set_log_handler(None, None)
        _sent = None
        return
    name = logging.getLevelName(level) if isinstance(level, int) else str(level).upper()
    if isinstance(level, int) and level < logging.DEBUG:
        engine_level = "trace"
    else:
        engine_level = _LEVELS.get(str(name))
        if engine_level is None:
            raise ValueError(f"unknown log level {level!r}: use logging.DEBUG, INFO, WARNING or ERROR")
    _core.set_log_handler(engine_level, _handler)
    number = level if isinstance(level, int) else logging.getLevelName(str(name))
    _sent = number if isinstance(number, int) else logging.INFO


def metrics() -> dict[str, Any]:
    """The engine's counters for this process: ``sessions_opened``, ``sessions_closed``,
    ``sessions_active``, ``sessions_evicted``, ``sessions_idle_expired``, ``streams_open``,
    ``streams_overflowed``, ``requests``, ``errors`` (JSON-RPC error responses sent, by kind),
    ``http_refused`` (by status), ``connections_limited``, ``client_lost``,
    ``client_reconnects``. An HTTP server also serves them as Prometheus text with
    ``metrics_path="/metrics"``."""
    return dict(_core.metrics())


def metrics_text() -> str:
    """:func:`metrics` in the Prometheus text format."""
    return _core.metrics_text()

// For operators: the engine's log and its counters (ops.cjs).

/** The engine's levels, from the most serious. */
export type LogLevel = 'error' | 'warn' | 'info' | 'debug' | 'trace';

/** Anything with these methods: console, pino, winston... (missing ones fall back to `info`/`log`). */
export interface Logger {
  error?(message: string): unknown;
  warn?(message: string): unknown;
  info?(message: string): unknown;
  debug?(message: string): unknown;
  trace?(message: string): unknown;
  log?(message: string): unknown;
}

/**
 * Sends what the engine says about itself (sessions opened and closed and why, requests and
 * messages refused and why, evictions, limits hit, clients losing their server) to `logger`,
 * one line `[target] message` per event at `level` (default `'info'`) and above; `null` turns
 * it off. `HYPERMCP_LOG=info` in the environment sends it to stderr instead.
 */
export declare function setLogger(logger: Logger | null, options?: { level?: LogLevel }): void;

/** The engine's counters for this process. */
export interface Metrics {
  /** HTTP sessions opened (each `initialize`, each legacy SSE connection). */
  sessions_opened: number;
  /** HTTP sessions ended (deleted, expired, evicted, their stream gone, shutdown). */
  sessions_closed: number;
  /** HTTP sessions open now. */
  sessions_active: number;
  /** Sessions evicted to make room for new ones. */
  sessions_evicted: number;
  /** Sessions closed after their idle timeout. */
  sessions_idle_expired: number;
  /** SSE streams open now. */
  streams_open: number;
  /** Streams dropped because their client did not read them (`streamBuffer`). */
  streams_overflowed: number;
  /** JSON-RPC requests received. */
  requests: number;
  /** JSON-RPC error responses sent, by kind (`parse_error`, `method_not_found`, ..., `other`). */
  errors: Record<string, number>;
  /** HTTP requests refused, by status (`'413'`, `'429'`, ..., `'other'`). */
  http_refused: Record<string, number>;
  /** Times `maxConnections` held new connections back. */
  connections_limited: number;
  /** Clients that lost their server. */
  client_lost: number;
  /** Clients that connected again under their reconnect policy. */
  client_reconnects: number;
}

/** The engine's counters now. */
export declare function metrics(): Metrics;

/** `metrics()` in the Prometheus text format. */
export declare function metricsText(): string;

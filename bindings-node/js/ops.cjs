// @ts-check
'use strict';
// For operators: the engine's log handed to a logger of the app's, and its counters.

const native = require('./native.cjs');

/** @type {Record<string, string>} the engine's level -> the logger method tried first */
const METHODS = { error: 'error', warn: 'warn', info: 'info', debug: 'debug', trace: 'trace' };
const LEVELS = new Set(['error', 'warn', 'info', 'debug', 'trace']);

/** @type {{ logger: object, level: string } | null} where the engine's log goes now */
let sent = null;
const ORDER = ['error', 'warn', 'info', 'debug', 'trace'];

/**
 * Sends the engine's log at `level` or below it (what the logging middleware needs): to the
 * logger set before (its level lowered if need be), else to `fallback`.
 * @param {string} level
 * @param {object} fallback
 */
function ensureLogger(level, fallback) {
  if (sent === null) setLogger(/** @type {any} */ (fallback), { level: /** @type {any} */ (level) });
  else if (ORDER.indexOf(sent.level) < ORDER.indexOf(level)) setLogger(/** @type {any} */ (sent.logger), { level: /** @type {any} */ (level) });
}

/**
 * Sends what the engine says about itself (sessions opened and closed and why, requests and
 * messages refused and why, evictions, limits hit, clients losing their server) to `logger`:
 * any object with `error`/`warn`/`info`/`debug` methods (console, pino, winston...), called
 * with one line `[target] message`. `level` (default `'info'`) is the lowest level sent.
 * `null` turns it off. Without this the engine says nothing, unless the environment sets
 * `HYPERMCP_LOG` (`info`, `debug`...): then it writes to stderr.
 * @param {import('./types/ops').Logger | null} logger
 * @param {{level?: import('./types/ops').LogLevel}} [options]
 */
function setLogger(logger, options = {}) {
  if (logger == null) {
    native.setLogHandler(null, null);
    sent = null;
    return;
  }
  if (typeof logger !== 'object' && typeof logger !== 'function') {
    throw new TypeError('setLogger(logger): a logger is an object with error/warn/info/debug methods, or null');
  }
  const level = String(options?.level ?? 'info').toLowerCase();
  if (!LEVELS.has(level)) throw new TypeError(`unknown log level ${JSON.stringify(options?.level)}: one of error, warn, info, debug, trace`);
  const target = /** @type {any} */ (logger);
  sent = { logger, level };
  native.setLogHandler(level, () => {
    const text = native.takeLogRecords();
    if (!text) return;
    for (const [lvl, from, message] of /** @type {[string, string, string][]} */ (JSON.parse(text))) {
      let fn = target[METHODS[lvl] ?? 'info'];
      if (typeof fn !== 'function') fn = lvl === 'trace' ? target.debug : target.log;
      if (typeof fn !== 'function') fn = target.info;
      try {
        if (typeof fn === 'function') fn.call(target, `[${from}] ${message}`);
      } catch {
        // a logger that throws must not stop the engine's log
      }
    }
  });
}

/**
 * The engine's counters for this process (see `Metrics`). An HTTP server also serves them as
 * Prometheus text with `metricsPath: '/metrics'`.
 * @returns {import('./types/ops').Metrics}
 */
function metrics() {
  return JSON.parse(native.metricsJson());
}

/** `metrics()` in the Prometheus text format. */
function metricsText() {
  return native.metricsText();
}

module.exports = { setLogger, ensureLogger, metrics, metricsText };

// @ts-check
'use strict';
// The stdio client transport: `StdioTransport` runs a server subprocess and speaks JSON-RPC
// over its stdin/stdout, its stderr captured (`Client.stdio`). The client side of stdio, beside
// its server side, `serveStdio`, in stdio.cjs; a file of its own so that loading the client
// loads neither stdio.cjs nor the server connection (connection.cjs) it requires.

const { ConnectionClosed } = require('./errors.cjs');

/**
 * @typedef {import('./types/client').Client} Client
 * @typedef {import('./types/client').ClientTransport} ClientTransport
 * @typedef {import('node:child_process').ChildProcessWithoutNullStreams} ChildProcess
 */

const STDERR_KEEP = 64 * 1024;
const STDERR_IN_MESSAGE = 2000;
const GROUP = process.platform !== 'win32';

/**
 * @param {number} ms
 * @returns {Promise<void>}
 */
function delay(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

/**
 * A server subprocess: JSON-RPC over its stdin/stdout, stderr captured.
 * @implements {ClientTransport}
 */
class StdioTransport {
  /** `network.transport` of the OpenTelemetry conventions for MCP. @returns {string | null} */
  get networkTransport() {
    return 'pipe';
  }

  /**
   * Options: `env` (added to process.env), `cwd`, `onStderr(line)`.
   * @param {string} command
   * @param {Iterable<string>} [args]
   * @param {import('./types/client').StdioTransportOptions} [options]
   */
  constructor(command, args = [], options = {}) {
    this.command = String(command);
    this.args = Array.from(args, String);
    this._env = options.env == null ? undefined : { ...process.env, ...options.env };
    this._cwd = options.cwd;
    this._onStderr = typeof options.onStderr === 'function' ? options.onStderr : null;
    this._onError = typeof options.onError === 'function' ? options.onError : null;
    /**
     * The ChildProcess (null before start).
     * @type {ChildProcess | null}
     */
    this.process = null;
    /** @type {Buffer} */
    this._tail = Buffer.alloc(0);
    /** @type {Buffer} */
    this._partial = Buffer.alloc(0);
    this._exited = false;
    /** @type {Promise<void> | null} resolved once it exited */
    this._exit = null;
    /** @type {Promise<void> | null} resolved once its stderr ended */
    this._stderrDone = null;
    /** @type {Promise<void> | null} */
    this._closing = null;
    this._generation = 0;
  }

  /** The server's process id (undefined before start). */
  get pid() {
    return this.process?.pid;
  }

  /** Its exit code once it exited (null otherwise). */
  get exitCode() {
    return this.process?.exitCode ?? null;
  }

  /** The signal that ended it, once it exited (null otherwise). */
  get signalCode() {
    return this.process?.signalCode ?? null;
  }

  /** The last 64 KiB the server wrote to stderr. */
  get stderr() {
    return this._tail.toString('utf8');
  }

  /**
   * @param {Client} client
   * @returns {Promise<void>}
   */
  start(client) {
    // Started again (the client reconnects): a new process; what the last one does now is
    // ignored.
    const generation = ++this._generation;
    this._exited = false;
    this._closing = null;
    this._partial = Buffer.alloc(0);
    return new Promise((resolve, reject) => {
      /** @type {ChildProcess} */
      let child;
      try {
        // Loaded here, not at import: node:child_process costs every process ~2 MB of RSS,
        // servers included, and only a stdio client spawns.
        child = require('node:child_process').spawn(this.command, this.args, {
          stdio: ['pipe', 'pipe', 'pipe'],
          env: this._env,
          cwd: this._cwd,
          // Its own process group, so closing also stops what it spawned (npx -> node).
          detached: GROUP,
          windowsHide: true,
        });
      } catch (err) {
        reject(this._spawnError(err));
        return;
      }
      this.process = child;
      let started = false;
      this._exit = new Promise((done) => {
        child.once('exit', () => {
          this._exited = true;
          done();
        });
        child.once('error', (err) => {
          if (!started) {
            this._exited = true; // never ran
            done();
            reject(this._spawnError(err));
          }
        });
      });
      child.on('error', () => {}); // later errors (a failed kill) are not fatal
      child.stdin.on('error', () => {}); // EPIPE when it died: reported through stdout's end
      this._stderrDone = new Promise((done) => {
        child.stderr.on('data', (chunk) => this._stderrChunk(chunk));
        child.stderr.once('end', done);
        child.stderr.once('close', done);
        child.stderr.once('error', done);
      }).then(() => this._stderrEnd());
      child.once('spawn', () => {
        started = true;
        let ended = false;
        const onEnd = async () => {
          if (ended) return;
          ended = true;
          // Give its stderr and exit status a moment to arrive so errors can name them.
          await Promise.race([this._stderrDone, delay(500)]);
          await Promise.race([this._exit, delay(500)]);
          if (generation === this._generation) client._eof();
        };
        child.stdout.on('data', (chunk) => {
          if (generation === this._generation) client._feed(chunk);
        });
        child.stdout.once('end', onEnd);
        child.stdout.once('close', onEnd);
        child.stdout.once('error', onEnd);
        resolve();
      });
    });
  }

  /** @param {unknown} err */
  _spawnError(err) {
    const out = new ConnectionClosed(`cannot start the server ${JSON.stringify(this.command)}: ${/** @type {Error} */ (err).message}`);
    out.cause = err;
    return out;
  }

  /** @param {Buffer} chunk */
  _stderrChunk(chunk) {
    this._tail = this._tail.length ? Buffer.concat([this._tail, chunk]) : chunk;
    if (this._tail.length > STDERR_KEEP) this._tail = this._tail.subarray(this._tail.length - STDERR_KEEP);
    if (!this._onStderr) return;
    let buf = this._partial.length ? Buffer.concat([this._partial, chunk]) : chunk;
    let nl;
    while ((nl = buf.indexOf(10)) >= 0) {
      this._emitLine(buf.subarray(0, nl));
      buf = buf.subarray(nl + 1);
    }
    if (buf.length > STDERR_KEEP) {
      this._emitLine(buf);
      buf = Buffer.alloc(0);
    }
    this._partial = Buffer.from(buf);
  }

  _stderrEnd() {
    if (this._onStderr && this._partial.length) this._emitLine(this._partial);
    this._partial = Buffer.alloc(0);
  }

  /** @param {Buffer} bytes */
  _emitLine(bytes) {
    let line = bytes.toString('utf8');
    if (line.endsWith('\r')) line = line.slice(0, -1);
    try {
      const out = /** @type {(line: string) => any} (only called with an onStderr) */ (this._onStderr)(line);
      if (out && typeof out.then === 'function') out.then(undefined, (/** @type {unknown} */ err) => this._report(err));
    } catch (err) {
      this._report(err);
    }
  }

  /** @param {unknown} err */
  _report(err) {
    if (this._onError) {
      try {
        this._onError(err);
        return;
      } catch {
        // fall through
      }
    }
    process.emitWarning(err instanceof Error ? err : new Error(String(err)), { code: 'HYPERMCP_CLIENT_CALLBACK' });
  }

  /** @param {Buffer} buf */
  write(buf) {
    const stdin = this.process?.stdin;
    if (!stdin || stdin.destroyed || stdin.writableEnded) return;
    stdin.write(buf);
  }

  /** @param {NodeJS.Signals} sig */
  _signal(sig) {
    const child = this.process;
    // Reaped: the pid (and group id) may belong to someone else now.
    if (!child || this._exited || child.exitCode !== null || child.signalCode !== null) return;
    try {
      if (GROUP) process.kill(-(/** @type {number} it ran */ (child.pid)), sig);
      else child.kill(sig);
    } catch {
      try {
        child.kill(sig);
      } catch {
        // already gone
      }
    }
  }

  /** @param {number} ms */
  async _exitedWithin(ms) {
    if (this._exited) return true;
    await Promise.race([this._exit, delay(ms)]);
    return this._exited;
  }

  /** Ends its stdin, waits up to 2 s, SIGTERM, 2 s more, SIGKILL; resolves once it is reaped. */
  close() {
    if (this._closing === null) this._closing = this._close();
    return this._closing;
  }

  async _close() {
    const child = this.process;
    if (!child) return;
    try {
      child.stdin.end();
    } catch {
      // already closed
    }
    if (!(await this._exitedWithin(2000))) {
      this._signal('SIGTERM');
      if (!(await this._exitedWithin(2000))) {
        this._signal('SIGKILL');
        await this._exit;
      }
    }
    // Read what is left of its stderr, then let go of the pipes (a grandchild may hold them).
    await Promise.race([this._stderrDone, delay(200)]);
    child.stdout.destroy();
    child.stderr.destroy();
    child.stdin.destroy();
  }

  /** Why the server's side ended: its exit status and the end of its stderr. */
  failureDetail() {
    /** @type {string[]} */
    const parts = [];
    const child = this.process;
    if (child && child.signalCode) parts.push(`the server process was killed by ${child.signalCode}`);
    else if (child && child.exitCode !== null) parts.push(`the server process exited with code ${child.exitCode}`);
    let tail = this.stderr.trim();
    if (tail) {
      if (tail.length > STDERR_IN_MESSAGE) tail = '...' + tail.slice(-STDERR_IN_MESSAGE);
      parts.push(`its stderr ended with:\n${tail}`);
    }
    return parts.join('; ');
  }
}

module.exports = { StdioTransport };

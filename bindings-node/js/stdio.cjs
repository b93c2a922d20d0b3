// @ts-check
'use strict';
// stdio served by Node's own streams: each chunk of stdin goes straight to the native
// session; answers are written to stdout. No thread hop per call. The returned promise
// resolves when stdin ends and in-flight calls have answered (within 10 s).

const { ServerConnection } = require('./connection.cjs');

/**
 * @typedef {NodeJS.WritableStream & {destroyed?: boolean, writableNeedDrain?: boolean, writableLength?: number}} Output a
 *   writable stream (a Writable's `destroyed`, `writableNeedDrain` and `writableLength` are read when it has them)
 */

/**
 * @param {import('./server.cjs').Server<any>} server
 * @param {{stdin?: NodeJS.ReadableStream, stdout?: Output, graceMs?: number}} [options] those of
 *   `server.run()` (StdioRunOptions)
 */
async function serveStdio(server, { stdin = process.stdin, stdout = process.stdout, graceMs = 10_000 } = {}) {
  await server._enter();
  /** @type {ServerConnection | undefined} */
  let conn;
  // The stdout guard: while the server runs, console.log and other writes to process.stdout
  // go to stderr (stdout carries the protocol), with one warning line the first time.
  const { write, restore } = guardStdout(stdout);
  // What stdout may hold for a client that does not read it: past half of it requests are
  // no longer read (backpressure); past all of it (handlers still writing) the session ends.
  const limit = stdioBufferLimit();
  let overflowed = false;
  try {
    await new Promise((resolve, reject) => {
      let paused = false;
      conn = ServerConnection.overStream(server, (buf) => {
        if (stdout.destroyed || overflowed) return;
        const queued = (stdout.writableLength ?? 0) + buf.length;
        if (queued > limit && queued > buf.length) {
          // The client is not reading and handlers still write: nothing more is queued.
          overflowed = true;
          process.stderr.write(
            `hypermcp: the client has not read ${queued} bytes of stdout (limit ${limit}, HYPERMCP_STDIO_BUFFER); ending the session\n`,
          );
          // What waited for the client is dropped; nothing more is read.
          /** @type {any} */ (stdout).destroy?.();
          /** @type {any} */ (stdin).destroy?.();
          resolve(undefined);
          return;
        }
        write(buf);
        if (!paused && queued > limit / 2) {
          paused = true;
          stdin.pause();
          stdout.once?.('drain', () => {
            paused = false;
            if (!overflowed) stdin.resume();
          });
        }
      });
      stdin.on('data', (chunk) => /** @type {ServerConnection} */ (conn).feed(chunk));
      stdin.once('end', resolve);
      stdin.once('close', resolve);
      stdin.once('error', reject);
      stdout.on?.('error', () => {}); // a reader that went away: nothing more to write
      stdin.resume();
    });
    const c = /** @type {ServerConnection} set by the executor, which has run */ (conn);
    c.inputClosed();
    await c.drain(graceMs);
    c.flush();
    if (!overflowed && !stdout.destroyed) {
      await /** @type {Promise<void>} */ (new Promise((resolve) => (stdout.writableNeedDrain ? stdout.once('drain', resolve) : resolve())));
    }
  } finally {
    if (conn) conn.close();
    restore();
    await server._exit();
  }
}

/** The stdout limit: `HYPERMCP_STDIO_BUFFER` (bytes) if set, else 16 MiB. */
function stdioBufferLimit() {
  const n = Number.parseInt(process.env.HYPERMCP_STDIO_BUFFER ?? '', 10);
  return Number.isFinite(n) ? Math.max(1 << 16, n) : 16 << 20;
}

/**
 * Points `process.stdout.write` at stderr while the server writes the protocol to `stdout`
 * through the returned `write` (`restore()` puts `process.stdout.write` back). A `stdout`
 * other than `process.stdout` is left alone.
 * @param {Output} stdout
 * @returns {{write: (buf: Buffer) => void, restore: () => void}}
 */
function guardStdout(stdout) {
  const write = stdout.write.bind(stdout);
  if (stdout !== process.stdout) return { write, restore: () => {} };
  const out = process.stdout;
  const original = out.write;
  let warned = false;
  /** @type {any} */ (out).write = function (/** @type {any[]} */ ...args) {
    if (!warned) {
      warned = true;
      process.stderr.write(
        'hypermcp: console.log and other writes to stdout go to stderr while the stdio server runs (stdout carries the MCP protocol)\n',
      );
    }
    return /** @type {any} */ (process.stderr.write)(...args);
  };
  return { write, restore: () => void (out.write = original) };
}

module.exports = { serveStdio };

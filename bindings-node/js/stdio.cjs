// @ts-check
'use strict';
// stdio served by Node's own streams: each chunk of stdin goes straight to the native
// session; answers are written to stdout. No thread hop per call. The returned promise
// resolves when stdin ends and in-flight calls have answered (within 10 s).

const { ServerConnection } = require('./connection.cjs');

/**
 * @typedef {NodeJS.WritableStream & {destroyed?: boolean, writableNeedDrain?: boolean}} Output a
 *   writable stream (a Writable's `destroyed` and `writableNeedDrain` are read when it has them)
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
  try {
    await new Promise((resolve, reject) => {
      conn = ServerConnection.overStream(server, (buf) => {
        if (!stdout.destroyed) stdout.write(buf);
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
    await /** @type {Promise<void>} */ (new Promise((resolve) => (stdout.writableNeedDrain ? stdout.once('drain', resolve) : resolve())));
  } finally {
    if (conn) conn.close();
    await server._exit();
  }
}

module.exports = { serveStdio };

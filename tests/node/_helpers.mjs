// Shared helpers of the Node tests (the counterpart of tests/python/_helpers.py): an await with
// a bound on time, pauses, and the in-memory hypermcp Client of the server tests. Not a test
// file itself (`node --test tests/node/` runs only `*.test.mjs`).
//
// Only node: imports at the top: a test file that merely spawns servers (stdio_server.test.mjs)
// does not load the native addon by importing this; `connect` loads the package when called.

import { createRequire } from 'node:module';
import net from 'node:net';

const require = createRequire(import.meta.url);

/** `promise`, or a rejection once `ms` passed (`what` names it in the error). */
export function within(promise, ms = 10_000, what = 'the promise') {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not settle within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Resolves after `ms` milliseconds. */
export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits (polling every 5 ms) until `predicate()` holds, failing after `ms`. */
export async function until(predicate, ms = 10_000) {
  const deadline = Date.now() + ms;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error('the condition did not hold in time');
    await sleep(5);
  }
}

/** A TCP port free on the loopback address now. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** A short pause (20 ms by default): lets messages in flight land. */
export const tick = (ms = 20) => sleep(ms);

/** A connected in-memory client of `server` (the one place that says how). */
export async function connect(server, options = {}) {
  const { Client } = await import('hypermcp');
  const { MemoryTransport } = require('../../bindings-node/js/memory.cjs');
  return within(Client.connect(new MemoryTransport(server), options));
}

/** Connects, runs `fn(client)`, always closes. */
export async function withClient(server, options, fn) {
  if (typeof options === 'function') {
    fn = options;
    options = {};
  }
  const client = await connect(server, options);
  try {
    return await fn(client);
  } finally {
    await within(client.close());
  }
}

/** A redis-server of the test's own on a free port, or null (a skip; a failure with HYPERMCP_REQUIRE_REDIS=1). */
export async function startRedis(t) {
  const { execFileSync, spawn } = await import('node:child_process');
  const assert = (await import('node:assert/strict')).default;
  try {
    execFileSync('redis-server', ['--version'], { stdio: 'ignore' });
  } catch {
    if (process.env.HYPERMCP_REQUIRE_REDIS === '1') assert.fail('redis-server is required (HYPERMCP_REQUIRE_REDIS=1) but not installed');
    t.skip('redis-server is not installed (make peers installs it)');
    return null;
  }
  const port = await new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const p = s.address().port;
      s.close(() => resolve(p));
    });
  });
  const proc = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: 'ignore',
    cwd: (await import('node:os')).tmpdir(),
  });
  for (let i = 0; i < 500; i++) {
    const up = await new Promise((resolve) => {
      const c = net.connect(port, '127.0.0.1', () => {
        c.end();
        resolve(true);
      });
      c.on('error', () => resolve(false));
    });
    if (up) return { proc, url: `redis://127.0.0.1:${port}/0` };
    await sleep(20);
  }
  proc.kill();
  assert.fail('redis-server did not start');
}

// Clients that survive their server (Node): the reconnect policy over stdio (the child is
// spawned again) and HTTP (a new session after the server restarts on its port), calls in
// flight rejecting clearly and calls made meanwhile waiting or failing fast, giving up after the
// tries, keep-alive pings finding a frozen (SIGSTOP) server, close({grace}) and supports().
//
// The servers are real processes (a hypermcp Node server over stdio or HTTP), killed, frozen
// and restarted under the client as an operator or a crash would.
//
// Run: node --test tests/node/

import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { within, sleep, until, freePort } from './_helpers.mjs';

const require = createRequire(import.meta.url);
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const { Client } = require('../../bindings-node/js/client.cjs');
const { Server } = require('../../bindings-node/js/server.cjs');
const { ConnectionClosed, RequestTimeout, OptionError } = require('../../bindings-node/js/errors.cjs');

const dir = mkdtempSync(path.join(tmpdir(), 'hypermcp-reconnect-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const SCRIPT = path.join(dir, 'server.mjs');
writeFileSync(
  SCRIPT,
  `import { Server } from ${JSON.stringify(pathToFileURL(path.join(ROOT, 'bindings-node/js/index.mjs')).href)};
const server = new Server({ name: 'phoenix', version: '1.0.0' });
server.tool('pid', () => String(process.pid));
server.tool('slow', { inputSchema: { type: 'object', properties: { ms: { type: 'number' } } } },
  ({ ms }) => new Promise((resolve) => setTimeout(() => resolve('done'), ms)));
const port = process.argv[2];
await server.run(port ? { transport: 'http', port: Number(port) } : {});
`,
);

const FAST = { initialDelay: 50, maxDelay: 300, maxAttempts: 100 };

/** The server script over HTTP on one port, started, killed and started again. */
class HttpServer {
  constructor(port) {
    this.port = port;
    this.child = null;
  }
  get url() {
    return `http://127.0.0.1:${this.port}/mcp`;
  }
  async start() {
    this.child = spawn(process.execPath, [SCRIPT, String(this.port)], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    this.child.stderr.on('data', (c) => (stderr += c));
    const deadline = Date.now() + 20_000;
    for (;;) {
      const up = await new Promise((resolve) => {
        const sock = net.connect(this.port, '127.0.0.1');
        sock.once('connect', () => resolve(sock.end() && true));
        sock.once('error', () => resolve(false));
      });
      if (up) return;
      if (this.child.exitCode !== null || Date.now() > deadline) throw new Error(`the server did not start: ${stderr}`);
      await sleep(50);
    }
  }
  async kill() {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGCONT');
    child.kill('SIGKILL');
    await exited;
  }
}

async function httpServer(t) {
  const server = new HttpServer(await freePort());
  await server.start();
  t.after(() => server.kill());
  return server;
}

/**
 * Lets a legacy session open fully (its standalone GET stream, which tells the client at once
 * when the server goes away; a client with nothing open learns it on its next request).
 */
async function settled(client) {
  await client.ping();
  await sleep(300);
}

function recorder() {
  const seen = [];
  const onConnection = (event, info) => seen.push([event, info]);
  return { seen, onConnection, names: () => seen.map(([e]) => e) };
}

test('a stdio client spawns its server again', async () => {
  const events = recorder();
  const client = await Client.stdio(process.execPath, [SCRIPT], { reconnect: FAST, onConnection: events.onConnection, timeout: 20_000 });
  try {
    const first = Number((await client.callTool('pid')).content[0].text);
    const inFlight = client.callTool('slow', { ms: 30_000 });
    await sleep(200);
    process.kill(first, 'SIGKILL');
    await assert.rejects(within(inFlight), (err) => err instanceof ConnectionClosed && /SIGKILL.*reconnecting/s.test(err.message));
    const second = Number((await within(client.callTool('pid'))).content[0].text);
    assert.notEqual(second, first);
    assert.equal(client.reconnecting, false);
    assert.equal((await client.callTool('slow', { ms: 0 })).content[0].text, 'done');
  } finally {
    await client.close();
  }
  assert.deepEqual(events.names(), ['disconnected', 'reconnecting', 'reconnected']);
  assert.match(events.seen[0][1].reason, /SIGKILL/);
  assert.ok(events.seen[1][1].delay <= 50);
});

for (const mode of ['legacy', 'auto']) {
  test(`an HTTP client (${mode}) carries on after its server restarts`, async (t) => {
    const server = await httpServer(t);
    const events = recorder();
    const client = await Client.http(server.url, { mode, reconnect: FAST, onConnection: events.onConnection, timeout: 20_000 });
    try {
      assert.equal(client.modern, mode === 'auto');
      const first = Number((await client.callTool('pid')).content[0].text);
      await settled(client);
      await server.kill();
      if (mode === 'legacy') {
        // The session's GET stream breaks: the client notices at once, and keeps trying.
        await until(() => events.names().includes('reconnecting'));
      } else {
        // Stateless: nothing is open between calls; the next call finds no server.
        await assert.rejects(within(client.callTool('pid')), ConnectionClosed);
      }
      await sleep(300); // a few tries fail while nothing listens
      await server.start();
      const second = Number((await within(client.callTool('pid'))).content[0].text);
      assert.notEqual(second, first);
    } finally {
      await client.close();
    }
    const names = events.names();
    assert.equal(names[0], 'disconnected');
    assert.equal(names.at(-1), 'reconnected');
    assert.ok(names.filter((n) => n === 'reconnecting').length >= 2, String(names));
  });
}

test('the client gives up after its tries, and calls fail fast or time out while it tries', async (t) => {
  const server = await httpServer(t);
  const events = recorder();
  const client = await Client.http(server.url, {
    mode: 'legacy',
    reconnect: { initialDelay: 20, maxAttempts: 3 },
    onConnection: events.onConnection,
  });
  await settled(client);
  await server.kill();
  await until(() => client.closed);
  await assert.rejects(client.callTool('pid'), (err) => err instanceof ConnectionClosed && /3 tries to reconnect failed/.test(err.message));
  await client.close();
  assert.deepEqual(events.names(), ['disconnected', 'reconnecting', 'reconnecting', 'reconnecting', 'failed']);
  assert.equal(events.seen.at(-1)[1].attempts, 3);

  await server.start();
  const fast = await Client.http(server.url, { mode: 'legacy', reconnect: { initialDelay: 5000, wait: false } });
  const waiting = await Client.http(server.url, { mode: 'legacy', reconnect: { initialDelay: 5000 } });
  try {
    await settled(fast);
    await settled(waiting);
    await server.kill();
    await until(() => fast.reconnecting && waiting.reconnecting);
    const started = Date.now();
    await assert.rejects(fast.callTool('pid'), (err) => err instanceof ConnectionClosed && /reconnecting/.test(err.message));
    assert.ok(Date.now() - started < 1000);
    await assert.rejects(waiting.callTool('pid', {}, { timeout: 300 }), (err) => err instanceof RequestTimeout && /still reconnecting/.test(err.message));
  } finally {
    await fast.close();
    await waiting.close();
  }
});

test('pings find a frozen HTTP server', async (t) => {
  const server = await httpServer(t);
  const client = await Client.http(server.url, { mode: 'legacy', pingInterval: 300 });
  try {
    await client.ping();
    server.child.kill('SIGSTOP');
    await assert.rejects(
      within(client.callTool('pid'), 5000),
      (err) => err instanceof ConnectionClosed && /did not answer a ping within 300 ms/.test(err.message),
    );
    assert.equal(client.closed, true);
  } finally {
    server.child.kill('SIGCONT');
    await client.close();
  }
});

test('close({grace}) lets calls in flight finish', async () => {
  const server = new Server({ name: 'graceful', version: '1.0.0' });
  server.tool('slow', { inputSchema: { type: 'object', properties: { ms: { type: 'number' } } } }, ({ ms }) => sleep(ms).then(() => 'done'));
  let client = await Client.inMemory(server);
  const call = client.callTool('slow', { ms: 300 });
  await sleep(50);
  const closing = client.close({ grace: 5000 });
  await sleep(20);
  await assert.rejects(client.callTool('slow', { ms: 0 }), (err) => err instanceof ConnectionClosed && /closing/.test(err.message));
  assert.equal((await within(call)).content[0].text, 'done');
  await within(closing);
  assert.equal(client.closed, true);

  client = await Client.inMemory(server);
  const long = client.callTool('slow', { ms: 5000 });
  await sleep(50);
  // Past the grace period the call fails (the in-memory server's own shutdown then waits for
  // its handler).
  const ending = client.close({ grace: 200 });
  await assert.rejects(within(long, 1500), ConnectionClosed);
  await within(ending);
});

test('supports() reads the server capabilities', async () => {
  const server = new Server({ name: 'capable', version: '1.0.0', extensions: { 'io.example/lights': {} } });
  server.tool('echo', ({ text }) => text);
  server.resource('note://a', () => 'a');
  for (const mode of ['legacy', 'modern']) {
    const client = await Client.inMemory(server, { mode });
    try {
      assert.ok(client.supports('tools'));
      assert.ok(client.supports('resources'));
      assert.equal(client.supports('tools.listChanged'), client.supports('tools.list_changed'));
      assert.ok(!client.supports('prompts'));
      assert.ok(!client.supports('no.such.thing'));
      assert.ok(client.supports('io.example/lights'));
      assert.ok(!client.supports('io.example/none'));
    } finally {
      await client.close();
    }
  }
});

test('bad reconnect policies and ping intervals are refused', () => {
  const transport = { start() {}, write() {}, close() {} };
  assert.throws(() => new Client(transport, { reconnect: { tries: 3 } }), (err) => err instanceof OptionError && /unknown reconnect option `tries`/.test(err.message));
  assert.throws(() => new Client(transport, { reconnect: { jitter: 2 } }), (err) => err instanceof OptionError && /jitter/.test(err.message));
  assert.throws(() => new Client(transport, { pingInterval: 0 }), /pingInterval/);
});

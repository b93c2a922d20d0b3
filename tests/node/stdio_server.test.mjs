// The Node Server over stdio, spoken to in raw newline-delimited JSON-RPC: the example echo
// server (examples/node/echo_server.mjs) and a small scripted server with handlers that throw,
// reject, take their time or never settle. The process must keep serving through all of it
// and exit with code 0 once its stdin ends, after answering what was in flight.
//
// Run: node --test tests/node/

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { readFileSync } from 'node:fs';
import { within } from './_helpers.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const ECHO_SERVER = path.join(ROOT, 'examples/node/echo_server.mjs');
const PACKAGE = pathToFileURL(path.join(ROOT, 'bindings-node/js/index.mjs')).href;

/** A server process spoken to in raw JSON-RPC lines. */
class RawPeer {
  constructor(args) {
    this.child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
    this.messages = [];
    this.stderr = '';
    this._waiters = [];
    this._partial = '';
    this.child.stdout.setEncoding('utf8');
    this.child.stdout.on('data', (chunk) => this._data(chunk));
    this.child.stderr.setEncoding('utf8');
    this.child.stderr.on('data', (chunk) => (this.stderr += chunk));
    this.child.stdin.on('error', () => {}); // reported through the exit status instead
    // 'close': it exited and its stdout and stderr have been read to the end.
    this.exited = new Promise((resolve) => this.child.once('close', (code, signal) => resolve({ code, signal })));
  }

  _data(chunk) {
    const lines = (this._partial + chunk).split('\n');
    this._partial = lines.pop();
    for (const line of lines) {
      if (!line.trim()) continue;
      const msg = JSON.parse(line);
      this.messages.push(msg);
      for (const w of this._waiters.splice(0)) {
        if (w.pred(msg)) w.resolve(msg);
        else this._waiters.push(w);
      }
    }
  }

  send(...messages) {
    this.child.stdin.write(messages.map((m) => (typeof m === 'string' ? m : JSON.stringify(m)) + '\n').join(''));
  }

  /** The first message (already received or to come) matching `pred`. */
  next(pred, ms = 10_000) {
    const found = this.messages.find(pred);
    if (found) return Promise.resolve(found);
    return within(new Promise((resolve) => this._waiters.push({ pred, resolve })), ms, `a message (stderr: ${this.stderr})`);
  }

  /** The answer to request `id`. */
  answer(id, ms) {
    return this.next((m) => m.id === id && ('result' in m || 'error' in m), ms);
  }

  async initialize(protocolVersion = '2025-11-25') {
    this.send(request(0, 'initialize', { protocolVersion, capabilities: {}, clientInfo: { name: 'raw-test', version: '0.0.0' } }));
    const init = await this.answer(0);
    this.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    return init;
  }

  /** Resolves once its stderr matches `re`. */
  stderrMatches(re, ms = 10_000) {
    const deadline = Date.now() + ms;
    return within(
      new Promise((resolve) => {
        const check = () => {
          if (re.test(this.stderr)) resolve();
          else if (Date.now() < deadline) setTimeout(check, 5);
        };
        check();
      }),
      ms,
      `stderr matching ${re}`,
    );
  }

  end() {
    this.child.stdin.end();
  }

  /** Kills it if it is still running (test cleanup). */
  kill() {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
  }
}

const request = (id, method, params) => ({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) });
const call = (id, name, args = {}) => request(id, 'tools/call', { name, arguments: args });
const text = (msg) => msg.result?.content?.[0]?.text;

/** A server with handlers that misbehave, written to a module evaluated by `node -e`. */
const SCRIPTED_SERVER = `
import { Server } from ${JSON.stringify(PACKAGE)};
const server = new Server({
  name: 'scripted',
  version: '1.0.0',
  lifespan: async () => {
    process.stderr.write('lifespan open\\n');
    return { context: { opened: true }, close: () => process.stderr.write('lifespan closed\\n') };
  },
});
server.tool('lifespan', (_args, ctx) => JSON.stringify(ctx.server.lifespanContext));
server.tool('echo', { inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } }, ({ text }) => text);
server.tool('throwSync', () => { throw new Error('thrown synchronously'); });
server.tool('reject', () => Promise.reject(new Error('rejected later')));
server.tool('hang', () => new Promise(() => {}));
server.tool('chatty', () => { console.log('console.log from a handler'); process.stdout.write('a raw stdout write\\n'); return 'printed'; });
server.tool('slow', { inputSchema: { type: 'object', properties: { ms: { type: 'number' } } } }, ({ ms }) =>
  new Promise((resolve) => setTimeout(() => resolve('slow done after ' + ms + ' ms'), ms)));
await server.run();
process.stderr.write('run() returned\\n');
`;

const scripted = () => new RawPeer(['--input-type=module', '-e', SCRIPTED_SERVER]);
const echo = () => new RawPeer([ECHO_SERVER]);

// ---- the example echo server --------------------------------------------------------------------

test('echo server: initialize, list, echo, and exit 0 when stdin ends', async (t) => {
  const peer = echo();
  t.after(() => peer.kill());
  const init = await peer.initialize();
  assert.equal(init.jsonrpc, '2.0');
  assert.equal(init.result.protocolVersion, '2025-11-25');
  assert.deepEqual(init.result.serverInfo, { name: 'hypermcp-echo', version: '1.0.0' });
  assert.ok(init.result.capabilities.tools, 'tools capability');

  peer.send(request(1, 'tools/list'));
  const list = await peer.answer(1);
  assert.deepEqual(list.result.tools.map((tool) => tool.name), ['echo']);
  assert.deepEqual(list.result.tools[0].inputSchema.required, ['text']);

  peer.send(call(2, 'echo', { text: 'hello, world' }));
  assert.deepEqual(await peer.answer(2), { jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: 'hello, world' }] } });

  // Unicode and an escaped newline survive the round trip.
  peer.send(call(3, 'echo', { text: 'héllo ☃ "quoted"\nline 2' }));
  assert.equal(text(await peer.answer(3)), 'héllo ☃ "quoted"\nline 2');

  peer.end();
  assert.deepEqual(await within(peer.exited, 10_000, 'the exit'), { code: 0, signal: null });
});

test('echo server: bad input gets errors and the server keeps serving', async (t) => {
  const peer = echo();
  t.after(() => peer.kill());
  await peer.initialize();
  peer.send('this is not json', call(1, 'echo', { text: 5 }), call(2, 'nope', {}), request(3, 'no/such/method', {}), call(4, 'echo', { text: 'after' }));
  const parseError = await peer.next((m) => m.id === null && m.error);
  assert.equal(parseError.error.code, -32700);
  const badArgs = await peer.answer(1);
  assert.equal(badArgs.result.isError, true);
  assert.match(text(badArgs), /^Invalid arguments for tool echo: /);
  assert.equal((await peer.answer(2)).error.code, -32602);
  assert.equal((await peer.answer(3)).error.code, -32601);
  assert.equal(text(await peer.answer(4)), 'after');
  peer.end();
  assert.deepEqual(await within(peer.exited, 10_000, 'the exit'), { code: 0, signal: null });
});

test('echo server: everything written before stdin ends is answered, then exit 0', async (t) => {
  const peer = echo();
  t.after(() => peer.kill());
  // One write, then EOF at once: the server must still answer all of it.
  const calls = Array.from({ length: 20 }, (_, i) => call(i + 1, 'echo', { text: `m${i + 1}` }));
  peer.send(
    request(0, 'initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '0' } }),
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    ...calls,
  );
  peer.end();
  assert.deepEqual(await within(peer.exited, 10_000, 'the exit'), { code: 0, signal: null });
  for (let i = 1; i <= 20; i++) assert.equal(text(await peer.answer(i, 1000)), `m${i}`);
});

// ---- misbehaving handlers -----------------------------------------------------------------------

test('a handler that throws synchronously, rejects or never settles does not kill the server', async (t) => {
  const peer = scripted();
  t.after(() => peer.kill());
  await peer.initialize();
  peer.send(call(1, 'throwSync'));
  assert.deepEqual((await peer.answer(1)).result, { content: [{ type: 'text', text: 'thrown synchronously' }], isError: true });
  peer.send(call(2, 'reject'));
  assert.deepEqual((await peer.answer(2)).result, { content: [{ type: 'text', text: 'rejected later' }], isError: true });

  // Two calls that never settle, then the server still answers everything else.
  peer.send(call(3, 'hang'), call(4, 'hang'), call(5, 'echo', { text: 'alive' }), call(6, 'slow', { ms: 20 }));
  assert.equal(text(await peer.answer(5)), 'alive');
  assert.equal(text(await peer.answer(6)), 'slow done after 20 ms');
  peer.send(request(7, 'ping'));
  assert.deepEqual(await peer.answer(7), { jsonrpc: '2.0', id: 7, result: {} });
  assert.equal(peer.child.exitCode, null, 'still running');
  assert.ok(!peer.messages.some((m) => m.id === 3 || m.id === 4), 'nothing answered the hanging calls');

  // Cancelling one of them is fine too.
  peer.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 3, reason: 'enough' } });
  peer.send(call(8, 'echo', { text: 'still alive' }));
  assert.equal(text(await peer.answer(8)), 'still alive');
  assert.doesNotMatch(peer.stderr, /Error|Unhandled|uncaught/i);

  // The other still hangs when stdin ends: the server does not wait for what cannot settle.
  peer.end();
  assert.deepEqual(await within(peer.exited, 10_000, 'the exit'), { code: 0, signal: null });
  assert.match(peer.stderr, /run\(\) returned/);
  assert.ok(!peer.messages.some((m) => m.id === 3), 'the cancelled call is never answered');
});

test('a call in flight when stdin ends is answered before the process exits with 0', async (t) => {
  const peer = scripted();
  t.after(() => peer.kill());
  await peer.initialize();
  peer.send(call(1, 'slow', { ms: 300 }), call(2, 'echo', { text: 'quick' }));
  assert.equal(text(await peer.answer(2)), 'quick');
  peer.end(); // call 1 is still running
  const exit = await within(peer.exited, 10_000, 'the exit');
  assert.deepEqual(exit, { code: 0, signal: null });
  assert.equal(text(await peer.answer(1, 1000)), 'slow done after 300 ms');
  assert.match(peer.stderr, /run\(\) returned/);
});

test('server.run() opens the lifespan before serving and closes it after stdin ends', async (t) => {
  const peer = scripted();
  t.after(() => peer.kill());
  await peer.initialize();
  await peer.stderrMatches(/lifespan open\n/);
  peer.send(call(1, 'lifespan'), call(2, 'slow', { ms: 100 }));
  assert.equal(text(await peer.answer(1)), '{"opened":true}');
  peer.end();
  assert.deepEqual(await within(peer.exited, 10_000, 'the exit'), { code: 0, signal: null });
  assert.equal(text(await peer.answer(2, 1000)), 'slow done after 100 ms');
  assert.equal(peer.stderr, 'lifespan open\nlifespan closed\nrun() returned\n');
});

test('the stdout guard: console.log in a handler goes to stderr and the protocol stays intact', async (t) => {
  const peer = scripted();
  t.after(() => peer.kill());
  await peer.initialize();
  peer.send(call(1, 'chatty'), call(2, 'echo', { text: 'after' }));
  assert.equal(text(await peer.answer(1)), 'printed');
  assert.equal(text(await peer.answer(2)), 'after');
  await peer.stderrMatches(/a raw stdout write\n/);
  const warnings = peer.stderr.match(/hypermcp: console\.log and other writes to stdout go to stderr/g) ?? [];
  assert.equal(warnings.length, 1, peer.stderr);
  assert.match(peer.stderr, /console\.log from a handler\n/);
  peer.send(call(3, 'chatty'));
  assert.equal(text(await peer.answer(3)), 'printed');
  peer.end();
  assert.deepEqual(await within(peer.exited, 10_000, 'the exit'), { code: 0, signal: null });
});

/** The BIG server on pipes, its stdout never read, with HYPERMCP_STDIO_BUFFER at 4 MiB. */
function bigServer() {
  const script = `
import { Server } from ${JSON.stringify(PACKAGE)};
const server = new Server({ name: 'big', version: '1.0.0' });
server.tool('big', () => 'x'.repeat(1 << 18));
server.tool('flood', async (_args, ctx) => {
  for (let i = 0; i < 500; i++) await ctx.reportProgress(i, 500, 'p'.repeat(65536));
  return 'flooded';
});
await server.run();
process.stderr.write('run() returned\\n');
`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    cwd: ROOT,
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, HYPERMCP_STDIO_BUFFER: String(4 << 20) },
  });
  const peer = { child, stderr: '', peak: 0, exited: new Promise((resolve) => child.once('exit', (code) => resolve(code))) };
  child.stderr.on('data', (d) => (peer.stderr += d));
  child.stdout.pause(); // never read
  peer.send = (...msgs) => child.stdin.write(msgs.map((m) => JSON.stringify(m) + '\n').join(''));
  peer.rss = () => {
    try {
      const m = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
      return m ? Number(m[1]) * 1024 : 0;
    } catch {
      return 0;
    }
  };
  peer.send(
    { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } },
    { jsonrpc: '2.0', method: 'notifications/initialized' },
  );
  return peer;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

test('a client that stops reading stdout gets backpressure: the server stops reading, its memory bounded', async (t) => {
  const peer = bigServer();
  t.after(() => peer.child.kill('SIGKILL'));
  await sleep(500);
  const base = peer.rss();
  let peak = 0;
  // 40 calls for 256 KiB answers, 2.5 times the limit: a server that kept reading would
  // overflow. They are paced (25 ms), and a server slowed by a busy machine may find several
  // in one read and start them all (started calls answer, whatever the backpressure; past the
  // limit the session ends, as the next test shows): eight fit between half the limit and it.
  for (let i = 1; i <= 40; i++) {
    peer.send({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'big' } });
    await sleep(25);
    peak = Math.max(peak, peer.rss());
  }
  for (let i = 0; i < 50; i++) {
    await sleep(20);
    peak = Math.max(peak, peer.rss());
  }
  assert.equal(peer.child.exitCode, null, 'the server waits for its client');
  assert.ok(peak - base < 60 * 1024 * 1024, `the server's RSS grew by ${Math.round((peak - base) / 1048576)} MiB`);
  assert.doesNotMatch(peer.stderr, /ending the session/);
});

test('a handler that floods a client that does not read ends the session: run() returns', async (t) => {
  const peer = bigServer();
  t.after(() => peer.child.kill('SIGKILL'));
  peer.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'flood', _meta: { progressToken: 1 } } });
  let peak = 0;
  const timer = setInterval(() => (peak = Math.max(peak, peer.rss())), 20);
  try {
    // (The process itself stays until the client reads or closes its end: Node keeps its
    // last write to fd 1 pending.)
    const deadline = Date.now() + 30_000;
    while (!peer.stderr.includes('run() returned') && Date.now() < deadline) await sleep(20);
  } finally {
    clearInterval(timer);
  }
  assert.match(peer.stderr, /run\(\) returned/);
  assert.match(peer.stderr, /the client has not read \d+ bytes of stdout .*ending the session/);
  assert.ok(peak < 200 * 1024 * 1024, `the server's RSS reached ${Math.round(peak / 1048576)} MiB`);
});

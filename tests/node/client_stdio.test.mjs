// The hypermcp Node client over stdio: against the Rust echo server, a scripted Node server
// (pagination, server requests, cancellation, crashes, a server that will not die) and, when
// installed, @modelcontextprotocol/server-everything.
//
// Environment: HYPERMCP_ECHO_SERVER points at the echo server binary (default:
// target/release/examples/echo_server, built by `cargo build --release -p hypermcp-examples --example
// echo_server`); HYPERMCP_REQUIRE_PEERS=1 turns a missing server-everything into a failure
// instead of a skip (tests/interop/setup_peers.sh installs it).
//
// Run: node --test tests/node/

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const require = createRequire(import.meta.url);
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const { Client, StdioTransport, promptRef, resourceRef } = require('../../bindings-node/js/client.cjs');
const {
  McpError,
  MethodNotFound,
  InvalidParams,
  RequestTimeout,
  ConnectionClosed,
  AbortError,
  UrlElicitationRequired,
} = require('../../bindings-node/js/errors.cjs');

const EVERYTHING = path.join(
  ROOT,
  '.peers/npm/node_modules/@modelcontextprotocol/server-everything/dist/index.js',
);

function echoServer() {
  const file = process.env.HYPERMCP_ECHO_SERVER || path.join(process.env.HYPERMCP_BUILD || path.join(ROOT, 'target/release'), 'examples/echo_server');
  if (!existsSync(file)) {
    assert.fail(
      `the Rust echo server is missing at ${file}: build it with ` +
        '`cargo build --release -p hypermcp-examples --example echo_server` or set HYPERMCP_ECHO_SERVER',
    );
  }
  return file;
}

/** [command, args] of server-everything, or null after marking the test skipped. */
function everything(t) {
  if (!existsSync(EVERYTHING)) {
    const why = `server-everything is missing at ${EVERYTHING} (run tests/interop/setup_peers.sh)`;
    if (process.env.HYPERMCP_REQUIRE_PEERS === '1') assert.fail(why);
    t.skip(`${why}; HYPERMCP_REQUIRE_PEERS=1 makes this fail`);
    return null;
  }
  return [process.execPath, [EVERYTHING, 'stdio']];
}

/** Whether `pid` exists at all. */
function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code !== 'ESRCH';
  }
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(check, ms = 2000) {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) return false;
    await sleep(10);
  }
  return true;
}

/** Every error the package throws has a stable string code. */
function rejectsWith(cls, code) {
  return (err) => {
    assert.ok(err instanceof cls, `expected ${cls.name}, got ${err && err.name}: ${err && err.message}`);
    assert.equal(err.code, code);
    return true;
  };
}

// A dependency-free MCP server driven line by line, for what the real servers cannot show.
const SCRIPTED = String.raw`
'use strict';
const mode = process.argv[2] || 'normal';
if (mode === 'stubborn') process.on('SIGTERM', () => {});
process.stderr.write('scripted server starting\n');
const TOOLS = Array.from({ length: 8 }, (_, i) => ({ name: 't' + i, inputSchema: { type: 'object' } }));
const cancelled = [];
const asks = new Map(); // our request id -> the tools/call id waiting for the client's reply
let asked = 0;

const send = (msg) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', ...msg }) + '\n');
const text = (id, value, isError) =>
  send({ id, result: { content: [{ type: 'text', text: value }], ...(isError ? { isError: true } : {}) } });

let buf = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  buf += chunk;
  let nl;
  while ((nl = buf.indexOf('\n')) >= 0) {
    const line = buf.slice(0, nl);
    buf = buf.slice(nl + 1);
    if (line.trim()) handle(JSON.parse(line));
  }
});
process.stdin.on('end', () => {
  if (mode === 'stubborn') setInterval(() => {}, 1000);
  else process.exit(0);
});

function handle(msg) {
  const { method, id } = msg;
  const params = msg.params || {};
  if (method === undefined) {
    const call = asks.get(id);
    if (call !== undefined) {
      asks.delete(id);
      const reply = { ...msg };
      delete reply.jsonrpc;
      delete reply.id;
      text(call, JSON.stringify(reply));
    }
    return;
  }
  switch (method) {
    case 'initialize':
      return send({ id, result: {
        protocolVersion: params.protocolVersion,
        capabilities: { tools: {}, logging: {}, resources: { subscribe: true } },
        serverInfo: { name: 'scripted', version: '1.2.3' },
        instructions: 'Scripted for tests.',
        _meta: { client: params.clientInfo, caps: params.capabilities },
      } });
    case 'notifications/initialized':
      return;
    case 'notifications/cancelled':
      cancelled.push([params.requestId, params.reason]);
      return;
    case 'ping':
    case 'logging/setLevel':
    case 'resources/unsubscribe':
      return send({ id, result: {} });
    case 'tools/list': {
      const start = Number(params.cursor || 0);
      const page = { tools: TOOLS.slice(start, start + 3) };
      if (start + 3 < TOOLS.length) page.nextCursor = String(start + 3);
      return send({ id, result: page });
    }
    case 'resources/list': // a broken server: always the same cursor
      return send({ id, result: { resources: [{ uri: 'file:///r', name: 'r' }], nextCursor: 'again' } });
    case 'resources/subscribe':
      send({ id, result: {} });
      return send({ method: 'notifications/resources/updated', params: { uri: params.uri } });
    case 'tools/call':
      return call(id, params);
    default:
      if (id !== undefined) send({ id, error: { code: -32601, message: 'no method ' + method } });
  }
}

function call(id, params) {
  const name = params.name;
  const args = params.arguments || {};
  const token = (params._meta || {}).progressToken;
  switch (name) {
    case 'hang':
      return;
    case 'exit':
      process.stderr.write('fatal: the scripted server crashed\n', () => process.exit(3));
      return;
    case 'cancelled':
      return text(id, JSON.stringify(cancelled));
    case 'fail':
      return text(id, 'it broke', true);
    case 'bad':
      return send({ id, error: { code: -32602, message: 'bad arguments', data: { x: 1 } } });
    case 'notify':
      send({ method: 'notifications/message', params: { level: 'warning', logger: 'scripted', data: args } });
      send({ method: 'notifications/tools/list_changed' });
      return text(id, 'ok');
    case 'progress':
      for (let i = 1; i <= 3; i++) {
        if (token !== undefined) {
          send({ method: 'notifications/progress',
                 params: { progressToken: token, progress: i, total: 3, message: 'step ' + i } });
        }
      }
      return send({ id, result: { content: [], structuredContent: { steps: 3 } } });
    case 'slow-progress': {
      let i = 0;
      const tick = setInterval(() => {
        i += 1;
        if (token !== undefined) send({ method: 'notifications/progress', params: { progressToken: token, progress: i } });
        if (i >= args.steps) {
          clearInterval(tick);
          text(id, 'done');
        }
      }, 100);
      return;
    }
    case 'ask': {
      // Sends args.method to the client and answers with the client's reply.
      asked += 1;
      const rid = 's' + asked;
      const request = { id: rid, method: args.method };
      if (args.params != null) request.params = args.params;
      send(request);
      if (args.cancel) {
        setTimeout(() => {
          send({ method: 'notifications/cancelled', params: { requestId: rid, reason: 'changed my mind' } });
          text(id, 'cancelled it');
        }, 200);
      } else {
        asks.set(rid, id);
      }
      return;
    }
    default:
      return send({ id, error: { code: -32602, message: 'unknown tool ' + name } });
  }
}
`;

let tmp;
let scripted; // [command, args]

before(() => {
  tmp = mkdtempSync(path.join(tmpdir(), 'hypermcp-client-'));
  const file = path.join(tmp, 'scripted_server.cjs');
  writeFileSync(file, SCRIPTED);
  scripted = [process.execPath, [file]];
});

after(() => {
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

// ---- the Rust echo server ----------------------------------------------------------------------

test('echo server: handshake, list, call, 200 concurrent calls, errors', async () => {
  const client = await Client.stdio(echoServer());
  try {
    assert.equal(client.serverInfo.name, 'hypermcp-echo');
    // Our servers speak both eras: an auto client speaks 2026-07-28 with them.
    assert.equal(client.protocolVersion, '2026-07-28');
    assert.equal(client.modern, true);
    assert.ok('tools' in client.serverCapabilities);
    assert.equal(client.state, 'operating');
    assert.deepEqual(await client.ping(), {});
    const { tools, nextCursor } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name), ['echo']);
    assert.equal(nextCursor, undefined);
    assert.deepEqual(tools[0].inputSchema.required, ['text']);
    const result = await client.callTool('echo', { text: 'héllo' });
    assert.deepEqual(result, { content: [{ type: 'text', text: 'héllo' }] });
    const many = await Promise.all(Array.from({ length: 200 }, (_, i) => client.callTool('echo', { text: String(i) })));
    assert.deepEqual(many.map((r) => r.content[0].text), Array.from({ length: 200 }, (_, i) => String(i)));
    assert.equal(client.pendingRequests, 0);
    // The server has no prompts capability: refused before anything is sent.
    await assert.rejects(client.listPrompts(), rejectsWith(MethodNotFound, 'ERR_MCP_METHOD_NOT_FOUND'));
    await assert.rejects(client.callTool('no-such-tool', {}), (err) => {
      assert.ok(err instanceof McpError);
      assert.equal(err.code, 'ERR_MCP_INVALID_PARAMS');
      assert.equal(err.rpcCode, -32602);
      return true;
    });
    await assert.rejects(client.callTool('echo', {}, { timeout: -1 }), { code: 'ERR_INVALID_ARG_VALUE' });
  } finally {
    await client.close();
  }
});

test('echo server: close() leaves no child, is idempotent, later calls reject', async () => {
  const client = await Client.stdio(echoServer());
  const pid = client.transport.pid;
  assert.ok(Number.isInteger(pid) && alive(pid));
  await client.close();
  assert.equal(client.closed, true);
  assert.equal(client.state, 'closed');
  assert.equal(alive(pid), false);
  await client.close();
  await assert.rejects(client.ping(), rejectsWith(ConnectionClosed, 'ERR_MCP_CLOSED'));
  await assert.rejects(client.callTool('echo', { text: 'x' }), /the client closed the connection/);
});

test('echo server: Symbol.asyncDispose closes', async () => {
  const client = await Client.stdio(echoServer());
  const pid = client.transport.pid;
  await client[Symbol.asyncDispose]();
  assert.equal(client.closed, true);
  assert.equal(alive(pid), false);
});

test('echo server: an aborted call rejects with AbortError and the client goes on', async () => {
  const client = await Client.stdio(echoServer());
  try {
    const ac = new AbortController();
    const pending = client.callTool('echo', { text: 'x' }, { signal: ac.signal });
    ac.abort();
    await assert.rejects(pending, (err) => {
      assert.ok(err instanceof AbortError && err instanceof McpError);
      assert.equal(err.name, 'AbortError');
      assert.equal(err.code, 'ERR_MCP_ABORTED');
      return true;
    });
    // Already aborted: nothing is sent.
    await assert.rejects(client.callTool('echo', { text: 'y' }, { signal: AbortSignal.abort() }), {
      code: 'ERR_MCP_ABORTED',
    });
    assert.equal((await client.callTool('echo', { text: 'after' })).content[0].text, 'after');
    assert.equal(client.pendingRequests, 0);
  } finally {
    await client.close();
  }
});

test('a spawn failure rejects with ConnectionClosed', async () => {
  await assert.rejects(Client.stdio(path.join(tmp, 'no-such-binary')), (err) => {
    assert.ok(err instanceof ConnectionClosed);
    assert.equal(err.code, 'ERR_MCP_CLOSED');
    assert.match(err.message, /cannot start the server/);
    assert.equal(err.cause.code, 'ENOENT');
    return true;
  });
});

// ---- the scripted server -----------------------------------------------------------------------

test('pagination: every page without a cursor, one page with one', async () => {
  const client = await Client.stdio(...scripted);
  try {
    assert.equal(client.instructions, 'Scripted for tests.');
    assert.equal(client.serverInfo.version, '1.2.3');
    const all = await client.listTools();
    assert.deepEqual(all.tools.map((t) => t.name), ['t0', 't1', 't2', 't3', 't4', 't5', 't6', 't7']);
    assert.equal('nextCursor' in all, false);
    const page = await client.listTools({ cursor: '3' });
    assert.deepEqual(page.tools.map((t) => t.name), ['t3', 't4', 't5']);
    assert.equal(page.nextCursor, '6');
    const last = await client.listTools({ cursor: page.nextCursor });
    assert.deepEqual(last.tools.map((t) => t.name), ['t6', 't7']);
    assert.equal(last.nextCursor, undefined);
    // A server repeating its cursor does not make the walk loop forever.
    await assert.rejects(client.listResources(), { code: 'ERR_MCP_INTERNAL', message: /repeated the cursor/ });
  } finally {
    await client.close();
  }
});

test('declared capabilities follow the handlers given', async () => {
  let client = await Client.stdio(...scripted, { name: 'tester', version: '9' });
  try {
    // The scripted server echoes the client's initialize params in _meta.
    const meta = JSON.parse(client._session.server)._meta;
    assert.deepEqual(meta.client, { name: 'tester', version: '9' });
    assert.deepEqual(meta.caps, {});
  } finally {
    await client.close();
  }
  client = await Client.stdio(...scripted, {
    onSampling: () => ({}),
    onElicitation: () => ({}),
    elicitationUrl: true,
    roots: ['file:///a'],
  });
  try {
    const caps = JSON.parse(client._session.server)._meta.caps;
    assert.deepEqual(caps, {
      sampling: { tools: {} },
      elicitation: { form: {}, url: {} },
      roots: { listChanged: true },
    });
  } finally {
    await client.close();
  }
  assert.throws(() => new Client(new StdioTransport('x'), { elicitationUrl: true }), { code: 'ERR_INVALID_ARG_VALUE' });
  assert.throws(() => new Client({}), { code: 'ERR_INVALID_ARG_TYPE' });
});

test('tool errors: isError results and JSON-RPC errors with their codes', async () => {
  const client = await Client.stdio(...scripted);
  try {
    const failed = await client.callTool('fail');
    assert.deepEqual(failed, { content: [{ type: 'text', text: 'it broke' }], isError: true });
    await assert.rejects(client.callTool('bad'), (err) => {
      assert.ok(err instanceof InvalidParams);
      assert.equal(err.code, 'ERR_MCP_INVALID_PARAMS');
      assert.equal(err.rpcCode, -32602);
      assert.equal(err.message, 'bad arguments');
      assert.deepEqual(err.data, { x: 1 });
      return true;
    });
    // No prompts capability: refused before sending.
    await assert.rejects(client.getPrompt('p'), rejectsWith(MethodNotFound, 'ERR_MCP_METHOD_NOT_FOUND'));
    // Any request, raw.
    await assert.rejects(client.request('nothing/here', {}), { code: 'ERR_MCP_METHOD_NOT_FOUND', rpcCode: -32601 });
  } finally {
    await client.close();
  }
});

test('timeouts: per call and per client, with a cancellation sent to the server', async () => {
  let client = await Client.stdio(...scripted, { timeout: 5000 });
  try {
    const start = Date.now();
    await assert.rejects(client.callTool('hang', {}, { timeout: 200 }), (err) => {
      assert.ok(err instanceof RequestTimeout);
      assert.equal(err.code, 'ERR_MCP_TIMEOUT');
      assert.equal(err.rpcCode, -32001);
      return true;
    });
    assert.ok(Date.now() - start < 2000, 'the timeout fired late');
    const cancelled = JSON.parse((await client.callTool('cancelled')).content[0].text);
    assert.deepEqual(cancelled.map(([, reason]) => reason), ['request timed out']);

    // Progress restarts the timeout when asked to: 6 steps of 100 ms against 300 ms.
    const steps = [];
    const done = await client.callTool('slow-progress', { steps: 6 }, {
      timeout: 300,
      resetTimeoutOnProgress: true,
      onProgress: (p) => steps.push(p.progress),
    });
    assert.equal(done.content[0].text, 'done');
    assert.deepEqual(steps, [1, 2, 3, 4, 5, 6]);
    await assert.rejects(client.callTool('slow-progress', { steps: 6 }, { timeout: 300 }), { code: 'ERR_MCP_TIMEOUT' });
  } finally {
    await client.close();
  }
  // A default timeout for every call.
  client = await Client.stdio(...scripted, { timeout: 200 });
  try {
    await assert.rejects(client.callTool('hang'), { code: 'ERR_MCP_TIMEOUT' });
    // null: no limit for this call (the client's default does not apply).
    const ac = new AbortController();
    const pending = client.callTool('hang', {}, { timeout: null, signal: ac.signal });
    await sleep(400);
    ac.abort();
    await assert.rejects(pending, { code: 'ERR_MCP_ABORTED' });
  } finally {
    await client.close();
  }
});

test('AbortSignal: aborting a call rejects it and cancels it with the server', async () => {
  const client = await Client.stdio(...scripted);
  try {
    const ac = new AbortController();
    const pending = client.callTool('hang', {}, { signal: ac.signal });
    setTimeout(() => ac.abort(new Error('the user gave up')), 50);
    await assert.rejects(pending, (err) => {
      assert.ok(err instanceof AbortError);
      assert.equal(err.code, 'ERR_MCP_ABORTED');
      assert.match(err.message, /the user gave up/);
      return true;
    });
    const cancelled = JSON.parse((await client.callTool('cancelled')).content[0].text);
    assert.equal(cancelled.length, 1);
    const [requestId, reason] = cancelled[0];
    assert.equal(typeof requestId, 'number');
    assert.equal(reason, 'the user gave up');
    assert.equal(client.pendingRequests, 0);
  } finally {
    await client.close();
  }
});

test('notifications, logging and progress', async () => {
  const logs = [];
  const messages = [];
  const progress = [];
  const client = await Client.stdio(...scripted, {
    onLog: (params) => logs.push(params),
    onNotification: (method, params) => messages.push([method, params]),
  });
  try {
    assert.deepEqual(await client.setLoggingLevel('debug'), {});
    assert.equal((await client.callTool('notify', { n: 1 })).content[0].text, 'ok');
    const result = await client.callTool('progress', {}, { onProgress: async (p) => progress.push(p) });
    assert.deepEqual(result.structuredContent, { steps: 3 });
    await client.subscribeResource('file:///x');
    await client.unsubscribeResource('file:///x');
    await until(() => messages.length >= 2);
  } finally {
    await client.close();
  }
  assert.deepEqual(logs, [{ level: 'warning', logger: 'scripted', data: { n: 1 } }]);
  assert.deepEqual(messages, [
    ['notifications/tools/list_changed', undefined],
    ['notifications/resources/updated', { uri: 'file:///x' }],
  ]);
  assert.deepEqual(progress, [
    { progress: 1, total: 3, message: 'step 1' },
    { progress: 2, total: 3, message: 'step 2' },
    { progress: 3, total: 3, message: 'step 3' },
  ]);
});

test('server requests: sampling, elicitation and roots handlers, errors and cancellation', async () => {
  const seen = [];
  const aborted = [];
  const sampling = async (params, { signal }) => {
    seen.push(params);
    if (params.systemPrompt === 'explode') throw new Error('no model here');
    if (params.systemPrompt === 'refuse') throw new McpError(-1, 'user refused', { why: 'test' });
    if (params.systemPrompt === 'sync') return { role: 'assistant', content: { type: 'text', text: 'sync' }, model: 'm' };
    if (params.systemPrompt === 'wait') {
      await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
      aborted.push(signal.reason);
      return { role: 'assistant', content: { type: 'text', text: 'too late' }, model: 'm' };
    }
    return { role: 'assistant', content: { type: 'text', text: 'sampled' }, model: 'm' };
  };
  const rootDir = path.join(tmp, 'a-root');
  const client = await Client.stdio(...scripted, {
    onSampling: sampling,
    onElicitation: (params) => ({ action: 'accept', content: { name: params.message } }),
    roots: ['file:///work', rootDir, { uri: 'file:///named', name: 'named' }],
  });
  const ask = async (method, params, extra = {}) => {
    const res = await client.callTool('ask', { method, params, ...extra });
    const text = res.content[0].text;
    return text.startsWith('{') ? JSON.parse(text) : text;
  };
  try {
    const msg = { messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 5 };
    let got = await ask('sampling/createMessage', msg);
    assert.equal(got.result.content.text, 'sampled');
    assert.equal(seen[0].messages[0].content.text, 'hi');
    got = await ask('sampling/createMessage', { ...msg, systemPrompt: 'sync' });
    assert.equal(got.result.content.text, 'sync');
    got = await ask('sampling/createMessage', { ...msg, systemPrompt: 'explode' });
    assert.deepEqual(got.error, { code: -32603, message: 'no model here' });
    got = await ask('sampling/createMessage', { ...msg, systemPrompt: 'refuse' });
    assert.deepEqual(got.error, { code: -1, message: 'user refused', data: { why: 'test' } });
    assert.equal(await ask('sampling/createMessage', { ...msg, systemPrompt: 'wait' }, { cancel: true }), 'cancelled it');
    assert.ok(await until(() => aborted.length === 1), 'the handler signal did not fire');
    assert.equal(aborted[0].code, 'ERR_MCP_ABORTED');
    assert.match(aborted[0].message, /changed my mind/);

    got = await ask('elicitation/create', { message: 'who?', requestedSchema: { type: 'object', properties: {} } });
    assert.deepEqual(got.result, { action: 'accept', content: { name: 'who?' } });

    got = await ask('roots/list');
    assert.deepEqual(got.result.roots, [
      { uri: 'file:///work' },
      { uri: pathToFileURL(rootDir).href, name: 'a-root' },
      { uri: 'file:///named', name: 'named' },
    ]);
    await client.setRoots(async () => ['file:///changed']);
    got = await ask('roots/list');
    assert.deepEqual(got.result.roots, [{ uri: 'file:///changed' }]);
  } finally {
    await client.close();
  }

  // Without handlers the requests are refused.
  const bare = await Client.stdio(...scripted);
  try {
    const res = await bare.callTool('ask', { method: 'roots/list' });
    assert.equal(JSON.parse(res.content[0].text).error.code, -32601);
    const res2 = await bare.callTool('ask', { method: 'sampling/createMessage', params: { messages: [], maxTokens: 1 } });
    assert.equal(JSON.parse(res2.content[0].text).error.code, -32601);
    await assert.rejects(bare.sendRootsListChanged(), (err) => err instanceof McpError && typeof err.code === 'string');
  } finally {
    await bare.close();
  }
});

test('a server that exits mid-call: ConnectionClosed with its exit code and stderr', async () => {
  const lines = [];
  const client = await Client.stdio(...scripted, { onStderr: (line) => lines.push(line) });
  const pid = client.transport.pid;
  try {
    await assert.rejects(client.callTool('exit'), (err) => {
      assert.ok(err instanceof ConnectionClosed);
      assert.equal(err.code, 'ERR_MCP_CLOSED');
      assert.match(err.message, /exited with code 3/);
      assert.match(err.message, /fatal: the scripted server crashed/);
      return true;
    });
    assert.match(client.serverStderr, /fatal: the scripted server crashed/);
    assert.equal(client.closed, true);
    await assert.rejects(client.ping(), { code: 'ERR_MCP_CLOSED', message: /exited with code 3/ });
  } finally {
    await client.close();
  }
  assert.deepEqual(lines, ['scripted server starting', 'fatal: the scripted server crashed']);
  assert.equal(alive(pid), false);
});

test('a server that dies before the handshake', async () => {
  const file = path.join(tmp, 'dies.cjs');
  writeFileSync(file, "process.stderr.write('no config file\\n'); process.exit(2);\n");
  await assert.rejects(Client.stdio(process.execPath, [file]), (err) => {
    assert.ok(err instanceof ConnectionClosed);
    assert.match(err.message, /exited with code 2/);
    assert.match(err.message, /no config file/);
    return true;
  });
});

test('close() kills a server that ignores EOF and SIGTERM', async () => {
  const client = await Client.stdio(scripted[0], [...scripted[1], 'stubborn']);
  const pid = client.transport.pid;
  const start = Date.now();
  await client.close(); // EOF ignored, SIGTERM ignored: SIGKILL after 2 + 2 s
  const took = Date.now() - start;
  assert.equal(alive(pid), false);
  assert.equal(client.transport.signalCode, 'SIGKILL');
  assert.ok(took > 3500 && took < 8000, `took ${took} ms`);
});

test('the transport interface: a loopback answering synchronously from write()', async () => {
  const sent = [];
  let closed = false;
  const transport = {
    client: null,
    start(client) {
      this.client = client;
    },
    write(buf) {
      for (const line of buf.toString().split('\n')) {
        if (!line) continue;
        const msg = JSON.parse(line);
        sent.push(msg);
        let result;
        if (msg.method === 'initialize') {
          result = {
            protocolVersion: msg.params.protocolVersion,
            capabilities: { tools: {} },
            serverInfo: { name: 'loop', version: '0' },
          };
        } else if (msg.method === 'tools/call') {
          result = { content: [{ type: 'text', text: msg.params.arguments.text }] };
        } else {
          continue;
        }
        this.client._feed(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result }) + '\n');
      }
    },
    close() {
      closed = true;
    },
  };
  // A legacy server that ignores unknown requests: the legacy mode skips the discover probe.
  const client = await Client.connect(transport, { mode: 'legacy' });
  assert.equal(client.serverInfo.name, 'loop');
  assert.equal((await client.callTool('echo', { text: 'mem' })).content[0].text, 'mem');
  const results = await Promise.all(Array.from({ length: 10 }, (_, i) => client.callTool('echo', { text: String(i) })));
  assert.deepEqual(results.map((r) => r.content[0].text), Array.from({ length: 10 }, (_, i) => String(i)));
  await client.close();
  assert.equal(closed, true);
  assert.deepEqual(sent.slice(0, 2).map((m) => m.method), ['initialize', 'notifications/initialized']);
});

// ---- @modelcontextprotocol/server-everything --------------------------------------------------

test('server-everything: tools, resources, prompts, progress, timeouts, sampling, elicitation, roots', async (t) => {
  const argv = everything(t);
  if (!argv) return;
  const logs = [];
  const sampled = [];
  const elicited = [];
  const client = await Client.stdio(...argv, {
    onSampling: (params, { signal }) => {
      assert.ok(signal instanceof AbortSignal);
      sampled.push(params);
      return { role: 'assistant', content: { type: 'text', text: 'a sampled answer' }, model: 'test-model' };
    },
    onElicitation: async (params) => {
      elicited.push(params);
      return { action: 'decline' };
    },
    roots: ['file:///everything-root'],
    onLog: (params) => logs.push(params),
  });
  try {
    assert.equal(client.serverInfo.name, 'mcp-servers/everything');
    assert.equal(typeof client.instructions, 'string');
    const names = new Set((await client.listTools()).tools.map((tool) => tool.name));
    for (const name of ['echo', 'get-sum', 'trigger-long-running-operation', 'trigger-sampling-request',
      'trigger-elicitation-request', 'get-roots-list']) {
      assert.ok(names.has(name), `missing tool ${name}`);
    }
    assert.equal((await client.callTool('echo', { message: 'hi there' })).content[0].text, 'Echo: hi there');
    assert.equal((await client.callTool('get-sum', { a: 2, b: 3 })).content[0].text, 'The sum of 2 and 3 is 5.');
    const many = await Promise.all(Array.from({ length: 200 }, (_, i) => client.callTool('echo', { message: `m${i}` })));
    assert.deepEqual(many.map((r) => r.content[0].text), Array.from({ length: 200 }, (_, i) => `Echo: m${i}`));
    const structured = await client.callTool('get-structured-content', { location: 'New York' });
    assert.ok(structured.structuredContent && 'temperature' in structured.structuredContent);
    const image = await client.callTool('get-tiny-image', {});
    assert.ok(image.content.some((c) => c.type === 'image' && c.mimeType === 'image/png'));
    const invalid = await client.callTool('get-sum', { a: 'x' }).catch((err) => err);
    assert.ok(invalid instanceof McpError ? typeof invalid.code === 'string' : invalid.isError === true);

    // Resources.
    const { resources } = await client.listResources();
    assert.ok(resources.length > 0, 'server-everything lists static resources');
    const read = await client.readResource(resources[0].uri);
    assert.equal(read.contents[0].uri, resources[0].uri);
    const { resourceTemplates } = await client.listResourceTemplates();
    assert.ok(resourceTemplates.some((tpl) => tpl.uriTemplate.includes('{')));
    const dynamic = await client.readResource('demo://resource/dynamic/text/1');
    assert.match(dynamic.contents[0].text, /Resource 1/);
    assert.deepEqual(await client.subscribeResource('demo://resource/dynamic/text/1'), {});
    assert.deepEqual(await client.unsubscribeResource('demo://resource/dynamic/text/1'), {});

    // Prompts and completions.
    const prompts = new Set((await client.listPrompts()).prompts.map((p) => p.name));
    assert.ok(prompts.has('simple-prompt') && prompts.has('args-prompt'));
    const simple = await client.getPrompt('simple-prompt');
    assert.equal(simple.messages[0].content.text, 'This is a simple prompt without arguments.');
    const withArgs = await client.getPrompt('args-prompt', { city: 'Paris' });
    assert.match(withArgs.messages[0].content.text, /Paris/);
    const completion = await client.complete(promptRef('completable-prompt'), 'department', 'E');
    assert.ok(completion.completion.values.includes('Engineering'));
    const idCompletion = await client.complete(resourceRef('demo://resource/dynamic/text/{resourceId}'), 'resourceId', '7');
    assert.deepEqual(idCompletion.completion.values, ['7']);

    // Progress.
    const progress = [];
    const done = await client.callTool('trigger-long-running-operation', { duration: 0.4, steps: 4 }, {
      onProgress: (p) => progress.push(p),
    });
    assert.match(done.content[0].text, /completed/);
    assert.deepEqual(progress, [1, 2, 3, 4].map((i) => ({ progress: i, total: 4 })));

    // Timeouts and aborts.
    await assert.rejects(
      client.callTool('trigger-long-running-operation', { duration: 5, steps: 5 }, { timeout: 300 }),
      rejectsWith(RequestTimeout, 'ERR_MCP_TIMEOUT'),
    );
    const slow = await client.callTool('trigger-long-running-operation', { duration: 1.5, steps: 6 }, {
      timeout: 600,
      resetTimeoutOnProgress: true,
    });
    assert.match(slow.content[0].text, /completed/);
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 100);
    await assert.rejects(
      client.callTool('trigger-long-running-operation', { duration: 5, steps: 5 }, { signal: ac.signal }),
      rejectsWith(AbortError, 'ERR_MCP_ABORTED'),
    );

    // The server's requests.
    const sampling = await client.callTool('trigger-sampling-request', { prompt: 'hello', maxTokens: 5 });
    assert.match(sampling.content[0].text, /a sampled answer/);
    assert.match(sampled[0].messages[0].content.text, /hello/);
    const declined = await client.callTool('trigger-elicitation-request', {});
    assert.match(declined.content[0].text.toLowerCase(), /declined/);
    assert.equal(elicited[0].requestedSchema.type, 'object');
    const roots = await client.callTool('get-roots-list', {});
    assert.match(roots.content[0].text, /file:\/\/\/everything-root/);

    assert.deepEqual(await client.setLoggingLevel('debug'), {});
    assert.deepEqual(await client.ping(), {});
    assert.equal(client.pendingRequests, 0);
  } finally {
    await client.close();
  }
  assert.ok(logs.some((entry) => String(entry.data).includes('Roots updated')), JSON.stringify(logs));
});

test('server-everything: URL elicitation, both paths', async (t) => {
  const argv = everything(t);
  if (!argv) return;
  const elicited = [];
  const client = await Client.stdio(...argv, {
    onElicitation: (params) => {
      elicited.push(params);
      return { action: 'accept' };
    },
    elicitationUrl: true,
  });
  try {
    const done = await client.callTool('trigger-url-elicitation', { url: 'https://example.com/login' });
    assert.match(done.content[0].text, /completed the URL elicitation/);
    assert.equal(elicited[0].mode, 'url');
    assert.equal(elicited[0].url, 'https://example.com/login');
    await assert.rejects(
      client.callTool('trigger-url-elicitation', { url: 'https://example.com/other', elicitationId: 'e1', errorPath: true }),
      (err) => {
        assert.ok(err instanceof UrlElicitationRequired);
        assert.equal(err.code, 'ERR_MCP_URL_ELICITATION_REQUIRED');
        assert.equal(err.rpcCode, -32042);
        assert.equal(err.data.elicitations[0].mode, 'url');
        return true;
      },
    );
  } finally {
    await client.close();
  }
});

test('server-everything: close() leaves no child', async (t) => {
  const argv = everything(t);
  if (!argv) return;
  const client = await Client.stdio(...argv);
  const pid = client.transport.pid;
  assert.deepEqual(await client.ping(), {});
  await client.close();
  assert.equal(alive(pid), false);
});

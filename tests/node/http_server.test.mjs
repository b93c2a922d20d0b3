// The Node Server over HTTP: `server.startHttp()` spoken to with raw `fetch` (sessions, JSON
// and SSE answers, notifications, errors, the DNS-rebinding guard, DELETE, resumption after
// `ctx.closeSseStream()`), with the official TypeScript SDK client (Streamable HTTP and
// legacy SSE, sampling and elicitation round trips), `server.httpHandler()` mounted in
// node:http and Express, many concurrent calls, options checking, and `server.run()` in a
// child process stopped by SIGTERM while a call is in flight. Loopback only, free ports.
//
// Run: node --test tests/node/

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Client, Server } from 'hypermcp';
import { within, sleep, startRedis } from './_helpers.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const PACKAGE = pathToFileURL(path.join(ROOT, 'bindings-node/js/index.mjs')).href;
const PEERS = process.env.HYPERMCP_PEERS || process.env.PEERS || path.join(ROOT, '.peers');
const REQUIRE_PEERS = process.env.HYPERMCP_REQUIRE_PEERS === '1';
const LATEST = '2025-11-25';

/** The server every test serves: sync and async tools, progress, logs, requests to the client. */
function makeServer(name = 'http-test') {
  const server = new Server({ name, version: '1.0.0' });
  server.tool(
    'echo',
    { description: 'Echo', inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } },
    ({ text }) => text,
  );
  server.tool('work', { description: 'Progress and logs', inputSchema: { type: 'object', properties: {} } }, async (_args, ctx) => {
    await ctx.reportProgress(1, 3, 'one');
    await ctx.info('halfway');
    await sleep(20);
    await ctx.reportProgress(2, 3, 'two');
    await ctx.warning({ note: 'almost' });
    await ctx.reportProgress(3, 3, 'three');
    return 'worked';
  });
  server.tool('slow', { description: 'Sleeps', inputSchema: { type: 'object', properties: { ms: { type: 'number' } } } }, async ({ ms }) => {
    await sleep(ms ?? 200);
    return `slept ${ms ?? 200}`;
  });
  server.tool('ask', { description: 'Samples then elicits', inputSchema: { type: 'object', properties: {} } }, async (_args, ctx) => {
    const sampled = await ctx.sample('What is the weather?', { maxTokens: 20 });
    const answer = await ctx.elicit('Your name?', { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] });
    return `${sampled.content.text} / ${answer.action}:${answer.content?.name}`;
  });
  server.tool('reconnect', { description: 'Closes its SSE stream', inputSchema: { type: 'object', properties: {} } }, async (_args, ctx) => {
    const closed = ctx.closeSseStream();
    await sleep(100);
    return `closed=${closed}`;
  });
  server.resource('test://hello', { name: 'hello', mimeType: 'text/plain' }, () => 'hello resource');
  server.prompt('greet', { description: 'Greets', arguments: [{ name: 'who', required: true }] }, ({ who }) => `Hello ${who}`);
  return server;
}

/** Splits SSE text into events `{id?, retry?, event?, data?}`. */
function parseSse(text) {
  const events = [];
  for (const block of text.split(/\n\n/)) {
    if (!block.trim()) continue;
    const ev = {};
    let any = false;
    for (const line of block.split('\n')) {
      if (line === '' || line.startsWith(':')) continue;
      any = true;
      const i = line.indexOf(':');
      const k = i < 0 ? line : line.slice(0, i);
      let v = i < 0 ? '' : line.slice(i + 1);
      if (v.startsWith(' ')) v = v.slice(1);
      if (k === 'data') ev.data = ev.data === undefined ? v : `${ev.data}\n${v}`;
      else ev[k] = v;
    }
    if (any) events.push(ev);
  }
  return events;
}

/** The JSON-RPC messages of an SSE text (events with data). */
const sseMessages = (text) => parseSse(text).filter((e) => e.data).map((e) => JSON.parse(e.data));

/** A raw Streamable HTTP client on fetch. */
class Raw {
  constructor(url) {
    this.url = url;
    this.sessionId = null;
    this.nextId = 1;
  }

  headers(extra = {}) {
    const h = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    if (this.sessionId) {
      h['mcp-session-id'] = this.sessionId;
      h['mcp-protocol-version'] = LATEST;
    }
    return { ...h, ...extra };
  }

  post(body, extra = {}) {
    return within(fetch(this.url, { method: 'POST', headers: this.headers(extra), body: JSON.stringify(body) }), 10_000, 'POST');
  }

  /** Sends a request; resolves `{status, type, messages, response}` (SSE or JSON). */
  async request(method, params, extra = {}) {
    const id = this.nextId++;
    const res = await this.post({ jsonrpc: '2.0', id, method, params }, extra);
    const type = res.headers.get('content-type') ?? '';
    const text = await within(res.text(), 10_000, 'the body');
    const messages = type.startsWith('text/event-stream') ? sseMessages(text) : text ? [JSON.parse(text)] : [];
    return { id, status: res.status, type, messages, text, res, response: messages.find((m) => m.id === id) };
  }

  async initialize(capabilities = {}) {
    const r = await this.request('initialize', { protocolVersion: LATEST, capabilities, clientInfo: { name: 'raw', version: '1' } });
    assert.equal(r.status, 200);
    this.sessionId = r.res.headers.get('mcp-session-id');
    const n = await this.post({ jsonrpc: '2.0', method: 'notifications/initialized' });
    assert.equal(n.status, 202);
    await n.arrayBuffer();
    return r;
  }
}

test('startHttp: initialize, JSON and SSE answers, notifications, errors, DELETE', async () => {
  const server = makeServer();
  const h = await server.startHttp({ port: 0 });
  try {
    assert.match(h.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    assert.equal(h.host, '127.0.0.1');
    assert.ok(h.port > 0);
    assert.equal(h.sseUrl, `http://127.0.0.1:${h.port}/sse`);
    const raw = new Raw(h.url);
    const init = await raw.initialize();
    assert.match(raw.sessionId ?? '', /^[0-9a-f]{32}$/);
    assert.equal(init.response.result.serverInfo.name, 'http-test');
    assert.equal(init.response.result.protocolVersion, LATEST);
    assert.equal(h.sessionCount, 1);

    // A sync handler: one JSON body.
    const echo = await raw.request('tools/call', { name: 'echo', arguments: { text: 'hi there' } });
    assert.equal(echo.status, 200);
    assert.match(echo.type, /^application\/json/);
    assert.deepEqual(echo.response.result.content, [{ type: 'text', text: 'hi there' }]);

    // Answered by the engine alone.
    const list = await raw.request('tools/list', {});
    assert.deepEqual(list.response.result.tools.map((t) => t.name).sort(), ['ask', 'echo', 'reconnect', 'slow', 'work']);
    const res = await raw.request('resources/read', { uri: 'test://hello' });
    assert.equal(res.response.result.contents[0].text, 'hello resource');
    const prompt = await raw.request('prompts/get', { name: 'greet', arguments: { who: 'Ada' } });
    assert.equal(prompt.response.result.messages[0].content.text, 'Hello Ada');

    // Progress and logs: an SSE stream with the events in order, then the answer.
    const setLevel = await raw.request('logging/setLevel', { level: 'debug' });
    assert.deepEqual(setLevel.response.result, {});
    const work = await raw.request('tools/call', { name: 'work', arguments: {}, _meta: { progressToken: 'tok' } });
    assert.equal(work.status, 200);
    assert.match(work.type, /^text\/event-stream/);
    const kinds = work.messages.map((m) =>
      m.method === 'notifications/progress' ? `p${m.params.progress}` : m.method === 'notifications/message' ? `l:${m.params.level}` : `r${m.id}`,
    );
    assert.deepEqual(kinds, ['p1', 'l:info', 'p2', 'l:warning', 'p3', `r${work.id}`]);
    assert.ok(work.messages.filter((m) => m.method === 'notifications/progress').every((m) => m.params.progressToken === 'tok'));
    assert.equal(work.response.result.content[0].text, 'worked');
    // Event ids on a resumable stream, with a priming event first.
    const events = parseSse(work.text);
    assert.ok(events[0].id && !events[0].data, 'priming event first');
    assert.ok(events.every((e) => e.id));

    // Unknown tool: a JSON-RPC error.
    const unknown = await raw.request('tools/call', { name: 'nope', arguments: {} });
    assert.equal(unknown.response.error.code, -32602);

    // Unknown session: 404.
    const lost = await raw.post({ jsonrpc: '2.0', id: 99, method: 'ping' }, { 'mcp-session-id': 'f'.repeat(32) });
    assert.equal(lost.status, 404);
    await lost.arrayBuffer();

    // A foreign Origin: 403 (DNS-rebinding protection), and no session made.
    const before = h.sessionCount;
    const evil = await within(
      fetch(h.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', origin: 'http://evil.example.com' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: LATEST, capabilities: {}, clientInfo: { name: 'e', version: '1' } } }),
      }),
    );
    assert.equal(evil.status, 403);
    await evil.arrayBuffer();
    assert.equal(h.sessionCount, before);

    // DELETE ends the session.
    const del = await within(fetch(h.url, { method: 'DELETE', headers: raw.headers() }));
    assert.equal(del.status, 200);
    await del.arrayBuffer();
    assert.equal(h.sessionCount, 0);
    const gone = await raw.post({ jsonrpc: '2.0', id: 100, method: 'ping' });
    assert.equal(gone.status, 404);
    await gone.arrayBuffer();
  } finally {
    await within(h.stop(), 15_000, 'stop');
  }
});

test('ctx.closeSseStream(): the client resumes with Last-Event-ID and gets the answer; false in memory', async () => {
  const server = makeServer();
  const h = await server.startHttp({ port: 0, retry: 50 });
  try {
    const raw = new Raw(h.url);
    await raw.initialize();
    const first = await raw.request('tools/call', { name: 'reconnect', arguments: {} });
    assert.match(first.type, /^text\/event-stream/);
    assert.equal(first.response, undefined, 'the stream closed before the answer');
    const events = parseSse(first.text);
    assert.ok(events.length >= 1 && events[0].id, 'a priming event with an id');
    assert.ok(events.some((e) => e.retry !== undefined), 'a retry hint');
    const last = events.filter((e) => e.id).at(-1).id;
    const resumed = await within(fetch(h.url, { headers: { ...raw.headers(), accept: 'text/event-stream', 'last-event-id': last } }));
    assert.equal(resumed.status, 200);
    const messages = sseMessages(await within(resumed.text(), 10_000, 'the resumed stream'));
    const answer = messages.find((m) => m.id === first.id);
    assert.equal(answer?.result.content[0].text, 'closed=true');
  } finally {
    await within(h.stop(), 15_000, 'stop');
  }
  const client = await Client.inMemory(makeServer());
  try {
    const r = await within(client.callTool('reconnect', {}));
    assert.equal(r.content[0].text, 'closed=false');
  } finally {
    await client.close();
  }
});

/** Reads an SSE response until `done(messages)` holds; then stops reading. */
async function readUntil(res, done, ms = 10_000) {
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  try {
    return await within(
      (async () => {
        for (;;) {
          const { value, done: end } = await reader.read();
          if (end) throw new Error(`the stream ended: ${text}`);
          text += decoder.decode(value, { stream: true });
          const messages = sseMessages(text.slice(0, text.lastIndexOf('\n\n') + 2));
          if (done(messages)) return messages;
        }
      })(),
      ms,
      'the SSE events',
    );
  } finally {
    await reader.cancel().catch(() => {});
  }
}

test('list changes and resource updates reach the standalone GET stream', async () => {
  const server = makeServer();
  const h = await server.startHttp({ port: 0 });
  try {
    const raw = new Raw(h.url);
    await raw.initialize();
    const sub = await raw.request('resources/subscribe', { uri: 'test://hello' });
    assert.deepEqual(sub.response.result, {});
    const get = await within(fetch(h.url, { headers: { ...raw.headers(), accept: 'text/event-stream' } }));
    assert.equal(get.status, 200);
    const reading = readUntil(get, (ms) => ms.some((m) => m.method === 'notifications/resources/updated') && ms.some((m) => m.method === 'notifications/tools/list_changed'));
    await sleep(50);
    server.tool('added', { inputSchema: { type: 'object', properties: {} } }, () => 'new');
    server.notifyResourceUpdated('test://hello');
    const messages = await reading;
    assert.equal(messages.find((m) => m.method === 'notifications/resources/updated').params.uri, 'test://hello');
    const added = await raw.request('tools/call', { name: 'added', arguments: {} });
    assert.equal(added.response.result.content[0].text, 'new');
  } finally {
    await within(h.stop(), 15_000, 'stop');
  }
});

test('idle sessions get no connection until their first call; notifications and resource updates reach them', async () => {
  const server = makeServer();
  const seen = [];
  server.onNotification('notifications/roots/list_changed', () => {
    throw new Error('callback failed');
  });
  server.onNotification('notifications/custom/thing', (params) => seen.push(params));
  const warnings = [];
  const onWarning = (w) => warnings.push(w.message);
  process.on('warning', onWarning);
  // Two hosts of one server: a resource update reaches the sessions of both, once each.
  const h1 = await server.startHttp({ port: 0 });
  const h2 = await server.startHttp({ port: 0 });
  try {
    // 2025-03-26 takes JSON-RPC batches: two notifications reach the loop as one.
    const old = new Raw(h1.url);
    const init = await old.request('initialize', { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'raw', version: '1' } });
    old.sessionId = init.res.headers.get('mcp-session-id');
    const v = { 'mcp-protocol-version': '2025-03-26' };
    const initialized = await old.post({ jsonrpc: '2.0', method: 'notifications/initialized' }, v);
    assert.equal(initialized.status, 202);
    await initialized.arrayBuffer();
    const a = new Raw(h1.url);
    await a.initialize();
    const b = new Raw(h2.url);
    await b.initialize();
    const batch = [
      { jsonrpc: '2.0', method: 'notifications/roots/list_changed' },
      { jsonrpc: '2.0', method: 'notifications/custom/thing', params: { a: 1 } },
    ];
    const sent = await old.post(batch, v);
    assert.equal(sent.status, 202);
    await sent.arrayBuffer();
    // The callbacks ran without a connection, the failing one reported without losing the
    // other; the loops have seen every session's events by now.
    await within(
      (async () => {
        while (!(seen.length === 1 && warnings.some((m) => m.includes('callback failed')))) await sleep(5);
      })(),
    );
    assert.deepEqual(seen, [{ a: 1 }]);
    assert.equal(h1._host._conns.size, 0);
    assert.equal(h2._host._conns.size, 0);
    assert.equal(h1.sessionCount + h2.sessionCount, 3);

    // A call gets its session a connection.
    const echo = await old.request('tools/call', { name: 'echo', arguments: { text: 'hi' } }, v);
    assert.equal(echo.response.result.content[0].text, 'hi');
    assert.equal((await a.request('tools/call', { name: 'echo', arguments: { text: 'hi' } })).response.result.content[0].text, 'hi');
    assert.equal(h1._host._conns.size, 2);

    // `a` has a connection, `b` none (subscribing is answered natively).
    const streams = [];
    for (const raw of [a, b]) {
      assert.deepEqual((await raw.request('resources/subscribe', { uri: 'test://hello' })).response.result, {});
      const get = await within(fetch(raw.url, { headers: { ...raw.headers(), accept: 'text/event-stream' } }));
      assert.equal(get.status, 200);
      streams.push(readUntil(get, (ms) => ms.some((m) => m.method === 'notifications/tools/list_changed')));
    }
    assert.equal(h2._host._conns.size, 0);
    await sleep(50);
    server.notifyResourceUpdated('test://hello');
    // A list change after it: when it arrives, every update (and any duplicate) came before.
    server.tool('added', { inputSchema: { type: 'object', properties: {} } }, () => 'new');
    for (const messages of await Promise.all(streams)) {
      const updates = messages.filter((m) => m.method === 'notifications/resources/updated');
      assert.deepEqual(updates.map((m) => m.params), [{ uri: 'test://hello' }]);
    }

    // Closing ends a connection; a session without one closes as well.
    for (const raw of [old, b]) {
      const del = await within(fetch(raw.url, { method: 'DELETE', headers: raw.headers(raw === old ? v : {}) }));
      assert.equal(del.status, 200);
      await del.arrayBuffer();
    }
    await within(
      (async () => {
        while (h1._host._conns.size !== 1) await sleep(5);
      })(),
    );
    assert.equal(h1.sessionCount + h2.sessionCount, 1);
  } finally {
    process.removeListener('warning', onWarning);
    await within(h1.stop(), 15_000, 'stop');
    await within(h2.stop(), 15_000, 'stop');
  }
  // A stopped host no longer takes resource updates for the server.
  assert.equal(server._connections.size, 0);
});

test('stateless and jsonResponse modes; the lifespan runs while serving', async () => {
  const seen = [];
  const server = new Server({
    name: 'modes',
    version: '1',
    lifespan: async () => {
      seen.push('open');
      return { context: { n: 7 }, close: () => seen.push('close') };
    },
  });
  server.tool('n', { inputSchema: { type: 'object', properties: {} } }, (_a, ctx) => String(ctx.server.lifespanContext?.n));
  server.tool('p', { inputSchema: { type: 'object', properties: {} } }, async (_a, ctx) => {
    await ctx.reportProgress(1, 1);
    return 'p';
  });
  const h = await server.startHttp({ port: 0, stateless: true, jsonResponse: true });
  try {
    assert.deepEqual(seen, ['open']);
    const raw = new Raw(h.url);
    const r = await raw.request('tools/call', { name: 'n', arguments: {} });
    assert.equal(r.status, 200);
    assert.equal(r.res.headers.get('mcp-session-id'), null);
    assert.equal(r.response.result.content[0].text, '7');
    const p = await raw.request('tools/call', { name: 'p', arguments: {}, _meta: { progressToken: 1 } });
    assert.match(p.type, /^application\/json/);
    assert.equal(p.response.result.content[0].text, 'p');
    const get = await within(fetch(h.url, { headers: { accept: 'text/event-stream' } }));
    assert.equal(get.status, 405);
    await get.arrayBuffer();
  } finally {
    await within(h.stop(), 15_000, 'stop');
  }
  assert.deepEqual(seen, ['open', 'close']);
});

test('identifyInResults: false: 2026-07-28 results carry no serverInfo, server/discover still does', async () => {
  const meta = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': {},
  };
  const calls = [
    ['server/discover', {}],
    ['tools/list', {}],
    ['tools/call', { name: 'echo', arguments: { text: 'hi' } }],
    ['resources/read', { uri: 'test://hello' }],
  ];
  for (const identify of [true, false]) {
    const named = new Server({ name: 'http-test', version: '1.0.0', identifyInResults: identify });
    named.tool('echo', { inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }, ({ text }) => text);
    named.resource('test://hello', { name: 'hello', mimeType: 'text/plain' }, () => 'hello resource');
    const h = await named.startHttp({ port: 0 });
    try {
      for (const [i, [method, params]] of calls.entries()) {
        const headers = {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': method,
        };
        const name = params.name ?? params.uri;
        if (name) headers['mcp-name'] = name;
        const body = JSON.stringify({ jsonrpc: '2.0', id: i, method, params: { ...params, _meta: meta } });
        const res = await within(fetch(h.url, { method: 'POST', headers, body }));
        const text = await res.text();
        assert.equal(res.status, 200, text);
        const json = text.startsWith('{') ? text : text.split('\n').filter((l) => l.startsWith('data:')).at(-1).slice(5);
        const { result } = JSON.parse(json);
        assert.equal(result.resultType, 'complete', text);
        const wanted = identify || method === 'server/discover' ? { name: 'http-test', version: '1.0.0' } : undefined;
        assert.deepEqual(result._meta?.['io.modelcontextprotocol/serverInfo'], wanted, `${identify} ${method}: ${text}`);
      }
    } finally {
      await within(h.stop(), 15_000, 'stop');
    }
  }
});

test('2026-07-28 calls each see their own client (contexts shared by equal _meta are frozen), inputs too', async () => {
  const server = new Server({ name: 'ctx-test', version: '1.0.0' });
  const seen = [];
  server.tool('who', { inputSchema: { type: 'object' } }, (_args, ctx) => {
    const caps = ctx.clientCapabilities;
    // The context a call sees may be shared with other calls of the same _meta: read-only.
    assert.throws(() => { caps.sampling = {}; }, TypeError);
    assert.throws(() => { ctx.clientInfo.name = 'changed'; }, TypeError);
    seen.push(ctx.clientInfo.name);
    return `${ctx.clientInfo.name} ${ctx.protocolVersion} ${Object.keys(caps).join(',') || '-'}`;
  });
  const shared = [];
  server.tool('ask', { inputSchema: { type: 'object' } }, async (_args, ctx) => {
    shared.push(Object.isFrozen(ctx.clientCapabilities));
    const r = await ctx.elicit('Name?', { type: 'object', properties: { name: { type: 'string' } } });
    return `hello ${r.content.name}`;
  });
  const h = await server.startHttp({ port: 0 });
  const call = async (id, name, client, caps, extra = {}) => {
    const meta = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientCapabilities': caps,
      'io.modelcontextprotocol/clientInfo': { name: client, version: '1' },
    };
    const headers = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': name,
    };
    const body = JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {}, ...extra, _meta: meta } });
    const text = await (await within(fetch(h.url, { method: 'POST', headers, body }))).text();
    const json = text.startsWith('{') ? text : text.split('\n').filter((l) => l.startsWith('data:')).at(-1).slice(5);
    return JSON.parse(json).result;
  };
  try {
    // Alternating clients, each many times, some at once: every call sees its own.
    const clients = [['a', {}], ['b', { elicitation: {} }], ['a', {}], ['c', { roots: {} }]];
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) => call(i, 'who', clients[i % 4][0], clients[i % 4][1])),
    );
    results.forEach((r, i) => {
      const [name, caps] = clients[i % 4];
      assert.equal(r.content[0].text, `${name} 2026-07-28 ${Object.keys(caps).join(',') || '-'}`, `call ${i}`);
    });
    assert.equal(seen.length, 40);
    // An MRTR retry's context carries its inputs (a context of its own), then plain calls
    // of the same _meta see none.
    const caps = { elicitation: {} };
    const first = await call(100, 'ask', 'b', caps);
    assert.equal(first.resultType, 'input_required');
    const [key] = Object.keys(first.inputRequests);
    const done = await call(101, 'ask', 'b', caps, {
      inputResponses: { [key]: { action: 'accept', content: { name: 'Ada' } } },
      requestState: first.requestState,
    });
    assert.equal(done.content[0].text, 'hello Ada');
    // The first attempt's context is shared (frozen); the retry's, which holds the client's
    // answers, is its own and kept by no one.
    assert.deepEqual(shared, [true, false]);
    assert.equal((await call(102, 'who', 'b', caps)).content[0].text, 'b 2026-07-28 elicitation');
  } finally {
    await within(h.stop(), 15_000, 'stop');
  }
});

test('HTTP options are checked: unknown names and wrong types are TypeErrors', async () => {
  const server = makeServer();
  await assert.rejects(server.startHttp({ port: 0, jsonResponses: true }), TypeError);
  await assert.rejects(server.startHttp({ port: 0, keepAlive: '1s' }), TypeError);
  await assert.rejects(server.startHttp({ port: 0, allowedHosts: 'localhost' }), TypeError);
  await assert.rejects(server.startHttp({ port: 70000 }), TypeError);
  await assert.rejects(server.run({ transport: 'http', port: 0, stdin: process.stdin }), TypeError);
  await assert.rejects(server.run({ transport: 'carrier-pigeon' }), TypeError);
  assert.throws(() => server.httpHandler({ maxbody: 1 }), TypeError);
  // A port in use.
  const h = await server.startHttp({ port: 0 });
  try {
    await assert.rejects(makeServer().startHttp({ port: h.port }), (err) => err.code === 'EADDRINUSE');
  } finally {
    await h.stop();
  }
});

test('many concurrent calls are all answered (500 calls over 20 concurrent fetches), with no flush of bytes Node never writes', async () => {
  const server = makeServer();
  // The engine writes an HTTP session's answers and runs its timers: a call costs no native
  // takeOutput or nextTimeout (stdio connections flush with them; HTTP ones have nothing to take).
  const proto = server._native.ServerSession.prototype;
  const saved = { takeOutput: proto.takeOutput, nextTimeout: proto.nextTimeout };
  let flushes = 0;
  for (const [name, fn] of Object.entries(saved)) {
    proto[name] = function (/** @type {any[]} */ ...a) {
      flushes += 1;
      return fn.apply(this, a);
    };
  }
  let running = 0;
  let peak = 0;
  server.tool('later', { inputSchema: { type: 'object', properties: { n: { type: 'number' } } } }, async ({ n }) => {
    running += 1;
    peak = Math.max(peak, running);
    await sleep(1);
    running -= 1;
    return `n=${n}`;
  });
  const h = await server.startHttp({ port: 0 });
  try {
    const raw = new Raw(h.url);
    await raw.initialize();
    let next = 0;
    const answers = new Map();
    const worker = async () => {
      while (next < 500) {
        const n = next++;
        const tool = n % 2 ? 'echo' : 'later';
        const args = n % 2 ? { text: `t${n}` } : { n };
        const r = await raw.request('tools/call', { name: tool, arguments: args });
        answers.set(n, r.response?.result?.content?.[0]?.text);
      }
    };
    await within(Promise.all(Array.from({ length: 20 }, worker)), 60_000, '500 calls');
    assert.equal(answers.size, 500);
    for (let n = 0; n < 500; n++) assert.equal(answers.get(n), n % 2 ? `t${n}` : `n=${n}`);
    assert.ok(peak > 1, `calls ran concurrently (peak ${peak})`);
    assert.equal(flushes, 0, 'native takeOutput/nextTimeout calls for HTTP sessions');
  } finally {
    Object.assign(proto, saved);
    await within(h.stop(), 15_000, 'stop');
  }
});

/** Whether a peer package is installed (else the test is skipped, or fails when required). */
function needPeer(t, rel, what) {
  const file = path.join(PEERS, 'npm/node_modules', rel, 'package.json');
  if (existsSync(file)) return true;
  const msg = `${what} not found at ${file} (run tests/interop/setup_peers.sh)`;
  if (REQUIRE_PEERS) assert.fail(msg);
  t.skip(msg);
  return false;
}

async function importPeer(spec) {
  process.env.PEERS ??= PEERS;
  const { importPeer: imp } = await import('../interop/peer_import.mjs');
  return imp(spec);
}

test('the official TypeScript SDK client: tools, progress, sampling and elicitation; legacy SSE too', async (t) => {
  if (!needPeer(t, '@modelcontextprotocol/sdk', 'the TypeScript SDK')) return;
  const { Client: SdkClient } = await importPeer('@modelcontextprotocol/sdk/client/index.js');
  const { StreamableHTTPClientTransport } = await importPeer('@modelcontextprotocol/sdk/client/streamableHttp.js');
  const { SSEClientTransport } = await importPeer('@modelcontextprotocol/sdk/client/sse.js');
  const { CreateMessageRequestSchema, ElicitRequestSchema } = await importPeer('@modelcontextprotocol/sdk/types.js');
  const server = makeServer();
  const h = await server.startHttp({ port: 0 });
  const sdkClient = () => {
    const c = new SdkClient({ name: 'sdk', version: '1' }, { capabilities: { sampling: {}, elicitation: {} } });
    c.setRequestHandler(CreateMessageRequestSchema, async (req) => ({
      role: 'assistant',
      model: 'test-model',
      content: { type: 'text', text: `sampled(${req.params.messages[0].content.text})` },
    }));
    c.setRequestHandler(ElicitRequestSchema, async (req) => ({ action: 'accept', content: { name: `Ada (${req.params.message})` } }));
    return c;
  };
  try {
    const client = sdkClient();
    const transport = new StreamableHTTPClientTransport(new URL(h.url));
    await within(client.connect(transport), 10_000, 'connect');
    try {
      assert.equal(client.getServerVersion()?.name, 'http-test');
      const { tools } = await within(client.listTools());
      assert.ok(tools.some((x) => x.name === 'echo'));
      const echo = await within(client.callTool({ name: 'echo', arguments: { text: 'from the SDK' } }));
      assert.deepEqual(echo.content, [{ type: 'text', text: 'from the SDK' }]);
      const progress = [];
      const work = await within(client.callTool({ name: 'work', arguments: {} }, undefined, { onprogress: (p) => progress.push(p.progress) }));
      assert.equal(work.content[0].text, 'worked');
      assert.deepEqual(progress, [1, 2, 3]);
      const ask = await within(client.callTool({ name: 'ask', arguments: {} }));
      assert.equal(ask.content[0].text, 'sampled(What is the weather?) / accept:Ada (Your name?)');
      const resumed = await within(client.callTool({ name: 'reconnect', arguments: {} }), 15_000, 'reconnect');
      assert.equal(resumed.content[0].text, 'closed=true');
      await within(transport.terminateSession());
      assert.equal(h.sessionCount, 0);
    } finally {
      await client.close();
    }

    // The legacy HTTP+SSE transport of the same server.
    const legacy = sdkClient();
    await within(legacy.connect(new SSEClientTransport(new URL(h.sseUrl))), 10_000, 'connect over SSE');
    try {
      const echo = await within(legacy.callTool({ name: 'echo', arguments: { text: 'over sse' } }));
      assert.equal(echo.content[0].text, 'over sse');
      const ask = await within(legacy.callTool({ name: 'ask', arguments: {} }));
      assert.match(ask.content[0].text, /^sampled\(What is the weather\?\) \/ accept:Ada/);
    } finally {
      await legacy.close();
    }
  } finally {
    await within(h.stop(), 15_000, 'stop');
  }
});

/** Listens on a free loopback port; resolves the base URL. */
function listen(srv) {
  return new Promise((resolve, reject) => {
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${srv.address().port}`));
  });
}

const closeServer = (srv) => new Promise((resolve) => {
  srv.closeAllConnections?.();
  srv.close(() => resolve());
});

test('httpHandler in a plain node:http server: JSON, SSE, 404 elsewhere, an aborted stream is released', async () => {
  const server = makeServer();
  const handler = server.httpHandler();
  const srv = http.createServer(handler);
  const base = await listen(srv);
  try {
    const raw = new Raw(`${base}/mcp`);
    await raw.initialize();
    assert.equal(handler.sessionCount, 1);
    const echo = await raw.request('tools/call', { name: 'echo', arguments: { text: 'via handler' } });
    assert.equal(echo.status, 200);
    assert.equal(echo.res.headers.get('content-length'), String(Buffer.byteLength(echo.text)));
    assert.equal(echo.response.result.content[0].text, 'via handler');
    const work = await raw.request('tools/call', { name: 'work', arguments: {}, _meta: { progressToken: 5 } });
    assert.match(work.type, /^text\/event-stream/);
    assert.equal(work.messages.filter((m) => m.method === 'notifications/progress').length, 3);
    assert.equal(work.response.result.content[0].text, 'worked');
    const big = await within(fetch(`${base}/mcp`, { method: 'POST', headers: raw.headers(), body: 'x'.repeat(5 * 1024 * 1024) }));
    assert.equal(big.status, 413);
    await big.arrayBuffer();
    const other = await within(fetch(`${base}/elsewhere`));
    assert.equal(other.status, 404);
    await other.arrayBuffer();

    // The standalone GET stream: one per session (409 while open); closing it frees it.
    const ac = new AbortController();
    const get = await within(fetch(`${base}/mcp`, { headers: { ...raw.headers(), accept: 'text/event-stream' }, signal: ac.signal }));
    assert.equal(get.status, 200);
    assert.match(get.headers.get('content-type') ?? '', /^text\/event-stream/);
    const second = await within(fetch(`${base}/mcp`, { headers: { ...raw.headers(), accept: 'text/event-stream' } }));
    assert.equal(second.status, 409);
    await second.arrayBuffer();
    ac.abort();
    let again;
    for (let i = 0; i < 50; i++) {
      await sleep(20);
      const ac2 = new AbortController();
      const r = await within(fetch(`${base}/mcp`, { headers: { ...raw.headers(), accept: 'text/event-stream' }, signal: ac2.signal }));
      if (r.status === 200) {
        again = r.status;
        ac2.abort();
        break;
      }
      await r.arrayBuffer();
    }
    assert.equal(again, 200, 'a new GET stream once the aborted one was released');
  } finally {
    await handler.close();
    await closeServer(srv);
  }
});

test('httpHandler in Express: after a JSON body parser, mounted with app.use, next() for other paths', async (t) => {
  if (!needPeer(t, 'express', 'express')) return;
  const { default: express } = await importPeer('express');
  const server = makeServer();
  const handler = server.httpHandler();
  const app = express();
  app.use(express.json());
  app.all('/mcp', handler);
  app.use('/mounted', handler);
  app.use(handler);
  app.get('/hello', (_req, res) => res.send('express hello'));
  const srv = http.createServer(app);
  const base = await listen(srv);
  try {
    for (const url of [`${base}/mcp`, `${base}/mounted`]) {
      const raw = new Raw(url);
      await raw.initialize();
      const echo = await raw.request('tools/call', { name: 'echo', arguments: { text: `express ${url}` } });
      assert.equal(echo.response.result.content[0].text, `express ${url}`);
      const work = await raw.request('tools/call', { name: 'work', arguments: {}, _meta: { progressToken: 2 } });
      assert.equal(work.response.result.content[0].text, 'worked');
      assert.equal(work.messages.filter((m) => m.method === 'notifications/progress').length, 3);
    }
    const hello = await within(fetch(`${base}/hello`));
    assert.equal(await hello.text(), 'express hello');
    assert.equal(handler.sessionCount, 2);
  } finally {
    await handler.close();
    await closeServer(srv);
  }
});

/** A child process whose stderr is watched: `waitFor(re)` resolves with the first match. */
function spawnWatched(args) {
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  const state = { child, stderr: '' };
  const waiters = [];
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (c) => {
    state.stderr += c;
    for (const w of waiters.splice(0)) w();
  });
  child.stdout.resume();
  state.exited = new Promise((resolve) => child.once('close', (code, signal) => resolve({ code, signal })));
  state.waitFor = (re) =>
    within(
      (async () => {
        while (!re.test(state.stderr)) await new Promise((r) => waiters.push(r));
        return state.stderr.match(re);
      })(),
      10_000,
      `stderr matching ${re}`,
    );
  return state;
}

test('server.run({transport: "http"}) in a child process: SIGTERM lets the call in flight finish, then exits 0', async () => {
  const script = `
    import { Server } from ${JSON.stringify(PACKAGE)};
    const server = new Server({ name: 'sigterm', version: '1' });
    server.tool('slow', { inputSchema: { type: 'object', properties: {} } }, async () => {
      process.stderr.write('started\\n');
      await new Promise((r) => setTimeout(r, 400));
      return 'finished';
    });
    await server.run({ transport: 'http', port: 0 });
    process.stderr.write('run resolved\\n');
  `;
  const p = spawnWatched(['--input-type=module', '-e', script]);
  try {
    const m = await p.waitFor(/hypermcp: sigterm serving on (http:\/\/\S+)\n/);
    const raw = new Raw(m[1]);
    await raw.initialize();
    const call = raw.request('tools/call', { name: 'slow', arguments: {} });
    await p.waitFor(/started\n/);
    p.child.kill('SIGTERM');
    const r = await call;
    assert.equal(r.response?.result?.content?.[0]?.text, 'finished');
    const { code, signal } = await within(p.exited, 15_000, 'the exit');
    assert.equal(signal, null, p.stderr);
    assert.equal(code, 0, p.stderr);
    assert.match(p.stderr, /run resolved/);
  } finally {
    p.child.kill('SIGKILL');
  }
});

test('examples serve HTTP: echo_server.mjs --http, weather_server.mjs --http, http_app.mjs', async () => {
  for (const [file, tool, args, expect] of [
    ['echo_server.mjs', 'echo', { text: 'over http' }, 'over http'],
    ['weather_server.mjs', 'forecast', { city: 'paris', days: 1 }, /Paris/],
    ['http_app.mjs', 'add', { a: 2, b: 3 }, '5'],
  ]) {
    const p = spawnWatched([path.join(ROOT, 'examples/node', file), ...(file === 'http_app.mjs' ? ['0'] : ['--http', '0'])]);
    try {
      const m = await p.waitFor(/serving on (http:\/\/\S+)\n/);
      const raw = new Raw(m[1]);
      await raw.initialize();
      const r = await raw.request('tools/call', { name: tool, arguments: args });
      const text = r.response?.result?.content?.[0]?.text ?? JSON.stringify(r.messages);
      if (typeof expect === 'string') assert.equal(text, expect, file);
      else assert.match(text, expect, file);
      if (file === 'http_app.mjs') {
        const health = await within(fetch(new URL('/health', m[1])));
        assert.deepEqual(await health.json(), { ok: true, sessions: 1 });
      }
      p.child.kill('SIGTERM');
      const { code } = await within(p.exited, 15_000, `${file} exit`);
      assert.equal(code, 0, `${file}: ${p.stderr}`);
    } finally {
      p.child.kill('SIGKILL');
    }
  }
});

test('startHttp serves HTTPS from a certificate and key file', async () => {
  const { execFileSync } = await import('node:child_process');
  const { mkdtempSync, writeFileSync, rmSync } = await import('node:fs');
  const os = await import('node:os');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'hypermcp-tls-'));
  try {
    const f = (n) => path.join(dir, n);
    writeFileSync(f('ext'), 'subjectAltName=DNS:localhost,IP:127.0.0.1\n');
    const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
    const openssl = (...args) => execFileSync('openssl', args, { stdio: 'pipe' });
    openssl('req', '-x509', ...ec, '-keyout', f('ca.key'), '-out', f('ca.pem'), '-days', '2', '-subj', '/CN=hypermcp test CA');
    openssl('req', ...ec, '-keyout', f('key.pem'), '-out', f('c.csr'), '-subj', '/CN=localhost');
    openssl('x509', '-req', '-in', f('c.csr'), '-CA', f('ca.pem'), '-CAkey', f('ca.key'), '-CAcreateserial',
      '-out', f('cert.pem'), '-extfile', f('ext'));
    const server = new Server({ name: 'tls', version: '1.0.0' });
    server.tool('echo', 'Echo', { type: 'object', properties: { text: { type: 'string' } } }, ({ text }) => text);
    await assert.rejects(server.startHttp({ port: 0, tlsCert: f('cert.pem') }), /both tls_cert and tls_key/);
    await assert.rejects(server.startHttp({ port: 0, tlsCert: f('missing.pem'), tlsKey: f('key.pem') }), /cannot read the TLS file/);
    const running = await server.startHttp({ port: 0, tlsCert: f('cert.pem'), tlsKey: f('key.pem') });
    try {
      assert.match(running.url, /^https:\/\/127\.0\.0\.1:\d+\/mcp$/);
      const client = await within(Client.http(running.url, { caFile: f('ca.pem') }));
      const r = await within(client.callTool('echo', { text: 'over tls' }));
      assert.equal(r.content[0].text, 'over tls');
      await client.close();
      // Without the CA the certificate is not trusted, in clear words.
      await assert.rejects(Client.http(running.url), /not trusted/);
    } finally {
      await running.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the auth option makes an OAuth resource server', async () => {
  const server = new Server({ name: 'rs', version: '1.0.0' });
  server.tool('echo', 'Echo', { type: 'object', properties: { text: { type: 'string' } } }, ({ text }) => text);
  await assert.rejects(
    server.startHttp({ port: 0, auth: { resource: 'https://mcp.test/mcp', authorizationServers: ['https://as.test'] } }),
    /jwksUri|jwks_uri/,
  );
  const running = await server.startHttp({
    port: 0,
    auth: {
      resource: 'https://mcp.test/mcp',
      authorizationServers: ['https://as.test'],
      jwksUri: 'https://as.test/jwks',
      requiredScopes: ['mcp:tools'],
    },
  });
  try {
    const base = running.url.slice(0, -running.path.length);
    const doc = await (await fetch(`${base}/.well-known/oauth-protected-resource/mcp`)).json();
    assert.equal(doc.resource, 'https://mcp.test/mcp');
    assert.deepEqual(doc.authorization_servers, ['https://as.test']);
    const r = await fetch(running.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    assert.equal(r.status, 401);
    assert.match(r.headers.get('www-authenticate') ?? '', /^Bearer resource_metadata="https:\/\/mcp\.test\/\.well-known\/oauth-protected-resource\/mcp", scope="mcp:tools"/);
  } finally {
    await running.stop();
  }
});

test('each call reads its own request: origins are held natively and read on first use, during or after the handler', async () => {
  const server = new Server({ name: 'origins', version: '1.0.0' });
  /** @type {Map<string, import('hypermcp').Context>} */
  const kept = new Map();
  server.tool('mark', { description: 'keeps its ctx', inputSchema: { type: 'object', properties: { n: { type: 'string' } } } }, (args, ctx) => {
    const n = String(args.n);
    kept.set(n, ctx);
    // Every other call reads its headers while it runs; the rest only after it returned.
    return Number(n) % 2 === 0 ? ctx.headers.get('x-n') : 'later';
  });
  const running = await server.startHttp({ port: 0, stateless: true, jsonResponse: true });
  try {
    const call = async (/** @type {number} */ n) => {
      const r = await fetch(running.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': LATEST, 'x-n': String(n) },
        body: JSON.stringify({ jsonrpc: '2.0', id: n, method: 'tools/call', params: { name: 'mark', arguments: { n: String(n) } } }),
      });
      return /** @type {any} */ (await r.json()).result.content[0].text;
    };
    // 40 at once: the I/O thread hands them over in batches, each call naming its origin by
    // its place in its batch.
    const texts = await within(Promise.all(Array.from({ length: 40 }, (_, n) => call(n))));
    texts.forEach((t, n) => assert.equal(t, n % 2 === 0 ? String(n) : 'later', `call ${n}`));
    // After the handlers returned, and after later polls took other origins: still their own.
    await within(call(100));
    for (let n = 0; n < 40; n++) {
      const ctx = /** @type {import('hypermcp').Context} */ (kept.get(String(n)));
      assert.equal(ctx.headers.get('x-n'), String(n), `call ${n}`);
      assert.equal(ctx.sessionId, null);
      assert.equal(ctx.auth, null);
    }
  } finally {
    await running.stop();
  }
});

test('handlers see the request (ctx.auth, ctx.headers, ctx.sessionId); entries need their scopes; the app verifies tokens', async () => {
  /** @type {string[]} */
  const seen = [];
  const verify = async (/** @type {string} */ token) => {
    seen.push(token);
    await sleep(1);
    if (token === 'user') return { sub: 'alice', client_id: 'app', scope: 'mcp:tools', tenant: 't1' };
    if (token === 'admin') return { sub: 'root', scope: 'mcp:tools mcp:admin' };
    if (token === 'boom') throw new Error('this token was revoked');
    return null;
  };
  const server = new Server({ name: 'scoped', version: '1.0.0' });
  server.tool('whoami', { description: 'who' }, (_args, ctx) => ({
    subject: ctx.auth?.subject,
    clientId: ctx.auth?.clientId,
    scopes: ctx.auth?.scopes,
    tenant: ctx.auth?.claims.tenant,
    custom: ctx.headers.get('X-Custom'),
    hasAuthorization: ctx.headers.has('authorization'),
    session: ctx.sessionId,
  }));
  server.tool('admin', { scopes: ['mcp:admin'] }, () => 'admin done');
  server.resource('secret://{name}', { scopes: 'mcp:admin' }, (url) => `secret ${url}`);
  server.prompt('audit', { scopes: ['mcp:admin'] }, () => 'audit');
  assert.throws(() => server.tool('bad', { scopes: ['has space'] }, () => 'x'), /scope name/);
  const auth = { resource: 'https://mcp.test/mcp', authorizationServers: ['https://as.test'], requiredScopes: ['mcp:tools'], verify };
  await assert.rejects(server.startHttp({ port: 0, auth: { ...auth, verify: /** @type {any} */ ('nope') } }), /expected a function/);
  const running = await server.startHttp({ port: 0, auth });
  try {
    const client = await within(Client.http(running.url, { headers: { Authorization: 'Bearer user', 'X-Custom': 'yes' }, mode: 'legacy' }));
    try {
      const r = await within(client.callTool('whoami', {}));
      const got = JSON.parse(r.content[0].text);
      assert.equal(got.subject, 'alice');
      assert.equal(got.clientId, 'app');
      assert.deepEqual(got.scopes, ['mcp:tools']);
      assert.equal(got.tenant, 't1');
      assert.equal(got.custom, 'yes');
      assert.equal(got.hasAuthorization, false);
      assert.ok(typeof got.session === 'string' && got.session.length > 8, JSON.stringify(got));
      await assert.rejects(within(client.callTool('admin', {})), /403/);
    } finally {
      await client.close();
    }
    assert.ok(seen.includes('user'));
    const post = async (/** @type {string} */ token, /** @type {string} */ method, /** @type {object} */ params) => {
      const r = await fetch(running.url, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      });
      await r.arrayBuffer();
      return { status: r.status, www: r.headers.get('www-authenticate') ?? '' };
    };
    for (const [method, params] of /** @type {const} */ ([
      ['tools/call', { name: 'admin', arguments: {} }],
      ['resources/read', { uri: 'secret://plans' }],
      ['prompts/get', { name: 'audit' }],
    ])) {
      const { status, www } = await post('user', method, params);
      assert.equal(status, 403, method);
      assert.match(www, /error="insufficient_scope"/);
      assert.match(www, /scope="mcp:tools mcp:admin"/);
    }
    let r = await post('nobody', 'tools/list', {});
    assert.equal(r.status, 401);
    assert.match(r.www, /error="invalid_token"/);
    r = await post('boom', 'tools/list', {});
    assert.equal(r.status, 401);
    assert.match(r.www, /this token was revoked/);
    const admin = await within(Client.http(running.url, { headers: { Authorization: 'Bearer admin' }, mode: 'legacy' }));
    try {
      const res = await within(admin.callTool('admin', {}));
      assert.equal(res.content[0].text, 'admin done');
    } finally {
      await admin.close();
    }
  } finally {
    await running.stop();
  }
});

test('store: unreachable at start is a clear error; two servers sharing Redis serve one session', async (t) => {
  await assert.rejects(makeServer().startHttp({ port: 0, store: 'redis://127.0.0.1:1/0' }), /cannot reach Redis at redis:\/\/127\.0\.0\.1:1\/0/);
  const redis = await startRedis(t);
  if (!redis) return;
  const a = await makeServer().startHttp({ port: 0, store: redis.url });
  const b = await makeServer().startHttp({ port: 0, store: redis.url });
  try {
    // initialize on A, the rest on B (which never saw the session).
    const onA = new Raw(a.url);
    const init = await onA.request('initialize', { protocolVersion: LATEST, capabilities: {}, clientInfo: { name: 'raw', version: '1' } });
    const onB = new Raw(b.url);
    onB.sessionId = init.res.headers.get('mcp-session-id');
    const n = await onB.post({ jsonrpc: '2.0', method: 'notifications/initialized' });
    assert.equal(n.status, 202);
    await n.arrayBuffer();
    const echo = await onB.request('tools/call', { name: 'echo', arguments: { text: 'through b' } });
    assert.deepEqual(echo.response.result.content, [{ type: 'text', text: 'through b' }]);
    // DELETE through B ends it on A too.
    const del = await within(fetch(b.url, { method: 'DELETE', headers: onB.headers() }), 10_000, 'DELETE');
    assert.equal(del.status, 200);
    for (let i = 0; i < 500 && a.sessionCount > 0; i++) await sleep(10);
    assert.equal(a.sessionCount, 0);
  } finally {
    await a.stop();
    await b.stop();
    redis.proc.kill();
  }
});

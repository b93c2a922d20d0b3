// The built-in middleware from Node (FastMCP's names, run by the engine): the rate limit (a
// client's bucket, a tool's own, sessions apart or one for all, the retry hint, buckets shared
// by two servers through a real Redis, refusals that never reach JavaScript), the timing
// histograms and the request log line; bad options refused with the option named.
// Run: node --test tests/node/

import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  Client,
  LoggingMiddleware,
  OptionError,
  RateLimited,
  RateLimitingMiddleware,
  Server,
  TimingMiddleware,
  metricsText,
  setLogger,
} from 'hypermcp';
import { within, sleep, startRedis } from './_helpers.mjs';

function tools(...middleware) {
  const server = new Server({ name: 'limited', version: '1.0.0', middleware });
  server.tool('echo', () => 'ok');
  server.tool('search', () => 'found');
  return server;
}

for (const mode of ['modern', 'legacy']) {
  test(`a bucket refuses past its burst with a retry hint (${mode})`, async () => {
    let seen = 0;
    const counter = { onCallTool: (c, next) => ((seen += 1), next(c)) };
    // A call refused by the tool's bucket still spent one of the client's.
    const server = tools(new RateLimitingMiddleware({ maxRequestsPerSecond: 0.001, burstCapacity: 3, tools: { search: { maxRequestsPerSecond: 0.001, burstCapacity: 1 } } }), counter);
    const client = await within(Client.inMemory(server, { mode }));
    try {
      await client.callTool('search');
      const tool = await client.callTool('search').catch((e) => e);
      assert.ok(tool instanceof RateLimited && /tool search/.test(tool.message), String(tool));
      await client.callTool('echo');
      const e = await client.callTool('echo').catch((e) => e);
      assert.ok(e instanceof RateLimited, String(e));
      assert.equal(e.code, 'ERR_MCP_RATE_LIMITED');
      assert.equal(e.rpcCode, -32029);
      assert.ok(e.retryAfter > 900 && e.retryAfter <= 1000, String(e.retryAfter));
      // Lists are served from the catalogue, never limited.
      assert.equal((await client.listTools()).tools.length, 2);
      assert.equal(seen, 2, 'refused calls never reached JavaScript');
    } finally {
      await client.close();
    }
  });
}

test('sessions have buckets of their own unless the limit is global', async () => {
  for (const globalLimit of [false, true]) {
    const http = await tools(new RateLimitingMiddleware({ maxRequestsPerSecond: 0.001, burstCapacity: 1, globalLimit })).startHttp({ port: 0 });
    try {
      const a = await within(Client.http(http.url, { mode: 'legacy' }));
      const b = await within(Client.http(http.url, { mode: 'legacy' }));
      try {
        await a.callTool('echo');
        await assert.rejects(a.callTool('echo'), RateLimited);
        if (globalLimit) await assert.rejects(b.callTool('echo'), RateLimited);
        else await b.callTool('echo');
      } finally {
        await a.close();
        await b.close();
      }
    } finally {
      await within(http.stop(), 20_000, 'http.stop()');
    }
  }
});

test('two servers share buckets through Redis', async (t) => {
  const redis = await startRedis(t);
  if (!redis) return;
  const limit = () => new RateLimitingMiddleware({ maxRequestsPerSecond: 0.001, burstCapacity: 3, store: redis.url });
  const one = await tools(limit()).startHttp({ port: 0 });
  const two = await tools(limit()).startHttp({ port: 0 });
  try {
    // 2026-07-28: no session; the client is its address, the same at both.
    const a = await within(Client.http(one.url));
    const b = await within(Client.http(two.url));
    try {
      await a.callTool('echo');
      await a.callTool('echo');
      await b.callTool('echo');
      await assert.rejects(b.callTool('echo'), RateLimited);
      await assert.rejects(a.callTool('echo'), RateLimited);
    } finally {
      await a.close();
      await b.close();
    }
    // A stream session too (admitted on the engine's thread, then run).
    const c = await within(Client.inMemory(tools(new RateLimitingMiddleware({ maxRequestsPerSecond: 0.001, burstCapacity: 1, globalLimit: true, store: redis.url }))));
    try {
      await c.callTool('echo');
      await assert.rejects(c.callTool('echo'), RateLimited);
    } finally {
      await c.close();
    }
  } finally {
    await within(one.stop(), 20_000, 'one.stop()');
    await within(two.stop(), 20_000, 'two.stop()');
    redis.proc.kill();
  }
});

test('timing fills histograms per method and tool', async () => {
  const server = new Server({ name: 'timed', version: '1.0.0', middleware: [new TimingMiddleware()] });
  server.tool('timed_in_node', () => 'ok');
  const client = await within(Client.inMemory(server));
  try {
    for (let i = 0; i < 3; i++) await client.callTool('timed_in_node');
  } finally {
    await client.close();
  }
  const text = metricsText();
  assert.ok(text.includes('hypermcp_tool_duration_seconds_count{tool="timed_in_node"} 3'), text);
  assert.ok(text.includes('hypermcp_tool_duration_seconds_bucket{tool="timed_in_node",le="+Inf"} 3'), text);
});

test('logging says one line a request to the logger', async () => {
  const lines = [];
  const logger = { info: (l) => lines.push(l), warn() {}, error() {}, debug() {} };
  const server = tools(new LoggingMiddleware({ includePayloads: true, maxPayloadLength: 40, methods: ['tools/call'], logger }));
  const client = await within(Client.inMemory(server, { name: 'audit-test', version: '2.0' }));
  try {
    await client.callTool('echo', { text: 'hello' });
    await client.listTools();
    for (let i = 0; i < 200 && !lines.some((l) => l.includes('hypermcp::requests')); i++) await sleep(10);
  } finally {
    await client.close();
    setLogger(null);
  }
  const mine = lines.filter((l) => l.startsWith('[hypermcp::requests]'));
  assert.equal(mine.length, 1, mine.join('\n'));
  for (const part of ['method="tools/call"', 'name="echo"', 'outcome="ok"', 'duration_ms=', 'client="audit-test/2.0"', 'hello']) {
    assert.ok(mine[0].includes(part), `${part} in ${mine[0]}`);
  }
});

test('bad options are refused with the option named', () => {
  assert.throws(() => new RateLimitingMiddleware({ maxRequestsPerSecond: 0 }), (e) => e instanceof OptionError && /maxRequestsPerSecond must be a number above 0/.test(e.message));
  assert.throws(() => new RateLimitingMiddleware({ store: 'mysql://db' }), /unsupported rate limit store/);
  assert.throws(() => new LoggingMiddleware({ level: 'loud' }), /unknown log level/);
  assert.throws(() => new RateLimitingMiddleware({ burst: 3 }), /no option "burst"/);
});

for (const mode of ['modern', 'legacy']) {
  test(`maskErrorDetails hides unexpected errors and logs them (${mode})`, async () => {
    const { McpError, ToolError } = await import('hypermcp');
    const lines = [];
    setLogger({ error: (l) => lines.push(l), warn() {}, info() {}, debug() {} }, { level: 'error' });
    const server = new Server({ name: 'masked', version: '1.0.0', maskErrorDetails: true });
    server.tool('book', () => {
      throw new Error('db password is hunter2');
    });
    server.tool('full', () => {
      throw new ToolError('no seats left');
    });
    server.tool('refused', () => {
      throw new McpError(-32001, 'not for you');
    });
    server.resource('data://secret', { name: 'secret' }, () => {
      throw new Error('internal key');
    });
    const client = await within(Client.inMemory(server, { mode }));
    try {
      let r = await client.callTool('book');
      assert.equal(r.isError, true);
      assert.equal(r.content[0].text, 'Error calling tool "book"');
      r = await client.callTool('full');
      assert.equal(r.content[0].text, 'no seats left');
      await assert.rejects(client.callTool('refused'), (e) => e.rpcCode === -32001 && e.message === 'not for you');
      await assert.rejects(client.readResource('data://secret'), (e) => e.message === 'Error reading resource "data://secret"');
      for (let i = 0; i < 200 && lines.filter((l) => l.startsWith('[hypermcp::errors]')).length < 2; i++) await sleep(10);
    } finally {
      await client.close();
      setLogger(null);
    }
    const logged = lines.filter((l) => l.startsWith('[hypermcp::errors]'));
    assert.ok(logged.some((l) => l.includes('hunter2') && l.includes('name="book"') && l.includes('at ')), logged.join('\n'));
    assert.ok(logged.some((l) => l.includes('internal key')), logged.join('\n'));
  });
}

test('the cache answers again until a change and never reaches JavaScript', async () => {
  const { ResponseCachingMiddleware } = await import('hypermcp');
  const calls = [];
  const server = new Server({ name: 'cached', version: '1.0.0', middleware: [new ResponseCachingMiddleware({ ttl: 60_000, excludedTools: ['fresh'] })] });
  server.tool('count', { inputSchema: { type: 'object', properties: { a: { type: 'number' } } } }, () => (calls.push('count'), String(calls.length)));
  server.tool('fresh', () => (calls.push('fresh'), 'fresh'));
  server.resource('data://n', { name: 'n' }, () => (calls.push('n'), String(calls.length)));
  const client = await within(Client.inMemory(server));
  try {
    const first = (await client.callTool('count', { a: 1 })).content[0].text;
    assert.equal((await client.callTool('count', { a: 1 })).content[0].text, first);
    assert.notEqual((await client.callTool('count', { a: 2 })).content[0].text, first);
    await client.callTool('fresh');
    await client.callTool('fresh');
    assert.equal(calls.filter((c) => c === 'fresh').length, 2);
    assert.equal(calls.filter((c) => c === 'count').length, 2);
    server.tool('new', () => 'x');
    assert.notEqual((await client.callTool('count', { a: 1 })).content[0].text, first);
    const r1 = JSON.stringify(await client.readResource('data://n'));
    assert.equal(JSON.stringify(await client.readResource('data://n')), r1);
    server.notifyResourceUpdated('data://n');
    assert.notEqual(JSON.stringify(await client.readResource('data://n')), r1);
  } finally {
    await client.close();
  }
});

test('two servers share answers through Redis', async (t) => {
  const redis = await startRedis(t);
  if (!redis) return;
  const { ResponseCachingMiddleware } = await import('hypermcp');
  const { execFileSync } = await import('node:child_process');
  const port = new URL(redis.url).port;
  const cli = (/** @type {string[]} */ ...command) => execFileSync('redis-cli', ['-p', port, '--raw', ...command], { encoding: 'utf8' }).trim();
  // The servers write in the background: wait until Redis has it.
  const held = async (/** @type {string} */ what, /** @type {() => boolean} */ until) => {
    for (let i = 0; i < 1000; i++) {
      if (until()) return;
      await sleep(2);
    }
    assert.fail(`Redis never held ${what}`);
  };
  const replica = (/** @type {string} */ name) => {
    const server = new Server({ name: 'cached', version: '1.0.0', middleware: [new ResponseCachingMiddleware({ ttl: 60_000, store: redis.url })] });
    server.tool('who', { inputSchema: { type: 'object', properties: { q: { type: 'number' } } } }, () => name);
    return server;
  };
  const [one, two] = [replica('one'), replica('two')];
  const http = await one.startHttp({ port: 0 });
  try {
    const a = await within(Client.http(http.url));
    const b = await within(Client.inMemory(two));
    try {
      // Each server's tool, defined after the cache, moved the generation on once.
      await held("the servers' start", () => cli('GET', 'hypermcp:rcg:t') === '2');
      assert.equal((await a.callTool('who', { q: 1 })).content[0].text, 'one');
      await held("A's answer", () => cli('KEYS', 'hypermcp:rc:*') !== '');
      assert.equal((await b.callTool('who', { q: 1 })).content[0].text, 'one', 'answered from Redis');
      one.tool('new', () => 'x');
      await held('the next generation', () => cli('GET', 'hypermcp:rcg:t') === '3');
      assert.equal((await b.callTool('who', { q: 1 })).content[0].text, 'two', 'forgotten for both');
    } finally {
      await a.close();
      await b.close();
    }
  } finally {
    await within(http.stop(), 20_000, 'http.stop()');
    redis.proc.kill();
  }
});

// The Node Server's tools, driven in memory by the hypermcp Client: the three `server.tool`
// forms, config options, schemas (JSON Schema, zod v4, zod v3), validation before the handler,
// every result type, errors and their codes, sync / hanging handlers, runtime add/remove.
//
// Run: node --test tests/node/

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { z } from 'zod';
import { z as z3 } from 'zod/v3';
import {
  Server,
  Client,
  McpError,
  InvalidParams,
  DefinitionError,
  image,
  audio,
  embeddedResource,
  resourceLink,
  text,
} from 'hypermcp';
import { within, tick, connect, withClient } from './_helpers.mjs';

const require = createRequire(import.meta.url);
const { MemoryTransport } = require('../../bindings-node/js/memory.cjs');

/** Collects values; `next(pred)` resolves with the first (past or future) matching one. */
function recorder() {
  const items = [];
  const waiters = [];
  return {
    items,
    push(item) {
      items.push(item);
      for (const w of waiters.splice(0)) {
        if (w.pred(item)) w.resolve(item);
        else waiters.push(w);
      }
    },
    next(pred = () => true, ms = 10_000) {
      const found = items.find(pred);
      if (found !== undefined) return Promise.resolve(found);
      return within(new Promise((resolve) => waiters.push({ pred, resolve })), ms);
    },
  };
}

const toolNamed = async (client, name) => (await within(client.listTools())).tools.find((t) => t.name === name);

// ---- registration forms and config ------------------------------------------------------------

test('the server.tool forms register and call', async () => {
  const server = new Server({ name: 'forms', version: '1.0.0' });
  server.tool('configured', { description: 'config form', inputSchema: { type: 'object', properties: { a: { type: 'string' } } } }, ({ a }) => `configured ${a}`);
  server.tool('short', 'short form', { b: z.string() }, ({ b }) => `short ${b}`);
  server.tool('bare', () => 'bare');
  // The official SDK's schema-only form, and a config holding nothing but a zod schema.
  server.tool('shapeOnly', { c: z.number() }, ({ c }) => `shape ${c}`);
  server.tool('zodConfig', { inputSchema: z.object({ d: z.number() }) }, ({ d }) => `config ${d}`);
  await withClient(server, async (client) => {
    const { tools } = await within(client.listTools());
    assert.deepEqual(
      tools.map((t) => [t.name, t.description, t.inputSchema]),
      [
        ['configured', 'config form', { type: 'object', properties: { a: { type: 'string' } } }],
        ['short', 'short form', { type: 'object', properties: { b: { type: 'string' } }, required: ['b'] }],
        ['bare', undefined, { type: 'object', properties: {} }],
        ['shapeOnly', undefined, { type: 'object', properties: { c: { type: 'number' } }, required: ['c'] }],
        ['zodConfig', undefined, { type: 'object', properties: { d: { type: 'number' } }, required: ['d'] }],
      ],
    );
    assert.deepEqual(await within(client.callTool('configured', { a: 'x' })), { content: [{ type: 'text', text: 'configured x' }] });
    assert.deepEqual(await within(client.callTool('short', { b: 'y' })), { content: [{ type: 'text', text: 'short y' }] });
    assert.deepEqual(await within(client.callTool('bare', {})), { content: [{ type: 'text', text: 'bare' }] });
    assert.deepEqual(await within(client.callTool('shapeOnly', { c: 1 })), { content: [{ type: 'text', text: 'shape 1' }] });
    assert.deepEqual(await within(client.callTool('zodConfig', { d: 2 })), { content: [{ type: 'text', text: 'config 2' }] });
  });
});

test('config options (title, annotations, icons, _meta, outputSchema) appear in listTools', async () => {
  const server = new Server({ name: 'config' });
  const icons = [{ src: 'https://example.com/icon.png', mimeType: 'image/png', sizes: ['48x48'] }];
  const annotations = { title: 'Annotated', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
  const outputSchema = { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] };
  server.tool(
    'full',
    { title: 'Full Tool', description: 'every option', inputSchema: { type: 'object' }, outputSchema, annotations, icons, _meta: { 'example.com/k': 'v' } },
    () => ({ n: 1 }),
  );
  server.tool('zodOut', { outputSchema: z.object({ s: z.string(), k: z.number().optional() }) }, () => ({ s: 'x' }));
  await withClient(server, async (client) => {
    const full = await toolNamed(client, 'full');
    assert.deepEqual(full, {
      name: 'full',
      title: 'Full Tool',
      description: 'every option',
      inputSchema: { type: 'object' },
      outputSchema,
      annotations,
      icons,
      _meta: { 'example.com/k': 'v' },
    });
    const zodOut = await toolNamed(client, 'zodOut');
    assert.deepEqual(zodOut.outputSchema, { type: 'object', properties: { s: { type: 'string' }, k: { type: 'number' } }, required: ['s'] });
  });
});

// ---- schemas ------------------------------------------------------------------------------------

test('each schema kind reaches the client as the right JSON Schema', async () => {
  const server = new Server({ name: 'schemas' });
  const json = {
    type: 'object',
    properties: { city: { type: 'string', description: 'City' }, days: { type: 'integer', minimum: 1 } },
    required: ['city'],
    additionalProperties: false,
  };
  const echo = (args) => JSON.stringify(args);
  server.tool('json', { inputSchema: json }, echo);
  server.tool('z4object', { inputSchema: z.object({ a: z.string().describe('A'), n: z.number().min(1).optional(), e: z.enum(['x', 'y']).default('x') }) }, echo);
  server.tool('z4shape', 'zod 4 shape', { a: z.string(), flag: z.boolean().optional(), list: z.array(z.number()) }, echo);
  server.tool('z3shape', 'zod 3 shape', { a: z3.string().describe('A'), n: z3.number().int().min(1).optional(), e: z3.enum(['x', 'y']).default('x') }, echo);
  server.tool('z3object', { inputSchema: z3.object({ a: z3.string(), list: z3.array(z3.number()), maybe: z3.string().nullable() }) }, echo);
  await withClient(server, async (client) => {
    const schemas = Object.fromEntries((await within(client.listTools())).tools.map((t) => [t.name, t.inputSchema]));
    assert.deepEqual(schemas.json, json);
    assert.deepEqual(schemas.z4object, {
      type: 'object',
      properties: {
        a: { type: 'string', description: 'A' },
        n: { type: 'number', minimum: 1 },
        e: { type: 'string', enum: ['x', 'y'], default: 'x' },
      },
      required: ['a'],
    });
    assert.deepEqual(schemas.z4shape, {
      type: 'object',
      properties: { a: { type: 'string' }, flag: { type: 'boolean' }, list: { type: 'array', items: { type: 'number' } } },
      required: ['a', 'list'],
    });
    assert.deepEqual(schemas.z3shape, {
      type: 'object',
      properties: {
        a: { type: 'string', description: 'A' },
        n: { type: 'integer', minimum: 1 },
        e: { type: 'string', enum: ['x', 'y'], default: 'x' },
      },
      required: ['a'],
    });
    assert.deepEqual(schemas.z3object, {
      type: 'object',
      properties: {
        a: { type: 'string' },
        list: { type: 'array', items: { type: 'number' } },
        maybe: { anyOf: [{ type: 'string' }, { type: 'null' }] },
      },
      required: ['a', 'list', 'maybe'],
    });
    // And each one accepts what it describes.
    assert.deepEqual(await within(client.callTool('json', { city: 'Oslo', days: 2 })), { content: [{ type: 'text', text: '{"city":"Oslo","days":2}' }] });
    assert.deepEqual(await within(client.callTool('z4shape', { a: 'q', list: [1] })), { content: [{ type: 'text', text: '{"a":"q","list":[1]}' }] });
    assert.deepEqual(await within(client.callTool('z3object', { a: 'q', list: [], maybe: null })), { content: [{ type: 'text', text: '{"a":"q","list":[],"maybe":null}' }] });
  });
});

test('a bad schema is a DefinitionError (ERR_MCP_DEFINITION)', async () => {
  const server = new Server({ name: 'bad-schemas' });
  const bad = [
    { type: 'string' }, // not an object schema
    z.string(), // a zod schema of a non-object
    z3.number(),
    42,
    { type: 'object', properties: 5 }, // not valid JSON Schema
    { type: 'object', properties: { a: { type: 'nonsense' } } },
  ];
  for (const schema of bad) {
    assert.throws(
      () => server.tool('bad', { inputSchema: schema }, () => 'never'),
      (err) => err instanceof DefinitionError && err.code === 'ERR_MCP_DEFINITION' && /inputSchema/.test(err.message),
      `inputSchema ${JSON.stringify(schema)}`,
    );
  }
  assert.throws(
    () => server.tool('badOut', { outputSchema: { type: 'array' } }, () => 'never'),
    (err) => err instanceof DefinitionError && err.code === 'ERR_MCP_DEFINITION' && /outputSchema/.test(err.message),
  );
  // Nothing was registered: a good tool added next is the only one listed.
  server.tool('good', () => 'ok');
  await withClient(server, async (client) => {
    assert.deepEqual((await within(client.listTools())).tools.map((t) => t.name), ['good']);
  });
});

// ---- validation ---------------------------------------------------------------------------------

function validatingServer(calls) {
  const server = new Server({ name: 'validating' });
  const record = (name) => (args) => {
    calls.push([name, args]);
    return 'called';
  };
  server.tool('json', { inputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] } }, record('json'));
  server.tool('z4', 'zod 4', { n: z.number() }, record('z4'));
  server.tool('z3', 'zod 3', { n: z3.number() }, record('z3'));
  // A rule JSON Schema cannot express: only zod itself catches it.
  server.tool('refined', 'zod refine', { s: z.string().refine((v) => v.startsWith('ok'), 'must start with ok') }, record('refined'));
  return server;
}

const BAD_ARGS = [
  ['json', { n: 'one' }],
  ['json', {}],
  ['z4', { n: 'one' }],
  ['z3', { n: 'one' }],
  ['refined', { s: 'nope' }],
];

test('bad arguments never reach the handler: an isError result under 2025-11-25', async () => {
  const calls = [];
  await withClient(validatingServer(calls), { mode: 'legacy' }, async (client) => {
    assert.equal(client.protocolVersion, '2025-11-25');
    for (const [name, args] of BAD_ARGS) {
      const result = await within(client.callTool(name, args));
      assert.equal(result.isError, true, `${name} ${JSON.stringify(args)}`);
      assert.equal(result.content.length, 1);
      assert.equal(result.content[0].type, 'text');
      assert.match(result.content[0].text, new RegExp(`^Invalid arguments for tool ${name}: `));
    }
    assert.match((await within(client.callTool('refined', { s: 'nope' }))).content[0].text, /must start with ok/);
    assert.deepEqual(calls, [], 'no handler ran');
    assert.deepEqual(await within(client.callTool('refined', { s: 'okay' })), { content: [{ type: 'text', text: 'called' }] });
    assert.deepEqual(calls, [['refined', { s: 'okay' }]]);
  });
});

test('bad arguments never reach the handler: InvalidParams under 2025-06-18', async () => {
  const calls = [];
  await withClient(validatingServer(calls), { protocolVersion: '2025-06-18' }, async (client) => {
    assert.equal(client.protocolVersion, '2025-06-18');
    for (const [name, args] of BAD_ARGS) {
      await assert.rejects(
        within(client.callTool(name, args)),
        (err) => {
          assert.ok(err instanceof InvalidParams, `${name}: ${err}`);
          assert.equal(err.code, 'ERR_MCP_INVALID_PARAMS');
          assert.equal(err.rpcCode, -32602);
          assert.match(err.message, new RegExp(`Invalid arguments for tool ${name}: `));
          assert.equal(err.data.tool, name);
          assert.ok(Array.isArray(err.data.errors) && err.data.errors.length > 0);
          return true;
        },
        `${name} ${JSON.stringify(args)}`,
      );
    }
    assert.deepEqual(calls, [], 'no handler ran');
    assert.deepEqual(await within(client.callTool('z4', { n: 1 })), { content: [{ type: 'text', text: 'called' }] });
    assert.deepEqual(calls, [['z4', { n: 1 }]]);
  });
});

test('zod defaults and transforms apply before the handler (v4 object, v4 shape, v3 shape)', async () => {
  const server = new Server({ name: 'parse' });
  const seen = [];
  const record = (args) => {
    seen.push(args);
    return 'ok';
  };
  server.tool('z4object', { inputSchema: z.object({ s: z.string().transform((v) => v.toUpperCase()), n: z.number().default(7) }) }, record);
  server.tool('z4shape', 'd', { s: z.string().trim(), n: z.number().default(3), d: z.string().transform((v) => v.length) }, record);
  server.tool('z3shape', 'd', { s: z3.string().transform((v) => `<${v}>`), n: z3.number().default(5) }, record);
  await withClient(server, async (client) => {
    await within(client.callTool('z4object', { s: 'abc' }));
    await within(client.callTool('z4shape', { s: '  pad  ', d: 'four' }));
    await within(client.callTool('z3shape', { s: 'x', n: 1 }));
    await within(client.callTool('z3shape', { s: 'y' }));
  });
  assert.deepEqual(seen, [
    { s: 'ABC', n: 7 },
    { s: 'pad', n: 3, d: 4 },
    { s: '<x>', n: 1 },
    { s: '<y>', n: 5 },
  ]);
});

test('a zod transform that throws is a tool error, and the server keeps serving', async () => {
  const server = new Server({ name: 'throwing-transform' });
  let called = false;
  server.tool('parse', 'd', { json: z.string().transform((v) => JSON.parse(v)) }, ({ json }) => {
    called = true;
    return `got ${json.k}`;
  });
  await withClient(server, async (client) => {
    const bad = await within(client.callTool('parse', { json: '{not json' }));
    assert.equal(bad.isError, true);
    assert.match(bad.content[0].text, /JSON/);
    assert.equal(called, false);
    assert.deepEqual(await within(client.callTool('parse', { json: '{"k":1}' })), { content: [{ type: 'text', text: 'got 1' }] });
  });
});

// ---- results ------------------------------------------------------------------------------------

test('every result type', async () => {
  const server = new Server({ name: 'results' });
  const bytes = Buffer.from([0, 1, 2, 250, 255]);
  const b64 = bytes.toString('base64');
  const passthrough = {
    content: [{ type: 'text', text: 'as is', annotations: { audience: ['user'], priority: 0.5 } }],
    structuredContent: { kept: true },
    _meta: { 'example.com/m': 1 },
  };
  server.tool('string', () => 'plain text');
  server.tool('asyncString', async () => 'later');
  server.tool('full', () => passthrough);
  server.tool('fullError', () => ({ content: [{ type: 'text', text: 'handled failure' }], isError: true }));
  server.tool('image', () => image(bytes, 'image/png'));
  server.tool('audio', () => audio(bytes, 'audio/mpeg'));
  server.tool('embeddedText', () => embeddedResource({ uri: 'file:///notes.txt', text: 'notes', mimeType: 'text/plain' }));
  server.tool('embeddedBlob', () => embeddedResource({ uri: 'file:///data.bin', blob: bytes, mimeType: 'application/octet-stream' }));
  server.tool('link', () => resourceLink({ uri: 'file:///big.csv', name: 'big.csv', mimeType: 'text/csv', size: 1234 }));
  server.tool('array', () => ['first', text('second'), image(bytes, 'image/gif')]);
  server.tool('structured', { outputSchema: { type: 'object', properties: { n: { type: 'number' }, tags: { type: 'array', items: { type: 'string' } } }, required: ['n'] } }, () => ({ n: 42, tags: ['a'] }));
  server.tool('structuredZod', { outputSchema: { total: z.number() } }, async () => ({ total: 9 }));
  server.tool('object', () => ({ n: 42, nested: { ok: true } }));
  await withClient(server, async (client) => {
    const call = (name) => within(client.callTool(name, {}));
    assert.deepEqual(await call('string'), { content: [{ type: 'text', text: 'plain text' }] });
    assert.deepEqual(await call('asyncString'), { content: [{ type: 'text', text: 'later' }] });
    assert.deepEqual(await call('full'), passthrough);
    assert.deepEqual(await call('fullError'), { content: [{ type: 'text', text: 'handled failure' }], isError: true });
    assert.deepEqual(await call('image'), { content: [{ type: 'image', data: b64, mimeType: 'image/png' }] });
    assert.deepEqual(await call('audio'), { content: [{ type: 'audio', data: b64, mimeType: 'audio/mpeg' }] });
    assert.deepEqual(await call('embeddedText'), {
      content: [{ type: 'resource', resource: { uri: 'file:///notes.txt', mimeType: 'text/plain', text: 'notes' } }],
    });
    assert.deepEqual(await call('embeddedBlob'), {
      content: [{ type: 'resource', resource: { uri: 'file:///data.bin', mimeType: 'application/octet-stream', blob: b64 } }],
    });
    assert.deepEqual(await call('link'), {
      content: [{ type: 'resource_link', uri: 'file:///big.csv', name: 'big.csv', mimeType: 'text/csv', size: 1234 }],
    });
    assert.deepEqual(await call('array'), {
      content: [
        { type: 'text', text: 'first' },
        { type: 'text', text: 'second' },
        { type: 'image', data: b64, mimeType: 'image/gif' },
      ],
    });
    const structured = await call('structured');
    assert.deepEqual(structured.structuredContent, { n: 42, tags: ['a'] });
    assert.equal(structured.content.length, 1);
    assert.equal(structured.content[0].type, 'text');
    assert.deepEqual(JSON.parse(structured.content[0].text), { n: 42, tags: ['a'] });
    assert.equal(structured.isError, undefined);
    assert.deepEqual(await call('structuredZod'), { content: [{ type: 'text', text: '{"total":9}' }], structuredContent: { total: 9 } });
    const object = await call('object');
    assert.equal(object.structuredContent, undefined, 'no outputSchema: no structuredContent');
    assert.equal(object.content.length, 1);
    assert.equal(object.content[0].type, 'text');
    assert.deepEqual(JSON.parse(object.content[0].text), { n: 42, nested: { ok: true } });
  });
});

// ---- errors -------------------------------------------------------------------------------------

test('McpError thrown in a handler is a JSON-RPC error with code, data and a stable string code', async () => {
  const server = new Server({ name: 'errors' });
  server.tool('custom', () => {
    throw new McpError(-32050, 'quota exceeded', { retryAfter: 30 });
  });
  server.tool('invalid', async () => {
    throw new InvalidParams('city is unknown', { city: 'Atlantis' });
  });
  server.tool('internal', () => {
    throw new McpError(-32603, 'broken inside');
  });
  await withClient(server, async (client) => {
    await assert.rejects(within(client.callTool('custom', {})), (err) => {
      assert.ok(err instanceof McpError);
      assert.equal(err.rpcCode, -32050);
      assert.equal(err.code, 'ERR_MCP_RPC');
      assert.equal(err.message, 'quota exceeded');
      assert.deepEqual(err.data, { retryAfter: 30 });
      return true;
    });
    await assert.rejects(within(client.callTool('invalid', {})), (err) => {
      assert.ok(err instanceof InvalidParams);
      assert.equal(err.rpcCode, -32602);
      assert.equal(err.code, 'ERR_MCP_INVALID_PARAMS');
      assert.equal(err.message, 'city is unknown');
      assert.deepEqual(err.data, { city: 'Atlantis' });
      return true;
    });
    await assert.rejects(within(client.callTool('internal', {})), (err) => {
      assert.equal(err.rpcCode, -32603);
      assert.equal(err.code, 'ERR_MCP_INTERNAL');
      assert.equal(err.message, 'broken inside');
      assert.equal(err.data, undefined);
      return true;
    });
  });
});

test('a sync throw and a rejected promise are isError results carrying the message', async () => {
  const server = new Server({ name: 'failures' });
  server.tool('syncThrow', () => {
    throw new Error('sync boom');
  });
  server.tool('rejects', () => Promise.reject(new TypeError('async boom')));
  server.tool('asyncThrow', async () => {
    await tick(1);
    throw new RangeError('later boom');
  });
  server.tool('throwString', () => {
    throw 'a bare string'; // eslint-disable-line no-throw-literal
  });
  await withClient(server, async (client) => {
    const expect = async (name, message) =>
      assert.deepEqual(await within(client.callTool(name, {})), { content: [{ type: 'text', text: message }], isError: true }, name);
    await expect('syncThrow', 'sync boom');
    await expect('rejects', 'async boom');
    await expect('asyncThrow', 'later boom');
    await expect('throwString', 'a bare string');
  });
});

test('unknown tool is InvalidParams', async () => {
  const server = new Server({ name: 'unknown' });
  server.tool('known', () => 'x');
  await withClient(server, async (client) => {
    await assert.rejects(within(client.callTool('missing', {})), (err) => {
      assert.ok(err instanceof InvalidParams);
      assert.equal(err.code, 'ERR_MCP_INVALID_PARAMS');
      assert.equal(err.rpcCode, -32602);
      assert.match(err.message, /Unknown tool: missing/);
      assert.deepEqual(err.data, { name: 'missing' });
      return true;
    });
  });
});

// ---- how handlers run ---------------------------------------------------------------------------

test('sync handlers are called directly and their return value is used without awaiting', async () => {
  // A transport that notes whether the server is inside the feed of the client's bytes, and
  // whether the answer went out in that same pass (before any microtask could run).
  class SpyTransport extends MemoryTransport {
    feeding = false;
    writesInFeed = 0;
    async start(client) {
      await super.start(client);
      const write = this.conn._write;
      this.conn._write = (buf) => {
        if (this.feeding) this.writesInFeed += 1;
        write(buf);
      };
    }
    write(buf) {
      this.feeding = true;
      try {
        super.write(buf);
      } finally {
        this.feeding = false;
      }
    }
  }
  const server = new Server({ name: 'sync' });
  const transport = new SpyTransport(server);
  const observed = [];
  server.tool('sync', { inputSchema: { type: 'object', properties: { n: { type: 'number' } } } }, ({ n }) => {
    const before = transport.writesInFeed;
    observed.push({ inFeed: transport.feeding });
    // Runs after the current synchronous pass: the answer must already be out by then.
    queueMicrotask(() => observed.push({ answeredBeforeMicrotask: transport.writesInFeed > before }));
    return `n=${n}`;
  });
  const client = await within(Client.connect(transport, {}));
  try {
    assert.deepEqual(await within(client.callTool('sync', { n: 1 })), { content: [{ type: 'text', text: 'n=1' }] });
    assert.deepEqual(observed, [{ inFeed: true }, { answeredBeforeMicrotask: true }]);
  } finally {
    await within(client.close());
  }
});

test('a handler that never settles does not block other calls', async () => {
  const server = new Server({ name: 'hang' });
  let hangSignal = null;
  let hangCalls = 0;
  server.tool('hang', (_args, ctx) => {
    hangCalls += 1;
    hangSignal = ctx.signal;
    return new Promise(() => {});
  });
  server.tool('echo', { inputSchema: { type: 'object', properties: { t: { type: 'string' } } } }, ({ t }) => t);
  server.tool('slow', async () => {
    await tick(30);
    return 'slow done';
  });
  await withClient(server, async (client) => {
    const ac = new AbortController();
    const hanging = client.callTool('hang', {}, { signal: ac.signal });
    const hangOutcome = hanging.then(
      () => 'resolved',
      (err) => err,
    );
    const answers = await within(Promise.all([client.callTool('echo', { t: 'a' }), client.callTool('slow', {}), client.callTool('echo', { t: 'b' })]));
    assert.deepEqual(
      answers.map((r) => r.content[0].text),
      ['a', 'slow done', 'b'],
    );
    assert.equal(hangCalls, 1);
    assert.equal(await Promise.race([hangOutcome, tick(50).then(() => 'pending')]), 'pending');
    // Let it go; the server stops waiting for it and still answers.
    ac.abort();
    const err = await within(hangOutcome);
    assert.equal(err.code, 'ERR_MCP_ABORTED');
    assert.deepEqual(await within(client.callTool('echo', { t: 'c' })), { content: [{ type: 'text', text: 'c' }] });
    assert.equal(hangSignal.aborted, true);
  });
});

test('closing a client right after cancelling a never-settling call is prompt', async () => {
  const server = new Server({ name: 'hang-close' });
  server.tool('hang', () => new Promise(() => {}));
  const client = await connect(server);
  const ac = new AbortController();
  const call = client.callTool('hang', {}, { signal: ac.signal }).catch((err) => err);
  await tick(20);
  ac.abort();
  assert.equal((await within(call)).code, 'ERR_MCP_ABORTED');
  await tick(20); // the cancellation reaches the server
  const started = Date.now();
  await within(client.close(), 5000);
  assert.ok(Date.now() - started < 2000, `close took ${Date.now() - started} ms`);
});

// ---- runtime changes ----------------------------------------------------------------------------

test('adding and removing tools at run time sends tools/list_changed and changes the list', async () => {
  const server = new Server({ name: 'dynamic' });
  server.tool('first', () => '1');
  const notes = recorder();
  await withClient(server, { onNotification: (method, params) => notes.push({ method, params }) }, async (client) => {
    const names = async () => (await within(client.listTools())).tools.map((t) => t.name);
    assert.deepEqual(await names(), ['first']);

    server.tool('second', 'added later', { x: z.number() }, ({ x }) => `${x * 2}`);
    await notes.next((n) => n.method === 'notifications/tools/list_changed');
    assert.deepEqual(await names(), ['first', 'second']);
    assert.deepEqual(await within(client.callTool('second', { x: 21 })), { content: [{ type: 'text', text: '42' }] });

    const before = notes.items.length;
    assert.equal(server.removeTool('first'), true);
    await notes.next((n, i = notes.items.indexOf(n)) => i >= before && n.method === 'notifications/tools/list_changed');
    assert.deepEqual(await names(), ['second']);
    await assert.rejects(within(client.callTool('first', {})), (err) => err.code === 'ERR_MCP_INVALID_PARAMS');

    assert.equal(server.removeTool('first'), false, 'removing twice finds nothing');
    assert.deepEqual(
      notes.items.map((n) => n.method),
      ['notifications/tools/list_changed', 'notifications/tools/list_changed'],
    );
  });
});

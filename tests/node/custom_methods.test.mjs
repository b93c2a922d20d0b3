// Methods of a server's own in Node (server.method, onNotification): served in both eras, in
// memory and over HTTP, params checked against a schema by the engine, `_meta` in ctx.meta,
// middleware's onCustomMethod around them (and onMessage/onNotification around notifications,
// which may change or drop them); a name the spec owns is refused; an unknown method is still
// -32601. Run: node --test tests/node/

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client, DefinitionError, McpError, Server } from 'hypermcp';
import { within } from './_helpers.mjs';

function makeServer(pings, notes = []) {
  const server = new Server({ name: 'own', version: '1' });
  server.use({
    onMessage(c, next) {
      if (c.type === 'notification') notes.push(`message ${c.method}`);
      return next(c);
    },
    async onNotification(c, next) {
      notes.push(`${c.type} ${c.method}`);
      if (c.message.params.drop) return;
      c.message.params = { ...c.message.params, seen: true };
      await next(c);
    },
  });
  server.use({
    async onCustomMethod(c, next) {
      c.message.params = { ...c.message.params, q: String(c.message.params.q ?? '').trim() };
      const result = await next(c);
      return Array.isArray(result) ? result : { ...result, via: c.method };
    },
  });
  const schema = { type: 'object', properties: { q: { type: 'string' }, limit: { type: 'integer' } }, required: ['q'] };
  server.method('acme/search', { paramsSchema: schema }, ({ q, limit = 2 }, ctx) => ({
    hits: Array.from({ length: limit }, (_, i) => `${q}-${i + 1}`),
    trace: ctx.meta?.['acme/trace'] ?? null,
  }));
  server.method('acme/fail', () => {
    throw new McpError(-32042, 'no index today');
  });
  server.method('acme/bad', () => ['not', 'an', 'object']);
  server.onNotification('notifications/acme/indexed', (params) => pings.push(params));
  return server;
}

async function exercise(client, pings, notes) {
  const r = await within(client.request('acme/search', { q: ' mcp ', limit: 3, _meta: { 'acme/trace': 't-1' } }));
  assert.deepEqual(r.hits, ['mcp-1', 'mcp-2', 'mcp-3']);
  assert.equal(r.trace, 't-1');
  assert.equal(r.via, 'acme/search');
  assert.equal((await client.request('acme/fail').catch((e) => e)).rpcCode, -32042);
  const wrong = await client.request('acme/search', { q: 'x', limit: 'many' }).catch((e) => e);
  assert.ok(wrong instanceof McpError && wrong.rpcCode === -32602 && /limit/.test(wrong.message), String(wrong));
  await assert.rejects(client.request('acme/bad'), /a method's result is an object/);
  assert.equal((await client.request('acme/unknown').catch((e) => e)).rpcCode, -32601);
  await within(client.notify('notifications/acme/indexed', { drop: true }));
  await within(client.notify('notifications/acme/indexed', { docs: 3 }));
  for (let i = 0; i < 400 && pings.length === 0; i++) await new Promise((r) => setTimeout(r, 5));
  assert.deepEqual(pings, [{ docs: 3, seen: true }], 'changed by onNotification; the dropped one never arrives');
  for (let i = 0; i < 400 && notes.length < 4; i++) await new Promise((r) => setTimeout(r, 5));
  assert.deepEqual(notes, ['message notifications/acme/indexed', 'notification notifications/acme/indexed',
    'message notifications/acme/indexed', 'notification notifications/acme/indexed']);
}

for (const mode of /** @type {const} */ (['modern', 'legacy'])) {
  test(`own methods in memory (${mode})`, async () => {
    const [pings, notes] = [[], []];
    const client = await within(Client.inMemory(makeServer(pings, notes), { mode }));
    try {
      await exercise(client, pings, notes);
    } finally {
      await client.close();
    }
  });

  test(`own methods over HTTP (${mode})`, async () => {
    const [pings, notes] = [[], []];
    const http = await makeServer(pings, notes).startHttp({ port: 0 });
    try {
      const client = await within(Client.http(http.url, { mode }));
      try {
        await exercise(client, pings, notes);
      } finally {
        await client.close();
      }
    } finally {
      await within(http.stop(), 20_000, 'http.stop()');
    }
  });
}

test('names the spec owns are refused', () => {
  const server = new Server({ name: 's', version: '1' });
  for (const name of ['tools/call', 'tools/search', 'notifications/progress', 'rpc.x', 'two words']) {
    assert.throws(() => server.method(name, () => ({})), DefinitionError, name);
  }
  server.method('acme/ok', () => ({}));
  assert.equal(server.removeMethod('acme/ok'), true);
  assert.equal(server.removeMethod('acme/ok'), false);
});

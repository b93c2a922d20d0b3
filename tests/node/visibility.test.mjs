// Visibility in Node: tags, server.enable/disable (and the allow-list form), a hidden
// component called by name is "not found" exactly as an unknown one, a caller's own rules
// from a handler (ctx.enableComponents) seen by it alone with list_changed to it alone, in
// memory and over HTTP sessions, the token subject as the caller of a 2026-07-28 request over
// HTTP, and the clear error of one without a caller.
// Run: node --test tests/node/

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client, DefinitionError, McpError, Server } from 'hypermcp';
import { until, within } from './_helpers.mjs';

function makeServer() {
  const server = new Server({ name: 'visible', version: '1' });
  const ok = (text) => () => text;
  server.tool('status', ok('ok'));
  server.tool('wipe', { tags: ['admin', 'dangerous'] }, ok('wiped'));
  server.tool('reset', { tags: new Set(['admin']) }, ok('reset'));
  server.tool('config', ok('tool config'));
  server.tool('report', { tags: ['premium'] }, ok('premium report'));
  server.tool('unlock', {}, async (_args, ctx) => {
    await ctx.enableComponents({ tags: ['premium'] });
    return 'unlocked';
  });
  server.tool('relock', {}, async (_args, ctx) => {
    await ctx.resetVisibility();
    return 'relocked';
  });
  server.prompt('config', {}, () => 'the config prompt');
  server.resource('mem://secret', { tags: ['admin'] }, () => 's3cret');
  server.resource('mem://users/{id}', { tags: ['admin'] }, (_url, { id }) => `user ${id}`);
  return server;
}

const names = (r) => (r.tools ?? r.prompts).map((t) => t.name);

test('the server rules hide and show for everyone', async () => {
  const server = makeServer();
  const changes = [];
  const c = await within(Client.inMemory(server, { mode: 'legacy', onNotification: (m) => changes.push(m) }));
  try {
    assert.equal((await within(c.listTools())).tools.length, 7);
    server.disable({ tags: ['admin'] });
    assert.deepEqual(names(await within(c.listTools())), ['status', 'config', 'report', 'unlock', 'relock']);
    assert.deepEqual((await within(c.listResources())).resources, []);
    assert.deepEqual((await within(c.listResourceTemplates())).resourceTemplates, []);
    assert.ok(changes.includes('notifications/tools/list_changed'), changes.join());
    assert.ok(changes.includes('notifications/resources/list_changed'), changes.join());
    // A hidden tool is exactly an unknown one.
    const hidden = await c.callTool('wipe', {}).catch((e) => e);
    const unknown = await c.callTool('nothing', {}).catch((e) => e);
    assert.ok(hidden instanceof McpError && /Unknown tool: wipe/.test(hidden.message), String(hidden));
    assert.equal(hidden.rpcCode, unknown.rpcCode);
    assert.equal((await c.readResource('mem://users/7').catch((e) => e)).rpcCode, -32002);

    server.enable({ names: ['reset'] }); // a later rule overrides where they overlap
    assert.ok(names(await within(c.listTools())).includes('reset'));
    server.disable({ names: ['config'], components: ['tool'] }); // the prompt stays
    assert.ok(!names(await within(c.listTools())).includes('config'));
    assert.deepEqual(names(await within(c.listPrompts())), ['config']);
    server.enable({ tags: ['dangerous'], only: true }); // the allow-list form
    assert.deepEqual(names(await within(c.listTools())), ['wipe']);
    assert.deepEqual(names(await within(c.listPrompts())), []);
    server.resetVisibility();
    assert.equal((await within(c.listTools())).tools.length, 7);
  } finally {
    await c.close();
  }
});

test('definitions and rules are checked', () => {
  const server = makeServer();
  assert.throws(() => server.disable({}), (e) => e instanceof DefinitionError && /needs names/.test(e.message));
  assert.throws(() => server.disable({ tags: 'admin' }), /not the string/);
  assert.throws(() => server.disable({ components: ['widget'] }), /widget/);
  assert.throws(() => server.tool('bad', { tags: 'admin' }, () => ''), /not the string/);
});

async function perCaller(a, b, aChanges) {
  assert.ok(!names(await within(a.listTools())).includes('report'));
  assert.equal((await within(a.callTool('unlock', {}))).content[0].text, 'unlocked');
  // Over HTTP the notification comes on the GET stream, beside the call's answer.
  await until(() => aChanges.includes('notifications/tools/list_changed'));
  assert.ok(aChanges.includes('notifications/tools/list_changed'), aChanges.join());
  assert.ok(names(await within(a.listTools())).includes('report'));
  assert.equal((await within(a.callTool('report', {}))).content[0].text, 'premium report');
  assert.ok(!names(await within(b.listTools())).includes('report'));
  await assert.rejects(b.callTool('report', {}), /Unknown tool: report/);
  await within(a.callTool('relock', {}));
  assert.ok(!names(await within(a.listTools())).includes('report'));
}

test("a caller's own rules in memory", async () => {
  const server = makeServer();
  server.disable({ tags: ['premium'] });
  const aChanges = [];
  const bChanges = [];
  const a = await within(Client.inMemory(server, { mode: 'legacy', onNotification: (m) => aChanges.push(m) }));
  const b = await within(Client.inMemory(server, { mode: 'legacy', onNotification: (m) => bChanges.push(m) }));
  try {
    await perCaller(a, b, aChanges);
    assert.ok(!bChanges.includes('notifications/tools/list_changed'));
  } finally {
    await a.close();
    await b.close();
  }
});

test("a caller's own rules over HTTP sessions, and the stateless refusal", async () => {
  const server = makeServer();
  server.disable({ tags: ['premium'] });
  const http = await server.startHttp({ port: 0 });
  try {
    const aChanges = [];
    const a = await within(Client.http(http.url, { mode: 'legacy', onNotification: (m) => aChanges.push(m) }));
    const b = await within(Client.http(http.url, { mode: 'legacy' }));
    const m = await within(Client.http(http.url, { mode: 'modern' }));
    try {
      await perCaller(a, b, aChanges);
      // 2026-07-28 over HTTP has no session: refused rather than changed for everyone.
      const refused = await m.callTool('unlock', {}).catch((e) => e);
      assert.ok(refused instanceof McpError && refused.rpcCode === -32600, String(refused));
      assert.match(refused.message, /per-caller visibility needs a session/);
      assert.ok(!names(await within(m.listTools())).includes('report'));
    } finally {
      await Promise.all([a.close(), b.close(), m.close()]);
    }
  } finally {
    await within(http.stop(), 20_000, 'http.stop()');
  }
});

test('a 2026-07-28 caller over HTTP is its token subject', async () => {
  const server = makeServer();
  server.disable({ tags: ['premium'] });
  const verify = async (/** @type {string} */ token) => ({ sub: token.split('-')[0], scope: 'mcp:tools' });
  const http = await server.startHttp({
    port: 0,
    auth: { resource: 'https://mcp.test/mcp', authorizationServers: ['https://as.test'], verify },
  });
  const connect = (/** @type {string} */ token) =>
    within(Client.http(http.url, { mode: 'modern', headers: { Authorization: `Bearer ${token}` } }));
  try {
    const [a, b] = [await connect('alice-1'), await connect('bob-1')];
    const hears = a.listen({ toolsListChanged: true })[Symbol.asyncIterator]();
    try {
      assert.equal((await within(hears.next())).value.method, 'notifications/subscriptions/acknowledged');
      assert.equal((await within(a.callTool('unlock', {}))).content[0].text, 'unlocked');
      assert.equal((await within(hears.next())).value.method, 'notifications/tools/list_changed');
      assert.ok(names(await within(a.listTools())).includes('report'));
      assert.ok(!names(await within(b.listTools())).includes('report'));
      // Another connection with a token of alice's is alice too.
      const again = await connect('alice-2');
      assert.equal((await within(again.callTool('report', {}))).content[0].text, 'premium report');
      await within(again.callTool('relock', {}));
      await again.close();
      assert.equal((await within(hears.next())).value.method, 'notifications/tools/list_changed');
      assert.ok(!names(await within(a.listTools())).includes('report'));
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  } finally {
    await within(http.stop(), 20_000, 'http.stop()');
  }
});

test('a modern stdio connection is one caller', async () => {
  const server = makeServer();
  server.disable({ tags: ['premium'] });
  const a = await within(Client.inMemory(server, { mode: 'modern' }));
  const b = await within(Client.inMemory(server, { mode: 'modern' }));
  try {
    await within(a.callTool('unlock', {}));
    assert.ok(names(await within(a.listTools())).includes('report'));
    assert.ok(!names(await within(b.listTools())).includes('report'));
  } finally {
    await a.close();
    await b.close();
  }
});

test('hideUnauthorized leaves out what the token may not use', async () => {
  const verify = async (token) => {
    const scope = { user: 'mcp:tools', admin: 'mcp:tools mcp:admin' }[token];
    return scope === undefined ? null : { sub: token, scope };
  };
  const server = new Server({ name: 'scoped', version: '1' });
  server.tool('status', () => 'ok');
  server.tool('wipe', { scopes: ['mcp:admin'] }, () => 'wiped');
  server.prompt('audit', { scopes: 'mcp:admin' }, () => 'audit');
  const auth = { resource: 'https://mcp.test/mcp', authorizationServers: ['https://as.test'], requiredScopes: ['mcp:tools'], hideUnauthorized: true, verify };
  const http = await server.startHttp({ port: 0, auth });
  try {
    for (const mode of ['legacy', 'modern']) {
      const user = await within(Client.http(http.url, { mode, headers: { Authorization: 'Bearer user' } }));
      try {
        assert.deepEqual(names(await within(user.listTools())), ['status']);
        assert.deepEqual(names(await within(user.listPrompts())), []);
        await assert.rejects(user.callTool('wipe', {}), /Unknown tool: wipe/);
      } finally {
        await user.close();
      }
      const admin = await within(Client.http(http.url, { mode, headers: { Authorization: 'Bearer admin' } }));
      try {
        assert.deepEqual(names(await within(admin.listTools())), ['status', 'wipe']);
        assert.equal((await within(admin.callTool('wipe', {}))).content[0].text, 'wiped');
      } finally {
        await admin.close();
      }
    }
  } finally {
    await within(http.stop(), 20_000, 'http.stop()');
  }
});

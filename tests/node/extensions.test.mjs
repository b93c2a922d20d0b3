// Extension negotiation (2026-07-28 basic/versioning.mdx): the server's extensions in
// capabilities.extensions of server/discover and initialize, the client's with each modern
// request and at initialize, ctx.clientExtension / ctx.requireExtension in handlers, and
// -32021 naming the extension a request needs.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client, MissingRequiredClientCapability, OptionError, Server } from 'hypermcp';
import { within } from './_helpers.mjs';

function makeServer() {
  const server = new Server({ name: 'ext', version: '1.0.0', extensions: { 'com.example/widgets': { maxWidgets: 3 }, 'io.modelcontextprotocol/ui': {} } });
  server.tool('widget', {}, (_args, ctx) => `widgets: ${JSON.stringify(ctx.requireExtension('com.example/widgets'))}`);
  server.tool('optional', {}, (_args, ctx) => (ctx.clientExtension('com.example/widgets') ? 'with widgets' : 'plain'));
  return server;
}

for (const mode of /** @type {const} */ (['legacy', 'modern'])) {
  test(`extensions are negotiated (${mode})`, async () => {
    const server = makeServer();
    let client = await within(Client.inMemory(server, { mode }));
    try {
      const ext = client.serverCapabilities?.extensions;
      assert.deepEqual(ext, { 'com.example/widgets': { maxWidgets: 3 }, 'io.modelcontextprotocol/ui': {} });
      await assert.rejects(within(client.callTool('widget', {})), (err) => {
        assert.ok(err instanceof MissingRequiredClientCapability, String(err));
        assert.equal(err.rpcCode, -32021);
        assert.deepEqual(err.data, { requiredCapabilities: { extensions: { 'com.example/widgets': {} } } });
        assert.match(err.message, /extension com\.example\/widgets/);
        return true;
      });
      assert.equal((await within(client.callTool('optional', {}))).content[0].text, 'plain');
    } finally {
      await client.close();
    }
    client = await within(Client.inMemory(server, { mode, extensions: { 'com.example/widgets': { theme: 'dark' } } }));
    try {
      assert.equal((await within(client.callTool('widget', {}))).content[0].text, 'widgets: {"theme":"dark"}');
      assert.equal((await within(client.callTool('optional', {}))).content[0].text, 'with widgets');
    } finally {
      await client.close();
    }
  });
}

test('extension ids and settings are checked', async () => {
  for (const extensions of [{ tasks: {} }, { 'com.example/x': [] }]) {
    const server = new Server({ name: 'bad', version: '1.0.0', extensions: /** @type {any} */ (extensions) });
    await assert.rejects(async () => {
      const c = await Client.inMemory(server);
      await c.close();
    }, (err) => err instanceof OptionError && /extension/.test(err.message));
  }
});

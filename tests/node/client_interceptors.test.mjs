// Client request interceptors in Node: every request the client sends passes them in order,
// in both eras, in memory and over HTTP; one changes the arguments, one answers by itself, one
// observes results and the server's errors, and one added later applies to the next call.
// Run: node --test tests/node/

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client, McpError, Server } from 'hypermcp';
import { within } from './_helpers.mjs';

function makeServer() {
  const server = new Server({ name: 'intercepted', version: '1' });
  server.tool('echo', { inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }, ({ text }) => text);
  server.tool('fail', () => {
    throw new McpError(-32042, 'not today');
  });
  return server;
}

function interceptors(seen) {
  return [
    async (request, next) => {
      seen.push(`-> ${request.method}`);
      try {
        const result = await next(request);
        seen.push(`<- ${request.method}`);
        return result;
      } catch (err) {
        seen.push(`!! ${request.method} ${err.rpcCode}`);
        throw err;
      }
    },
    (request, next) => {
      if (request.method === 'tools/call' && request.params?.name === 'echo') {
        request.params = { ...request.params, arguments: { text: request.params.arguments.text.toUpperCase() } };
      }
      return next(request);
    },
    (request, next) => {
      if (request.method === 'tools/call' && request.params?.name === 'local') {
        return { content: [{ type: 'text', text: 'answered here' }] };
      }
      return next(request);
    },
  ];
}

async function exercise(client, seen) {
  assert.equal((await within(client.callTool('echo', { text: 'hi' }))).content[0].text, 'HI');
  assert.equal((await within(client.callTool('local', {}))).content[0].text, 'answered here');
  const failed = await client.callTool('fail', {}).catch((e) => e);
  assert.ok(failed instanceof McpError && failed.rpcCode === -32042, String(failed));
  assert.deepEqual((await within(client.listTools())).tools.map((t) => t.name), ['echo', 'fail']);
  assert.deepEqual(seen.filter((s) => s.includes('tools/call')), [
    '-> tools/call', '<- tools/call', '-> tools/call', '<- tools/call', '-> tools/call', '!! tools/call -32042',
  ]);
  assert.ok(seen.includes('-> tools/list'));
  const later = [];
  client.addInterceptor((request, next) => (later.push(request.method), next(request)));
  await within(client.ping());
  assert.deepEqual(later, ['ping']);
  assert.throws(() => client.addInterceptor('nope'), /interceptor/);
}

for (const mode of /** @type {const} */ (['modern', 'legacy'])) {
  test(`interceptors in memory (${mode})`, async () => {
    const seen = [];
    const client = await within(Client.inMemory(makeServer(), { mode, interceptors: interceptors(seen) }));
    try {
      await exercise(client, seen);
    } finally {
      await client.close();
    }
  });

  test(`interceptors over HTTP (${mode})`, async () => {
    const http = await makeServer().startHttp({ port: 0 });
    try {
      const seen = [];
      const client = await within(Client.http(http.url, { mode, interceptors: interceptors(seen) }));
      try {
        await exercise(client, seen);
      } finally {
        await client.close();
      }
    } finally {
      await within(http.stop(), 20_000, 'http.stop()');
    }
  });
}

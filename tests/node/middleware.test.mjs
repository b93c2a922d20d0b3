// MCP middleware in Node (server.use, FastMCP's hooks): the order of two links' hooks, a
// guard, rewritten arguments, an answer of the middleware's own, a changed result, state read
// by the handler, hooks a link does not define stepped over, resources, prompts and
// completion, and a tool that elicits under middleware in both eras (a 2026-07-28 call passes
// the chain once per round), in memory and over HTTP. Run: node --test tests/node/

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client, McpError, Server, promptRef } from 'hypermcp';
import { within } from './_helpers.mjs';

function recorder(name, log) {
  const note = (hook, c) => log.push(`${name}:${hook}:${c.method}${c.round ? `:${c.round}` : ''}`);
  return {
    onMessage(c, next) {
      note('message', c);
      return next(c);
    },
    async onRequest(c, next) {
      note('request', c);
      return next(c);
    },
    async onCallTool(c, next) {
      note('call_tool', c);
      const result = await next(c);
      log.push(`${name}:call_tool:done`);
      return result;
    },
    onGetPrompt(c, next) {
      note('get_prompt', c);
      return next(c);
    },
  };
}

class ToolsOnly {
  constructor(log) {
    this.log = log;
  }
  async onCallTool(c, next) {
    this.log.push(`inner:call_tool:${c.message.name}`);
    const result = await next(c);
    this.log.push('inner:call_tool:done');
    return result;
  }
}

const policy = {
  async onCallTool(c, next) {
    const name = c.message.name;
    if (name === 'delete') throw new McpError(-32001, 'delete is not allowed here');
    if (name === 'cached') return 'from the middleware';
    if (name === 'shout') {
      c.message.arguments = { ...c.message.arguments, text: c.message.arguments.text.toUpperCase() };
      c.message.name = 'delete'; // not a way round the guard: "shout" still runs
    }
    if (name === 'who') c.setState('user', 'ada');
    const result = await next(c);
    return name === 'add' ? result * 10 : result;
  },
  async onReadResource(c, next) {
    return `[${await next(c)}]`;
  },
  onComplete(c, next) {
    return next(c).filter((v) => v !== 'hidden');
  },
};

function makeServer(log) {
  const text = { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] };
  const server = new Server({ name: 'mw', version: '1.0.0', middleware: [recorder('outer', log), new ToolsOnly(log)] });
  server.use(policy);
  server.tool('echo', { inputSchema: text }, ({ text }) => text);
  server.tool('shout', { inputSchema: text }, async ({ text }) => text);
  server.tool('add', { inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } } }, ({ a, b }) => a + b);
  server.tool('delete', {}, () => 'deleted (the guard let it through)');
  server.tool('cached', {}, () => 'from the handler');
  server.tool('who', {}, (_args, ctx) => `user: ${ctx.getState('user')}`);
  server.tool('ask', {}, async (_args, ctx) => {
    const answer = await ctx.elicit('Your name?', { type: 'object', properties: { name: { type: 'string' } } });
    return `hello ${answer.content?.name}`;
  });
  server.resource('notes://{name}', {}, (_uri, { name }) => `note ${name}`);
  server.prompt('greet', { arguments: [{ name: 'name', required: true }] }, ({ name }) => `Hello ${name}`);
  server.completion({ prompt: 'greet', argument: 'name' }, () => ['ada', 'hidden', 'alan']);
  return server;
}

const text = (r) => r.content[0].text;

async function exercise(client, log, modern) {
  log.length = 0;
  assert.equal(text(await within(client.callTool('echo', { text: 'hi' }))), 'hi');
  assert.deepEqual(log, [
    'outer:message:tools/call',
    'outer:request:tools/call',
    'outer:call_tool:tools/call',
    'inner:call_tool:echo',
    'inner:call_tool:done',
    'outer:call_tool:done',
  ]);
  await assert.rejects(client.callTool('delete', {}), (err) => err.rpcCode === -32001 && /not allowed/.test(err.message));
  assert.equal(text(await within(client.callTool('shout', { text: 'quiet' }))), 'QUIET');
  assert.equal(text(await within(client.callTool('cached', {}))), 'from the middleware');
  assert.equal(text(await within(client.callTool('who', {}))), 'user: ada');
  assert.equal(text(await within(client.callTool('add', { a: 2, b: 3 }))), '50');

  // Resources, prompts and completion pass the links that hook them (not ToolsOnly).
  log.length = 0;
  const read = await within(client.readResource('notes://n1'));
  assert.equal(read.contents[0].text, '[note n1]');
  const prompt = await within(client.getPrompt('greet', { name: 'Ada' }));
  assert.match(JSON.stringify(prompt.messages[0]), /Hello Ada/);
  assert.deepEqual(log, [
    'outer:message:resources/read',
    'outer:request:resources/read',
    'outer:message:prompts/get',
    'outer:request:prompts/get',
    'outer:get_prompt:prompts/get',
  ]);
  const done = await within(client.complete(promptRef('greet'), 'name', ''));
  assert.deepEqual(done.completion.values, ['ada', 'alan']);

  // A tool that elicits: legacy asks inside the one pass; 2026-07-28 ends the first round
  // with input_required and passes the chain again, as round 1, on the retry.
  log.length = 0;
  assert.equal(text(await within(client.callTool('ask', {}))), 'hello Ada');
  const messages = log.filter((l) => l.startsWith('outer:message'));
  assert.deepEqual(messages, modern ? ['outer:message:tools/call', 'outer:message:tools/call:1'] : ['outer:message:tools/call']);
}

const onElicitation = () => ({ action: 'accept', content: { name: 'Ada' } });

for (const mode of /** @type {const} */ (['modern', 'legacy'])) {
  test(`middleware in memory (${mode})`, async () => {
    const log = [];
    const client = await within(Client.inMemory(makeServer(log), { mode, onElicitation }));
    try {
      await exercise(client, log, mode === 'modern');
    } finally {
      await client.close();
    }
  });

  test(`middleware over HTTP (${mode})`, async () => {
    const log = [];
    const http = await makeServer(log).startHttp({ port: 0 });
    try {
      const client = await within(Client.http(http.url, { mode, onElicitation }));
      try {
        await exercise(client, log, mode === 'modern');
      } finally {
        await client.close();
      }
    } finally {
      await within(http.stop(), 20_000, 'http.stop()');
    }
  });
}

test('a link without hooks costs nothing; bad links are refused', () => {
  const server = new Server({ name: 'plain', version: '1' });
  assert.equal(server._chain, null);
  server.use({});
  assert.equal(server._chain, null);
  server.use(new ToolsOnly([]));
  assert.ok(server._chain.hooks('tools/call') && server._chain.hooks('prompts/get') === undefined);
  assert.throws(() => server.use(null), TypeError);
  assert.throws(() => server.use({ onCallTool: 'nope' }), /onCallTool must be a function/);
  assert.equal(server.middleware.length, 2);
});

test('a link that throws fails the tool and the server goes on', async () => {
  const server = new Server({ name: 'broken', version: '1' });
  server.use({
    onCallTool(c, next) {
      if (c.message.name === 'boom') throw new Error('the link broke');
      return next(c);
    },
  });
  server.tool('boom', {}, () => 'never');
  server.tool('fine', {}, () => 'fine');
  const client = await within(Client.inMemory(server));
  try {
    const failed = await within(client.callTool('boom', {}));
    assert.equal(failed.isError, true);
    assert.match(text(failed), /the link broke/);
    assert.equal(text(await within(client.callTool('fine', {}))), 'fine');
  } finally {
    await client.close();
  }
});

for (const mode of /** @type {const} */ (['modern', 'legacy'])) {
  test(`a list hook filters the list, then the engine pages it (${mode})`, async () => {
    const server = new Server({ name: 'lists', version: '1' });
    server.use({
      async onListTools(c, next) {
        assert.equal(c.method, 'tools/list');
        return (await next(c)).filter((t) => !t.name.startsWith('_'));
      },
      onListPrompts() {
        throw new McpError(-32001, 'prompts are not listed here');
      },
    });
    for (const name of ['a', '_b', 'c', '_d', 'e']) server.tool(name, () => 'ok');
    server.prompt('p', {}, () => 'p');
    server._registry.setPageSize(2);
    const check = async (client) => {
      const first = await within(client.request('tools/list', {}));
      assert.deepEqual(first.tools.map((t) => t.name), ['a', 'c']);
      const second = await within(client.request('tools/list', { cursor: first.nextCursor }));
      assert.deepEqual(second.tools.map((t) => t.name), ['e']);
      assert.equal(second.nextCursor, undefined);
      assert.deepEqual((await within(client.listTools())).tools.map((t) => t.name), ['a', 'c', 'e']);
      assert.equal((await client.listPrompts().catch((e) => e)).rpcCode, -32001);
      assert.equal(text(await within(client.callTool('_b', {}))), 'ok');
    };
    const memory = await within(Client.inMemory(server, { mode }));
    const http = await server.startHttp({ port: 0 });
    try {
      await check(memory);
      const remote = await within(Client.http(http.url, { mode }));
      try {
        await check(remote);
      } finally {
        await remote.close();
      }
    } finally {
      await memory.close();
      await within(http.stop(), 20_000, 'http.stop()');
    }
  });
}

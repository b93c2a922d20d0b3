// Tasks served by a Node server (io.modelcontextprotocol/tasks, 2026-07-28): a tool with
// `{ task: ... }` runs calls as tasks when the client declared the extension. The call is
// answered with the task at once; the handler goes on, owned by the server (it outlives the
// connection that started it), its progress the task's status message, its ctx.elicit the
// task's input requests, its return value or error the task's end, tasks/cancel aborting
// ctx.signal. `task: 'manual'` lets the handler decide (`await ctx.startTask()`). Over the
// in-memory connection (the stdio code path) and over HTTP, against the Node client.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  AbortError,
  Client,
  DefinitionError,
  InternalError,
  McpError,
  MissingRequiredClientCapability,
  Server,
  TaskHandle,
} from 'hypermcp';
import { within } from './_helpers.mjs';

const TASKS = 'io.modelcontextprotocol/tasks';
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** A server of task tools, and what its handlers saw. */
function makeServer() {
  const seen = { taskIds: [], cancelled: 0 };
  const server = new Server({ name: 'tasks-js', tasks: { pollInterval: 20 } });
  server.tool(
    'slow',
    { inputSchema: { type: 'object', properties: { ms: { type: 'number' }, label: { type: 'string' } } }, task: true },
    async (args, ctx) => {
      seen.taskIds.push(ctx.taskId);
      const label = args.label ?? 'slow';
      const work = new Promise((resolve, reject) => {
        const timer = setTimeout(resolve, args.ms ?? 100);
        ctx.signal.addEventListener('abort', () => {
          clearTimeout(timer);
          seen.cancelled += 1;
          reject(new Error('cancelled'));
        });
      });
      await ctx.reportProgress(1, 2, `${label}: half way`);
      await work;
      return `${label}: done`;
    },
  );
  server.tool('only_task', { task: 'required' }, async () => ({ content: [{ type: 'text', text: 'no disk' }], isError: true }));
  server.tool('broken', { task: true }, async () => {
    await sleep(10);
    throw new McpError(-32603, 'broken on purpose');
  });
  server.tool(
    'confirm',
    { inputSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] }, task: true },
    async (args, ctx) => {
      const answer = await ctx.elicit(`Delete ${args.name}?`, { type: 'object', properties: { ok: { type: 'boolean' } } });
      return answer.action === 'accept' && answer.content?.ok ? `deleted ${args.name}` : `kept ${args.name}`;
    },
  );
  server.tool(
    'decide',
    { inputSchema: { type: 'object', properties: { big: { type: 'boolean' } }, required: ['big'] }, task: 'manual' },
    async (args, ctx) => {
      if (args.big && (await ctx.startTask())) {
        assert.ok(ctx.taskId !== null && (await ctx.startTask()));
        await sleep(50);
        return 'big job done as a task';
      }
      return 'done at once';
    },
  );
  server.tool('plain', () => 'plain');
  return { server, seen };
}

const accept = async () => ({ action: 'accept', content: { ok: true } });
const text = (r) => r.content[0].text;

async function until(predicate, ms = 5000) {
  const end = Date.now() + ms;
  while (!(await predicate())) {
    if (Date.now() > end) assert.fail('condition not met in time');
    await sleep(10);
  }
}

test('a task tool answers with a task and its handler goes on', async () => {
  const { server, seen } = makeServer();
  const client = await within(Client.inMemory(server, { mode: 'modern', extensions: { [TASKS]: {} }, onElicitation: accept }));
  try {
    assert.ok(client.serverCapabilities?.extensions?.[TASKS]);
    // The raw answer is the created task; the handler knows its id.
    const raw = await within(client.request('tools/call', { name: 'slow', arguments: { ms: 50 } }));
    assert.equal(raw.resultType, 'task');
    assert.equal(raw.status, 'working');
    assert.equal(text(await within(client.task(raw.taskId).result())), 'slow: done');
    assert.deepEqual(seen.taskIds, [raw.taskId]);
    // callTool follows the task to its end; input goes to onElicitation.
    assert.equal(text(await within(client.callTool('slow', { label: 'follow' }))), 'follow: done');
    assert.equal(text(await within(client.callTool('confirm', { name: 'a.txt' }))), 'deleted a.txt');
    const failed = await within(client.callTool('only_task', {}));
    assert.equal(failed.isError, true);
    assert.equal(text(failed), 'no disk');
    await assert.rejects(within(client.callTool('broken', {})), InternalError);
    // The status message is the handler's progress.
    const handle = await within(client.callToolTask('slow', { ms: 5000, label: 'watch' }));
    assert.ok(handle instanceof TaskHandle);
    await until(async () => (await handle.status()).statusMessage === 'watch: half way');
    // Cancelling aborts the handler's signal.
    await within(handle.cancel());
    await until(() => seen.cancelled === 1);
    await assert.rejects(within(handle.result()), AbortError);
    assert.equal((await within(handle.status())).status, 'cancelled');
    assert.equal(text(await within(client.callTool('plain', {}))), 'plain');
    // Nothing is kept for handlers that ended, the cancelled one included.
    await until(() => server._taskRuntime.running === 0);
  } finally {
    await client.close();
  }
});

test('manual mode lets the handler decide', async () => {
  const { server } = makeServer();
  const client = await within(Client.inMemory(server, { mode: 'modern', tasks: true }));
  try {
    const small = await within(client.callToolTask('decide', { big: false }));
    assert.ok(!(small instanceof TaskHandle));
    assert.equal(text(small), 'done at once');
    const big = await within(client.callToolTask('decide', { big: true }));
    assert.ok(big instanceof TaskHandle);
    assert.equal(text(await within(big.result())), 'big job done as a task');
  } finally {
    await client.close();
  }
  // Without the extension, startTask() says no: the call goes on as an ordinary one.
  for (const mode of ['modern', 'legacy']) {
    const c = await within(Client.inMemory(server, { mode }));
    try {
      assert.equal(text(await within(c.callTool('decide', { big: true }))), 'done at once');
    } finally {
      await c.close();
    }
  }
});

test('clients without tasks get plain calls', async () => {
  const { server } = makeServer();
  const modern = await within(Client.inMemory(server, { mode: 'modern' }));
  try {
    assert.equal(text(await within(modern.callTool('slow', { ms: 0, label: 'sync' }))), 'sync: done');
    await assert.rejects(within(modern.callTool('only_task', {})), MissingRequiredClientCapability);
    await assert.rejects(within(modern.request('tasks/get', { taskId: 'nope' })), MissingRequiredClientCapability);
  } finally {
    await modern.close();
  }
  // A legacy session runs optional task tools synchronously; a required one is -32601.
  const legacy = await within(Client.inMemory(server, { mode: 'legacy' }));
  try {
    assert.equal(text(await within(legacy.callTool('slow', { ms: 0, label: 'legacy' }))), 'legacy: done');
    await assert.rejects(within(legacy.callTool('only_task', {})), (err) => err instanceof McpError && err.rpcCode === -32601);
  } finally {
    await legacy.close();
  }
});

test('a task outlives the connection that started it', async () => {
  const { server } = makeServer();
  const first = await within(Client.inMemory(server, { mode: 'modern', extensions: { [TASKS]: {} } }));
  const handle = await within(first.callToolTask('slow', { ms: 200, label: 'orphan' }));
  assert.ok(handle instanceof TaskHandle);
  await first.close();
  const other = await within(Client.inMemory(server, { mode: 'modern', extensions: { [TASKS]: {} } }));
  try {
    assert.equal(text(await within(other.task(handle.id).result())), 'orphan: done');
    await assert.rejects(within(other.task('not-a-task').status()), (err) => err instanceof McpError && err.rpcCode === -32602);
  } finally {
    await other.close();
  }
});

test('tasks over HTTP', async () => {
  const { server, seen } = makeServer();
  const h = await server.startHttp({ port: 0 });
  try {
    const client = await within(Client.http(h.url, { mode: 'modern', extensions: { [TASKS]: {} }, onElicitation: accept }));
    try {
      assert.equal(text(await within(client.callTool('slow', { label: 'http' }))), 'http: done');
      assert.equal(text(await within(client.callTool('confirm', { name: 'b' }))), 'deleted b');
      const big = await within(client.callToolTask('decide', { big: true }));
      assert.ok(big instanceof TaskHandle);
      assert.equal(text(await within(big.result())), 'big job done as a task');
      const handle = await within(client.callToolTask('slow', { ms: 5000 }));
      assert.ok(handle instanceof TaskHandle);
      await within(handle.cancel());
      await until(() => seen.cancelled === 1);
    } finally {
      await client.close();
    }
  } finally {
    await within(h.stop(), 15_000, 'stop');
  }
});

test('client sugar declares tasks and apps', async () => {
  const server = new Server({ name: 'sugar' });
  server.tool('extensions', (_args, ctx) => ({ content: [{ type: 'text', text: JSON.stringify(ctx.clientCapabilities.extensions ?? {}) }] }));
  const UI = 'io.modelcontextprotocol/ui';
  for (const mode of ['modern', 'legacy']) {
    let c = await within(Client.inMemory(server, { mode, tasks: true, apps: true }));
    try {
      assert.deepEqual(JSON.parse(text(await within(c.callTool('extensions', {})))), {
        [TASKS]: {},
        [UI]: { mimeTypes: ['text/html;profile=mcp-app'] },
      });
    } finally {
      await c.close();
    }
    // Explicit settings win over the sugar's.
    const ui = { mimeTypes: ['text/html;profile=mcp-app'], features: ['x'] };
    c = await within(Client.inMemory(server, { mode, apps: true, extensions: { [UI]: ui } }));
    try {
      assert.deepEqual(JSON.parse(text(await within(c.callTool('extensions', {})))), { [UI]: ui });
    } finally {
      await c.close();
    }
  }
});

test('bad task options are refused', () => {
  const server = new Server({ name: 'x' });
  assert.throws(() => server.tool('x', { task: 'sometimes' }, () => 'x'), DefinitionError);
  server.enableTasks({ ttl: 60_000 });
  assert.throws(() => server.enableTasks({ ttl: 10 }), DefinitionError);
});

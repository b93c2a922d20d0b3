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

test('legacy sessions serve the same tasks', async () => {
  // At 2025-11-25 the same handlers serve that revision's task methods: params.task runs a
  // task, tasks/result waits for its end and meanwhile sends its input requests to the
  // client (tagged with the task), tasks/get, tasks/cancel and tasks/list; a modern client's
  // task is the legacy client's too (no auth: one owner).
  const RELATED = 'io.modelcontextprotocol/related-task';
  const { server, seen } = makeServer();
  const asked = [];
  const onElicitation = async (params) => {
    asked.push(params);
    return { action: 'accept', content: { ok: true } };
  };
  const legacy = await within(Client.inMemory(server, { mode: 'legacy', onElicitation }));
  try {
    assert.equal(legacy.protocolVersion, '2025-11-25');
    const caps = legacy.serverCapabilities.tasks;
    assert.ok(caps.requests.tools.call && caps.list && caps.cancel);
    const { tools } = await within(legacy.listTools());
    const support = Object.fromEntries(tools.map((t) => [t.name, t.execution?.taskSupport]));
    assert.equal(support.slow, 'optional');
    assert.equal(support.only_task, 'required');
    assert.equal(support.plain, undefined);
    // A task that asks for input: tasks/result carries the question to the client.
    const { task } = await within(legacy.request('tools/call', { name: 'confirm', arguments: { name: 'c.txt' }, task: {} }));
    assert.equal(task.status, 'working');
    const result = await within(legacy.request('tasks/result', { taskId: task.taskId }));
    assert.equal(text(result), 'deleted c.txt');
    assert.deepEqual(result._meta[RELATED], { taskId: task.taskId });
    assert.equal(asked.length, 1);
    assert.deepEqual(asked[0]._meta[RELATED], { taskId: task.taskId });
    assert.equal((await within(legacy.request('tasks/get', { taskId: task.taskId }))).status, 'completed');
    await assert.rejects(
      within(legacy.request('tools/call', { name: 'plain', arguments: {}, task: {} })),
      (err) => err instanceof McpError && err.rpcCode === -32601,
    );
    // A modern client's task, followed and cancelled by the legacy client while a
    // tasks/result waits for it.
    const modern = await within(Client.inMemory(server, { mode: 'modern', tasks: true }));
    let handle;
    try {
      handle = await within(modern.callToolTask('slow', { ms: 5000, label: 'shared' }));
      assert.ok(handle instanceof TaskHandle);
      const got = await within(legacy.request('tasks/get', { taskId: handle.id }));
      assert.equal(got.status, 'working');
      let settled = false;
      const waiting = legacy.request('tasks/result', { taskId: handle.id });
      waiting.then(() => (settled = true), () => (settled = true));
      await sleep(50);
      assert.equal(settled, false);
      const cancelled = await within(legacy.request('tasks/cancel', { taskId: handle.id }));
      assert.equal(cancelled.status, 'cancelled');
      await assert.rejects(within(waiting), (err) => err instanceof McpError);
      await until(() => seen.cancelled === 1);
      assert.equal((await within(handle.status())).status, 'cancelled');
      await assert.rejects(
        within(legacy.request('tasks/cancel', { taskId: handle.id })),
        (err) => err instanceof McpError && err.rpcCode === -32602,
      );
    } finally {
      await modern.close();
    }
    const listed = await within(legacy.request('tasks/list', {}));
    const ids = listed.tasks.map((t) => t.taskId);
    assert.ok(ids.includes(task.taskId) && ids.includes(handle.id));
    // A tasks/result the client stops waiting for leaves the session serving.
    const long = await within(legacy.request('tools/call', { name: 'slow', arguments: { ms: 5000 }, task: {} }));
    await assert.rejects(legacy.request('tasks/result', { taskId: long.task.taskId }, { timeout: 100 }));
    assert.equal(text(await within(legacy.callTool('plain', {}))), 'plain');
    await within(legacy.request('tasks/cancel', { taskId: long.task.taskId }));
  } finally {
    await legacy.close();
  }
});

test('legacy clients follow tasks', async () => {
  // A 2025-11-25 client runs a tool as a task when the server's tools/list says so
  // (execution.taskSupport "required", or "optional" when the client declares tasks):
  // callTool sends params.task and follows the task with tasks/result (its input requests
  // through the client's handlers); callToolTask resolves with the handle.
  const { server, seen } = makeServer();
  const client = await within(Client.inMemory(server, { mode: 'legacy', tasks: true, onElicitation: accept }));
  try {
    await within(client.listTools());
    const failed = await within(client.callTool('only_task', {}));
    assert.equal(failed.isError, true);
    assert.equal(text(failed), 'no disk');
    assert.equal(text(await within(client.callTool('confirm', { name: 'd.txt' }))), 'deleted d.txt');
    assert.equal(text(await within(client.callTool('slow', { label: 'legacy' }))), 'legacy: done');
    assert.equal(seen.taskIds.length, 1);
    assert.ok(seen.taskIds[0]);
    await assert.rejects(within(client.callTool('broken', {})), InternalError);
    const handle = await within(client.callToolTask('slow', { ms: 50, label: 'handle' }));
    assert.ok(handle instanceof TaskHandle);
    assert.equal(text(await within(handle.result())), 'handle: done');
    assert.equal((await within(client.task(handle.id).status())).status, 'completed');
    const long = await within(client.callToolTask('slow', { ms: 5000 }));
    assert.ok(long instanceof TaskHandle);
    assert.equal((await within(long.status())).status, 'working');
    await within(long.cancel());
    await until(() => seen.cancelled === 1);
    await assert.rejects(within(long.result()), AbortError);
    // A call's own timeout cancels its task.
    await assert.rejects(client.callTool('slow', { ms: 5000, label: 'late' }, { timeout: 200 }));
    await until(() => seen.cancelled === 2);
    await until(() => server._taskRuntime.running === 0);
    assert.equal(text(await within(client.callTool('plain', {}))), 'plain');
  } finally {
    await client.close();
  }
  // Without tasks declared, an optional task tool is a plain call.
  const plain = await within(Client.inMemory(server, { mode: 'legacy' }));
  try {
    await within(plain.listTools());
    assert.equal(text(await within(plain.callTool('slow', { ms: 0, label: 'plain' }))), 'plain: done');
    assert.equal(seen.taskIds.at(-1), null);
  } finally {
    await plain.close();
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

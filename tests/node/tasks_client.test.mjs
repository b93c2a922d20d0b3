// Tasks from a Node client (io.modelcontextprotocol/tasks): against the Rust conformance
// server over stdio (2026-07-28), callTool reads the same whether the server ran the call as a
// task or not: the client follows the task (tasks/get), serves its input requests through
// onElicitation (answered with tasks/update) and resolves with its result; its error and a
// timeout (the task cancelled) reject; a raw request gets the task.
//
// Environment: HYPERMCP_CONFORMANCE_SERVER points at the Rust conformance server (default:
// target/release/examples/conformance_server, built by `make rust`).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { AbortError, Client, InternalError, MissingRequiredClientCapability, RequestTimeout, TaskHandle } from 'hypermcp';
import { within } from './_helpers.mjs';

const TASKS = 'io.modelcontextprotocol/tasks';

function server() {
  const file =
    process.env.HYPERMCP_CONFORMANCE_SERVER ||
    (process.env.HYPERMCP_BUILD ? `${process.env.HYPERMCP_BUILD}/examples/conformance_server` : fileURLToPath(new URL('../../target/release/examples/conformance_server', import.meta.url)));
  if (!existsSync(file)) assert.fail(`${file} is missing: cargo build --release -p hypermcp-examples --examples, or set HYPERMCP_CONFORMANCE_SERVER`);
  return file;
}

test('callTool follows a task to its result', async () => {
  const client = await within(
    Client.stdio(server(), ['--stdio'], {
      mode: 'modern',
      extensions: { [TASKS]: {} },
      onElicitation: async () => ({ action: 'accept', content: { confirm: true } }),
    }),
  );
  try {
    assert.ok(client.serverCapabilities?.extensions?.[TASKS]);
    let r = await within(client.callTool('slow_compute', { seconds: 0.3, label: 'js' }));
    assert.equal(r.content[0].text, 'js: done after 0.3 s');
    // The task's input request goes to onElicitation.
    r = await within(client.callTool('confirm_delete', { filename: 'a.txt' }));
    assert.equal(r.content[0].text, 'Deleted a.txt');
    r = await within(client.callTool('failing_job', {}));
    assert.equal(r.isError, true);
    await assert.rejects(within(client.callTool('protocol_error_job', {})), InternalError);
    await assert.rejects(within(client.callTool('slow_compute', { seconds: 30 }, { timeout: 300 })), RequestTimeout);
    // A raw request gets the task itself.
    const raw = await within(client.request('tools/call', { name: 'slow_compute', arguments: { seconds: 0 } }));
    assert.equal(raw.resultType, 'task');
    const got = await within(client.request('tasks/get', { taskId: raw.taskId }));
    assert.equal(got.taskId, raw.taskId);
  } finally {
    await client.close();
  }
});

test('a client without the extension gets plain calls', async () => {
  const client = await within(Client.stdio(server(), ['--stdio'], { mode: 'modern' }));
  try {
    const r = await within(client.callTool('slow_compute', { seconds: 0, label: 'sync' }));
    assert.equal(r.content[0].text, 'sync: done after 0 s');
    await assert.rejects(within(client.callTool('failing_job', {})), MissingRequiredClientCapability);
  } finally {
    await client.close();
  }
});

test('task handles', async () => {
  const client = await within(Client.stdio(server(), ['--stdio'], { mode: 'modern', extensions: { [TASKS]: {} } }));
  try {
    const handle = await within(client.callToolTask('slow_compute', { seconds: 0.3, label: 'h' }));
    assert.ok(handle instanceof TaskHandle);
    assert.ok(['working', 'completed'].includes((await within(handle.status())).status));
    // Any handle of the id waits for the same task.
    const result = await within(client.task(handle.id).result());
    assert.equal(result.content[0].text, 'h: done after 0.3 s');
    let slow = await within(client.callToolTask('slow_compute', { seconds: 30 }));
    assert.ok(slow instanceof TaskHandle);
    await assert.rejects(within(slow.result({ timeout: 200 })), RequestTimeout);
    assert.equal((await within(slow.status())).status, 'cancelled');
    slow = await within(client.callToolTask('slow_compute', { seconds: 30 }));
    assert.ok(slow instanceof TaskHandle);
    await within(slow.cancel());
    await assert.rejects(within(slow.result()), AbortError);
  } finally {
    await client.close();
  }
  const plain = await within(Client.stdio(server(), ['--stdio'], { mode: 'modern' }));
  try {
    const done = await within(plain.callToolTask('slow_compute', { seconds: 0, label: 'now' }));
    assert.ok(!(done instanceof TaskHandle));
    assert.equal(done.content[0].text, 'now: done after 0 s');
  } finally {
    await plain.close();
  }
});

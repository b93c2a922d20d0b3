#!/usr/bin/env node
// Drive the tasks of one of our conformance servers with the official TypeScript SDK client
// (@modelcontextprotocol/sdk 1.32.2, from ${PEERS:-<repo>/.peers}/npm) at 2025-11-25, the
// revision whose experimental task methods that SDK speaks: the same task tools the 2026-07-28
// tasks-* scenarios call, served to a legacy session by the same handlers.
//
//   node ts_sdk_tasks.mjs [--timeout SECONDS] ([--] CMD [ARGS...] | --url URL)
//
// Steps, each checked: initialize (2025-11-25, capabilities.tasks.requests.tools.call);
// tools/list (execution.taskSupport: slow_compute optional, failing_job required, greet none);
// callToolStream of slow_compute (created, then its result with the related-task _meta), of
// confirm_delete (the task's input request reaches the client's elicitation handler during
// tasks/result, tagged with the task) and of multi_input (two input requests at once); a
// failing_job call without a task is refused (-32601), with one its tasks/result is the tool's
// isError result; protocol_error_job's tasks/result is its JSON-RPC error; a long task is
// cancelled (tasks/cancel answers it cancelled, a second cancel is -32602); tasks/list holds
// every task made; an unknown task id is refused; greet with params.task is refused (-32601);
// notifications/tasks/status reached the client for its tasks. Exit 0 with one
// `ts_sdk_tasks: ok (...)` line on stdout, or print what failed to stderr and exit 1.
import { importPeer } from './peer_import.mjs';
import { check, CheckFailed, harness, settle } from './sdk_harness.mjs';

const PREFIX = 'ts_sdk_tasks';
const LEGACY = '2025-11-25';
const RELATED = 'io.modelcontextprotocol/related-task';
const METHOD_NOT_FOUND = -32601;
const INVALID_PARAMS = -32602;

const h = harness(PREFIX, 'ts_sdk_tasks.mjs');
const j = JSON.stringify;

/** Every message of a callToolStream, in order. */
async function collect(stream) {
  const out = [];
  for await (const m of stream) out.push(m);
  return out;
}

/** The text of a tool result's one text item. */
function textOf(result, what) {
  const wire = j(result);
  check(Array.isArray(result?.content) && result.content[0]?.type === 'text', `${what}: no text content: ${wire}`);
  return result.content[0].text;
}

/** Runs `fn`, which must reject with a JSON-RPC error of `code`; returns the error. */
async function refused(fn, code, what) {
  try {
    const v = await fn();
    throw new CheckFailed(`${what}: want error ${code}, got ${j(v)}`);
  } catch (e) {
    if (e instanceof CheckFailed) throw e;
    check(e?.code === code, `${what}: want error ${code}, got ${e?.code}: ${e?.message}`);
    return e;
  }
}

async function main() {
  check(h.target.kind !== 'sse', 'tasks are tested over stdio (-- CMD) or Streamable HTTP (--url)');
  let Client, types;
  try {
    ({ Client } = await importPeer('@modelcontextprotocol/sdk/client/index.js'));
    types = await importPeer('@modelcontextprotocol/sdk/types.js');
  } catch (e) {
    throw new CheckFailed(`cannot load the TypeScript SDK: ${e.message}`);
  }
  const { ElicitRequestSchema, TaskStatusNotificationSchema, CallToolResultSchema } = types;
  const done = [];

  const transport = await h.openTransport();
  const client = new Client(
    { name: 'hypermcp-interop-ts-tasks', version: '1.0.0' },
    { capabilities: { elicitation: { form: {} } }, defaultTaskPollInterval: 50 },
  );
  let closing = false;
  client.onerror = (e) => closing || process.stderr.write(`${PREFIX}: client error: ${e?.message ?? e}\n`);
  const elicitations = [];
  client.setRequestHandler(ElicitRequestSchema, (req) => {
    elicitations.push(req.params);
    const m = req.params.message;
    if (m.startsWith('Delete')) return { action: 'accept', content: { confirm: true } };
    if (m.startsWith('First')) return { action: 'accept', content: { name: 'Ada' } };
    return { action: 'accept', content: { name: 'Lovelace' } };
  });
  const statuses = [];
  client.setNotificationHandler(TaskStatusNotificationSchema, (n) => {
    statuses.push(n.params);
  });

  // ---- initialize
  await client.connect(transport);
  const caps = client.getServerCapabilities() ?? {};
  check(h.negotiated() === LEGACY, `negotiated ${h.negotiated()}, want ${LEGACY}`);
  check(caps.tasks?.requests?.tools?.call, `no capabilities.tasks.requests.tools.call at ${LEGACY}: ${j(caps)}`);
  check(caps.tasks?.list && caps.tasks?.cancel, `capabilities.tasks lacks list or cancel: ${j(caps.tasks)}`);
  done.push('initialize');

  // ---- tools/list: which tools run as tasks
  const { tools } = await client.listTools();
  const support = Object.fromEntries(tools.map((t) => [t.name, t.execution?.taskSupport]));
  check(support.slow_compute === 'optional', `slow_compute taskSupport ${j(support.slow_compute)}`);
  check(support.failing_job === 'required', `failing_job taskSupport ${j(support.failing_job)}`);
  check(support.greet === undefined || support.greet === 'forbidden', `greet taskSupport ${j(support.greet)}`);
  done.push('tools/list');

  const tasks = client.experimental.tasks;
  const made = [];

  // ---- a task that works, then answers
  {
    const msgs = await collect(tasks.callToolStream({ name: 'slow_compute', arguments: { seconds: 0.2, label: 'interop' } }));
    const created = msgs.find((m) => m.type === 'taskCreated');
    const result = msgs.find((m) => m.type === 'result');
    check(created?.task?.taskId && created.task.status === 'working', `slow_compute: no working task created: ${j(msgs)}`);
    made.push(created.task.taskId);
    check(result, `slow_compute: no result: ${j(msgs)}`);
    check(textOf(result.result, 'slow_compute') === 'interop: done after 0.2 s', `slow_compute result ${j(result.result)}`);
    check(
      result.result._meta?.[RELATED]?.taskId === created.task.taskId,
      `slow_compute: the result lacks the related-task _meta: ${j(result.result._meta)}`,
    );
    const task = await tasks.getTask(created.task.taskId);
    check(task.status === 'completed', `tasks/get after the end: ${j(task)}`);
    done.push('task');
  }

  // ---- a task that asks for input: tasks/result carries the input request to the client
  {
    const msgs = await collect(tasks.callToolStream({ name: 'confirm_delete', arguments: { filename: 'notes.txt' } }));
    const created = msgs.find((m) => m.type === 'taskCreated');
    const result = msgs.find((m) => m.type === 'result');
    check(created && result, `confirm_delete: ${j(msgs)}`);
    made.push(created.task.taskId);
    check(textOf(result.result, 'confirm_delete') === 'Deleted notes.txt', `confirm_delete result ${j(result.result)}`);
    const asked = elicitations.find((e) => e.message === 'Delete notes.txt?');
    check(asked, `confirm_delete: the client was not asked: ${j(elicitations)}`);
    check(asked._meta?.[RELATED]?.taskId === created.task.taskId, `the input request is not tied to its task: ${j(asked)}`);
    done.push('input');
  }
  {
    const msgs = await collect(tasks.callToolStream({ name: 'multi_input', arguments: {} }));
    const created = msgs.find((m) => m.type === 'taskCreated');
    const result = msgs.find((m) => m.type === 'result');
    check(created && result, `multi_input: ${j(msgs)}`);
    made.push(created.task.taskId);
    check(textOf(result.result, 'multi_input') === 'Hello, Ada Lovelace!', `multi_input result ${j(result.result)}`);
    done.push('two inputs');
  }

  // ---- a tool that runs only as a task, and its isError result
  await refused(
    () => client.request({ method: 'tools/call', params: { name: 'failing_job', arguments: {} } }, CallToolResultSchema),
    METHOD_NOT_FOUND,
    'failing_job without params.task',
  );
  {
    const msgs = await collect(tasks.callToolStream({ name: 'failing_job', arguments: {} }));
    const created = msgs.find((m) => m.type === 'taskCreated');
    check(created, `failing_job: no task: ${j(msgs)}`);
    made.push(created.task.taskId);
    const result = await tasks.getTaskResult(created.task.taskId, CallToolResultSchema);
    check(result.isError === true && textOf(result, 'failing_job').includes('disk full'), `failing_job result ${j(result)}`);
    done.push('isError');
  }

  // ---- a task that ends with a JSON-RPC error
  {
    const msgs = await collect(tasks.callToolStream({ name: 'protocol_error_job', arguments: {} }));
    const created = msgs.find((m) => m.type === 'taskCreated');
    check(created, `protocol_error_job: no task: ${j(msgs)}`);
    made.push(created.task.taskId);
    const task = await tasks.getTask(created.task.taskId);
    check(task.status === 'failed', `protocol_error_job status ${j(task)}`);
    const err = await refused(() => tasks.getTaskResult(created.task.taskId, CallToolResultSchema), -32603, 'its tasks/result');
    check(String(err.message).includes('the job hit an internal error'), `protocol_error_job error ${err.message}`);
    done.push('error');
  }

  // ---- cancellation
  {
    const stream = tasks.callToolStream({ name: 'slow_compute', arguments: { seconds: 30 } });
    const first = await stream.next();
    check(first.value?.type === 'taskCreated', `slow_compute (30 s): ${j(first.value)}`);
    const id = first.value.task.taskId;
    made.push(id);
    const cancelled = await tasks.cancelTask(id);
    check(cancelled.status === 'cancelled' && cancelled.taskId === id, `tasks/cancel answered ${j(cancelled)}`);
    const rest = await collect(stream);
    check(rest.some((m) => m.type === 'error'), `the stream of a cancelled task did not end in an error: ${j(rest)}`);
    check((await tasks.getTask(id)).status === 'cancelled', 'tasks/get after tasks/cancel');
    await refused(() => tasks.cancelTask(id), INVALID_PARAMS, 'a second tasks/cancel');
    done.push('cancel');
  }

  // ---- tasks/list, an unknown task, a tool that never runs as a task
  {
    const listed = [];
    let cursor;
    do {
      const page = await tasks.listTasks(cursor);
      listed.push(...page.tasks.map((t) => t.taskId));
      cursor = page.nextCursor;
    } while (cursor);
    for (const id of made) check(listed.includes(id), `tasks/list lacks ${id}: ${j(listed)}`);
    await refused(() => tasks.getTask('no-such-task'), INVALID_PARAMS, 'tasks/get of an unknown task');
    const msgs = await collect(tasks.callToolStream({ name: 'greet', arguments: {} }, undefined, { task: {} }));
    check(msgs[0]?.type === 'error' && msgs[0].error.code === METHOD_NOT_FOUND, `greet with params.task: ${j(msgs)}`);
    done.push('list');
  }

  // ---- the session was told of its tasks' changes
  await settle(() => made.every((id) => statuses.some((s) => s.taskId === id)), 3000);
  for (const id of made) check(statuses.some((s) => s.taskId === id), `no notifications/tasks/status for ${id}: ${j(statuses)}`);
  check(statuses.some((s) => s.status === 'completed') && statuses.some((s) => s.status === 'cancelled'), 'statuses seen');
  done.push('status notifications');

  closing = true;
  await client.close();
  return `${done.length} steps: ${done.join(', ')}; ${made.length} tasks, ${statuses.length} status notifications`;
}

h.finish(main(), (summary) => process.stdout.write(`${PREFIX}: ok (${summary})\n`));

// @ts-check
// The conformance server: exactly the tools, resources, resource template and prompts the
// server scenarios of @modelcontextprotocol/conformance call (the same server ships in Rust,
// examples/rust/conformance_server.rs, and Python, examples/python/conformance_server.py).
//
//     node examples/node/conformance_server.mjs --port 3000 [--host 127.0.0.1]   # Streamable HTTP at /mcp
//     node examples/node/conformance_server.mjs --stdio                          # stdio

import { parseArgs } from 'node:util';
import { audio, embeddedResource, image, InputRequired, McpError, Server } from 'hypermcp';

/** A 1x1 PNG, base64. */
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
/** A minimal WAV file, base64. */
const WAV = 'UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=';
/** What completion offers for `arg1` of `test_prompt_with_arguments`. */
const ARG1_VALUES = ['alpha', 'alpine', 'beta'];

const NO_ARGS = { type: 'object', properties: {} };

/** @param {number} ms */
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const server = new Server({ name: 'hypermcp-conformance', version: '1.0.0' });
// The skills extension's scenarios (sep-2640-skills-*): the example skills.
server.skills(new URL('../skills', import.meta.url));

// ---- tools ----------------------------------------------------------------------------------

server.tool(
  'test_simple_text',
  { description: 'Tests simple text content response', inputSchema: NO_ARGS },
  () => 'This is a simple text response for testing.',
);

server.tool('test_image_content', { description: 'Tests image content response', inputSchema: NO_ARGS }, () =>
  image(PNG, 'image/png'),
);

server.tool('test_audio_content', { description: 'Tests audio content response', inputSchema: NO_ARGS }, () =>
  audio(WAV, 'audio/wav'),
);

server.tool(
  'test_embedded_resource',
  { description: 'Tests embedded resource content response', inputSchema: NO_ARGS },
  () => embeddedResource({ uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'This is an embedded resource content.' }),
);

server.tool(
  'test_multiple_content_types',
  { description: 'Tests response with multiple content types (text, image, resource)', inputSchema: NO_ARGS },
  () => [
    'Multiple content types test:',
    image(PNG, 'image/png'),
    embeddedResource({
      uri: 'test://mixed-content-resource',
      mimeType: 'application/json',
      text: JSON.stringify({ test: 'data', value: 123 }),
    }),
  ],
);

server.tool(
  'test_tool_with_logging',
  { description: 'Tests tool that emits log messages during execution', inputSchema: NO_ARGS },
  async (_args, ctx) => {
    // Sent through the context: tied to this call (on HTTP, its own response stream).
    await ctx.info('Tool execution started');
    await sleep(50);
    await ctx.info('Tool processing data');
    await sleep(50);
    await ctx.info('Tool execution completed');
    return 'Tool with logging executed successfully';
  },
);

server.tool(
  'test_tool_with_progress',
  { description: 'Tests tool that reports progress notifications', inputSchema: NO_ARGS },
  async (_args, ctx) => {
    // Sent only when the call carried a progress token.
    for (const [i, step] of [0, 50, 100].entries()) {
      if (i > 0) await sleep(50);
      await ctx.reportProgress(step, 100, `Completed step ${step} of 100`);
    }
    return 'Tool with progress executed successfully';
  },
);

server.tool('test_error_handling', { description: 'Tests error response handling', inputSchema: NO_ARGS }, () => ({
  content: [{ type: 'text', text: 'This tool intentionally returns an error for testing' }],
  isError: true,
}));

server.tool(
  'test_sampling',
  {
    description: 'Tests server-initiated sampling (LLM completion request)',
    inputSchema: {
      type: 'object',
      properties: { prompt: { type: 'string', description: 'The prompt to send to the LLM' } },
      required: ['prompt'],
    },
  },
  async ({ prompt }, ctx) => {
    const answer = await ctx.sample([{ role: 'user', content: { type: 'text', text: String(prompt) } }], { maxTokens: 100 });
    // One content block, or (2025-11-25) an array of them.
    const blocks = Array.isArray(answer.content) ? answer.content : [answer.content];
    const block = blocks.find((b) => b?.type === 'text');
    return `LLM response: ${block?.type === 'text' ? block.text : ''}`;
  },
);

/**
 * `"<prefix>: action=<action>, content=<json>"` for an elicitation answer.
 * @param {import('hypermcp').Context} ctx @param {string} prefix @param {string} message
 * @param {import('hypermcp').JsonSchemaObject} schema
 */
async function elicit(ctx, prefix, message, schema) {
  const answer = await ctx.elicit(message, schema);
  return `${prefix}: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`;
}

server.tool(
  'test_elicitation',
  {
    description: 'Tests server-initiated elicitation (user input request)',
    inputSchema: {
      type: 'object',
      properties: { message: { type: 'string', description: 'The message to show the user' } },
      required: ['message'],
    },
  },
  ({ message }, ctx) =>
    elicit(ctx, 'User response', String(message), {
      type: 'object',
      properties: { response: { type: 'string', description: "User's response" } },
      required: ['response'],
    }),
);

server.tool(
  'test_elicitation_sep1034_defaults',
  { description: 'Tests elicitation with default values per SEP-1034', inputSchema: NO_ARGS },
  (_args, ctx) =>
    elicit(ctx, 'Elicitation completed', 'Please review and update the form fields with defaults', {
      type: 'object',
      properties: {
        name: { type: 'string', description: 'User name', default: 'John Doe' },
        age: { type: 'integer', description: 'User age', default: 30 },
        score: { type: 'number', description: 'User score', default: 95.5 },
        status: { type: 'string', description: 'User status', enum: ['active', 'inactive', 'pending'], default: 'active' },
        verified: { type: 'boolean', description: 'Verification status', default: true },
      },
    }),
);

server.tool(
  'test_elicitation_sep1330_enums',
  { description: 'Tests elicitation with enum schema improvements per SEP-1330', inputSchema: NO_ARGS },
  (_args, ctx) =>
    elicit(ctx, 'Elicitation completed', 'Please select options from the enum fields', {
      type: 'object',
      properties: {
        untitledSingle: { type: 'string', description: 'Select one option', enum: ['option1', 'option2', 'option3'] },
        titledSingle: {
          type: 'string',
          description: 'Select one option with titles',
          oneOf: [
            { const: 'value1', title: 'First Option' },
            { const: 'value2', title: 'Second Option' },
            { const: 'value3', title: 'Third Option' },
          ],
        },
        legacyEnum: {
          type: 'string',
          description: 'Select one option (legacy)',
          enum: ['opt1', 'opt2', 'opt3'],
          enumNames: ['Option One', 'Option Two', 'Option Three'],
        },
        untitledMulti: {
          type: 'array',
          description: 'Select multiple options',
          minItems: 1,
          maxItems: 3,
          items: { type: 'string', enum: ['option1', 'option2', 'option3'] },
        },
        titledMulti: {
          type: 'array',
          description: 'Select multiple options with titles',
          minItems: 1,
          maxItems: 3,
          items: {
            anyOf: [
              { const: 'value1', title: 'First Choice' },
              { const: 'value2', title: 'Second Choice' },
              { const: 'value3', title: 'Third Choice' },
            ],
          },
        },
      },
    }),
);

server.tool(
  'json_schema_2020_12_tool',
  {
    description: 'Tool with JSON Schema 2020-12 features for conformance testing (SEP-1613)',
    // A plain JSON Schema is listed as given ($schema, $defs, additionalProperties kept).
    inputSchema: {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      $defs: {
        address: { $anchor: 'addressDef', type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' } } },
      },
      properties: {
        name: { type: 'string' },
        address: { $ref: '#/$defs/address' },
        contactMethod: { type: 'string', enum: ['phone', 'email'] },
        phone: { type: 'string' },
        email: { type: 'string' },
      },
      allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
      if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
      then: { required: ['phone'] },
      else: { required: ['email'] },
      additionalProperties: false,
    },
  },
  (args) => `JSON Schema 2020-12 tool called with: ${JSON.stringify(args)}`,
);

server.tool(
  'test_reconnection',
  {
    description:
      'Tests SSE stream disconnection and client reconnection (SEP-1699): the server closes the stream mid-call ' +
      'and sends the result after the client reconnects',
    inputSchema: NO_ARGS,
  },
  async (_args, ctx) => {
    // Over HTTP the call's SSE stream closes now (priming event, retry hint); the client
    // reconnects with Last-Event-ID and gets the result below. On stdio this does nothing.
    ctx.closeSseStream();
    await sleep(100);
    return 'Reconnection test completed successfully. If you received this, the client properly reconnected after stream closure.';
  },
);

// ---- resources ------------------------------------------------------------------------------

server.resource(
  'test://static-text',
  { name: 'static-text', description: 'A static text resource for testing', mimeType: 'text/plain' },
  () => 'This is the content of the static text resource.',
);

server.resource(
  'test://static-binary',
  { name: 'static-binary', description: 'A static binary resource (image) for testing', mimeType: 'image/png' },
  (url) => ({ contents: [{ uri: url.href, mimeType: 'image/png', blob: PNG }] }),
);

server.resource(
  'test://template/{id}/data',
  { name: 'template', description: 'A resource template with parameter substitution', mimeType: 'application/json' },
  (_url, { id }) => JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }),
);

server.resource(
  'test://watched-resource',
  { name: 'watched-resource', description: 'A resource clients can subscribe to', mimeType: 'text/plain' },
  () => 'Watched resource content',
);

// ---- prompts --------------------------------------------------------------------------------

server.prompt('test_simple_prompt', { description: 'A simple prompt without arguments' }, () => 'This is a simple prompt for testing.');

server.prompt(
  'test_prompt_with_arguments',
  {
    description: 'A prompt with required arguments',
    arguments: [
      { name: 'arg1', description: 'First test argument', required: true },
      { name: 'arg2', description: 'Second test argument', required: true },
    ],
  },
  ({ arg1, arg2 }) => `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'`,
);

server.prompt(
  'test_prompt_with_embedded_resource',
  {
    description: 'A prompt that includes an embedded resource',
    arguments: [{ name: 'resourceUri', description: 'URI of the resource to embed', required: true }],
  },
  ({ resourceUri }) => [
    { role: 'user', content: embeddedResource({ uri: String(resourceUri), mimeType: 'text/plain', text: 'Embedded resource content for testing.' }) },
    { role: 'user', content: 'Please process the embedded resource above.' },
  ],
);

server.prompt('test_prompt_with_image', { description: 'A prompt that includes image content' }, () => [
  { role: 'user', content: image(PNG, 'image/png') },
  { role: 'user', content: 'Please analyze the image above.' },
]);

// ---- 2026-07-28: multi round-trip requests, stateless diagnostics, mirrored headers -----------
// Written with the era-neutral ctx calls: legacy clients get real requests from them.

/** A form asking for one string field. @param {string} field */
const ask = (field) => ({ type: 'object', properties: { [field]: { type: 'string' } }, required: [field] });

/** The text of a sampling answer. @param {any} r */
const answerText = (r) => {
  const c = r?.content;
  const block = Array.isArray(c) ? c.find((b) => b.type === 'text') : c;
  return block?.text ?? '';
};

server.tool(
  'test_input_required_result_elicitation',
  { description: 'Asks the user for their name (input key user_name), then greets them', inputSchema: NO_ARGS },
  async (_args, ctx) => {
    const a = await ctx.elicit('What is your name?', ask('name'), { key: 'user_name' });
    return `Hello, ${a.content?.name ?? ''}!`;
  },
);

server.tool(
  'test_input_required_result_sampling',
  { description: 'Asks the client model a question (input key capital_question)', inputSchema: NO_ARGS },
  async (_args, ctx) => {
    const r = await ctx.sample('What is the capital of France?', { maxTokens: 100 }, { key: 'capital_question' });
    return `Sampling response: ${answerText(r)}`;
  },
);

server.tool(
  'test_input_required_result_list_roots',
  { description: "Asks for the client's roots (input key client_roots)", inputSchema: NO_ARGS },
  async (_args, ctx) => `Client roots: ${(await ctx.listRoots({ key: 'client_roots' })).map((r) => r.uri).join(', ')}`,
);

server.tool(
  'test_input_required_result_request_state',
  { description: 'Returns its own input_required result with state of its own (the low-level form)', inputSchema: NO_ARGS },
  (_args, ctx) => {
    const confirmed = /** @type {any} */ (ctx.inputResponses?.confirm);
    if (ctx.requestState === 'awaiting-confirmation' && confirmed) return `state-ok: confirmed=${confirmed.content?.ok}`;
    const requestedSchema = { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] };
    throw new InputRequired(
      { confirm: { method: 'elicitation/create', params: { message: 'Please confirm', requestedSchema } } },
      'awaiting-confirmation',
    );
  },
);

server.tool(
  'test_input_required_result_multiple_inputs',
  { description: 'Asks for an elicitation, a sampling and the roots in one round', inputSchema: NO_ARGS },
  async (_args, ctx) => {
    const [name, greeting, roots] = await Promise.all([
      ctx.elicit('What is your name?', ask('name'), { key: 'user_name' }),
      ctx.sample('Generate a greeting', { maxTokens: 50 }, { key: 'greeting' }),
      ctx.listRoots({ key: 'client_roots' }),
    ]);
    return `name=${name.content?.name}, greeting=${answerText(greeting)}, roots=${roots.length}`;
  },
);

server.tool(
  'test_input_required_result_multi_round',
  { description: 'Asks two questions one after the other (two rounds)', inputSchema: NO_ARGS },
  async (_args, ctx) => {
    const name = await ctx.elicit('Step 1: What is your name?', ask('name'), { key: 'step1' });
    const color = await ctx.elicit('Step 2: What is your favorite color?', ask('color'), { key: 'step2' });
    return `${name.content?.name} likes ${color.content?.color}`;
  },
);

server.tool(
  'test_input_required_result_tampered_state',
  { description: 'Asks for a confirmation; its sealed requestState must come back intact', inputSchema: NO_ARGS },
  async (_args, ctx) => {
    const schema = { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] };
    const a = await ctx.elicit('Please confirm', schema, { key: 'confirm' });
    return `confirmed: ${a.content?.ok}`;
  },
);

server.tool(
  'test_input_required_result_capabilities',
  { description: 'Asks only for the inputs the client declared it can give', inputSchema: NO_ARGS },
  async (_args, ctx) => {
    const caps = ctx.clientCapabilities;
    const parts = [];
    if (caps.elicitation) parts.push(`name=${(await ctx.elicit('What is your name?', ask('name'), { key: 'user_name' })).content?.name}`);
    if (caps.sampling) {
      const r = await ctx.sample('What is the capital of France?', { maxTokens: 100 }, { key: 'capital_question' });
      parts.push(`answer=${answerText(r)}`);
    }
    return parts.join(', ') || 'no input capability declared';
  },
);

server.tool(
  'test_missing_capability',
  { description: 'Needs sampling: refused with -32021 when the request does not declare it', inputSchema: NO_ARGS },
  async (_args, ctx) => `LLM response: ${answerText(await ctx.sample('Say hello', { maxTokens: 20 }))}`,
);

server.tool(
  'test_streaming_elicitation',
  { description: 'Asks the user for their name and echoes the answer', inputSchema: NO_ARGS },
  async (_args, ctx) => {
    const a = await ctx.elicit('What is your name?', ask('name'));
    return `User response: action=${a.action}, content=${JSON.stringify(a.content ?? {})}`;
  },
);

server.tool('test_logging_tool', { description: 'Logs at info, then answers', inputSchema: NO_ARGS }, async (_args, ctx) => {
  await ctx.info('logging tool started');
  await ctx.warning('logging tool warning');
  return 'logged';
});

server.tool('test_trigger_tool_change', { description: 'Adds or removes test_dynamic_tool', inputSchema: NO_ARGS }, () => {
  if (!server.removeTool('test_dynamic_tool')) {
    server.tool('test_dynamic_tool', { description: 'Appears and disappears', inputSchema: NO_ARGS }, () => 'dynamic');
  }
  return 'tool list changed';
});

server.tool('test_trigger_prompt_change', { description: 'Adds or removes test_dynamic_prompt', inputSchema: NO_ARGS }, () => {
  if (!server.removePrompt('test_dynamic_prompt')) {
    server.prompt('test_dynamic_prompt', { description: 'Appears and disappears' }, () => 'dynamic');
  }
  return 'prompt list changed';
});

server.tool(
  'test_header_param',
  {
    description: 'Echoes a region mirrored into the Mcp-Param-Region header (x-mcp-header)',
    inputSchema: {
      type: 'object',
      properties: { region: { type: 'string', 'x-mcp-header': 'Region' }, query: { type: 'string' } },
      required: ['region'],
    },
  },
  (args) => `region=${args.region}`,
);

server.prompt(
  'test_input_required_result_prompt',
  { description: 'A prompt that asks the user for context first' },
  async (_args, ctx) => {
    const a = await ctx.elicit('What context should the prompt use?', ask('context'), { key: 'user_context' });
    return [{ role: 'user', content: `Context: ${a.content?.context}` }];
  },
);

server.completion({ prompt: 'test_prompt_with_arguments', argument: 'arg1' }, (value) =>
  ARG1_VALUES.filter((v) => v.startsWith(value)),
);

// ---- serving --------------------------------------------------------------------------------

// ---- the tasks extension's scenarios (tasks-*): tasks that run, fail, ask for input, are
// cancelled, and one that becomes a task after a multi round-trip round.

server.tool(
  'greet',
  { description: 'Greets someone at once (never a task)', inputSchema: { type: 'object', properties: { name: { type: 'string' } } } },
  (args) => `Hello, ${args.name ?? 'world'}!`,
);

server.tool(
  'slow_compute',
  {
    description: 'Works for `seconds` (a task when the client can follow one); stops when cancelled',
    inputSchema: { type: 'object', properties: { seconds: { type: 'number' }, label: { type: 'string' } } },
    task: true,
  },
  async (args, ctx) => {
    const seconds = Math.min(Math.max(Number(args.seconds ?? 1), 0), 600);
    const label = args.label ?? 'compute';
    await ctx.reportProgress(0, seconds, `${label}: started`);
    await new Promise((resolve, reject) => {
      const timer = setTimeout(resolve, seconds * 1000);
      ctx.signal.addEventListener('abort', () => {
        clearTimeout(timer);
        reject(new Error(`${label}: cancelled`));
      });
    });
    return `${label}: done after ${seconds} s`;
  },
);

server.tool('failing_job', { description: 'Runs only as a task, then fails with isError', inputSchema: NO_ARGS, task: 'required' }, async () => {
  await sleep(300);
  return { content: [{ type: 'text', text: 'the job failed: disk full' }], isError: true };
});

server.tool('protocol_error_job', { description: 'A task that ends with a JSON-RPC error', inputSchema: NO_ARGS, task: true }, async () => {
  await sleep(200);
  throw new McpError(-32603, 'the job hit an internal error');
});

server.tool(
  'confirm_delete',
  {
    description: 'Asks for confirmation (an input request of the task), then deletes',
    inputSchema: { type: 'object', properties: { filename: { type: 'string' } } },
    task: true,
  },
  async (args, ctx) => {
    const file = args.filename ?? 'file';
    const schema = { type: 'object', properties: { confirm: { type: 'boolean' } }, required: ['confirm'] };
    const answer = await ctx.elicit(`Delete ${file}?`, schema);
    return answer.action === 'accept' && answer.content?.confirm === true ? `Deleted ${file}` : `Kept ${file}`;
  },
);

server.tool('multi_input', { description: 'Asks two questions at once, then answers', inputSchema: NO_ARGS, task: true }, async (_args, ctx) => {
  const [first, last] = await Promise.all([
    ctx.elicit('First name?', ask('name'), { key: 'first' }),
    ctx.elicit('Last name?', ask('name'), { key: 'second' }),
  ]);
  return `Hello, ${first.content?.name} ${last.content?.name}!`;
});

server.tool(
  'test_tool_with_task',
  { description: 'Asks for a name (a multi round-trip round), then becomes a task that greets', inputSchema: NO_ARGS, task: 'manual' },
  async (_args, ctx) => {
    const answer = await ctx.elicit('Your name?', ask('name'), { key: 'user_name' });
    await ctx.startTask();
    await sleep(200);
    return `Hello, ${answer.content?.name}! (from a task)`;
  },
);

const { values: opts } = parseArgs({
  options: {
    port: { type: 'string', default: '3000' },
    host: { type: 'string', default: '127.0.0.1' },
    stdio: { type: 'boolean', default: false },
  },
});
const port = Number(opts.port);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`conformance_server: --port: not a port number: ${opts.port}`);
  process.exit(2);
}

const serving = opts.stdio
  ? server.run()
  : server.run({ transport: 'http', host: opts.host, port, path: '/mcp' });
serving.catch((err) => {
  console.error(err);
  process.exitCode = 1;
});

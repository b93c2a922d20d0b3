// @ts-check
// The conformance server: exactly the tools, resources, resource template and prompts the
// server scenarios of @modelcontextprotocol/conformance call (the same server ships in Rust,
// core/examples/conformance_server.rs, and Python, examples/python/conformance_server.py).
//
//     node examples/node/conformance_server.mjs --port 3000 [--host 127.0.0.1]   # Streamable HTTP at /mcp
//     node examples/node/conformance_server.mjs --stdio                          # stdio

import { parseArgs } from 'node:util';
import { audio, embeddedResource, image, Server } from 'hypermcp';

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
        address: { type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' } } },
      },
      properties: { name: { type: 'string' }, address: { $ref: '#/$defs/address' } },
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

server.completion({ prompt: 'test_prompt_with_arguments', argument: 'arg1' }, (value) =>
  ARG1_VALUES.filter((v) => v.startsWith(value)),
);

// ---- serving --------------------------------------------------------------------------------

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

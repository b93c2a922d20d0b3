// The Node conformance server (examples/node/conformance_server.mjs) over stdio, driven by the
// hypermcp Node client: every tool, resource, template, prompt and completion the conformance
// suite calls, with the client answering sampling and elicitation and recording logs and
// progress.
//
// Run: node --test tests/node/conformance_server.test.mjs

import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, promptRef, ResourceNotFound, InvalidParams } from '../../bindings-node/js/index.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const SERVER = path.join(ROOT, 'examples/node/conformance_server.mjs');

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
const WAV = 'UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=';

const TOOLS = [
  'json_schema_2020_12_tool',
  'test_audio_content',
  'test_elicitation',
  'test_elicitation_sep1034_defaults',
  'test_elicitation_sep1330_enums',
  'test_embedded_resource',
  'test_error_handling',
  'test_header_param',
  'test_image_content',
  'test_input_required_result_capabilities',
  'test_input_required_result_elicitation',
  'test_input_required_result_list_roots',
  'test_input_required_result_multi_round',
  'test_input_required_result_multiple_inputs',
  'test_input_required_result_request_state',
  'test_input_required_result_sampling',
  'test_input_required_result_tampered_state',
  'test_logging_tool',
  'test_missing_capability',
  'test_multiple_content_types',
  'test_reconnection',
  'test_sampling',
  'test_simple_text',
  'test_streaming_elicitation',
  'test_tool_with_logging',
  'test_tool_with_progress',
  'test_trigger_prompt_change',
  'test_trigger_tool_change',
  // The tasks extension's scenarios (tasks-*).
  'confirm_delete',
  'failing_job',
  'greet',
  'multi_input',
  'protocol_error_job',
  'slow_compute',
  'test_tool_with_task',
];

const JSON_SCHEMA_2020_12 = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  $defs: {
    address: {
      $anchor: 'addressDef',
      type: 'object',
      properties: { street: { type: 'string' }, city: { type: 'string' } },
    },
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
};

/** Each test body is bounded. */
const LIMIT = { timeout: 30_000 };

/** A client of a fresh conformance server, and what its handlers saw. */
async function conformance() {
  const peer = {
    sampling: [],
    elicitations: [],
    logs: [],
    elicitAnswer: { action: 'accept', content: { response: 'yes' } },
  };
  const client = await Client.stdio(process.execPath, [SERVER, '--stdio'], {
    timeout: 10_000,
    onSampling: (params) => {
      peer.sampling.push(params);
      const asked = params.messages[0].content.text;
      return { role: 'assistant', content: { type: 'text', text: `echo ${asked}` }, model: 'test-model' };
    },
    onElicitation: (params) => {
      peer.elicitations.push(params);
      return peer.elicitAnswer;
    },
    onLog: (params) => peer.logs.push(params),
  });
  return { client, peer };
}

/** `[action, content]` of `"<prefix>: action=<a>, content=<json>"`. */
function contentAfter(text, prefix) {
  const head = `${prefix}: action=`;
  assert.ok(text.startsWith(head), text);
  const rest = text.slice(head.length);
  const at = rest.indexOf(', content=');
  assert.notEqual(at, -1, text);
  return [rest.slice(0, at), JSON.parse(rest.slice(at + ', content='.length))];
}

test('capabilities and lists', LIMIT, async () => {
  const { client } = await conformance();
  try {
    const caps = client.serverCapabilities;
    assert.deepEqual(caps.tools, { listChanged: true });
    assert.deepEqual(caps.resources, { subscribe: true, listChanged: true });
    assert.deepEqual(caps.prompts, { listChanged: true });
    assert.deepEqual(caps.logging, {});
    assert.deepEqual(caps.completions, {});

    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), [...TOOLS].sort());
    for (const t of tools) {
      assert.ok(t.description, t.name);
      assert.equal(t.inputSchema.type, 'object', t.name);
    }
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    assert.deepEqual(byName.json_schema_2020_12_tool.inputSchema, JSON_SCHEMA_2020_12);
    assert.deepEqual(byName.test_sampling.inputSchema.required, ['prompt']);
    assert.deepEqual(byName.test_elicitation.inputSchema.required, ['message']);

    const { resources } = await client.listResources();
    assert.deepEqual(
      resources.map((r) => [r.uri, r.mimeType]).sort(),
      [
        // The example skills' SKILL.md files (the skills extension's scenarios).
        ['skill://acme/billing/refunds/SKILL.md', 'text/markdown'],
        ['skill://git-workflow/SKILL.md', 'text/markdown'],
        ['skill://git-workflow/commit-message/SKILL.md', 'text/markdown'],
        ['skill://pdf-processing/SKILL.md', 'text/markdown'],
        ['test://static-binary', 'image/png'],
        ['test://static-text', 'text/plain'],
        ['test://watched-resource', 'text/plain'],
      ],
    );
    assert.ok(resources.every((r) => r.name));
    const { resourceTemplates } = await client.listResourceTemplates();
    assert.deepEqual(
      resourceTemplates.map((t) => [t.uriTemplate, t.mimeType]),
      [['test://template/{id}/data', 'application/json']],
    );
    assert.ok(resourceTemplates[0].name);

    const { prompts } = await client.listPrompts();
    assert.deepEqual(prompts.map((p) => p.name).sort(), [
      'test_input_required_result_prompt',
      'test_prompt_with_arguments',
      'test_prompt_with_embedded_resource',
      'test_prompt_with_image',
      'test_simple_prompt',
    ]);
    assert.ok(prompts.every((p) => p.description));
    const args = (name) => prompts.find((p) => p.name === name).arguments.map((a) => [a.name, a.required]);
    assert.deepEqual(args('test_prompt_with_arguments'), [['arg1', true], ['arg2', true]]);
    assert.deepEqual(args('test_prompt_with_embedded_resource'), [['resourceUri', true]]);
  } finally {
    await client.close();
  }
});

test('content tools and the error tool', LIMIT, async () => {
  const { client } = await conformance();
  try {
    let r = await client.callTool('test_simple_text', {});
    assert.ok(!r.isError);
    assert.deepEqual(r.content, [{ type: 'text', text: 'This is a simple text response for testing.' }]);

    r = await client.callTool('test_image_content', {});
    assert.deepEqual(r.content, [{ type: 'image', data: PNG, mimeType: 'image/png' }]);

    r = await client.callTool('test_audio_content', {});
    assert.deepEqual(r.content, [{ type: 'audio', data: WAV, mimeType: 'audio/wav' }]);

    r = await client.callTool('test_embedded_resource', {});
    assert.deepEqual(r.content, [
      {
        type: 'resource',
        resource: { uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'This is an embedded resource content.' },
      },
    ]);

    r = await client.callTool('test_multiple_content_types', {});
    assert.equal(r.content.length, 3);
    assert.deepEqual(r.content[0], { type: 'text', text: 'Multiple content types test:' });
    assert.deepEqual(r.content[1], { type: 'image', data: PNG, mimeType: 'image/png' });
    assert.equal(r.content[2].type, 'resource');
    const embedded = r.content[2].resource;
    assert.deepEqual([embedded.uri, embedded.mimeType], ['test://mixed-content-resource', 'application/json']);
    assert.deepEqual(JSON.parse(embedded.text), { test: 'data', value: 123 });

    r = await client.callTool('test_error_handling', {});
    assert.equal(r.isError, true);
    assert.deepEqual(r.content, [{ type: 'text', text: 'This tool intentionally returns an error for testing' }]);
  } finally {
    await client.close();
  }
});

test('logging and progress', LIMIT, async () => {
  const { client, peer } = await conformance();
  try {
    const start = performance.now();
    let r = await client.callTool('test_tool_with_logging', {});
    const elapsed = performance.now() - start;
    assert.ok(!r.isError && r.content[0].text);
    // All three arrived before the result, at info level, about 50 ms apart.
    assert.deepEqual(
      peer.logs.map((p) => [p.level, p.data]),
      [
        ['info', 'Tool execution started'],
        ['info', 'Tool processing data'],
        ['info', 'Tool execution completed'],
      ],
    );
    assert.ok(elapsed >= 90, `took ${elapsed} ms`);

    // Below the client's level: nothing is sent.
    await client.setLoggingLevel('warning');
    peer.logs.length = 0;
    r = await client.callTool('test_tool_with_logging', {});
    assert.ok(!r.isError);
    assert.deepEqual(peer.logs, []);

    const progress = [];
    r = await client.callTool('test_tool_with_progress', {}, { onProgress: (p) => progress.push(p) });
    assert.ok(!r.isError && r.content[0].text);
    assert.deepEqual(
      progress.map((p) => [p.progress, p.total]),
      [
        [0, 100],
        [50, 100],
        [100, 100],
      ],
    );

    // Without a progress token the tool still answers.
    r = await client.callTool('test_tool_with_progress', {});
    assert.ok(!r.isError && r.content[0].text);
  } finally {
    await client.close();
  }
});

test('sampling', LIMIT, async () => {
  const { client, peer } = await conformance();
  try {
    const r = await client.callTool('test_sampling', { prompt: 'What is 2+2?' });
    assert.ok(!r.isError);
    assert.equal(r.content[0].text, 'LLM response: echo What is 2+2?');
    assert.equal(peer.sampling.length, 1);
    assert.deepEqual(peer.sampling[0].messages, [{ role: 'user', content: { type: 'text', text: 'What is 2+2?' } }]);
    assert.equal(peer.sampling[0].maxTokens, 100);
  } finally {
    await client.close();
  }
});

test('elicitation tools', LIMIT, async () => {
  const { client, peer } = await conformance();
  try {
    let r = await client.callTool('test_elicitation', { message: 'Your name?' });
    assert.ok(!r.isError);
    assert.deepEqual(contentAfter(r.content[0].text, 'User response'), ['accept', { response: 'yes' }]);
    let asked = peer.elicitations.at(-1);
    assert.equal(asked.message, 'Your name?');
    assert.equal(asked.requestedSchema.type, 'object');
    assert.equal(asked.requestedSchema.properties.response.type, 'string');
    assert.deepEqual(asked.requestedSchema.required, ['response']);

    peer.elicitAnswer = { action: 'decline' };
    r = await client.callTool('test_elicitation', { message: 'Again?' });
    assert.deepEqual(contentAfter(r.content[0].text, 'User response'), ['decline', {}]);

    peer.elicitAnswer = { action: 'accept', content: { name: 'Ada', age: 36 } };
    r = await client.callTool('test_elicitation_sep1034_defaults', {});
    assert.deepEqual(contentAfter(r.content[0].text, 'Elicitation completed'), ['accept', { name: 'Ada', age: 36 }]);
    let props = peer.elicitations.at(-1).requestedSchema.properties;
    assert.deepEqual(
      Object.fromEntries(Object.entries(props).map(([k, v]) => [k, [v.type, v.default]])),
      {
        name: ['string', 'John Doe'],
        age: ['integer', 30],
        score: ['number', 95.5],
        status: ['string', 'active'],
        verified: ['boolean', true],
      },
    );
    assert.deepEqual(props.status.enum, ['active', 'inactive', 'pending']);

    peer.elicitAnswer = { action: 'cancel' };
    r = await client.callTool('test_elicitation_sep1330_enums', {});
    assert.deepEqual(contentAfter(r.content[0].text, 'Elicitation completed'), ['cancel', {}]);
    props = peer.elicitations.at(-1).requestedSchema.properties;
    assert.deepEqual(props.untitledSingle.enum, ['option1', 'option2', 'option3']);
    assert.deepEqual(props.titledSingle.oneOf.map((o) => o.const), ['value1', 'value2', 'value3']);
    assert.equal(props.titledSingle.oneOf[0].title, 'First Option');
    assert.deepEqual(props.legacyEnum.enumNames, ['Option One', 'Option Two', 'Option Three']);
    assert.deepEqual(props.untitledMulti.items.enum, ['option1', 'option2', 'option3']);
    assert.deepEqual(props.titledMulti.items.anyOf[0], { const: 'value1', title: 'First Choice' });
    assert.equal(peer.elicitations.length, 4);
  } finally {
    await client.close();
  }
});

test('the JSON Schema 2020-12 tool and the reconnection tool', LIMIT, async () => {
  const { client } = await conformance();
  try {
    const args = { name: 'Ada', address: { street: '1 Main St', city: 'London' }, email: 'ada@example.com' };
    let r = await client.callTool('json_schema_2020_12_tool', args);
    assert.ok(!r.isError);
    const prefix = 'JSON Schema 2020-12 tool called with: ';
    assert.ok(r.content[0].text.startsWith(prefix), r.content[0].text);
    assert.deepEqual(JSON.parse(r.content[0].text.slice(prefix.length)), args);
    // additionalProperties: false is enforced.
    r = await client.callTool('json_schema_2020_12_tool', { extra: 1 });
    assert.equal(r.isError, true);

    const start = performance.now();
    r = await client.callTool('test_reconnection', {});
    assert.ok(!r.isError);
    assert.ok(r.content[0].text.startsWith('Reconnection test completed successfully.'), r.content[0].text);
    assert.ok(performance.now() - start >= 90);
  } finally {
    await client.close();
  }
});

test('resources and subscriptions', LIMIT, async () => {
  const { client } = await conformance();
  try {
    let r = await client.readResource('test://static-text');
    assert.deepEqual(r.contents, [
      { uri: 'test://static-text', mimeType: 'text/plain', text: 'This is the content of the static text resource.' },
    ]);
    r = await client.readResource('test://static-binary');
    assert.deepEqual(r.contents, [{ uri: 'test://static-binary', mimeType: 'image/png', blob: PNG }]);
    r = await client.readResource('test://template/123/data');
    assert.equal(r.contents.length, 1);
    assert.deepEqual([r.contents[0].uri, r.contents[0].mimeType], ['test://template/123/data', 'application/json']);
    assert.deepEqual(JSON.parse(r.contents[0].text), { id: '123', templateTest: true, data: 'Data for ID: 123' });
    r = await client.readResource('test://watched-resource');
    assert.deepEqual(
      r.contents.map((c) => [c.uri, c.mimeType]),
      [['test://watched-resource', 'text/plain']],
    );
    assert.ok(r.contents[0].text);

    assert.deepEqual(await client.subscribeResource('test://watched-resource'), {});
    assert.deepEqual(await client.unsubscribeResource('test://watched-resource'), {});
    // -32002 on a legacy session, -32602 (InvalidParams) at 2026-07-28.
    await assert.rejects(client.readResource('test://missing'), client.modern ? InvalidParams : ResourceNotFound);
    assert.deepEqual(await client.ping(), {});
  } finally {
    await client.close();
  }
});

test('prompts and completion', LIMIT, async () => {
  const { client } = await conformance();
  try {
    let p = await client.getPrompt('test_simple_prompt');
    assert.deepEqual(p.messages, [{ role: 'user', content: { type: 'text', text: 'This is a simple prompt for testing.' } }]);

    p = await client.getPrompt('test_prompt_with_arguments', { arg1: 'one', arg2: 'two' });
    assert.deepEqual(p.messages, [
      { role: 'user', content: { type: 'text', text: "Prompt with arguments: arg1='one', arg2='two'" } },
    ]);
    await assert.rejects(client.getPrompt('test_prompt_with_arguments', { arg1: 'one' }), InvalidParams);

    p = await client.getPrompt('test_prompt_with_embedded_resource', { resourceUri: 'test://doc' });
    assert.deepEqual(p.messages, [
      {
        role: 'user',
        content: {
          type: 'resource',
          resource: { uri: 'test://doc', mimeType: 'text/plain', text: 'Embedded resource content for testing.' },
        },
      },
      { role: 'user', content: { type: 'text', text: 'Please process the embedded resource above.' } },
    ]);

    p = await client.getPrompt('test_prompt_with_image');
    assert.deepEqual(p.messages, [
      { role: 'user', content: { type: 'image', data: PNG, mimeType: 'image/png' } },
      { role: 'user', content: { type: 'text', text: 'Please analyze the image above.' } },
    ]);

    const ref = promptRef('test_prompt_with_arguments');
    assert.deepEqual((await client.complete(ref, 'arg1', '')).completion.values, ['alpha', 'alpine', 'beta']);
    assert.deepEqual((await client.complete(ref, 'arg1', 'alp')).completion.values, ['alpha', 'alpine']);
    assert.deepEqual((await client.complete(ref, 'arg2', '')).completion.values, []);
  } finally {
    await client.close();
  }
});

// The tables the three languages share live once, as fixtures (tests/fixtures/): Node's side
// of each must match. Run: node --test tests/node/

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as hypermcp from 'hypermcp';

const require = createRequire(import.meta.url);
const fixture = (name) => JSON.parse(readFileSync(new URL(`../fixtures/${name}`, import.meta.url), 'utf8'));

test('error codes and classes match the fixture', () => {
  const table = fixture('errors.json');
  for (const [name, code] of Object.entries(table.codes)) assert.equal(hypermcp[name], code, name);
  for (const entry of table.classes) {
    const code = table.codes[entry.code];
    const made = hypermcp.errorFromObject({ code, message: 'm', data: { d: 1 } });
    assert.equal(made.rpcCode, code);
    assert.equal(made.message, 'm');
    assert.equal(made.code, entry.node_code, entry.code);
    if (entry.node === null) {
      assert.equal(made.constructor, hypermcp.McpError);
    } else {
      assert.equal(made.constructor, hypermcp[entry.node], entry.code);
      assert.ok(made instanceof hypermcp.McpError);
    }
  }
  for (const entry of table.other) {
    const cls = hypermcp[entry.node];
    const err = new cls('m');
    assert.ok(err instanceof globalThis[entry.node_base], entry.node);
    assert.ok(!(err instanceof hypermcp.McpError));
    assert.equal(err.code, entry.node_code);
  }
});

test('native errors are the classes of the table, with their codes', () => {
  const native = require('../../bindings-node/js/native.cjs');
  const registry = new native.Registry();
  assert.throws(
    () => registry.addTool(JSON.stringify({ name: 'bad', inputSchema: { type: 'string' } })),
    (err) => err instanceof hypermcp.DefinitionError && err.code === 'ERR_MCP_DEFINITION',
  );
  assert.throws(
    () => native.HttpServer.checkOptions(JSON.stringify({ bogus: 1 })),
    (err) => err instanceof hypermcp.OptionError && err instanceof TypeError && /bogus/.test(err.message),
  );
  const session = new native.ClientSession('c', '1', null, null, null);
  assert.throws(
    () => session.request('tools/list', null, null, false, false),
    (err) => err instanceof hypermcp.McpError && typeof err.rpcCode === 'number' && err.code.startsWith('ERR_MCP_'),
  );
});

test('event layouts match the fixture', () => {
  const E = require('../../bindings-node/js/events.cjs');
  const table = fixture('events.json').layouts;
  assert.deepEqual(Object.fromEntries(E.LAYOUTS), table);
  assert.equal(E.TOOL_NAME, table.tool.indexOf('name') + 1);
  assert.equal(E.RESOURCE_VARIABLES, table.resource.indexOf('variables') + 1);
  assert.equal(E.RESPONSE_RESULT, table.response.indexOf('result') + 1);
  assert.equal(E.PROGRESS_MESSAGE, table.progress.indexOf('message') + 1);
  assert.deepEqual([...E.CALLS].sort(), ['complete', 'elicitation', 'list', 'method', 'prompt', 'resource', 'roots', 'sampling', 'tool']);
});

/** The Client options that ask for a case's features (Node's names for them). */
function clientOptions(features) {
  const options = {};
  if (features.sampling) options.onSampling = () => ({});
  if (features.elicitation) options.onElicitation = () => ({ action: 'decline' });
  if (features.elicitation_url) options.elicitationUrl = true;
  if (features.roots) options.roots = ['file:///r'];
  for (const flag of ['tasks', 'apps', 'extensions', 'capabilities']) {
    if (flag in features) options[flag] = features[flag];
  }
  return options;
}

test('client capabilities match the fixture', async (t) => {
  const server = new hypermcp.Server({ name: 'caps', version: '1' });
  server.tool('declared', {}, (_args, ctx) => JSON.stringify(ctx.clientCapabilities));
  for (const c of fixture('client_capabilities.json').cases) {
    await t.test(c.name, async () => {
      const options = clientOptions(c.features);
      if (c.error) {
        await assert.rejects(async () => hypermcp.Client.inMemory(server, options), /needs an onElicitation handler/);
        return;
      }
      const client = await hypermcp.Client.inMemory(server, options);
      try {
        const result = await client.callTool('declared', {});
        assert.deepEqual(JSON.parse(result.content[0].text), c.capabilities);
      } finally {
        await client.close();
      }
    });
  }
});

#!/usr/bin/env node
// The official TypeScript SDK client (@modelcontextprotocol/sdk 1.32.2) against a server of
// the framework layer (framework_server.py or .mjs): a list hook hides `_debug`, a guard
// refuses `delete` with its own error, a hook rewrites `shout`'s arguments, and `unlock`
// shows this session the `premium` tools (told by list_changed) that were hidden, and called
// by name "not found", before.
//
//   node ts_sdk_framework.mjs [--timeout SECONDS] [--] CMD [ARGS...]   stdio
//   node ts_sdk_framework.mjs [--timeout SECONDS] --url URL            Streamable HTTP
import { importPeer } from './peer_import.mjs';
import { check, CheckFailed, harness } from './sdk_harness.mjs';

const PREFIX = 'ts_sdk_framework';
const h = harness(PREFIX, 'ts_sdk_framework.mjs');

async function main() {
  let Client, ToolListChangedNotificationSchema;
  try {
    ({ Client } = await importPeer('@modelcontextprotocol/sdk/client/index.js'));
    ({ ToolListChangedNotificationSchema } = await importPeer('@modelcontextprotocol/sdk/types.js'));
  } catch (e) {
    throw new CheckFailed(`cannot load the TypeScript SDK: ${e.message}`);
  }
  const transport = await h.openTransport();
  const client = new Client({ name: 'hypermcp-framework-ts', version: '1.0.0' }, { capabilities: {} });
  let changed;
  const listChanged = new Promise((resolve) => (changed = resolve));
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => changed());
  await client.connect(transport);

  const names = async () => (await client.listTools()).tools.map((t) => t.name);
  let seen = await names();
  check(JSON.stringify(seen) === JSON.stringify(['shout', 'delete', 'unlock']), `tools/list: ${JSON.stringify(seen)}`);

  const shout = await client.callTool({ name: 'shout', arguments: { text: 'quiet' } });
  check(!shout.isError && shout.content[0].text === 'QUIET', `shout: ${JSON.stringify(shout)}`);

  const refused = await client.callTool({ name: 'delete', arguments: { path: '/etc' } }).then(
    (r) => ({ result: r }),
    (e) => ({ error: e }),
  );
  check(refused.error?.code === -32001 && /not allowed/.test(refused.error.message), `delete: ${JSON.stringify(refused)}`);

  const hidden = await client.callTool({ name: 'report', arguments: {} }).then(
    (r) => JSON.stringify(r),
    (e) => String(e.message),
  );
  check(/Unknown tool: report/.test(hidden), `report before unlock: ${hidden}`);

  const unlocked = await client.callTool({ name: 'unlock', arguments: {} });
  check(!unlocked.isError && unlocked.content[0].text === 'unlocked', `unlock: ${JSON.stringify(unlocked)}`);
  await listChanged;
  seen = await names();
  check(JSON.stringify(seen) === JSON.stringify(['shout', 'delete', 'report', 'unlock']), `tools/list after unlock: ${JSON.stringify(seen)}`);
  const report = await client.callTool({ name: 'report', arguments: {} });
  check(!report.isError && report.content[0].text === 'the premium report', `report: ${JSON.stringify(report)}`);
  await client.close();
}

h.finish(main(), () => process.stderr.write(`${PREFIX}: ok (${h.target.kind})\n`));

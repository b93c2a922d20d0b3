#!/usr/bin/env node
// Drive an MCP server with the official TypeScript SDK client
// (@modelcontextprotocol/sdk 1.32.2, from ${PEERS:-<repo>/.peers}/npm; see setup_peers.sh).
//
//   node ts_sdk_client.mjs [--timeout SECONDS] [--] CMD [ARGS...]   stdio: starts CMD
//   node ts_sdk_client.mjs [--timeout SECONDS] --url URL            Streamable HTTP (http://127.0.0.1:N/mcp)
//   node ts_sdk_client.mjs [--timeout SECONDS] --sse-url URL        legacy HTTP+SSE (the GET stream, .../sse)
//
// Connects, initializes, checks that tools/list has a tool `echo`, calls
// `echo {"text": "hello interop"}` and checks the result is exactly one text content equal
// to "hello interop" and not isError, sends a ping, and exits 0. On any failure it prints
// a message to stderr and exits 1. The whole run is bounded (30 s by default).
import { importPeer } from './peer_import.mjs';
import { check, CheckFailed, harness } from './sdk_harness.mjs';

const PREFIX = 'ts_sdk_client';
const ECHO_TEXT = 'hello interop';

const h = harness(PREFIX, 'ts_sdk_client.mjs');

async function main() {
  let Client;
  try {
    ({ Client } = await importPeer('@modelcontextprotocol/sdk/client/index.js'));
  } catch (e) {
    throw new CheckFailed(`cannot load the TypeScript SDK: ${e.message}`);
  }

  const transport = await h.openTransport();
  let closed = false;
  transport.onclose = () => {
    closed = true;
  };

  const client = new Client({ name: 'hypermcp-interop-ts-client', version: '1.0.0' }, { capabilities: {} });
  let closing = false; // closing the legacy SSE transport aborts its stream: not an error
  client.onerror = (e) => closing || process.stderr.write(`${PREFIX}: transport error: ${e?.message ?? e}\n`);
  await client.connect(transport);
  const info = client.getServerVersion();
  process.stderr.write(
    `${PREFIX}: initialized: protocolVersion=${h.negotiated()} server=${info?.name} ${info?.version}\n`,
  );

  const tools = await client.listTools();
  const names = (tools.tools ?? []).map((t) => t.name);
  check(names.includes('echo'), `tools/list has no tool 'echo' (tools: ${JSON.stringify(names)})`);

  const res = await client.callTool({ name: 'echo', arguments: { text: ECHO_TEXT } });
  const wire = JSON.stringify(res);
  check(res.isError !== true, `echo returned isError=true: ${wire}`);
  check(Array.isArray(res.content) && res.content.length === 1, `echo must return 1 content item: ${wire}`);
  check(res.content[0].type === 'text', `echo content[0] is not text: ${wire}`);
  check(
    res.content[0].text === ECHO_TEXT,
    `echo content[0].text is ${JSON.stringify(res.content[0].text)}, want ${JSON.stringify(ECHO_TEXT)}`,
  );

  await client.ping();
  check(!closed, 'the connection closed during the session');
  closing = true;
  await client.close();
}

h.finish(main(), () =>
  process.stderr.write(`${PREFIX}: ok (initialize, tools/list, tools/call echo, ping; ${h.target.kind})\n`),
);

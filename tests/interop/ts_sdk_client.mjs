#!/usr/bin/env node
// Drive an MCP stdio server with the official TypeScript SDK client
// (@modelcontextprotocol/sdk 1.32.2, from ${PEERS:-<repo>/.peers}/npm; see setup_peers.sh).
//
//   node ts_sdk_client.mjs [--timeout SECONDS] [--] CMD [ARGS...]
//
// Starts CMD over stdio, initializes, checks that tools/list has a tool `echo`, calls
// `echo {"text": "hello interop"}` and checks the result is exactly one text content equal
// to "hello interop" and not isError, sends a ping, and exits 0. On any failure it prints
// a message to stderr and exits 1. The whole run is bounded (30 s by default).
import { importPeer } from './peer_import.mjs';

const PREFIX = 'ts_sdk_client';
const ECHO_TEXT = 'hello interop';

function usage() {
  process.stderr.write('usage: ts_sdk_client.mjs [--timeout SECONDS] [--] CMD [ARGS...]\n');
  process.exit(2);
}

let timeoutSec = 30;
const argv = process.argv.slice(2);
let i = 0;
while (i < argv.length && argv[i] !== '--') {
  if (argv[i] === '--timeout' && i + 1 < argv.length) {
    timeoutSec = Number(argv[i + 1]);
    i += 2;
  } else if (argv[i].startsWith('--timeout=')) {
    timeoutSec = Number(argv[i].slice('--timeout='.length));
    i += 1;
  } else {
    break;
  }
}
if (argv[i] === '--') i += 1;
const cmd = argv.slice(i);
if (cmd.length === 0 || !(timeoutSec > 0)) usage();
const cmdText = cmd.join(' ');

class CheckFailed extends Error {}
function check(cond, msg) {
  if (!cond) throw new CheckFailed(msg);
}

let transport = null;
let failed = false;

function fail(msg) {
  if (failed) return;
  failed = true;
  process.stderr.write(`${PREFIX}: FAIL: ${msg} (server: ${cmdText})\n`);
  const done = () => process.exit(1);
  if (transport) transport.close().then(done, done);
  else done();
  setTimeout(done, 3000).unref();
}

const timer = setTimeout(() => fail(`timed out after ${timeoutSec}s`), timeoutSec * 1000);

async function main() {
  let Client, StdioClientTransport;
  try {
    ({ Client } = await importPeer('@modelcontextprotocol/sdk/client/index.js'));
    ({ StdioClientTransport } = await importPeer('@modelcontextprotocol/sdk/client/stdio.js'));
  } catch (e) {
    throw new CheckFailed(`cannot load the TypeScript SDK: ${e.message}`);
  }

  // Pass the whole environment (the SDK's default keeps only a few variables).
  const env = Object.fromEntries(Object.entries(process.env).filter(([, v]) => v !== undefined));
  transport = new StdioClientTransport({ command: cmd[0], args: cmd.slice(1), env, stderr: 'inherit' });
  let negotiated = '?';
  // The client reports the negotiated revision to transports that accept it.
  transport.setProtocolVersion = (v) => {
    negotiated = v;
  };
  let closed = false;
  transport.onclose = () => {
    closed = true;
  };

  const client = new Client({ name: 'hypermcp-interop-ts-client', version: '1.0.0' }, { capabilities: {} });
  client.onerror = (e) => process.stderr.write(`${PREFIX}: transport error: ${e?.message ?? e}\n`);
  await client.connect(transport);
  const info = client.getServerVersion();
  process.stderr.write(
    `${PREFIX}: initialized: protocolVersion=${negotiated} server=${info?.name} ${info?.version}\n`,
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
  await client.close();
}

main().then(
  () => {
    clearTimeout(timer);
    process.stderr.write(`${PREFIX}: ok (initialize, tools/list, tools/call echo, ping)\n`);
    process.exit(0);
  },
  (e) => {
    clearTimeout(timer);
    fail(e instanceof CheckFailed ? e.message : `${e?.name ?? 'Error'}: ${e?.message ?? e}`);
  },
);

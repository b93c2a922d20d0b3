#!/usr/bin/env node
// Drive one of our conformance servers with the official TypeScript SDK v2 client
// (@modelcontextprotocol/client 2.4.0, from ${PEERS:-<repo>/.peers}/npm; see setup_peers.sh) in
// its `versionNegotiation: { mode: 'auto' }` mode: it probes with `server/discover` and must land
// on the 2026-07-28 revision (the stateless era, per-request `_meta`), not fall back to
// `initialize`.
//
//   node ts_v2_client.mjs [--timeout SECONDS] --url URL            Streamable HTTP (http://127.0.0.1:N/mcp)
//   node ts_v2_client.mjs [--timeout SECONDS] [--] CMD [ARGS...]   stdio: starts CMD (the SDK probes
//                                                                  on a short-lived sibling of CMD)
//
// The server must serve what examples/*/conformance_server.* serve. Steps: connect (era must be
// 'modern' at 2026-07-28), tools/list (must have test_simple_text and
// test_input_required_result_elicitation), call test_simple_text (its fixed text), call
// test_input_required_result_elicitation: the server answers `input_required` with an
// elicitation under the key `user_name`; the SDK fulfils it through the client's
// `elicitation/create` handler (answering {name: "Interop"}) and retries with `inputResponses`;
// the final result must be "Hello, Interop!". The wire is tapped to check the retry really
// carried the answer (and echoed any requestState byte for byte). Exit 0 with one
// `ts_v2_client: ok (...)` line on stdout, or print what failed to stderr and exit 1. The run
// is bounded (30 s by default).
import { importPeer } from './peer_import.mjs';
import { check, CheckFailed, harness } from './sdk_harness.mjs';

const PREFIX = 'ts_v2_client';
const MODERN = '2026-07-28';
const SIMPLE_TEXT = 'This is a simple text response for testing.';
const MRTR_TOOL = 'test_input_required_result_elicitation';
const MRTR_KEY = 'user_name';
const NAME = 'Interop';

const h = harness(PREFIX, 'ts_v2_client.mjs');
const j = JSON.stringify;

/** The text of a one-text-item tool result, or a CheckFailed naming `what`. */
function onlyText(res, what) {
  const wire = j(res);
  check(res && res.isError !== true, `${what} returned isError=true: ${wire}`);
  check(Array.isArray(res.content) && res.content.length === 1, `${what} must return 1 content item: ${wire}`);
  check(res.content[0].type === 'text', `${what} content[0] is not text: ${wire}`);
  return res.content[0].text;
}

async function main() {
  check(h.target.kind !== 'sse', 'the v2 client is tested over Streamable HTTP (--url) or stdio (-- CMD), not --sse-url');
  let Client, StreamableHTTPClientTransport, StdioClientTransport;
  try {
    ({ Client, StreamableHTTPClientTransport } = await importPeer('@modelcontextprotocol/client'));
    ({ StdioClientTransport } = await importPeer('@modelcontextprotocol/client/stdio'));
  } catch (e) {
    throw new CheckFailed(`cannot load the TypeScript SDK v2 (@modelcontextprotocol/client): ${e.message}`);
  }

  let transport;
  if (h.target.kind === 'http') {
    transport = new StreamableHTTPClientTransport(new URL(h.target.url));
  } else {
    // The whole environment (the SDK's default keeps only a few variables) and our stderr. It
    // must stay the base StdioClientTransport: only that one gets the sibling probe.
    const env = Object.fromEntries(Object.entries(process.env).filter(([, v]) => v !== undefined));
    transport = new StdioClientTransport({ command: h.cmd[0], args: h.cmd.slice(1), env, stderr: 'inherit' });
  }
  h.track(transport);
  // Tap what the client sends (on stdio the probe goes to the sibling, not through here).
  const sent = [];
  const send = transport.send.bind(transport);
  transport.send = (msg, opts) => {
    sent.push(msg);
    return send(msg, opts);
  };
  let closed = false;
  let closing = false;
  transport.onclose = () => {
    closed = true;
  };

  const client = new Client(
    { name: 'hypermcp-interop-ts-v2', version: '1.0.0' },
    { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: 'auto' } },
  );
  client.onerror = (e) => closing || process.stderr.write(`${PREFIX}: client error: ${e?.message ?? e}\n`);
  const elicitations = [];
  client.setRequestHandler('elicitation/create', (req) => {
    elicitations.push(req.params);
    return { action: 'accept', content: { name: NAME } };
  });

  // ---- connect: server/discover, then the modern era
  await client.connect(transport);
  const era = client.getProtocolEra();
  const version = client.getNegotiatedProtocolVersion();
  const info = client.getServerVersion();
  process.stderr.write(`${PREFIX}: connected: era=${era} protocolVersion=${version} server=${info?.name} ${info?.version}\n`);
  check(
    era === 'modern' && version === MODERN,
    `auto mode negotiated era=${era} protocolVersion=${version}, want modern ${MODERN} (the server/discover probe did not give modern evidence)`,
  );
  // Tap what reaches the client, in wire order (the SDK's dispatch runs after).
  const received = [];
  const dispatch = transport.onmessage;
  transport.onmessage = (msg, extra) => {
    received.push(msg);
    dispatch?.(msg, extra);
  };
  const discover = client.getDiscoverResult();
  check(discover?.supportedVersions?.includes(MODERN), `server/discover supportedVersions: ${j(discover?.supportedVersions)}`);
  check(client.getServerCapabilities()?.tools, `server/discover has no tools capability: ${j(discover?.capabilities)}`);

  // ---- tools/list
  const { tools } = await client.listTools();
  const names = (tools ?? []).map((t) => t.name);
  for (const name of ['test_simple_text', MRTR_TOOL]) {
    check(names.includes(name), `tools/list lacks ${name} (${names.length} tools: ${j(names)})`);
  }
  const list = sent.find((m) => m.method === 'tools/list');
  const meta = list?.params?._meta ?? {};
  check(
    meta['io.modelcontextprotocol/protocolVersion'] === MODERN,
    `the client's tools/list carried no 2026-07-28 _meta envelope: ${j(list)}`,
  );

  // ---- a plain call
  const simple = onlyText(await client.callTool({ name: 'test_simple_text', arguments: {} }), 'test_simple_text');
  check(simple === SIMPLE_TEXT, `test_simple_text text is ${j(simple)}, want ${j(SIMPLE_TEXT)}`);

  // ---- multi round-trip: input_required -> elicitation handler -> retry with inputResponses
  const greeting = onlyText(await client.callTool({ name: MRTR_TOOL, arguments: {} }), MRTR_TOOL);
  check(elicitations.length === 1, `the elicitation handler ran ${elicitations.length} times, want 1: ${j(elicitations)}`);
  const asked = elicitations[0];
  check(asked.message === 'What is your name?', `elicitation message: ${j(asked)}`);
  check(asked.requestedSchema?.properties?.name, `elicitation requestedSchema has no 'name': ${j(asked)}`);
  check(greeting === `Hello, ${NAME}!`, `${MRTR_TOOL} text is ${j(greeting)}, want ${j(`Hello, ${NAME}!`)}`);
  const calls = sent.filter((m) => m.method === 'tools/call' && m.params?.name === MRTR_TOOL);
  check(calls.length === 2, `${MRTR_TOOL} went out ${calls.length} times, want 2 (the call, the retry): ${j(calls)}`);
  const retry = calls[1].params;
  check(calls[1].id !== calls[0].id, `the retry reused request id ${j(calls[0].id)}`);
  check(
    retry.inputResponses?.[MRTR_KEY]?.action === 'accept' && retry.inputResponses[MRTR_KEY].content?.name === NAME,
    `the retry does not carry inputResponses.${MRTR_KEY} = accept {name: ${NAME}}: ${j(retry)}`,
  );
  const first = received.find((m) => m.id === calls[0].id && !m.method);
  check(
    first?.result?.resultType === 'input_required' && first.result.inputRequests?.[MRTR_KEY]?.method === 'elicitation/create',
    `the first ${MRTR_TOOL} answer is not input_required with inputRequests.${MRTR_KEY}: ${j(first)}`,
  );
  check(
    retry.requestState === first.result.requestState,
    `the retry's requestState ${j(retry.requestState)} is not the server's ${j(first.result.requestState)}`,
  );
  check(!closed, 'the connection closed during the session');

  const rounds = retry.requestState === undefined ? 'no requestState' : `requestState ${retry.requestState.length} chars`;
  closing = true;
  await client.close();
  return `era=modern ${version}, server=${info?.name ?? '?'}, ${names.length} tools, test_simple_text, ${MRTR_TOOL} in 2 rounds (${rounds})`;
}

h.finish(main(), (summary) => {
  process.stdout.write(`${PREFIX}: ok (${summary}; ${h.target.kind === 'http' ? h.target.url : 'stdio'})\n`);
});

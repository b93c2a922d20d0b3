// The benchmark server (bench/servers/README.md) written with the official TypeScript SDK v2
// (@modelcontextprotocol/server 2.4.0), which serves the 2026-07-28 revision.
//   node bench/servers/official_ts_v2.mjs              stdio (serveStdio: the opening message
//                                                      picks the era of the connection)
//   node bench/servers/official_ts_v2.mjs --http PORT  Streamable HTTP on 127.0.0.1:PORT at /mcp
//                                   (createMcpHandler: a fresh McpServer per request, the
//                                   2026-07-28 requests served statelessly, 2025-era traffic
//                                   statelessly too; GET and DELETE get 405)
// An `McpServer` with `registerTool` (zod input schemas, async handlers) for `echo` and the 49
// catalogue tools, and `registerResource` for bench://blob, as official_ts.mjs. HTTP is served
// by node:http on 127.0.0.1 with the SDK's Host and Origin checks in front of the handler
// (tests/interop/peers/v2_http.mjs, shared with the interop peer). The SDK and zod come from
// ${PEERS:-<repo>/.peers}/npm (tests/interop/setup_peers.sh).
import { importPeer } from '../../tests/interop/peer_import.mjs';
import { serveV2Http } from '../../tests/interop/peers/v2_http.mjs';

const { InMemoryServerEventBus, McpServer, acceptedContent, createMcpHandler, inputRequired } = await importPeer(
  '@modelcontextprotocol/server',
);
const { z } = await importPeer('zod');

const BLOB_URI = 'bench://blob';
const NAME_FORM = z.object({ name: z.string() });
// The bus createMcpHandler's subscriptions/listen streams read (the McpServer of one request
// cannot reach the streams of others): the listen fan-out's trigger publishes on it.
const bus = new InMemoryServerEventBus();
let blob; // 1,048,576 bytes, built on the first read and kept

function makeServer() {
  const server = new McpServer({ name: 'official-ts-v2-bench', version: '1.0.0' }, { capabilities: { tools: {}, resources: {} } });
  server.registerTool(
    'echo',
    { description: 'Echo the text back', inputSchema: z.object({ text: z.string().describe('Text to echo back') }) },
    async ({ text }) => ({ content: [{ type: 'text', text }] }),
  );
  for (let n = 1; n <= 49; n++) {
    const name = `tool_${String(n).padStart(2, '0')}`;
    server.registerTool(
      name,
      {
        description: `Catalogue tool ${String(n).padStart(2, '0')}: the forecast for a city over a number of days`,
        inputSchema: z.object({
          city: z.string().describe('City name'),
          days: z.number().int().optional().describe('Days ahead, 1 to 7'),
        }),
      },
      async ({ city, days = 1 }) => ({ content: [{ type: 'text', text: `${name}: ${city} ${days}` }] }),
    );
  }
  if (process.env.BENCH_MODERN) modernTools(server); // bench/modern.sh only: elsewhere 50 tools
  server.registerResource('blob', BLOB_URI, { mimeType: 'text/plain' }, async (uri) => ({
    contents: [{ uri: uri.href, mimeType: 'text/plain', text: (blob ??= '0123456789abcdef'.repeat(65536)) }],
  }));
  return server;
}

/** `ask` and `touch`, the tools of the 2026-07-28 scenarios (bench/modern.sh). */
function modernTools(server) {
  // The 2026-07-28 MRTR scenario, the SDK's way: the tool reads the retry's inputResponses
  // and answers inputRequired(...) when the name is not there yet.
  server.registerTool(
    'ask',
    { description: 'Ask for a name, then greet it', inputSchema: z.object({}) },
    async (_args, ctx) => {
      const answer = acceptedContent(ctx.mcpReq.inputResponses, 'name', NAME_FORM);
      if (answer) return { content: [{ type: 'text', text: `hello ${answer.name}` }] };
      return inputRequired({
        inputRequests: { name: inputRequired.elicit({ message: 'What is your name?', requestedSchema: NAME_FORM }) },
      });
    },
  );
  server.registerTool(
    'touch',
    { description: 'Send tools/list_changed to every listener', inputSchema: z.object({}) },
    async () => {
      // Over HTTP the listen streams read the handler's bus; over stdio they belong to the
      // connection's one pinned McpServer, which notifies them itself.
      if (port === null) server.sendToolListChanged();
      else bus.publish({ kind: 'tools_list_changed' });
      return { content: [{ type: 'text', text: 'touched' }] };
    },
  );
}

function usage(msg) {
  process.stderr.write(`official_ts_v2: ${msg}\nusage: official_ts_v2.mjs [--http PORT]\n`);
  process.exit(2);
}

const argv = process.argv.slice(2);
let port = null;
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === '--http' && i + 1 < argv.length && port === null) port = Number(argv[++i]);
  else usage(`unknown argument ${argv[i]}`);
}
if (port !== null && !(Number.isInteger(port) && port >= 0 && port < 65536)) usage('bad PORT');

if (port === null) {
  const { serveStdio } = await importPeer('@modelcontextprotocol/server/stdio');
  serveStdio(makeServer);
} else {
  await serveV2Http(createMcpHandler(makeServer, { bus }), { port });
}

// The benchmark server (bench/servers/README.md) written with the official TypeScript SDK
// (@modelcontextprotocol/sdk 1.32.2).
//   node bench/servers/official_ts.mjs                            stdio
//   node bench/servers/official_ts.mjs --http PORT                Streamable HTTP on 127.0.0.1:PORT at
//                                   /mcp, sessions (Mcp-Session-Id, SSE answers, GET stream, DELETE)
//   node bench/servers/official_ts.mjs --http PORT --stateless-json
//                                   stateless with JSON answers: a server and a transport per POST,
//                                   the SDK's documented stateless setup; GET and DELETE get 405
// A `McpServer` with `registerTool` (zod input schemas, async handlers) for `echo` and the 49
// catalogue tools, and `registerResource` for bench://blob (its text built on the first read and kept).
// HTTP is served by node:http on 127.0.0.1 with the SDK's DNS rebinding protection (Host must
// be 127.0.0.1:PORT or localhost:PORT), as tests/interop/peers/ts_echo_server.mjs does. Nothing
// is logged. The SDK and zod come from ${PEERS:-<repo>/.peers}/npm (tests/interop/setup_peers.sh).
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { importPeer } from '../../tests/interop/peer_import.mjs';

const { McpServer } = await importPeer('@modelcontextprotocol/sdk/server/mcp.js');
const { z } = await importPeer('zod');

const BLOB_URI = 'bench://blob';
let blob; // 1,048,576 bytes, built on the first read and kept

function makeServer() {
  const server = new McpServer({ name: 'official-ts-bench', version: '1.0.0' });
  server.registerTool(
    'echo',
    {
      description: 'Echo the text back',
      inputSchema: { text: z.string().describe('Text to echo back') },
    },
    async ({ text }) => ({ content: [{ type: 'text', text }] }),
  );
  for (let n = 1; n <= 49; n++) {
    const name = `tool_${String(n).padStart(2, '0')}`;
    server.registerTool(
      name,
      {
        description: `Catalogue tool ${String(n).padStart(2, '0')}: the forecast for a city over a number of days`,
        inputSchema: {
          city: z.string().describe('City name'),
          days: z.number().int().optional().describe('Days ahead, 1 to 7'),
        },
      },
      async ({ city, days = 1 }) => ({ content: [{ type: 'text', text: `${name}: ${city} ${days}` }] }),
    );
  }
  server.registerResource('blob', BLOB_URI, { mimeType: 'text/plain' }, async (uri) => ({
    contents: [{ uri: uri.href, mimeType: 'text/plain', text: (blob ??= '0123456789abcdef'.repeat(65536)) }],
  }));
  return server;
}

function usage(msg) {
  process.stderr.write(`official_ts: ${msg}\nusage: official_ts.mjs [--http PORT [--stateless-json]]\n`);
  process.exit(2);
}

const argv = process.argv.slice(2);
let httpPort = null;
let statelessJson = false;
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === '--http' && i + 1 < argv.length && httpPort === null) httpPort = Number(argv[++i]);
  else if (argv[i] === '--stateless-json') statelessJson = true;
  else usage(`unknown argument ${argv[i]}`);
}
if (statelessJson && httpPort === null) usage('--stateless-json needs --http PORT');
if (httpPort !== null && !(Number.isInteger(httpPort) && httpPort >= 0 && httpPort < 65536)) usage('bad PORT');

if (httpPort === null) {
  const { StdioServerTransport } = await importPeer('@modelcontextprotocol/sdk/server/stdio.js');
  await makeServer().connect(new StdioServerTransport());
} else {
  const { StreamableHTTPServerTransport } = await importPeer('@modelcontextprotocol/sdk/server/streamableHttp.js');
  const sessions = new Map(); // Mcp-Session-Id -> transport
  let security = {};

  function reply(res, status, message) {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
  }

  async function handle(req, res) {
    const url = new URL(req.url, 'http://127.0.0.1');
    if (url.pathname !== '/mcp') return reply(res, 404, 'Not found');
    if (statelessJson) {
      if (req.method !== 'POST') return reply(res, 405, 'Method not allowed.');
      const server = makeServer();
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: true,
        ...security,
      });
      res.on('close', () => {
        transport.close();
        server.close();
      });
      await server.connect(transport);
      return transport.handleRequest(req, res);
    }
    const sid = req.headers['mcp-session-id'];
    if (sid !== undefined) {
      const transport = sessions.get(sid);
      if (!transport) return reply(res, 404, 'Session not found');
      return transport.handleRequest(req, res);
    }
    if (req.method !== 'POST') return reply(res, 400, 'Bad Request: Mcp-Session-Id header is required');
    // A POST without a session: the transport accepts it only if it is an initialize.
    const server = makeServer();
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => sessions.set(id, transport),
      onsessionclosed: (id) => sessions.delete(id),
      ...security,
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    return transport.handleRequest(req, res);
  }

  const httpServer = http.createServer((req, res) => {
    handle(req, res).catch((e) => {
      process.stderr.write(`official_ts: ${e?.stack ?? e}\n`);
      if (!res.headersSent) reply(res, 500, 'Internal server error');
      else res.end();
    });
  });
  httpServer.listen(httpPort, '127.0.0.1', () => {
    const { port } = httpServer.address();
    security = {
      enableDnsRebindingProtection: true,
      allowedHosts: [`127.0.0.1:${port}`, `localhost:${port}`],
    };
  });
  const stop = () => {
    for (const t of sessions.values()) t.close().catch(() => {});
    httpServer.close();
    httpServer.closeAllConnections?.();
    setTimeout(() => process.exit(0), 500).unref();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

// Echo MCP server written with the official TypeScript SDK (@modelcontextprotocol/sdk
// 1.32.2). One tool, `echo({text: string})`, returning the text. Used as a known-good peer to
// test the interop clients, the transcript runner and the benchmarks.
//   node tests/interop/peers/ts_echo_server.mjs                    stdio
//   node tests/interop/peers/ts_echo_server.mjs --http PORT        Streamable HTTP at /mcp, stateful
//                                                                  (Mcp-Session-Id, SSE answers, GET stream, DELETE)
//   node tests/interop/peers/ts_echo_server.mjs --http PORT --stateless-json
//                                  stateless with JSON answers: a server and a transport per POST,
//                                  the SDK's documented stateless setup; GET and DELETE get 405
//   node tests/interop/peers/ts_echo_server.mjs --sse PORT         legacy HTTP+SSE (SSEServerTransport):
//                                                                  GET /sse, POST /messages?sessionId=...
// HTTP is served by node:http, listening on 127.0.0.1 only, with the SDK's DNS rebinding
// protection (Host must be 127.0.0.1:PORT or localhost:PORT). PORT 0 picks a free port. Once
// listening, one line goes to stderr:
//   ts_echo_server: listening on http://127.0.0.1:PORT/mcp      (or .../sse)
// The SDK comes from ${PEERS:-<repo>/.peers}/npm.
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { importPeer } from '../peer_import.mjs';

const { McpServer } = await importPeer('@modelcontextprotocol/sdk/server/mcp.js');
const { z } = await importPeer('zod');

function makeServer() {
  const server = new McpServer({ name: 'ts-echo-server', version: '1.0.0' });
  server.registerTool(
    'echo',
    {
      description: 'Echo the given text back.',
      inputSchema: { text: z.string() },
    },
    async ({ text }) => ({ content: [{ type: 'text', text }] }),
  );
  return server;
}

function usage(msg) {
  process.stderr.write(`ts_echo_server: ${msg}\nusage: ts_echo_server.mjs [--http PORT [--stateless-json] | --sse PORT]\n`);
  process.exit(2);
}

const argv = process.argv.slice(2);
let httpPort = null;
let statelessJson = false;
let legacySse = false;
for (let i = 0; i < argv.length; i++) {
  if ((argv[i] === '--http' || argv[i] === '--sse') && i + 1 < argv.length && httpPort === null) {
    legacySse = argv[i] === '--sse';
    httpPort = Number(argv[++i]);
  } else if (argv[i] === '--stateless-json') statelessJson = true;
  else usage(`unknown argument ${argv[i]}`);
}
if (statelessJson && (httpPort === null || legacySse)) usage('--stateless-json needs --http PORT');
if (httpPort !== null && !(Number.isInteger(httpPort) && httpPort >= 0 && httpPort < 65536)) usage('bad PORT');

if (httpPort === null) {
  const { StdioServerTransport } = await importPeer('@modelcontextprotocol/sdk/server/stdio.js');
  await makeServer().connect(new StdioServerTransport());
} else {
  const { StreamableHTTPServerTransport } = await importPeer('@modelcontextprotocol/sdk/server/streamableHttp.js');
  const { SSEServerTransport } = await importPeer('@modelcontextprotocol/sdk/server/sse.js');
  const sessions = new Map(); // Mcp-Session-Id (or the SSE sessionId) -> transport
  let security = {};

  function reply(res, status, message) {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
  }

  // The legacy transport: a GET /sse stream per session whose first event names the POST
  // endpoint, then POST /messages?sessionId=... for each client message (answered 202, the
  // response goes on the stream).
  async function handleLegacy(req, res, url) {
    if (url.pathname === '/sse' && req.method === 'GET') {
      const transport = new SSEServerTransport('/messages', res, security);
      sessions.set(transport.sessionId, transport);
      transport.onclose = () => sessions.delete(transport.sessionId);
      return makeServer().connect(transport);
    }
    if (url.pathname === '/messages' && req.method === 'POST') {
      const transport = sessions.get(url.searchParams.get('sessionId'));
      if (!transport) return reply(res, 404, 'Session not found');
      return transport.handlePostMessage(req, res);
    }
    return reply(res, 404, 'Not found');
  }

  async function handle(req, res) {
    const url = new URL(req.url, 'http://127.0.0.1');
    if (legacySse) return handleLegacy(req, res, url);
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
      process.stderr.write(`ts_echo_server: ${e?.stack ?? e}\n`);
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
    process.stderr.write(`ts_echo_server: listening on http://127.0.0.1:${port}${legacySse ? '/sse' : '/mcp'}\n`);
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

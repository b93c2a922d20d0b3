// @ts-check
// An MCP server mounted inside an existing node:http app with `server.httpHandler()`: the app
// keeps its own routes (here /health); /mcp (Streamable HTTP), /sse and /messages (legacy
// HTTP+SSE) go to the engine. The same handler mounts in Express (`app.all('/mcp', handler)`,
// a body parser may run first) and Fastify (see HttpHandler in bindings-node/js/types/server.d.ts).
//
//     node examples/node/http_app.mjs [PORT]      # default 3000; MCP at http://127.0.0.1:PORT/mcp

import http from 'node:http';
import { Server } from 'hypermcp';

const server = new Server({ name: 'hypermcp-http-app', version: '1.0.0' });
server.tool(
  'add',
  {
    description: 'Add two numbers',
    inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
  },
  ({ a, b }) => String(a + b),
);

const mcp = server.httpHandler({ path: '/mcp' });
const app = http.createServer((req, res) => {
  if (req.url === '/health') {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ ok: true, sessions: mcp.sessionCount }));
    return;
  }
  mcp(req, res);
});

const port = Number(process.argv[2] ?? 3000);
app.listen(port, '127.0.0.1', () => {
  const address = app.address();
  const bound = address && typeof address === 'object' ? address.port : port;
  console.error(`hypermcp: ${server.name} serving on http://127.0.0.1:${bound}/mcp`);
});

const stop = () => {
  app.close();
  app.closeAllConnections();
  void mcp.close();
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);

// Serves a TypeScript SDK v2 `createMcpHandler` handler (its web-standard fetch face) over
// node:http on 127.0.0.1, at /mcp only, with the SDK's Host and Origin checks (localhost
// names) in front of it, which the handler has none of. What @modelcontextprotocol/node's
// toNodeHandler does: the bodies stream both ways, so SSE answers flow as they are written.
// Shared by tests/interop/peers/ts_v2_server.mjs and bench/servers/official_ts_v2.mjs.
//
//   const server = await serveV2Http(handler, { port, onerror });   // a node:http Server
// SIGTERM and SIGINT close the handler, then exit.
import http from 'node:http';
import { Readable } from 'node:stream';
import { importPeer } from '../peer_import.mjs';

const { hostHeaderValidationResponse, localhostAllowedHostnames, localhostAllowedOrigins, originValidationResponse } =
  await importPeer('@modelcontextprotocol/server');

/**
 * @param {{ fetch(request: Request): Promise<Response>, close(): Promise<void> }} handler
 * @param {{ port: number, onerror?: (e: unknown) => void }} options
 */
export async function serveV2Http(handler, { port, onerror = () => {} }) {
  const hostnames = localhostAllowedHostnames();
  const origins = localhostAllowedOrigins();
  const server = http.createServer(async (req, res) => {
    const abort = new AbortController();
    // The Request is kept alive until the socket closes: once garbage-collected, Node 20's
    // Request stops passing its signal's abort on, and the handler's subscriptions/listen
    // streams would never learn that their client left (their slots would leak).
    let request;
    res.on('close', () => {
      abort.abort();
      void request;
    });
    try {
      const url = new URL(req.url ?? '/', `http://${req.headers.host ?? '127.0.0.1'}`);
      if (url.pathname !== '/mcp') {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
        return;
      }
      const headers = new Headers();
      for (const [k, v] of Object.entries(req.headers)) {
        if (Array.isArray(v)) for (const x of v) headers.append(k, x);
        else if (v !== undefined) headers.set(k, v);
      }
      const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
      request = new Request(url, {
        method: req.method,
        headers,
        body: hasBody ? Readable.toWeb(req) : undefined,
        duplex: hasBody ? 'half' : undefined,
        signal: abort.signal,
      });
      const response =
        hostHeaderValidationResponse(request, hostnames) ??
        originValidationResponse(request, origins) ??
        (await handler.fetch(request));
      res.writeHead(response.status, Object.fromEntries(response.headers));
      // An event stream's head goes at once (its events may be slow to come).
      if (response.headers.get('content-type')?.startsWith('text/event-stream')) res.flushHeaders();
      if (response.body) {
        for await (const chunk of response.body) {
          if (!res.write(chunk)) await new Promise((r) => res.once('drain', r));
        }
      }
      res.end();
    } catch (e) {
      if (abort.signal.aborted) return; // the client went away
      onerror(e);
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end();
    }
  });
  server.keepAliveTimeout = 60_000;
  await new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve(undefined)));
  const stop = () => {
    handler.close().finally(() => process.exit(0));
    setTimeout(() => process.exit(0), 1000).unref();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  return server;
}

// What an operator sees (Node): the engine's log handed to the app's logger (setLogger) or
// written to stderr (HYPERMCP_LOG), its counters (metrics()) and the Prometheus text an HTTP
// server serves at metricsPath. The servers are real processes; the client is killed under
// and comes back.
//
// Run: node --test tests/node/

import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { within, sleep, until, freePort } from './_helpers.mjs';

const require = createRequire(import.meta.url);
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const hypermcp = require('../../bindings-node/js/index.cjs');
const { Client, setLogger, metrics, metricsText } = hypermcp;

const dir = mkdtempSync(path.join(tmpdir(), 'hypermcp-observability-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const SCRIPT = path.join(dir, 'server.mjs');
writeFileSync(
  SCRIPT,
  `import { Server } from ${JSON.stringify(pathToFileURL(path.join(ROOT, 'bindings-node/js/index.mjs')).href)};
const server = new Server({ name: 'observed', version: '1.0.0' });
server.tool('pid', () => String(process.pid));
const port = process.argv[2];
await server.run(port ? { transport: 'http', port: Number(port), metricsPath: '/metrics', maxBody: 1024 } : {});
`,
);

test('the engine log reaches the app logger and the counters count', async () => {
  const lines = [];
  const logger = {
    warn: (m) => lines.push(`warn ${m}`),
    info: (m) => lines.push(`info ${m}`),
    debug: (m) => lines.push(`debug ${m}`),
  };
  setLogger(logger, { level: 'info' });
  const before = metrics();
  const client = await Client.stdio(process.execPath, [SCRIPT], { reconnect: { initialDelay: 50, maxAttempts: 50 }, timeout: 20_000 });
  try {
    const first = Number((await client.callTool('pid')).content[0].text);
    process.kill(first, 'SIGKILL');
    await until(() => lines.some((l) => l.includes('connected to the server again')), 15_000);
    const second = Number((await within(client.callTool('pid'))).content[0].text);
    assert.notEqual(second, first);
  } finally {
    await client.close();
    setLogger(null);
  }
  assert.ok(lines.some((l) => l.startsWith('warn [hypermcp::client] the server went away') && l.includes('SIGKILL')), lines.join('\n'));
  assert.ok(lines.some((l) => l.startsWith('info [hypermcp::client] reconnecting to the server')), lines.join('\n'));
  assert.ok(!lines.some((l) => l.startsWith('debug')), 'nothing below the level');
  const now = metrics();
  assert.ok(now.client_lost >= before.client_lost + 1);
  assert.ok(now.client_reconnects >= before.client_reconnects + 1);
  assert.match(metricsText(), /# TYPE hypermcp_client_reconnects_total counter/);
  assert.throws(() => setLogger(logger, { level: 'loud' }), /unknown log level/);
  assert.throws(() => setLogger(42), /a logger is an object/);
});

test('an HTTP server logs to stderr with HYPERMCP_LOG and serves its counters', async () => {
  const port = await freePort();
  const child = spawn(process.execPath, [SCRIPT, String(port)], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, HYPERMCP_LOG: 'info' },
  });
  let stderr = '';
  child.stderr.on('data', (c) => (stderr += c));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    const url = `http://127.0.0.1:${port}`;
    for (let i = 0; ; i++) {
      try {
        await fetch(`${url}/metrics`);
        break;
      } catch (err) {
        if (i > 400) throw err;
        await sleep(50);
      }
    }
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const init = await fetch(`${url}/mcp`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } }),
    });
    assert.equal(init.status, 200);
    const sid = init.headers.get('mcp-session-id');
    await init.text();
    const big = await fetch(`${url}/mcp`, {
      method: 'POST',
      headers: { ...headers, 'mcp-session-id': sid },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping', params: { x: 'y'.repeat(4000) } }),
    });
    assert.equal(big.status, 413);
    await big.text();
    const m = await fetch(`${url}/metrics`);
    assert.equal(m.status, 200);
    assert.match(m.headers.get('content-type'), /^text\/plain; version=0\.0\.4/);
    const text = await m.text();
    assert.match(text, /hypermcp_sessions_opened_total 1/);
    assert.match(text, /hypermcp_http_refused_total\{status="413"\} 1/);
    const del = await fetch(`${url}/mcp`, { method: 'DELETE', headers: { 'mcp-session-id': sid } });
    assert.equal(del.status, 200);
    await del.text();
    await until(() => stderr.includes('deleted by the client'), 5000);
  } finally {
    child.kill('SIGTERM');
    await within(exited, 10_000);
  }
  assert.match(stderr, /INFO hypermcp::http: session opened/);
  assert.match(stderr, /request refused status=413/);
  assert.match(stderr, /session closed session=[0-9a-f]+ reason="deleted by the client"/);
});

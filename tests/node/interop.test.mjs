// The hypermcp Node client against other implementations over stdio: a server written with
// the official TypeScript SDK, one written with the official Python SDK, and hypermcp's own
// Python weather server (the Python client drives the Node server in
// tests/python/test_interop_node.py).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from 'hypermcp';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const PEERS = process.env.HYPERMCP_PEERS || process.env.PEERS || path.join(REPO, '.peers');
const REQUIRE = process.env.HYPERMCP_REQUIRE_PEERS === '1';
const within = (p, ms = 15000) =>
  Promise.race([p, new Promise((_, reject) => setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms).unref())]);

function need(file, what, t) {
  if (existsSync(file)) return true;
  const msg = `${what} not found at ${file} (run tests/interop/setup_peers.sh)`;
  if (REQUIRE) assert.fail(msg);
  t.skip(msg);
  return false;
}

test('drives a server written with the official TypeScript SDK', async (t) => {
  if (!need(path.join(PEERS, 'npm/node_modules/@modelcontextprotocol/sdk/package.json'), 'the TypeScript SDK', t)) return;
  const client = await within(Client.stdio('node', [path.join(REPO, 'tests/interop/peers/ts_echo_server.mjs')], { env: { PEERS } }));
  try {
    assert.equal(client.serverInfo.name, 'ts-echo-server');
    const { tools } = await within(client.listTools());
    assert.deepEqual(tools.map((x) => x.name), ['echo']);
    const r = await within(client.callTool('echo', { text: 'hello from hypermcp' }));
    assert.deepEqual(r.content, [{ type: 'text', text: 'hello from hypermcp' }]);
    await within(client.ping());
  } finally {
    await client.close();
  }
});

test('drives a server written with the official Python SDK', async (t) => {
  const python = path.join(PEERS, 'venv/bin/python');
  if (!need(python, 'the Python SDK venv', t)) return;
  const progress = [];
  const client = await within(
    Client.stdio(python, [path.join(REPO, 'tests/interop/peers/py_full_server.py')], {
      onElicitation: () => ({ action: 'accept', content: { name: 'Ada' } }),
      onSampling: () => ({ role: 'assistant', model: 'test', content: { type: 'text', text: 'sampled' } }),
    }),
  );
  try {
    const { tools } = await within(client.listTools());
    const names = tools.map((x) => x.name);
    for (const n of ['forecast', 'count']) assert.ok(names.includes(n), `${n} in ${names}`);
    const forecast = await within(client.callTool('forecast', { city: 'Paris' }));
    assert.equal(forecast.isError ?? false, false);
    assert.equal(typeof forecast.structuredContent, 'object');
    const counted = await within(client.callTool('count', { steps: 3 }, { onProgress: (p) => progress.push(p.progress) }));
    assert.equal(counted.isError ?? false, false);
    await new Promise((r) => setTimeout(r, 200)); // notifications may trail the answer
    assert.deepEqual(progress, [1, 2, 3]);
    const { resources } = await within(client.listResources());
    assert.ok(resources.length >= 1);
    const read = await within(client.readResource(resources[0].uri));
    assert.ok(read.contents.length >= 1);
  } finally {
    await client.close();
  }
});

test('drives the hypermcp Python weather server', async (t) => {
  const python = path.join(REPO, '.venv/bin/python');
  if (!need(python, 'the project venv (make python)', t)) return;
  const client = await within(
    Client.stdio(python, [path.join(REPO, 'examples/python/weather_server.py')], {
      onElicitation: () => ({ action: 'accept', content: { city: 'lima', days: 2 } }),
      onSampling: () => ({ role: 'assistant', model: 'test', content: { type: 'text', text: 'Bring a coat.' } }),
    }),
  );
  try {
    assert.equal(client.serverInfo.name, 'weather');
    const steps = [];
    const f = await within(client.callTool('forecast', { city: 'tokyo', days: 2 }, { onProgress: (p) => steps.push(p.progress) }));
    assert.deepEqual(f.structuredContent.temperatures, [22.3, 22.8]);
    const trip = await within(client.callTool('plan_trip', {}));
    assert.equal(trip.content[0].text, 'lima: Bring a coat.');
    const now = await within(client.readResource('weather://paris/now'));
    assert.equal(JSON.parse(now.contents[0].text).name, 'Paris');
    const err = await within(client.callTool('forecast', { city: 'mars' })).catch((e) => e);
    assert.equal(err.code, 'ERR_MCP_INVALID_PARAMS');
  } finally {
    await client.close();
  }
});

// ---- 2026-07-28 ----------------------------------------------------------------------------

test('the official TypeScript SDK 1.32.2 server (legacy-only): an auto client falls back to initialize', async (t) => {
  if (!need(path.join(PEERS, 'npm/node_modules/@modelcontextprotocol/sdk/package.json'), 'the TypeScript SDK', t)) return;
  const client = await within(Client.stdio('node', [path.join(REPO, 'tests/interop/peers/ts_echo_server.mjs')], { env: { PEERS } }));
  try {
    assert.equal(client.modern, false);
    assert.equal(client.protocolVersion, '2025-11-25');
    assert.deepEqual((await within(client.callTool('echo', { text: 'x' }))).content, [{ type: 'text', text: 'x' }]);
  } finally {
    await client.close();
  }
});

test('the official Python SDK 2.3.0 server at 2026-07-28 (auto and modern)', async (t) => {
  const python = path.join(PEERS, 'venv/bin/python');
  if (!need(python, 'the Python SDK venv', t)) return;
  for (const mode of ['auto', 'modern']) {
    const client = await within(Client.stdio(python, [path.join(REPO, 'tests/interop/peers/py_full_server.py')], { mode }));
    try {
      assert.equal(client.modern, true, mode);
      assert.equal(client.protocolVersion, '2026-07-28');
      assert.equal(client.serverInfo.name, 'py-full-server');
      const names = (await within(client.listTools())).tools.map((x) => x.name);
      assert.ok(names.includes('forecast'), String(names));
      const forecast = await within(client.callTool('forecast', { city: 'Paris' }));
      assert.equal(forecast.isError ?? false, false);
      assert.equal(typeof forecast.structuredContent, 'object');
    } finally {
      await client.close();
    }
  }
});

test('a TypeScript SDK v2 server at 2026-07-28: input_required served by onElicitation (stdio and HTTP)', async (t) => {
  if (!need(path.join(PEERS, 'npm/node_modules/@modelcontextprotocol/server/package.json'), 'the TypeScript SDK v2', t)) return;
  const server = path.join(REPO, 'tests/interop/peers/ts_v2_server.mjs');
  const asked = [];
  const onElicitation = (params) => {
    asked.push(params.message);
    return { action: 'accept', content: { name: 'Ada' } };
  };
  const check = async (client) => {
    assert.equal(client.modern, true);
    assert.equal(client.serverInfo.name, 'ts-v2-server');
    assert.equal((await within(client.callTool('echo', { text: 'hi' }))).content[0].text, 'echo: hi');
    assert.equal((await within(client.callTool('ask_name', {}))).content[0].text, 'hello Ada');
  };
  const stdio = await within(Client.stdio('node', [server, '--stdio'], { env: { PEERS }, onElicitation }));
  try {
    await check(stdio);
  } finally {
    await stdio.close();
  }
  const { spawn } = await import('node:child_process');
  const child = spawn('node', [server, '--port', '0'], { env: { ...process.env, PEERS }, stdio: ['ignore', 'ignore', 'pipe'] });
  try {
    const url = await within(
      new Promise((resolve, reject) => {
        let text = '';
        child.stderr.on('data', (d) => {
          text += d;
          const m = /listening on (\S+)/.exec(text);
          if (m) resolve(m[1]);
        });
        child.on('exit', (code) => reject(new Error(`the v2 server exited (${code}): ${text}`)));
      }),
    );
    const http = await within(Client.http(url, { onElicitation }));
    try {
      await check(http);
    } finally {
      await http.close();
    }
  } finally {
    child.kill();
  }
  assert.deepEqual(asked, ['What is your name?', 'What is your name?']);
});

// W3C trace context (Node): a handler reads the caller's traceparent / tracestate / baggage
// from _meta as ctx.traceContext in both eras; requests a handler's clients send carry the
// trace on; with OpenTelemetry in the app (@opentelemetry/sdk-trace-node, in a process of its
// own so no other test runs under it), every request gets a span, parented across processes
// through _meta, named and attributed as the conventions for MCP say.

import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Server, TraceContext } from 'hypermcp';
import { within, withClient, connect, freePort } from './_helpers.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const INDEX = JSON.stringify(pathToFileURL(path.join(ROOT, 'bindings-node/js/index.mjs')).href);
const TP = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';

const dir = mkdtempSync(path.join(tmpdir(), 'hypermcp-trace-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function leaf() {
  const s = new Server({ name: 'leaf' });
  s.tool('whoami', { description: 'The trace context this call came with' }, (_args, ctx) => {
    const tc = ctx.traceContext;
    if (tc === null) return { content: [], structuredContent: { trace: null } };
    assert.ok(tc instanceof TraceContext);
    const trace = { ...tc, meta: tc.toMeta() };
    return { content: [], structuredContent: { trace } };
  });
  return s;
}

for (const mode of ['modern', 'legacy']) {
  test(`a handler reads the trace context (${mode})`, async () => {
    await withClient(leaf(), { mode }, async (client) => {
      const meta = { traceparent: TP, tracestate: 'rojo=00f067aa0ba902b7', baggage: 'user=alice%20b;p=1,bad key=1' };
      const r = await within(client.callTool('whoami', {}, { meta }));
      const tc = r.structuredContent.trace;
      assert.equal(tc.traceparent, TP);
      assert.equal(tc.traceId, TRACE_ID);
      assert.equal(tc.parentId, '00f067aa0ba902b7');
      assert.equal(tc.sampled, true);
      assert.equal(tc.tracestate, 'rojo=00f067aa0ba902b7');
      assert.deepEqual(tc.baggage, { user: 'alice b' });
      assert.deepEqual(tc.meta, meta);
      // None sent, an invalid one, or not text: none read, and the call goes on.
      for (const bad of [undefined, { traceparent: '00-zz-00f067aa0ba902b7-01' }, { traceparent: 7 }]) {
        const r2 = await within(client.callTool('whoami', {}, bad === undefined ? {} : { meta: bad }));
        assert.deepEqual(r2.structuredContent, { trace: null }, JSON.stringify(bad));
      }
    });
  });

  test(`a server that calls another carries the trace on (${mode})`, async () => {
    const downstream = leaf();
    const proxy = new Server({ name: 'proxy' });
    proxy.tool('relay', { description: 'Asks the leaf who it is' }, async () => {
      const c = await connect(downstream, { mode });
      try {
        const r = await c.callTool('whoami', {});
        return { content: [], structuredContent: r.structuredContent };
      } finally {
        await c.close();
      }
    });
    await withClient(proxy, { mode }, async (client) => {
      const r = await within(client.callTool('relay', {}, { meta: { traceparent: TP, baggage: 'tenant=acme' } }));
      assert.equal(r.structuredContent.trace.traceparent, TP);
      assert.deepEqual(r.structuredContent.trace.baggage, { tenant: 'acme' });
      // Without a trace to carry, none is made up.
      const r2 = await within(client.callTool('relay', {}));
      assert.deepEqual(r2.structuredContent, { trace: null });
    });
  });
}

const LEAF = path.join(dir, 'leaf.mjs');
writeFileSync(
  LEAF,
  `import { Server } from ${INDEX};
const server = new Server({ name: 'leaf' });
server.tool('whoami', {}, (_args, ctx) => {
  const tc = ctx.traceContext;
  return { content: [], structuredContent: tc ? { traceId: tc.traceId, parentId: tc.parentId } : {} };
});
server.tool('broken', {}, () => { throw new Error('no'); });
await server.run();
`,
);

// An app with OpenTelemetry: its spans go to memory, then out as JSON.
const APP = path.join(dir, 'app.mjs');
writeFileSync(
  APP,
  `import { createRequire } from 'node:module';
const require = createRequire(${JSON.stringify(path.join(ROOT, 'package.json'))});
const api = require('@opentelemetry/api');
const { NodeTracerProvider, SimpleSpanProcessor, InMemorySpanExporter } = require('@opentelemetry/sdk-trace-node');
const exporter = new InMemorySpanExporter();
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
provider.register();

const { Server, Client, McpError } = await import(${INDEX});
const { MemoryTransport } = require('./bindings-node/js/memory.cjs');
const [leaf, mode, port] = process.argv.slice(2);
const proxy = new Server({ name: 'proxy' });
const seen = {};
proxy.tool('relay', {}, async (_args, ctx) => {
  seen.relay = ctx.traceContext.parentId;
  const c = await Client.stdio(process.execPath, [leaf]);
  try {
    const who = (await c.callTool('whoami', {})).structuredContent;
    const failed = (await c.callTool('broken', {})).isError;
    return { content: [], structuredContent: { leaf: who, failed } };
  } finally {
    await c.close();
  }
});
proxy.tool('refuse', {}, () => { throw new McpError(-32050, 'refused'); });
proxy.resource('file:///a.txt', { name: 'a' }, () => 'A');
proxy.prompt('hello', { arguments: [{ name: 'name' }] }, ({ name }) => 'Hello ' + name);
proxy.tool('ask', {}, async (_args, ctx) => {
  const answer = await ctx.elicit('Name?', { type: 'object', properties: { v: { type: 'string' } } });
  return answer.content.v;
});
const onElicitation = () => ({ action: 'accept', content: { v: 'Ada' } });

const out = {};
const tracer = api.trace.getTracer('app');
await tracer.startActiveSpan('app', async (root) => {
  const client = await Client.connect(new MemoryTransport(proxy), { mode, onElicitation });
  out.relay = (await client.callTool('relay', {})).structuredContent;
  out.ask = (await client.callTool('ask', {})).content[0].text;
  await client.readResource('file:///a.txt');
  await client.getPrompt('hello', { name: 'Ada' });
  try { await client.callTool('refuse', {}); } catch (e) { out.refused = e.rpcCode; }
  await client.close();
  const running = await proxy.startHttp({ port: Number(port) });
  const http = await Client.http(running.url, { mode: 'legacy' });
  await http.readResource('file:///a.txt');
  await http.close();
  await running.stop();
  out.root = root.spanContext().spanId;
  root.end();
});
out.seen = seen;
out.spans = exporter.getFinishedSpans().map((s) => ({
  name: s.name,
  kind: api.SpanKind[s.kind],
  traceId: s.spanContext().traceId,
  spanId: s.spanContext().spanId,
  parent: s.parentSpanContext?.spanId ?? s.parentSpanId ?? null,
  attributes: s.attributes,
  status: api.SpanStatusCode[s.status.code],
}));
console.log(JSON.stringify(out));
process.exit(0);
`,
);

function runApp(mode, port) {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [APP, LEAF, mode, String(port)], { cwd: ROOT, timeout: 60_000 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${err.message}\n${stderr}`));
      else resolve(JSON.parse(stdout));
    });
  });
}

for (const mode of ['modern', 'legacy']) {
  test(`OpenTelemetry spans per request (${mode})`, async () => {
    const out = await runApp(mode, await freePort());
    const spans = out.spans;
    const one = (name, kind, attrs = {}) => {
      const found = spans.filter(
        (s) => s.name === name && s.kind === kind && Object.entries(attrs).every(([k, v]) => s.attributes[k] === v),
      );
      assert.equal(found.length, 1, `${name} ${kind}: ${JSON.stringify(spans.map((s) => [s.name, s.kind]))}`);
      return found[0];
    };
    // The app's call: a CLIENT span under the app's, the proxy's SERVER span under that.
    const client = one('tools/call relay', 'CLIENT');
    assert.equal(client.parent, out.root);
    assert.equal(client.attributes['mcp.method.name'], 'tools/call');
    assert.equal(client.attributes['gen_ai.tool.name'], 'relay');
    assert.equal(client.attributes['gen_ai.operation.name'], 'execute_tool');
    assert.ok(client.attributes['jsonrpc.request.id']);
    const server = one('tools/call relay', 'SERVER');
    assert.equal(server.parent, client.spanId);
    assert.equal(out.seen.relay, client.spanId, 'ctx.traceContext names the caller span');
    assert.equal(server.attributes['mcp.protocol.version'], mode === 'modern' ? '2026-07-28' : '2025-11-25');
    // The proxy's own call to the leaf (another process, over stdio).
    const toLeaf = one('tools/call whoami', 'CLIENT');
    assert.equal(toLeaf.parent, server.spanId);
    assert.equal(toLeaf.attributes['network.transport'], 'pipe');
    assert.deepEqual(out.relay.leaf, { traceId: client.traceId, parentId: toLeaf.spanId });
    // A tool that reports failure, and a JSON-RPC error.
    const broken = one('tools/call broken', 'CLIENT');
    assert.equal(broken.attributes['error.type'], 'tool_error');
    assert.equal(broken.status, 'ERROR');
    assert.equal(out.refused, -32050);
    const refused = one('tools/call refuse', 'SERVER');
    assert.equal(refused.attributes['error.type'], '-32050');
    assert.equal(refused.status, 'ERROR');
    assert.equal(one('tools/call refuse', 'CLIENT').attributes['rpc.response.status_code'], '-32050');
    // Resources and prompts.
    const read = spans.filter((s) => s.name === 'resources/read' && s.kind === 'SERVER');
    assert.equal(read.length, 2);
    assert.ok(read.every((s) => s.attributes['mcp.resource.uri'] === 'file:///a.txt'));
    const http = read.filter((s) => s.attributes['network.transport'] === 'tcp');
    assert.equal(http.length, 1);
    assert.ok(http[0].attributes['mcp.session.id']);
    assert.equal(one('prompts/get hello', 'SERVER', { 'gen_ai.prompt.name': 'hello' }).status, 'UNSET');
    // A call that asks for input: at 2026-07-28 a round ends it (input_required, not a
    // failure) and the retry is a second span; in a legacy session it is one call.
    assert.equal(out.ask, 'Ada');
    const asks = spans.filter((s) => s.name === 'tools/call ask' && s.kind === 'SERVER');
    assert.ok(asks.every((s) => s.status === 'UNSET'));
    const rounds = asks.map((s) => s.attributes['mcp.result.type'] ?? null);
    assert.deepEqual(rounds, mode === 'modern' ? ['input_required', null] : [null]);
    // One trace throughout.
    assert.deepEqual([...new Set(spans.map((s) => s.traceId))], [client.traceId]);
  });
}

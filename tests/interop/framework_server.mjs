#!/usr/bin/env node
// A hypermcp Node server using the framework layer, for the official SDKs' clients
// (tests/interop/py_sdk_framework.py, ts_sdk_framework.mjs): the same tools, middleware and
// visibility as framework_server.py.
//
//   node framework_server.mjs            stdio
//   node framework_server.mjs --http     Streamable HTTP on a free port (prints `listening on URL`)
import { McpError, Server } from 'hypermcp';

const server = new Server({ name: 'framework-node', version: '1.0.0' });
server.use({
  async onCallTool(c, next) {
    if (c.message.name === 'delete') throw new McpError(-32001, 'delete is not allowed here');
    if (c.message.name === 'shout') c.message.arguments = { ...c.message.arguments, text: String(c.message.arguments.text ?? '').toUpperCase() };
    return next(c);
  },
  async onListTools(c, next) {
    return (await next(c)).filter((t) => !t.name.startsWith('_'));
  },
});
const text = { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] };
const path = { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] };
server.tool('shout', { inputSchema: text }, ({ text }) => text);
server.tool('delete', { inputSchema: path }, ({ path }) => `deleted ${path}`);
server.tool('_debug', () => 'internal');
server.tool('report', { tags: ['premium'] }, () => 'the premium report');
server.tool('unlock', {}, async (_args, ctx) => {
  await ctx.enableComponents({ tags: ['premium'] });
  return 'unlocked';
});
server.disable({ tags: ['premium'] });

if (process.argv[2] === '--http') {
  const http = await server.startHttp({ host: '127.0.0.1', port: 0 });
  process.stderr.write(`framework server listening on ${http.url}\n`);
} else {
  await server.run();
}

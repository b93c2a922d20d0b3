// @ts-check
// Type tests for CommonJS consumers in plain JavaScript (`require("hypermcp")` with
// `// @ts-check` or an editor's type checking), checked by `npx tsc -p tsconfig.json`; never
// run.
'use strict';

const { Server, Client, McpError, INVALID_PARAMS, text } = require('hypermcp');
const hypermcp = require('hypermcp');
const { z } = require('zod');

const server = new Server({ name: 'cjs', version: '1.0.0' });
server.tool('echo', 'Echo text back', { text: z.string() }, ({ text: t }) => text(t.toUpperCase()));
// @ts-expect-error: the argument is a string
server.tool('echo_bad', 'Echo', { text: z.string() }, ({ text: t }) => t.toFixed());

/** @param {import('hypermcp').Context} ctx */
async function useContext(ctx) {
  await ctx.reportProgress(1, 2);
  // @ts-expect-error: not a logging level
  await ctx.log('loud', 'x');
}

async function main() {
  const client = await Client.connect(server);
  const result = await client.callTool('echo', { text: 'hi' });
  /** @type {string} */
  const kind = result.content[0]?.type ?? '';
  await client.close();
  const err = new McpError(INVALID_PARAMS, 'bad');
  /** @type {number} */
  const code = err.rpcCode;
  /** @type {string} */
  const v = hypermcp.version;
  return [kind, code, v, useContext];
}
void main;

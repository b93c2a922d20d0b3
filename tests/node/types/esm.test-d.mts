// Type tests for ESM consumers (`import ... from "hypermcp"` in an ES module), checked by
// `npx tsc -p tsconfig.json`; never run. The default export is the whole module, as at run
// time (bindings-node/js/index.mjs).

import hypermcp, { Client, INVALID_PARAMS, McpError, PROTOCOL_VERSIONS, Server, text, type CallToolResult } from 'hypermcp';
import { z } from 'zod';

const server: Server = new hypermcp.Server({ name: 'esm', version: '1.0.0' });
const same: typeof Server = hypermcp.Server;
server.tool('echo', 'Echo text back', { text: z.string() }, ({ text: t }) => hypermcp.text(t));
// @ts-expect-error: the argument is a string
server.tool('echo_bad', 'Echo', { text: z.string() }, ({ text: t }) => t.toFixed());

const client = await Client.connect(server);
const result: CallToolResult = await client.callTool('echo', { text: 'hi' });
const err: McpError = new hypermcp.InvalidParams('bad');
const code: -32602 = INVALID_PARAMS;
const fromDefault: readonly string[] = hypermcp.PROTOCOL_VERSIONS;
await client.close();
void same, result, err, code, fromDefault, PROTOCOL_VERSIONS, text;

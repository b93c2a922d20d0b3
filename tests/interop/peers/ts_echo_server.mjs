// Echo MCP server written with the official TypeScript SDK (@modelcontextprotocol/sdk
// 1.32.2), stdio transport. One tool, `echo({text: string})`, returning the text.
// Used as a known-good peer to test the interop clients and the transcript runner.
//   node tests/interop/peers/ts_echo_server.mjs      (SDK from ${PEERS:-<repo>/.peers}/npm)
import { importPeer } from '../peer_import.mjs';

const { McpServer } = await importPeer('@modelcontextprotocol/sdk/server/mcp.js');
const { StdioServerTransport } = await importPeer('@modelcontextprotocol/sdk/server/stdio.js');
const { z } = await importPeer('zod');

const server = new McpServer({ name: 'ts-echo-server', version: '1.0.0' });

server.registerTool(
  'echo',
  {
    description: 'Echo the given text back.',
    inputSchema: { text: z.string() },
  },
  async ({ text }) => ({ content: [{ type: 'text', text }] }),
);

await server.connect(new StdioServerTransport());

// A server on the official TypeScript SDK v2 (@modelcontextprotocol/server 2.4.0), serving the
// 2026-07-28 revision (stateless: server/discover, per-request _meta, multi round-trip) and, from
// the same factory, 2025-era clients (initialize). Two tools:
//   echo({text})   -> one text item "echo: <text>"
//   ask_name({})   -> answers `input_required` with an elicitation (key "name", form
//                     {name: string}); on the retry that carries the accepted answer, "hello <name>".
//                     A declined or cancelled answer gives an isError result. (A 2025-era client
//                     gets a real elicitation/create request instead: the SDK's legacy shim.)
//
//   node tests/interop/peers/ts_v2_server.mjs --port PORT   Streamable HTTP at /mcp (createMcpHandler:
//                                                           a fresh McpServer per request; 2025-era
//                                                           traffic served statelessly, GET/DELETE 405)
//   node tests/interop/peers/ts_v2_server.mjs --stdio       stdio (serveStdio: the opening message picks
//                                                           the era for the connection)
//
// HTTP is served by node:http on 127.0.0.1 only, with the SDK's Host and Origin checks (localhost
// names) in front of the handler, which has none of its own (./v2_http.mjs). PORT 0 picks a
// free port. Once listening, one line goes to stderr:
//   ts_v2_server: listening on http://127.0.0.1:PORT/mcp
// The SDK comes from ${PEERS:-<repo>/.peers}/npm (setup_peers.sh); zod is the copy installed there.
import { importPeer } from '../peer_import.mjs';
import { serveV2Http } from './v2_http.mjs';

const { McpServer, acceptedContent, createMcpHandler, inputRequired, inputResponse } = await importPeer(
  '@modelcontextprotocol/server',
);
const { z } = await importPeer('zod');

const NAME_FORM = z.object({ name: z.string().describe('Your name') });

/** The factory both entries call: one McpServer per HTTP request, one per stdio connection. */
function makeServer() {
  const server = new McpServer({ name: 'ts-v2-server', version: '2.4.0' }, { capabilities: { tools: {} } });
  server.registerTool(
    'echo',
    { description: 'Echoes the given text back, prefixed with "echo: ".', inputSchema: z.object({ text: z.string() }) },
    async ({ text }) => ({ content: [{ type: 'text', text: `echo: ${text}` }] }),
  );
  server.registerTool(
    'ask_name',
    { description: 'Asks the user for their name (multi round-trip elicitation), then greets them.', inputSchema: z.object({}) },
    async (_args, ctx) => {
      const responses = ctx.mcpReq.inputResponses;
      const answer = acceptedContent(responses, 'name', NAME_FORM);
      if (answer) return { content: [{ type: 'text', text: `hello ${answer.name}` }] };
      const view = inputResponse(responses, 'name');
      if (view.kind === 'elicit' && view.action !== 'accept') {
        return { isError: true, content: [{ type: 'text', text: `no name given (${view.action})` }] };
      }
      return inputRequired({
        inputRequests: { name: inputRequired.elicit({ message: 'What is your name?', requestedSchema: NAME_FORM }) },
      });
    },
  );
  return server;
}

function usage(msg) {
  process.stderr.write(`ts_v2_server: ${msg}\nusage: ts_v2_server.mjs (--port PORT | --stdio)\n`);
  process.exit(2);
}

const argv = process.argv.slice(2);
let port = null;
let stdio = false;
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === '--port' && i + 1 < argv.length && port === null) port = Number(argv[++i]);
  else if (argv[i] === '--stdio') stdio = true;
  else usage(`unknown argument ${argv[i]}`);
}
if (stdio === (port !== null)) usage('give exactly one of --port PORT and --stdio');
if (port !== null && !(Number.isInteger(port) && port >= 0 && port < 65536)) usage('bad PORT');

const onerror = (e) => process.stderr.write(`ts_v2_server: ${e?.message ?? e}\n`);

if (stdio) {
  const { serveStdio } = await importPeer('@modelcontextprotocol/server/stdio');
  serveStdio(makeServer, { onerror });
} else {
  const server = await serveV2Http(createMcpHandler(makeServer, { onerror }), { port, onerror });
  process.stderr.write(`ts_v2_server: listening on http://127.0.0.1:${server.address().port}/mcp\n`);
}

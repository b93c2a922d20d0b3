// @ts-check
// A client that spawns a stdio MCP server (or connects to one over HTTP) and uses what it
// offers (the Node twin of examples/python/client.py).
//
//     node examples/node/client.mjs                          # the weather example server
//     node examples/node/client.mjs -- python server.py      # any stdio server
//     node examples/node/client.mjs --url http://127.0.0.1:8000/mcp   # any HTTP server
//
// It lists tools, resources and prompts, calls a tool (with progress), reads a resource and
// gets a prompt, answering the server's elicitation and sampling requests on the way.

import { fileURLToPath } from 'node:url';
import { Client } from 'hypermcp';

/** @typedef {import('hypermcp').CreateMessageParams} CreateMessageParams */
/** @typedef {import('hypermcp').CreateMessageResult} CreateMessageResult */
/** @typedef {import('hypermcp').ElicitParams} ElicitParams */
/** @typedef {import('hypermcp').ElicitResult} ElicitResult */
/** @typedef {import('hypermcp').CallToolResult} CallToolResult */
/** @typedef {import('hypermcp').ResourceContents} ResourceContents */

/**
 * A real client would ask its model; this one answers from a script.
 * @param {CreateMessageParams} params
 * @returns {Promise<CreateMessageResult>}
 */
async function sampling(params) {
  const last = params.messages[params.messages.length - 1];
  const content = Array.isArray(last?.content) ? last.content[0] : last?.content;
  const question = content?.type === 'text' ? content.text : '';
  return {
    role: 'assistant',
    model: 'scripted',
    content: { type: 'text', text: `(re: ${question.slice(0, 40)}...) Pack layers.` },
  };
}

/**
 * @param {ElicitParams} params
 * @returns {Promise<ElicitResult>}
 */
async function elicitation(params) {
  console.log(`  server asks: ${params.message}`);
  if (params.mode === 'url') return { action: 'decline' };
  return { action: 'accept', content: { city: 'paris', days: 2 } };
}

/** @param {import('hypermcp').Progress} p */
function progress({ progress: value, total, message }) {
  console.log(`  progress ${value}/${total ?? '?'} ${message ?? ''}`);
}

/** The text blocks of a tool result, joined. @param {CallToolResult} result */
function textOf(result) {
  return result.content.map((c) => (c.type === 'text' ? c.text : `[${c.type}]`)).join(' ');
}

/** @param {ResourceContents | undefined} contents */
function contentsText(contents) {
  if (!contents) return '(empty)';
  return 'text' in contents ? contents.text : `[${contents.blob.length} base64 chars]`;
}

/** @param {string[]} command a server command, or `['--url', URL]` */
async function main(command) {
  const [program, ...args] = command;
  if (!program) throw new Error('no server command');
  const options = {
    name: 'weather-example-client',
    onSampling: sampling,
    onElicitation: elicitation,
    /** @param {import('hypermcp').LoggingMessageParams} m */
    onLog: ({ level, data }) => console.log(`  log (${level}): ${typeof data === 'string' ? data : JSON.stringify(data)}`),
  };
  const client =
    program === '--url'
      ? await Client.http(args[0] ?? '', options)
      : await Client.stdio(program, args, { ...options, onStderr: (line) => console.error(`  [server stderr] ${line}`) });
  try {
    const info = client.serverInfo;
    console.log(`connected to ${info?.name} ${info?.version} (protocol ${client.protocolVersion})`);
    const { tools } = await client.listTools();
    console.log('tools:', tools.map((t) => t.name).join(', '));
    const names = new Set(tools.map((t) => t.name));
    if (names.has('forecast')) {
      const result = await client.callTool('forecast', { city: 'paris', days: 3 }, { onProgress: progress });
      console.log('forecast ->', JSON.stringify(result.structuredContent));
      const trip = await client.callTool('plan_trip');
      console.log('plan_trip ->', textOf(trip));
    } else if (names.has('echo')) {
      const result = await client.callTool('echo', { text: 'hello from the hypermcp Node client' });
      console.log('echo ->', textOf(result));
    }
    const caps = client.serverCapabilities ?? {};
    if (caps.resources) {
      const { resources } = await client.listResources();
      console.log('resources:', resources.map((r) => r.uri).join(', ') || '(none)');
      const first = resources[0];
      if (first) {
        const read = await client.readResource(first.uri);
        console.log(`${first.uri} ->`, contentsText(read.contents[0]));
      }
    }
    if (caps.prompts) {
      const { prompts } = await client.listPrompts();
      console.log('prompts:', prompts.map((p) => p.name).join(', ') || '(none)');
      if (prompts.some((p) => p.name === 'packing_list')) {
        const prompt = await client.getPrompt('packing_list', { city: 'tokyo' });
        const texts = prompt.messages.map((m) => (m.content.type === 'text' ? m.content.text : `[${m.content.type}]`));
        console.log('packing_list ->', texts.join(' / '));
      }
    }
  } finally {
    await client.close();
  }
}

let argv = process.argv.slice(2);
if (argv[0] === '--') argv = argv.slice(1);
if (argv.length === 0) argv = [process.execPath, fileURLToPath(new URL('./weather_server.mjs', import.meta.url))];
await main(argv);

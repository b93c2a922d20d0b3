// The shared echo server: one tool `echo` taking {text} and answering with that text. Every
// hypermcp language ships this same server; benchmarks and interop checks use it.
//
//   node examples/node/echo_server.mjs               # stdio
//   node examples/node/echo_server.mjs --http 3000   # Streamable HTTP at http://127.0.0.1:3000/mcp
//
// With `--http PORT` it serves until SIGINT or SIGTERM (the legacy HTTP+SSE transport too, at
// /sse); `--stateless` and `--json` select those modes, as in the Rust and Python examples.
import { Server } from 'hypermcp';

const server = new Server({ name: 'hypermcp-echo', version: '1.0.0' });

server.tool(
  'echo',
  {
    description: 'Echo the given text back',
    inputSchema: {
      type: 'object',
      properties: { text: { type: 'string', description: 'Text to echo back' } },
      required: ['text'],
    },
  },
  ({ text }) => text,
);

// No parseArgs: the start-up time of this server is benchmarked.
const argv = process.argv.slice(2);
if (argv.length === 0) {
  await server.run();
} else if (argv[0] === '--http' && /^\d+$/.test(argv[1] ?? '') && argv.slice(2).every((a) => a === '--stateless' || a === '--json')) {
  await server.run({
    transport: 'http',
    port: Number(argv[1]),
    stateless: argv.includes('--stateless'),
    jsonResponse: argv.includes('--json'),
  });
} else {
  console.error('usage: echo_server.mjs [--http PORT [--stateless] [--json]]');
  process.exitCode = 2;
}

// The shared echo server: one tool `echo` taking {text} and answering with that text, over
// stdio. Every hypermcp language ships this same server; benchmarks and interop checks use it.
//
//   node examples/node/echo_server.mjs
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

await server.run();

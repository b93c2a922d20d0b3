// The hypermcp (Node) benchmark server: the contract of bench/servers/README.md (an `echo`
// tool, the catalogue tool_01 … tool_49, the 1 MiB resource bench://blob; with BENCH_MODERN=1
// the 2026-07-28 tools ask and touch), written the way a
// user of the package writes a server.
//
//   node bench/servers/hypermcp_server.mjs                               # stdio
//   node bench/servers/hypermcp_server.mjs --http PORT                   # Streamable HTTP, sessions
//   node bench/servers/hypermcp_server.mjs --http PORT --stateless-json  # stateless, JSON answers
//
// HTTP serves http://127.0.0.1:PORT/mcp until SIGINT or SIGTERM. After `--http PORT
// [--stateless-json]`, the serving options of bench/run.py's auth and TLS rows
// (bench/servers/README.md): `--tls-cert PEM --tls-key PEM` serve HTTPS; `--auth-issuer URL
// --auth-jwks URL --auth-resource URI` make the server an OAuth resource server that takes JWTs
// of that issuer for that resource with the scope `mcp`.
import { LoggingMiddleware, Server, TimingMiddleware, setLogger } from 'hypermcp';

const server = new Server({ name: 'hypermcp-bench', version: '1.0.0' });
// One pass-through middleware with BENCH_MIDDLEWARE=1 (bench/servers/README.md).
if (process.env.BENCH_MIDDLEWARE) server.use({ onCallTool: async (context, next) => next(context) });
// The logging and timing built-ins with BENCH_BUILTINS=1 (their lines read by nobody: the
// logger's level is above them).
if (process.env.BENCH_BUILTINS) {
  server.use(new LoggingMiddleware({ logger: { info() {}, warn() {}, error() {}, debug() {} } }));
  server.use(new TimingMiddleware());
  setLogger(console, { level: 'warn' });
}

server.tool(
  'echo',
  {
    description: 'Echo the text back',
    inputSchema: {
      type: 'object',
      properties: { text: { type: 'string', description: 'Text to echo back' } },
      required: ['text'],
    },
  },
  async ({ text }) => text,
);

const forecastSchema = {
  type: 'object',
  properties: {
    city: { type: 'string', description: 'City name' },
    days: { type: 'integer', description: 'Days ahead, 1 to 7' },
  },
  required: ['city'],
};
for (let n = 1; n <= 49; n++) {
  const name = `tool_${String(n).padStart(2, '0')}`;
  server.tool(
    name,
    {
      description: `Catalogue tool ${String(n).padStart(2, '0')}: the forecast for a city over a number of days`,
      inputSchema: forecastSchema,
    },
    async ({ city, days = 1 }) => `${name}: ${city} ${days}`,
  );
}

// The 2026-07-28 scenarios, with BENCH_MODERN=1 only (the catalogue the other scenarios list
// stays 50 tools): `ask` elicits a name (one input_required round trip at 2026-07-28), `touch`
// changes the tool list so that every listen stream gets list_changed.
const noArgs = { type: 'object', properties: {} };
const nameForm = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] };
if (process.env.BENCH_MODERN) {
  server.tool('ask', { description: 'Ask for a name, then greet it', inputSchema: noArgs }, async (_args, ctx) => {
    const answer = await ctx.elicit('What is your name?', nameForm);
    if (answer.action !== 'accept' || !answer.content) throw new Error(`no name given (${answer.action})`);
    return `hello ${answer.content.name}`;
  });
  server.tool('touch', { description: 'Change the tool list (add or remove `touched`)', inputSchema: noArgs }, async () => {
    if (!server.removeTool('touched')) {
      server.tool('touched', { description: 'Added by touch', inputSchema: noArgs }, async () => 'touched');
    }
    return 'touched';
  });
}

let blob; // built on the first read and kept (bench/servers/README.md)
server.resource('bench://blob', { name: 'blob', mimeType: 'text/plain' }, async () => (blob ??= '0123456789abcdef'.repeat(65_536)));

// The options of server.run() for the flags after the port, or null if they are not these.
const servingFlags = ['--tls-cert', '--tls-key', '--auth-issuer', '--auth-jwks', '--auth-resource'];
function httpOptions(args) {
  const options = {};
  const given = {};
  for (let i = 0; i < args.length; ) {
    if (args[i] === '--stateless-json') {
      options.stateless = options.jsonResponse = true;
      i += 1;
    } else if (servingFlags.includes(args[i]) && i + 1 < args.length) {
      given[args[i]] = args[i + 1];
      i += 2;
    } else {
      return null;
    }
  }
  if (('--tls-cert' in given) !== ('--tls-key' in given)) return null;
  if ('--tls-cert' in given) {
    options.tlsCert = given['--tls-cert'];
    options.tlsKey = given['--tls-key'];
  }
  const auth = servingFlags.slice(2).map((f) => given[f]);
  if (auth.some(Boolean) && !auth.every(Boolean)) return null;
  if (auth.every(Boolean)) {
    const [issuer, jwksUri, resource] = auth;
    options.auth = { resource, authorizationServers: [issuer], jwksUri, requiredScopes: ['mcp'] };
  }
  return options;
}

// No parseArgs: the start-up time of this server is benchmarked.
const argv = process.argv.slice(2);
const options = argv[0] === '--http' && /^\d+$/.test(argv[1] ?? '') ? httpOptions(argv.slice(2)) : null;
if (argv.length === 0) {
  await server.run();
} else if (options) {
  await server.run({ transport: 'http', port: Number(argv[1]), ...options });
} else {
  console.error(
    'usage: hypermcp_server.mjs [--http PORT [--stateless-json] [--tls-cert PEM --tls-key PEM] ' +
      '[--auth-issuer URL --auth-jwks URL --auth-resource URI]]',
  );
  process.exitCode = 2;
}

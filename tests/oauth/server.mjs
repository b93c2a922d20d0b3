// An MCP server (hypermcp for Node) that requires OAuth access tokens from the test's
// authorization server: for the other languages' clients in the OAuth tests.
//
//   node tests/oauth/server.mjs --port PORT --issuer URL --ca-file CA.pem [--required-scope S]...
//
// It serves http://127.0.0.1:PORT/mcp (the resource: the tokens' audience), verifies JWTs
// against the issuer's JWKS (fetched over HTTPS trusting CA.pem), prints {"url": ...} on
// stdout when it listens, then one JSON line per tool call ({"called": "echo", "text": ...}).
// Stops on SIGTERM or when stdin closes.

import { Server } from 'hypermcp';

const opts = { requiredScopes: [] };
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i += 2) {
  const [name, value] = [argv[i], argv[i + 1]];
  if (value === undefined) throw new Error(`${name} needs a value`);
  if (name === '--port') opts.port = Number(value);
  else if (name === '--issuer') opts.issuer = value;
  else if (name === '--ca-file') opts.caFile = value;
  else if (name === '--required-scope') opts.requiredScopes.push(value);
  else throw new Error(`unknown argument ${name}`);
}

const server = new Server({ name: 'oauth-node-server', version: '1.0.0' });
server.tool('echo', 'Echo the text', { type: 'object', properties: { text: { type: 'string' } } }, ({ text }) => {
  process.stdout.write(`${JSON.stringify({ called: 'echo', text })}\n`);
  return `node server: ${text}`;
});
const resource = `http://127.0.0.1:${opts.port}/mcp`;
const running = await server.startHttp({
  host: '127.0.0.1',
  port: opts.port,
  auth: {
    resource,
    authorizationServers: [opts.issuer],
    jwksUri: `${opts.issuer}/jwks`,
    requiredScopes: opts.requiredScopes,
    scopesSupported: ['mcp:tools', 'mcp:admin'],
    caFile: opts.caFile,
  },
});
process.stdout.write(`${JSON.stringify({ url: running.url })}\n`);
const stop = async () => {
  await running.stop();
  process.exit(0);
};
process.on('SIGTERM', stop);
process.stdin.on('end', stop);
process.stdin.resume();

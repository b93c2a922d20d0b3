// An MCP client that gets an OAuth access token by itself: on the server's 401 the engine
// reads the Protected Resource Metadata, finds the authorization server, registers (or uses
// the client id given), authorizes and retries; on a 403 insufficient_scope it steps up.
//
//   node examples/node/oauth_client.mjs --url https://mcp.example.com/mcp
//       a user signs in: the system browser opens at the authorization server (the URL is
//       printed too) and the redirect comes back to http://127.0.0.1:8765/callback
//   node examples/node/oauth_client.mjs --url URL --client-id ID --client-secret SECRET
//       a service acting on its own behalf (the client credentials grant)
//   add --ca-file PEM to trust a private CA, --token-store FILE to keep tokens across runs
//
// It calls the notes server of examples/python/protected_server.py: whoami, add_note (which
// needs a scope of its own), list_notes.

import { parseArgs } from 'node:util';
import { Client, Unauthorized } from 'hypermcp';

const { values: args } = parseArgs({
  options: {
    url: { type: 'string' },
    'client-id': { type: 'string' },
    'client-secret': { type: 'string' },
    'ca-file': { type: 'string' },
    'token-store': { type: 'string' },
    note: { type: 'string', default: 'hello from the Node OAuth client' },
  },
});
if (!args.url) {
  console.error('usage: node examples/node/oauth_client.mjs --url URL [--client-id ID [--client-secret SECRET]] [--ca-file PEM] [--token-store FILE]');
  process.exit(2);
}

const auth = args['client-secret']
  ? { grant: 'client_credentials', clientId: args['client-id'], clientSecret: args['client-secret'] }
  : { clientId: args['client-id'], redirectUri: 'http://127.0.0.1:8765/callback' };
if (args['token-store']) auth.tokenStore = args['token-store'];

try {
  const client = await Client.http(args.url, { auth, caFile: args['ca-file'] });
  try {
    const who = await client.callTool('whoami', {});
    console.log('whoami:', who.structuredContent ?? who.content[0].text);
    console.log('add_note:', (await client.callTool('add_note', { text: args.note })).content[0].text);
    const notes = await client.callTool('list_notes', {});
    console.log('list_notes:', JSON.stringify(notes.structuredContent ?? notes.content[0].text));
  } finally {
    await client.close();
  }
} catch (err) {
  if (err instanceof Unauthorized) console.error(`not authorized: ${err.message}`);
  else console.error(err);
  process.exit(1);
}

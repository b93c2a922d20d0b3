// Runs the OAuth examples against a real authorization server (make test-examples): the
// certified OpenID provider of tests/oauth/provider.mjs over HTTPS with a test CA, the
// protected Python notes server (examples/python/protected_server.py) verifying its JWTs, and
// the Node client (examples/node/oauth_client.mjs) getting a token by client credentials,
// stepping up for add_note's scope, and calling the tools.
//
//   node tests/oauth/run_examples.mjs --python .venv/bin/python
//
// Needs oidc-provider in <peers>/oauth (make peers).

import { spawn, execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { REPO, freePort, makePki, providerMissing, startProvider } from './oauth.mjs';

const { values: args } = parseArgs({ options: { python: { type: 'string', default: 'python3' } } });
const missing = providerMissing();
if (missing) {
  console.error(`run_examples.mjs: ${missing}`);
  process.exit(1);
}

/** Starts `argv` and resolves once a stdout line contains `marker`. */
function startServer(argv, marker, ms = 60_000) {
  const child = spawn(argv[0], argv.slice(1), { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => { out += d; });
  child.stderr.on('data', (d) => { out += d; });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${argv.join(' ')} not ready within ${ms} ms:\n${out}`)), ms);
    const poll = setInterval(() => {
      if (out.includes(marker)) {
        clearInterval(poll);
        clearTimeout(timer);
        resolve({ child, output: () => out });
      }
    }, 50);
    child.on('exit', (code) => {
      clearInterval(poll);
      clearTimeout(timer);
      reject(new Error(`${argv.join(' ')} exited (${code}):\n${out}`));
    });
  });
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hypermcp-oauth-examples-'));
let provider;
let server;
try {
  const pki = makePki(dir);
  provider = await startProvider(pki);
  const { issuer, jwks_uri: jwksUri, clients } = provider.info;
  const port = await freePort();
  server = await startServer(
    [args.python, path.join(REPO, 'examples', 'python', 'protected_server.py'), '--issuer', issuer, '--jwks-uri', jwksUri,
      '--port', String(port), '--read-scope', 'mcp:tools', '--write-scope', 'mcp:admin', '--ca-file', pki.ca],
    'notes server at',
  );
  const url = `http://127.0.0.1:${port}/mcp`;
  // Without a token: 401 and where to get one.
  const refused = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{"jsonrpc":"2.0","id":1,"method":"ping"}' });
  if (refused.status !== 401 || !(refused.headers.get('www-authenticate') ?? '').includes('resource_metadata=')) {
    throw new Error(`the protected server answered ${refused.status} ${refused.headers.get('www-authenticate')} without a token`);
  }
  const out = execFileSync(process.execPath, [path.join(REPO, 'examples', 'node', 'oauth_client.mjs'), '--url', url,
    '--client-id', clients.service, '--client-secret', clients.service_secret, '--ca-file', pki.ca, '--note', 'from make test-examples'],
  { encoding: 'utf8', timeout: 60_000 });
  for (const want of ['whoami:', clients.service, 'add_note: saved note 1', 'list_notes:', 'from make test-examples']) {
    if (!out.includes(want)) throw new Error(`the Node OAuth client's output lacks ${JSON.stringify(want)}:\n${out}\nserver:\n${server.output()}`);
  }
  console.log('oauth examples: ok (the Node client got a token by client credentials from oidc-provider, stepped up for add_note, and called the protected Python server)');
} finally {
  server?.child.kill('SIGTERM');
  await provider?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
}

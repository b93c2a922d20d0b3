// The app's own token store (`auth.tokenStore` object) against a real authorization server
// (oidc-provider, as in oauth_provider.test.mjs): registrations and tokens go to the app's
// object (sync or Promise-returning methods), a second client reuses the stored token without
// a new grant, and a store that fails makes the authorization fail with its reason.
//
// Needs oidc-provider in <peers>/oauth (make peers): skipped without it, unless
// HYPERMCP_REQUIRE_PEERS=1, which makes that a failure.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client, Server, Unauthorized } from 'hypermcp';
import { within } from './_helpers.mjs';
import { freePort, makePki, providerEvents, providerMissing, startProvider } from '../oauth/oauth.mjs';

const REQUIRE = process.env.HYPERMCP_REQUIRE_PEERS === '1';
const missing = providerMissing();
const LIMIT = 20_000;

let dir;
let pki;
let as;

before(async () => {
  if (missing) return;
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hypermcp-oauth-store-'));
  pki = makePki(dir);
  as = await startProvider(pki);
});

after(async () => {
  await as?.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/** A store in Maps: Promise-returning loads, plain saves. */
class MapStore {
  constructor(failSaves = false) {
    this.clients = new Map();
    this.tokens = new Map();
    this.calls = [];
    this.failSaves = failSaves;
  }
  async loadClient(issuer) {
    this.calls.push('loadClient');
    return this.clients.get(issuer) ?? null;
  }
  saveClient(issuer, client) {
    this.calls.push('saveClient');
    this.clients.set(issuer, client);
  }
  async loadTokens(issuer, resource) {
    this.calls.push('loadTokens');
    return this.tokens.get(`${issuer} ${resource}`) ?? null;
  }
  saveTokens(issuer, resource, tokens) {
    this.calls.push('saveTokens');
    if (this.failSaves) throw new Error('the keychain is locked');
    if (tokens === null) this.tokens.delete(`${issuer} ${resource}`);
    else this.tokens.set(`${issuer} ${resource}`, tokens);
  }
}

test("the app's token store keeps and gives back the tokens", async (t) => {
  if (missing) {
    if (REQUIRE) assert.fail(`HYPERMCP_REQUIRE_PEERS=1 but oidc-provider is unavailable: ${missing}`);
    t.skip(missing);
    return;
  }
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/mcp`;
  const server = new Server({ name: 'oauth-store', version: '1.0.0' });
  server.tool('echo', 'Echo', { type: 'object', properties: { text: { type: 'string' } } }, ({ text }, ctx) => `${ctx.auth?.clientId}: ${text}`);
  const running = await server.startHttp({
    port,
    auth: { resource: url, authorizationServers: [as.info.issuer], jwksUri: as.info.jwks_uri, requiredScopes: ['mcp:tools'], caFile: pki.ca },
  });
  try {
    const service = as.info.clients.service;
    const auth = (tokenStore) => ({ grant: 'client_credentials', clientId: service, clientSecret: as.info.clients.service_secret, tokenStore });
    await assert.rejects(async () => Client.http(url, { auth: auth({ loadClient() {} }) }), /saveClient is missing/);
    const store = new MapStore();
    let client = await within(Client.http(url, { auth: auth(store), caFile: pki.ca }), LIMIT);
    let r = await within(client.callTool('echo', { text: 'stored' }), LIMIT);
    assert.equal(r.content[0].text, `${service}: stored`);
    await client.close();
    const [[key, tokens]] = [...store.tokens];
    assert.equal(key, `${as.info.issuer} ${url}`);
    assert.ok(tokens.access_token, 'the access token is stored');
    assert.deepEqual(tokens.scopes, ['mcp:tools']);
    assert.ok(store.calls.includes('saveTokens'));

    // A second client with the same store: the stored token, no new grant.
    client = await within(Client.http(url, { auth: auth(store), caFile: pki.ca }), LIMIT);
    r = await within(client.callTool('echo', { text: 'again' }), LIMIT);
    assert.equal(r.content[0].text, `${service}: again`);
    await client.close();
    const grants = (await providerEvents(as.info, pki.ca)).filter((e) => e.aud === url);
    assert.equal(grants.length, 1, JSON.stringify(grants));

    // A store that cannot save: the authorization fails with its reason.
    await assert.rejects(within(Client.http(url, { auth: auth(new MapStore(true)), caFile: pki.ca }), LIMIT), (err) => {
      assert.ok(err instanceof Unauthorized, String(err));
      assert.match(err.message, /save_tokens failed: the keychain is locked/);
      return true;
    });
  } finally {
    await running.stop();
  }
});

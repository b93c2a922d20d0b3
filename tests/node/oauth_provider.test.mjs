// OAuth against a real authorization server: oidc-provider (a certified OpenID provider,
// tests/oauth/provider.mjs) over HTTPS on loopback with a certificate from a CA made here.
// The Node client gets tokens by authorization code + PKCE (the provider's login and consent
// pages driven over HTTP, no browser) and by client credentials, refreshes them once they
// expire, and steps up for a tool with its own scope; the Node server verifies them against the
// provider's JWKS, refuses, with the right status and WWW-Authenticate, a token for another
// audience, from another issuer, expired, or without the scope (the server's, or a tool's), and
// shows the handlers who called (ctx.auth). The Node client also calls the Python server
// (tests/oauth/server.py) and the official Python SDK's resource server
// (tests/oauth/py_sdk_server.py), and the official SDK's OAuth client steps up at the Node
// server (tests/oauth/py_sdk_client.py). With DPoP at the provider, tokens are bound to the
// client's key and the Node server checks the proofs. The Python suite
// (tests/python/test_oauth_provider.py) and the Rust one (core/tests/suite/oauth_provider.rs, with
// the key rotation) cover the other languages.
//
// Needs oidc-provider in <peers>/oauth and the official Python SDK in <peers>/venv (make
// peers): skipped without them, unless HYPERMCP_REQUIRE_PEERS=1, which makes that a failure.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client, Server, Unauthorized } from 'hypermcp';
import { spawn } from 'node:child_process';
import { within, sleep, until } from './_helpers.mjs';
import {
  PEERS, REPO, REDIRECT_URI, authorizeOverHttp, clientCredentials, clientCredentialsResponse, decodeJwt, dpopKey,
  dpopProof, freePort, makePki, postInitialize, postMcp, providerEvents, providerMissing, rotateKey, startChild,
  startProvider,
} from '../oauth/oauth.mjs';

const REQUIRE = process.env.HYPERMCP_REQUIRE_PEERS === '1';
const missing = providerMissing();
const LIMIT = 20_000;

let dir;
let pki;
let as; // the authorization server
let other; // a second one (another issuer) signing with the same key
let rs; // the Node server: {url, calls, stop}

function need(t) {
  if (!missing) return true;
  if (REQUIRE) assert.fail(`HYPERMCP_REQUIRE_PEERS=1 but oidc-provider is unavailable: ${missing}`);
  t.skip(missing);
  return false;
}

/**
 * The Node server on a free port, requiring `mcp:tools` of `provider`'s tokens (and `mcp:admin`
 * for its tool `admin`); its calls are recorded: `calls` (the texts) and `callers` (who called,
 * as the handlers saw it in ctx.auth: [tool, subject, clientId, scopes]). `options`: more of
 * the `auth` option.
 */
async function startNodeServer(provider, options = {}) {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/mcp`;
  const calls = [];
  const callers = [];
  const record = (tool, text, ctx) => {
    calls.push(text);
    assert.ok(ctx.auth, 'a handler of a server with the auth option sees ctx.auth');
    callers.push([tool, ctx.auth.subject, ctx.auth.clientId, ctx.auth.scopes]);
  };
  const inputSchema = { type: 'object', properties: { text: { type: 'string' } } };
  const server = new Server({ name: 'oauth-node', version: '1.0.0' });
  server.tool('echo', 'Echo', inputSchema, ({ text }, ctx) => {
    record('echo', text, ctx);
    return `node: ${text}`;
  });
  server.tool('admin', { description: 'Echo, for mcp:admin tokens', inputSchema, scopes: ['mcp:admin'] }, ({ text }, ctx) => {
    record('admin', text, ctx);
    return `node admin: ${text}`;
  });
  const running = await server.startHttp({
    port,
    auth: {
      resource: url,
      authorizationServers: [provider.info.issuer],
      jwksUri: provider.info.jwks_uri,
      requiredScopes: ['mcp:tools'],
      scopesSupported: ['mcp:tools', 'mcp:admin'],
      caFile: pki.ca,
      ...options,
    },
  });
  assert.equal(running.url, url);
  return { url, calls, callers, stop: () => running.stop() };
}

before(async () => {
  if (missing) return;
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hypermcp-oauth-'));
  pki = makePki(dir);
  const signingKey = path.join(dir, 'signing-key.json');
  as = await startProvider(pki, { signingKey });
  other = await startProvider(pki, { signingKey });
  rs = await startNodeServer(as);
});

after(async () => {
  await rs?.stop();
  await as?.stop();
  await other?.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

test('the Node server refuses tokens for another audience, from another issuer, expired or without the scope', async (t) => {
  if (!need(t)) return;
  const ca = pki.ca;
  const cc = (options) => clientCredentials(as.info, ca, { resource: rs.url, scope: 'mcp:tools', ...options });
  const metadata = `resource_metadata="${rs.url.replace('/mcp', '/.well-known/oauth-protected-resource/mcp')}"`;
  // Checks a refusal: its status, and a WWW-Authenticate naming the metadata, the scope, the error.
  const refused = async (token, status, error, why) => {
    const r = await within(postInitialize(rs.url, token), LIMIT);
    assert.equal(r.status, status, `${why}: ${r.text}`);
    assert.match(r.wwwAuthenticate, /^Bearer /, why);
    assert.ok(r.wwwAuthenticate.includes(metadata), `${why}: ${r.wwwAuthenticate}`);
    assert.ok(r.wwwAuthenticate.includes('scope="mcp:tools"'), `${why}: ${r.wwwAuthenticate}`);
    if (error) assert.ok(r.wwwAuthenticate.includes(`error="${error}"`), `${why}: ${r.wwwAuthenticate}`);
    return r.wwwAuthenticate;
  };

  await refused(undefined, 401, null, 'no token');
  const good = await cc({});
  assert.equal(decodeJwt(good).header.typ, 'at+jwt');
  assert.equal(decodeJwt(good).payload.aud, rs.url);
  assert.equal((await within(postInitialize(rs.url, good), LIMIT)).status, 200, 'a good token');

  let www = await refused(await cc({ resource: 'http://127.0.0.1:1/elsewhere' }), 401, 'invalid_token', 'another audience');
  assert.match(www, /not for this server/);
  const foreign = await clientCredentials(other.info, ca, { resource: rs.url, scope: 'mcp:tools' });
  assert.equal(decodeJwt(foreign).header.kid, decodeJwt(good).header.kid, 'the two issuers share the key');
  www = await refused(foreign, 401, 'invalid_token', 'another issuer');
  assert.match(www, /not issued by/);
  const expired = await cc({ clientId: as.info.clients.serviceBackdated });
  assert.ok(decodeJwt(expired).payload.exp < Date.now() / 1000 - 60, 'the backdated token has expired');
  www = await refused(expired, 401, 'invalid_token', 'expired');
  assert.match(www, /expired/);
  await refused(await cc({ scope: 'mcp:admin' }), 403, 'insufficient_scope', 'without the scope');

  // A tool with its own scope (scopes: ['mcp:admin']) called with a mcp:tools token: 403 naming
  // both scopes, before the handler runs (no session needed to learn that).
  const call = { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'admin', arguments: { text: 'no' } } };
  const r = await within(postMcp(rs.url, good, call), LIMIT);
  assert.equal(r.status, 403, `a tool's own scope: ${r.text}`);
  assert.ok(r.wwwAuthenticate.includes('error="insufficient_scope"'), r.wwwAuthenticate);
  assert.ok(r.wwwAuthenticate.includes('scope="mcp:tools mcp:admin"'), r.wwwAuthenticate);
  assert.ok(r.wwwAuthenticate.includes(metadata), r.wwwAuthenticate);
  assert.ok(!rs.calls.includes('no'));
});

test('a Node client with client credentials calls the Node server and steps up for a tool with its own scope', async (t) => {
  if (!need(t)) return;
  const service = as.info.clients.service;
  const mine = async () => (await providerEvents(as.info, pki.ca)).filter((e) => e.client_id === service && e.aud === rs.url);
  const before = (await mine()).length;
  const seen = rs.callers.length;
  const client = await within(Client.http(rs.url, {
    caFile: pki.ca,
    auth: { grant: 'client_credentials', clientId: service, clientSecret: as.info.clients.service_secret },
  }), LIMIT, 'the client credentials connection');
  try {
    const r = await within(client.callTool('echo', { text: 'as a service' }), LIMIT);
    assert.equal(r.content[0].text, 'node: as a service');
    // 403 insufficient_scope naming mcp:admin: a new token for both scopes, and the call again.
    const admin = await within(client.callTool('admin', { text: 'stepped up' }), LIMIT);
    assert.equal(admin.content[0].text, 'node admin: stepped up');
  } finally {
    await client.close();
  }
  const issued = (await mine()).slice(before).map((e) => [e.grant_type, e.scope]);
  assert.deepEqual(issued, [['client_credentials', 'mcp:tools'], ['client_credentials', 'mcp:tools mcp:admin']]);
  // The handlers saw the token's subject (the client itself, acting on its own behalf) and scopes.
  assert.deepEqual(rs.callers.slice(seen), [
    ['echo', service, service, ['mcp:tools']],
    ['admin', service, service, ['mcp:tools', 'mcp:admin']],
  ]);
});

test('the Node client refreshes its token once it expired (2 s access tokens)', async (t) => {
  if (!need(t)) return;
  const clientId = as.info.clients.publicShort;
  const mine = async () => (await providerEvents(as.info, pki.ca)).filter((e) => e.client_id === clientId && e.aud === rs.url);
  const client = await within(Client.http(rs.url, {
    caFile: pki.ca,
    openGetStream: false, // no request in the background: the calls alone decide when to refresh
    auth: { clientId, redirectUri: REDIRECT_URI, onAuthorize: (url, redirectUri) => authorizeOverHttp(url, redirectUri, { ca: pki.ca }) },
  }), LIMIT, 'the authorization code connection');
  try {
    assert.equal((await within(client.callTool('echo', { text: 'first' }), LIMIT)).content[0].text, 'node: first');
    let before = await mine();
    assert.equal(before[0]?.grant_type, 'authorization_code', JSON.stringify(before));
    // Past the expiry of the token the client holds: the next call needs a refresh.
    await sleep(Math.max(0, Math.max(...before.map((e) => e.exp)) * 1000 - Date.now()) + 1100);
    before = await mine();
    const held = before.at(-1);
    assert.ok(held.exp <= Date.now() / 1000, 'the token held has expired');
    assert.equal((await within(client.callTool('echo', { text: 'second' }), LIMIT)).content[0].text, 'node: second');
    const after = (await mine()).slice(before.length);
    assert.ok(after.length >= 1, 'a new token for the second call');
    assert.ok(after.every((e) => e.grant_type === 'refresh_token'), `refreshed, not authorized again: ${JSON.stringify(after)}`);
    assert.ok(after[0].iat >= held.exp, 'the refresh came after the token expired');
    assert.deepEqual(rs.calls.slice(-2), ['first', 'second']);
  } finally {
    await client.close();
  }
});

test('a Node client gets a token by authorization code + PKCE and calls the Python server', async (t) => {
  if (!need(t)) return;
  const python = path.join(REPO, '.venv', 'bin', 'python');
  if (!fs.existsSync(python)) {
    if (REQUIRE) assert.fail(`${python} not found (make python)`);
    t.skip(`${python} not found (make python)`);
    return;
  }
  const port = await freePort();
  const server = await startChild([python, path.join(REPO, 'tests/oauth/server.py'), '--port', String(port),
    '--issuer', as.info.issuer, '--ca-file', pki.ca, '--required-scope', 'mcp:tools'], { what: 'the Python server' });
  try {
    const steps = [];
    let redirected;
    const client = await within(Client.http(server.info.url, {
      caFile: pki.ca,
      auth: {
        clientId: as.info.clients.public,
        redirectUri: REDIRECT_URI,
        onAuthorize: async (url, redirectUri) => {
          redirected = await authorizeOverHttp(url, redirectUri, { ca: pki.ca, steps });
          return redirected;
        },
      },
    }), LIMIT, 'the authorization code connection');
    try {
      const r = await within(client.callTool('echo', { text: 'from node' }), LIMIT);
      assert.equal(r.content[0].text, 'python server: from node');
    } finally {
      await client.close();
    }
    // The provider's own pages were used: a login form, then a consent form.
    assert.deepEqual(steps.filter((s) => s.startsWith('POST')).map((s) => s.split(' ')[2]), ['303', '303'], steps.join(', '));
    const back = new URL(redirected);
    assert.equal(back.searchParams.get('iss'), as.info.issuer, 'RFC 9207 iss in the authorization response');
    assert.ok(back.searchParams.get('code'));
    const issued = (await providerEvents(as.info, pki.ca)).filter((e) => e.aud === server.info.url);
    assert.deepEqual(issued.map((e) => [e.grant_type, e.client_id, e.scope]), [['authorization_code', as.info.clients.public, 'mcp:tools']]);
    // The server's line about the call may be read after the answer.
    await until(() => server.lines().some((l) => JSON.parse(l).text === 'from node')).catch(() => {});
    assert.ok(server.lines().some((l) => JSON.parse(l).text === 'from node'), server.output());
    // Without a way to authorize, the server's refusal reaches the app.
    await assert.rejects(within(Client.http(server.info.url, { caFile: pki.ca }), LIMIT), Unauthorized);
  } finally {
    await server.stop();
  }
});

test('with DPoP at the provider, tokens are bound to the client key and the Node server checks the proofs', async (t) => {
  if (!need(t)) return;
  const dpopAs = await startProvider(pki, { args: ['--dpop'] });
  const server = await startNodeServer(dpopAs).catch(async (e) => {
    await dpopAs.stop();
    throw e;
  });
  try {
    // Our client binds its tokens where the authorization server offers DPoP.
    const client = await within(Client.http(server.url, {
      caFile: pki.ca,
      auth: { grant: 'client_credentials', clientId: dpopAs.info.clients.service, clientSecret: dpopAs.info.clients.service_secret },
    }), LIMIT, 'the DPoP connection');
    try {
      assert.equal((await within(client.callTool('echo', { text: 'bound' }), LIMIT)).content[0].text, 'node: bound');
    } finally {
      await client.close();
    }
    const issued = (await providerEvents(dpopAs.info, pki.ca)).filter((e) => e.aud === server.url);
    assert.equal(issued.length, 1, JSON.stringify(issued));
    assert.ok(issued[0].jkt, 'the token is bound to a DPoP key (cnf.jkt)');

    // A bound token of ours: good with a proof of its key, refused as a Bearer token or without the proof.
    const key = dpopKey();
    const answer = await clientCredentialsResponse(dpopAs.info, pki.ca, { resource: server.url, scope: 'mcp:tools', dpop: key });
    assert.equal(answer.token_type, 'DPoP');
    const token = answer.access_token;
    assert.ok(decodeJwt(token).payload.cnf?.jkt);
    const proof = () => dpopProof(key, 'POST', server.url, token);
    assert.equal((await postInitialize(server.url, token, { scheme: 'DPoP', dpop: proof() })).status, 200, 'with its proof');
    const asBearer = await postInitialize(server.url, token);
    assert.equal(asBearer.status, 401, 'a bound token sent as a Bearer token');
    assert.match(asBearer.wwwAuthenticate, /error="invalid_token"/);
    const noProof = await postInitialize(server.url, token, { scheme: 'DPoP' });
    assert.equal(noProof.status, 401, 'without a proof');
    const otherKey = await postInitialize(server.url, token, { scheme: 'DPoP', dpop: dpopProof(dpopKey(), 'POST', server.url, token) });
    assert.equal(otherKey.status, 401, 'a proof of another key');
    assert.equal(server.calls.length, 1);
  } finally {
    await server.stop();
    await dpopAs.stop();
  }
});

test('a key rotation at the provider is picked up after jwksRefetchInterval', async (t) => {
  if (!need(t)) return;
  // A provider of its own: the rotation must not disturb the other tests.
  const provider = await startProvider(pki);
  const every = 1000; // ms
  const server = await startNodeServer(provider, { jwksRefetchInterval: every }).catch(async (e) => {
    await provider.stop();
    throw e;
  });
  try {
    const cc = () => clientCredentials(provider.info, pki.ca, { resource: server.url, scope: 'mcp:tools' });
    const old = await cc();
    const asked = performance.now(); // the server fetches the JWKS after this
    assert.equal((await within(postInitialize(server.url, old), LIMIT)).status, 200, 'the first key');
    const fetched = performance.now(); // and before this
    const rotated = await rotateKey(provider.info, pki.ca);
    assert.equal(rotated.previous, decodeJwt(old).header.kid);
    const fresh = await cc();
    assert.equal(decodeJwt(fresh).header.kid, rotated.kid);
    // Within the interval of its last fetch the server keeps its keys (checked only when this
    // request goes out in time, on a slow machine).
    const sent = performance.now();
    const early = await within(postInitialize(server.url, fresh), LIMIT);
    if (sent < asked + every) {
      assert.equal(early.status, 401, early.text);
      assert.match(early.wwwAuthenticate, /unknown key/);
    }
    // Past it, the unknown kid makes it fetch the JWKS again: the new key's token is accepted,
    // the removed key's is not any more.
    await sleep(Math.max(0, fetched + every + 100 - performance.now()));
    assert.equal((await within(postInitialize(server.url, fresh), LIMIT)).status, 200, 'the new key, after the interval');
    const stale = await within(postInitialize(server.url, old), LIMIT);
    assert.equal(stale.status, 401, stale.text);
    assert.match(stale.wwwAuthenticate, /unknown key/);
  } catch (e) {
    e.message += `\n${provider.output()}`;
    throw e;
  } finally {
    await server.stop();
    await provider.stop();
  }
});

// ---- interop with the official Python SDK ------------------------------------------------------

const SDK_PYTHON = path.join(PEERS, 'venv', 'bin', 'python');

/** Whether the peers venv (the official Python SDK) is there; skips (fails under REQUIRE) if not. */
function needSdk(t) {
  if (fs.existsSync(SDK_PYTHON)) return true;
  const why = `${SDK_PYTHON} not found (run make peers)`;
  if (REQUIRE) assert.fail(`HYPERMCP_REQUIRE_PEERS=1 but the official Python SDK is unavailable: ${why}`);
  t.skip(why);
  return false;
}

/**
 * Runs the official SDK's OAuth client (tests/oauth/py_sdk_client.py) against `url`, calling
 * each `TOOL=TEXT` of `calls` with the pre-registered `clientId` (the SDK trusting the test CA
 * through SSL_CERT_FILE): {code, events, output}. Asynchronous: the server may be this process.
 */
function sdkClient(url, calls, clientId) {
  const argv = [path.join(REPO, 'tests/oauth/py_sdk_client.py'), '--url', url, '--redirect-uri', REDIRECT_URI,
    '--timeout', '30', '--client-id', clientId, ...calls.flatMap((c) => ['--call', c])];
  const env = { ...process.env, SSL_CERT_FILE: pki.ca };
  delete env.SSL_CERT_DIR;
  const child = spawn(SDK_PYTHON, argv, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => { stdout += d; });
  child.stderr.on('data', (d) => { stderr += d; });
  const timer = setTimeout(() => child.kill('SIGKILL'), 45_000);
  return new Promise((resolve) => child.on('close', (code, signal) => {
    clearTimeout(timer);
    const events = stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l));
    resolve({ code: code ?? signal, events, output: `the official SDK client (exit ${code ?? signal}):\n${stdout}\n${stderr}` });
  }));
}

test('the official Python SDK client authorizes at the Node server and steps up for a tool with its own scope', async (t) => {
  if (!need(t) || !needSdk(t)) return;
  const clientId = as.info.clients.public;
  const seen = rs.callers.length;
  const before = (await providerEvents(as.info, pki.ca)).length;
  const sdk = await sdkClient(rs.url, ['echo=from the sdk', 'admin=sdk step-up'], clientId);
  assert.equal(sdk.code, 0, sdk.output);
  const called = sdk.events.filter((e) => e.event === 'called').map((e) => [e.tool, e.text]);
  assert.deepEqual(called, [['echo', 'node: from the sdk'], ['admin', 'node admin: sdk step-up']], sdk.output);
  // The challenge's scope (with offline_access, so prompt=consent), then on 403 the union with mcp:admin.
  const asked = sdk.events.filter((e) => e.event === 'authorize');
  assert.deepEqual(asked.map((e) => [e.scope, e.prompt, e.resource]), [
    ['mcp:tools offline_access', 'consent', rs.url],
    ['mcp:tools offline_access mcp:admin', 'consent', rs.url],
  ], sdk.output);
  const issued = (await providerEvents(as.info, pki.ca)).slice(before).filter((e) => e.aud === rs.url);
  assert.deepEqual(issued.map((e) => [e.grant_type, e.client_id, e.scope]), [
    ['authorization_code', clientId, 'mcp:tools'],
    ['authorization_code', clientId, 'mcp:tools mcp:admin'],
  ]);
  // The handlers saw the user who logged in at the provider.
  assert.deepEqual(rs.callers.slice(seen), [
    ['echo', 'alice', clientId, ['mcp:tools']],
    ['admin', 'alice', clientId, ['mcp:tools', 'mcp:admin']],
  ]);
});

test('a Node client authorizes at the official Python SDK server', async (t) => {
  if (!need(t) || !needSdk(t)) return;
  const port = await freePort();
  const server = await startChild([SDK_PYTHON, path.join(REPO, 'tests/oauth/py_sdk_server.py'), '--port', String(port),
    '--issuer', as.info.issuer, '--ca-file', pki.ca, '--required-scope', 'mcp:tools'],
  { what: "the official SDK's server (tests/oauth/py_sdk_server.py)" });
  try {
    const url = server.info.url;
    const bare = await postInitialize(url, undefined);
    assert.equal(bare.status, 401, bare.text);
    assert.match(bare.wwwAuthenticate, /resource_metadata="/);
    const steps = [];
    const clientId = as.info.clients.public;
    const client = await within(Client.http(url, {
      caFile: pki.ca,
      auth: { clientId, redirectUri: REDIRECT_URI, onAuthorize: (u, r) => authorizeOverHttp(u, r, { ca: pki.ca, steps }) },
    }), LIMIT, 'the connection to the official SDK server');
    try {
      const r = await within(client.callTool('echo', { text: 'from node' }), LIMIT);
      assert.equal(r.content[0].text, 'sdk server: from node');
    } finally {
      await client.close();
    }
    assert.deepEqual(steps.filter((s) => s.startsWith('POST')).map((s) => s.split(' ')[2]), ['303', '303'], steps.join(', '));
    const issued = (await providerEvents(as.info, pki.ca)).filter((e) => e.aud === url);
    assert.deepEqual(issued.map((e) => [e.grant_type, e.client_id, e.scope]), [['authorization_code', clientId, 'mcp:tools']]);
    await until(() => server.lines().some((l) => JSON.parse(l).called)).catch(() => {});
    const calls = server.lines().map((l) => JSON.parse(l)).filter((l) => l.called);
    assert.deepEqual(calls, [{ called: 'echo', text: 'from node', subject: 'alice', client_id: clientId, scopes: ['mcp:tools'] }],
      server.output());
  } finally {
    await server.stop();
  }
});

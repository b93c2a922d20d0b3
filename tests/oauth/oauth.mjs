// Helpers of the tests against a real authorization server (tests/oauth/provider.mjs, on
// oidc-provider), for the Node suite (tests/node/oauth_provider.test.mjs) and the Node client
// script (tests/oauth/client.mjs): a test CA and a certificate for 127.0.0.1 (openssl), the
// provider as a child process, HTTPS requests trusting that CA, the login and consent pages
// driven over HTTP (no browser), tokens straight from the token endpoint, and a raw MCP POST
// to look at a refusal's status and WWW-Authenticate. Only node: imports (no hypermcp).
//
// The Python counterpart is tests/python/_oauth.py; the Rust one is in
// core/tests/suite/oauth_provider.rs.

import { execFileSync, spawn } from 'node:child_process';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as https from 'node:https';
import * as net from 'node:net';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
export const REPO = path.resolve(HERE, '..', '..');
export const PEERS = process.env.HYPERMCP_PEERS || process.env.PEERS || path.join(REPO, '.peers');
export const PROVIDER = path.join(HERE, 'provider.mjs');
export const REDIRECT_URI = 'http://127.0.0.1:8765/callback';

/** Why the provider cannot run here (oidc-provider not installed), or null. */
export function providerMissing() {
  const pkg = path.join(PEERS, 'oauth', 'node_modules', 'oidc-provider', 'package.json');
  return fs.existsSync(pkg) ? null : `${pkg} not found (run make peers)`;
}

/** A CA and a certificate it signs for localhost and 127.0.0.1, in `dir`: {ca, cert, key}. */
export function makePki(dir) {
  const f = (n) => path.join(dir, n);
  fs.writeFileSync(f('ext'), 'subjectAltName=DNS:localhost,IP:127.0.0.1\n');
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  const openssl = (...args) => execFileSync('openssl', args, { stdio: 'pipe' });
  openssl('req', '-x509', ...ec, '-keyout', f('ca.key'), '-out', f('ca.pem'), '-days', '2', '-subj', '/CN=hypermcp test CA');
  openssl('req', ...ec, '-keyout', f('key.pem'), '-out', f('c.csr'), '-subj', '/CN=localhost');
  openssl('x509', '-req', '-in', f('c.csr'), '-CA', f('ca.pem'), '-CAkey', f('ca.key'), '-CAcreateserial',
    '-out', f('cert.pem'), '-extfile', f('ext'));
  return { ca: f('ca.pem'), cert: f('cert.pem'), key: f('key.pem') };
}

/** A TCP port of 127.0.0.1 free at the time of the call. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/**
 * A child process that prints one JSON line when ready: resolves to {info, child, output(),
 * stop()}; rejects (with its stderr) if it exits or stays silent for `ms`. (The default is
 * generous: oidc-provider's start took over 20 s once while `node --test` started every other
 * test file's processes on two cores; only a child that never starts waits that long.)
 */
export function startChild(argv, { env, ms = 60_000, what = argv.join(' ') } = {}) {
  const child = spawn(argv[0], argv.slice(1), { env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (d) => { stderr += d; });
  const output = () => `stdout:\n${stdout}\nstderr:\n${stderr}`;
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
    await exited;
    clearTimeout(timer);
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${what} was not ready within ${ms} ms\n${output()}`));
    }, ms);
    let ready = false;
    child.stdout.on('data', (d) => {
      stdout += d;
      const nl = stdout.indexOf('\n');
      if (!ready && nl >= 0) {
        ready = true;
        clearTimeout(timer);
        try {
          resolve({ info: JSON.parse(stdout.slice(0, nl)), child, output, stop, lines: () => stdout.split('\n').slice(1).filter(Boolean) });
        } catch (e) {
          child.kill('SIGKILL');
          reject(new Error(`${what} printed no JSON line: ${e}\n${output()}`));
        }
      }
    });
    exited.then(({ code, signal }) => {
      clearTimeout(timer);
      if (!ready) reject(new Error(`${what} exited (${code ?? signal}) before it was ready\n${output()}`));
    });
  });
}

/**
 * oidc-provider over HTTPS on 127.0.0.1 (tests/oauth/provider.mjs), with `pki`'s certificate;
 * `signingKey`: a file sharing the signing key with another instance.
 */
export function startProvider(pki, { signingKey, args = [] } = {}) {
  const argv = [process.execPath, PROVIDER, '--cert', pki.cert, '--key', pki.key, '--peers', PEERS, '--exit-with-stdin',
    '--redirect-uri', REDIRECT_URI, ...(signingKey ? ['--signing-key', signingKey] : []), ...args];
  return startChild(argv, { what: 'the authorization server (tests/oauth/provider.mjs)' });
}

/** One HTTP(S) exchange, no redirect followed: {status, headers, text}. */
export function request(url, { method = 'GET', headers = {}, body, ca } = {}) {
  const u = new URL(url);
  const lib = u.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = lib.request(u, { method, headers, ca: ca ? fs.readFileSync(ca) : undefined, timeout: 10_000 }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => { text += d; });
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, text }));
    });
    req.on('timeout', () => req.destroy(new Error(`${method} ${url}: no answer within 10 s`)));
    req.on('error', reject);
    req.end(body);
  });
}

const unescape = (s) => s.replace(/&amp;/g, '&').replace(/&lt;/g, '<').replace(/&gt;/g, '>')
  .replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&#x2F;/gi, '/');

/**
 * What a user does in a browser, over plain HTTP requests: opens the authorization URL,
 * follows the redirects (carrying the provider's cookies), fills the login form (any user name
 * and password) and the consent form, until the provider redirects to `redirectUri`; returns
 * that URL (with `code`, `state` and `iss`). `steps` (if given) receives "METHOD path status".
 */
export async function authorizeOverHttp(url, redirectUri, { ca, login = 'alice', password = 'wonderland', steps = [] } = {}) {
  const cookies = new Map();
  let method = 'GET';
  let body;
  for (let i = 0; i < 20; i++) {
    const headers = { cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; ') };
    if (body !== undefined) headers['content-type'] = 'application/x-www-form-urlencoded';
    const r = await request(url, { method, headers, body, ca });
    steps.push(`${method} ${new URL(url).pathname} ${r.status}`);
    for (const c of r.headers['set-cookie'] ?? []) {
      const [pair] = c.split(';');
      const eq = pair.indexOf('=');
      cookies.set(pair.slice(0, eq).trim(), pair.slice(eq + 1));
    }
    if (r.status >= 300 && r.status < 400) {
      const next = new URL(r.headers.location, url).href;
      if (next.startsWith(redirectUri)) return next;
      [method, body, url] = ['GET', undefined, next];
      continue;
    }
    const form = /<form[^>]*action="([^"]*)"[^>]*method="post"/i.exec(r.text);
    if (r.status !== 200 || !form) {
      throw new Error(`${url} answered ${r.status} without a form to fill (steps: ${steps.join(', ')}):\n${r.text.slice(0, 1500)}`);
    }
    const fields = new URLSearchParams();
    for (const input of r.text.match(/<input[^>]*>/gi) ?? []) {
      const name = /name="([^"]*)"/.exec(input)?.[1];
      if (!name) continue;
      let value = unescape(/value="([^"]*)"/.exec(input)?.[1] ?? '');
      if (name === 'login') value = login;
      if (name === 'password') value = password;
      fields.set(name, value);
    }
    [method, body, url] = ['POST', fields.toString(), new URL(unescape(form[1]), url).href];
  }
  throw new Error(`the authorization did not come back to ${redirectUri} (steps: ${steps.join(', ')})`);
}

/**
 * The token endpoint's answer to a client credentials request (client_secret_basic); `proof`:
 * a DPoP proof to send (a key pair from {@link dpopKey}).
 */
export async function clientCredentialsResponse(info, ca, { clientId = info.clients.service, resource, scope, dpop }) {
  const basic = Buffer.from(`${clientId}:${info.clients.service_secret}`).toString('base64');
  const form = new URLSearchParams({ grant_type: 'client_credentials', resource, ...(scope ? { scope } : {}) });
  const r = await request(info.token_endpoint, {
    method: 'POST',
    ca,
    headers: {
      authorization: `Basic ${basic}`,
      'content-type': 'application/x-www-form-urlencoded',
      ...(dpop ? { dpop: dpopProof(dpop, 'POST', info.token_endpoint) } : {}),
    },
    body: form.toString(),
  });
  if (r.status !== 200) throw new Error(`the token endpoint answered ${r.status}: ${r.text}`);
  return JSON.parse(r.text);
}

/** An access token from the token endpoint by client credentials (client_secret_basic). */
export async function clientCredentials(info, ca, options) {
  return (await clientCredentialsResponse(info, ca, options)).access_token;
}

/**
 * A P-256 key pair for DPoP proofs. Made encoded and read back (as provider.mjs's signing keys
 * are): Node 20 can deadlock exporting a JWK of a KeyObject straight from generateKeyPairSync.
 */
export function dpopKey() {
  const pair = crypto.generateKeyPairSync('ec', {
    namedCurve: 'P-256',
    privateKeyEncoding: { format: 'der', type: 'pkcs8' },
    publicKeyEncoding: { format: 'der', type: 'spki' },
  });
  const privateKey = crypto.createPrivateKey({ key: pair.privateKey, format: 'der', type: 'pkcs8' });
  const publicKey = crypto.createPublicKey({ key: pair.publicKey, format: 'der', type: 'spki' });
  const { kty, crv, x, y } = publicKey.export({ format: 'jwk' });
  return { privateKey, jwk: { kty, crv, x, y } };
}

/** A DPoP proof (RFC 9449 §4) for `htm` `htu` by `key`; with `accessToken`, its `ath`. */
export function dpopProof(key, htm, htu, accessToken) {
  const enc = (o) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const payload = { htm, htu, iat: Math.floor(Date.now() / 1000), jti: crypto.randomUUID() };
  if (accessToken) payload.ath = crypto.createHash('sha256').update(accessToken).digest('base64url');
  const input = `${enc({ typ: 'dpop+jwt', alg: 'ES256', jwk: key.jwk })}.${enc(payload)}`;
  const signature = crypto.sign('sha256', Buffer.from(input), { key: key.privateKey, dsaEncoding: 'ieee-p1363' });
  return `${input}.${signature.toString('base64url')}`;
}

/** A JWT's header and payload. */
export function decodeJwt(token) {
  const [h, p] = token.split('.').slice(0, 2).map((s) => JSON.parse(Buffer.from(s, 'base64url').toString()));
  return { header: h, payload: p };
}

/** The `initialize` request of the raw POSTs. */
export const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

/**
 * POSTs the JSON-RPC `message` to the MCP endpoint `url` with `token` (`scheme` Bearer, or
 * DPoP with the proof `dpop`) and extra `headers` (e.g. `mcp-session-id`): {status,
 * wwwAuthenticate, headers, text}.
 */
export async function postMcp(url, token, message, { scheme = 'Bearer', dpop, headers = {} } = {}) {
  const r = await request(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(token ? { authorization: `${scheme} ${token}` } : {}),
      ...(dpop ? { dpop } : {}),
      ...headers,
    },
    body: JSON.stringify(message),
  });
  const www = r.headers['www-authenticate'] ?? '';
  return { status: r.status, wwwAuthenticate: Array.isArray(www) ? www.join(', ') : www, headers: r.headers, text: r.text };
}

/** {@link postMcp} of an `initialize`. */
export function postInitialize(url, token, options) {
  return postMcp(url, token, INITIALIZE, options);
}

/** What the provider's token endpoint issued: [{grant_type, client_id, jti, kid, aud, scope, iat, exp}]. */
export async function providerEvents(info, ca) {
  const r = await request(`${info.control}/events`, { ca });
  return JSON.parse(r.text);
}

/** Rotates the provider's signing key: {kid, previous}. */
export async function rotateKey(info, ca) {
  const r = await request(`${info.control}/rotate`, { method: 'POST', ca });
  return JSON.parse(r.text);
}

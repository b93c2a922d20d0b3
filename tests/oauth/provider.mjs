// A real OAuth 2.1 / OpenID Connect authorization server for the OAuth tests: the certified
// `oidc-provider` (installed by tests/interop/setup_peers.sh into <peers>/oauth), served over
// HTTPS on 127.0.0.1 with the certificate the test made.
//
//   node tests/oauth/provider.mjs --cert CERT.pem --key KEY.pem [--port 0] [--peers DIR]
//        [--signing-key FILE] [--redirect-uri URI]... [--dpop] [--exit-with-stdin]
//
// When it listens it prints one JSON line on stdout: {issuer, port, jwks_uri, token_endpoint,
// authorization_endpoint, registration_endpoint, control, kid, scopes, clients, redirect_uris}.
// Everything else (oidc-provider's warnings, errors) goes to stderr. --exit-with-stdin: it
// also stops when its stdin closes (its parent died).
//
// What it is configured for (what the tests need of a real authorization server):
// - resource indicators (RFC 8707): any loopback http(s) URL is a resource server; its access
//   tokens are JWTs (ES256, `typ: at+jwt`) with `aud` = the resource and its scopes
//   `mcp:tools mcp:admin` (SCOPES);
// - the authorization code grant with PKCE for public clients (pre-registered ones below, or
//   Dynamic Client Registration), refresh tokens with `offline_access` (oidc-provider's own
//   rule, OpenID Connect Core §11: only for an authorization request with `offline_access` and
//   prompt=consent, granted on the consent page), the RFC 9207 `iss` in the authorization
//   response; login and consent are oidc-provider's own development pages
//   (devInteractions: a login form taking any user name, a consent form), which a test drives
//   over HTTP without a browser;
// - client credentials for confidential clients (`client_secret_basic`);
// - the AS metadata at both /.well-known/openid-configuration and the RFC 8414
//   /.well-known/oauth-authorization-server;
// - DPoP (RFC 9449, features.dPoP) only with --dpop: then clients that send a proof get
//   tokens bound to their key (`cnf.jkt`).
//
// The pre-registered clients (CLIENTS):
//   mcp-public           public, authorization code + PKCE + refresh (access tokens: 300 s)
//   mcp-public-short     the same with 2 s access tokens (to see a refresh after expiry)
//   mcp-service          confidential (secret SERVICE_SECRET), client credentials
//   mcp-service-backdated  the same, but its tokens are issued an hour in the past (iat and exp
//                        moved back by the jwt customizer hook): an expired token, signed by
//                        the provider, without waiting for one to expire
//
// Control endpoints for the tests, on the same server (loopback only):
//   POST /__control/rotate  a new signing key (new kid); the old one leaves the JWKS at once
//   GET  /__control/events  what the token endpoint did: [{grant_type, client_id, jti, kid,
//                           aud, scope, jkt, iat, exp}] (one entry per access token issued;
//                           jkt: the DPoP key a token is bound to)
//
// --signing-key FILE: the private signing JWK: read when FILE exists, else made and written
// there (so a second instance, another issuer, can sign with the same key).

import { createRequire } from 'node:module';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as https from 'node:https';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const SCOPES = 'mcp:tools mcp:admin';
const SERVICE_SECRET = 'mcp-service-secret';
const CLIENTS = {
  public: 'mcp-public',
  publicShort: 'mcp-public-short',
  service: 'mcp-service',
  serviceBackdated: 'mcp-service-backdated',
};
const ACCESS_TTL = { [CLIENTS.publicShort]: 2 };
const DEFAULT_ACCESS_TTL = 300;
const BACKDATE_SECS = 3600;

function parseArgs(argv) {
  const opts = { port: 0, redirectUris: [], exitWithStdin: false, dpop: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) fail(`${a} needs a value`);
      return argv[++i];
    };
    switch (a) {
      case '--cert': opts.cert = value(); break;
      case '--key': opts.key = value(); break;
      case '--port': opts.port = Number(value()); break;
      case '--peers': opts.peers = value(); break;
      case '--signing-key': opts.signingKey = value(); break;
      case '--redirect-uri': opts.redirectUris.push(value()); break;
      case '--exit-with-stdin': opts.exitWithStdin = true; break;
      case '--dpop': opts.dpop = true; break;
      default: fail(`unknown argument ${a}`);
    }
  }
  if (!opts.cert || !opts.key) fail('--cert and --key are required');
  if (!opts.redirectUris.length) opts.redirectUris.push('http://127.0.0.1:8765/callback');
  return opts;
}

function fail(message) {
  process.stderr.write(`provider.mjs: ${message}\n`);
  process.exit(2);
}

function peersDir(opts) {
  return opts.peers ?? process.env.HYPERMCP_PEERS ?? path.join(HERE, '..', '..', '.peers');
}

async function loadProvider(opts) {
  const pkg = path.join(peersDir(opts), 'oauth', 'package.json');
  if (!fs.existsSync(pkg)) fail(`${pkg} not found: run tests/interop/setup_peers.sh (part oauth)`);
  return import(createRequire(pkg).resolve('oidc-provider'));
}

/**
 * A new P-256 signing key as a private JWK with a fresh kid. The pair is made encoded (DER) and
 * read back into a key of its own before the JWK export: a KeyObject straight from
 * generateKeyPairSync shares its lock with the key generation job, and Node 20 deadlocks when
 * a garbage collection during the JWK export destroys that job (the job's destructor takes the
 * lock the export holds). It hung one start in ~300 of this provider, for good, before it
 * printed its ready line.
 */
function newSigningKey() {
  const { privateKey: der } = crypto.generateKeyPairSync('ec', {
    namedCurve: 'P-256',
    privateKeyEncoding: { format: 'der', type: 'pkcs8' },
    publicKeyEncoding: { format: 'der', type: 'spki' },
  });
  const jwk = crypto.createPrivateKey({ key: der, format: 'der', type: 'pkcs8' }).export({ format: 'jwk' });
  return { ...jwk, kid: `k-${crypto.randomBytes(6).toString('hex')}`, alg: 'ES256', use: 'sig' };
}

function signingKey(opts) {
  if (!opts.signingKey) return newSigningKey();
  if (fs.existsSync(opts.signingKey)) return JSON.parse(fs.readFileSync(opts.signingKey, 'utf8'));
  const key = newSigningKey();
  fs.writeFileSync(opts.signingKey, JSON.stringify(key), { mode: 0o600 });
  return key;
}

function isLoopbackResource(resource) {
  let u;
  try {
    u = new URL(resource);
  } catch {
    return false;
  }
  return (u.protocol === 'https:' || u.protocol === 'http:')
    && ['127.0.0.1', 'localhost', '[::1]'].includes(u.hostname) && !u.hash;
}

const opts = parseArgs(process.argv.slice(2));
const { default: Provider, errors } = await loadProvider(opts);
const events = [];
let current = signingKey(opts);
const cookieKeys = [crypto.randomBytes(32).toString('hex')];

function configuration(key) {
  const publicClient = (clientId) => ({
    client_id: clientId,
    token_endpoint_auth_method: 'none',
    application_type: 'native',
    redirect_uris: opts.redirectUris,
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
  });
  const serviceClient = (clientId) => ({
    client_id: clientId,
    client_secret: SERVICE_SECRET,
    token_endpoint_auth_method: 'client_secret_basic',
    grant_types: ['client_credentials'],
    response_types: [],
    redirect_uris: [],
  });
  const ttl = (_ctx, _token, client) => ACCESS_TTL[client?.clientId] ?? DEFAULT_ACCESS_TTL;
  return {
    clients: [
      publicClient(CLIENTS.public),
      publicClient(CLIENTS.publicShort),
      serviceClient(CLIENTS.service),
      serviceClient(CLIENTS.serviceBackdated),
    ],
    jwks: { keys: [key] },
    // The only key is a P-256 one: ID tokens (and everything else) are signed with ES256.
    clientDefaults: { id_token_signed_response_alg: 'ES256' },
    cookies: { keys: cookieKeys },
    // The resource servers' scopes are listed too (the AS metadata's scopes_supported): the
    // official Python SDK's Dynamic Client Registration sends the `scope` it will ask for, and
    // oidc-provider refuses a registration naming scopes it does not list. Access tokens still
    // carry only the resource's scopes (resourceIndicators below).
    scopes: ['openid', 'offline_access', ...SCOPES.split(' ')],
    ttl: {
      AccessToken: ttl,
      ClientCredentials: ttl,
      AuthorizationCode: 60,
      Grant: 3600,
      Interaction: 600,
      Session: 3600,
      RefreshToken: 3600,
    },
    features: {
      devInteractions: { enabled: true },
      clientCredentials: { enabled: true },
      registration: { enabled: true },
      dPoP: { enabled: opts.dpop },
      resourceIndicators: {
        enabled: true,
        defaultResource: (_ctx, _client, oneOf) => oneOf,
        useGrantedResource: () => false,
        getResourceServerInfo(_ctx, resource) {
          if (!isLoopbackResource(resource)) throw new errors.InvalidTarget(`not a loopback resource: ${resource}`);
          return {
            scope: SCOPES,
            audience: resource,
            accessTokenFormat: 'jwt',
            jwt: { sign: { alg: 'ES256' } },
          };
        },
      },
    },
    formats: {
      customizers: {
        jwt(ctx, token, jwt) {
          if (token.clientId === CLIENTS.serviceBackdated) {
            jwt.payload.iat -= BACKDATE_SECS;
            jwt.payload.exp -= BACKDATE_SECS;
          }
          const p = jwt.payload;
          events.push({
            grant_type: ctx?.oidc?.params?.grant_type,
            client_id: p.client_id,
            jti: p.jti,
            kid: key.kid,
            aud: p.aud,
            scope: p.scope,
            jkt: p.cnf?.jkt,
            iat: p.iat,
            exp: p.exp,
          });
        },
      },
    },
    // The refresh token is kept on refresh: the tests count the refresh grants, not rotations.
    // Refresh tokens are issued by oidc-provider's default rule (issueRefreshToken: the client
    // may use the refresh_token grant and `offline_access` was granted, which takes
    // prompt=consent).
    rotateRefreshToken: false,
  };
}

function makeProvider(issuer, key) {
  const provider = new Provider(issuer, configuration(key));
  for (const event of ['server_error', 'grant.error', 'authorization.error', 'registration_create.error',
    'introspection.error', 'revocation.error', 'jwks.error', 'discovery.error']) {
    provider.on(event, (_ctx, err) => {
      process.stderr.write(`provider.mjs ${event}: ${err?.stack ?? err} ${JSON.stringify(err?.error_description ?? '')}\n`);
    });
  }
  return { provider, callback: provider.callback() };
}

let active;
const server = https.createServer({ cert: fs.readFileSync(opts.cert), key: fs.readFileSync(opts.key) });

function json(res, status, body) {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  res.end(JSON.stringify(body));
}

server.on('request', (req, res) => {
  const url = new URL(req.url, 'https://127.0.0.1');
  if (url.pathname === '/__control/rotate' && req.method === 'POST') {
    const previous = current.kid;
    current = newSigningKey();
    active = makeProvider(active.provider.issuer, current);
    return json(res, 200, { kid: current.kid, previous });
  }
  if (url.pathname === '/__control/events' && req.method === 'GET') {
    return json(res, 200, events);
  }
  if (url.pathname === '/.well-known/oauth-authorization-server') {
    // RFC 8414's location of the same metadata oidc-provider serves for OpenID discovery.
    req.url = '/.well-known/openid-configuration' + url.search;
  }
  return active.callback(req, res);
});

server.listen(opts.port, '127.0.0.1', () => {
  const { port } = server.address();
  const issuer = `https://127.0.0.1:${port}`;
  active = makeProvider(issuer, current);
  process.stdout.write(`${JSON.stringify({
    issuer,
    port,
    jwks_uri: `${issuer}/jwks`,
    token_endpoint: `${issuer}/token`,
    authorization_endpoint: `${issuer}/auth`,
    registration_endpoint: `${issuer}/reg`,
    control: `${issuer}/__control`,
    kid: current.kid,
    scopes: SCOPES.split(' '),
    clients: { ...CLIENTS, service_secret: SERVICE_SECRET },
    redirect_uris: opts.redirectUris,
  })}\n`);
});

const stop = () => {
  server.close();
  server.closeAllConnections?.();
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
if (opts.exitWithStdin) {
  process.stdin.on('end', stop);
  process.stdin.on('error', stop);
  process.stdin.resume();
}

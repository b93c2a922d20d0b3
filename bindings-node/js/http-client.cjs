// @ts-check
'use strict';
// The HTTP client transport: `HttpTransport` speaks Streamable HTTP (or the legacy HTTP+SSE
// transport) through the engine's HTTP client, which runs on its I/O thread as a byte stream
// (`Client.http`). The client side of HTTP, beside its server side, the HTTP host, in
// http.cjs; a file of its own so that loading the client loads neither the HTTP host nor the
// server connection (connection.cjs) it requires.

const nativeModule = require('./native.cjs');
const { ConnectionClosed } = require('./errors.cjs');

/**
 * @typedef {import('./types/client').Client} Client
 * @typedef {import('./types/client').ClientTransport} ClientTransport
 */

/**
 * @param {unknown} v
 * @returns {v is {[key: string]: unknown}}
 */
function isObject(v) {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/**
 * @param {number} ms
 * @returns {Promise<void>}
 */
function delay(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

/**
 * An MCP server over HTTP: the engine's Streamable HTTP (or HTTP+SSE) client runs on its I/O
 * thread as a byte stream; arriving bytes wake the loop once per batch.
 * @implements {ClientTransport}
 */
class HttpTransport {
  /** `network.transport` of the OpenTelemetry conventions for MCP. @returns {string | null} */
  get networkTransport() {
    return 'tcp';
  }

  /**
   * Options: `headers`, `transport` ('auto' | 'http' | 'sse'), `connectTimeout` (ms),
   * `openGetStream` (default true: the standalone GET stream for messages unrelated to a call),
   * `caFile` (a PEM file of CA certificates trusted for https:// besides the system's store),
   * `auth` (OAuth options: see OAuthOptions in types/client.d.ts).
   * @param {string} url
   * @param {import('./types/client').HttpTransportOptions & {legacyFallback?: boolean, maxMessage?: number}} [options]
   *   (also `legacyFallback` and `maxMessage`, which the engine takes)
   */
  constructor(url, options = {}) {
    this.url = String(url);
    // The transport's options (the rest are the client's, when Client.http passes them all);
    // the engine checks them now (an OptionError, a TypeError) and connects on start().
    const { headers, transport, connectTimeout, openGetStream, legacyFallback, maxMessage, caFile, auth } = options ?? {};
    // The app's own authorization handler and token store stay here; the engine asks them
    // (authorize 'host', tokenStore true).
    const { onAuthorize, tokenStore, ...authOptions } = isObject(auth) ? auth : { onAuthorize: undefined, tokenStore: undefined };
    if (onAuthorize !== undefined && typeof onAuthorize !== 'function') {
      throw new TypeError('auth.onAuthorize: expected a function (url, redirectUri) => redirected URL');
    }
    /** @type {((url: string, redirectUri: string) => string | Promise<string>) | undefined} */
    this._onAuthorize = /** @type {any} */ (onAuthorize);
    const ownStore = tokenStore !== undefined && tokenStore !== null && typeof tokenStore === 'object';
    if (ownStore) {
      for (const m of ['loadClient', 'saveClient', 'loadTokens', 'saveTokens']) {
        if (typeof (/** @type {any} */ (tokenStore))[m] !== 'function') throw new TypeError(`auth.tokenStore: a file path or an object with loadClient, saveClient, loadTokens and saveTokens methods (${m} is missing)`);
      }
    }
    /** @type {import('./types/client').TokenStore | null} */
    this._store = ownStore ? /** @type {any} */ (tokenStore) : null;
    /** @type {{[key: string]: unknown}} */
    const wire = { transport, connectTimeout, openGetStream, legacyFallback, maxMessage, caFile };
    if (isObject(auth)) {
      /** @type {{[key: string]: unknown}} */
      const a = { ...authOptions };
      if (onAuthorize) a.authorize = 'host';
      if (ownStore) a.tokenStore = true;
      else if (tokenStore !== undefined) a.tokenStore = tokenStore;
      wire.auth = a;
    } else if (auth != null) wire.auth = auth;
    if (isObject(headers)) wire.headers = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, String(v)]));
    else if (headers != null) wire.headers = headers;
    this._wire = JSON.stringify(wire);
    this._native = this._open();
    /** @type {Client | null} */
    this._client = null;
    /** @type {{resolve: () => void, reject: (err: unknown) => void} | null} */
    this._opened = null;
    /** @type {string | null} */
    this._error = null;
    this._ended = false;
    /** @type {(() => void) | null} resolves _endedPromise (set at once) */
    this._done = null;
    /** @type {Promise<void>} */
    this._endedPromise = new Promise((resolve) => (this._done = resolve));
  }

  /** A native transport (the engine checks the options), waking this one. */
  _open() {
    /** @type {any} */
    let native = null;
    native = new nativeModule.HttpClientStream(this.url, this._wire, () => this._wake(native));
    return native;
  }

  /**
   * Connects (the TCP connection, and with `transport: 'sse'` the event stream and its
   * `endpoint` event); rejects with ConnectionClosed naming the URL and the cause on failure.
   * @param {Client} client
   * @returns {Promise<void>}
   */
  start(client) {
    if (this._client !== null) {
      // Started again (the client reconnects): a new transport, so a new HTTP session.
      this._native = this._open();
      this._error = null;
      this._ended = false;
      this._endedPromise = new Promise((resolve) => (this._done = () => resolve(undefined)));
    }
    this._client = client;
    return new Promise((resolve, reject) => {
      this._opened = { resolve, reject };
      this._native.start();
    });
  }

  /**
   * What the I/O thread received since the last wake-up (only after start(): `_client` is
   * set; `_done` always is).
   */
  _wake(native = this._native) {
    if (native !== this._native) return; // one replaced by a reconnection
    const { authorizations, storeOps, connected, data, ended, error } = this._native.take();
    for (const a of authorizations) void this._authorize(a.id, a.url, a.redirectUri);
    for (const o of storeOps) void this._storeCall(o.id, o.op, o.issuer, o.resource ?? '', o.value ?? null);
    const opening = this._opened;
    if (opening !== null) {
      if (connected) {
        this._opened = null;
        opening.resolve();
      } else if (ended) {
        // Never connected: start() rejects; the client is not told of an end.
        this._opened = null;
        this._ended = true;
        this._error = error ?? null;
        /** @type {() => void} */ (this._done)();
        opening.reject(new ConnectionClosed(error ?? `cannot connect to ${this.url}`));
        return;
      }
    }
    if (data.length) /** @type {Client} */ (this._client)._feed(data);
    if (ended && !this._ended) {
      this._ended = true;
      this._error = error ?? null;
      /** @type {() => void} */ (this._done)();
      /** @type {Client} */ (this._client)._eof();
    }
  }

  /**
   * Has the app's onAuthorize complete an authorization, and answers the engine.
   * @param {number} id
   * @param {string} url
   * @param {string} redirectUri
   */
  async _authorize(id, url, redirectUri) {
    const handler = this._onAuthorize;
    if (!handler) {
      this._native.answerAuthorization(id, null, 'no onAuthorize handler is set');
      return;
    }
    try {
      this._native.answerAuthorization(id, String(await handler(url, redirectUri)), null);
    } catch (err) {
      this._native.answerAuthorization(id, null, `onAuthorize failed: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  /**
   * Calls the app's token store (`loadClient(issuer)`, `saveClient(issuer, client)`,
   * `loadTokens(issuer, resource)`, `saveTokens(issuer, resource, tokens | null)`), and
   * answers the engine.
   * @param {number} id
   * @param {string} op
   * @param {string} issuer
   * @param {string} resource
   * @param {string | null} value JSON text
   */
  async _storeCall(id, op, issuer, resource, value) {
    const store = this._store;
    try {
      if (!store) throw new Error('no token store is set');
      const v = value === null ? null : JSON.parse(value);
      let out;
      if (op === 'load_client') out = await store.loadClient(issuer);
      else if (op === 'save_client') out = await store.saveClient(issuer, v);
      else if (op === 'load_tokens') out = await store.loadTokens(issuer, resource);
      else if (op === 'save_tokens') out = await store.saveTokens(issuer, resource, v);
      else throw new Error(`unknown token store call ${op}`);
      this._native.answerStore(id, op.startsWith('load') && out != null ? JSON.stringify(out) : null, null);
    } catch (err) {
      this._native.answerStore(id, null, err instanceof Error ? err.message : String(err));
    }
  }

  /** @param {Buffer | Uint8Array} buf */
  write(buf) {
    if (!this._ended) this._native.write(Buffer.isBuffer(buf) ? buf : Buffer.from(buf));
  }

  /** Ends the session (DELETE) and waits (5 s at most) for the transport to finish. */
  close() {
    if (this._client === null) return undefined;
    this._native.close();
    return Promise.race([this._endedPromise, delay(5000)]);
  }

  failureDetail() {
    return this._error ?? '';
  }
}

module.exports = { HttpTransport };

// @ts-check
'use strict';
// An in-process connection between a Client and a Server (`Client.inMemory(server)`): the
// same native sessions and handlers as over stdio, without pipes. Server bytes reach the
// client on the next tick, so neither side re-enters the other.

const { ServerConnection } = require('./connection.cjs');

/**
 * @typedef {import('./types/client').Client} Client
 * @typedef {import('./types/client').ClientTransport} ClientTransport
 */

/** @implements {ClientTransport} */
class MemoryTransport {
  /** `network.transport` of the OpenTelemetry conventions for MCP. @returns {string | null} */
  get networkTransport() {
    return null;
  }

  /** @param {import('./server.cjs').Server<any>} server */
  constructor(server) {
    this.server = server;
    /** @type {ServerConnection | null} */
    this.conn = null;
    /** @type {Client | null} */
    this.client = null;
    this.closed = false;
    this.entered = false;
  }

  /** @param {Client} client */
  async start(client) {
    this.client = client;
    await this.server._enter();
    this.entered = true;
    this.conn = ServerConnection.overStream(this.server, (buf) => {
      const copy = Buffer.from(buf);
      queueMicrotask(() => {
        if (!this.closed) /** @type {Client} set above */ (this.client)._feed(copy);
      });
    });
  }

  /** @param {Buffer} buf */
  write(buf) {
    if (this.conn && !this.closed) this.conn.feed(buf);
  }

  async close() {
    if (this.closed) return;
    this.closed = true;
    const conn = this.conn;
    this.conn = null;
    if (conn) {
      conn.inputClosed();
      await conn.drain(10_000);
      conn.close();
    }
    if (this.entered) {
      this.entered = false;
      await this.server._exit();
    }
    queueMicrotask(() => this.client && this.client._eof());
  }
}

module.exports = { MemoryTransport };

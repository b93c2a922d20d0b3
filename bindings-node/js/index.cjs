'use strict';
// hypermcp for Node: MCP servers and clients on a Rust engine.

const { Server } = require('./server.cjs');
const { Client, StdioTransport, HttpTransport, promptRef, resourceRef } = require('./client.cjs');
const { Context } = require('./context.cjs');
// The error classes and codes (not the internal native-call helpers).
const { fromNative: _fromNative, native: _native, ...errors } = require('./errors.cjs');
const content = require('./content.cjs');
const nativeModule = require('../native/index.js');

module.exports = {
  Server,
  Client,
  StdioTransport,
  HttpTransport,
  promptRef,
  resourceRef,
  Context,
  ...errors,
  ...content,
  version: nativeModule.version(),
  PROTOCOL_VERSIONS: nativeModule.protocolVersions(),
};

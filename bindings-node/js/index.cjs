// @ts-check
'use strict';
// hypermcp for Node: MCP servers and clients on a Rust engine.

const { Server } = require('./server.cjs');
const { Client, Subscription, StdioTransport, HttpTransport, LoadedSkill, TaskHandle, promptRef, resourceRef } = require('./client.cjs');
const { Context, InputRequired } = require('./context.cjs');
// The error classes and codes (not the factory the native module uses). (Two statements: tsc
// takes a destructuring `require` for an import, which cannot have a rest element.)
const errorsModule = require('./errors.cjs');
const { nativeError: _nativeError, ...errors } = errorsModule;
const content = require('./content.cjs');
const nativeModule = require('./native.cjs');
const { setLogger, metrics, metricsText } = require('./ops.cjs');
const { TraceContext } = require('./trace.cjs');
const { BuiltinMiddleware, RateLimitingMiddleware, ResponseCachingMiddleware, TimingMiddleware, LoggingMiddleware } = require('./middleware.cjs');

module.exports = {
  Server,
  Client,
  Subscription,
  LoadedSkill,
  TaskHandle,
  StdioTransport,
  HttpTransport,
  promptRef,
  resourceRef,
  Context,
  InputRequired,
  TraceContext,
  ...errors,
  ...content,
  BuiltinMiddleware,
  RateLimitingMiddleware,
  ResponseCachingMiddleware,
  TimingMiddleware,
  LoggingMiddleware,
  setLogger,
  metrics,
  metricsText,
  version: nativeModule.version(),
  PROTOCOL_VERSIONS: nativeModule.protocolVersions(),
};

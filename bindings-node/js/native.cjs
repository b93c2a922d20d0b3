// @ts-check
'use strict';
// The native addon (bindings-node/src, built by `napi build`). Its errors are built by
// errors.cjs: real McpError, DefinitionError and OptionError objects, so no caller has to
// convert what a native call throws.

const native = require('../native/index.js');
const { nativeError } = require('./errors.cjs');

native.setErrorFactory(nativeError);
// HYPERMCP_LOG=info (or debug...) sends the engine's events to stderr.
native.logFromEnv();

module.exports = native;

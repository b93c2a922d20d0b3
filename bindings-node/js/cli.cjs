#!/usr/bin/env node
// @ts-check
'use strict';
// `hypermcp`, one command line for every MCP server (`npx hypermcp --help`). The command
// line is the engine's (hypermcp::cli): this only hands it the arguments, this Node (which
// runs JavaScript and TypeScript server files) and the package's runner of those files.
const { join } = require('node:path');
const native = require('./native.cjs');

process.exitCode = native.cliMain(process.argv.slice(2), {
  node: process.execPath,
  nodeRunner: join(__dirname, 'runner.mjs'),
});

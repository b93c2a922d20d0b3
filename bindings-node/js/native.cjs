// @ts-check
'use strict';
// The native addon (bindings-node/src, built by `napi build`). Its errors are built by
// errors.cjs: real McpError, DefinitionError and OptionError objects, so no caller has to
// convert what a native call throws.

const native = loadAddon();

/** The addon: napi-rs's loader finds it beside the loader (a build from a clone) or in the
 * platform package npm installed for this machine (hypermcp-linux-x64-gnu, ...). When there
 * is none, the error says which package was looked for and what to do. */
function loadAddon() {
  try {
    return require('../native/index.js');
  } catch (e) {
    if (!(e instanceof Error) || !e.message.startsWith('Cannot find native binding')) throw e;
    const report = /** @type {{header?: {glibcVersionRuntime?: string}} | undefined} */ (process.report?.getReport());
    const libc = process.platform === 'linux' ? (report?.header?.glibcVersionRuntime ? '-gnu' : '-musl') : '';
    const abi = process.platform === 'win32' ? '-msvc' : '';
    const wanted = `hypermcp-${process.platform}-${process.arch}${libc}${abi}`;
    const pkg = /** @type {{optionalDependencies?: Record<string, string>}} */ (/** @type {unknown} */ (require('../../package.json')));
    const published = Object.keys(pkg.optionalDependencies ?? {});
    const fix = published.includes(wanted)
      ? `npm did not install it: reinstall without --omit=optional (or --no-optional), e.g. \`npm install hypermcp\``
      : published.length > 0
        ? `hypermcp publishes prebuilt engines for ${published.map((p) => p.replace('hypermcp-', '')).join(', ')} only: build the engine from a clone of the repository (\`make node\`, which needs Rust)`
        : 'this is a clone of the repository: build the engine first (`make node` or `npm run build`, which need Rust)';
    throw new Error(`hypermcp: no engine for this platform (${process.platform}-${process.arch}${libc}${abi}): the package ${wanted} is not installed; ${fix}`, { cause: e });
  }
}

const { nativeError } = require('./errors.cjs');

native.setErrorFactory(nativeError);
// HYPERMCP_LOG=info (or debug...) sends the engine's events to stderr.
native.logFromEnv();

module.exports = native;

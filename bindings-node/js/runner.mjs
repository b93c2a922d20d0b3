// @ts-check
// The runner of `hypermcp run FILE[:OBJECT]` (and `dev`) for JavaScript and TypeScript
// files: node runner.mjs FILE [OBJECT]. The command line (hypermcp::cli) starts it with
// HYPERMCP_TRANSPORT (and HYPERMCP_HOST, HYPERMCP_PORT), which Server.run() follows when the
// file does not name a transport.
//
// The file is imported. If it ran a server itself (a top-level `await server.run()`), that
// is the server. Otherwise the server is its export OBJECT, else the one Server it exports
// (named or default); several, or none, is an error naming what to do.
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const [file, object] = process.argv.slice(2);
if (!file) {
  process.stderr.write('usage: node runner.mjs FILE [OBJECT]\n');
  process.exit(2);
}
const RUNS = Symbol.for('hypermcp.runs');
const BRAND = Symbol.for('hypermcp.server');
/** @param {unknown} v */
const isServer = (v) => typeof v === 'object' && v !== null && /** @type {any} */ (v)[BRAND] === true;
/** @param {string} message */
const fail = (message) => {
  process.stderr.write(`hypermcp run: ${message}\n`);
  process.exit(2);
};

// What the file sees of the command line: itself, as if run as `node FILE`.
process.argv = [process.argv[0], resolve(file)];
const mod = /** @type {Record<string, unknown>} */ (await import(pathToFileURL(resolve(file)).href));
const g = /** @type {Record<symbol, number | undefined>} */ (/** @type {unknown} */ (globalThis));
if (object === undefined && (g[RUNS] ?? 0) > 0) {
  // The file ran its server (and it has stopped).
} else {
  let server;
  if (object !== undefined) {
    server = mod[object];
    if (!isServer(server)) fail(`${file} exports no Server named ${object} (its exports: ${Object.keys(mod).join(', ') || 'none'})`);
  } else {
    const found = [...new Set(Object.values(mod).filter(isServer))];
    if (found.length === 0) fail(`${file} exports no Server: export it (export const server = new Server(...)), or run it itself`);
    if (found.length > 1) {
      const names = Object.entries(mod).filter(([, v]) => isServer(v)).map(([k]) => k);
      fail(`${file} exports several Servers (${names.join(', ')}): name one, ${file}:NAME`);
    }
    server = found[0];
  }
  await /** @type {{run(): Promise<void>}} */ (server).run();
}

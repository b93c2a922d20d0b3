// Import npm packages from the interop peers folder (${PEERS:-<repo>/.peers}/npm), which
// tests/interop/setup_peers.sh fills. The scripts live outside that folder, so bare
// specifiers would not resolve; this resolves them through the package's "exports" map
// with the ESM ("import") condition and imports the absolute file.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
export const REPO = path.resolve(HERE, '..', '..');
export const PEERS = path.resolve(process.env.PEERS || path.join(REPO, '.peers'));
export const NODE_MODULES = path.join(PEERS, 'npm', 'node_modules');

function pickTarget(target) {
  if (typeof target === 'string') return target;
  if (Array.isArray(target)) {
    for (const t of target) {
      const r = pickTarget(t);
      if (r) return r;
    }
    return null;
  }
  if (target && typeof target === 'object') {
    for (const cond of ['node', 'import', 'default']) {
      if (cond in target) {
        const r = pickTarget(target[cond]);
        if (r) return r;
      }
    }
  }
  return null;
}

/** Absolute path of `specifier` ("pkg", "pkg/sub", "@scope/pkg/sub.js") in the peers folder. */
export function resolvePeer(specifier) {
  const parts = specifier.split('/');
  const nameLen = specifier.startsWith('@') ? 2 : 1;
  const name = parts.slice(0, nameLen).join('/');
  const sub = parts.length > nameLen ? './' + parts.slice(nameLen).join('/') : '.';
  const dir = path.join(NODE_MODULES, ...name.split('/'));
  const pkgFile = path.join(dir, 'package.json');
  if (!existsSync(pkgFile)) {
    throw new Error(
      `${name} is not installed under ${NODE_MODULES}; run tests/interop/setup_peers.sh (PEERS=${PEERS})`,
    );
  }
  const pkg = JSON.parse(readFileSync(pkgFile, 'utf8'));
  let rel = null;
  const exp = pkg.exports;
  if (exp === undefined) {
    rel = sub === '.' ? pkg.module || pkg.main || 'index.js' : sub;
  } else if (typeof exp === 'string' || Array.isArray(exp) || !Object.keys(exp).some((k) => k.startsWith('.'))) {
    if (sub === '.') rel = pickTarget(exp);
  } else if (sub in exp) {
    rel = pickTarget(exp[sub]);
  } else {
    for (const [key, target] of Object.entries(exp)) {
      const star = key.indexOf('*');
      if (star < 0) continue;
      const pre = key.slice(0, star);
      const post = key.slice(star + 1);
      if (sub.startsWith(pre) && sub.endsWith(post) && sub.length >= pre.length + post.length) {
        const match = sub.slice(pre.length, sub.length - post.length);
        const t = pickTarget(target);
        if (t) rel = t.split('*').join(match);
        break;
      }
    }
  }
  if (!rel) throw new Error(`cannot resolve ${specifier} in ${pkgFile}`);
  return path.join(dir, rel);
}

/** `await import(specifier)`, resolved in the peers folder. */
export function importPeer(specifier) {
  return import(pathToFileURL(resolvePeer(specifier)).href);
}

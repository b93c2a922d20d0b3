#!/usr/bin/env node
// The npm packages as users install them, the napi-rs way (what `make dist` runs after
// `make node` built the addon into bindings-node/native/):
//
//   DIST/hypermcp-VERSION.tgz                  the package: JavaScript, types, the addon's loader
//   DIST/hypermcp-PLATFORM-VERSION.tgz         one per prebuilt addon: the engine for PLATFORM
//
// The main package names each platform package in `optionalDependencies`, so npm installs
// the one for the user's platform only (each says its `os`, `cpu` and `libc`). The version
// is the workspace's (Cargo.toml), which package.json must carry too (`make version`).
//
//   node scripts/npm_dist.mjs [DIST]          (DIST: default dist/)
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const dist = resolve(process.argv[2] ?? join(root, 'dist'));
const fail = (message) => {
  console.error(`npm_dist: ${message}`);
  process.exit(1);
};

// The Rust target triples napi builds for, as npm sees the platform (napi-rs's names).
const PLATFORMS = {
  'x86_64-unknown-linux-gnu': { name: 'linux-x64-gnu', os: 'linux', cpu: 'x64', libc: 'glibc', what: 'Linux x64 (glibc)' },
  'aarch64-unknown-linux-gnu': { name: 'linux-arm64-gnu', os: 'linux', cpu: 'arm64', libc: 'glibc', what: 'Linux arm64 (glibc)' },
  'x86_64-unknown-linux-musl': { name: 'linux-x64-musl', os: 'linux', cpu: 'x64', libc: 'musl', what: 'Linux x64 (musl)' },
  'aarch64-apple-darwin': { name: 'darwin-arm64', os: 'darwin', cpu: 'arm64', what: 'macOS arm64' },
  'x86_64-apple-darwin': { name: 'darwin-x64', os: 'darwin', cpu: 'x64', what: 'macOS x64' },
  'x86_64-pc-windows-msvc': { name: 'win32-x64-msvc', os: 'win32', cpu: 'x64', what: 'Windows x64' },
};

const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const cargo = readFileSync(join(root, 'Cargo.toml'), 'utf8');
const version = /^\[workspace\.package\][^[]*?^version = "([^"]+)"/m.exec(cargo)?.[1];
if (!version) fail('no [workspace.package] version in Cargo.toml');
if (pkg.version !== version) {
  fail(`package.json says version ${pkg.version} but Cargo.toml says ${version}: run \`make version V=${version}\``);
}

const native = join(root, 'bindings-node', 'native');
const binary = pkg.napi.binaryName;
const built = [];
for (const triple of pkg.napi.targets) {
  const p = PLATFORMS[triple];
  if (!p) fail(`package.json's napi.targets names ${triple}, which this script has no npm platform for`);
  const file = `${binary}.${p.name}.node`;
  if (existsSync(join(native, file))) built.push({ ...p, file });
}
if (built.length === 0 || !existsSync(join(native, 'index.js'))) {
  fail(`no addon in ${native}: build it first (\`make node\`)`);
}

const common = {
  version,
  license: pkg.license,
  repository: pkg.repository,
  homepage: pkg.homepage,
  engines: pkg.engines,
};
const stage = join(dist, 'npm');
rmSync(stage, { recursive: true, force: true });
mkdirSync(stage, { recursive: true });
const pack = (dir) => {
  const out = execFileSync('npm', ['pack', '--silent', '--pack-destination', dist], { cwd: dir, encoding: 'utf8' });
  const name = out.trim().split('\n').pop();
  console.log(`npm_dist: ${join(dist, name)}`);
};

// One package per prebuilt addon.
const optional = {};
for (const p of built) {
  const name = `${pkg.name}-${p.name}`;
  const dir = join(stage, name);
  mkdirSync(dir);
  cpSync(join(native, p.file), join(dir, p.file));
  // The addon as users get it: without debug info and symbols (binutils' strip, when there).
  try {
    execFileSync('strip', ['--strip-unneeded', join(dir, p.file)], { stdio: 'pipe' });
  } catch (e) {
    console.warn(`npm_dist: ${p.file} is not stripped (${e.code === 'ENOENT' ? 'no strip command' : e.message.trim()})`);
  }
  cpSync(join(root, 'LICENSE'), join(dir, 'LICENSE'));
  writeFileSync(
    join(dir, 'README.md'),
    `# ${name}\n\nThe hypermcp engine prebuilt for ${p.what}. Install \`${pkg.name}\`, which depends on it.\n`,
  );
  const manifest = {
    name,
    ...common,
    description: `The hypermcp engine prebuilt for ${p.what} (installed by the ${pkg.name} package)`,
    os: [p.os],
    cpu: [p.cpu],
    ...(p.libc ? { libc: [p.libc] } : {}),
    main: p.file,
    files: [p.file],
  };
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  optional[name] = version;
  pack(dir);
}

// The package itself: the JavaScript and its types, the addon's loader; no addon.
const dir = join(stage, pkg.name);
mkdirSync(join(dir, 'bindings-node', 'native'), { recursive: true });
cpSync(join(root, 'bindings-node', 'js'), join(dir, 'bindings-node', 'js'), { recursive: true });
for (const f of ['index.js', 'index.d.ts']) {
  cpSync(join(native, f), join(dir, 'bindings-node', 'native', f));
}
for (const f of ['README.md', 'LICENSE', 'CHANGELOG.md']) cpSync(join(root, f), join(dir, f));
// Neither the build scripts nor the development tools go to users.
const manifest = { ...pkg, files: [...pkg.files.filter((f) => !f.endsWith('.node')), 'CHANGELOG.md'] };
delete manifest.scripts;
delete manifest.devDependencies;
manifest.optionalDependencies = optional;
writeFileSync(join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
pack(dir);
rmSync(stage, { recursive: true, force: true });

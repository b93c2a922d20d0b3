#!/usr/bin/env bash
# Install every peer of `make bench` (bench/servers/README.md), pinned, into ignored folders
# under ${PEERS:-<repo>/.peers}:
#   .peers/venv, .peers/npm       the official Python SDK (mcp 2.3.0) and TypeScript SDK (1.32.2):
#                                 tests/interop/setup_peers.sh (its "sdks" part), called first
#   .peers/bench/fastmcp-venv     FastMCP, in its own venv (its `mcp` need not be the 2.3.0 above)
#   .peers/bench/tools-venv       matplotlib, for the report's chart (bench/report.py)
#   .peers/bench/rmcp-target      the rmcp server (bench/servers/rmcp/, official Rust SDK), built
#                                 --release --locked; binary release/rmcp-bench-server
#   valgrind                      Debian's, with apt-get when missing and this runs as root: the
#                                 eras part counts instructions per echo with callgrind
#                                 (bench/eras.py; without it that part times the echoes only)
# Idempotent: a marker file in each venv records its pins, and nothing is reinstalled while it
# matches; cargo rebuilds only what changed. A warm run takes about a second. Prints one line per
# peer; on failure, the failed step's log goes to stderr and the exit status is 1.
# Needs: python3 (with venv + pip), Node 20 + npm, cargo. Network: PyPI, npm and crates.io (and
# the Debian archive for valgrind when it is missing), each step limited to BENCH_PEERS_STEP_TIMEOUT seconds (default 900).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# REPO, PEERS; die, run_logged and pip_venv (with ME, LOG and STEP_TIMEOUT below)
# shellcheck source=../../scripts/lib.sh
. "$HERE/../../scripts/lib.sh"
export PEERS

# Pins. Change them here only; the markers below make a changed pin reinstall.
FASTMCP_PINS=("fastmcp==4.1.6")
TOOLS_PINS=("matplotlib==3.11.2")
STEP_TIMEOUT="${BENCH_PEERS_STEP_TIMEOUT:-900}"

MARKER_NAME=".hypermcp-peers"
BENCH="$PEERS/bench"
mkdir -p "$BENCH"
LOG="$BENCH/setup.log"
: >"$LOG"

ME="bench/peers/setup.sh"

rel() { case "$1" in "$REPO"/*) echo "${1#"$REPO"/}" ;; *) echo "$1" ;; esac; }

for tool in python3 node npm cargo timeout; do
  command -v "$tool" >/dev/null || die "$tool not found"
done

# ------------------------------------------------------ official Python and TypeScript SDKs
# Only the SDKs: the Inspector, Node 22 and the conformance suite are for `make test`.
if ! PEERS_PARTS=sdks "$REPO/tests/interop/setup_peers.sh" >>"$LOG" 2>&1; then
  die "tests/interop/setup_peers.sh failed"
fi
echo "official Python SDK: $("$PEERS/venv/bin/python" -c 'import importlib.metadata as m; print(m.version("mcp"))') in $(rel "$PEERS/venv")"
echo "official TypeScript SDK: $(node -p "require('$PEERS/npm/node_modules/@modelcontextprotocol/sdk/package.json').version") in $(rel "$PEERS/npm")"

# ------------------------------------------------------------------------------- FastMCP
FASTMCP_VENV="$BENCH/fastmcp-venv"
FASTMCP_WANT="fastmcp-peer: ${FASTMCP_PINS[*]}"
if [ ! -x "$FASTMCP_VENV/bin/python" ] || [ "$(cat "$FASTMCP_VENV/$MARKER_NAME" 2>/dev/null)" != "$FASTMCP_WANT" ]; then
  rm -f "$FASTMCP_VENV/$MARKER_NAME"
  note=""
  if [ ! -x "$FASTMCP_VENV/bin/python" ]; then
    run_logged "creating the venv $FASTMCP_VENV" python3 -m venv "$FASTMCP_VENV"
  fi
  echo "+ pip install ${FASTMCP_PINS[*]}" >>"$LOG"
  if ! timeout "$STEP_TIMEOUT" "$FASTMCP_VENV/bin/python" -m pip install --disable-pip-version-check --no-input -q \
      --timeout 60 --retries 3 "${FASTMCP_PINS[@]}" >>"$LOG" 2>&1; then
    # fastmcp-slim 4.1.x asks for certifi>=2026.10.19 (its `server` extra); an index that
    # does not have that certifi yet cannot resolve it. Install fastmcp and fastmcp-slim
    # without their dependencies, then those dependencies (the `client` and `server`
    # extras, as `fastmcp` asks) with certifi at whatever the index has.
    grep -q "certifi" "$LOG" || die "pip install ${FASTMCP_PINS[*]} failed"
    version="${FASTMCP_PINS[0]#fastmcp==}"
    run_logged "pip install --no-deps fastmcp" "$FASTMCP_VENV/bin/python" -m pip install \
      --disable-pip-version-check --no-input -q --timeout 60 --retries 3 --no-deps \
      "fastmcp==$version" "fastmcp-slim==$version"
    "$FASTMCP_VENV/bin/python" - >"$BENCH/fastmcp-requirements.txt" 2>>"$LOG" <<'EOF' \
      || die "reading fastmcp-slim's requirements failed"
from importlib.metadata import requires

from pip._vendor.packaging.requirements import Requirement

out = []
for line in requires("fastmcp-slim") or []:
    req = Requirement(line)
    if req.marker is not None and not any(req.marker.evaluate({"extra": e}) for e in ("client", "server")):
        continue
    extras = "[" + ",".join(sorted(req.extras)) + "]" if req.extras else ""
    spec = "" if req.name == "certifi" else str(req.specifier)
    if f"{req.name}{extras}{spec}" not in out:
        out.append(f"{req.name}{extras}{spec}")
print("\n".join(out))
EOF
    run_logged "pip install fastmcp's dependencies" "$FASTMCP_VENV/bin/python" -m pip install \
      --disable-pip-version-check --no-input -q --timeout 60 --retries 3 -r "$BENCH/fastmcp-requirements.txt"
    note=" (certifi>=2026.10.19 not on the index: fastmcp's dependencies installed with certifi $("$FASTMCP_VENV/bin/python" -c 'import certifi; print(certifi.__version__)'))"
  fi
  run_logged "checking the FastMCP import" "$FASTMCP_VENV/bin/python" -c "from fastmcp import FastMCP"
  printf '%s' "$FASTMCP_WANT" >"$FASTMCP_VENV/$MARKER_NAME"
  echo "fastmcp: installed ${FASTMCP_PINS[*]} in $(rel "$FASTMCP_VENV")$note"
else
  echo "fastmcp: ${FASTMCP_PINS[*]} in $(rel "$FASTMCP_VENV")"
fi

# ------------------------------------------------------------------------ report tools
TOOLS_VENV="$BENCH/tools-venv"
TOOLS_WANT="tools-peer: ${TOOLS_PINS[*]}"
if [ ! -x "$TOOLS_VENV/bin/python" ] || [ "$(cat "$TOOLS_VENV/$MARKER_NAME" 2>/dev/null)" != "$TOOLS_WANT" ]; then
  rm -f "$TOOLS_VENV/$MARKER_NAME"
  pip_venv "$TOOLS_VENV" "${TOOLS_PINS[@]}"
  run_logged "checking the matplotlib import" "$TOOLS_VENV/bin/python" -c "import matplotlib; matplotlib.use('Agg'); import matplotlib.pyplot"
  printf '%s' "$TOOLS_WANT" >"$TOOLS_VENV/$MARKER_NAME"
  echo "report tools: installed ${TOOLS_PINS[*]} in $(rel "$TOOLS_VENV")"
else
  echo "report tools: ${TOOLS_PINS[*]} in $(rel "$TOOLS_VENV")"
fi

# ------------------------------------------------------------------------------- rmcp
# Its own Cargo project (not a workspace member) and its own target folder; --locked keeps
# the committed Cargo.lock (rmcp's exact version). cargo's output goes to the log.
RMCP_TARGET="$BENCH/rmcp-target"
RMCP_BIN="$RMCP_TARGET/release/rmcp-bench-server"
echo "+ cargo build --release --locked (rmcp)" >>"$LOG"
if ! CARGO_TARGET_DIR="$RMCP_TARGET" timeout "$STEP_TIMEOUT" cargo build --release --locked --quiet \
    --manifest-path "$REPO/bench/servers/rmcp/Cargo.toml" >>"$LOG" 2>&1; then
  die "building the rmcp server failed (or exceeded ${STEP_TIMEOUT}s)"
fi
[ -x "$RMCP_BIN" ] || die "the rmcp build left no $RMCP_BIN"
RMCP_VERSION="$(sed -n '/^name = "rmcp"$/{n;s/^version = "\(.*\)"$/\1/p;}' "$REPO/bench/servers/rmcp/Cargo.lock")"
echo "rmcp: ${RMCP_VERSION:-?} built, $(rel "$RMCP_BIN")"

# --------------------------------------------------------------------------- valgrind
if command -v valgrind >/dev/null; then
  echo "valgrind: $(valgrind --version)"
elif [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  export DEBIAN_FRONTEND=noninteractive
  if ! timeout "$STEP_TIMEOUT" apt-get install -y -q --no-install-recommends valgrind >>"$LOG" 2>&1; then
    run_logged "apt-get update" apt-get update -q
    run_logged "apt-get install valgrind" apt-get install -y -q --no-install-recommends valgrind
  fi
  echo "valgrind: installed $(valgrind --version)"
else
  echo "valgrind: not installed (not root, or no apt-get): the eras part will not count instructions"
fi

rm -f "$LOG"

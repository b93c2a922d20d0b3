#!/usr/bin/env bash
# The official MCP Inspector CLI drives a server: tools/list, then one tools/call, and
# checks the answers (exit codes: 0 ok, 4 unreachable, 5 tool error).
#   inspector_check.sh TOOL JSON_ARGS EXPECTED_TEXT -- CMD [ARGS...]     a stdio server
#   inspector_check.sh TOOL JSON_ARGS EXPECTED_TEXT -- URL               an HTTP server: .../mcp is
#                                                 Streamable HTTP, .../sse the legacy transport
# e.g. inspector_check.sh echo '{"text":"hi"}' hi -- target/release/examples/echo_server
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=../../scripts/lib.sh
. "$HERE/../../scripts/lib.sh"
ME=inspector_check
LAUNCHER="$PEERS/inspector/node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js"
if [ ! -x "$NODE22" ] || [ ! -f "$LAUNCHER" ]; then die "run tests/interop/setup_peers.sh first"; fi

tool="$1" args="$2" expected="$3"; shift 3
[ "${1:-}" = "--" ] && shift
# The Inspector writes ~/.mcp-inspector/: keep it out of the real home.
HOME="$(mktemp -d)"; export HOME
trap 'rm -rf "$HOME"' EXIT
PATH="$(dirname "$NODE22"):$PATH"
export PATH

list=$(timeout 60 "$NODE22" "$LAUNCHER" --cli "$@" --method tools/list --format json -q)
"$NODE22" -e '
  const r = JSON.parse(process.argv[1]); const tools = (r.result || r).tools;
  if (!tools.some(t => t.name === process.argv[2])) { console.error("inspector_check: tools/list lacks " + process.argv[2]); process.exit(1); }
' "$list" "$tool"

tool_args=()
while IFS= read -r kv; do tool_args+=(--tool-arg "$kv"); done < <("$NODE22" -e '
  for (const [k, v] of Object.entries(JSON.parse(process.argv[1]))) console.log(k + "=" + (typeof v === "string" ? v : JSON.stringify(v)));
' "$args")
call=$(timeout 60 "$NODE22" "$LAUNCHER" --cli "$@" --method tools/call --tool-name "$tool" "${tool_args[@]}" --format json -q)
"$NODE22" -e '
  const r = JSON.parse(process.argv[1]); const res = r.result || r;
  const text = (res.content || []).filter(c => c.type === "text").map(c => c.text).join("");
  if (res.isError || !text.includes(process.argv[2])) { console.error("inspector_check: unexpected tools/call answer: " + process.argv[1]); process.exit(1); }
' "$call" "$expected"
echo "inspector_check: ok (tools/list, tools/call $tool) against $*"

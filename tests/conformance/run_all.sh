#!/usr/bin/env bash
# The official MCP conformance suite against every hypermcp conformance server and client.
#
#   run_all.sh [TARGET...]        (default: all targets below, in this order)
#
#   server:rust     target/release/examples/conformance_server --port N (target/debug if only that is built)
#   server:python   .venv/bin/python examples/python/conformance_server.py --port N
#   server:node     node examples/node/conformance_server.mjs --port N
#   client:python   .venv/bin/python examples/python/conformance_client.py URL
#   client:node     node examples/node/conformance_client.mjs URL
#   client:rust     target/release/examples/conformance_client URL
#   reference       tests/conformance/reference_client.py (official Python SDK): a sanity line
#                   for the harness itself
#
# A server target starts the server on a free port of 127.0.0.1 and runs `server --suite all`
# of 0.1.16 against http://127.0.0.1:N/mcp (run_server.sh), then starts it once more and runs
# the tier legs of 0.2.0-alpha.12 (`--requirements 2025-11-25` and `2026-07-28`, 67 scored
# scenarios) against that one process (run_tier.sh); a client target runs the client scenarios
# initialize, tools_call, elicitation-sep1034-client-defaults and sse-retry (run_client.sh),
# then the client tier legs of 0.2.0-alpha.12 (run_client_tier.sh: every scored scenario of
# 2025-11-25 and 2026-07-28, the authorization ones included, the era from
# MCP_CONFORMANCE_PROTOCOL_VERSION, and the two 2025-03-26 authorization back-compat ones).
# Then each target runs the official extensions' scenarios (run_extensions.sh: skills and
# tasks, each forced and required to check something). A target whose program is missing fails. Prints `PASS target` or `FAIL target` with the
# failing checks, then `conformance: N passed, M failed`; exit 1 if M > 0.
#
# Env: SERVER_TARGET_TIMEOUT (s, per server target, 300), CLIENT_TARGET_TIMEOUT (s, per
#      client target, 300), STRICT_WARNINGS=1 (server warnings fail too), RESULTS (default
#      tests/.results/conformance/run-<time>), VENV (.venv), NODE (node), RUST_EXAMPLES (the
#      folder of the Rust example binaries), PEERS (.peers).
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=lib.sh
. "$HERE/lib.sh"
conf_require

VENV="${VENV:-$REPO/.venv}"
NODE="${NODE:-$(command -v node || echo node)}"
if [ -z "${RUST_EXAMPLES:-}" ]; then
  RUST_EXAMPLES="${HYPERMCP_BUILD:-$REPO/target/release}/examples"
  if [ ! -x "$RUST_EXAMPLES/conformance_server" ] && [ ! -x "$RUST_EXAMPLES/conformance_client" ] \
     && [ -d "$REPO/target/debug/examples" ]; then
    RUST_EXAMPLES="$REPO/target/debug/examples"
  fi
fi
RESULTS="${RESULTS:-$REPO/tests/.results/conformance/run-$(date +%Y%m%d-%H%M%S)}"
mkdir -p "$RESULTS"
case "$REPO" in *" "*) echo "run_all: the repository path has a space; the conformance CLI splits client commands on spaces" >&2 ;; esac

ALL=(server:rust server:python server:node client:python client:node client:rust reference)
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${ALL[@]}")

# target -> "PROGRAM|COMMAND PREFIX" (the program must exist; the command gets --port N or URL)
spec() {
  case "$1" in
    server:rust) echo "$RUST_EXAMPLES/conformance_server|$RUST_EXAMPLES/conformance_server" ;;
    server:python) echo "$REPO/examples/python/conformance_server.py|$VENV/bin/python $REPO/examples/python/conformance_server.py" ;;
    server:node) echo "$REPO/examples/node/conformance_server.mjs|$NODE $REPO/examples/node/conformance_server.mjs" ;;
    client:python) echo "$REPO/examples/python/conformance_client.py|$VENV/bin/python $REPO/examples/python/conformance_client.py" ;;
    client:node) echo "$REPO/examples/node/conformance_client.mjs|$NODE $REPO/examples/node/conformance_client.mjs" ;;
    client:rust) echo "$RUST_EXAMPLES/conformance_client|$RUST_EXAMPLES/conformance_client" ;;
    reference) echo "$HERE/reference_client.py|$PEERS/venv/bin/python $HERE/reference_client.py" ;;
    *) return 1 ;;
  esac
}

passed=0 failed=0
for t in "${targets[@]}"; do
  if ! s="$(spec "$t")"; then
    echo "FAIL $t: unknown target (known: ${ALL[*]})"
    failed=$((failed + 1))
    continue
  fi
  prog="${s%%|*}" cmd="${s#*|}"
  if [ ! -e "$prog" ]; then
    echo "FAIL $t: missing $prog"
    failed=$((failed + 1))
    continue
  fi
  dir="$RESULTS/${t//:/-}"
  mkdir -p "$dir"
  log="$dir/run.log"
  rc=0
  start=$(date +%s)
  case "$t" in
    server:*)
      port="$(free_port)"
      SERVER_CMD="exec $cmd --port $port" RESULTS="$dir" SERVER_LOG="$dir/server.log" \
        SUITE_TIMEOUT="${SERVER_TARGET_TIMEOUT:-300}" \
        bash "$HERE/run_server.sh" "http://127.0.0.1:$port/mcp" >"$log" 2>&1 || rc=$?
      summary="$(grep -E '^checks: ' "$log" | tail -n 1)"
      # The tier legs (0.2.0-alpha.12): both eras against one fresh process.
      port="$(free_port)"
      SERVER_CMD="exec $cmd --port $port" RESULTS="$dir/tier" SERVER_LOG="$dir/tier-server.log" \
        SUITE_TIMEOUT="${SERVER_TARGET_TIMEOUT:-300}" \
        bash "$HERE/run_tier.sh" "http://127.0.0.1:$port/mcp" >>"$log" 2>&1 || rc=1
      tier="$(grep -E '^tier: ' "$log" | tail -n 1 | sed 's/^tier: //; s/ (.*//')"
      unscored="$(grep -cE 'unscored FAIL' "$log")"
      # The extensions' scenarios (skills, tasks), each forced, against one more process.
      port="$(free_port)"
      SERVER_CMD="exec $cmd --port $port" RESULTS="$dir/ext" SERVER_LOG="$dir/ext-server.log" \
        bash "$HERE/run_extensions.sh" server "http://127.0.0.1:$port/mcp" >>"$log" 2>&1 || rc=1
      ext="$(grep -E '^extensions: ' "$log" | tail -n 1 | sed 's/^extensions: //; s/ scenarios passed//')"
      summary="0.1.16 ${summary:-?}; tier ${tier:-?} (unscored failing: $unscored); extensions ${ext:-?}"
      ;;
    *)
      # The per-scenario CLI runs are bounded by SUITE_TIMEOUT; the whole target by this one.
      timeout --kill-after=10 "${CLIENT_TARGET_TIMEOUT:-300}" env RESULTS="$dir" \
        bash "$HERE/run_client.sh" "$cmd" >"$log" 2>&1 || rc=$?
      summary="$(grep -E '^client conformance: ' "$log" | tail -n 1 | sed 's/ (.*//')"
      if [ "$t" != reference ]; then
        # The tier legs (0.2.0-alpha.12): both eras' scored scenarios, and the back-compat pair.
        timeout --kill-after=10 "${CLIENT_TARGET_TIMEOUT:-300}" env RESULTS="$dir/tier" \
          bash "$HERE/run_client_tier.sh" "$cmd" >>"$log" 2>&1 || rc=1
        tier="$(grep -E '^client tier: ' "$log" | tail -n 1 | sed 's/^client tier: //; s/ scored scenarios passed//')"
        # The extensions' client scenarios (skills), each forced.
        timeout --kill-after=10 "${CLIENT_TARGET_TIMEOUT:-300}" env RESULTS="$dir/ext" \
          bash "$HERE/run_extensions.sh" client "$cmd" >>"$log" 2>&1 || rc=1
        ext="$(grep -E '^extensions: ' "$log" | tail -n 1 | sed 's/^extensions: //; s/ scenarios passed//')"
        summary="0.1.16 ${summary:-?}; tier ${tier:-?}; extensions ${ext:-?}"
      fi
      ;;
  esac
  took=$(( $(date +%s) - start ))
  if [ "$rc" -eq 0 ]; then
    echo "PASS $t (${summary:-ok}; ${took}s)"
    passed=$((passed + 1))
  else
    echo "FAIL $t (${summary:-exit $rc}; ${took}s; log: $log)"
    # The failing scenarios and checks (not the passing ones).
    grep -vE '^(  \[[0-9-]+\] )?  (ok |unscored ok )|^(  \[[0-9-]+\] )?(checks|scored|unscored): |^client conformance: |^run_(server|client|tier|client_tier): (conformance|/|results|/)|^(client )?tier: |^extensions: |^run_extensions: results' "$log" \
      | sed 's/^/    /' | head -n 80
    failed=$((failed + 1))
  fi
done
echo "conformance: $passed passed, $failed failed"
[ "$failed" -eq 0 ]

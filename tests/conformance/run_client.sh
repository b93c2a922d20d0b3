#!/usr/bin/env bash
# Run the official MCP conformance *client* scenarios against a client command.
#
#   run_client.sh "CLIENT CMD" [SCENARIO...]
#       e.g. run_client.sh "$PWD/.venv/bin/python $PWD/examples/python/conformance_client.py"
#
# Scenarios default to the four non-auth ones: initialize tools_call
# elicitation-sep1034-client-defaults sse-retry. Each runs on its own (`client --command CMD
# --scenario S -o DIR/S`): the CLI starts a mock server and runs `CMD <url>` through a shell
# with MCP_CONFORMANCE_SCENARIO=S in the environment. The CLI splits CMD on single spaces:
# use absolute paths without spaces.
#
# Prints one line per scenario, every FAILURE and WARNING check (id + errorMessage), the tail
# of the client's stderr for a failed scenario, and `client conformance: N passed, M failed`.
# Exit 1 when any scenario has a FAILURE or a WARNING or the client exits non-zero or times
# out (the CLI's own rule), else 0.
#
# Env: PEERS (.peers), NODE22, CONFORMANCE_JS, CLIENT_TIMEOUT_MS (the CLI's per-scenario
#      client timeout, 30000), SUITE_TIMEOUT (s, per scenario, 120), RESULTS (default
#      tests/.results/conformance/client-<time>), VERBOSE=1 (also print the CLI's log).
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=lib.sh
. "$HERE/lib.sh"

CMD="${1:?usage: run_client.sh \"CLIENT CMD\" [SCENARIO...]}"; shift
conf_require
scenarios=("$@")
[ ${#scenarios[@]} -gt 0 ] || scenarios=(initialize tools_call elicitation-sep1034-client-defaults sse-retry)

out="${RESULTS:-$REPO/tests/.results/conformance/client-$(date +%Y%m%d-%H%M%S)-$$}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
trap conf_cleanup EXIT
trap 'exit 130' INT TERM

echo "run_client: $CMD"
passed=0 failed=0
for s in "${scenarios[@]}"; do
  dir="$out/${s//\//_}"
  mkdir -p "$dir"
  cli_rc=0
  SUITE_TIMEOUT="${SUITE_TIMEOUT:-120}" run_conformance "$dir" -- \
    client --command "$CMD" --scenario "$s" --timeout "${CLIENT_TIMEOUT_MS:-30000}" -o "$dir" || cli_rc=$?
  [ "${VERBOSE:-0}" = 1 ] && cat "$dir/cli.log"
  sum_rc=0
  summary="$(python3 "$SUMMARIZE" --strict-warnings --require-checks --cli-status "$cli_rc" \
    --stderr-tail 15 "$dir")" || sum_rc=$?
  # The per-scenario totals line repeats the scenario line.
  printf '%s\n' "$summary" | grep -v '^checks: '
  if [ "$cli_rc" -eq 0 ] && [ "$sum_rc" -eq 0 ]; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
  fi
done
echo "client conformance: $passed passed, $failed failed ($CMD; results in $out)"
[ "$failed" -eq 0 ]

#!/usr/bin/env bash
# The official extensions' scenarios of the conformance suite 0.2.0-alpha.12 (skills, tasks):
#
#   SERVER_CMD='path/to/server --port 3100' run_extensions.sh server http://127.0.0.1:3100/mcp
#   run_extensions.sh client 'path/to/client'
#
# The suite leaves extension scenarios out of `--spec-version` runs ("not on the spec
# timeline": it prints SKIPPED and exits 0), so each is run alone with `--force` and its
# checks summarised with `--require-checks --strict-warnings` (a scenario that checked
# nothing, or warned, fails). Server scenarios run against one process; client scenarios each
# start the client. Prints one line per scenario, then `extensions: N/M <side> scenarios
# passed`; exit 1 unless all passed.
#
# Env: EXT_SERVER_SCENARIOS, EXT_CLIENT_SCENARIOS (space-separated, default: all below),
#      EXT_TASKS=0 (leave the tasks-* server scenarios out: a server without tasks yet),
#      PEERS (.peers), NODE22, CONFORMANCE_ALPHA_JS, SERVER_CMD, SERVER_LOG, READY_TIMEOUT (s,
#      20), SUITE_TIMEOUT (s per scenario, 120), RESULTS (default
#      tests/.results/conformance/ext-<time>), VERBOSE=1 (print the CLI logs).
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=lib.sh
. "$HERE/lib.sh"

SIDE="${1:?usage: run_extensions.sh server URL | client COMMAND}"
TARGET="${2:?usage: run_extensions.sh server URL | client COMMAND}"
# shellcheck disable=SC2034 # read by lib.sh's conf_require and run_conformance
CONFORMANCE_JS="${CONFORMANCE_ALPHA_JS:-$PEERS/conformance-alpha/node_modules/@modelcontextprotocol/conformance/dist/index.js}"
conf_require
SUITE_TIMEOUT="${SUITE_TIMEOUT:-120}"

SERVER_SCENARIOS=(sep-2640-skills-enumeration sep-2640-skills-manifest sep-2640-skills-directory)
TASK_SCENARIOS=(tasks-lifecycle tasks-capability-negotiation tasks-wire-fields tasks-request-state-removal
  tasks-mrtr-input tasks-mrtr-composition tasks-request-headers tasks-dispatch-and-envelope
  tasks-required-task-error tasks-status-notifications)
[ "${EXT_TASKS:-1}" = 1 ] && SERVER_SCENARIOS+=("${TASK_SCENARIOS[@]}")
# Scenarios that check nothing in this release (alpha.12: tasks-status-notifications records one
# SKIPPED check, "pending subscriptions/listen rewrite"): they must not fail, and cannot pass
# --require-checks. Our own suites test what they would.
STUBS=" tasks-status-notifications "
CLIENT_SCENARIOS=(sep-2640-client-no-prefetch sep-2640-client-verify-digest sep-2640-client-verify-size
  sep-2640-client-verify-frontmatter)
# shellcheck disable=SC2206 # word splitting wanted
[ -n "${EXT_SERVER_SCENARIOS:-}" ] && SERVER_SCENARIOS=(${EXT_SERVER_SCENARIOS})
# shellcheck disable=SC2206
[ -n "${EXT_CLIENT_SCENARIOS:-}" ] && CLIENT_SCENARIOS=(${EXT_CLIENT_SCENARIOS})

out="${RESULTS:-$REPO/tests/.results/conformance/ext-$(date +%Y%m%d-%H%M%S)-$$}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"

case "$SIDE" in
  server)
    conf_serve run_extensions "$TARGET" "${SERVER_LOG:-$out/server.log}"
    scenarios=("${SERVER_SCENARIOS[@]}")
    ;;
  client) scenarios=("${CLIENT_SCENARIOS[@]}") ;;
  *) die "run_extensions: the first argument is server or client, not $SIDE" ;;
esac

ok=0 rc=0
for s in "${scenarios[@]}"; do
  dir="$out/$s"
  mkdir -p "$dir"
  cli_rc=0
  if [ "$SIDE" = server ]; then
    run_conformance "$dir" -- server --url "$TARGET" --scenario "$s" --spec-version 2026-07-28 --force \
      -o "$dir" || cli_rc=$?
    status=()
  else
    run_conformance "$dir" -- client --command "$TARGET" --scenario "$s" --spec-version 2026-07-28 --force \
      --timeout 30000 -o "$dir" || cli_rc=$?
    status=(--cli-status "$cli_rc")
  fi
  [ "${VERBOSE:-0}" = 1 ] && cat "$dir/cli.log"
  require=(--require-checks)
  case "$STUBS" in *" $s "*) require=() ;; esac
  if sum="$(python3 "$SUMMARIZE" "${require[@]}" --strict-warnings "${status[@]}" "$dir")"; then
    ok=$((ok + 1))
    echo "  ok    $s: $(echo "$sum" | tail -n 1 | sed 's/^checks: //')"
  else
    rc=1
    echo "  FAIL  $s (exit $cli_rc; $dir/cli.log)"
    echo "$sum" | grep -vE '^  ok ' | sed 's/^/        /'
  fi
  if [ -n "$SERVER_PID" ] && ! kill -0 "$SERVER_PID" 2>/dev/null; then
    echo "run_extensions: the server exited during $s; see ${SERVER_LOG:-$out/server.log}" >&2
    rc=1
    break
  fi
done
echo "extensions: $ok/${#scenarios[@]} $SIDE scenarios passed"
echo "run_extensions: results in $out"
[ "$rc" -eq 0 ] && [ "$ok" -eq "${#scenarios[@]}" ]

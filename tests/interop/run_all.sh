#!/usr/bin/env bash
# The interop matrix (`make test-interop`): our stdio and HTTP servers against raw transcripts,
# the official Python and TypeScript SDK clients and the MCP Inspector CLI; our conformance
# servers against the official Python SDK 2.3.0 and TypeScript SDK v2 clients at 2026-07-28.
#
#   run_all.sh [ROW...]     every row of the table below (default), or those matching a ROW
#                           (a glob on the row's name, e.g. 'echo-node/*' or '*/sse:*')
#   run_all.sh --list       the rows' names, one a line
#
# One row per (server, client) pair, named SERVER/CLIENT. Servers (their command lines, split
# on whitespace, come from the environment, as the Makefile passes them):
#   echo-rust     $ECHO_RUST     [target/release/examples/echo_server]
#   echo-py       $ECHO_PY       [$VENV/bin/python examples/python/echo_server.py]
#   weather-py    $WEATHER_PY    [$VENV/bin/python examples/python/weather_server.py]
#   echo-node     $ECHO_NODE     [node examples/node/echo_server.mjs]
#   weather-node  $WEATHER_NODE  [node examples/node/weather_server.mjs]
#   conf-rust     $CONF_RUST     [target/release/examples/conformance_server]
#   conf-py       $CONF_PY       [$VENV/bin/python examples/python/conformance_server.py]
#   conf-node     $CONF_NODE     [node examples/node/conformance_server.mjs]
# The echo and weather servers serve stdio by default and HTTP with --http {PORT}; the
# conformance servers (conf-*) get --stdio, and --port {PORT} for HTTP.
# Clients (the server over stdio, unless said otherwise):
#   transcript    run_transcript.py --require-schema tests/fixtures/transcripts, on
#                 $PEERS/venv/bin/python: raw JSON-RPC, every message checked against the schema
#   py, ts        py_sdk_client.py, ts_sdk_client.mjs: the official SDKs' echo check
#   py-full,      py_sdk_full.py, ts_sdk_full.mjs: the official SDKs walk the weather server
#   ts-full
#   inspector     inspector_check.sh: the Inspector CLI lists the tools and calls one (echo on
#                 an echo server, forecast on a weather server)
#   py-modern     py_sdk_modern.py, twice (--mode auto, then --mode modern): the official
#                 Python SDK client at 2026-07-28 against a conformance server (server/discover,
#                 tools/list, an input_required elicitation, subscriptions/listen)
#   ts-v2         ts_v2_client.mjs: the official TypeScript SDK v2 client (2.4.0, auto mode)
#                 at 2026-07-28 against a conformance server (an input_required elicitation)
#   ts-tasks      ts_sdk_tasks.mjs: the official TypeScript SDK client (1.32.2) runs a
#                 conformance server's task tools at 2025-11-25 (tasks/get, tasks/result with
#                 input requests, tasks/list, tasks/cancel, notifications/tasks/status)
#   http:C,C...   http_interop.sh --clients "C C...": the server started with --http {PORT}
#                 (--port {PORT} for conf-*), the listed clients (py ts py-full ts-full
#                 inspector py-modern ts-v2 ts-tasks) at its /mcp endpoint
#   sse:C,C...    the same with --sse: the legacy HTTP+SSE transport at /sse
#
# Each row runs from the repository root, stdin from /dev/null, its output (the command
# first) to RESULTS/SERVER_CLIENT.log, bounded by ROW_TIMEOUT. Prints `PASS row` or `FAIL row`
# with the log's path, its command and its last 80 lines (passing transcript steps left out),
# then `interop: N passed, M failed`; exit 1 if M > 0. A row whose server program is missing
# fails, and so does a ROW that matches no row.
#
# Env: ECHO_RUST, ECHO_PY, WEATHER_PY, ECHO_NODE, WEATHER_NODE, CONF_RUST, CONF_PY, CONF_NODE
#      (above), PEERS (.peers), VENV (.venv), PYTHON (python3: runs the Python SDK clients,
#      which re-run themselves on $PEERS/venv), NODE (node), ROW_TIMEOUT (s, per row, 600),
#      RESULTS (default tests/.results/interop/run-<time>), VERBOSE=1 (also print the log of a
#      row that passes).
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=../../scripts/lib.sh
. "$HERE/../../scripts/lib.sh"
VENV="${VENV:-$REPO/.venv}"
PYTHON="${PYTHON:-python3}"
NODE="${NODE:-node}"
ECHO_RUST="${ECHO_RUST:-${HYPERMCP_BUILD:-$REPO/target/release}/examples/echo_server}"
ECHO_PY="${ECHO_PY:-$VENV/bin/python $REPO/examples/python/echo_server.py}"
WEATHER_PY="${WEATHER_PY:-$VENV/bin/python $REPO/examples/python/weather_server.py}"
ECHO_NODE="${ECHO_NODE:-$NODE $REPO/examples/node/echo_server.mjs}"
WEATHER_NODE="${WEATHER_NODE:-$NODE $REPO/examples/node/weather_server.mjs}"
CONF_RUST="${CONF_RUST:-${HYPERMCP_BUILD:-$REPO/target/release}/examples/conformance_server}"
CONF_PY="${CONF_PY:-$VENV/bin/python $REPO/examples/python/conformance_server.py}"
CONF_NODE="${CONF_NODE:-$NODE $REPO/examples/node/conformance_server.mjs}"
export PEERS

# The matrix: "SERVER CLIENT", run in this order.
ROWS=(
  # stdio
  "echo-rust    transcript"
  "echo-py      transcript"
  "echo-rust    py"
  "echo-rust    ts"
  "echo-py      py"
  "echo-py      ts"
  "weather-py   py-full"
  "weather-py   ts-full"
  "echo-rust    inspector"
  "weather-py   inspector"
  "echo-node    transcript"
  "echo-node    py"
  "echo-node    ts"
  "weather-node py-full"
  "weather-node ts-full"
  "echo-node    inspector"
  # over HTTP: Streamable HTTP (http:) and the legacy HTTP+SSE transport (sse:)
  "echo-rust    http:py,ts,inspector"
  "echo-rust    sse:py,ts,inspector"
  "echo-py      http:py,ts,inspector"
  "echo-py      sse:py,ts"
  "weather-py   http:py-full,ts-full"
  "echo-node    http:py,ts,inspector"
  "echo-node    sse:py,ts"
  "weather-node http:py-full,ts-full"
  # the 2026-07-28 revision: the conformance servers, over stdio and Streamable HTTP
  "conf-rust    py-modern"
  "conf-py      py-modern"
  "conf-node    py-modern"
  "conf-rust    ts-v2"
  "conf-py      ts-v2"
  "conf-node    ts-v2"
  "conf-rust    http:py-modern,ts-v2"
  "conf-py      http:py-modern,ts-v2"
  "conf-node    http:py-modern,ts-v2"
  # tasks at 2025-11-25 (the same handlers as the 2026-07-28 extension), over stdio and HTTP
  "conf-rust    ts-tasks"
  "conf-py      ts-tasks"
  "conf-node    ts-tasks"
  "conf-rust    http:ts-tasks"
  "conf-py      http:ts-tasks"
  "conf-node    http:ts-tasks"
)

# server_cmd SERVER: its command line.
server_cmd() {
  case "$1" in
    echo-rust) echo "$ECHO_RUST" ;;
    echo-py) echo "$ECHO_PY" ;;
    weather-py) echo "$WEATHER_PY" ;;
    echo-node) echo "$ECHO_NODE" ;;
    weather-node) echo "$WEATHER_NODE" ;;
    conf-rust) echo "$CONF_RUST" ;;
    conf-py) echo "$CONF_PY" ;;
    conf-node) echo "$CONF_NODE" ;;
    *) return 1 ;;
  esac
}

# row_cmd SERVER CLIENT: sets CMD (an array) to the row's command; else WHY, and returns 1.
row_cmd() {
  local server="$1" client="$2" line srv http
  CMD=() WHY=""
  line="$(server_cmd "$server")" || { WHY="unknown server $server"; return 1; }
  read -r -a srv <<<"$line"
  [ ${#srv[@]} -gt 0 ] || { WHY="empty command for $server"; return 1; }
  # How the server picks its transport: --http {PORT}, else stdio; the conformance servers
  # take --port {PORT}, else need --stdio.
  http=(--http '{PORT}')
  case "$server" in
    conf-*)
      http=(--port '{PORT}')
      case "$client" in
        http:* | sse:*) ;;
        *) srv+=(--stdio) ;;
      esac
      ;;
  esac
  case "$client" in
    transcript) CMD=("$PEERS/venv/bin/python" tests/interop/run_transcript.py --require-schema tests/fixtures/transcripts -- "${srv[@]}") ;;
    py) CMD=("$PYTHON" tests/interop/py_sdk_client.py -- "${srv[@]}") ;;
    ts) CMD=("$NODE" tests/interop/ts_sdk_client.mjs "${srv[@]}") ;;
    py-full) CMD=("$PYTHON" tests/interop/py_sdk_full.py -- "${srv[@]}") ;;
    ts-full) CMD=("$NODE" tests/interop/ts_sdk_full.mjs "${srv[@]}") ;;
    ts-v2) CMD=("$NODE" tests/interop/ts_v2_client.mjs -- "${srv[@]}") ;;
    ts-tasks) CMD=("$NODE" tests/interop/ts_sdk_tasks.mjs -- "${srv[@]}") ;;
    py-modern)
      # Both ways of reaching 2026-07-28: the discover probe, then the pinned version.
      # shellcheck disable=SC2016 # expanded by the inner bash
      CMD=(bash -c 'rc=0; for m in auto modern; do "$0" tests/interop/py_sdk_modern.py --mode "$m" -- "$@" || rc=1; done; exit $rc' "$PYTHON" "${srv[@]}")
      ;;
    inspector)
      case "$server" in
        echo-*) CMD=(bash tests/interop/inspector_check.sh echo '{"text":"hi from the Inspector"}' "hi from the Inspector" -- "${srv[@]}") ;;
        weather-*) CMD=(bash tests/interop/inspector_check.sh forecast '{"city":"paris","days":2}' Paris -- "${srv[@]}") ;;
        *) WHY="no Inspector check for $server"; return 1 ;;
      esac
      ;;
    http:?* | sse:?*)
      line="${client#*:}"
      CMD=(bash tests/interop/http_interop.sh)
      [ "${client%%:*}" = sse ] && CMD+=(--sse)
      CMD+=(--clients "${line//,/ }" -- "${srv[@]}" "${http[@]}")
      ;;
    *) WHY="unknown client $client"; return 1 ;;
  esac
  # The server's program must be there: a path, or a name on PATH.
  if [[ ${srv[0]} == */* ]]; then
    [ -x "${srv[0]}" ] || { WHY="missing ${srv[0]}"; return 1; }
  else
    command -v "${srv[0]}" >/dev/null || { WHY="${srv[0]} not on PATH"; return 1; }
  fi
}

names=()
for r in "${ROWS[@]}"; do
  read -r s c <<<"$r"
  names+=("$s/$c")
done

if [ "${1:-}" = --list ] || [ "${1:-}" = -l ]; then
  printf '%s\n' "${names[@]}"
  exit 0
fi

RESULTS="${RESULTS:-$REPO/tests/.results/interop/run-$(date +%Y%m%d-%H%M%S)}"
mkdir -p "$RESULTS"
cd "$REPO" || exit 1

passed=0 failed=0
# A ROW that matches nothing fails (a typo must not pass as "nothing to do").
for pat in "$@"; do
  hit=0
  for n in "${names[@]}"; do
    # shellcheck disable=SC2053 # $pat is a glob
    [[ $n == $pat ]] && hit=1
  done
  if [ "$hit" = 0 ]; then
    echo "FAIL $pat: no such row (run_all.sh --list)"
    failed=$((failed + 1))
  fi
done

for n in "${names[@]}"; do
  if [ $# -gt 0 ]; then
    want=0
    for pat in "$@"; do
      # shellcheck disable=SC2053 # $pat is a glob
      [[ $n == $pat ]] && want=1
    done
    [ "$want" = 1 ] || continue
  fi
  server="${n%%/*}" client="${n#*/}"
  log="$RESULTS/${server}_${client//[:,]/-}.log"
  if ! row_cmd "$server" "$client"; then
    echo "FAIL $n: $WHY"
    failed=$((failed + 1))
    continue
  fi
  rc=0
  start=$(date +%s)
  echo "+$(printf ' %q' "${CMD[@]}")" >"$log"
  timeout --kill-after=10 "${ROW_TIMEOUT:-600}" "${CMD[@]}" >>"$log" 2>&1 </dev/null || rc=$?
  [ "$rc" -ne 124 ] || echo "run_all: the row exceeded ${ROW_TIMEOUT:-600}s (ROW_TIMEOUT)" >>"$log"
  took=$(( $(date +%s) - start ))
  # The last line the row printed (the clients end with their outcome), without its details.
  summary="$(grep -v '^[[:space:]]*$' "$log" | tail -n 1 | sed 's/ (.*//' | cut -c1-100)"
  if [ "$rc" -eq 0 ]; then
    echo "PASS $n (${summary:-ok}; ${took}s)"
    [ "${VERBOSE:-0}" = 1 ] && sed 's/^/    /' "$log"
    passed=$((passed + 1))
  else
    echo "FAIL $n (exit $rc; ${took}s; log: $log)"
    # The command, then the end of what it printed (the transcript steps that passed left out).
    { head -n 1 "$log"; tail -n +2 "$log" | grep -v '^  ok ' | tail -n 80; } | sed 's/^/    /'
    failed=$((failed + 1))
  fi
done
echo "interop: $passed passed, $failed failed"
[ "$failed" -eq 0 ]

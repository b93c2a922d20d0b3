#!/usr/bin/env bash
# The official SDK clients against an HTTP server: start the server on a free port of
# 127.0.0.1, wait until it answers, run each client with its URL, stop the server.
#
#   http_interop.sh [--sse] [--path P] [--clients "py ts ..."] -- CMD [ARGS...]
#
# {PORT} in CMD's words is replaced by the port, e.g.
#   http_interop.sh -- target/release/examples/echo_server --http {PORT}
#   http_interop.sh --sse -- .peers/venv/bin/python tests/interop/peers/py_echo_server.py --sse {PORT}
#
# Streamable HTTP by default: URL http://127.0.0.1:PORT/mcp, clients get --url URL. With
# --sse (the legacy HTTP+SSE transport): URL http://127.0.0.1:PORT/sse, clients get --sse-url.
# --path overrides the path. Clients (default "py ts"): py = py_sdk_client.py, ts =
# ts_sdk_client.mjs (the echo check), py-full = py_sdk_full.py, ts-full = ts_sdk_full.mjs (the
# weather walk), inspector = inspector_check.sh (the Inspector CLI lists the tools and calls
# echo; it picks the transport from the path: /mcp or /sse), py-modern = py_sdk_modern.py
# --mode auto, then --mode modern (a conformance server at 2026-07-28; each run counts as a
# client; Streamable HTTP only), ts-v2 = ts_v2_client.mjs (the official TypeScript SDK v2
# client at 2026-07-28, auto mode), ts-tasks = ts_sdk_tasks.mjs (the official TypeScript SDK
# client's tasks at 2025-11-25 against a conformance server). Each client run is bounded
# (--timeout 30); the server start by READY_TIMEOUT (s, 20). Prints each client's outcome and
# ends with
# `http_interop: N passed, M failed`; exit 1 if any client failed or the server did not start.
# The server's output goes to a temp file, printed when something fails.
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=../../scripts/lib.sh
. "$HERE/../../scripts/lib.sh"

usage() {
  echo "usage: http_interop.sh [--sse] [--path P] [--clients \"py ts py-full ts-full inspector py-modern ts-v2 ts-tasks\"] -- CMD [ARGS...] (with {PORT})" >&2
  exit 2
}
sse=0 path="" clients="py ts"
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
  case "$1" in
    --sse) sse=1 ;;
    --path) path="${2?}"; shift ;;
    --clients) clients="${2?}"; shift ;;
    *) usage ;;
  esac
  shift
done
[ "${1:-}" = "--" ] && shift
[ $# -gt 0 ] || usage
[ -n "$path" ] || { [ "$sse" = 1 ] && path=/sse || path=/mcp; }
flag=--url
[ "$sse" = 1 ] && flag=--sse-url

port="$(free_port)"
words=()
for w in "$@"; do words+=("${w//\{PORT\}/$port}"); done
cmd="exec$(printf ' %q' "${words[@]}")"
url="http://127.0.0.1:$port$path"
log="$(mktemp)"
SERVER_PID=""
cleanup() { stop_group "$SERVER_PID"; rm -f "$log"; }
trap cleanup EXIT
trap 'exit 130' INT TERM

start_group "$log" "$cmd"
SERVER_PID=$GROUP_PID
if ! wait_http "$url" "${READY_TIMEOUT:-20}" "$SERVER_PID"; then
  echo "http_interop: FAIL: the server did not answer at $url within ${READY_TIMEOUT:-20}s (or exited): ${words[*]}" >&2
  sed 's/^/  | /' "$log" >&2
  exit 1
fi

passed=0 failed=0
for c in $clients; do
  case "$c" in
    py) run=(python3 "$HERE/py_sdk_client.py") ;;
    ts) run=(node "$HERE/ts_sdk_client.mjs") ;;
    py-full) run=(python3 "$HERE/py_sdk_full.py") ;;
    ts-full) run=(node "$HERE/ts_sdk_full.mjs") ;;
    ts-v2) run=(node "$HERE/ts_v2_client.mjs") ;;
    ts-tasks) run=(node "$HERE/ts_sdk_tasks.mjs") ;;
    inspector)
      if PEERS="$PEERS" bash "$HERE/inspector_check.sh" echo '{"text":"hello inspector"}' "hello inspector" -- "$url"; then
        passed=$((passed + 1))
      else
        failed=$((failed + 1))
      fi
      continue
      ;;
    py-modern)
      for mode in auto modern; do
        if PEERS="$PEERS" python3 "$HERE/py_sdk_modern.py" --timeout 30 --mode "$mode" "$flag" "$url"; then
          passed=$((passed + 1))
        else
          failed=$((failed + 1))
        fi
      done
      continue
      ;;
    *) echo "http_interop: unknown client $c" >&2; failed=$((failed + 1)); continue ;;
  esac
  if PEERS="$PEERS" "${run[@]}" --timeout 30 "$flag" "$url"; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
  fi
done
if ! kill -0 "$SERVER_PID" 2>/dev/null; then
  echo "http_interop: FAIL: the server exited during the run" >&2
  failed=$((failed + 1))
fi
if [ "$failed" -gt 0 ]; then
  echo "----- server output ($*) -----" >&2
  sed 's/^/  | /' "$log" >&2
fi
echo "http_interop: $passed passed, $failed failed ($url; ${words[*]})"
[ "$failed" -eq 0 ]

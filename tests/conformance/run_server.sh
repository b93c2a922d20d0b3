#!/usr/bin/env bash
# Run the official MCP conformance *server* scenarios against a Streamable HTTP server.
#
#   run_server.sh URL [conformance server options...]
#       test an already-running server, e.g. run_server.sh http://127.0.0.1:3100/mcp
#   SERVER_CMD='path/to/server --port 3100' run_server.sh http://127.0.0.1:3100/mcp
#       start the server first (its own process group, output in SERVER_LOG), wait until it
#       answers HTTP (READY_TIMEOUT), run the suite, then stop the whole group.
#
# Without options it runs `server --url URL --suite all -o DIR` (all 32 scenarios, pending ones
# included); pass `--scenario NAME` (or `--suite active`) to narrow it. The results go to DIR
# (RESULTS, default tests/.results/conformance/server-<time>): one folder per scenario with
# checks.json, and cli.log with the CLI's own output.
#
# Prints one line per scenario, every FAILURE and WARNING check (id + errorMessage) and a
# `checks: N passed, M failed, W warnings` line. Exit 1 on any FAILURE (with
# STRICT_WARNINGS=1 also on any WARNING), when the CLI fails, or when the server does not
# start; 0 otherwise.
#
# Env: PEERS (.peers), NODE22, CONFORMANCE_JS, SERVER_CMD, SERVER_LOG (DIR/server.log),
#      READY_TIMEOUT (s, 20), SUITE_TIMEOUT (s, 600), RESULTS, STRICT_WARNINGS, VERBOSE=1
#      (also print the CLI's log).
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=lib.sh
. "$HERE/lib.sh"

URL="${1:?usage: run_server.sh URL [conformance server options...]}"; shift
conf_require

# Our defaults, unless the caller chose.
args=("$@")
have_sel=0 out=""
for ((i = 0; i < ${#args[@]}; i++)); do
  case "${args[$i]}" in
    --suite | --scenario | --suite=* | --scenario=*) have_sel=1 ;;
    -o | --output-dir) out="${args[$((i + 1))]:-}" ;;
    --output-dir=*) out="${args[$i]#--output-dir=}" ;;
  esac
done
[ "$have_sel" = 1 ] || args+=(--suite all)
if [ -z "$out" ]; then
  out="${RESULTS:-$REPO/tests/.results/conformance/server-$(date +%Y%m%d-%H%M%S)-$$}"
  args+=(-o "$out")
fi
mkdir -p "$out"
out="$(cd "$out" && pwd)"

conf_serve run_server "$URL" "${SERVER_LOG:-$out/server.log}"

echo "run_server: conformance server --url $URL ${args[*]}"
cli_rc=0
run_conformance "$out" -- server --url "$URL" "${args[@]}" || cli_rc=$?
[ "${VERBOSE:-0}" = 1 ] && cat "$out/cli.log"

strict=()
[ "${STRICT_WARNINGS:-0}" = 1 ] && strict=(--strict-warnings)
sum_rc=0
python3 "$SUMMARIZE" "${strict[@]}" "$out" || sum_rc=$?

if [ -n "$SERVER_PID" ] && ! kill -0 "$SERVER_PID" 2>/dev/null; then
  echo "run_server: the server exited during the run; see ${SERVER_LOG:-$out/server.log}" >&2
  sum_rc=1
fi
if [ "$cli_rc" -ne 0 ] && [ "$sum_rc" -eq 0 ]; then
  echo "run_server: the conformance CLI exited with $cli_rc; last lines of $out/cli.log:" >&2
  tail -n 30 "$out/cli.log" >&2
fi
echo "run_server: results in $out"
[ "$cli_rc" -eq 0 ] && [ "$sum_rc" -eq 0 ]

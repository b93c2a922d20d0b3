#!/usr/bin/env bash
# The tier legs of the official conformance suite 0.2.0-alpha.12 against ONE server process:
#
#   SERVER_CMD='path/to/server --port 3100' run_tier.sh http://127.0.0.1:3100/mcp
#   run_tier.sh http://127.0.0.1:3100/mcp        (an already-running server)
#
# Starts the server (its own process group, output in SERVER_LOG), then runs, against that same
# process and URL, `server --requirements 2025-11-25` (30 scored scenarios) and
# `server --requirements 2026-07-28` (37 scored scenarios): the Tier-1 bar is all 67 passing on
# one endpoint serving both eras. Unscored scenarios (the extensions' and the pending ones) are
# run and reported, never failing the run. Prints each leg's summary (summarize.py --unscored),
# then `tier: N/67 scored scenarios passed`. Exit 1 unless every scored scenario of both legs
# passed and each leg ran its full scored set.
#
# Env: PEERS (.peers), NODE22, CONFORMANCE_ALPHA_JS (the 0.2.0-alpha.12 CLI), SERVER_CMD,
#      SERVER_LOG (RESULTS/server.log), READY_TIMEOUT (s, 20), SUITE_TIMEOUT (s per leg, 600),
#      RESULTS (default tests/.results/conformance/tier-<time>), VERBOSE=1 (print the CLI logs).
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=lib.sh
. "$HERE/lib.sh"

URL="${1:?usage: run_tier.sh URL}"
# shellcheck disable=SC2034 # read by lib.sh's conf_require and run_conformance
CONFORMANCE_JS="${CONFORMANCE_ALPHA_JS:-$PEERS/conformance-alpha/node_modules/@modelcontextprotocol/conformance/dist/index.js}"
conf_require

out="${RESULTS:-$REPO/tests/.results/conformance/tier-$(date +%Y%m%d-%H%M%S)-$$}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"

conf_serve run_tier "$URL" "${SERVER_LOG:-$out/server.log}"

ok=0 total=0 rc=0
for leg in "2025-11-25:30" "2026-07-28:37"; do
  rev="${leg%%:*}" want="${leg#*:}"
  dir="$out/$rev"
  mkdir -p "$dir"
  echo "run_tier: conformance server --url $URL --requirements $rev"
  cli_rc=0
  run_conformance "$dir" -- server --url "$URL" --requirements "$rev" -o "$dir" || cli_rc=$?
  [ "${VERBOSE:-0}" = 1 ] && cat "$dir/cli.log"
  sum="$(python3 "$SUMMARIZE" --unscored --expect-scored "$want" "$dir")" || rc=1
  echo "$sum" | sed "s/^/  [$rev] /"
  got="$(echo "$sum" | sed -n 's/^scored: \([0-9]*\)\/.*/\1/p')"
  ok=$((ok + ${got:-0})) total=$((total + want))
  # The CLI exits non-zero when an unscored scenario fails too: its status is not the verdict,
  # but a CLI that crashed before its summary is.
  if ! grep -q '^Total: ' "$dir/cli.log"; then
    echo "run_tier: the $rev leg ended without a summary (exit $cli_rc); last lines of $dir/cli.log:" >&2
    tail -n 20 "$dir/cli.log" >&2
    rc=1
  fi
  if [ -n "$SERVER_PID" ] && ! kill -0 "$SERVER_PID" 2>/dev/null; then
    echo "run_tier: the server exited during the $rev leg; see ${SERVER_LOG:-$out/server.log}" >&2
    rc=1
    break
  fi
done
echo "tier: $ok/$total scored scenarios passed (one process, both eras)"
echo "run_tier: results in $out"
[ "$rc" -eq 0 ] && [ "$ok" -eq "$total" ]

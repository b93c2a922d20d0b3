#!/usr/bin/env bash
# The client tier legs of the official conformance suite 0.2.0-alpha.12 against a client:
#
#   run_client_tier.sh "CLIENT CMD"
#
# Runs `client --command CMD --requirements 2025-11-25` and `--requirements 2026-07-28`
# (every scenario of a leg at once; the CLI appends each mock server's URL to CMD and sets
# MCP_CONFORMANCE_SCENARIO, MCP_CONFORMANCE_PROTOCOL_VERSION and, for the scenarios with
# credentials, MCP_CONFORMANCE_CONTEXT). Every scored scenario (18 and 32, the authorization
# ones included: the Tier-1 client bar) must pass, and so must the six authorization
# extension scenarios each leg runs unscored (client credentials with a secret and with
# private_key_jwt, enterprise-managed authorization, DPoP with and without nonces, workload
# identity) and the seventh, json-schema-2020-12-preservation (added after the release:
# the client hands a listed inputSchema back unchanged, every JSON Schema 2020-12 keyword
# kept). Then the two 2025-03-26 back-compat scenarios (auth/2025-03-26-oauth-metadata-backcompat and
# auth/2025-03-26-oauth-endpoint-fallback, `--spec-version 2025-03-26`), which must pass
# too. Prints each leg's summary, then `client tier: N/50 scored scenarios passed; auth
# extensions and schema preservation: E/14; 2025-03-26 back-compat: M/2`.
#
# Env: PEERS (.peers), NODE22, CONFORMANCE_ALPHA_JS, SUITE_TIMEOUT (s per leg, 600),
#      CLIENT_TIMEOUT_MS (the CLI's per-scenario client timeout, 30000), RESULTS (default
#      tests/.results/conformance/client-tier-<time>), VERBOSE=1.
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=lib.sh
. "$HERE/lib.sh"

CMD="${1:?usage: run_client_tier.sh \"CLIENT CMD\"}"
# shellcheck disable=SC2034 # read by lib.sh's conf_require and run_conformance
CONFORMANCE_JS="${CONFORMANCE_ALPHA_JS:-$PEERS/conformance-alpha/node_modules/@modelcontextprotocol/conformance/dist/index.js}"
conf_require

out="${RESULTS:-$REPO/tests/.results/conformance/client-tier-$(date +%Y%m%d-%H%M%S)-$$}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
trap conf_cleanup EXIT
trap 'exit 130' INT TERM

echo "run_client_tier: $CMD"
ok=0 total=0 rc=0
for leg in "2025-11-25:18" "2026-07-28:32"; do
  rev="${leg%%:*}" want="${leg#*:}"
  dir="$out/$rev"
  mkdir -p "$dir"
  cli_rc=0
  run_conformance "$dir" -- client --command "$CMD" --requirements "$rev" \
    --timeout "${CLIENT_TIMEOUT_MS:-30000}" -o "$dir" || cli_rc=$?
  [ "${VERBOSE:-0}" = 1 ] && cat "$dir/cli.log"
  sum="$(python3 "$SUMMARIZE" --unscored --require-unscored auth/ --require-unscored json-schema-2020-12-preservation --expect-scored "$want" --stderr-tail 15 "$dir")" \
    || rc=1
  echo "$sum" | sed "s/^/  [$rev] /"
  got="$(echo "$sum" | sed -n 's/^scored: \([0-9]*\)\/.*/\1/p')"
  ok=$((ok + ${got:-0})) total=$((total + want))
  ext="$(echo "$sum" | sed -n 's/^required unscored: \([0-9]*\)\/\([0-9]*\).*/\1 \2/p')"
  [ -n "$ext" ] || ext="0 7"
  ext_ok=$((${ext_ok:-0} + ${ext%% *})) ext_total=$((${ext_total:-0} + ${ext##* }))
  if ! grep -q '^Total: ' "$dir/cli.log"; then
    echo "run_client_tier: the $rev leg ended without a summary (exit $cli_rc); last lines of $dir/cli.log:" >&2
    tail -n 20 "$dir/cli.log" >&2
    rc=1
  fi
done
back=0
for s in auth/2025-03-26-oauth-metadata-backcompat auth/2025-03-26-oauth-endpoint-fallback; do
  dir="$out/2025-03-26/${s//\//_}"
  mkdir -p "$dir"
  cli_rc=0
  SUITE_TIMEOUT=120 run_conformance "$dir" -- client --command "$CMD" --scenario "$s" \
    --spec-version 2025-03-26 --timeout "${CLIENT_TIMEOUT_MS:-30000}" -o "$dir" || cli_rc=$?
  sum_rc=0
  sum="$(python3 "$SUMMARIZE" --strict-warnings --require-checks --cli-status "$cli_rc" --stderr-tail 15 "$dir")" \
    || sum_rc=$?
  printf '%s\n' "$sum" | grep -v '^checks: ' | sed "s/^/  [2025-03-26] /"
  if [ "$cli_rc" -eq 0 ] && [ "$sum_rc" -eq 0 ]; then back=$((back + 1)); else rc=1; fi
done
echo "client tier: $ok/$total scored scenarios passed; auth extensions and schema preservation: ${ext_ok:-0}/${ext_total:-0}; 2025-03-26 back-compat: $back/2"
echo "run_client_tier: results in $out"
[ "$rc" -eq 0 ] && [ "$ok" -eq "$total" ]

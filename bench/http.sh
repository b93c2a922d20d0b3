#!/usr/bin/env bash
# HTTP benchmark: MCP echo servers over Streamable HTTP, measured with
# bench/loadgen's `httpload` (HTTP/1.1 keep-alive, event-driven: $THREADS threads
# for many connections, one request at a time per connection). For each system:
#   1. start it on a free port of 127.0.0.1 (own process group), wait until it
#      answers an MCP handshake;
#   2. for each connection count in $CONNECTIONS: `httpload --runs $RUNS` of
#      $DURATION s each (medians), plus the server's CPU time per request
#      (utime + stime of its process group, /proc/<pid>/stat), httpload's own,
#      and the CPU busy outside both ("other CPUs": /proc/stat minus the two;
#      on a shared machine, neighbours' load); the 1-connection runs pin the
#      server and httpload to CPU $PIN_SEQ (as bench/run.py's sequential stdio
#      runs do);
#   3. stop it; unless its memory command is "-", start that (a stateful server)
#      afresh, open 200 sessions (warm-up), read VmRSS (/proc/<pid>/status, summed
#      over the group), open 2 x $SESSIONS idle sessions (initialize +
#      notifications/initialized each, nothing else) and read it again:
#      bytes per idle session = RSS growth / (2 x $SESSIONS).
# Prints markdown tables (load, memory, targets) on stdout, progress and notes on
# stderr, and writes bench/results/http-<time>.json, .jsonl (the raw httpload
# lines) and .md (the tables); the last stderr line is
# `results: JSON (raw: JSONL; table: MD); took N s`, which bench/run.py reads.
#
# Usage: bench/http.sh            (from anywhere; ~20 s per system with the defaults,
#                                  up to twice that on a busy machine)
# `make bench` runs it through bench/run.py, which passes SYSTEMS (each of its servers
# as "label=CMD --http {PORT}" and, where it has that mode, as "label-stateless=CMD
# --http {PORT} --stateless-json|-"), BUILD=0, DURATION, RUNS, SESSIONS and PIN_SEQ from
# its options, and TARGETS= and MEM_TARGET_SYSTEMS= empty: bench/run.py checks the
# targets itself, so this script checks none (the defaults below apply only when the
# variables are not set at all).
#
# Systems: "label=LOAD_CMD" or "label=LOAD_CMD|MEM_CMD", {PORT} in the commands
# replaced by the port; MEM_CMD defaults to LOAD_CMD, "-" skips the memory
# measurement (stateless servers keep no sessions); a label ending in "-modern" is
# measured at the 2026-07-28 revision (httpload --modern: no handshake, per-request
# _meta and headers). Commands are split on
# whitespace (no quoting). Built in: rust (default mode: sessions, JSON answers
# for fast calls) and rust-stateless (--stateless --json).
#
# Knobs (environment variables):
#   ECHO_RUST      Rust echo server binary  [${CARGO_TARGET_DIR:-target}/release/examples/echo_server]
#   CARGO_TARGET_DIR  where cargo builds: httpload is ${CARGO_TARGET_DIR:-target}/release/httpload
#   HYPERMCP_BUILD    the directory of the binaries instead (make sets it: target/TRIPLE/PROFILE)
#   SYSTEMS        the systems to measure, replacing the two built in (entries as in
#                  EXTRA_SYSTEMS)
#   EXTRA_SYSTEMS  more systems, one entry per line or separated by ';'
#   CONNECTIONS    connection counts                              ["1 50"]
#   DURATION RUNS WARMUP                 seconds per run, runs, warm-up calls [2 3 1000]
#   OTHER_MAX RETRIES  a phase (the runs at one connection count) during which more than
#                  OTHER_MAX CPUs were busy outside the server and httpload (a shared
#                  machine) is measured again, up to RETRIES times; the attempt
#                  with the least foreign load is kept                     [0.3 1]
#   CALLS          call cap per run (the duration normally ends a run) [10000000]
#   SESSIONS       idle sessions per memory batch (two batches)    [2000]
#   SESSION_CONNS  connections used to open them                   [4]
#   THREADS        httpload event-loop threads for more than one connection (one
#                  thread stalls every connection whenever a neighbour takes its CPU)   [2]
#   PIN_SEQ        CPU list for the 1-connection runs (server and httpload);
#                  empty: no pinning                               [0]
#   TIMEOUT        httpload socket timeout (s)                     [10]
#   READY_TIMEOUT  seconds a server gets to answer                 [20]
#   TARGETS        throughput targets, "ours/peer[,peer...]>=ratio" words (system labels),
#                  checked at the last connection count of CONNECTIONS against the fastest
#                  listed peer that was measured (n/a if none, or if ours was not); at the
#                  other counts the ratio is shown without a verdict. The defaults name the
#                  labels python, node and official-* (none of them built in)
#                  ["python/official-python-stateless,official-python-stateful>=10
#                    node/official-typescript-stateful,official-typescript-stateless>=5"]
#   MEM_TARGET_BYTES  bytes per idle session, and the systems it applies to (those
#   MEM_TARGET_SYSTEMS  measured)                  [16384; "rust python node"]
#   BUILD          0 skips the cargo build (loadgen and the hypermcp examples) [1]
#
# A system whose binary is missing, that does not start or does not answer is
# skipped with a note. Exits 1 if an httpload phase failed (httpload exits 1 on any
# failed call, handshake or connection), a memory measurement failed (a batch of
# sessions failed, or not every session got a session id) or the JSON document does
# not parse.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
# die, free_port, start_group, stop_group
# shellcheck source=../scripts/lib.sh
. scripts/lib.sh
# note, trim, field, fmt0, fmt1, group_pids, cpu_ticks
# shellcheck source=lib.sh
. bench/lib.sh

CONNECTIONS=${CONNECTIONS:-"1 50"}
DURATION=${DURATION:-2}
RUNS=${RUNS:-3}
WARMUP=${WARMUP:-1000}
CALLS=${CALLS:-10000000}
OTHER_MAX=${OTHER_MAX:-0.3}
RETRIES=${RETRIES:-1}
SESSIONS=${SESSIONS:-2000}
SESSION_CONNS=${SESSION_CONNS:-4}
PIN_SEQ=${PIN_SEQ-0}
THREADS=${THREADS:-2}
TIMEOUT=${TIMEOUT:-10}
READY_TIMEOUT=${READY_TIMEOUT:-20}
TARGETS=${TARGETS-"python/official-python-stateless,official-python-stateful>=10 node/official-typescript-stateful,official-typescript-stateless>=5"}
MEM_TARGET_BYTES=${MEM_TARGET_BYTES:-16384}
MEM_TARGET_SYSTEMS=${MEM_TARGET_SYSTEMS-"rust python node"}
ECHO_RUST=${ECHO_RUST:-${HYPERMCP_BUILD:-${CARGO_TARGET_DIR:-target}/release}/examples/echo_server}
EXTRA_SYSTEMS=${EXTRA_SYSTEMS:-}
BUILD=${BUILD:-1}
HTTPLOAD=${HYPERMCP_BUILD:-${CARGO_TARGET_DIR:-target}/release}/httpload
CLK_TCK=$(getconf CLK_TCK)
ALL_CPUS=0-$(($(nproc) - 1))


for tool in setsid pgrep python3; do
  command -v "$tool" >/dev/null || die "$tool not found"
done
if [[ -n $PIN_SEQ ]] && ! command -v taskset >/dev/null; then
  note "taskset not found: no pinning"
  PIN_SEQ=
fi

if [[ $BUILD != 0 ]]; then
  cargo build --release -p hypermcp-loadgen --bins
  if ! cargo build --release -p hypermcp-examples --examples; then
    note "building the hypermcp examples failed (example binaries may be missing or stale)"
  fi
fi
[[ -x $HTTPLOAD ]] || die "$HTTPLOAD not found (build it: cargo build --release -p hypermcp-loadgen)"

if [[ -n ${SYSTEMS:-} ]]; then
  systems=()
  EXTRA_SYSTEMS="$SYSTEMS${EXTRA_SYSTEMS:+;$EXTRA_SYSTEMS}"
else
  systems=("rust=$ECHO_RUST --http {PORT}" "rust-stateless=$ECHO_RUST --http {PORT} --stateless --json|-"
    "rust-modern=$ECHO_RUST --http {PORT}|-")
fi
if [[ -n $EXTRA_SYSTEMS ]]; then
  while IFS= read -r entry; do
    entry=${entry#"${entry%%[![:space:]]*}"}
    [[ -n $entry ]] && systems+=("$entry")
  done < <(tr ';' '\n' <<<"$EXTRA_SYSTEMS")
fi
read -r -a conn_counts <<<"$CONNECTIONS"
top_conns=${conn_counts[-1]}

mkdir -p bench/results
stamp=$(date -u +%Y%m%dT%H%M%SZ)
jsonl=bench/results/http-$stamp.jsonl
json_out=bench/results/http-$stamp.json
table=bench/results/http-$stamp.md
: >"$jsonl"

# --- helpers -----------------------------------------------------------------

json_str() { local s=${1//\\/\\\\}; s=${s//\"/\\\"}; printf '"%s"' "$s"; }
num_or_null() { if [[ -z $1 || $1 == - ]]; then printf null; else printf '%s' "$1"; fi; }
cell() { if [[ -z $1 || $1 == null ]]; then echo "-"; else echo "$1"; fi; }

SERVER_PID="" SERVER_LOG="" PORT="" LOAD_FLAGS=()

stop_server() {
  stop_group "$SERVER_PID"
  SERVER_PID=""
}

cleanup() {
  stop_server
  [[ -n $SERVER_LOG ]] && rm -f "$SERVER_LOG"
  return 0
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# start_server LABEL CMD: starts CMD on a free port (another one if it exits
# saying its port is in use; three tries) and waits until it completes an MCP
# handshake. Sets SERVER_PID (= its process group) and PORT; returns 1 (with a
# note) if it does not come up.
start_server() {
  local label=$1 cmd=$2 w words args deadline
  read -r -a words <<<"$cmd"
  [[ -n $SERVER_LOG ]] || SERVER_LOG=$(mktemp)
  for _ in 1 2 3; do
    PORT=$(free_port)
    args=()
    for w in "${words[@]}"; do args+=("${w//\{PORT\}/$PORT}"); done
    # Its own process group, whose id is the server's pid (bash execs it).
    start_group "$SERVER_LOG" "exec$(printf ' %q' "${args[@]}")"
    SERVER_PID=$GROUP_PID
    deadline=$((SECONDS + READY_TIMEOUT))
    while ((SECONDS < deadline)); do
      if ! kill -0 "$SERVER_PID" 2>/dev/null; then
        break
      fi
      if "$HTTPLOAD" --url "http://127.0.0.1:$PORT/mcp" --sessions 1 --idle-only --timeout 2 >/dev/null 2>&1; then
        return 0
      fi
      sleep 0.2
    done
    if kill -0 "$SERVER_PID" 2>/dev/null; then
      note "$label: no MCP answer at http://127.0.0.1:$PORT/mcp within ${READY_TIMEOUT}s: ${args[*]}"
      "$HTTPLOAD" --url "http://127.0.0.1:$PORT/mcp" --sessions 1 --idle-only --timeout 2 2>&1 | sed 's/^/    /' | head -n 5 >&2 || true
      stop_server
      return 1
    fi
    wait "$SERVER_PID" 2>/dev/null || true
    SERVER_PID=""
    if ! grep -qi 'in use' "$SERVER_LOG"; then
      note "$label: exited before answering: ${args[*]}"
      sed 's/^/    | /' "$SERVER_LOG" | tail -n 8 >&2
      return 1
    fi
  done
  note "$label: port in use three times in a row; skipped"
  return 1
}

# Sum of a per-process number over the server's process group.
rss_kb() {
  local p total=0 v
  for p in $(group_pids); do
    v=$(awk '/^VmRSS:/ { print $2 }' "/proc/$p/status" 2>/dev/null || true)
    total=$((total + ${v:-0}))
  done
  echo "$total"
}
# Busy CPU ticks of the whole machine (user, nice, system, irq, softirq, steal).
machine_ticks() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9; exit }' /proc/stat; }
pin_group() {
  local p
  for p in $(group_pids); do taskset -a -p -c "$1" "$p" >/dev/null 2>&1 || true; done
}

# measure_phase URL CONNECTIONS: one httpload invocation (--runs $RUNS) against the
# running server. Sets PH_OUT (its JSON lines), PH_LAST (the last one: the median of
# the runs, or the one run when RUNS=1), PH_RC, PH_ERR (its stderr), PH_CPU (server CPU
# µs per HTTP request, over all the runs) and PH_OTHER (CPUs busy on the machine
# outside the server and httpload: other processes, interrupts).
measure_phase() {
  local url=$1 c=$2 pin=() errlog t0 t1 m0 m1 w0 w1 requests
  if [[ $c == 1 && -n $PIN_SEQ ]]; then
    pin_group "$PIN_SEQ"
    pin=(taskset -c "$PIN_SEQ")
  fi
  errlog=$(mktemp)
  PH_RC=0
  t0=$(cpu_ticks) m0=$(machine_ticks) w0=$EPOCHREALTIME
  local threads=1
  [[ $c -gt 1 ]] && threads=$THREADS
  PH_OUT=$("${pin[@]}" "$HTTPLOAD" --json --url "$url" --connections "$c" --threads "$threads" --calls "$CALLS" --duration "$DURATION" \
    --warmup "$WARMUP" --runs "$RUNS" --timeout "$TIMEOUT" "${LOAD_FLAGS[@]}" 2>"$errlog") || PH_RC=$?
  t1=$(cpu_ticks) m1=$(machine_ticks) w1=$EPOCHREALTIME
  [[ ${#pin[@]} -gt 0 ]] && pin_group "$ALL_CPUS"
  PH_ERR=$(cat "$errlog")
  rm -f "$errlog"
  PH_LAST=$(tail -n 1 <<<"$PH_OUT")
  PH_CPU="" PH_OTHER=""
  requests=$(field requests "$PH_LAST")
  if [[ -n $requests && $requests != 0 ]]; then
    PH_CPU=$(awk -v t=$((t1 - t0)) -v hz="$CLK_TCK" -v n="$requests" 'BEGIN { printf "%.1f", t / hz * 1e6 / n }')
    PH_OTHER=$(awk -v m=$((m1 - m0)) -v t=$((t1 - t0)) -v hz="$CLK_TCK" -v n="$requests" \
      -v cl="$(field client_cpu_us "$PH_LAST")" -v w0="$w0" -v w1="$w1" \
      'BEGIN { o = (m - t) / hz - cl * n / 1e6; if (o < 0) o = 0; printf "%.2f", o / (w1 - w0) }')
  fi
  return 0
}

# --- measurements --------------------------------------------------------------

declare -A result cpu_us other mem_bytes mem_rss skipped
# The load generator shares the machine with the servers: anything else running skews
# the figures (the runs with more than one connection use every core).
loadavg=$(cut -d' ' -f1-3 /proc/loadavg)
m0=$(machine_ticks)
sleep 1
busy_before=$(awk -v d=$(($(machine_ticks) - m0)) -v hz="$CLK_TCK" 'BEGIN { printf "%.2f", d / hz }')
if awk -v b="$busy_before" 'BEGIN { exit !(b > 0.25) }'; then
  note "the machine is busy ($busy_before CPUs in use before the start): the figures may be low and noisy"
fi
failed=0
start=$SECONDS
labels=()

for sys in "${systems[@]}"; do
  label=$(trim "${sys%%=*}")
  rest=${sys#*=}
  if [[ $rest == *'|'* ]]; then
    load_cmd=$(trim "${rest%%|*}")
    mem_cmd=$(trim "${rest#*|}")
  else
    load_cmd=$(trim "$rest")
    mem_cmd=$load_cmd
  fi
  labels+=("$label")
  read -r -a words <<<"$load_cmd"
  if [[ ${#words[@]} -eq 0 ]]; then
    skipped[$label]="empty command"
    note "$label: empty command; skipped"
    continue
  fi
  bin=${words[0]}
  if [[ $bin == */* ]]; then
    [[ -x $bin ]] || { skipped[$label]="$bin not found"; note "$label: $bin not found; skipped"; continue; }
  else
    command -v "$bin" >/dev/null || { skipped[$label]="$bin not on PATH"; note "$label: $bin not on PATH; skipped"; continue; }
  fi

  if ! start_server "$label" "$load_cmd"; then
    skipped[$label]="did not start or answer: $load_cmd"
    continue
  fi
  url="http://127.0.0.1:$PORT/mcp"
  # A label ending in -modern is measured at the 2026-07-28 revision (httpload --modern).
  LOAD_FLAGS=()
  [[ $label == *-modern ]] && LOAD_FLAGS=(--modern)
  for c in "${conn_counts[@]}"; do
    printf '%s, %s connection(s) ... ' "$label" "$c" >&2
    # Retry a phase that ran beside too much foreign load; keep the quietest attempt.
    best="" best_other=""
    for ((attempt = 0; attempt <= RETRIES; attempt++)); do
      measure_phase "$url" "$c"
      if [[ -z $best ]] || awk -v a="$PH_OTHER" -v b="$best_other" 'BEGIN { exit !(a + 0 < b + 0) }'; then
        best=1 best_other=$PH_OTHER
        result["$label|$c"]=$PH_LAST cpu_us["$label|$c"]=$PH_CPU other["$label|$c"]=$PH_OTHER
        rc=$PH_RC err=$PH_ERR
      fi
      if [[ -n $PH_OUT ]]; then
        awk -v s="$label" -v a="$attempt" '{ sub(/^\{/, "{\"system\":\"" s "\",\"attempt\":" a ","); print }' \
          <<<"$PH_OUT" >>"$jsonl"
      fi
      if [[ $PH_RC != 0 ]] || ! awk -v o="$PH_OTHER" -v m="$OTHER_MAX" 'BEGIN { exit !(o + 0 > m + 0) }'; then
        break
      fi
      if ((attempt < RETRIES)); then printf '(%s CPUs busy elsewhere; again) ' "$PH_OTHER" >&2; fi
    done
    last=${result["$label|$c"]}
    if [[ $rc != 0 ]]; then
      failed=1
      echo "FAILED (exit $rc)" >&2
      sed 's/^/    /' <<<"$err" | head -n 12 >&2
    else
      echo "$(fmt0 "$(field calls_per_s "$last")") calls/s, server CPU ${cpu_us["$label|$c"]:-?} µs/request," \
        "${other["$label|$c"]:-?} CPUs busy elsewhere" >&2
    fi
    if awk -v o="${other["$label|$c"]:-0}" -v m="$OTHER_MAX" 'BEGIN { exit !(o + 0 > m + 0) }'; then
      note "$label, $c connection(s): ${other["$label|$c"]} CPUs busy outside the server and httpload during the runs"
    fi
    if ! kill -0 "$SERVER_PID" 2>/dev/null; then
      note "$label: the server exited during the run"
      sed 's/^/    | /' "$SERVER_LOG" | tail -n 8 >&2
      break
    fi
  done
  stop_server

  [[ $mem_cmd == - ]] && continue
  printf '%s, memory per idle session ... ' "$label" >&2
  if ! start_server "$label (memory)" "$mem_cmd"; then
    mem_bytes[$label]="-"
    continue
  fi
  url="http://127.0.0.1:$PORT/mcp"
  open_sessions() {
    "$HTTPLOAD" --json --url "$url" --sessions "$1" --idle-only --connections "$SESSION_CONNS" --timeout "$TIMEOUT" 2>/dev/null
  }
  ok=1
  open_sessions 200 >/dev/null || ok=0
  sleep 1
  r0=$(rss_kb)
  for batch in 1 2; do
    line=$(open_sessions "$SESSIONS") || ok=0
    echo "{\"system\":\"$label\",\"batch\":$batch,${line#\{}" >>"$jsonl"
    if [[ $(field with_session_id "$line") != "$SESSIONS" ]]; then
      ok=0
      note "$label: batch $batch: $(field with_session_id "$line") of $SESSIONS sessions got a session id (failures: $(field failures "$line"))"
    fi
  done
  sleep 1
  r2=$(rss_kb)
  stop_server
  mem_rss[$label]="$r0 $r2"
  if [[ $ok == 1 ]]; then
    mem_bytes[$label]=$(((r2 - r0) * 1024 / (2 * SESSIONS)))
    echo "$(fmt0 "${mem_bytes[$label]}") bytes (RSS $r0 -> $r2 kB)" >&2
  else
    mem_bytes[$label]="-"
    failed=1
    echo "FAILED" >&2
  fi
done

# --- report --------------------------------------------------------------------

commit=$(git rev-parse --short HEAD 2>/dev/null || echo '?')
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b == "" || b + 0 == 0) print ""; else printf "%.2f\n", a / b }'; }
as_ratio() { if [[ -z $1 ]]; then echo "-"; else echo "$1×"; fi; }
targets_json=()
{
  echo
  echo "Streamable HTTP MCP benchmark, $(date -u +'%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, commit $commit"
  if [[ -n $PIN_SEQ ]]; then pinning="pinned to CPU $PIN_SEQ (server and load generator)"; else pinning="unpinned"; fi
  echo "httpload: ${DURATION} s per run, medians of $RUNS runs, $WARMUP warm-up calls per run;" \
    "1-connection runs $pinning; latencies in µs; CPU = user + system time per HTTP request" \
    "answered (server: its process group; client: httpload); other CPUs = CPUs busy on average" \
    "outside both (other processes, interrupts); before the start: $busy_before CPUs busy, load average $loadavg"
  echo
  echo "| system | connections | calls/s | p50 µs | p99 µs | max µs | server CPU µs/req | client CPU µs/req | other CPUs | failures |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
  for label in "${labels[@]}"; do
    if [[ -v "skipped[$label]" ]]; then
      printf '| %s | - | skipped: %s | | | | | | | |\n' "$label" "${skipped[$label]}"
      continue
    fi
    for c in "${conn_counts[@]}"; do
      [[ -v "result[$label|$c]" ]] || continue
      r=${result["$label|$c"]}
      if [[ -z $r ]]; then
        printf '| %s | %s | FAILED (no output) | | | | | | | |\n' "$label" "$c"
        continue
      fi
      printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$label" "$c" \
        "$(fmt0 "$(field calls_per_s "$r")")" "$(fmt1 "$(field p50_us "$r")")" "$(fmt1 "$(field p99_us "$r")")" \
        "$(fmt0 "$(field max_us "$r")")" "$(fmt1 "${cpu_us["$label|$c"]:-}")" "$(fmt1 "$(field client_cpu_us "$r")")" \
        "$(cell "${other["$label|$c"]:-}")" "$(field failures "$r")"
    done
  done
  echo
  echo "Memory per idle session: RSS of the server (stateful mode) after 200 warm-up sessions, then after" \
    "2 x $SESSIONS more idle sessions (initialize + notifications/initialized each)."
  echo
  echo "| system | RSS before (kB) | RSS after (kB) | bytes per idle session |"
  echo "|---|---:|---:|---:|"
  for label in "${labels[@]}"; do
    [[ -v "mem_bytes[$label]" ]] || continue
    read -r r0 r2 <<<"${mem_rss[$label]:-- -}"
    printf '| %s | %s | %s | %s |\n' "$label" "$(fmt0 "$r0")" "$(fmt0 "$r2")" "$(fmt0 "${mem_bytes[$label]}")"
  done
  echo
  if [[ -n "$TARGETS$MEM_TARGET_SYSTEMS" ]]; then
    echo "| target | measured | met |"
    echo "|---|---:|---|"
  fi
  for t in $TARGETS; do
    pair=${t%%>=*} min=${t#*>=}
    ours=${pair%%/*} peers=${pair#*/}
    for c in "${conn_counts[@]}"; do
      a=$(field calls_per_s "${result["$ours|$c"]:-}")
      # Against the fastest of the peer's configurations at this connection count.
      b="" peer=""
      for p in ${peers//,/ }; do
        v=$(field calls_per_s "${result["$p|$c"]:-}")
        [[ -n $v ]] || continue
        if [[ -z $b ]] || awk -v v="$v" -v b="$b" 'BEGIN { exit !(v + 0 > b + 0) }'; then b=$v peer=$p; fi
      done
      [[ -n $peer ]] || peer=${peers//,/ or }
      x=$(ratio "$a" "$b")
      if [[ $c == "$top_conns" ]]; then
        met=$(awk -v x="$x" -v m="$min" 'BEGIN { if (x == "") print "n/a"; else if (x + 0 >= m + 0) print "yes"; else print "NO" }')
        printf '| %s ≥ %s× %s calls/s at %s connections | %s | %s |\n' "$ours" "$min" "$peer" "$c" "$(as_ratio "$x")" "$met"
        targets_json+=("{\"target\":$(json_str "$ours/$peer calls/s at $c connections"),\"min_ratio\":$min,\"ratio\":$(num_or_null "$x"),\"met\":$(json_str "$met")}")
      else
        printf '| (%s ÷ %s calls/s at %s connection(s)) | %s | |\n' "$ours" "$peer" "$c" "$(as_ratio "$x")"
      fi
    done
  done
  for label in $MEM_TARGET_SYSTEMS; do
    [[ -v "mem_bytes[$label]" ]] || continue
    b=${mem_bytes[$label]}
    met=$(awk -v b="$b" -v m="$MEM_TARGET_BYTES" 'BEGIN { if (b == "-") print "n/a"; else if (b + 0 < m + 0) print "yes"; else print "NO" }')
    printf '| %s < %s bytes per idle session | %s | %s |\n' "$label" "$(fmt0 "$MEM_TARGET_BYTES")" "$(fmt0 "$b")" "$met"
    targets_json+=("{\"target\":$(json_str "$label bytes per idle session"),\"max_bytes\":$MEM_TARGET_BYTES,\"bytes\":$(num_or_null "$b"),\"met\":$(json_str "$met")}")
  done
  echo
} >"$table" # not a pipe into tee: targets_json must survive this block
cat "$table"

# JSON document: configuration, per system the medians (with server CPU and other CPUs),
# memory, targets.
{
  printf '{"date":%s,"commit":%s,"cpus":%s,' "$(json_str "$(date -u +%Y-%m-%dT%H:%M:%SZ)")" "$(json_str "$commit")" "$(nproc)"
  printf '"config":{"duration_s":%s,"runs":%s,"warmup":%s,"connections":[%s],"sessions":%s,"pin_seq":%s,"loadavg_before":%s,"busy_cpus_before":%s,"other_max":%s,"retries":%s},' \
    "$DURATION" "$RUNS" "$WARMUP" "${CONNECTIONS// /,}" "$SESSIONS" "$(json_str "$PIN_SEQ")" "$(json_str "$loadavg")" \
    "$busy_before" "$OTHER_MAX" "$RETRIES"
  printf '"systems":['
  sep=""
  for sys in "${systems[@]}"; do
    label=$(trim "${sys%%=*}")
    printf '%s{"label":%s,"command":%s' "$sep" "$(json_str "$label")" "$(json_str "$(trim "${sys#*=}")")"
    sep=","
    if [[ -v "skipped[$label]" ]]; then
      printf ',"skipped":%s}' "$(json_str "${skipped[$label]}")"
      continue
    fi
    printf ',"load":{'
    s2=""
    for c in "${conn_counts[@]}"; do
      [[ -n ${result["$label|$c"]:-} ]] || continue
      r=${result["$label|$c"]}
      printf '%s"%s":%s,"server_cpu_us_per_request":%s,"other_cpus":%s}' "$s2" "$c" "${r%\}}" \
        "$(num_or_null "${cpu_us["$label|$c"]:-}")" "$(num_or_null "${other["$label|$c"]:-}")"
      s2=","
    done
    printf '}'
    if [[ -v "mem_bytes[$label]" ]]; then
      read -r r0 r2 <<<"${mem_rss[$label]:-- -}"
      printf ',"memory":{"rss_kb_before":%s,"rss_kb_after":%s,"sessions":%s,"bytes_per_session":%s}' \
        "$(num_or_null "$r0")" "$(num_or_null "$r2")" $((2 * SESSIONS)) "$(num_or_null "${mem_bytes[$label]}")"
    fi
    printf '}'
  done
  printf '],"targets":['
  (IFS=,; printf '%s' "${targets_json[*]}")
  printf ']}\n'
} >"$json_out"
python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$json_out" || { echo "error: $json_out is not valid JSON" >&2; failed=1; }

echo "results: $json_out (raw: $jsonl; table: $table); took $((SECONDS - start)) s" >&2
exit "$failed"

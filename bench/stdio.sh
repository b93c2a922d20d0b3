#!/usr/bin/env bash
# stdio benchmark: the pipe floor (`cat`, a bare line echo) versus MCP echo
# servers, measured with bench/loadgen, sequentially (--inflight 1) and
# pipelined (--inflight $INFLIGHT), each with --runs $RUNS. Prints a markdown
# table of medians plus, for each server, a ratio row against the floor.
#
# Usage: bench/stdio.sh            (from anywhere; takes ~10-30 s as shipped)
#
# Knobs (environment variables):
#   ECHO_RUST      Rust echo server command  [target/release/examples/echo_server]
#   EXTRA_SYSTEMS  more servers, one "label=command args" per line or separated
#                  by ';' (commands are split on whitespace; no quoting)
#   FLOOR          the line echo used as the floor               [cat]
#   CALLS WARMUP RUNS INFLIGHT                   [20000 1000 5 64]
#   TIMEOUT        loadgen --timeout (seconds without a response)    [10]
#   PIN            CPU list for `taskset -c` applied to loadgen and the server
#                  (e.g. PIN=0); sequential round trips on a small VM are far
#                  faster when both ends share a core          [unset: no pinning]
#   PIN_SEQ        CPU list for `taskset -c` applied to the sequential runs
#                  only (both ends on one core, the stable floor), leaving the
#                  pipelined runs free to use both cores             [0]
#   BUILD          0 skips the cargo build                        [1]
#
# A system whose binary is missing is skipped with a note. Raw JSON lines and
# the table are saved under bench/results/ (git-ignored). Exits 1 if any run
# reported failures.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

CALLS=${CALLS:-20000}
WARMUP=${WARMUP:-1000}
RUNS=${RUNS:-5}
INFLIGHT=${INFLIGHT:-64}
TIMEOUT=${TIMEOUT:-10}
FLOOR=${FLOOR:-cat}
ECHO_RUST=${ECHO_RUST:-${CARGO_TARGET_DIR:-target}/release/examples/echo_server}
EXTRA_SYSTEMS=${EXTRA_SYSTEMS:-}
PIN=${PIN:-}
PIN_SEQ=${PIN_SEQ-0}
BUILD=${BUILD:-1}
LOADGEN=${CARGO_TARGET_DIR:-target}/release/loadgen

note() { printf 'note: %s\n' "$*" >&2; }

if [[ $BUILD != 0 ]]; then
  # --bins matters: with only --examples cargo would skip the loadgen binary.
  if ! cargo build --release -p hypermcp-loadgen -p hypermcp --bins --examples; then
    note "building the hypermcp examples failed; building loadgen alone (example binaries may be missing or stale)"
    cargo build --release -p hypermcp-loadgen
  fi
fi
[[ -x $LOADGEN ]] || { echo "error: $LOADGEN not found (build it: cargo build --release -p hypermcp-loadgen)" >&2; exit 1; }

# Systems: "label=command args", the floor first.
systems=("floor=$FLOOR" "rust=$ECHO_RUST")
if [[ -n $EXTRA_SYSTEMS ]]; then
  while IFS= read -r entry; do
    entry=${entry#"${entry%%[![:space:]]*}"}
    [[ -n $entry ]] && systems+=("$entry")
  done < <(tr ';' '\n' <<<"$EXTRA_SYSTEMS")
fi

modes=(1 "$INFLIGHT")
mode_name() { if [[ $1 == 1 ]]; then echo "sequential"; else echo "$1 in flight"; fi; }

pin=()
[[ -n $PIN ]] && pin=(taskset -c "$PIN")

mkdir -p bench/results
stamp=$(date -u +%Y%m%dT%H%M%SZ)
jsonl=bench/results/stdio-$stamp.jsonl
table=bench/results/stdio-$stamp.md
: >"$jsonl"

# field NAME JSON_LINE -> the value (the loadgen prints flat objects).
field() { sed -n "s/.*\"$1\":\([^,}]*\).*/\1/p" <<<"$2"; }
# ratio A B -> "A/B" formatted as 0.00x, or "-" if not computable.
ratio() {
  awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b == "" || a == "null" || b == "null" || b + 0 == 0) print "-"; else printf "%.2fx\n", a / b }'
}
cell() { if [[ -z $1 || $1 == null ]]; then echo "-"; else echo "$1"; fi; }

declare -A result        # "label|inflight" -> final JSON line
failed=0
start=$SECONDS

for sys in "${systems[@]}"; do
  label=${sys%%=*}
  cmd=${sys#*=}
  read -r -a words <<<"$cmd"
  if [[ ${#words[@]} -eq 0 ]]; then
    note "$label: empty command; skipped"
    continue
  fi
  bin=${words[0]}
  if [[ $bin == */* ]]; then
    [[ -x $bin ]] || { note "$label: $bin not found; skipped"; continue; }
  else
    command -v "$bin" >/dev/null || { note "$label: $bin not on PATH; skipped"; continue; }
  fi
  floor_flag=()
  [[ $label == floor ]] && floor_flag=(--floor)
  for w in "${modes[@]}"; do
    printf '%s, %s ... ' "$label" "$(mode_name "$w")" >&2
    errlog=$(mktemp)
    rc=0
    pin_now=("${pin[@]}")
    [[ $w == 1 && -n $PIN_SEQ ]] && pin_now=(taskset -c "$PIN_SEQ")
    out=$("${pin_now[@]}" "$LOADGEN" --json --calls "$CALLS" --warmup "$WARMUP" --runs "$RUNS" \
      --inflight "$w" --timeout "$TIMEOUT" "${floor_flag[@]}" -- "${words[@]}" 2>"$errlog") || rc=$?
    if [[ -n $out ]]; then
      awk -v s="$label" '{ sub(/^\{/, "{\"system\":\"" s "\","); print }' <<<"$out" >>"$jsonl"
    fi
    last=$(tail -n 1 <<<"$out")
    result["$label|$w"]=$last
    if [[ $rc != 0 ]]; then
      failed=1
      echo "FAILED (exit $rc)" >&2
      sed 's/^/    /' "$errlog" | head -n 20 >&2
    else
      echo "$(field calls_per_s "$last") calls/s" >&2
    fi
    rm -f "$errlog"
  done
done

{
  echo
  echo "stdio MCP benchmark, $(date -u +'%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
  echo "calls=$CALLS warmup=$WARMUP runs=$RUNS (medians over runs)${PIN:+, pinned with taskset -c $PIN}${PIN_SEQ:+, sequential runs pinned with taskset -c $PIN_SEQ}; latencies in µs"
  echo
  echo "| system | mode | median calls/s | p50 µs | p99 µs | max µs | init ms |"
  echo "|---|---|---:|---:|---:|---:|---:|"
  for sys in "${systems[@]}"; do
    label=${sys%%=*}
    shown=0
    for w in "${modes[@]}"; do
      [[ -v "result[$label|$w]" ]] || continue
      shown=1
      r=${result["$label|$w"]}
      status=""
      fails=$(field failures "$r")
      [[ -n $fails && $fails != 0 ]] && status=" (FAILED: $fails failures)"
      [[ -z $r ]] && status=" (FAILED: no output)"
      cps=$(field calls_per_s "$r")
      [[ -n $cps ]] && cps=$(printf '%.0f' "$cps")
      printf '| %s | %s | %s%s | %s | %s | %s | %s |\n' "$label" "$(mode_name "$w")" \
        "$(cell "$cps")" "$status" "$(cell "$(field p50_us "$r")")" "$(cell "$(field p99_us "$r")")" \
        "$(cell "$(field max_us "$r")")" "$(cell "$(field init_ms "$r")")"
    done
    if [[ $label != floor && $shown == 1 ]]; then
      for w in "${modes[@]}"; do
        [[ -v "result[$label|$w]" && -v "result[floor|$w]" ]] || continue
        r=${result["$label|$w"]}
        f=${result["floor|$w"]}
        printf '| %s ÷ floor | %s | %s | %s | %s | %s | %s |\n' "$label" "$(mode_name "$w")" \
          "$(ratio "$(field calls_per_s "$r")" "$(field calls_per_s "$f")")" \
          "$(ratio "$(field p50_us "$r")" "$(field p50_us "$f")")" \
          "$(ratio "$(field p99_us "$r")" "$(field p99_us "$f")")" \
          "$(ratio "$(field max_us "$r")" "$(field max_us "$f")")" \
          "$(ratio "$(field init_ms "$r")" "$(field init_ms "$f")")"
      done
    fi
  done
  echo
} | tee "$table"

echo "raw results: $jsonl; table: $table; took $((SECONDS - start)) s" >&2
exit "$failed"

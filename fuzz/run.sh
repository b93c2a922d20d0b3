#!/usr/bin/env bash
# make fuzz: runs every fuzz target under libFuzzer for FUZZ_SECONDS (default 60) each,
# starting from and adding to its committed corpus (fuzz/corpus/<target>), then minimises
# the corpus (cargo fuzz cmin) and writes fuzz/RESULTS.md: executions, speed, coverage and
# corpus size per target. A crash stops the run: its input is in fuzz/artifacts/<target>/,
# reproduce it with `cargo fuzz run <target> <file>`. FUZZ_TARGETS limits the targets.
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_EACH=${FUZZ_SECONDS:-60}
TARGETS=${FUZZ_TARGETS:-"jsonrpc engine_server engine_client http sse uri_template request_state"}
command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked
# libFuzzer needs the sanitizer flags of a nightly rustc: the nightly toolchain when the
# machine has one, else the stable one told to allow them.
if rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
  FUZZ=(cargo +nightly fuzz)
else
  export RUSTC_BOOTSTRAP=1
  FUZZ=(cargo fuzz)
fi
mkdir -p fuzz/logs
"${FUZZ[@]}" build -O --fuzz-dir fuzz
for t in $TARGETS; do
  echo "== $t: ${SECONDS_EACH}s"
  log=fuzz/logs/$t.log
  "${FUZZ[@]}" run -O --fuzz-dir fuzz "$t" "fuzz/corpus/$t" -- \
    -max_total_time="$SECONDS_EACH" -rss_limit_mb=2048 -max_len=65536 -timeout=10 -print_final_stats=1 \
    >"$log" 2>&1 || { tail -40 "$log"; echo "fuzz: $t FAILED; the input is in fuzz/artifacts/$t/"; exit 1; }
  # Minimising keeps what adds coverage; the inputs of fixed crashes (crash-*, timeout-*)
  # stay whatever it says: they are the regression tests `make test` replays.
  keep=$(mktemp -d)
  find "fuzz/corpus/$t" -maxdepth 1 \( -name 'crash-*' -o -name 'timeout-*' \) -exec cp {} "$keep/" \;
  "${FUZZ[@]}" cmin -O --fuzz-dir fuzz "$t" "fuzz/corpus/$t" >"fuzz/logs/$t.cmin.log" 2>&1
  cp "$keep"/* "fuzz/corpus/$t/" 2>/dev/null || true
  rm -rf "$keep"
done
# The table: every target's latest run (this one's, or an earlier one's when FUZZ_TARGETS
# left it out).
{
  echo "# Fuzzing results"
  echo
  echo "Written by \`make fuzz\` (fuzz/run.sh) on $(date -u +%Y-%m-%dT%H:%MZ): each target's latest run,"
  echo "$(nproc) cores, $(rustc +nightly --version 2>/dev/null || rustc --version). A crash stops a run (its"
  echo "input is kept in fuzz/artifacts/, fixed, and added to the corpus); the corpora are"
  echo "minimised after each run and replayed by \`make test\` (core/tests/suite/fuzz_replay.rs). The"
  echo "crashes found so far, and their fixes: [CRASHES.md](CRASHES.md)."
  echo
  echo "| target | run at | seconds | executions | exec/s | coverage (edges) | corpus files |"
  echo "|---|---|---:|---:|---:|---:|---:|"
  for t in jsonrpc engine_server engine_client http sse uri_template request_state; do
    log=fuzz/logs/$t.log
    [ -f "$log" ] || continue
    done_line=$(grep -o 'Done [0-9]* runs in [0-9]* second' "$log" | tail -1 || true)
    [ -n "$done_line" ] || continue
    runs=$(echo "$done_line" | awk '{print $2}')
    secs=$(echo "$done_line" | awk '{print $5}')
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | awk '{print $2}')
    files=$(find "fuzz/corpus/$t" -type f | wc -l)
    echo "| $t | $(date -u -r "$log" +%Y-%m-%dT%H:%MZ) | $secs | $runs | $(( runs / (secs > 0 ? secs : 1) )) | ${cov:-?} | $files |"
  done
} > fuzz/RESULTS.md
cat fuzz/RESULTS.md

# shellcheck shell=bash
# Shell helpers of the bench scripts (http.sh, modern.sh); sourced after scripts/lib.sh.
#
#   note MESSAGE...       a note on stderr
#   trim TEXT             TEXT without leading and trailing blanks
#   field NAME JSON_LINE  the value of member NAME of a flat JSON object (httpload and
#                         loadgen print such lines)
#   fmt0 N, fmt1 N        N with thousands separators, no decimal or one ("-" if empty/null)
#   group_pids            the processes of the group SERVER_PID
#   cpu_ticks             utime + stime (clock ticks) over that group

note() { printf 'note: %s\n' "$*" >&2; }
trim() { local s=$1; s=${s#"${s%%[![:space:]]*}"}; printf '%s' "${s%"${s##*[![:space:]]}"}"; }
field() { sed -n "s/.*\"$1\":\([^,}]*\).*/\1/p" <<<"$2"; }
group3() { sed -e ':a' -e 's/^\([0-9]\+\)\([0-9]\{3\}\)/\1,\2/' -e 'ta'; }
fmt0() { if [[ -z $1 || $1 == null || $1 == - ]]; then echo "-"; else LC_ALL=C printf '%.0f\n' "$1" | group3; fi; }
fmt1() { if [[ -z $1 || $1 == null ]]; then echo "-"; else LC_ALL=C printf '%.1f\n' "$1" | group3; fi; }
group_pids() { pgrep -g "$SERVER_PID" 2>/dev/null || true; }
cpu_ticks() {
  local p total=0 s f
  for p in $(group_pids); do
    s=$(cat "/proc/$p/stat" 2>/dev/null) || continue
    s=${s##*) }
    read -r -a f <<<"$s"
    total=$((total + f[11] + f[12]))
  done
  echo "$total"
}

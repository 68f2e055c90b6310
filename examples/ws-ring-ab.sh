#!/usr/bin/env bash
# capicua against the floor of a WebSocket turn server, back to back:
# `../shared/bench/ws-ring` (one read and one write per move, nothing else)
# and `capicua-server serve` with `capicua-bot load`, each at TABLES
# closed-loop tables for SECONDS seconds, RUNS times alternately (this
# machine's speed drifts by a third within minutes: only a ratio measured
# in the same run means anything).
#
#   examples/ws-ring-ab.sh [TABLES] [SECONDS] [RUNS] [more `capicua-bot load` flags]
#   examples/ws-ring-ab.sh 2000 15 3
#   examples/ws-ring-ab.sh 2000 15 3 --accepted
#
# Each run prints moves/s and each server's CPU per move (user + system,
# from /proc, over the middle of the window); the last line is the median
# ratio capicua / ws-ring. Builds what it needs in release (ws-ring into
# target/ws-ring, outside ../shared). Linux only.
set -euo pipefail
tables=${1:-2000} seconds=${2:-15} runs=${3:-3}
shift $(($# < 3 ? $# : 3))
extra=("$@")
root="$(cd "$(dirname "$0")/.." && pwd)"
ring_src="$root/../shared/bench/ws-ring"
[ -d "$ring_src" ] || { echo "no $ring_src: clone ../shared beside the project" >&2; exit 1; }
cargo build --release --quiet -p capicua-server -p capicua-bot --manifest-path "$root/Cargo.toml"
CARGO_TARGET_DIR="$root/target/ws-ring" cargo build --release --quiet --manifest-path "$ring_src/Cargo.toml"
ring="$root/target/ws-ring/release/ws-ring"
server="$root/target/release/capicua-server"
load="$root/target/release/capicua-bot"
# A descriptor per socket on each side: 2,000 tables are 8,000.
ulimit -n "$(ulimit -Hn)"
dir=$(mktemp -d)
pids=()
trap 'kill ${pids[@]+"${pids[@]}"} 2>/dev/null || true; rm -rf "$dir"' EXIT

# The CPU seconds (user, system) a process has used.
cpu() { awk -v t="$(getconf CLK_TCK)" '{printf "%.2f %.2f\n", $14 / t, $15 / t}' "/proc/$1/stat"; }

# The CPU seconds (user, system) of the server $1 and the load client $2
# over a window of half the run's length from $3 on (epoch seconds), and
# the window's seconds: "user system user system seconds" to $4.
sample() {
  local server=$1 load=$2 from=$3 out=$4
  local a b c d t0 t1
  sleep "$(awk -v f="$from" -v now="$(date +%s.%N)" 'BEGIN {d = f - now; printf "%.3f", (d > 0) ? d : 0}')"
  a=$(cpu "$server"); c=$(cpu "$load"); t0=$(date +%s.%N)
  sleep "$(awk -v n="$seconds" 'BEGIN {print n / 2}')"
  b=$(cpu "$server"); d=$(cpu "$load"); t1=$(date +%s.%N)
  echo "$a $b $c $d $t0 $t1" | awk '{print $3 - $1, $4 - $2, $7 - $5, $8 - $6, $10 - $9}' >"$out"
}

# The moves a capicua server on port $1 has played.
moves() { curl -s "localhost:$1/metrics" | awk '/^capicua_moves_total/ {print $2}'; }

# Waits for a listener on port $1 without connecting to it (ws-ring's
# server stops at a connection that is not a WebSocket handshake).
wait_port() { for _ in $(seq 200); do [ -n "$(ss -Hltn "sport = :$1")" ] && return; sleep 0.05; done; }

# One ws-ring run on port $1: prints "moves/s user system seconds" (CPU
# seconds over the sampled seconds).
ring_run() {
  "$ring" serve "$1" &
  local pid=$!
  pids+=("$pid")
  wait_port "$1"
  "$ring" load "$1" "$tables" "$seconds" >"$dir/ring.out" 2>"$dir/ring.err" &
  local load=$!
  # ws-ring's load connects its tables one after another (tens of seconds
  # at thousands, while the first tables already play), warms up 2 s, then
  # measures: sample from 3 s after the last connection.
  until [ "$(ss -Htn state established "( sport = :$1 )" | wc -l)" -ge $((tables * 4)) ]; do
    kill -0 "$load" 2>/dev/null || { echo "ws-ring load ended early: $(tail -3 "$dir/ring.err")" >&2; exit 1; }
    sleep 0.2
  done
  sample "$pid" "$load" "$(awk -v now="$(date +%s.%N)" 'BEGIN {printf "%.3f", now + 3}')" "$dir/ring.cpu"
  wait "$load"
  kill "$pid"; wait "$pid" 2>/dev/null || true
  echo "$(sed 's/.*"moves_per_sec":\([0-9.]*\).*/\1/' "$dir/ring.out") $(cat "$dir/ring.cpu")"
}

# One capicua run on port $1 (a fresh database): the same figures.
capicua_run() {
  # Every table is a room of one guest address, and every connection
  # comes from 127.0.0.1: no limit of rooms per creator or connections
  # per address.
  CAPICUA_MAX_ROOMS_PER_PLAYER=0 CAPICUA_MAX_CONNECTIONS_PER_ADDR=0 CAPICUA_MAX_ROOMS_PER_ADDR=0 CAPICUA_MAX_SEATS_PER_ADDR=0 CAPICUA_STORED_KIB_PER_HOUR=0 "$server" serve --listen "127.0.0.1:$1" --database "$dir/capicua-$1.db" --rate 100000 \
    >"$dir/server-$1.log" 2>&1 &
  local pid=$!
  pids+=("$pid")
  wait_port "$1"
  "$load" load --server "ws://127.0.0.1:$1/ws" --tables "$tables" --seconds "$seconds" --json \
    ${extra[@]+"${extra[@]}"} >"$dir/load-$1.out" 2>"$dir/load-$1.log" &
  local client=$!
  # The load sets its tables up (seconds, at thousands), warms up half a
  # second, then measures: sample from a second after the first moves.
  until [ "$(moves "$1")" -gt 0 ] 2>/dev/null; do
    kill -0 "$client" 2>/dev/null || { echo "capicua load ended early: $(tail -3 "$dir/load-$1.log")" >&2; exit 1; }
    sleep 0.2
  done
  sample "$pid" "$client" "$(awk -v now="$(date +%s.%N)" 'BEGIN {printf "%.3f", now + 1}')" "$dir/capicua.cpu"
  wait "$client"
  local report
  report=$(tail -1 "$dir/load-$1.out")
  # A run with errors (tables not set up, connections dropped) is not a
  # measurement of this many tables.
  echo "$report" | grep -q '"errors":0,' || { echo "capicua load: $report" >&2; head -3 "$dir/load-$1.log" >&2; exit 1; }
  kill "$pid"; wait "$pid" 2>/dev/null || true
  echo "$(echo "$report" | sed 's/.*"moves_per_sec":\([0-9.]*\).*/\1/') $(cat "$dir/capicua.cpu")"
}

printf '%-4s %-8s %10s   %-26s %s\n' run server moves/s "server CPU per move (us)" "load CPU per move (us)"
ratios=()
for r in $(seq "$runs"); do
  read -r rm ru rs rlu rls rt <<<"$(ring_run $((17100 + 2 * r)))"
  [ -n "$rm" ] || exit 1
  read -r cm cu cs clu cls ct <<<"$(capicua_run $((17101 + 2 * r)))"
  [ -n "$cm" ] || exit 1
  line() {
    awk -v r="$r" -v n="$1" -v m="$2" -v u="$3" -v s="$4" -v lu="$5" -v ls="$6" -v t="$7" 'BEGIN {
      k = 1e6 / t / m
      printf "%-4s %-8s %10.0f   %5.1f user + %5.1f sys      %5.1f user + %5.1f sys\n", r, n, m, u * k, s * k, lu * k, ls * k
    }'
  }
  line ws-ring "$rm" "$ru" "$rs" "$rlu" "$rls" "$rt"
  line capicua "$cm" "$cu" "$cs" "$clu" "$cls" "$ct"
  ratios+=("$(awk -v a="$cm" -v b="$rm" 'BEGIN {printf "%.3f", a / b}')")
  echo "     capicua / ws-ring: ${ratios[-1]}"
done
printf '%s\n' "${ratios[@]}" | sort -n | awk '{a[NR] = $1} END {printf "median capicua / ws-ring over %d runs: %.2fx\n", NR, a[int((NR + 1) / 2)]}'

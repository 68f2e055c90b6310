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

# The server's CPU seconds (user, system) and the wall seconds over a
# window of half the run's length, from $2 on (epoch seconds): "user system
# seconds" to $3.
sample() {
  local pid=$1 from=$2 out=$3
  local a t0 b t1
  sleep "$(awk -v f="$from" -v now="$(date +%s.%N)" 'BEGIN {d = f - now; print (d > 0) ? d : 0}')"
  a=$(cpu "$pid"); t0=$(date +%s.%N)
  sleep "$(awk -v n="$seconds" 'BEGIN {print n / 2}')"
  b=$(cpu "$pid"); t1=$(date +%s.%N)
  echo "$a $b $t0 $t1" | awk '{print $3 - $1, $4 - $2, $6 - $5}' >"$out"
}

# The moves a capicua server on port $1 has played.
moves() { curl -s "localhost:$1/metrics" | awk '/^capicua_moves_total/ {print $2}'; }

wait_port() { for _ in $(seq 200); do (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return; sleep 0.05; done; }

# One ws-ring run on port $1: prints "moves/s user system" (CPU s per s).
ring_run() {
  "$ring" serve "$1" &
  local pid=$!
  pids+=("$pid")
  wait_port "$1"
  # ws-ring's load connects its tables (a second or two), warms up 2 s,
  # then measures: sample from 5 s on.
  sample "$pid" "$(awk -v now="$(date +%s.%N)" 'BEGIN {print now + 5}')" "$dir/ring.cpu" &
  local sampler=$!
  local mps
  mps=$("$ring" load "$1" "$tables" "$seconds" | sed 's/.*"moves_per_sec":\([0-9.]*\).*/\1/')
  wait "$sampler"
  kill "$pid"; wait "$pid" 2>/dev/null || true
  echo "$mps $(cat "$dir/ring.cpu")"
}

# One capicua run on port $1 (a fresh database): the same figures.
capicua_run() {
  CAPICUA_MAX_ROOMS_PER_PLAYER=0 "$server" serve --listen "127.0.0.1:$1" --database "$dir/capicua-$1.db" --rate 100000 \
    >"$dir/server-$1.log" 2>&1 &
  local pid=$!
  pids+=("$pid")
  wait_port "$1"
  # The load sets its tables up (seconds, at thousands), warms up half a
  # second, then measures: sample from a second after the first moves.
  (
    until [ "$(moves "$1")" -gt 0 ] 2>/dev/null; do sleep 0.2; done
    sample "$pid" "$(awk -v now="$(date +%s.%N)" 'BEGIN {print now + 1}')" "$dir/capicua.cpu"
  ) &
  local sampler=$!
  local mps
  mps=$("$load" load --server "ws://127.0.0.1:$1/ws" --tables "$tables" --seconds "$seconds" --json \
    ${extra[@]+"${extra[@]}"} 2>/dev/null | tail -1 | sed 's/.*"moves_per_sec":\([0-9.]*\).*/\1/')
  wait "$sampler"
  kill "$pid"; wait "$pid" 2>/dev/null || true
  echo "$mps $(cat "$dir/capicua.cpu")"
}

printf '%-4s %-8s %10s %22s\n' run server moves/s "CPU per move (us)"
ratios=()
for r in $(seq "$runs"); do
  read -r rm ru rs rt <<<"$(ring_run $((17100 + 2 * r)))"
  read -r cm cu cs ct <<<"$(capicua_run $((17101 + 2 * r)))"
  awk -v r="$r" -v m="$rm" -v u="$ru" -v s="$rs" -v t="$rt" \
    'BEGIN {printf "%-4s %-8s %10.0f %9.1f user %5.1f sys\n", r, "ws-ring", m, u / t / m * 1e6, s / t / m * 1e6}'
  awk -v r="$r" -v m="$cm" -v u="$cu" -v s="$cs" -v t="$ct" \
    'BEGIN {printf "%-4s %-8s %10.0f %9.1f user %5.1f sys\n", r, "capicua", m, u / t / m * 1e6, s / t / m * 1e6}'
  ratios+=("$(awk -v a="$cm" -v b="$rm" 'BEGIN {printf "%.3f", a / b}')")
  echo "     capicua / ws-ring: ${ratios[-1]}"
done
printf '%s\n' "${ratios[@]}" | sort -n | awk '{a[NR] = $1} END {printf "median capicua / ws-ring over %d runs: %.2fx\n", NR, a[int((NR + 1) / 2)]}'

#!/usr/bin/env bash
# Compares two `capicua-server` binaries under the same load: each serves in
# turn (a fresh SQLite file each time) while one `capicua-bot load` client
# plays TABLES tables for SECONDS seconds, RUNS times alternately, so both
# see the same machine (its speed drifts by a third within minutes).
#
#   examples/load-ab.sh OLD_SERVER NEW_SERVER [TABLES] [SECONDS] [RUNS] [more `capicua-bot load` flags]
#   examples/load-ab.sh /tmp/old/capicua-server target/release/capicua-server 2000 20 3
#   examples/load-ab.sh /tmp/old/capicua-server target/release/capicua-server 4000 60 2 --think-ms 1000
#
# Prints one line of the load client's JSON per run. Builds nothing: run
# `cargo build --release -p capicua-server -p capicua-bot` first.
set -euo pipefail
old=$1 new=$2 tables=${3:-2000} seconds=${4:-20} runs=${5:-3}
shift $(($# < 5 ? $# : 5))
extra=("$@")
# A descriptor per socket on each side: 4,000 tables are 16,000.
ulimit -n "$(ulimit -Hn)"
load="$(dirname "$0")/../target/release/capicua-bot"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
run() { # name binary port
  # Every table is a room of one guest address: no limit of rooms per
  # creator (an environment variable, which binaries without it ignore).
  CAPICUA_MAX_ROOMS_PER_PLAYER=0 CAPICUA_MAX_CONNECTIONS_PER_ADDR=0 CAPICUA_MAX_ROOMS_PER_ADDR=0 CAPICUA_MAX_SEATS_PER_ADDR=0 CAPICUA_STORED_KIB_PER_HOUR=0 "$2" serve --listen "127.0.0.1:$3" --database "$dir/$1-$3.db" --rate 100000 >"$dir/$1.log" 2>&1 &
  local pid=$!
  for _ in $(seq 100); do curl -sf "localhost:$3/healthz" >/dev/null && break; sleep 0.1; done
  printf '%s: ' "$1"
  "$load" load --server "ws://127.0.0.1:$3/ws" --tables "$tables" --seconds "$seconds" --json ${extra[@]+"${extra[@]}"} 2>/dev/null | tail -1
  kill "$pid"
  wait "$pid" 2>/dev/null || true
}
for r in $(seq "$runs"); do
  run old "$old" $((18200 + 2 * r))
  run new "$new" $((18201 + 2 * r))
done

#!/usr/bin/env bash
# Runs `capicua-bot load` against a running local `capicua-server serve` and
# prints, besides the load client's own JSON, where the CPU goes: each
# process's user and system CPU time per move and the loopback packets per
# move, over a window in the middle of the run (/proc, /sys and the server's
# /metrics move counter).
#
#   examples/load-figures.sh PORT TABLES SECONDS [more `capicua-bot load` flags]
#   examples/load-figures.sh 18080 2000 20 --live-events
#
# Linux only; builds nothing: run `cargo build --release -p capicua-server
# -p capicua-bot` and start the server first, with `--max-rooms-per-player 0
# --max-connections-per-addr 0 --max-rooms-per-addr 0 --max-seats-per-addr 0
# --stored-kib-per-hour 0`
# (every table is a room of the same guest address).
set -euo pipefail
port=$1 tables=$2 seconds=$3
shift 3
bin="$(dirname "$0")/../target/release/capicua-bot"
server_pid=$(pgrep -f "capicua-server serve.*:$port" | head -1)
[ -n "$server_pid" ] || { echo "no capicua-server serve on port $port" >&2; exit 1; }
out=$(mktemp)
"$bin" load --server "ws://127.0.0.1:$port/ws" --tables "$tables" --seconds "$seconds" --json "$@" >"$out" &
load_pid=$!
# Setup takes a few seconds at thousands of tables: measure the middle.
sleep $((seconds / 2 + 3))
moves() { curl -s "localhost:$port/metrics" | awk '/^capicua_moves_total/ {print $2}'; }
cpu() { awk '{print $14, $15}' "/proc/$1/stat"; }
m0=$(moves); p0=$(cat /sys/class/net/lo/statistics/tx_packets)
s0=$(cpu "$server_pid"); c0=$(cpu "$load_pid")
sleep 4
m1=$(moves); p1=$(cat /sys/class/net/lo/statistics/tx_packets)
s1=$(cpu "$server_pid"); c1=$(cpu "$load_pid")
wait "$load_pid"
tick=$(getconf CLK_TCK)
python3 - "$m0" "$m1" "$p0" "$p1" "$s0" "$s1" "$c0" "$c1" "$tick" <<'PY'
import sys
m0, m1, p0, p1 = map(int, sys.argv[1:5])
s0, s1, c0, c1 = (list(map(int, a.split())) for a in sys.argv[5:9])
us = 1e6 / int(sys.argv[9]) / (m1 - m0)
print(f"window: {m1 - m0} moves, {(p1 - p0) / (m1 - m0):.2f} loopback packets per move")
print(f"server CPU per move: user {(s1[0] - s0[0]) * us:.1f} us, system {(s1[1] - s0[1]) * us:.1f} us")
print(f"load CPU per move:   user {(c1[0] - c0[0]) * us:.1f} us, system {(c1[1] - c0[1]) * us:.1f} us")
PY
cat "$out"
rm -f "$out"

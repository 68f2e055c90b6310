#!/usr/bin/env bash
# A soak: starts a release `capicua-server serve` on a fresh database, loads
# it with `capicua-bot load` for SECONDS (think time and churn as given),
# prints the load's figures every REPORT seconds (moves/s, matches stored,
# errors, reconnects, the server's memory: the curve), then stops the server
# gracefully and checks that every match the clients were told was stored is
# in the database.
#
#   examples/soak.sh PORT TABLES SECONDS REPORT [more `capicua-bot load` flags]
#   examples/soak.sh 18090 4000 1800 60 --think-ms 1000 --churn 0.05
#
# Linux only; builds nothing: run `cargo build --release -p capicua-server
# -p capicua-bot` first. A server built with `--features heap-stats` also
# reports its live heap every REPORT seconds, beside the RSS the load
# prints: the two curves tell a leak from memory the allocator keeps. Each process needs a descriptor per socket: 4,000
# tables are 16,000 sockets on each side.
set -euo pipefail
port=$1 tables=$2 seconds=$3 report=$4
shift 4
ulimit -n "$(ulimit -Hn)"
here="$(dirname "$0")/.."
dir=$(mktemp -d)
"$here/target/release/capicua-server" serve --listen "127.0.0.1:$port" --database "$dir/soak.db" \
    --max-rooms-per-player 0 --max-connections-per-addr 0 --max-rooms-per-addr 0 --max-seats-per-addr 0 --stored-kib-per-hour 0 --max-connections 20000 2>"$dir/server.log" &
server=$!
trap 'kill $server 2>/dev/null || true; rm -rf "$dir"' EXIT
until curl -sf "localhost:$port/healthz" >/dev/null; do
    kill -0 $server 2>/dev/null || { cat "$dir/server.log" >&2; exit 1; }
    sleep 0.2
done
sample_heap() {
    local start=$SECONDS
    while sleep "$report"; do
        curl -sf "localhost:$port/metrics" | awk -v t=$((SECONDS - start)) \
            '$1 == "capicua_heap_live_bytes" { printf "t %6d s  server live heap MiB %.1f\n", t, $2 / 1048576 }' >&2 || true
    done
}
if curl -sf "localhost:$port/metrics" | grep -q '^capicua_heap_live_bytes '; then
    sample_heap &
    sampler=$!
    trap 'kill $sampler $server 2>/dev/null || true; rm -rf "$dir"' EXIT
fi
"$here/target/release/capicua-bot" load --server "ws://127.0.0.1:$port/ws" --tables "$tables" \
    --seconds "$seconds" --report-every "$report" --server-pid $server --json "$@" >"$dir/load.json"
cat "$dir/load.json"
if [ -n "${sampler:-}" ]; then kill "$sampler" 2>/dev/null || true; fi
# Matches that end while the load winds down are stored but may not reach
# their clients: the database holds at least what the clients heard of.
kill -TERM $server
wait $server || true
python3 - "$dir/load.json" "$dir/soak.db" <<'PY'
import json, sqlite3, sys
r = json.load(open(sys.argv[1]))
stored = sqlite3.connect(sys.argv[2]).execute("SELECT COUNT(*) FROM games").fetchone()[0]
print(f"matches the clients were told were stored: {r['games_stored']}, not stored: {r['games_not_stored']}")
print(f"matches in the database after shutdown: {stored}")
sys.exit(0 if stored >= r["games_stored"] and r["games_not_stored"] == 0 and r["errors"] == 0 else 1)
PY
grep -c ' ERROR ' "$dir/server.log" | sed 's/^/server log ERROR lines: /' || true

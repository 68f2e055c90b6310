#!/usr/bin/env bash
# Runs every hostile-client attack of `capicua-hostile` against a server
# binary, one at a time, each on a fresh server (default flags, a new
# temporary SQLite database), and prints a table: attack, the server's
# peak CPU (percent of one core), RSS, threads and descriptors, the probe
# table's move p99 before/during the attack and its slowest move during it,
# /healthz and admin-read failures+timeouts (a timeout is an answer slower
# than 1 s), and whether the server recovered (and how many seconds after
# the attack stopped). An attack the server refuses is a result, not an
# error. Each server gets a random admin token, which the tool uses for its
# admin read; the probe table, /healthz and the admin read connect from
# 127.0.0.2, the attacks from 127.0.0.1.
#
#   examples/hostile.sh SERVER_BINARY [ATTACK...]
#   examples/hostile.sh target/release/capicua-server
#   IDLE_CONNECTIONS=5000 SECONDS_EACH=30 examples/hostile.sh ./old-server idle chat
#
# Sizes (environment; defaults are the audit's sizes):
#   SECONDS_EACH (60: each attack's duration), BASELINE (10), RECOVERY (30),
#   FILL_GUESS (50), BOT_NAMES (25), BOT_ROOMS (4), REPLAY_REQUESTS (4),
#   LONG_MAX_PIP (18), LONG_HAND_SIZE (47), LONG_HANDS (100), REVIEWS (2),
#   IDLE_CONNECTIONS (20000), SPECTATORS (50), RESYNC_PER_SEC (10),
#   LADDER_NAMES (1000), LADDER_SECONDS (120), CHAT_SPECTATORS (200),
#   WS_SOCKETS (20000), WS_BATCH (50), FRAGMENT_SOCKETS (2000),
#   FRAGMENT_BYTES (1048576), HINT_ATTACKERS (4), ABANDONED_NAMES (10),
#   ABANDONED_ROOMS (4), STORE_NAMES (10), STORE_ROOMS (4), STORE_SECONDS
#   (75), BOT_ROW_ROOMS (4), GUESS_CONNECTIONS (8), PING_CONNECTIONS (8),
#   REPLAY_PARALLEL (16).
# Also PORT (first port tried, 18600), HOSTILE (the capicua-hostile binary,
# default target/release/capicua-hostile beside this script), OUT (the
# full output, default hostile-<time>.log in the current directory).
#
# Linux only (/proc). Builds nothing: `cargo build --release -p
# capicua-hostile` first.
set -uo pipefail
[ $# -ge 1 ] || { sed -n '2,34p' "$0" >&2; exit 2; }
server_bin=$(realpath "$1")
shift
attacks=("$@")
[ ${#attacks[@]} -gt 0 ] || attacks=(fill-bots bot-rooms replay review idle slow-spectators ladder-flood chat
    ws-flood fragments hint-starve abandoned-rooms store-flood squat bot-rows admin-guess
    subscribe-flood pings replay-burst)
hostile=${HOSTILE:-"$(dirname "$0")/../target/release/capicua-hostile"}
[ -x "$server_bin" ] || { echo "no server binary at $server_bin" >&2; exit 2; }
[ -x "$hostile" ] || { echo "no capicua-hostile at $hostile (cargo build --release -p capicua-hostile)" >&2; exit 2; }
secs=${SECONDS_EACH:-60}
out=${OUT:-"hostile-$(date +%Y%m%d-%H%M%S).log"}
rows=$(mktemp)
port=${PORT:-18600}
work=$(mktemp -d)
trap 'rm -rf "$work" "$rows"' EXIT

sizes() {
    case $1 in
    fill-bots) echo --guess "${FILL_GUESS:-50}" ;;
    bot-rooms) echo --names "${BOT_NAMES:-25}" --rooms "${BOT_ROOMS:-4}" --seconds "$secs" ;;
    replay) echo --requests "${REPLAY_REQUESTS:-4}" --seconds "$secs" \
        --max-pip "${LONG_MAX_PIP:-18}" --hand-size "${LONG_HAND_SIZE:-47}" --hands "${LONG_HANDS:-100}" ;;
    review) echo --reviews "${REVIEWS:-2}" --seconds "$secs" \
        --max-pip "${LONG_MAX_PIP:-18}" --hand-size "${LONG_HAND_SIZE:-47}" --hands "${LONG_HANDS:-100}" ;;
    idle) echo --connections "${IDLE_CONNECTIONS:-20000}" --seconds "$secs" ;;
    slow-spectators) echo --spectators "${SPECTATORS:-50}" --resync-per-sec "${RESYNC_PER_SEC:-10}" --seconds "$secs" ;;
    ladder-flood) echo --names "${LADDER_NAMES:-1000}" --seconds "${LADDER_SECONDS:-120}" ;;
    chat) echo --spectators "${CHAT_SPECTATORS:-200}" --seconds "$secs" ;;
    ws-flood) echo --sockets "${WS_SOCKETS:-20000}" --batch "${WS_BATCH:-50}" --seconds "$secs" ;;
    fragments) echo --sockets "${FRAGMENT_SOCKETS:-2000}" --bytes "${FRAGMENT_BYTES:-1048576}" --seconds "$secs" ;;
    hint-starve) echo --attackers "${HINT_ATTACKERS:-4}" --seconds "$secs" \
        --max-pip "${LONG_MAX_PIP:-18}" --hand-size "${LONG_HAND_SIZE:-47}" --hands "${LONG_HANDS:-100}" ;;
    abandoned-rooms) echo --names "${ABANDONED_NAMES:-10}" --rooms "${ABANDONED_ROOMS:-4}" --seconds "$secs" ;;
    store-flood) echo --names "${STORE_NAMES:-10}" --rooms "${STORE_ROOMS:-4}" --seconds "${STORE_SECONDS:-75}" \
        --database "$2" --max-pip "${LONG_MAX_PIP:-18}" --hand-size "${LONG_HAND_SIZE:-47}" --hands "${LONG_HANDS:-100}" ;;
    squat) echo --seconds "$secs" ;;
    bot-rows) echo --rooms "${BOT_ROW_ROOMS:-4}" --seconds "$secs" ;;
    admin-guess) echo --connections "${GUESS_CONNECTIONS:-8}" --seconds "$secs" ;;
    subscribe-flood) echo --seconds "$secs" ;;
    pings) echo --connections "${PING_CONNECTIONS:-8}" --seconds "$secs" ;;
    replay-burst) echo --parallel "${REPLAY_PARALLEL:-16}" --seconds "$secs" \
        --max-pip "${LONG_MAX_PIP:-18}" --hand-size "${LONG_HAND_SIZE:-47}" --hands "${LONG_HANDS:-100}" ;;
    *) echo "unknown attack $1" >&2; return 1 ;;
    esac
}

free_port() {
    while (echo >"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do port=$((port + 1)); done
}

for attack in "${attacks[@]}"; do
    db="$work/$attack.db"
    flags=$(sizes "$attack" "$db") || continue
    free_port
    token=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
    CAPICUA_ADMIN_TOKEN=$token "$server_bin" serve --listen "127.0.0.1:$port" --database "$db" \
        >"$work/$attack.server.log" 2>&1 &
    pid=$!
    up=
    for _ in $(seq 100); do
        if curl -sf "http://127.0.0.1:$port/healthz" >/dev/null; then up=1; break; fi
        sleep 0.2
    done
    if [ -z "$up" ]; then
        printf '%s\tserver did not start\n' "$attack" >>"$rows"
        kill "$pid" 2>/dev/null
        continue
    fi
    echo "== $attack: server pid $pid on port $port; load average $(cut -d' ' -f1-3 /proc/loadavg) ==" | tee -a "$out"
    # shellcheck disable=SC2086 # the sizes are separate words
    if ! CAPICUA_ADMIN_TOKEN=$token "$hostile" "$attack" --server "http://127.0.0.1:$port" --pid "$pid" \
        --healthz-timeout-ms 1000 --baseline "${BASELINE:-10}" --recovery "${RECOVERY:-30}" --row "$rows" $flags 2>&1 | tee -a "$out"; then
        printf '%s\tcapicua-hostile failed (see %s)\n' "$attack" "$out" >>"$rows"
    fi
    if ! kill -0 "$pid" 2>/dev/null; then
        { echo "the server died; the end of its log:"; tail -20 "$work/$attack.server.log"; } | tee -a "$out"
    fi
    kill -TERM "$pid" 2>/dev/null
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
    kill -KILL "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    port=$((port + 1))
done

echo
{
    printf 'attack\tcpu peak\trss peak\tthreads peak\tfds peak\tprobe p99 base/attack\tprobe max attack\thealthz fail+timeout\tadmin fail+timeout\trecovered\n'
    cat "$rows"
} | column -t -s $'\t' | tee -a "$out"
echo "full output: $out"

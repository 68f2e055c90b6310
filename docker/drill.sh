#!/usr/bin/env bash
# The Docker drill: docker-compose.yml as a user runs it, on the real engine.
#
#   docker/drill.sh                                   the image from source
#   CAPICUA_DRILL_BINARIES=target/debug docker/drill.sh   from binaries built
#                                                         on the host (.ci/run)
#
# CAPICUA_DRILL_BINARIES=DIR takes capicua-server and capicua-bot from DIR
# (built by cargo on this host, any profile), strips them into docker/prebuilt
# (removed on exit) and builds the image around them (docker/cargo-build.sh):
# no compile inside Docker and no builder image, which .ci/run, having built
# them for its tests, would otherwise pay for a second time in release mode.
# They must run on the runtime image's Debian release (bookworm's glibc).
#
# 1. base images: docker/local-images.sh (kept between runs; --no-builder with
#    CAPICUA_DRILL_BINARIES), unless CAPICUA_RUNTIME_IMAGE,
#    CAPICUA_POSTGRES_IMAGE and CAPICUA_BUILDER_IMAGE (not needed with
#    CAPICUA_DRILL_BINARIES) name images already
# 2. build: the image, from source or around the binaries; checks its size,
#    user, health check, stripped binaries; compose refuses to start without
#    CAPICUA_ADMIN_TOKEN, so does the image, which also takes it from a file
#    (a Docker secret); the server publishes on 127.0.0.1 by default
# 3. up --scale bot=2: the bots register, the tournament is created and runs
# 4. the container playing bot-1 is killed and removed in the middle of a
#    match; its replacement (a new container, a new hostname) takes slot 1
#    back with the same token, and the seat resumes: the match goes on in the
#    same room and no move of bot-1 times out
# 5. the server process is killed (-9) in the middle of a match: the restart
#    policy brings it back, it resumes the tournament and replays that match
#    from its start
# 6. the tournament finishes with every match stored once; the standings are
#    read from the host (HTTP) and with `exec server capicua-server standings`
# 7. down, then up: the standings, the tournament and the bots' tokens are kept
# 8. the cluster profile: PostgreSQL and three nodes; a tournament of hosted
#    bots starts, the node running it is killed (-9), another node takes it
#    over and finishes it with every table stored once
#
# Works with `docker compose` (v2) or `docker-compose` (v1), whichever exists
# (CAPICUA_DRILL_COMPOSE="docker-compose" picks one). A compose project of its
# own, removed with its volumes on exit (CAPICUA_DRILL_KEEP=1 keeps it to look
# at). The image is kept as capicua:drill, so the next run reuses its layers.
# Needs docker, curl and python3 (to read JSON).
set -euo pipefail
# Relative to where the drill was started, not to the repository.
binaries="${CAPICUA_DRILL_BINARIES:-}"
if [ -n "$binaries" ]; then
  binaries=$(cd "$binaries" && pwd) || {
    echo "drill: CAPICUA_DRILL_BINARIES: no directory $CAPICUA_DRILL_BINARIES" >&2
    exit 1
  }
fi
cd "$(dirname "$0")/.."

# Three legs: the bot's and the server's kills each need a match of the slow
# bot still to come, after steps that take seconds each when the machine is
# loaded (compose's ps, docker exec); two legs ran out before the server's.
legs="${CAPICUA_DRILL_LEGS:-3}"
step_timeout="${CAPICUA_DRILL_TIMEOUT:-180}"

drill_start=$(date +%s)
phase_start=$drill_start
phases=()
say() { echo "drill: $*" >&2; }
fail() {
  say "FAILED: $*"
  exit 1
}
# Ends the current phase: its time goes into the summary.
phase_done() {
  local now
  now=$(date +%s)
  phases+=("$(printf '%-44s %4d s' "$1" $((now - phase_start)))")
  say "$1: $((now - phase_start)) s"
  phase_start=$now
}

# Waits until `check` succeeds, polling once a second, for at most
# step_timeout seconds.
wait_for() {
  local what=$1
  shift
  local deadline=$(($(date +%s) + step_timeout))
  until "$@" >/dev/null; do
    [ "$(date +%s)" -lt "$deadline" ] || fail "waited ${step_timeout} s for $what"
    sleep 1
  done
}

if [ -n "${CAPICUA_DRILL_COMPOSE:-}" ]; then
  read -r -a compose_cmd <<<"$CAPICUA_DRILL_COMPOSE"
elif docker compose version >/dev/null 2>&1; then
  compose_cmd=(docker compose)
elif command -v docker-compose >/dev/null 2>&1; then
  compose_cmd=(docker-compose)
else
  fail "neither \`docker compose\` nor \`docker-compose\` is installed"
fi
for tool in curl python3; do
  command -v "$tool" >/dev/null || fail "$tool is needed"
done
say "compose: ${compose_cmd[*]} ($("${compose_cmd[@]}" version --short 2>/dev/null || echo '?'))"

work=$(mktemp -d)
export COMPOSE_PROJECT_NAME="capicua-drill-$$"
export CAPICUA_IMAGE=capicua:drill
export CAPICUA_ADMIN_TOKEN
CAPICUA_ADMIN_TOKEN=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
# A free port of the loopback interface (found with `compose port`), so the
# drill never collides with a server already on 8080.
export CAPICUA_PUBLISH=127.0.0.1:0
export CAPICUA_TOURNAMENT_FILE="$work/tournament.toml"
compose() { "${compose_cmd[@]}" "$@"; }

cleanup() {
  local status=$?
  if [ "$status" -ne 0 ]; then
    say "logs of the failed run:"
    compose --profile cluster logs --no-color --tail=40 >&2 2>&1 || true
  fi
  [ -z "${secret_server:-}" ] || docker rm -f "$secret_server" >/dev/null 2>&1 || true
  # Left behind, the binaries would go into the next `docker-compose up --build`.
  [ -z "$binaries" ] || rm -rf docker/prebuilt
  if [ "${CAPICUA_DRILL_KEEP:-}" = 1 ]; then
    say "kept: COMPOSE_PROJECT_NAME=$COMPOSE_PROJECT_NAME CAPICUA_IMAGE=$CAPICUA_IMAGE CAPICUA_TOURNAMENT_FILE=$CAPICUA_TOURNAMENT_FILE"
  else
    compose --profile cluster down -v --remove-orphans >/dev/null 2>&1 || true
    rm -rf "$work"
  fi
  exit "$status"
}
trap cleanup EXIT

# docker/tournament.toml's two remote bots and a quick hosted bot, and a
# hosted bot that thinks for a while (0.1 s a move by its time cap, a few seconds a
# match): remote bots play a match in a few milliseconds, and the drill must
# find a match in play to kill something in its middle. Six matches a leg.
slow=3
# A round robin between four entrants: NAME LEGS ENTRANT...
round_robin() {
  local name=$1 legs=$2
  shift 2
  local entrants
  entrants=$(printf '"%s", ' "$@")
  printf 'name = "%s"\nseed = 11\ntable = "duel"\nvariants = ["block", "draw"]\nentrants = [%s]\n\n[[stages]]\nformat = "round-robin"\nlegs = %s\n' \
    "$name" "${entrants%, }" "$legs"
}
round_robin "docker drill" "$legs" bot-1 bot-2 bot:heuristic bot:pimc:samples=2000:rollouts=16:ms=100 >"$CAPICUA_TOURNAMENT_FILE"
matches=$((6 * legs))

# A build from source with binaries in docker/prebuilt would take them.
if [ -z "$binaries" ] && [ -e docker/prebuilt ]; then
  fail "docker/prebuilt exists (left by a drill that was killed?): the build would take its binaries, not the sources; remove it"
fi

# ---- 1. base images
local_images=()
if [ -n "$binaries" ]; then
  # The build stage only copies the binaries: the runtime image can run it.
  [ -z "${CAPICUA_RUNTIME_IMAGE:-}" ] || CAPICUA_BUILDER_IMAGE="${CAPICUA_BUILDER_IMAGE:-$CAPICUA_RUNTIME_IMAGE}"
  local_images=(--no-builder)
fi
if [ -n "${CAPICUA_BUILDER_IMAGE:-}" ] && [ -n "${CAPICUA_RUNTIME_IMAGE:-}" ] && [ -n "${CAPICUA_POSTGRES_IMAGE:-}" ]; then
  say "base images given: $CAPICUA_BUILDER_IMAGE, $CAPICUA_RUNTIME_IMAGE, $CAPICUA_POSTGRES_IMAGE"
else
  eval "$(docker/local-images.sh ${local_images[@]+"${local_images[@]}"})"
fi
export CAPICUA_BUILDER_IMAGE CAPICUA_RUNTIME_IMAGE CAPICUA_POSTGRES_IMAGE
phase_done "base images"

# ---- 2. build and static checks
if [ -n "$binaries" ]; then
  rm -rf docker/prebuilt
  mkdir docker/prebuilt
  for bin in capicua-server capicua-bot; do
    [ -x "$binaries/$bin" ] || fail "no $bin in $binaries (CAPICUA_DRILL_BINARIES): build it first"
    # A dev build's debug info is most of its size.
    if command -v strip >/dev/null; then
      strip --strip-all -o "docker/prebuilt/$bin" "$binaries/$bin"
    elif command -v objcopy >/dev/null; then
      objcopy --strip-all "$binaries/$bin" "docker/prebuilt/$bin"
    else
      fail "strip or objcopy (binutils) is needed to strip the binaries of $binaries"
    fi
  done
  say "binaries from $binaries, stripped: $(du -ch docker/prebuilt/* | tail -1 | cut -f1)"
fi
compose build >"$work/build.log" 2>&1 || {
  tail -40 "$work/build.log" >&2
  fail "the image does not build"
}
size=$(docker image inspect -f '{{.Size}}' "$CAPICUA_IMAGE")
say "image $CAPICUA_IMAGE: $((size / 1000000)) MB"
# The limit is for the image users build: release binaries, 14 MB stripped.
# Binaries of another profile (CAPICUA_DRILL_BINARIES: a dev build is half as
# large again) are not what users get: there the image less its binaries
# must leave the release binaries 20 MB of the 100.
if [ -n "$binaries" ]; then
  rest=$((size - $(cat docker/prebuilt/capicua-server docker/prebuilt/capicua-bot | wc -c)))
  say "image less its binaries: $((rest / 1000000)) MB"
  [ "$rest" -lt 80000000 ] || fail "the image less its binaries is $((rest / 1000000)) MB, over 80 MB"
else
  [ "$size" -lt 100000000 ] || fail "the image is $((size / 1000000)) MB, over 100 MB"
fi
[ "$(docker image inspect -f '{{.Config.User}}' "$CAPICUA_IMAGE")" = capicua ] || fail "the image does not run as capicua"
[[ "$(docker image inspect -f '{{json .Config.Healthcheck.Test}}' "$CAPICUA_IMAGE")" == *capicua-server* ]] \
  || fail "the image has no health check"
if command -v readelf >/dev/null; then
  c=$(docker create "$CAPICUA_IMAGE")
  docker cp "$c:/usr/local/bin/capicua-server" "$work/capicua-server" >/dev/null
  docker rm "$c" >/dev/null
  # (Wide, for whole names. .debug_gdb_scripts, which a build with line
  # tables keeps through strip, is a loaded section of a few bytes naming
  # gdb's pretty printers, not debug info.)
  sections=$(readelf -SW "$work/capicua-server" | grep -v '\.debug_gdb_scripts')
  ! grep -q '\.debug_\|\.symtab' <<<"$sections" || fail "capicua-server carries debug info or symbols"
fi
# No token, no server: compose says so before starting anything, and so does
# the image itself.
if out=$(env -u CAPICUA_ADMIN_TOKEN "${compose_cmd[@]}" config 2>&1); then
  fail "compose accepted a configuration without CAPICUA_ADMIN_TOKEN"
fi
grep -q 'set CAPICUA_ADMIN_TOKEN' <<<"$out" || fail "compose's refusal does not name CAPICUA_ADMIN_TOKEN: $out"
if out=$(docker run --rm "$CAPICUA_IMAGE" 2>&1); then
  fail "the image served without an admin token"
fi
grep -q 'no admin token' <<<"$out" || fail "the image's refusal does not say why: $out"
# The token from a file (a Docker secret) instead of the environment: the
# server takes it as the admin's (a bad spec answers 400, not 401).
printf '%s\n' "$CAPICUA_ADMIN_TOKEN" >"$work/admin-token"
chmod 644 "$work/admin-token"
secret_server=$(docker run -d -p 127.0.0.1:0:8080 -v "$work/admin-token:/run/secrets/admin:ro" \
  -e CAPICUA_ADMIN_TOKEN_FILE=/run/secrets/admin "$CAPICUA_IMAGE")
container_healthy() { [ "$(docker inspect -f '{{.State.Health.Status}}' "$1")" = healthy ]; }
wait_for "the server with a token file to be healthy" container_healthy "$secret_server"
code=$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $CAPICUA_ADMIN_TOKEN" \
  --data-binary 'name = 1' "http://$(docker port "$secret_server" 8080 | head -1)/api/tournaments")
[ "$code" = 400 ] || fail "the token from CAPICUA_ADMIN_TOKEN_FILE is not the admin's (HTTP $code)"
docker rm -f "$secret_server" >/dev/null
secret_server=""
# (Captured first: `grep -q` leaving early would fail the pipe.)
config=$(env -u CAPICUA_PUBLISH "${compose_cmd[@]}" config)
grep -q '127\.0\.0\.1' <<<"$config" || fail "the server is not published on 127.0.0.1 by default"
phase_done "build and checks (image $((size / 1000000)) MB${binaries:+, prebuilt})"

# ---- 3. up: registration, creation, play
container() { compose ps -q "$1" | head -1; }
address() { compose port server 8080 | tail -1; }
api() { curl -fsS "http://$addr$1"; }
# Reads JSON on stdin and evaluates a Python expression on it as `j`.
# (Further arguments are sys.argv[1:].)
json() {
  local expr=$1
  shift
  python3 -c "import json, sys; j = json.load(sys.stdin); print($expr)" "$@"
}
# "STATUS RESULTS" of tournament 1, from the list (the detail lists every table).
status() { api /api/tournaments | json 'next(t["status"] + " " + str(t["results"]) for t in j if t["id"] == 1)'; }
running() { [ "$(status 2>/dev/null | cut -d' ' -f1)" = running ]; }
results() { status | cut -d' ' -f2; }
healthy() { container_healthy "$(container server)"; }
# The container whose bot plays as $1.
bot_container() {
  local c
  for c in $(compose ps -q bot); do
    if grep -q "playing as $1 " <<<"$(docker logs "$c" 2>&1)"; then
      echo "$c"
      return 0
    fi
  done
  return 1
}

compose up -d --scale bot=2 >"$work/up.log" 2>&1 || {
  cat "$work/up.log" >&2
  fail "compose up"
}
addr=$(address)
say "server on http://$addr"
wait_for "the tournament to start" running
phase_done "up: bots registered, tournament running"

# ---- 4. a bot container killed and replaced mid-match
# ROUND:TABLE of each table in play (a room, no result yet) whose sides
# include every entrant index given.
in_play() {
  api /api/tournaments/1 | json '" ".join(str(r["number"]) + ":" + str(t["id"]) for r in j["rounds"] for t in r["tables"] if t["result"] is None and t["room"] is not None and all([int(e)] in t["sides"] for e in sys.argv[1:]))' "$@"
}
# The attempts (rooms) of table ROUND:TABLE, and whether it has a result.
table_state() {
  api /api/tournaments/1 | json 'next(str(t["attempts"]) + " " + str(t["result"] is not None) for r in j["rounds"] for t in r["tables"] if str(r["number"]) + ":" + str(t["id"]) == sys.argv[1])' "$1"
}
playing() { [ -n "$(in_play "$@")" ]; }

wait_for "bot-1's container" bot_container bot-1
old=$(bot_container bot-1)
token=$(docker exec "$old" cat /state/bot-1.token)
# (The table is read in the same look as the match in play: a second look
# may come after the match.)
bot_slow_table() {
  bot_table=$(in_play 0 "$slow" | cut -d' ' -f1)
  [ -n "$bot_table" ]
}
wait_for "bot-1 in a match against the slow bot" bot_slow_table
docker rm -f "$old" >/dev/null
say "removed bot-1's container ${old:0:12} in the match of table $bot_table"
compose up -d --scale bot=2 --no-recreate >>"$work/up.log" 2>&1 || fail "compose up after removing a bot"
replaced() {
  local c
  c=$(bot_container bot-1) && [ "$c" != "$old" ]
}
wait_for "a new container to play as bot-1" replaced
new=$(bot_container bot-1)
[ "$(docker exec "$new" cat /state/bot-1.token)" = "$token" ] || fail "bot-1's token changed"
table_done() { [ "$(table_state "$1" | cut -d' ' -f2)" = True ]; }
wait_for "table $bot_table to finish" table_done "$bot_table"
[ "$(table_state "$bot_table" | cut -d' ' -f1)" = 1 ] \
  || fail "table $bot_table needed another room: bot-1's seat did not resume"
phase_done "bot container replaced, its seat resumed"

# ---- 5. the server killed mid-match, restarted by its restart policy
# A match seen in play can end in the instant before the kill goes in: then
# its table has its result from its first room once the server is back, and
# the kill proved nothing. Kill again (a few times at most) until a kill
# lands in a match that is still unfinished after the restart.
kills=0
while :; do
  running || fail "the tournament ended before the server restart: raise CAPICUA_DRILL_LEGS"
  # Everything the kill needs is ready before the wait: a match of the slow
  # bot lasts a few seconds, about what compose's `ps` or the start of a
  # `docker exec` takes on a loaded machine. The shell that kills is already
  # running in the container (it said so), waiting for a line on its
  # standard input.
  server=$(container server)
  restarts=$(docker inspect -f '{{.RestartCount}}' "$server")
  rm -f "$work/kill"
  mkfifo "$work/kill"
  # -1: every process the container's user may signal but its init and the
  # shell itself; the init then exits as the server did: a crash, not a stop,
  # to Docker.
  docker exec -i "$server" sh -c 'echo ready && read -r _ && kill -9 -1' <"$work/kill" >"$work/killer" &
  killer=$!
  exec 3>"$work/kill"
  killer_ready() { grep -qs ready "$work/killer"; }
  wait_for "a shell in the server's container" killer_ready
  slow_table() {
    server_table=$(in_play "$slow" | cut -d' ' -f1)
    [ -n "$server_table" ]
  }
  wait_for "a match of the slow bot in play" slow_table
  echo kill >&3
  exec 3>&-
  wait "$killer" || true
  kills=$((kills + 1))
  say "killed the server in the match of table $server_table"
  restarted() { [ "$(docker inspect -f '{{.RestartCount}}' "$server")" -gt "$restarts" ]; }
  wait_for "the server's restart" restarted
  wait_for "the restarted server to be healthy" healthy
  addr=$(address)
  [ "$(table_state "$server_table")" = "1 True" ] || break
  [ "$kills" -lt 3 ] || fail "$kills kills in a row came after the match of their table had ended"
  say "table $server_table had ended before the kill; killing again"
done
phase_done "server killed and restarted"

# ---- 6. the end, and the standings
finished() { [ "$(status 2>/dev/null | cut -d' ' -f1)" = finished ]; }
wait_for "the tournament to finish" finished
[ "$(results)" = "$matches" ] || fail "$(results) results stored, $matches expected"
[ "$(table_state "$server_table" | cut -d' ' -f1)" -ge 2 ] \
  || fail "table $server_table, interrupted by the server's death, was not replayed in a new room"
api /api/tournaments/1/standings >"$work/standings.json"
[ "$(json 'len(j)' <"$work/standings.json")" = 4 ] || fail "standings: $(cat "$work/standings.json")"
# Every match stored once: each entrant played 3 per leg.
[ "$(json 'all(r["games"] == 3 * '"$legs"' for r in j)' <"$work/standings.json")" = True ] \
  || fail "games per entrant: $(cat "$work/standings.json")"
# bot-1's seat resumed: its replacement moved in time, nothing timed out.
[ "$(json '[r["timeouts"] for r in j if r["name"] == "bot-1"][0]' <"$work/standings.json")" = 0 ] \
  || fail "bot-1 timed out: its seat did not resume: $(cat "$work/standings.json")"
compose exec -T server capicua-server standings --tournament 1 >"$work/standings.txt"
if ! grep -q 'docker drill (tournament 1, finished' "$work/standings.txt" || ! grep -q 'bot-1' "$work/standings.txt"; then
  fail "exec standings: $(cat "$work/standings.txt")"
fi
cat "$work/standings.txt" >&2
# The image's server embeds the browser client: the page answers at /. A
# debug build (CAPICUA_DRILL_BINARIES=target/debug) embeds nothing: it reads
# web/ from its source tree at each request (server/src/web.rs), a tree the
# image does not have. Only a server that holds the page is asked for it.
if [ -z "$binaries" ] || grep -q '<title>capicua' docker/prebuilt/capicua-server; then
  api / | grep -q '<title>capicua' || fail "the browser client is not served at /"
else
  say "the browser client at /: not checked, $binaries/capicua-server is a debug build (it reads web/ from its sources)"
fi
phase_done "finished, standings from host and exec"

# ---- 7. down and up: everything kept
compose down >>"$work/up.log" 2>&1 || fail "compose down"
compose up -d --scale bot=2 >>"$work/up.log" 2>&1 || fail "compose up after down"
addr=$(address)
wait_for "the server after down and up" healthy
api /api/tournaments/1/standings >"$work/standings-after.json"
cmp -s "$work/standings.json" "$work/standings-after.json" || fail "the standings changed across down and up"
[ "$(api /api/tournaments | json 'len(j)')" = 1 ] || fail "down and up created another tournament"
wait_for "bot-1's container after up" bot_container bot-1
[ "$(docker exec "$(bot_container bot-1)" cat /state/bot-1.token)" = "$token" ] || fail "bot-1's token changed across down and up"
done_tournament() { [ "$(docker inspect -f '{{.State.Status}} {{.State.ExitCode}}' "$(compose ps -a -q tournament | head -1)")" = "exited 0" ]; }
wait_for "the tournament service to see its marker and exit" done_tournament
phase_done "down and up: standings, tournament, tokens kept"

# ---- 8. the cluster profile: three nodes on PostgreSQL, the scheduler killed
compose down >>"$work/up.log" 2>&1 || fail "compose down before the cluster"
export CAPICUA_POSTGRES_PASSWORD
CAPICUA_POSTGRES_PASSWORD=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
export CAPICUA_NODE1_PUBLISH=127.0.0.1:0 CAPICUA_NODE2_PUBLISH=127.0.0.1:0 CAPICUA_NODE3_PUBLISH=127.0.0.1:0
cluster() { compose --profile cluster "$@"; }
cluster up -d postgres node1 node2 node3 >>"$work/up.log" 2>&1 || {
  cat "$work/up.log" >&2
  fail "compose --profile cluster up"
}
addr=$(cluster port node1 8080 | tail -1)
say "node1 on http://$addr"
# "N S": live nodes, and how many say they run the tournaments.
nodes() { api /api/nodes | json 'str(len(j)) + " " + str(sum(1 for n in j if n["scheduler"]))'; }
three_nodes() { [ "$(nodes 2>/dev/null)" = "3 1" ]; }
wait_for "three live nodes, one of them the scheduler" three_nodes
# One leg: the scheduler is killed in the first match of the slow bot in
# play, and a second leg would only be more matches to wait for.
round_robin "cluster drill" 1 bot:heuristic#1 bot:smart#2 bot:random#3 bot:pimc:samples=2000:rollouts=16:ms=100#4 \
  >"$work/cluster.toml"
curl -fsS -H "Authorization: Bearer $CAPICUA_ADMIN_TOKEN" --data-binary @"$work/cluster.toml" \
  "http://$addr/api/tournaments" >/dev/null || fail "creating the cluster's tournament"
wait_for "the cluster's tournament to start" running
# The node that runs it, by the URL it publishes (node N: port 808N).
scheduler=$(api /api/nodes | json 'next("node" + n["url"][-1] for n in j if n["scheduler"])')
if [ "$scheduler" = node1 ]; then
  addr=$(cluster port node2 8080 | tail -1)
  say "node1 runs the tournament: asking node2 from now on"
fi
# (Its container is read before the wait: compose's `ps` takes seconds.)
scheduler_container=$(cluster ps -q "$scheduler" | head -1)
wait_for "a match of the slow bot in play" playing 3
docker kill "$scheduler_container" >/dev/null
say "killed $scheduler, which ran the tournament, at $(results) results"
wait_for "another node to finish the tournament" finished
[ "$(results)" = 6 ] || fail "$(results) results stored in the cluster, 6 expected"
replayed=$(api /api/tournaments/1 | json 'sum(1 for r in j["rounds"] for t in r["tables"] if t["attempts"] > 1)')
say "the cluster finished the tournament; $replayed table(s) replayed after the kill"
cluster down -v >>"$work/up.log" 2>&1 || fail "compose --profile cluster down"
phase_done "cluster: scheduler killed, another node finished"

say "passed in $(($(date +%s) - drill_start)) s with ${compose_cmd[*]}:"
printf '  %s\n' "${phases[@]}" >&2
echo "docker-drill: ${#phases[@]} passed, 0 failed"

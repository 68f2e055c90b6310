#!/bin/sh
# One remote bot of a scaled compose service (installed as capicua-bot-slot;
# `docker-compose up --scale bot=N` runs N of them on one shared volume).
#
# Each container claims the first free slot k (1, 2, ...) by holding an
# exclusive lock on STATE/bot-k.lock for as long as its bot runs, and plays
# as the registered player bot-k with its token in STATE/bot-k.token:
# registered over the WebSocket on the slot's first start, read back on
# every later one. A container's hostname changes when it is recreated, a
# slot does not: the replacement of a killed container takes the freed slot,
# its name and its token, and gets its seats back.
#
# Environment: CAPICUA_SERVER (default ws://server:8080/ws),
# CAPICUA_BOT_STRATEGY (default smart), CAPICUA_BOT_STATE (default /state),
# CAPICUA_BOT_PREFIX (default bot), CAPICUA_BOT_SLOTS (default 64).
# Arguments go to `capicua-bot play`.
set -eu
state=${CAPICUA_BOT_STATE:-/state}
prefix=${CAPICUA_BOT_PREFIX:-bot}
slots=${CAPICUA_BOT_SLOTS:-64}
k=1
while [ "$k" -le "$slots" ]; do
  name=$prefix-$k
  # fd 9 stays open through exec: the bot process itself holds the lock,
  # and the kernel releases it whenever that process ends, however it ends.
  exec 9>"$state/$name.lock"
  if flock -n 9; then
    echo "capicua-bot-slot: playing as $name (token file $state/$name.token)" >&2
    exec capicua-bot play \
      --server "${CAPICUA_SERVER:-ws://server:8080/ws}" \
      --register "$name" --token-file "$state/$name.token" \
      --strategy "${CAPICUA_BOT_STRATEGY:-smart}" \
      --await-assignments "$@"
  fi
  k=$((k + 1))
done
echo "capicua-bot-slot: error: all $slots slots under $state are taken (raise CAPICUA_BOT_SLOTS)" >&2
exit 1

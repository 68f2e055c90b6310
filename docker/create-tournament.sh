#!/bin/sh
# Creates the tournament of FILE once (installed as
# capicua-create-tournament; docker-compose.yml runs it as a one-shot
# service). Its entrants must be registered players when it is created, and
# the bots register themselves when they first start: so while the server
# answers that an entrant is not registered, this waits for the bots
# (CAPICUA_REGISTER_WAIT seconds, default 600) and tries again.
#
# A marker in /data named after the file's content keeps a restart, or
# `docker-compose down` then `up`, from creating it twice; an edited file is
# a new tournament.
#
# Usage: capicua-create-tournament [FILE]   (default /etc/capicua/tournament.toml)
set -eu
file=${1:-/etc/capicua/tournament.toml}
wait_secs=${CAPICUA_REGISTER_WAIT:-600}
[ -r "$file" ] || { echo "capicua-create-tournament: error: cannot read $file" >&2; exit 64; }
marker=/data/tournament-$(sha256sum "$file" | cut -c1-16).created
if [ -f "$marker" ]; then
  echo "capicua-create-tournament: $file was created before: $(cat "$marker")"
  exit 0
fi
start=$(date +%s)
said=""
while :; do
  if out=$(RUST_LOG=warn capicua-server tournament create --file "$file" 2>&1); then
    printf '%s\n' "$out" > "$marker.tmp"
    mv "$marker.tmp" "$marker"
    echo "capicua-create-tournament: $out"
    exit 0
  fi
  case $out in
    *"no registered player"*) ;;
    *)
      echo "capicua-create-tournament: $out" >&2
      exit 1
      ;;
  esac
  if [ $(($(date +%s) - start)) -ge "$wait_secs" ]; then
    echo "capicua-create-tournament: $out: waited ${wait_secs} s for the bots to register; are there enough? (docker-compose up --scale bot=N)" >&2
    exit 1
  fi
  # Say each new reason once, not once a second.
  if [ "$out" != "$said" ]; then
    echo "capicua-create-tournament: waiting for the bots to register ($out)"
    said=$out
  fi
  sleep 1
done

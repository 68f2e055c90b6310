#!/bin/sh
# The entry point of capicua-postgres, the stand-in docker/local-images.sh
# makes for the official postgres image where no registry can be reached. It
# reads what the official image reads: POSTGRES_USER (default postgres),
# POSTGRES_PASSWORD (required), POSTGRES_DB (default: the user's name) and
# PGDATA (default /var/lib/postgresql/data). An empty data directory is
# initialised with that user and database; clients outside the container
# sign in with the password (scram-sha-256). Then it runs the server in the
# foreground as the postgres user.
set -eu
user=${POSTGRES_USER:-postgres}
db=${POSTGRES_DB:-$user}
data=${PGDATA:-/var/lib/postgresql/data}
bin=/usr/lib/postgresql/15/bin
if [ -z "${POSTGRES_PASSWORD:-}" ]; then
  echo "capicua-postgres: error: set POSTGRES_PASSWORD" >&2
  exit 64
fi
mkdir -p "$data" /var/run/postgresql
chown postgres:postgres "$data" /var/run/postgresql
chmod 700 "$data"
if [ ! -s "$data/PG_VERSION" ]; then
  pwfile=$(mktemp)
  printf '%s\n' "$POSTGRES_PASSWORD" > "$pwfile"
  chown postgres "$pwfile"
  runuser -u postgres -- "$bin/initdb" -D "$data" --username="$user" --pwfile="$pwfile" \
    --auth-local=trust --auth-host=scram-sha-256 >/dev/null
  rm -f "$pwfile"
  echo "host all all all scram-sha-256" >> "$data/pg_hba.conf"
  if [ "$db" != postgres ]; then
    echo "CREATE DATABASE \"$db\" OWNER \"$user\"" \
      | runuser -u postgres -- "$bin/postgres" --single -D "$data" -j postgres >/dev/null
  fi
  echo "capicua-postgres: initialised $data (user $user, database $db)"
fi
exec runuser -u postgres -- "$bin/postgres" -D "$data" -c listen_addresses='*'

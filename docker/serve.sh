#!/bin/sh
# The image's default command (installed as capicua-serve): capicua-server
# serve, which never starts without an admin token. The token comes from
# CAPICUA_ADMIN_TOKEN, or from the file CAPICUA_ADMIN_TOKEN_FILE names (a
# Docker secret, e.g. /run/secrets/capicua_admin_token), so it need not sit
# in the container's environment. Arguments go to `capicua-server serve`.
set -eu
if [ -n "${CAPICUA_ADMIN_TOKEN_FILE:-}" ]; then
  if [ ! -r "$CAPICUA_ADMIN_TOKEN_FILE" ]; then
    echo "capicua-serve: error: CAPICUA_ADMIN_TOKEN_FILE=$CAPICUA_ADMIN_TOKEN_FILE cannot be read" >&2
    exit 64
  fi
  # $(...) drops the trailing newline a secret file usually ends with.
  CAPICUA_ADMIN_TOKEN=$(cat "$CAPICUA_ADMIN_TOKEN_FILE")
  export CAPICUA_ADMIN_TOKEN
fi
if [ -z "${CAPICUA_ADMIN_TOKEN:-}" ]; then
  echo "capicua-serve: error: no admin token: set CAPICUA_ADMIN_TOKEN, or CAPICUA_ADMIN_TOKEN_FILE to a file holding it" >&2
  exit 64
fi
exec capicua-server serve "$@"

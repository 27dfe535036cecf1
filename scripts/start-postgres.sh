#!/usr/bin/env bash
# Starts a throwaway PostgreSQL server for tests, CI and local multi-instance trials.
#
#   scripts/start-postgres.sh [DIR]      (default DIR: $HOOKRELAY_PG_DIR, else /tmp/hookrelay-pg)
#
# Idempotent: installs Debian's postgresql when initdb/pg_ctl are missing, creates the cluster in
# DIR/data once, starts it if it is not running (unix socket in DIR, TCP on 127.0.0.1 at a free
# port), creates the database (HOOKRELAY_PG_DB, default hookrelay), then prints the connection URL
# on stdout and writes it to DIR/url. Trust authentication, loopback only: for tests, not for
# production. As root, the cluster belongs to the `postgres` user (initdb refuses to run as root).
# HOOKRELAY_PG_FSYNC=off turns fsync off (faster tests; never for data you keep).
# Stop it with scripts/stop-postgres.sh [DIR].
set -euo pipefail

DIR=${1:-${HOOKRELAY_PG_DIR:-/tmp/hookrelay-pg}}
DB=${HOOKRELAY_PG_DB:-hookrelay}
FSYNC=${HOOKRELAY_PG_FSYNC:-on}
log() { echo "start-postgres: $*" >&2; }

find_bindir() {
  if command -v initdb >/dev/null 2>&1 && command -v pg_ctl >/dev/null 2>&1; then
    dirname "$(readlink -f "$(command -v pg_ctl)")"
    return 0
  fi
  local dir
  for dir in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
    if [ -x "$dir/initdb" ] && [ -x "$dir/pg_ctl" ]; then echo "$dir"; return 0; fi
  done
  return 1
}

BIN=$(find_bindir || true)
if [ -z "$BIN" ]; then
  if [ "$(id -u)" != 0 ]; then
    log "initdb/pg_ctl not found and not root: install PostgreSQL (apt-get install postgresql) first"
    exit 1
  fi
  log "installing postgresql (apt-get)"
  apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >&2
  BIN=$(find_bindir) || { log "postgresql installed but initdb/pg_ctl not found"; exit 1; }
fi

# Run a server command as the cluster's owner: `postgres` when we are root, else ourselves.
if [ "$(id -u)" = 0 ]; then
  id postgres >/dev/null 2>&1 || useradd --system --home-dir /var/lib/postgresql --shell /bin/bash postgres
  as_owner() { runuser -u postgres -- "$@"; }
  OWNER=postgres
else
  as_owner() { "$@"; }
  OWNER=$(id -un)
fi

mkdir -p "$DIR"
DIR=$(cd "$DIR" && pwd)
[ "$(id -u)" = 0 ] && chown postgres: "$DIR"
chmod 700 "$DIR"
DATA="$DIR/data"

if [ ! -f "$DATA/PG_VERSION" ]; then
  log "creating a cluster in $DATA"
  as_owner "$BIN/initdb" -D "$DATA" -U "$OWNER" --auth=trust --encoding=UTF8 --locale=C.UTF-8 >"$DIR/initdb.log" 2>&1 \
    || as_owner "$BIN/initdb" -D "$DATA" -U "$OWNER" --auth=trust --encoding=UTF8 --no-locale >"$DIR/initdb.log" 2>&1 \
    || { cat "$DIR/initdb.log" >&2; exit 1; }
fi

free_port() {
  node -e "const s=require('net').createServer();s.listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})"
}

if as_owner "$BIN/pg_ctl" -D "$DATA" status >/dev/null 2>&1 && [ -f "$DIR/port" ]; then
  PORT=$(cat "$DIR/port")
else
  # A restart keeps the port it had, so URLs handed out before stay valid.
  if [ -f "$DIR/port" ]; then PORT=$(cat "$DIR/port"); else PORT=$(free_port); fi
  echo "$PORT" >"$DIR/port"
  log "starting on 127.0.0.1:$PORT (socket in $DIR)"
  as_owner "$BIN/pg_ctl" -D "$DATA" -l "$DIR/server.log" -w -t 60 start \
    -o "-c listen_addresses=127.0.0.1 -c port=$PORT -c unix_socket_directories='$DIR' -c max_connections=300 -c fsync=$FSYNC" >&2 \
    || { tail -n 30 "$DIR/server.log" >&2 || true; exit 1; }
fi

PSQL="$BIN/psql"
[ -x "$PSQL" ] || PSQL=psql
exists=$(as_owner "$PSQL" -h "$DIR" -p "$PORT" -U "$OWNER" -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname = '$DB'")
if [ "$exists" != 1 ]; then
  as_owner "$PSQL" -h "$DIR" -p "$PORT" -U "$OWNER" -d postgres -qc "CREATE DATABASE \"$DB\"" >&2
fi

URL="postgres://$OWNER@127.0.0.1:$PORT/$DB"
echo "$URL" >"$DIR/url"
echo "$URL"

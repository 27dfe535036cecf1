#!/usr/bin/env bash
# Stops the server started by scripts/start-postgres.sh.
#
#   scripts/stop-postgres.sh [DIR] [--immediate] [--remove]   (default DIR: $HOOKRELAY_PG_DIR, else /tmp/hookrelay-pg)
#
# Idempotent: nothing running is not an error. --immediate stops like a crash (no shutdown
# checkpoint; tests of connection loss use it); --remove also deletes DIR (cluster and all).
set -euo pipefail

DIR=${HOOKRELAY_PG_DIR:-/tmp/hookrelay-pg}
REMOVE=0
MODE=fast
for arg in "$@"; do
  case "$arg" in
    --remove) REMOVE=1 ;;
    --immediate) MODE=immediate ;;
    *) DIR=$arg ;;
  esac
done
DATA="$DIR/data"

if [ -f "$DATA/PG_VERSION" ]; then
  PG_CTL=$(command -v pg_ctl || ls -d /usr/lib/postgresql/*/bin/pg_ctl 2>/dev/null | sort -V -r | head -n 1)
  if [ "$(id -u)" = 0 ]; then run() { runuser -u postgres -- "$@"; }; else run() { "$@"; }; fi
  if run "$PG_CTL" -D "$DATA" status >/dev/null 2>&1; then
    run "$PG_CTL" -D "$DATA" -m "$MODE" -w -t 60 stop >&2
  fi
fi
if [ "$REMOVE" = 1 ]; then rm -rf "$DIR"; fi

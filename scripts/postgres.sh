#!/usr/bin/env bash
# postgres.sh: a throwaway PostgreSQL cluster for the history tests, on a Unix
# socket in a temporary directory (no TCP port), with trust authentication.
#
#   scripts/postgres.sh start DIR   installs Debian's postgresql when missing,
#                                   makes and starts a cluster in DIR (which must
#                                   not exist), and prints its URL on stdout
#   scripts/postgres.sh stop DIR    stops it at once and removes DIR
#
# PostgreSQL refuses to run as root: as root, initdb and pg_ctl run as the
# `postgres` user (runuser), who owns DIR. The URL names the socket directory,
# the superuser and the database `postgres`:
#   postgres://postgres@%2Ftmp%2Fpg.x/postgres
set -euo pipefail

usage() { echo "usage: $0 start|stop DIR" >&2; exit 2; }
(($# == 2)) || usage
action=$1
dir=$(realpath -m "$2")

bin_dir() {
  local initdb
  initdb=$(compgen -G '/usr/lib/postgresql/*/bin/initdb' | sort -V | tail -n 1 || true)
  [[ -n $initdb ]] && dirname "$initdb"
}

as_postgres() {
  if ((EUID == 0)); then runuser -u postgres -- "$@"; else "$@"; fi
}

case $action in
  start)
    [[ -e $dir ]] && { echo "postgres.sh: $dir exists; give a new directory" >&2; exit 1; }
    if [[ -z $(bin_dir) ]]; then
      echo "postgres.sh: installing postgresql" >&2
      export DEBIAN_FRONTEND=noninteractive
      apt-get update -qq >&2
      apt-get install -y -qq --no-install-recommends postgresql >&2
    fi
    bin=$(bin_dir)
    mkdir -p "$dir"
    if ((EUID == 0)); then chown postgres: "$dir"; fi
    as_postgres "$bin/initdb" -D "$dir/data" -U postgres --auth=trust -E UTF8 >"$dir.initdb.log" 2>&1 \
      || { cat "$dir.initdb.log" >&2; exit 1; }
    rm -f "$dir.initdb.log"
    as_postgres "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w \
      -o "-c listen_addresses='' -c unix_socket_directories='$dir' -c fsync=off" start >&2 \
      || { cat "$dir/server.log" >&2; exit 1; }
    python3 -c 'import sys, urllib.parse; print("postgres://postgres@" + urllib.parse.quote(sys.argv[1], safe="") + "/postgres")' "$dir"
    ;;
  stop)
    bin=$(bin_dir)
    if [[ -n $bin && -d $dir/data ]]; then
      as_postgres "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop >&2 || true
    fi
    rm -rf "$dir"
    ;;
  *) usage ;;
esac

#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for tests: initdb in a temporary directory, a free loopback port, password
# authentication, run as an unprivileged user (postgres refuses root: as root it runs as the 'postgres' user
# through runuser). Needs Debian's postgresql package.
#
#   tools/postgres/throwaway.sh start         prints the URL, then the cluster directory; leaves it running
#   tools/postgres/throwaway.sh stop DIR      stops the cluster and removes DIR
#   tools/postgres/throwaway.sh restart DIR   stops (fast) and starts it again on the same port
#   tools/postgres/throwaway.sh down DIR      stops the server only (fast shutdown); `up DIR` starts it again
#   tools/postgres/throwaway.sh run CMD...    starts one, runs CMD with KWSUGGEST_TEST_POSTGRES_URL and
#                                             KWSUGGEST_TEST_POSTGRES_DIR set, stops and removes it on exit
#                                             (also on failure or Ctrl-C)
set -euo pipefail

bin_dir() {
  local dir
  for dir in /usr/lib/postgresql/*/bin; do
    [ -x "$dir/initdb" ] && { echo "$dir"; return 0; }
  done
  echo "throwaway.sh: PostgreSQL not found; install it: apt-get install postgresql" >&2
  return 1
}

# as_owner CMD...: runs CMD as the cluster's owner (the 'postgres' user when we are root).
as_owner() {
  if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

free_port() {
  local port attempt
  for attempt in $(seq 1 50); do
    port=$((20000 + RANDOM % 30000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then echo "$port"; return 0; fi
  done
  echo "throwaway.sh: no free port found" >&2
  return 1
}

start_server() {
  local dir=$1 bin
  bin=$(bin_dir)
  as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 30 \
    -o "-p $(cat "$dir/port") -c listen_addresses=127.0.0.1 -k $dir/socket" start >/dev/null \
    || { cat "$dir/server.log" >&2; return 1; }
}

start() {
  local bin dir port password
  bin=$(bin_dir)
  dir=$(mktemp -d /tmp/kwsuggest-pg.XXXXXX)
  chmod 755 "$dir"
  mkdir -p "$dir/socket"
  password=$(head -c 18 /dev/urandom | base64 | tr -d '/+=' | head -c 20)
  printf '%s\n' "$password" > "$dir/password"
  port=$(free_port)
  echo "$port" > "$dir/port"
  [ "$(id -u)" -eq 0 ] && chown -R postgres: "$dir"
  as_owner "$bin/initdb" -D "$dir/data" -U kwsuggest --pwfile="$dir/password" --auth=scram-sha-256 \
    -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 || { cat "$dir/initdb.log" >&2; return 1; }
  start_server "$dir"
  PGPASSWORD=$password as_owner "$bin/createdb" -h 127.0.0.1 -p "$port" -U kwsuggest kwsuggest
  echo "postgres://kwsuggest:$password@127.0.0.1:$port/kwsuggest?sslmode=disable"
  echo "$dir"
}

stop() {
  local dir=$1 bin
  case "$dir" in /tmp/kwsuggest-pg.*) ;; *) echo "throwaway.sh: not a throwaway cluster: $dir" >&2; return 1 ;; esac
  bin=$(bin_dir)
  [ -d "$dir/data" ] && as_owner "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
  rm -rf "$dir"
}

down() {
  local dir=$1 bin
  bin=$(bin_dir)
  as_owner "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null
}

restart() {
  down "$1"
  start_server "$1"
}

case "${1:-}" in
  start) start ;;
  stop) stop "${2:?usage: throwaway.sh stop DIR}" ;;
  restart) restart "${2:?usage: throwaway.sh restart DIR}" ;;
  down) down "${2:?usage: throwaway.sh down DIR}" ;;
  up) start_server "${2:?usage: throwaway.sh up DIR}" ;;
  run)
    shift
    [ $# -gt 0 ] || { echo "usage: throwaway.sh run CMD..." >&2; exit 64; }
    output=$(start)
    url=$(sed -n 1p <<<"$output")
    dir=$(sed -n 2p <<<"$output")
    trap 'stop "$dir"' EXIT
    trap 'exit 130' INT TERM
    KWSUGGEST_TEST_POSTGRES_URL=$url KWSUGGEST_TEST_POSTGRES_DIR=$dir "$@"
    ;;
  *) echo "usage: throwaway.sh start | stop DIR | restart DIR | down DIR | up DIR | run CMD..." >&2; exit 64 ;;
esac

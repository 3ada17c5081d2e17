#!/usr/bin/env bash
# Starts what the test suite talks to, on this machine, when it is not running already:
# PostgreSQL (127.0.0.1:5432, trust auth), Redis (127.0.0.1:6379), PgBouncer in transaction mode
# in front of that PostgreSQL (Debian's, as the postgres user: it refuses to run as root), and
# Debian's Chromium. What it cannot start or install is said in one line; with CI=true that is a
# failure. It prints the settings the suite needs, as `export` lines, last:
#
#   eval "$(bash scripts/test-services.sh)" && npm test
#
# `.ci/run` runs it too. Whatever it starts keeps running after it exits (PgBouncer's folder
# and pid file are under /tmp/ups-test-pgbouncer); run it again any time, it starts only what is
# missing.
set -uo pipefail
in_ci() { [ -n "${CI:-}" ] && [ "${CI:-}" != "false" ]; }
say() { echo "test-services: $*" >&2; }
missing() {
  say "$1"
  if in_ci; then exit 1; fi
}
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null 2>&1; then sudo -n "$@"; else return 1; fi; }

wait_for() {
  local what=$1; shift
  for _ in $(seq 1 30); do
    if "$@" >/dev/null 2>&1; then return 0; fi
    sleep 1
  done
  return 1
}

apt_install() {
  as_root apt-get update -qq >/dev/null 2>&1 || say "apt-get update failed; trying the cached package lists"
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq "$@" >/dev/null 2>&1
}

# PostgreSQL, Debian's cluster.
if ! pg_isready -h 127.0.0.1 -p 5432 -q 2>/dev/null; then
  say "starting PostgreSQL"
  as_root pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql 2>/dev/null | head -n 1)" main start >/dev/null 2>&1 || true
  wait_for PostgreSQL pg_isready -h 127.0.0.1 -p 5432 -q || missing "PostgreSQL is not running at 127.0.0.1:5432 and could not be started"
fi

# Redis, keeping nothing on disk.
if ! redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1; then
  say "starting Redis"
  redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no >/dev/null 2>&1 || true
  wait_for Redis redis-cli -h 127.0.0.1 -p 6379 ping || missing "Redis is not running at 127.0.0.1:6379 and could not be started"
fi

# PgBouncer in transaction mode on 6543 (or the next free port), in front of the PostgreSQL above.
pgbouncer_dir=/tmp/ups-test-pgbouncer
pgbouncer_port=
if [ -f "$pgbouncer_dir/port" ] && kill -0 "$(cat "$pgbouncer_dir/pgbouncer.pid" 2>/dev/null)" 2>/dev/null; then
  pgbouncer_port=$(cat "$pgbouncer_dir/port")
else
  if ! command -v pgbouncer >/dev/null 2>&1; then
    say "installing PgBouncer"
    apt_install pgbouncer || true
  fi
  if command -v pgbouncer >/dev/null 2>&1; then
    pgbouncer_port=6543
    while (exec 3<>"/dev/tcp/127.0.0.1/$pgbouncer_port") 2>/dev/null; do pgbouncer_port=$((pgbouncer_port + 1)); done
    rm -rf "$pgbouncer_dir" && mkdir -p "$pgbouncer_dir"
    cat >"$pgbouncer_dir/pgbouncer.ini" <<INI
[databases]
* = host=127.0.0.1 port=5432
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $pgbouncer_port
unix_socket_dir =
auth_type = trust
auth_file = $pgbouncer_dir/userlist.txt
pool_mode = transaction
default_pool_size = 5
max_client_conn = 1000
server_reset_query =
logfile = $pgbouncer_dir/pgbouncer.log
pidfile = $pgbouncer_dir/pgbouncer.pid
INI
    echo '"postgres" ""' >"$pgbouncer_dir/userlist.txt"
    echo "$pgbouncer_port" >"$pgbouncer_dir/port"
    if [ "$(id -u)" = 0 ]; then
      chown -R postgres "$pgbouncer_dir"
      runuser -u postgres -- pgbouncer -d -q "$pgbouncer_dir/pgbouncer.ini"
    else
      pgbouncer -d -q "$pgbouncer_dir/pgbouncer.ini"
    fi
    wait_for PgBouncer pg_isready -h 127.0.0.1 -p "$pgbouncer_port" -q || { say "PgBouncer did not come up (log: $pgbouncer_dir/pgbouncer.log)"; pgbouncer_port=; }
    [ -n "$pgbouncer_port" ] && say "PgBouncer (transaction mode) on port $pgbouncer_port"
  fi
  [ -n "$pgbouncer_port" ] || missing "PgBouncer could not be installed or started"
fi

# Chromium from Debian, never a downloaded browser.
if [ ! -x "${TEST_CHROMIUM:-/usr/bin/chromium}" ]; then
  say "installing Chromium"
  apt_install chromium || true
  [ -x "${TEST_CHROMIUM:-/usr/bin/chromium}" ] || missing "Chromium is not at ${TEST_CHROMIUM:-/usr/bin/chromium} and could not be installed"
fi

[ -n "$pgbouncer_port" ] && echo "export TEST_PGBOUNCER_URL=postgres://postgres@127.0.0.1:$pgbouncer_port/postgres"
exit 0

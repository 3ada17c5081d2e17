#!/usr/bin/env bash
# Starts what the test suite talks to, on this machine, when it is not running already:
# PostgreSQL (127.0.0.1:5432, trust auth), Redis (127.0.0.1:6379), PgBouncer in transaction mode
# in front of that PostgreSQL (Debian's, as the postgres user: it refuses to run as root), a
# PostgreSQL primary with its hot standby for the replica tests (two more Debian clusters, the
# standby made with pg_basebackup -R), HAProxy and Debian's Chromium. What it cannot start or
# install is said in one line; with CI=true that is a failure. It prints the settings the suite needs, as `export` lines, last:
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

# For the read-replica and multi-node tests, a primary of their own and its hot standby: Debian's
# clusters `scaleout` (a primary, on 5434 or the next free port) and `replica` (on 5433 or the
# next), of the same PostgreSQL, the standby made with `pg_basebackup -R` from that primary and
# streaming from it. A primary of their own, so the standby replays only what those tests write,
# not every database the rest of the suite makes (that replay took a core for a third of the run).
replica_port=
scaleout_port=
pg_version=$(ls /etc/postgresql 2>/dev/null | sort -V | tail -n 1)
cluster_port() { pg_lsclusters -h 2>/dev/null | awk -v v="$pg_version" -v c="$1" '$1 == v && $2 == c {print $3}'; }
free_port() { local port=$1; while (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do port=$((port + 1)); done; echo "$port"; }
answers() { [ "$(psql -h 127.0.0.1 -p "$1" -U postgres -Atqc "select pg_is_in_recovery()" 2>/dev/null)" = "$2" ]; }
is_primary() { answers "$1" f; }
is_standby() { answers "$1" t; }
# Trust on loopback, replication included, as the machine's own cluster trusts its connections.
trust_loopback() {
  printf 'local all all trust\nhost all all 127.0.0.1/32 trust\nhost replication all 127.0.0.1/32 trust\n' | as_root tee "/etc/postgresql/$pg_version/$1/pg_hba.conf" >/dev/null
}
make_scaleout_primary() {
  scaleout_port=$(cluster_port scaleout)
  if [ -z "$scaleout_port" ]; then
    scaleout_port=$(free_port 5434)
    as_root pg_createcluster "$pg_version" scaleout -p "$scaleout_port" >/dev/null 2>&1 || return 1
    trust_loopback scaleout || return 1
  fi
  as_root pg_ctlcluster --skip-systemctl-redirect "$pg_version" scaleout start >/dev/null 2>&1 || true
  wait_for primary is_primary "$scaleout_port"
}
make_replica() {
  [ -n "$pg_version" ] && command -v pg_createcluster >/dev/null 2>&1 || return 1
  make_scaleout_primary || return 1
  replica_port=$(cluster_port replica)
  local data="/var/lib/postgresql/$pg_version/replica"
  if [ -n "$replica_port" ]; then
    # A standby of another primary (an earlier layout) is made again.
    if as_root grep -q "port=$scaleout_port" "$data/postgresql.auto.conf" 2>/dev/null; then
      as_root pg_ctlcluster --skip-systemctl-redirect "$pg_version" replica start >/dev/null 2>&1 || true
      if wait_for replica is_standby "$replica_port"; then return 0; fi
    fi
    say "making the standby cluster $pg_version/replica again"
    as_root pg_dropcluster --stop "$pg_version" replica >/dev/null 2>&1 || return 1
  fi
  replica_port=$(free_port 5433)
  as_root pg_createcluster "$pg_version" replica -p "$replica_port" >/dev/null 2>&1 || return 1
  trust_loopback replica || return 1
  as_root find "$data" -mindepth 1 -delete || return 1
  as_root runuser -u postgres -- pg_basebackup -h 127.0.0.1 -p "$scaleout_port" -U postgres -D "$data" -R -X stream -c fast >/dev/null 2>&1 || return 1
  # The standby tells the primary which rows its queries still read, so replay never cancels them.
  echo 'hot_standby_feedback = on' | as_root tee "/etc/postgresql/$pg_version/replica/conf.d/standby.conf" >/dev/null
  as_root pg_ctlcluster --skip-systemctl-redirect "$pg_version" replica start >/dev/null 2>&1 || return 1
  wait_for replica is_standby "$replica_port"
}
if make_replica; then
  # A test run that ended while the replica tests had replay paused left it paused.
  psql -h 127.0.0.1 -p "$replica_port" -U postgres -Atqc 'select pg_wal_replay_resume()' >/dev/null 2>&1
  say "PostgreSQL primary $pg_version/scaleout on port $scaleout_port, its standby $pg_version/replica on port $replica_port"
else
  replica_port=
  missing "a PostgreSQL primary and standby for the replica tests could not be made (pg_createcluster, pg_basebackup -R); those tests skip"
fi

# HAProxy from Debian, for the multi-node test.
if ! command -v haproxy >/dev/null 2>&1; then
  say "installing HAProxy"
  apt_install haproxy || true
  command -v haproxy >/dev/null 2>&1 || missing "HAProxy could not be installed; the multi-node test skips"
fi

# Chromium from Debian, never a downloaded browser.
if [ ! -x "${TEST_CHROMIUM:-/usr/bin/chromium}" ]; then
  say "installing Chromium"
  apt_install chromium || true
  [ -x "${TEST_CHROMIUM:-/usr/bin/chromium}" ] || missing "Chromium is not at ${TEST_CHROMIUM:-/usr/bin/chromium} and could not be installed"
fi

[ -n "$pgbouncer_port" ] && echo "export TEST_PGBOUNCER_URL=postgres://postgres@127.0.0.1:$pgbouncer_port/postgres"
[ -n "$replica_port" ] && echo "export TEST_REPLICA_PRIMARY_URL=postgres://postgres@127.0.0.1:$scaleout_port/postgres TEST_REPLICA_URL=postgres://postgres@127.0.0.1:$replica_port/postgres"
exit 0

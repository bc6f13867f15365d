#!/usr/bin/env bash
# A real S3-compatible endpoint on loopback for tests: OpenStack Swift (Debian packages) with its s3api
# middleware and tempauth. Installs the packages on first use (needs root and apt-get; ~70 s measured,
# later starts ~5-8 s). Once installed it also runs without root.
#
# Usage: scripts/s3-swift.sh [start|stop|status]      (default: start)
#   S3_SWIFT_PORT  S3 endpoint port (default 8089). The account/container/object servers and a private
#                  memcached use the next four ports (PORT+1 .. PORT+4).
#   SWIFT_BASE     where rings, configuration, data, logs and pid files go (default /tmp/swift-s3-PORT)
#
# start is idempotent (and safe to run concurrently): when the endpoint already answers it changes nothing
# and exits 0. Servers run detached and stay up until `stop`.
# S3 settings: endpoint http://127.0.0.1:PORT, access key test:tester, secret testing, region us-east-1,
# path-style addressing. Creating buckets is left to the caller.
set -euo pipefail

PORT=${S3_SWIFT_PORT:-8089}
if ! [[ $PORT =~ ^[0-9]+$ ]] || ((PORT < 1 || PORT > 65531)); then
  echo "s3-swift: S3_SWIFT_PORT must be a port number below 65532 (got '$PORT')" >&2
  exit 2
fi
BASE=${SWIFT_BASE:-/tmp/swift-s3-$PORT}
ENDPOINT=http://127.0.0.1:$PORT
ACCOUNT_PORT=$((PORT + 1)) CONTAINER_PORT=$((PORT + 2)) OBJECT_PORT=$((PORT + 3)) MEMCACHED_PORT=$((PORT + 4))
PACKAGES=(swift swift-proxy swift-account swift-container swift-object memcached)

log() { echo "s3-swift: $*" >&2; }
die() { log "$*"; exit 1; }
listening() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
healthy() { [ "$(curl -sf -m 2 "$ENDPOINT/healthcheck" 2>/dev/null)" = OK ]; }

print_settings() {
  cat <<INFO
S3 endpoint:  $ENDPOINT  (path-style, region us-east-1)
access key:   test:tester
secret key:   testing
for the tests: SERVICE_TEST_S3_ENDPOINT=$ENDPOINT SERVICE_TEST_S3_ACCESS_KEY_ID=test:tester SERVICE_TEST_S3_SECRET_ACCESS_KEY=testing
INFO
}

# Stops only the processes this script started: each runs in its own session (see spawn), so its
# process group holds exactly the server and its workers.
stop() {
  local pidfile pid pids=() alive _
  for pidfile in "$BASE"/run/*.pid; do
    [ -e "$pidfile" ] || continue
    pid=$(cat "$pidfile")
    rm -f "$pidfile"
    [[ $pid =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null || continue
    kill -TERM -- "-$pid" 2>/dev/null || true
    pids+=("$pid")
  done
  for _ in $(seq 1 20); do
    alive=0
    for pid in "${pids[@]}"; do kill -0 -- "-$pid" 2>/dev/null && alive=1; done
    [ "$alive" -eq 0 ] && return 0
    sleep 0.5
  done
  for pid in "${pids[@]}"; do kill -KILL -- "-$pid" 2>/dev/null || true; done
}

install_packages() {
  local missing=() package
  for package in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed' || missing+=("$package")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  command -v apt-get >/dev/null 2>&1 || die "needs the Debian packages ${missing[*]}, but there is no apt-get here"
  [ "$(id -u)" -eq 0 ] || die "needs root to install the Debian packages ${missing[*]} (run once as root)"
  log "installing ${missing[*]} ..."
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

write_config() {
  local etc=$1 user=$2 name port
  mkdir -p "$etc" "$BASE/node/d1" "$BASE/run"
  for name in account container object; do
    case $name in
      account) port=$ACCOUNT_PORT ;;
      container) port=$CONTAINER_PORT ;;
      object) port=$OBJECT_PORT ;;
    esac
    # Rings encode the ports, so they are rebuilt only when missing (the base directory is per port).
    if [ ! -e "$etc/$name.ring.gz" ]; then
      rm -f "$etc/$name.builder"
      swift-ring-builder "$etc/$name.builder" create 6 1 1 >/dev/null
      swift-ring-builder "$etc/$name.builder" add "r1z1-127.0.0.1:$port/d1" 100 >/dev/null
      swift-ring-builder "$etc/$name.builder" rebalance >/dev/null
    fi
    cat >"$etc/$name-server.conf" <<CONF
[DEFAULT]
devices = $BASE/node
mount_check = false
bind_ip = 127.0.0.1
bind_port = $port
workers = 1
swift_dir = $etc
user = $user
log_facility = LOG_LOCAL0
[pipeline:main]
pipeline = $name-server
[app:$name-server]
use = egg:swift#$name
[$name-replicator]
[$name-auditor]
[$name-updater]
CONF
  done
  printf '[object-expirer]\n[object-reconstructor]\n' >>"$etc/object-server.conf"

  # s3api before tempauth: it turns S3 signatures into something tempauth checks against user_test_tester.
  cat >"$etc/proxy-server.conf" <<CONF
[DEFAULT]
bind_ip = 127.0.0.1
bind_port = $PORT
workers = 1
swift_dir = $etc
user = $user
[pipeline:main]
pipeline = catch_errors gatekeeper healthcheck proxy-logging cache listing_formats bulk s3api tempauth copy slo dlo proxy-logging proxy-server
[app:proxy-server]
use = egg:swift#proxy
account_autocreate = true
[filter:s3api]
use = egg:swift#s3api
location = us-east-1
[filter:tempauth]
use = egg:swift#tempauth
user_test_tester = testing .admin
[filter:catch_errors]
use = egg:swift#catch_errors
[filter:gatekeeper]
use = egg:swift#gatekeeper
[filter:healthcheck]
use = egg:swift#healthcheck
[filter:proxy-logging]
use = egg:swift#proxy_logging
[filter:cache]
use = egg:swift#memcache
memcache_servers = 127.0.0.1:$MEMCACHED_PORT
[filter:listing_formats]
use = egg:swift#listing_formats
[filter:bulk]
use = egg:swift#bulk
[filter:copy]
use = egg:swift#copy
[filter:slo]
use = egg:swift#slo
[filter:dlo]
use = egg:swift#dlo
CONF
}

# Starts a server detached from the caller's session, so it outlives this script and its caller.
spawn() {
  local name=$1
  shift
  setsid nohup "$@" >"$BASE/run/$name.log" 2>&1 </dev/null 9>&- &
  echo $! >"$BASE/run/$name.pid"
}

start() {
  # Test runs may start this concurrently: one starts, the others wait and then find it answering.
  mkdir -p "$BASE"
  exec 9>"$BASE/start.lock"
  flock -w 300 9 || die "another start still holds $BASE/start.lock after 5 minutes"
  if healthy; then
    log "already running"
    print_settings
    return 0
  fi
  local port
  for port in "$PORT" "$ACCOUNT_PORT" "$CONTAINER_PORT" "$OBJECT_PORT" "$MEMCACHED_PORT"; do
    listening "$port" && die "port $port is taken by something that is not this Swift (choose another S3_SWIFT_PORT)"
  done
  install_packages
  # The hash path prefix/suffix live here, always; the Debian package ships one ("changeme", fine for tests).
  [ -e /etc/swift/swift.conf ] || die "/etc/swift/swift.conf is missing (the swift package should have created it)"

  local user etc=$BASE/etc
  user=$(id -un)
  [ "$(id -u)" -eq 0 ] && user=swift
  stop # leftovers of an earlier run that no longer answers
  write_config "$etc" "$user"
  [ "$(id -u)" -eq 0 ] && chown -R swift:swift "$BASE/node"

  if [ "$(id -u)" -eq 0 ]; then
    spawn memcached memcached -u memcache -l 127.0.0.1 -p "$MEMCACHED_PORT" -U 0
  else
    spawn memcached memcached -l 127.0.0.1 -p "$MEMCACHED_PORT" -U 0
  fi
  local server
  for server in account container object proxy; do
    spawn "$server" "/usr/bin/swift-$server-server" "$etc/$server-server.conf"
  done

  local _
  for _ in $(seq 1 60); do
    if healthy && listening "$ACCOUNT_PORT" && listening "$CONTAINER_PORT" && listening "$OBJECT_PORT"; then
      local env=''
      [ -n "${S3_SWIFT_PORT:-}" ] && env+="S3_SWIFT_PORT=$PORT "
      [ -n "${SWIFT_BASE:-}" ] && env+="SWIFT_BASE=$BASE "
      log "up (logs and pids in $BASE/run; stop with: $env$0 stop)"
      print_settings
      return 0
    fi
    sleep 0.5
  done
  log "Swift did not come up within 30 s; last log lines:"
  tail -n 5 "$BASE"/run/*.log >&2 || true
  stop
  exit 1
}

case ${1:-start} in
  start) start ;;
  stop) stop ;;
  status) healthy && { log "running"; print_settings; } || { log "not running at $ENDPOINT"; exit 1; } ;;
  *) die "usage: $0 [start|stop|status]" ;;
esac

#!/usr/bin/env bash
# The whole production stack on loopback, for the benchmarks and the integration test:
# a PostgreSQL cluster of its own, N app processes (`python -m yahtzee.server`, the same
# as `yahtzee serve`) on that database, and nginx in front with deploy/nginx/nginx.conf and
# deploy/nginx/yahtzee.conf (only paths, the listen port, the static root, the upstream
# servers and the limits' exemptions rewritten).
#
#   scripts/stack.sh start [DIR]   # prints the URL; everything lives in DIR (default .stack)
#   scripts/stack.sh stop [DIR]    # stops nginx, the app processes and PostgreSQL
#
# Environment: STACK_PORT (nginx, default 8080), STACK_APP_PORTS (default "8001 8002"),
# STACK_PYTHON (default .venv/bin/python), STACK_APP_ARGS (more `serve` options),
# STACK_LIMIT_EXEMPT (networks exempt from nginx's per-address limits besides 127.0.0.1 and
# ::1, e.g. "127.0.1.0/24"; default none), STACK_ACCESS_LOG=1 (nginx logs in
# DIR/nginx-access.log each request's player cookie, the app port that served it, method,
# path and status: which process serves whom, for the tests; default no access log).
# Needs Debian's postgresql, nginx and libnginx-mod-http-brotli-static (scripts/install-services.sh).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
ACTION="${1:-}"
DIR="$(mkdir -p "${2:-$ROOT/.stack}" && cd "${2:-$ROOT/.stack}" && pwd)"
PYTHON="${STACK_PYTHON:-$ROOT/.venv/bin/python}"
PORT="${STACK_PORT:-8080}"
APP_PORTS="${STACK_APP_PORTS:-8001 8002}"
NGINX="${NGINX:-/usr/sbin/nginx}"
STACK_APP_ARGS="${STACK_APP_ARGS:-}"  # more options for the app processes
LIMIT_EXEMPT="${STACK_LIMIT_EXEMPT:-}"
ACCESS_LOG="${STACK_ACCESS_LOG:-}"

stop() {
    if [ -f "$DIR/nginx.pid" ]; then
        kill -QUIT "$(cat "$DIR/nginx.pid")" 2>/dev/null || true
        rm -f "$DIR/nginx.pid"
    fi
    for pidfile in "$DIR"/app-*.pid; do
        [ -f "$pidfile" ] || continue
        kill -TERM "$(cat "$pidfile")" 2>/dev/null || true
        rm -f "$pidfile"
    done
    if [ -d "$DIR/pg" ]; then
        "$PYTHON" -m yahtzee.storage.pgcluster "$DIR/pg" --stop
    fi
}

wait_http() {  # URL: wait until it answers 200 (60 s at most)
    "$PYTHON" - "$1" <<'EOF'
import sys, time, urllib.request
deadline = time.monotonic() + 60
while True:
    try:
        with urllib.request.urlopen(sys.argv[1], timeout=2) as r:
            if r.status == 200:
                break
    except OSError:
        pass
    if time.monotonic() > deadline:
        sys.exit(f"no answer from {sys.argv[1]}")
    time.sleep(0.1)
EOF
}

start() {
    trap 'stop' ERR
    # 1. PostgreSQL (durable defaults: fsync on), in DIR/pg.
    URL="$("$PYTHON" -m yahtzee.storage.pgcluster "$DIR/pg" --db yahtzee)"
    echo "$URL" >"$DIR/db-url"

    # 2. The app processes.
    upstreams=""
    for port in $APP_PORTS; do
        # One cookie secret for every process (created by the first; S1), default limits;
        # nginx's X-Forwarded-For believed (the app believes nobody's by default).
        "$PYTHON" -m yahtzee.server --host 127.0.0.1 --port "$port" --db "$URL" \
            --secret-file "$DIR/cookie.secret" --forwarded-allow-ips 127.0.0.1 \
            $STACK_APP_ARGS >>"$DIR/app-$port.log" 2>&1 &
        echo $! >"$DIR/app-$port.pid"
        upstreams+="    server 127.0.0.1:$port max_fails=0;\n"
    done

    # 3. The static files, precompressed, and nginx's own configuration.
    "$PYTHON" "$ROOT/scripts/precompress.py" "$DIR/static" >/dev/null
    mkdir -p "$DIR/nginx-tmp"
    exempt=""
    for net in $LIMIT_EXEMPT; do
        exempt+="    $net 0;\n"
    done
    sed -e "s#^    listen 8080 #    listen 127.0.0.1:$PORT #" \
        -e "s#root /var/lib/yahtzee/static;#root $DIR/static;#" \
        -e "s#include /etc/nginx/snippets/yahtzee-headers.conf;#include $ROOT/deploy/nginx/yahtzee-headers.conf;#" \
        -e "/^    server 127.0.0.1:800[0-9] max_fails=0;$/d" \
        -e "s#^upstream yahtzee_app {#upstream yahtzee_app {\n$upstreams#" \
        -e "s#^    ::1 0;#    ::1 0;\n$exempt#" \
        "$ROOT/deploy/nginx/yahtzee.conf" >"$DIR/site.conf"
    # nginx's main configuration: deploy/nginx/nginx.conf, private to DIR (pid, logs,
    # temporary files), the site above instead of sites-enabled, no access log; no `user`
    # line unless root, and no more open files than our hard limit (a container may refuse
    # more even to root).
    nofile=65536
    hard="$(ulimit -Hn)"
    [ "$hard" != unlimited ] && [ "$hard" -lt "$nofile" ] && nofile="$hard"
    user_line=""
    [ "$(id -u)" -eq 0 ] && user_line="user root;"
    access="    access_log off;"
    if [ -n "$ACCESS_LOG" ]; then
        access="    log_format upstreams '\$cookie_yahtzee_player \$upstream_addr \$request_method \$uri \$status';\n"
        access+="    access_log $DIR/nginx-access.log upstreams;"
    fi
    temp_paths=""
    for kind in client_body proxy fastcgi uwsgi scgi; do
        temp_paths+="    ${kind}_temp_path $DIR/nginx-tmp/$kind;\n"
    done
    sed -e "s#^user www-data;#$user_line#" \
        -e "s#^worker_rlimit_nofile 65536;#worker_rlimit_nofile $nofile;#" \
        -e "s#^pid /run/nginx.pid;#pid $DIR/nginx.pid;#" \
        -e "s#^error_log /var/log/nginx/error.log;#error_log $DIR/nginx-error.log warn;#" \
        -e "s#^    access_log /var/log/nginx/access.log;#$access\n$temp_paths#" \
        -e "/^    include \/etc\/nginx\/conf.d\/\*.conf;$/d" \
        -e "s#^    include /etc/nginx/sites-enabled/\*;#    include $DIR/site.conf;#" \
        "$ROOT/deploy/nginx/nginx.conf" >"$DIR/nginx.conf"
    for port in $APP_PORTS; do
        wait_http "http://127.0.0.1:$port/api/health"
    done
    "$NGINX" -t -q -c "$DIR/nginx.conf" -e "$DIR/nginx-error.log"
    "$NGINX" -c "$DIR/nginx.conf" -e "$DIR/nginx-error.log"
    wait_http "http://127.0.0.1:$PORT/api/health"
    trap - ERR
    echo "stack up: http://127.0.0.1:$PORT/  (nginx -> app ports $APP_PORTS -> $URL)"
}

case "$ACTION" in
    start) start ;;
    stop) stop ;;
    *) echo "usage: $0 start|stop [DIR]" >&2; exit 2 ;;
esac

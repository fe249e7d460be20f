#!/usr/bin/env bash
# Three `hanzo-mcp door` replicas behind HAProxy on loopback: calls spread
# across them and survive one being killed half way (the door keeps no state
# between requests, so any replica answers any request).
#
# Needs: a built hanzo-mcp (target/release or target/debug under
# CARGO_TARGET_DIR, the newer of the two, or HANZO_MCP=path), python3, curl,
# and HAProxy (Debian's package, installed with apt-get when missing).
# Sends CALLS (default 2,400) requests, alternately tools/list and a forwarded
# tools/call, over CONCURRENCY (default 8) connections to HAProxy, which
# forwards to the doors, which forward the calls to a loopback REST upstream
# (python3 -m http.server). At half way one door is killed (SIGKILL).
# HAProxy retries a request whose connection failed on another replica, and
# re-sends tools/list (read-only, routed on the Mcp-Method header) after an
# empty answer; a tools/call in flight on the killed replica is not re-sent,
# so it may fail: their count is reported (the client sends a tools/list
# again once when HAProxy closed its connection silently). Bounded: 100 s for the load,
# every process it starts is stopped on exit.
set -euo pipefail
cd "$(dirname "$0")/.."

CALLS="${CALLS:-2400}"
CONCURRENCY="${CONCURRENCY:-8}"
# The REST API behind the door: `items`, with `get_item` and `add_item`.
items="$PWD/crates/mcp-door/tests/data/items.yaml"

target="${CARGO_TARGET_DIR:-target}"
bin="${HANZO_MCP:-}"
if [ -z "$bin" ]; then
    for candidate in "$target/release/hanzo-mcp" "$target/debug/hanzo-mcp"; do
        if [ -x "$candidate" ] && { [ -z "$bin" ] || [ "$candidate" -nt "$bin" ]; }; then
            bin="$candidate"
        fi
    done
fi
if [ -z "$bin" ]; then
    echo "door-replicas: no hanzo-mcp binary under $target (build the workspace first)" >&2
    exit 1
fi
if ! command -v haproxy >/dev/null 2>&1; then
    echo "door-replicas: installing haproxy (Debian package)"
    apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq haproxy >/dev/null
fi

work="$(mktemp -d)"
pids=()
cleanup() {
    for pid in "${pids[@]}"; do
        kill "$pid" 2>/dev/null || true
    done
    for pid in "${pids[@]}"; do
        wait "$pid" 2>/dev/null || true
    done
    rm -rf "$work"
}
trap cleanup EXIT

# Six free loopback ports: upstream, three doors, HAProxy, HAProxy's stats.
read -r up d1 d2 d3 lb stats < <(python3 -c '
import socket
socks = [socket.socket() for _ in range(6)]
for s in socks: s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in socks))
for s in socks: s.close()')

mkdir -p "$work/www/items"
printf '{"name": "one", "stock": 3}\n' >"$work/www/items/one"
(cd "$work/www" && exec python3 -m http.server "$up" --bind 127.0.0.1 >"$work/upstream.log" 2>&1) &
pids+=("$!")


door_pids=()
for port in "$d1" "$d2" "$d3"; do
    "$bin" door --openapi "$items=http://127.0.0.1:$up" \
        --listen "127.0.0.1:$port" --log-format json >"$work/door-$port.log" 2>&1 &
    pids+=("$!")
    door_pids+=("$!")
done

cat >"$work/haproxy.cfg" <<EOF
global
    maxconn 2000
    log stderr format raw local0 info
defaults
    mode http
    log global
    option httplog
    option dontlog-normal
    option log-separate-errors
    timeout connect 2s
    timeout client 20s
    timeout server 20s
    retries 3
    option redispatch 1
frontend mcp
    bind 127.0.0.1:$lb
    use_backend doors_read if { req.hdr(mcp-method) -m str tools/list }
    default_backend doors
# tools/call: re-sent to another replica only when the connection failed
# (the request never reached a door), never after it may have run.
backend doors
    balance roundrobin
    option httpchk GET /readyz
    retry-on conn-failure
    server d1 127.0.0.1:$d1 check inter 300ms fall 1 rise 2
    server d2 127.0.0.1:$d2 check inter 300ms fall 1 rise 2
    server d3 127.0.0.1:$d3 check inter 300ms fall 1 rise 2
# tools/list is read-only: also re-sent after an empty or failed answer.
backend doors_read
    balance roundrobin
    option httpchk GET /readyz
    retry-on conn-failure empty-response response-timeout 502 503
    server d1 127.0.0.1:$d1 check inter 300ms fall 1 rise 2
    server d2 127.0.0.1:$d2 check inter 300ms fall 1 rise 2
    server d3 127.0.0.1:$d3 check inter 300ms fall 1 rise 2
EOF
haproxy -f "$work/haproxy.cfg" -db >"$work/haproxy.log" 2>&1 &
pids+=("$!")

# Every replica ready and HAProxy up, within 20 s.
deadline=$((SECONDS + 20))
for url in "http://127.0.0.1:$d1/readyz" "http://127.0.0.1:$d2/readyz" \
    "http://127.0.0.1:$d3/readyz" "http://127.0.0.1:$lb/healthz"; do
    until curl -fsS --max-time 2 "$url" >/dev/null 2>&1; do
        if [ "$SECONDS" -ge "$deadline" ]; then
            echo "door-replicas: $url not ready within 20 s" >&2
            tail -n 5 "$work"/*.log >&2 || true
            exit 1
        fi
        sleep 0.2
    done
done
# Let HAProxy's checks see all three up before the load starts.
sleep 1

echo "door-replicas: $bin, 3 replicas on 127.0.0.1:$d1,$d2,$d3 behind HAProxy $(haproxy -v | head -n 1 | awk '{print $3}') on 127.0.0.1:$lb"
echo "door-replicas: $CALLS calls over $CONCURRENCY connections; replica 1 (pid ${door_pids[0]}) is killed at call $((CALLS / 2)); load average $(cut -d' ' -f1-3 /proc/loadavg)"
status=0
timeout 100 python3 scripts/door-replicas-load.py --host 127.0.0.1 --port "$lb" \
    --calls "$CALLS" --concurrency "$CONCURRENCY" --kill-pid "${door_pids[0]}" \
    --metrics "http://127.0.0.1:$d1/metrics" "http://127.0.0.1:$d2/metrics" \
    "http://127.0.0.1:$d3/metrics" || status=$?
if [ "$status" -ne 0 ]; then
    echo "door-replicas: FAILED (exit $status)" >&2
    tail -n 20 "$work"/haproxy.log >&2 || true
    exit "$status"
fi
echo "door-replicas: passed"

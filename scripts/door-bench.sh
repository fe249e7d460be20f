#!/usr/bin/env bash
# The door's proxying cost next to HAProxy's, in one run (BENCHMARKS.md,
# "mcp-door: added latency next to HAProxy"):
#
# - upstream: an HAProxy frontend that answers every request itself with a
#   small JSON body (`http-request return`), the fastest REST service at hand;
# - direct: wrk GETs /items/one from the upstream;
# - HAProxy: wrk GETs /items/one through a second HAProxy proxying to it;
# - door: wrk POSTs the same call as an MCP tools/call to `hanzo-mcp door`
#   (release build), which forwards GET /items/one to the upstream;
# - floor: wrk POSTs the same body to examples/relay_floor.rs, which answers
#   each POST with one GET /items/one through reqwest, served by axum on the
#   door's runtime: the least a door made of those libraries can cost;
# - hyper: the same with `relay_floor --hyper`: hyper's HTTP/1 server and
#   client alone on one thread, an upstream connection per client
#   connection: what Rust's HTTP stack costs without axum and reqwest.
#
# Added latency = median through the proxy - median direct, at 1 connection;
# requests per second at 1 and 16 connections. Then GitHub's description
# (crates/mcp-door/tests/data/api.github.com.json.gz): the door's load and
# projection time (its own log line), its RSS after start, and its first
# /openapi.json.
#
# Needs: target/release/hanzo-mcp (cargo build --release -p mcp-local-server),
# the relay_floor example (built here when missing), wrk and haproxy (Debian
# packages, installed when missing), curl, python3.
# DURATION (default 8) seconds per wrk run; ROUNDS (default 5) rounds of the
# five paths at one connection, in turn (the median of the rounds is
# reported), then one run of each at 16 connections. DOOR_BENCH_RAW=1 also
# prints each wrk report on stderr.
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION="${DURATION:-8}"
ROUNDS="${ROUNDS:-5}"
# The REST API behind the door: `items`, with `get_item` and `add_item`.
items="$PWD/crates/mcp-door/tests/data/items.yaml"
bin="${HANZO_MCP:-${CARGO_TARGET_DIR:-target}/release/hanzo-mcp}"
[ -x "$bin" ] || { echo "door-bench: build $bin first" >&2; exit 1; }
floor_bin="$(dirname "$bin")/examples/relay_floor"
[ -x "$floor_bin" ] || cargo build -q --release -p mcp-examples --example relay_floor
for tool in wrk haproxy; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        apt-get update -qq >/dev/null
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$tool" >/dev/null
    fi
done

work="$(mktemp -d)"
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT

read -r up lb door door2 floor hyper < <(python3 -c '
import socket
socks = [socket.socket() for _ in range(6)]
for s in socks: s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in socks))
for s in socks: s.close()')

cat >"$work/upstream.cfg" <<EOF
global
    nbthread 1
defaults
    mode http
    timeout connect 2s
    timeout client 30s
    timeout server 30s
frontend upstream
    bind 127.0.0.1:$up
    http-request return status 200 content-type application/json string '{"name":"one","stock":3}'
EOF
cat >"$work/proxy.cfg" <<EOF
global
    maxconn 1000
defaults
    mode http
    timeout connect 2s
    timeout client 30s
    timeout server 30s
frontend proxy
    bind 127.0.0.1:$lb
    default_backend upstream
backend upstream
    http-reuse always
    server u 127.0.0.1:$up
EOF
haproxy -f "$work/upstream.cfg" -db >"$work/upstream.log" 2>&1 &
pids+=("$!")
haproxy -f "$work/proxy.cfg" -db >"$work/proxy.log" 2>&1 &
pids+=("$!")

RUST_LOG=warn "$bin" door --openapi "$items=http://127.0.0.1:$up" \
    --listen "127.0.0.1:$door" >"$work/door.log" 2>&1 &
pids+=("$!")
"$floor_bin" "127.0.0.1:$floor" "http://127.0.0.1:$up/items/one" >"$work/floor.log" 2>&1 &
pids+=("$!")
"$floor_bin" --hyper "127.0.0.1:$hyper" "http://127.0.0.1:$up/items/one" >"$work/hyper.log" 2>&1 &
pids+=("$!")

cat >"$work/call.lua" <<'EOF'
wrk.method = "POST"
wrk.body = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"items","arguments":{"op":"get_item","input":{"name":"one"}},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}'
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Accept"] = "application/json, text/event-stream"
wrk.headers["MCP-Protocol-Version"] = "2026-07-28"
wrk.headers["Mcp-Method"] = "tools/call"
wrk.headers["Authorization"] = "Bearer bench"
EOF

deadline=$((SECONDS + 20))
for url in "http://127.0.0.1:$up/items/one" "http://127.0.0.1:$lb/items/one" \
    "http://127.0.0.1:$door/healthz"; do
    until curl -fsS --max-time 2 "$url" >/dev/null 2>&1; do
        [ "$SECONDS" -lt "$deadline" ] || { echo "door-bench: $url not up" >&2; exit 1; }
        sleep 0.2
    done
done
for port in "$floor" "$hyper"; do
    until curl -fsS --max-time 2 -X POST --data '{}' "http://127.0.0.1:$port/v1/mcp" >/dev/null 2>&1; do
        [ "$SECONDS" -lt "$deadline" ] || { echo "door-bench: relay_floor on $port not up" >&2; exit 1; }
        sleep 0.2
    done
done
# The call must succeed before it is measured.
answer="$(curl -fsS -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
    -H 'MCP-Protocol-Version: 2026-07-28' -H 'Authorization: Bearer bench' \
    --data "$(sed -n "s/^wrk.body = '\(.*\)'$/\1/p" "$work/call.lua")" "http://127.0.0.1:$door/v1/mcp")"
case "$answer" in
    *'"stock":3'*) ;;
    *) echo "door-bench: the forwarded call failed: $answer" >&2; exit 1 ;;
esac

echo "door-bench: $(git rev-parse --short HEAD) $bin; $(haproxy -v | head -n 1); $(wrk -v 2>&1 | head -n 1)"
echo "door-bench: load average at start $(cut -d' ' -f1-3 /proc/loadavg)"

# wrk's median (50%) in microseconds and requests per second.
measure() { # name connections url [script]
    local name="$1" conns="$2" url="$3" script="${4:-}" threads=1 out
    [ "$conns" -gt 1 ] && threads=2
    out="$(wrk --latency -t"$threads" -c"$conns" -d"${DURATION}s" ${script:+-s "$script"} "$url")"
    grep -q "50%" <<<"$out" || { echo "door-bench: wrk gave no median for $name:" >&2; echo "$out" >&2; }
    [ -n "${DOOR_BENCH_RAW:-}" ] && echo "$out" >&2
    python3 - "$name" "$conns" <<PY
import re, sys
out = '''$out'''
def us(text):
    v, unit = re.match(r'([\d.]+)(us|ms|s)', text).groups()
    return float(v) * {'us': 1, 'ms': 1e3, 's': 1e6}[unit]
p50 = us(re.search(r'^\s+50%\s+(\S+)', out, re.M).group(1))
rps = float(re.search(r'Requests/sec:\s+([\d.]+)', out).group(1))
errors = re.search(r'Non-2xx or 3xx responses: (\d+)', out)
print('%s %s %.1f %.0f %s' % (sys.argv[1], sys.argv[2], p50, rps, errors.group(1) if errors else 0))
PY
}
{
    # Rounds, each path in turn, so that a slow spell of the machine falls
    # on every path alike; the median of the rounds is reported.
    for _ in $(seq "$ROUNDS"); do
        measure direct 1 "http://127.0.0.1:$up/items/one"
        measure haproxy 1 "http://127.0.0.1:$lb/items/one"
        measure door 1 "http://127.0.0.1:$door/v1/mcp" "$work/call.lua"
        measure floor 1 "http://127.0.0.1:$floor/v1/mcp" "$work/call.lua"
        measure hyper 1 "http://127.0.0.1:$hyper/v1/mcp" "$work/call.lua"
    done
    measure direct 16 "http://127.0.0.1:$up/items/one"
    measure haproxy 16 "http://127.0.0.1:$lb/items/one"
    measure door 16 "http://127.0.0.1:$door/v1/mcp" "$work/call.lua"
    measure floor 16 "http://127.0.0.1:$floor/v1/mcp" "$work/call.lua"
    measure hyper 16 "http://127.0.0.1:$hyper/v1/mcp" "$work/call.lua"
} >"$work/figures"
python3 - "$work/figures" <<'PY'
import sys
import statistics
runs = {}
for line in open(sys.argv[1]):
    name, conns, p50, rps, errors = line.split()
    runs.setdefault((name, int(conns)), []).append((float(p50), float(rps), int(errors)))
rows = {key: (statistics.median(r[0] for r in rs), statistics.median(r[1] for r in rs),
              sum(r[2] for r in rs)) for key, rs in runs.items()}
print('| path | median at 1 conn. | added | req/s at 1 conn. | req/s at 16 conn. | non-2xx |')
print('|---|---|---|---|---|---|')
direct = rows[('direct', 1)][0]
for name in ('direct', 'haproxy', 'door', 'floor', 'hyper'):
    p50, rps1, e1 = rows[(name, 1)]
    _, rps16, e16 = rows[(name, 16)]
    added = '' if name == 'direct' else '%.0f µs' % (p50 - direct)
    print('| %s | %.0f µs | %s | %.0f | %.0f | %d |' % (name, p50, added, rps1, rps16, e1 + e16))
door = rows[('door', 1)][0] - direct
proxy = rows[('haproxy', 1)][0] - direct
print()
print('door added / HAProxy added at 1 connection: %.1f× (goal ≤ 2×)' % (door / proxy if proxy > 0 else float('inf')))
print('door req/s / HAProxy req/s at 16 connections: %.2f' % (rows[('door', 16)][1] / rows[('haproxy', 16)][1]))
floor = rows[('floor', 1)][0] - direct
print('floor (axum + reqwest, nothing else) added / HAProxy added: %.1f×; door added - floor added: %.0f µs' % (floor / proxy if proxy > 0 else float('inf'), door - floor))
hyper = rows[('hyper', 1)][0] - direct
print('hyper floor (hyper alone, one thread) added / HAProxy added: %.1f×' % (hyper / proxy if proxy > 0 else float('inf')))
PY
echo "door-bench: load average at the end of the wrk runs $(cut -d' ' -f1-3 /proc/loadavg)"

# GitHub's description: load + projection time, RSS, the own document.
gzip -dc crates/mcp-door/tests/data/api.github.com.json.gz >"$work/github.json"
RUST_LOG=warn "$bin" door --openapi "$work/github.json=http://127.0.0.1:9" \
    --listen "127.0.0.1:$door2" >"$work/github.log" 2>&1 &
github_pid="$!"
pids+=("$github_pid")
deadline=$((SECONDS + 60))
until grep -q "listening on" "$work/github.log"; do
    [ "$SECONDS" -lt "$deadline" ] || { echo "door-bench: GitHub door did not start" >&2; cat "$work/github.log" >&2; exit 1; }
    sleep 0.1
done
grep "listening on" "$work/github.log" | sed 's/^/door-bench: /'
rss() { awk -v k="$1:" '$1 == k { print $2 }' "/proc/$github_pid/status"; }
echo "door-bench: GitHub door after start: VmRSS $(rss VmRSS) KiB, VmHWM $(rss VmHWM) KiB"
list_bytes="$(curl -fsS -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
    -H 'MCP-Protocol-Version: 2026-07-28' \
    --data '{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}' \
    "http://127.0.0.1:$door2/v1/mcp" | wc -c)"
doc_time="$(curl -fsS -o "$work/openapi.json" -w '%{time_total}' "http://127.0.0.1:$door2/openapi.json")"
doc_again="$(curl -fsS -o /dev/null -w '%{time_total}' "http://127.0.0.1:$door2/openapi.json")"
echo "door-bench: GitHub tools/list $list_bytes bytes; first GET /openapi.json $(wc -c <"$work/openapi.json") bytes in ${doc_time} s, again in ${doc_again} s"
echo "door-bench: GitHub door after the document: VmRSS $(rss VmRSS) KiB, VmHWM $(rss VmHWM) KiB"
echo "door-bench: load average at the end $(cut -d' ' -f1-3 /proc/loadavg)"

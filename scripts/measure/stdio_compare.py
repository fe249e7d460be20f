# Round-robin comparison of hanzo-mcp binaries over stdio: spawn -> initialize
# answered, first tools/list, sequential tools/call (fs help) round trip
# median and p99, peak RSS. Door configured and refusing connections.
# ROUNDS=N sets the rounds (default 5); each round spawns every binary once.
import json, os, statistics, subprocess, sys, time
bins = sys.argv[1:]
ROUNDS, CALLS = int(os.environ.get("ROUNDS", "5")), 2000
env = dict(os.environ, HANZO_MCP_DOOR="http://127.0.0.1:1/v1/mcp", HANZO_API_KEY="k", HOME="/tmp/cmp-home", HANZO_MCP_STATE="/tmp/cmp-state")
os.makedirs("/tmp/cmp-home", exist_ok=True)
def run(b):
    t0 = time.perf_counter()
    p = subprocess.Popen([b, "serve", "--root", "/tmp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    w = lambda m: (p.stdin.write((json.dumps(m) + "\n").encode()), p.stdin.flush())
    w({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"0"}}})
    p.stdout.readline(); t_init = time.perf_counter() - t0
    w({"jsonrpc":"2.0","method":"notifications/initialized"})
    t1 = time.perf_counter()
    w({"jsonrpc":"2.0","id":1,"method":"tools/list"})
    while True:
        l = p.stdout.readline()
        if b'"id":1' in l: break
    t_list = time.perf_counter() - t1
    rts = []
    call = (json.dumps({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"fs","arguments":{"action":"help"}}}) + "\n").encode()
    for i in range(CALLS):
        s = time.perf_counter(); p.stdin.write(call); p.stdin.flush()
        while True:
            l = p.stdout.readline()
            if b'"id":2' in l: break
        rts.append(time.perf_counter() - s)
    hwm = int([l for l in open(f"/proc/{p.pid}/status").read().splitlines() if l.startswith("VmHWM:")][0].split()[1])
    p.stdin.close(); p.wait()
    rts.sort()
    return t_init*1e3, t_list*1e3, statistics.median(rts)*1e6, rts[int(len(rts)*0.99)]*1e6, hwm/1024
res = {b: [] for b in bins}
for r in range(ROUNDS):
    for b in bins: res[b].append(run(b))
print(open("/proc/loadavg").read().strip())
print("binary | init ms | first tools/list ms | call median us | call p99 us | peak RSS MiB")
for b in bins:
    cols = list(zip(*res[b]))
    print(b, "|", " | ".join("%.2f" % statistics.median(c) for c in cols))

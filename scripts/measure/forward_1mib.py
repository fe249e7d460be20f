# A forwarded tools/call whose door result holds 1 MiB of text, through
# hanzo-mcp over stdio: round-trip median per binary, binaries alternated.
import json, os, statistics, subprocess, sys, threading, time
from http.server import ThreadingHTTPServer, BaseHTTPRequestHandler
RESULT = json.dumps({"content": [{"type": "text", "text": "x" * (1024 * 1024)}], "resultType": "complete"}).encode()
class Door(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *a): pass
    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["content-length"])))
        if body.get("method") == "tools/call":
            data = b'{"jsonrpc":"2.0","id":' + json.dumps(body["id"]).encode() + b',"result":' + RESULT + b'}'
        elif body.get("method") == "tools/list":
            data = json.dumps({"jsonrpc": "2.0", "id": body["id"], "result": {"tools": [{"name": "billing", "inputSchema": {"type": "object"}}], "resultType": "complete"}}).encode()
        else:
            data = json.dumps({"jsonrpc": "2.0", "id": body.get("id"), "result": {}}).encode()
        self.send_response(200); self.send_header("content-type", "application/json"); self.send_header("content-length", str(len(data))); self.end_headers(); self.wfile.write(data)
srv = ThreadingHTTPServer(("127.0.0.1", 0), Door)
threading.Thread(target=srv.serve_forever, daemon=True).start()
url = f"http://127.0.0.1:{srv.server_address[1]}/v1/mcp"
env = dict(os.environ, HANZO_MCP_DOOR=url, HANZO_API_KEY="k", HOME="/tmp/cmp-home")
def run(b, n=40):
    p = subprocess.Popen([b, "serve", "--root", "/tmp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    w = lambda m: (p.stdin.write((json.dumps(m) + "\n").encode()), p.stdin.flush())
    w({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"0"}}})
    p.stdout.readline(); w({"jsonrpc":"2.0","method":"notifications/initialized"})
    rts = []
    for i in range(n):
        s = time.perf_counter()
        w({"jsonrpc":"2.0","id":i+1,"method":"tools/call","params":{"name":"billing","arguments":{"i":i}}})
        while True:
            l = p.stdout.readline()
            if l.startswith(b'{"jsonrpc":"2.0","id":%d,' % (i+1)) or (b'"id":%d,' % (i+1)) in l[:40]: break
        rts.append(time.perf_counter() - s)
    p.stdin.close(); p.wait()
    return statistics.median(rts[5:]) * 1e3
res = {b: [] for b in sys.argv[1:]}
for r in range(7):
    for b in sys.argv[1:]: res[b].append(run(b))
print(open("/proc/loadavg").read().strip())
for b in sys.argv[1:]: print(b, "median of round medians %.2f ms" % statistics.median(res[b]), ["%.2f" % x for x in res[b]])

# A slow door (each tools/call answered after 2 s with a 2 MiB result) and a
# stdio client that writes 300 calls, does not read for 20 s, then reads all.
import json, os, subprocess, sys, threading, time
from http.server import ThreadingHTTPServer, BaseHTTPRequestHandler
BIG = "x" * (2 * 1024 * 1024)
class Door(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *a): pass
    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["content-length"])))
        if body.get("method") == "tools/call":
            time.sleep(2)
            out = {"jsonrpc": "2.0", "id": body["id"], "result": {"content": [{"type": "text", "text": BIG}]}}
        elif body.get("method") == "tools/list":
            out = {"jsonrpc": "2.0", "id": body["id"], "result": {"tools": [{"name": "billing", "inputSchema": {"type": "object"}}], "resultType": "complete"}}
        else:
            out = {"jsonrpc": "2.0", "id": body.get("id"), "result": {}}
        data = json.dumps(out).encode()
        self.send_response(200); self.send_header("content-type", "application/json"); self.send_header("content-length", str(len(data))); self.end_headers(); self.wfile.write(data)
srv = ThreadingHTTPServer(("127.0.0.1", 0), Door)
threading.Thread(target=srv.serve_forever, daemon=True).start()
url = f"http://127.0.0.1:{srv.server_address[1]}/v1/mcp"
env = dict(os.environ, HANZO_MCP_DOOR=url, HANZO_API_KEY="k", HOME="/tmp")
p = subprocess.Popen([sys.argv[1], "serve", "--root", "/tmp"] + sys.argv[2:], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
def send(m): p.stdin.write((json.dumps(m) + "\n").encode()); p.stdin.flush()
send({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"m","version":"0"}}})
p.stdout.readline()
send({"jsonrpc":"2.0","method":"notifications/initialized"})
def writer():
    for i in range(300):
        send({"jsonrpc":"2.0","id":i+1,"method":"tools/call","params":{"name":"billing","arguments":{"i":i}}})
threading.Thread(target=writer, daemon=True).start()
def rss():
    s = open(f"/proc/{p.pid}/status").read()
    g = lambda k: int([l for l in s.splitlines() if l.startswith(k)][0].split()[1]) // 1024
    return g("VmRSS:"), g("VmHWM:")
peak = 0
for t in range(20):
    time.sleep(1); r, h = rss(); peak = max(peak, h)
print("while not reading: RSS %d MiB, peak %d MiB" % rss())
got = 0; t0 = time.time()
while got < 300:
    line = p.stdout.readline()
    if not line: break
    if b'"id":' in line: got += 1
print("answered %d in %.1f s after reading started; peak RSS %d MiB" % (got, time.time() - t0, rss()[1]))
p.stdin.close(); p.wait()

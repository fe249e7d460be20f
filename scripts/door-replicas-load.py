#!/usr/bin/env python3
"""Load for scripts/door-replicas.sh: MCP calls through a load balancer to
several `hanzo-mcp door` replicas, one of them killed half way.

Sends CALLS JSON-RPC requests (alternately `tools/list` and a forwarded
`tools/call`) over CONCURRENCY kept-alive connections, as a 2026-07-28
client would. When the request numbered CALLS/2 is taken, the replica with
pid KILL_PID is first read (its /metrics) and then killed with SIGKILL.
Prints one JSON object with the counts, and exits 1 when a goal is missed:
every replica served some calls, no `tools/list` failed after the kill, and
no more `tools/call` failed than there were requests in flight (CONCURRENCY).

Standard library only; every wait is bounded.
"""

import argparse
import http.client
import json
import os
import re
import signal
import sys
import threading
import time
import urllib.request

REQUESTS = re.compile(r'^mcp_door_requests_total\{[^}]*\} (\d+(?:\.\d+)?)$', re.M)


def served(metrics_url):
    """Requests a replica answered so far (sum of mcp_door_requests_total)."""
    with urllib.request.urlopen(metrics_url, timeout=5) as r:
        text = r.read().decode()
    return int(sum(float(v) for v in REQUESTS.findall(text)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--host', required=True)
    ap.add_argument('--port', type=int, required=True)
    ap.add_argument('--calls', type=int, default=2400)
    ap.add_argument('--concurrency', type=int, default=8)
    ap.add_argument('--kill-pid', type=int, required=True)
    ap.add_argument('--metrics', nargs='+', required=True,
                    help='each replica\'s /metrics URL, the one to kill first')
    ap.add_argument('--deadline', type=float, default=90.0, help='seconds')
    args = ap.parse_args()

    lock = threading.Lock()
    state = {'next': 0, 'killed_at': None, 'killed_served': None}
    failed = {('tools/list', False): 0, ('tools/list', True): 0,
              ('tools/call', False): 0, ('tools/call', True): 0}
    done = {'tools/list': 0, 'tools/call': 0}
    retried = {'tools/list': 0}
    errors = []
    kill_at = args.calls // 2
    stop_by = time.monotonic() + args.deadline

    def take():
        with lock:
            n = state['next']
            if n >= args.calls or time.monotonic() > stop_by:
                return None
            state['next'] = n + 1
            if n == kill_at:
                # Read the replica's count, then kill it: requests other
                # threads have in flight on it now fail or are retried.
                state['killed_served'] = served(args.metrics[0])
                os.kill(args.kill_pid, signal.SIGKILL)
                state['killed_at'] = time.monotonic()
            return n

    def body(n):
        if n % 2 == 0:
            method = 'tools/list'
            params = {}
        else:
            method = 'tools/call'
            params = {'name': 'items', 'arguments': {'op': 'get_item', 'input': {'name': 'one'}}}
        params['_meta'] = {'io.modelcontextprotocol/protocolVersion': '2026-07-28',
                           'io.modelcontextprotocol/clientCapabilities': {}}
        return method, json.dumps({'jsonrpc': '2.0', 'id': n, 'method': method, 'params': params})

    def worker():
        conn = http.client.HTTPConnection(args.host, args.port, timeout=10)
        while True:
            taken = take()
            if taken is None:
                break
            n = taken
            method, text = body(n)
            headers = {'Content-Type': 'application/json',
                       'Accept': 'application/json, text/event-stream',
                       'MCP-Protocol-Version': '2026-07-28',
                       'Mcp-Method': method,
                       'Authorization': 'Bearer replicas'}
            ok = False
            # A read is sent again once on a fresh connection when the
            # connection closed without an answer (HAProxy closes a kept-alive
            # client connection silently when its server died, so the
            # client may retry), as HTTP clients do for idempotent requests;
            # a tools/call is never sent twice.
            for attempt in (1, 2):
                try:
                    conn.request('POST', '/v1/mcp', body=text, headers=headers)
                    resp = conn.getresponse()
                    payload = resp.read()
                    if resp.status == 200:
                        answer = json.loads(payload)
                        result = answer.get('result')
                        ok = result is not None and not result.get('isError', False)
                        if not ok and len(errors) < 5:
                            errors.append('%s %d: %s' % (method, n, payload.decode()[:300]))
                    elif len(errors) < 5:
                        errors.append('%s %d: HTTP %d %s' % (method, n, resp.status, payload[:200]))
                    break
                except (OSError, http.client.HTTPException, ValueError) as e:
                    conn.close()
                    conn = http.client.HTTPConnection(args.host, args.port, timeout=10)
                    closed = isinstance(e, (http.client.RemoteDisconnected, ConnectionResetError))
                    if method == 'tools/list' and attempt == 1 and closed:
                        with lock:
                            retried['tools/list'] += 1
                        continue
                    if len(errors) < 5:
                        errors.append('%s %d: %r' % (method, n, e))
                    break
            with lock:
                done[method] += 1
                if not ok:
                    # A request that fails once the replica is killed was in
                    # flight then (or sent after): it counts as after the kill.
                    failed[(method, state['killed_at'] is not None)] += 1
        conn.close()

    started = time.monotonic()
    threads = [threading.Thread(target=worker) for _ in range(args.concurrency)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(args.deadline + 15)
    seconds = time.monotonic() - started

    per_replica = [state['killed_served']] + [served(u) for u in args.metrics[1:]]
    report = {
        'calls': done['tools/list'] + done['tools/call'],
        'tools_list': done['tools/list'],
        'tools_call': done['tools/call'],
        'concurrency': args.concurrency,
        'seconds': round(seconds, 2),
        'killed_after_call': kill_at,
        'served_per_replica': per_replica,
        'failed_tools_list_before_kill': failed[('tools/list', False)],
        'failed_tools_list_after_kill': failed[('tools/list', True)],
        'failed_tools_call_before_kill': failed[('tools/call', False)],
        'failed_tools_call_after_kill': failed[('tools/call', True)],
        'tools_list_sent_again_after_a_silent_close': retried['tools/list'],
        'first_errors': errors,
    }
    print(json.dumps(report, indent=2))
    goals = {
        'at least 2,000 calls': report['calls'] >= 2000,
        'the kill happened': state['killed_at'] is not None,
        'every replica served some': all(s and s > 0 for s in per_replica),
        'no tools/list failed': failed[('tools/list', False)] + failed[('tools/list', True)] == 0,
        'no tools/call failed before the kill': failed[('tools/call', False)] == 0,
        'failed tools/call at most the requests in flight':
            failed[('tools/call', True)] <= args.concurrency,
    }
    missed = [g for g, ok in goals.items() if not ok]
    for g in missed:
        print('goal missed: ' + g, file=sys.stderr)
    return 1 if missed else 0


if __name__ == '__main__':
    sys.exit(main())

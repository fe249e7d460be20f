#!/usr/bin/env bash
# Regenerates crates/mcp-server/link/hanzo-mcp.order, the symbol ordering
# file the release link of `hanzo-mcp` hands to the linker (rust-lld,
# `--symbol-ordering-file`; see crates/mcp-server/build.rs).
#
# Why: the binary carries ~8.6 MB of machine code (tree-sitter, TLS, regex,
# clap, tokio, ...), and the kernel maps executable pages 64 KiB at a time
# around each one touched. The few hundred functions a session runs are
# scattered over that code in the default layout, so serving touches
# ~3.5 MB of it. Listed here, the linker puts them next to each other, and
# serving touches ~1.4 MB (BENCHMARKS.md, mcp-local-server stdio).
#
# How: the release binary runs under valgrind's callgrind through four
# sessions over pipes (the shortest useful 2025-11-25 session, a longer one
# with tools/list and more fs actions, a 2026-07-28 stateless one, and one
# whose door refuses connections), and every function of the binary that
# ran is listed, in the order callgrind first met it, each session adding
# only what the ones before did not run. Each page of code a session
# touches stays resident, so what nearly every session runs comes first. Names are mangled symbol
# names: they hold crate hashes, so the file fits one toolchain, lockfile
# and set of features. Where it does not fit, the linker finds no names
# and the layout is the default one: slower to start, never wrong. Rerun
# this after a toolchain or dependency update.
#
# Two builds are profiled, and the file lists the names of both: the one
# `cargo build --release` / `cargo install` makes, and the one
# `cargo bench -p mcp-local-server` makes. The second differs because the
# crate's dev-dependencies add features to shared dependencies (tokio's
# `process`, ...), which changes their hashes; each link finds its own
# names and skips the other's.
#
#   scripts/orderfile.sh
#
# Needs: valgrind, nm (binutils), a Linux x86_64 machine.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
OUT="$ROOT/crates/mcp-server/link/hanzo-mcp.order"
for tool in valgrind nm cargo; do
  command -v "$tool" >/dev/null || { echo "orderfile.sh: needs $tool" >&2; exit 2; }
done

cd "$ROOT"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
cargo build --release -p mcp-local-server --bin hanzo-mcp
cp "$TARGET/release/hanzo-mcp" "$WORK/hanzo-mcp-shipped"
cargo bench -p mcp-local-server --no-run
cp "$TARGET/release/hanzo-mcp" "$WORK/hanzo-mcp-bench"
mkdir "$WORK/root"
printf 'hello\n' > "$WORK/root/one.txt"
mkdir "$WORK/root/sub"
FILE="$WORK/root/one.txt"

# Session 1: the shortest useful one: handshake, fs help and read, ping;
# the calls also as clients that put spaces in their JSON send them (the
# parser takes other paths for those).
cat > "$WORK/core.jsonl" <<EOF
{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"orderfile","version":"0"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"fs","arguments":{"action":"help"}}}
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"fs","arguments":{"action":"read","path":"$FILE"}}}
{"jsonrpc":"2.0","id":3,"method":"ping"}
{"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "fs", "arguments": {"action": "help"}}}
{"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "fs", "arguments": {"action": "read", "path": "$FILE"}}}
EOF
# Session 2: 2025-11-25 handshake, list, the fs actions a client uses most.
cat > "$WORK/legacy.jsonl" <<EOF
{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"roots":{"listChanged":true}},"clientInfo":{"name":"orderfile","version":"0"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":1,"method":"tools/list"}
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"fs","arguments":{"action":"help"}}}
{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"fs","arguments":{"action":"read","path":"$FILE"}}}
{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"fs","arguments":{"action":"read","path":"$FILE","offset":1,"limit":1}}}
{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"fs","arguments":{"action":"list","path":"$WORK/root"}}}
{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"fs","arguments":{"action":"info","path":"$FILE"}}}
{"jsonrpc":"2.0","id":7,"method":"ping"}
{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"fs","arguments":{"action":"read","path":"/nowhere"}}}
{"jsonrpc":"2.0","id":9,"method":"no/such/method"}
not json
EOF
# Session 3: the stateless 2026-07-28 style.
META='"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"orderfile","version":"0"}}'
cat > "$WORK/stateless.jsonl" <<EOF
{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{$META}}
{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{$META}}
{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"fs","arguments":{"action":"read","path":"$FILE"},$META}}
{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"fs","arguments":{"action":"help"},$META}}
EOF

# Runs one session of the binary $BIN under callgrind; stdin and stdout are
# pipes, as with a real client. Prints the function names it met, in
# first-met order.
profile() {
  local name="$1" requests="$2" extra="$3"
  shift 3
  # shellcheck disable=SC2086 # $extra is a list of flags
  cat "$requests" | env RUST_LOG=error "$@" valgrind --tool=callgrind --demangle=no \
    --dump-instr=no --callgrind-out-file="$WORK/$name.cg" \
    "$BIN" serve --log-level error --root "$WORK/root" $extra 2>"$WORK/$name.log" | cat >/dev/null
  grep -oE '^c?fn=\([0-9]+\) .+' "$WORK/$name.cg" | sed -E 's/^c?fn=\([0-9]+\) //'
}

# The function names one binary's session met, keeping only the text
# symbols that binary defines (callgrind also names libc's functions).
names() {
  local bin="$1"
  shift
  nm --defined-only "$bin" | awk '$2 ~ /^[tTwW]$/ { print $3 }' | sort -u > "$WORK/defined"
  BIN="$bin" profile "$@" | awk 'NR == FNR { defined[$0] = 1; next } $0 in defined' "$WORK/defined" -
}

# Session by session, each in both builds: what a door-less session runs
# comes first, then what only the door adds.
{
  for session in core legacy stateless; do
    for bin in "$WORK/hanzo-mcp-shipped" "$WORK/hanzo-mcp-bench"; do
      names "$bin" "$session" "$WORK/$session.jsonl" --no-door
    done
  done
  # A door on a port nothing listens on: the door client's start-up and
  # failure paths (TLS roots, the refused connection, the local-only list).
  for bin in "$WORK/hanzo-mcp-shipped" "$WORK/hanzo-mcp-bench"; do
    names "$bin" door "$WORK/legacy.jsonl" "--door-wait 0.5" \
      HANZO_MCP_DOOR=http://127.0.0.1:9/v1/mcp HANZO_API_KEY=orderfile-not-a-key
  done
} | awk '!seen[$0]++' > "$WORK/order"

{
  echo "# Symbol ordering file for the release link of hanzo-mcp (rust-lld"
  echo "# --symbol-ordering-file): the functions a session runs, placed together."
  echo "# Generated by scripts/orderfile.sh with $(rustc --version); do not edit."
  cat "$WORK/order"
} > "$OUT"
echo "orderfile.sh: $(wc -l < "$WORK/order") functions -> ${OUT#"$ROOT"/}"

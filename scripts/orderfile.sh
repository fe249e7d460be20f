#!/usr/bin/env bash
# Regenerates, or checks, crates/mcp-server/link/hanzo-mcp.order: the symbol
# ordering file the release link of `hanzo-mcp` hands to the linker
# (rust-lld, `--symbol-ordering-file`; see crates/mcp-server/build.rs).
#
#   scripts/orderfile.sh           # profile the release binary, write the file
#   scripts/orderfile.sh --check   # fail when the file is stale
#
# Why: the binary carries ~13 MB of machine code (tree-sitter, TLS, regex,
# clap, tokio, ...), and the kernel maps executable pages 64 KiB at a time
# around each one touched. The functions a session runs are scattered over
# that code in the default layout, so serving keeps several MB of it
# resident and faults it in piece by piece at start. Listed here, the
# linker puts them side by side (BENCHMARKS.md, "hanzo-mcp against rmcp's
# strongest configurations", has the figures with and without).
#
# How: the `cargo build --release` binary (the one `cargo install` makes)
# runs under valgrind's callgrind through seven sessions: first the one
# users run (the door configured; it refuses connections here, and a call
# needs it), the same without a configuration file, then the shortest
# useful stdio one without a door, a longer one with more fs actions and
# errors, the stateless 2026-07-28 style, the same over streamable HTTP,
# and calls to a mounted server. Each session is cut into parts at every
# `write` (callgrind's --dump-before): the start up to the first answer,
# then each answer or log line (over HTTP answers go out with `send`, so
# that session is cut at its log lines only). Every function of the binary that ran is
# listed by part, each where it was first met: what the three stdio
# sessions of the usual shape (the two default ones and the shortest)
# ran in their first parts, then in their second, and so on; then the
# other four the same way; then every session's shutdown. So what a
# session runs early (start-up, the first list and call) is one run of
# pages whichever configuration it has, and what few run (a door call, a
# rarer action, HTTP, a mounted server, the shutdown) comes after it, the
# code of each of those side by side too. Names are mangled
# symbol names: they hold crate hashes, so the file fits one toolchain,
# lockfile and set of features; where it does not fit, the linker finds no
# names and the layout is the default one (slower to start, more memory,
# never wrong). A function rustc shares between a crate's codegen units
# gets a `.llvm.<hash>` suffix that follows the path the crate was built
# from: the workspace's crates build as one unit each (Cargo.toml), so no
# name of theirs depends on where the repository is cloned; a dependency's
# may differ on a machine whose Cargo home is elsewhere.
#
# --check builds the same binary and fails (exit 1) when it defines fewer
# than 90% of the file's names: a toolchain or dependency update, or
# renamed code. The bench `cargo bench -p mcp-local-server --bench rmcp`
# makes the same check before it measures. New code a session runs is not
# caught that way; rerun this script after changing what a session runs.
#
# Needs: valgrind, nm (binutils), comm (coreutils), curl, python3, Linux
# x86_64.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
OUT="$ROOT/crates/mcp-server/link/hanzo-mcp.order"
BIN="$TARGET/release/hanzo-mcp"
MIN_SHARE=90

cd "$ROOT"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

if [ "${1:-}" = "--check" ]; then
  command -v nm >/dev/null || { echo "orderfile.sh: needs nm" >&2; exit 2; }
  cargo build --release -p mcp-local-server --bin hanzo-mcp
  nm --defined-only "$BIN" | awk '{ print $3 }' | sort -u > "$WORK/defined"
  grep -v '^#' "$OUT" | sort -u > "$WORK/listed"
  total=$(wc -l < "$WORK/listed")
  found=$(comm -12 "$WORK/listed" "$WORK/defined" | wc -l)
  echo "orderfile.sh: $found of $total names defined by the release binary"
  if [ "$total" -eq 0 ] || [ $((found * 100)) -lt $((total * MIN_SHARE)) ]; then
    echo "orderfile.sh: ${OUT#"$ROOT"/} is stale (below $MIN_SHARE%): run scripts/orderfile.sh" >&2
    exit 1
  fi
  exit 0
fi

for tool in valgrind nm cargo curl python3; do
  command -v "$tool" >/dev/null || { echo "orderfile.sh: needs $tool" >&2; exit 2; }
done
cargo build --release -p mcp-local-server --bin hanzo-mcp
cp "$BIN" "$WORK/hanzo-mcp"
BIN="$WORK/hanzo-mcp"
mkdir "$WORK/root"
printf 'hello\n' > "$WORK/root/one.txt"
mkdir "$WORK/root/sub"
FILE="$WORK/root/one.txt"

# Session 1: the shortest useful one: handshake, tools/list, fs help (41
# times: what a session runs once it has served a few dozen messages, a
# channel's next block, a table grown, comes early too) and read, ping;
# the calls also as clients that put spaces in their JSON send them (the
# parser takes other paths for those).
cat > "$WORK/core.jsonl" <<EOF
{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"orderfile","version":"0"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":1,"method":"tools/list"}
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"fs","arguments":{"action":"help"}}}
$(for id in $(seq 100 139); do
  printf '{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"fs","arguments":{"action":"help"}}}\n' "$id"
done)
{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"fs","arguments":{"action":"read","path":"$FILE"}}}
{"jsonrpc":"2.0","id":4,"method":"ping"}
{"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "fs", "arguments": {"action": "help"}}}
{"jsonrpc": "2.0", "id": 6, "method": "tools/call", "params": {"name": "fs", "arguments": {"action": "read", "path": "$FILE"}}}
EOF
# Session 2: a client with roots, more fs actions, errors.
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
# Session 5: the door refuses connections; a call of a name no local tool
# has builds it.
cp "$WORK/core.jsonl" "$WORK/door.jsonl"
echo '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"agents","arguments":{}}}' >> "$WORK/door.jsonl"

# The text symbols the binary defines (callgrind also names libc's).
nm --defined-only "$BIN" | awk '$2 ~ /^[tTwW]$/ { print $3 }' | sort -u > "$WORK/defined"

# The binary's functions met in one part of a callgrind output (names
# written out in full), in first-met order.
names() {
  { grep -E '^c?fn=' "$1" || [ $? -eq 1 ]; } | sed -E 's/^c?fn=(\([0-9]+\) )?//' |
    awk 'NR == FNR { defined[$0] = 1; next } $0 in defined' "$WORK/defined" -
}

# The lines of FILE one at a time, each followed by a pause: 2 s after the
# first (the server starts under valgrind meanwhile), 0.2 s after the
# others (more than a request takes there). So requests arrive about as
# from a client that waits for each answer, and each part of the profile
# holds one request's code, not several read at once.
pace() {
  local pause=2
  while IFS= read -r line; do
    printf '%s\n' "$line"
    sleep "$pause"
    pause=0.2
  done < "$1"
}

# One stdio session under callgrind, in the root folder, at the default
# log level (the start-up line is written): NAME, then `serve` flags, then
# `env` arguments (`-u VAR` first, then VAR=VALUE settings). stdin and stdout are pipes, as with a real client.
stdio() {
  local name="$1" flags="$2"
  shift 2
  # shellcheck disable=SC2086 # $flags is a list of flags
  # (A file as stdin would take Tokio's blocking-pool reader instead of
  # the event-driven pipe one a client's session runs.)
  pace "$WORK/$name.jsonl" |
    (cd "$WORK/root" && env -u RUST_LOG -u HANZO_API_KEY -u HANZO_MCP_CONFIG -u HANZO_MCP_DOOR \
      -u HANZO_API_BASE "$@" valgrind --tool=callgrind --demangle=no --dump-instr=no \
      --compress-strings=no --dump-before=write --callgrind-out-file="$WORK/$name.cg" \
      "$BIN" serve $flags \
      2>"$WORK/$name.log" | cat >/dev/null)
}

# Session 6: another MCP server mounted (the tests' small Python server):
# its tools listed once it is up, then calls through it.
mounted() {
  local init list server
  # The command line, quoted for the split `--server` makes of it.
  server="python3 $(printf '%q' "$ROOT/crates/mcp-server/tests/fixtures/mounted_server.py")"
  server+=" --prefix kb_ --log $(printf '%q' "$WORK/kb.log")"
  init='{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"orderfile","version":"0"}}}'
  list='{"jsonrpc":"2.0","id":1,"method":"tools/list"}'
  {
    printf '%s\n{"jsonrpc":"2.0","method":"notifications/initialized"}\n' "$init"
    # Time for the child to start and list its tools (the server runs
    # under valgrind).
    sleep 3
    printf '%s\n' "$list"
    for id in 2 3 4 5 6; do
      sleep 0.3
      printf '{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"kb_ops","arguments":{"action":"read"}}}\n' "$id"
    done
    sleep 2
  } | (cd "$WORK/root" && env -u RUST_LOG -u HANZO_MCP_CONFIG valgrind --tool=callgrind \
    --demangle=no --dump-instr=no --compress-strings=no --dump-before=write \
    --callgrind-out-file="$WORK/mounted.cg" \
    "$BIN" serve --no-door --root "$WORK/root" --server "kb=$server" \
    2>"$WORK/mounted.log" | cat >"$WORK/mounted.out") || true
  # Whether its calls were answered decides, not how the pipeline ended.
  grep -q '"id":6,"result"' "$WORK/mounted.out" || {
    echo "orderfile.sh: the mounted session's calls were not answered (see below)" >&2
    cat "$WORK/mounted.log" >&2
    exit 1
  }
}

# Session 4: `serve --http` under callgrind, stateless POSTs with curl, then
# SIGTERM (the server shuts down, and callgrind writes its output).
http() {
  local port=$((20000 + RANDOM % 20000))
  env -u RUST_LOG HANZO_MCP_DOOR=http://127.0.0.1:9/v1/mcp HANZO_MCP_HTTP_BEARER=orderfile-bearer \
    valgrind --tool=callgrind --demangle=no --dump-instr=no \
    --compress-strings=no --dump-before=write --callgrind-out-file="$WORK/http.cg" \
    "$BIN" serve --root "$WORK/root" --http "127.0.0.1:$port" \
    2>"$WORK/http.log" &
  local server=$!
  for _ in $(seq 150); do
    curl -s -o /dev/null "http://127.0.0.1:$port/mcp" && break
    sleep 0.2
  done
  local list call_help call_read
  list="{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{$META}}"
  call_help="{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"fs\",\"arguments\":{\"action\":\"help\"},$META}}"
  call_read="{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"fs\",\"arguments\":{\"action\":\"read\",\"path\":\"$FILE\"},$META}}"
  post() {
    curl -s -o /dev/null -X POST "http://127.0.0.1:$port/mcp" \
      -H 'Authorization: Bearer orderfile-bearer' \
      -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
      -H 'MCP-Protocol-Version: 2026-07-28' "$@"
  }
  post -H 'Mcp-Method: tools/list' --data "$list"
  post -H 'Mcp-Method: tools/call' -H 'Mcp-Name: fs' --data "$call_help"
  post -H 'Mcp-Method: tools/call' -H 'Mcp-Name: fs' --data "$call_read"
  kill -TERM "$server"
  wait "$server" || true
}

stdio core "--no-door --root $WORK/root"
stdio legacy "--no-door --root $WORK/root"
stdio stateless "--no-door --root $WORK/root"
http
mounted
# The default configuration: the door configured (refusing here), the
# working directory as the root, a configuration file read.
printf 'log_level = "info"\n\n[door]\nenabled = true\n' > "$WORK/config.toml"
stdio door "" HANZO_MCP_DOOR=http://127.0.0.1:9/v1/mcp HANZO_API_KEY=orderfile-not-a-key \
  HANZO_MCP_CONFIG="$WORK/config.toml"
# The same without a configuration file or a bearer, in an empty home
# (the log filter is then made from its default, and the bearer looked
# for in the home's `.hanzo/config.json` and from the `hanzo` CLI).
cp "$WORK/door.jsonl" "$WORK/plain.jsonl"
mkdir "$WORK/home"
stdio plain "" -u XDG_CONFIG_HOME -u XDG_DATA_HOME HANZO_MCP_DOOR=http://127.0.0.1:9/v1/mcp \
  HOME="$WORK/home"
# The parts of SESSIONS (a list), part by part, each session's part in
# turn. Callgrind numbers a run's parts from 1; what ran after the last
# `write` (the shutdown) is in the file without a number, left out here.
by_part() {
  local parts=0 count part session
  for session in $1; do
    count=$(find "$WORK" -maxdepth 1 -name "$session.cg.*" | wc -l)
    if [ "$count" -eq 0 ]; then
      echo "orderfile.sh: no callgrind output for $session" >&2
      exit 1
    fi
    if [ "$count" -gt "$parts" ]; then parts=$count; fi
  done
  for part in $(seq 1 "$parts"); do
    for session in $1; do
      if [ -f "$WORK/$session.cg.$part" ]; then names "$WORK/$session.cg.$part"; fi
    done
  done
}
# First the stdio sessions of the usual shape (the default ones and the
# shortest), then the others, then every shutdown.
{
  by_part "door plain core"
  by_part "legacy stateless http mounted"
  for session in door plain core legacy stateless http mounted; do
    names "$WORK/$session.cg"
  done
} | awk '!seen[$0]++' > "$WORK/order"

{
  echo "# Symbol ordering file for the release link of hanzo-mcp (rust-lld"
  echo "# --symbol-ordering-file): the functions a session runs, placed together."
  echo "# Generated by scripts/orderfile.sh with $(rustc --version); do not edit."
  cat "$WORK/order"
} > "$OUT"
echo "orderfile.sh: $(wc -l < "$WORK/order") functions -> ${OUT#"$ROOT"/}"

//! Fuzzes reading an allowlist configuration (mcp-gating): arbitrary bytes
//! as the JSON of `--allowed-tools`, and arbitrary lines as entries. Never a
//! panic or a hang; what parses obeys the crate's invariants.
//!
//! Run: `cd fuzz && RUSTC_BOOTSTRAP=1 cargo fuzz run gating_config`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcp_gating::{
    AllowedTools, Entry, GatedSurface, Policy, SurfaceRules, resolve_allowed_tools,
    unmatched_entries,
};
use mcp_proto::{Message, parse_message};

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let config = if mode % 2 == 0 {
        from_json(rest)
    } else {
        from_lines(rest)
    };
    if let Some(config) = config {
        check(&config);
    }
});

/// The bytes as the JSON value of a configuration. The fuzz crate reaches
/// serde_json only through mcp-proto, so the value rides in a request's
/// params and is handed to the configuration's deserializer from there.
fn from_json(bytes: &[u8]) -> Option<AllowedTools> {
    let mut envelope = br#"{"jsonrpc":"2.0","id":1,"method":"gating/config","params":{"config":"#.to_vec();
    envelope.extend_from_slice(bytes);
    envelope.push(b'}');
    envelope.push(b'}');
    let Ok(Message::Request(request)) = parse_message(&envelope) else {
        return None;
    };
    let value = request.params?.get("config")?.clone();
    AllowedTools::from_deserializer(value).ok()
}

/// The bytes as lines `server=entry`, through the programmatic constructor.
fn from_lines(bytes: &[u8]) -> Option<AllowedTools> {
    let text = std::str::from_utf8(bytes).ok()?;
    let mut servers: Vec<(String, Vec<String>)> = Vec::new();
    for line in text.lines() {
        let (server, entry) = line.split_once('=').unwrap_or(("s", line));
        match servers.iter_mut().find(|(name, _)| name == server) {
            Some((_, entries)) => entries.push(entry.to_owned()),
            None => servers.push((server.to_owned(), vec![entry.to_owned()])),
        }
    }
    AllowedTools::from_servers(servers).ok()
}

fn check(config: &AllowedTools) {
    for (server, list) in config.servers() {
        // Every entry writes back to a text that reads as the same entry.
        for entry in list.entries() {
            assert_eq!(Entry::parse(server, &entry.to_string()).as_ref(), Ok(entry));
        }
        // Tools named exactly as the entries are all kept, and none is unmatched.
        let names: Vec<String> = list.entries().iter().map(|e| e.tool().to_owned()).collect();
        assert_eq!(resolve_allowed_tools(&names, config, server).len(), names.len());
        assert!(unmatched_entries(&names, config, server).is_empty());
        let strict = Policy::DenyByDefault.resolve(&names, config, server);
        assert_eq!(strict.len(), names.len());
        // What a surface lists, it routes.
        for rules in [SurfaceRules::door(), SurfaceRules::local()] {
            let surface = GatedSurface::new(server, &names, config, Policy::FailOpen, rules);
            assert!(surface.tools().iter().all(|tool| surface.owns(tool)));
        }
    }
    // Servers the configuration does not name keep everything (fail-open).
    let probe = ["fs", "door", "describe"];
    let unnamed = "\u{0}not a configured server";
    if config.server(unnamed).is_none() {
        assert_eq!(resolve_allowed_tools(probe, config, unnamed), probe);
    }
}

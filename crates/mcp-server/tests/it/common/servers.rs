//! The MCP servers the tests and benches mount: the tests' own small stdio
//! server (`tests/fixtures/mounted_server.py`) and the official
//! `@modelcontextprotocol/server-everything`, installed with npm on first
//! use under cargo's target folder (so `cargo test` on a fresh machine
//! needs only Node.js and npm's registry).
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The npm package and the version the tests pin.
pub const SERVER_EVERYTHING: &str = "@modelcontextprotocol/server-everything@2026.8.31";

/// The tests' small stdio server (Python 3): its path.
pub fn fixture() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/mounted_server.py")
        .display()
        .to_string()
}

/// The entry script of [`SERVER_EVERYTHING`] (run as `node <script>
/// stdio`), installed by `npm install` into `<target>/tmp` the first time
/// it is asked for.
///
/// Panics when npm fails, with its output.
pub fn server_everything() -> PathBuf {
    static SCRIPT: OnceLock<PathBuf> = OnceLock::new();
    SCRIPT
        .get_or_init(|| {
            let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("server-everything");
            let script =
                dir.join("node_modules/@modelcontextprotocol/server-everything/dist/index.js");
            if script.exists() {
                return script;
            }
            std::fs::create_dir_all(&dir).expect("a folder for npm");
            let output = std::process::Command::new("npm")
                .args(["install", "--no-audit", "--no-fund", "--prefix"])
                .arg(&dir)
                .arg(SERVER_EVERYTHING)
                .output()
                .unwrap_or_else(|e| {
                    panic!("npm could not run ({e}); the tests need Node.js and npm")
                });
            assert!(
                output.status.success() && script.exists(),
                "npm install {SERVER_EVERYTHING} failed: {}{}",
                String::from_utf8_lossy(&output.stdout),
                String::from_utf8_lossy(&output.stderr)
            );
            script
        })
        .clone()
}

/// Writes an executable shell script at `path` running `body` (what an
/// agent with file tools could plant where a program is looked for).
pub fn plant(path: &Path, body: &str) {
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::write(path, format!("#!/bin/sh\n{body}\n")).expect("plant a program");
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
}

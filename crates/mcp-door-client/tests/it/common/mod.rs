//! Shared helpers for the door-client tests: configs pointed at a fake door,
//! call params and results, a log capture, a scripted loopback server
//! (`loopback`), and a way to run a test alone in a process of its own.

mod door;
pub mod loopback;

use std::io::Write;
use std::process::Command;
use std::sync::{Arc, Mutex, OnceLock};

use mcp_door_client::{DoorClient, DoorClientConfig, DoorSnapshot};
use mcp_fake_door::FakeDoor;
use serde_json::Value;
use tracing::subscriber::DefaultGuard;

pub use door::{config_with_bearer, params};

/// A bearer no other string in the tests contains.
pub const CANARY: &str = "sk-canary-7f3a9c1e5b2d4086";

/// A config for `url` with the canary bearer and 5 s list/call limits
/// (tests of hanging behaviours set shorter ones).
pub fn config(url: &str) -> DoorClientConfig {
    config_with_bearer(url, CANARY)
}

/// [`config`] for a fake door's `/v1/mcp`.
pub fn config_for(door: &FakeDoor) -> DoorClientConfig {
    config(&door.url())
}

/// The names of a snapshot's door tools, in order.
pub fn names(snapshot: &DoorSnapshot) -> Vec<String> {
    snapshot
        .list
        .as_ref()
        .map(|list| list.tools.iter().map(|t| t.name.clone()).collect())
        .unwrap_or_default()
}

/// A forwarded `tools/call` of `agents` without arguments: its result (a
/// JSON-RPC error fails the test).
pub async fn call_agents(door: &DoorClient) -> Value {
    door.call_tool(params(serde_json::json!({"name": "agents"})), None)
        .await
        .expect("a result")
}

/// The text of a `tools/call` result's first content block.
pub fn result_text(result: &Value) -> String {
    result["content"][0]["text"]
        .as_str()
        .expect("a text block")
        .to_owned()
}

/// Log lines written through `tracing` while the guard lives (this thread,
/// so use a current-thread runtime).
#[derive(Clone, Default)]
pub struct Captured(Arc<Mutex<Vec<u8>>>);

impl Captured {
    /// Everything captured so far.
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().expect("log lock")).into_owned()
    }

    /// Captured lines that contain `needle`.
    pub fn lines_with(&self, needle: &str) -> Vec<String> {
        self.text()
            .lines()
            .filter(|l| l.contains(needle))
            .map(str::to_owned)
            .collect()
    }
}

impl Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().expect("log lock").extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A subscriber that writes every `tracing` event (TRACE and up) into
/// `captured`, without colours.
fn writing_to(captured: &Captured) -> impl tracing::Subscriber + Send + Sync + 'static {
    let writer = captured.clone();
    tracing_subscriber::fmt()
        .with_max_level(tracing::Level::TRACE)
        .with_ansi(false)
        .with_writer(move || writer.clone())
        .finish()
}

/// Captures every `tracing` event (TRACE and up) on this thread.
pub fn capture_logs() -> (Captured, DefaultGuard) {
    let captured = Captured::default();
    let guard = tracing::subscriber::set_default(writing_to(&captured));
    (captured, guard)
}

/// Captures every `tracing` event (TRACE and up) of every thread of this
/// test binary, from the first call on; later calls return the same
/// capture. Unlike [`capture_logs`] it cannot miss an event whose callsite
/// another test thread reached first; tests tell their own lines apart by
/// something unique to them (a door's port).
pub fn capture_global_logs() -> Captured {
    static GLOBAL: OnceLock<Captured> = OnceLock::new();
    GLOBAL
        .get_or_init(|| {
            let captured = Captured::default();
            tracing::subscriber::set_global_default(writing_to(&captured))
                .expect("no other global subscriber in this test binary");
            captured
        })
        .clone()
}

/// The variable that tells a process of this binary which test it was
/// started for.
const FRESH_PROCESS_TEST: &str = "MCP_DOOR_CLIENT_FRESH_PROCESS_TEST";

/// For a test that needs a process of its own (it depends on process-wide
/// state): `true` in the process started for `test` (its path below the
/// binary, `module::name`), where the caller then runs its body; elsewhere
/// it runs this binary again for that one test, asserts that exactly that
/// test ran and passed, and returns `false`.
///
/// The new process gets this process's environment plus one variable, set
/// on its command only (no `set_var`: the other tests run in parallel).
pub fn in_fresh_process(test: &str) -> bool {
    if std::env::var_os(FRESH_PROCESS_TEST).is_some_and(|name| name == test) {
        return true;
    }
    let binary = std::env::current_exe().expect("the test binary's path");
    let output = Command::new(binary)
        .args([test, "--exact", "--test-threads=1"])
        .env(FRESH_PROCESS_TEST, test)
        .output()
        .expect("run the test binary again");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "{test}, in a process of its own, failed:\n{stdout}\n{stderr}"
    );
    assert!(
        stdout.contains("test result: ok. 1 passed"),
        "{test} did not run in the process started for it:\n{stdout}"
    );
    false
}

//! Shared helpers for the door-client tests: configs pointed at a fake door,
//! a log capture, tool names.
#![allow(dead_code)]

use std::io::Write;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use mcp_door_client::{Bearer, BearerSource, DoorConfig, DoorSnapshot};
use mcp_fake_door::FakeDoor;
use tracing::subscriber::DefaultGuard;

/// A bearer no other string in the tests contains.
pub const CANARY: &str = "sk-canary-7f3a9c1e5b2d4086";

/// A config for `url` with the canary bearer and 5 s list/call limits
/// (tests of hanging behaviours set shorter ones).
pub fn config(url: &str) -> DoorConfig {
    let mut config = DoorConfig::new(url);
    config.bearer = BearerSource::Fixed(Bearer::new(CANARY).expect("valid bearer"));
    config.timeouts.list = Duration::from_secs(5);
    config.timeouts.call = Duration::from_secs(5);
    config
}

/// [`config`] for a fake door's `/v1/mcp`.
pub fn config_for(door: &FakeDoor) -> DoorConfig {
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

/// Captures every `tracing` event (TRACE and up) on this thread.
pub fn capture_logs() -> (Captured, DefaultGuard) {
    let captured = Captured::default();
    let writer = captured.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::TRACE)
        .with_ansi(false)
        .with_writer(move || writer.clone())
        .finish();
    (captured, tracing::subscriber::set_default(subscriber))
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
            let writer = captured.clone();
            let subscriber = tracing_subscriber::fmt()
                .with_max_level(tracing::Level::TRACE)
                .with_ansi(false)
                .with_writer(move || writer.clone())
                .finish();
            tracing::subscriber::set_global_default(subscriber)
                .expect("no other global subscriber in this test binary");
            captured
        })
        .clone()
}

//! A scriptable, in-process HIP-0300 door for tests.
//!
//! [`FakeDoor::start`] binds an ephemeral port on `127.0.0.1`, serves the
//! door's endpoint `POST /v1/mcp` (revision 2026-07-28, stateless JSON-RPC,
//! HIP-0300 §1) from a thread of its own, and records every request it
//! receives. A [`Behaviour`] chooses how it answers: normally, with a 401
//! challenge, as `text/event-stream`, with an HTML 502, with garbage, never,
//! slowly, only once the test releases it, with redirects, in pages, with a
//! cursor that never advances, with invalid tool names, with a tool without
//! `inputSchema`, with a fixed `tools/call` result (a JSON value, or a raw
//! JSON text sent byte for byte as JSON or as an event stream), with 1,200
//! tools, or with a list that changes on each request. The behaviour can be
//! changed while the door runs.
//!
//! The door runs on its own thread and runtime, so it works the same from a
//! plain `#[test]`, from `#[tokio::test]`, and for tests that point a real
//! `hanzo-mcp` process at it through `HANZO_MCP_DOOR`.
//!
//! # Example: start a door and read its log
//!
//! ```no_run
//! use mcp_fake_door::{Behaviour, FakeDoor};
//!
//! let door = FakeDoor::start(Behaviour::Normal).expect("bind 127.0.0.1");
//! // Point the code under test at door.url(), e.g. HANZO_MCP_DOOR=<url>.
//! println!("door at {}", door.url());
//! for request in door.requests() {
//!     println!("{} {} {:?}", request.method, request.path, request.rpc_method());
//! }
//! ```
//!
//! # What every behaviour shares
//!
//! - `POST /mcp` answers `308` with `Location: /v1/mcp` (HIP-0300 §1.1).
//! - `GET /.well-known/oauth-protected-resource` (and the `/v1/mcp` suffixed
//!   form) answers the protected-resource metadata (HIP-0300 §1.7).
//! - Every request to any path is logged before it is answered, its body
//!   bytes exactly as received ([`LoggedRequest::body`],
//!   [`LoggedRequest::body_text`]).
//! - A JSON-RPC body is read with each `\u` escape of a lone UTF-16
//!   surrogate (e.g. `"\ud800"`, which no JSON parser can turn into a
//!   string) taken as `\ufffd`, so such a request is still routed and
//!   echoed; the log keeps the bytes as sent.
//! - A POST whose `MCP-Protocol-Version`, `Mcp-Method` or (for `tools/call`)
//!   `Mcp-Name` header is missing or disagrees with the body is answered
//!   `400` with JSON-RPC error -32020 (MCP 2026-07-28, HeaderMismatchError),
//!   so a client that forgets a header fails loudly.
//!
//! # Tools/call in the normal behaviour
//!
//! A `tools/call` without `Authorization` is answered `401` like the real
//! public door (HIP-0300 §1.6). With one, the call is echoed:
//! `{"content":[{"type":"text","text":"called <name>"}],
//! "structuredContent":{"name":<name>,"arguments":<arguments or null>},
//! "isError":false,"resultType":"complete"}`. The name `fail` answers the
//! same shape with `isError: true` and text `operation failed`; the name
//! `explode` answers the JSON-RPC error `{"code":-32603,"message":"subsystem
//! exploded","data":{"subsystem":"explode"}}`.
#![deny(missing_docs)]

mod answer;
mod behaviour;
mod handler;
mod lenient_json;
pub mod raw_http;
mod request_log;

use std::io;
use std::net::{SocketAddr, TcpListener as StdTcpListener};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;

use axum::Router;
use tokio::sync::oneshot;

pub use behaviour::{
    Behaviour, HUGE_TOOL_COUNT, LONG_NAME_LEN, grouped_tools, hostile_tools, huge_tools,
    invalid_name_tools, missing_schema_tools, normal_meta, normal_tools,
};
pub use request_log::LoggedRequest;

pub use mcp_proto::DOOR_PATH;
/// The framework default path that answers 308 to [`DOOR_PATH`] (HIP-0300 §1.1).
pub const LEGACY_PATH: &str = "/mcp";
/// The protected-resource metadata path (RFC 9728, HIP-0300 §1.7).
pub const METADATA_PATH: &str = "/.well-known/oauth-protected-resource";
/// The protocol revision the door speaks (HIP-0300 §1.1).
pub const PROTOCOL_REVISION: &str = "2026-07-28";

/// What the running door and its handlers share.
struct Shared {
    origin: String,
    behaviour: Mutex<Behaviour>,
    ttl_ms: Mutex<Option<u64>>,
    log: Mutex<Vec<LoggedRequest>>,
    lists_answered: AtomicU64,
    /// Becomes `true` on [`FakeDoor::release`] ([`Behaviour::Held`]).
    released: tokio::sync::watch::Sender<bool>,
}

/// `mutex`'s guard, poisoned or not.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panicking test thread must not hide the log from the others.
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// A running fake door. Dropping it stops the server (pending requests,
/// including hanging ones, are cut).
pub struct FakeDoor {
    addr: SocketAddr,
    shared: Arc<Shared>,
    shutdown: Option<oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl std::fmt::Debug for FakeDoor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FakeDoor")
            .field("addr", &self.addr)
            .finish_non_exhaustive()
    }
}

impl FakeDoor {
    /// Binds `127.0.0.1:0` and serves with `behaviour` on a new thread.
    ///
    /// Errors: the bind, or building the thread's runtime, failed.
    pub fn start(behaviour: Behaviour) -> io::Result<FakeDoor> {
        FakeDoor::start_at(SocketAddr::from(([127, 0, 0, 1], 0)), behaviour)
    }

    /// Binds `addr` (a door that comes up where a server was told to look
    /// for one) and serves with `behaviour` on a new thread.
    ///
    /// Errors: the bind, or building the thread's runtime, failed.
    pub fn start_at(addr: SocketAddr, behaviour: Behaviour) -> io::Result<FakeDoor> {
        let listener = StdTcpListener::bind(addr)?;
        listener.set_nonblocking(true)?;
        let addr = listener.local_addr()?;
        let shared = Arc::new(Shared {
            origin: format!("http://{addr}"),
            behaviour: Mutex::new(behaviour),
            ttl_ms: Mutex::new(None),
            log: Mutex::new(Vec::new()),
            lists_answered: AtomicU64::new(0),
            released: tokio::sync::watch::Sender::new(false),
        });
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        let (shutdown, stopped) = oneshot::channel::<()>();
        let app = Router::new()
            .fallback(handler::handle)
            .with_state(Arc::clone(&shared));
        let thread = std::thread::Builder::new()
            .name(format!("fake-door-{}", addr.port()))
            .spawn(move || {
                runtime.block_on(async move {
                    let Ok(listener) = tokio::net::TcpListener::from_std(listener) else {
                        return;
                    };
                    tokio::select! {
                        _ = axum::serve(listener, app) => {}
                        _ = stopped => {}
                    }
                });
                // Dropping the runtime here cancels hanging handlers.
            })?;
        Ok(FakeDoor {
            addr,
            shared,
            shutdown: Some(shutdown),
            thread: Some(thread),
        })
    }

    /// The socket address, `127.0.0.1:<port>`.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The origin, `http://127.0.0.1:<port>` (no trailing `/`).
    pub fn origin(&self) -> String {
        self.shared.origin.clone()
    }

    /// The door's address, `http://127.0.0.1:<port>/v1/mcp`: the value for
    /// `HANZO_MCP_DOOR`.
    pub fn url(&self) -> String {
        format!("{}{DOOR_PATH}", self.shared.origin)
    }

    /// The framework default address `http://127.0.0.1:<port>/mcp`, which
    /// answers 308 to [`FakeDoor::url`].
    pub fn legacy_url(&self) -> String {
        format!("{}{LEGACY_PATH}", self.shared.origin)
    }

    /// The metadata URL the [`Behaviour::Unauthorized`] challenge names:
    /// `http://127.0.0.1:<port>/.well-known/oauth-protected-resource/v1/mcp`.
    pub fn challenge_metadata_url(&self) -> String {
        format!("{}{METADATA_PATH}{DOOR_PATH}", self.shared.origin)
    }

    /// The origin's default metadata URL,
    /// `http://127.0.0.1:<port>/.well-known/oauth-protected-resource`.
    pub fn default_metadata_url(&self) -> String {
        format!("{}{METADATA_PATH}", self.shared.origin)
    }

    /// Changes how the door answers from the next request on.
    pub fn set_behaviour(&self, behaviour: Behaviour) {
        *lock(&self.shared.behaviour) = behaviour;
    }

    /// The current behaviour.
    pub fn behaviour(&self) -> Behaviour {
        lock(&self.shared.behaviour).clone()
    }

    /// Sets the `ttlMs` put on the last page of every `tools/list` result
    /// (`None`, the default, leaves it out).
    pub fn set_ttl_ms(&self, ttl_ms: Option<u64>) {
        *lock(&self.shared.ttl_ms) = ttl_ms;
    }

    /// Every request received so far, oldest first.
    pub fn requests(&self) -> Vec<LoggedRequest> {
        lock(&self.shared.log).clone()
    }

    /// The requests whose JSON-RPC method is `rpc_method` (e.g. `tools/call`).
    pub fn requests_for(&self, rpc_method: &str) -> Vec<LoggedRequest> {
        lock(&self.shared.log)
            .iter()
            .filter(|r| r.rpc_method().as_deref() == Some(rpc_method))
            .cloned()
            .collect()
    }

    /// Empties the request log.
    pub fn clear_log(&self) {
        lock(&self.shared.log).clear();
    }

    /// Lets the requests [`Behaviour::Held`] holds (and every later one) be
    /// answered. Calling it again does nothing.
    pub fn release(&self) {
        self.shared.released.send_replace(true);
    }

    /// How many `tools/list` requests have been answered (not counting ones
    /// refused for headers, challenged, hanging or failing on purpose).
    pub fn lists_answered(&self) -> u64 {
        self.shared.lists_answered.load(Ordering::SeqCst)
    }
}

impl Drop for FakeDoor {
    fn drop(&mut self) {
        if let Some(shutdown) = self.shutdown.take() {
            let _ = shutdown.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

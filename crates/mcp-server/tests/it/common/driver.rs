//! The one in-process driver, for the tests and the door bench
//! (`#[path]`-included there): a [`Server`]'s session driven as a client
//! would drive it, through the message-level API ([`Server::connect`]), or
//! through the stdio transport on in-memory pipes when the bytes on the
//! wire are what a test is about.
#![allow(dead_code)]

use std::sync::Arc;
use std::time::Duration;

use mcp_door_client::{Bearer, BearerSource, DoorClient, DoorClientConfig};
use mcp_local_server::door::DoorSource;
use mcp_local_server::local::LocalSource;
use mcp_local_server::mcp_proto::{Implementation, message_from_value};
use mcp_local_server::{Composition, Incoming, Server, ServerConfig, ServerError, ToolSource};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream};
use tokio::task::JoinHandle;

/// How long one line may take: a guard against a hang, not a timing
/// assertion.
pub const PATIENCE: Duration = Duration::from_secs(60);

/// The client's ends of `Server::serve` on in-memory pipes, and its task.
pub struct StdioPipes {
    /// What the server reads.
    pub input: DuplexStream,
    /// What the server writes.
    pub output: BufReader<DuplexStream>,
    /// `Server::serve` of this connection, ended by end of input.
    pub serving: JoinHandle<Result<(), ServerError>>,
}

impl StdioPipes {
    /// Serves `server` over stdio framing on pipes of `buffer` bytes each
    /// way.
    pub fn open(server: Arc<Server>, buffer: usize) -> Self {
        let (input, server_in) = tokio::io::duplex(buffer);
        let (server_out, output) = tokio::io::duplex(buffer);
        let serving = tokio::spawn(async move {
            server
                .serve(server_in, server_out, std::future::pending::<()>())
                .await
        });
        Self {
            input,
            output: BufReader::new(output),
            serving,
        }
    }
}

/// How the driver reaches the session.
enum Wire {
    /// [`Server::connect`]: messages in, messages out.
    Messages(mcp_local_server::Connection),
    /// [`Server::serve`] on in-memory pipes: lines in, lines out.
    Stdio(StdioPipes),
}

/// A client of one session.
pub struct Connection {
    wire: Wire,
    line: Vec<u8>,
}

impl Connection {
    /// A session of `server`, driven by messages.
    pub fn open(server: Arc<Server>) -> Self {
        Self {
            wire: Wire::Messages(server.connect()),
            line: Vec::new(),
        }
    }

    /// A session of `server` served over stdio framing, on pipes of
    /// `buffer` bytes each way.
    pub fn stdio(server: Arc<Server>, buffer: usize) -> Self {
        Self {
            wire: Wire::Stdio(StdioPipes::open(server, buffer)),
            line: Vec::new(),
        }
    }

    /// Sends `bytes` as the text of one message (a line, over stdio).
    pub async fn send_raw(&mut self, bytes: &[u8]) {
        match &mut self.wire {
            Wire::Messages(connection) => connection
                .send(Incoming::Text(bytes.to_vec()))
                .await
                .expect("the session takes input"),
            Wire::Stdio(pipes) => {
                pipes.input.write_all(bytes).await.expect("write");
                pipes.input.write_all(b"\n").await.expect("write");
            }
        }
    }

    /// Sends one message: parsed, when it is one, as a transport that
    /// parsed it would hand it over; else as text.
    pub async fn send(&mut self, message: Value) {
        match &mut self.wire {
            Wire::Messages(connection) => {
                let incoming = match message_from_value(message.clone()) {
                    Ok(parsed) => Incoming::Message(parsed),
                    Err(_) => Incoming::Text(message.to_string().into_bytes()),
                };
                connection
                    .send(incoming)
                    .await
                    .expect("the session takes input");
            }
            Wire::Stdio(_) => self.send_raw(message.to_string().as_bytes()).await,
        }
    }

    /// The next message the server sends, as a line with its newline;
    /// empty at the end. Waits as long as it takes (for a bench).
    pub async fn read_raw(&mut self) -> &[u8] {
        self.line.clear();
        match &mut self.wire {
            Wire::Messages(connection) => {
                if let Some(out) = connection.recv().await {
                    self.line.extend_from_slice(&out.bytes);
                    self.line.push(b'\n');
                }
            }
            Wire::Stdio(pipes) => {
                pipes
                    .output
                    .read_until(b'\n', &mut self.line)
                    .await
                    .expect("read");
            }
        }
        &self.line
    }

    /// Sends `request` (one line, newline included) and reads the next
    /// line (for a bench).
    pub async fn round_trip(&mut self, request: &[u8]) -> &[u8] {
        let text = request.strip_suffix(b"\n").unwrap_or(request);
        self.send_raw(text).await;
        self.read_raw().await
    }

    /// The next line, as text; `None` at the end of the output.
    pub async fn next_line(&mut self) -> Option<String> {
        let line = tokio::time::timeout(PATIENCE, self.read_raw())
            .await
            .expect("a line within the patience bound");
        if line.is_empty() {
            return None;
        }
        let text = std::str::from_utf8(line).expect("a UTF-8 line");
        Some(text.trim_end_matches(['\n', '\r']).to_owned())
    }

    /// The next message.
    pub async fn next(&mut self) -> Value {
        let line = self.next_line().await.expect("the server wrote a line");
        serde_json::from_str(&line).expect("a JSON line")
    }

    /// Writes `bytes` as a line and reads the next message.
    pub async fn exchange(&mut self, bytes: &[u8]) -> Value {
        self.send_raw(bytes).await;
        self.next().await
    }

    /// Sends a notification.
    pub async fn notify(&mut self, method: &str) {
        self.send(json!({ "jsonrpc": "2.0", "method": method }))
            .await;
    }

    /// Sends a request without waiting for anything.
    pub async fn request(&mut self, id: u64, method: &str, params: Value) {
        self.send(json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }))
            .await;
    }

    /// Pings with `id` and asserts that the very next line is the answer:
    /// the server sent nothing else before it.
    pub async fn assert_next_is_pong(&mut self, id: u64) {
        assert_eq!(
            self.call(id, "ping", json!({})).await,
            json!({ "jsonrpc": "2.0", "id": id, "result": {} })
        );
    }

    /// Sends `message` and returns the next message.
    pub async fn ask(&mut self, message: Value) -> Value {
        self.send(message).await;
        self.next().await
    }

    /// Sends a request and returns the next message (its answer when the
    /// server sends nothing else first).
    pub async fn call(&mut self, id: u64, method: &str, params: Value) -> Value {
        self.request(id, method, params).await;
        self.next().await
    }

    /// The next line that answers `id`, as it came (other lines skipped).
    pub async fn answer(&mut self, id: i64) -> String {
        loop {
            let line = self.next_line().await.expect("a line");
            let message: Value = serde_json::from_str(&line).expect("json");
            if message["id"] == id {
                return line;
            }
        }
    }

    /// `initialize` (2025-11-25) with `capabilities`, then
    /// `notifications/initialized`; the `initialize` response.
    pub async fn handshake(&mut self, capabilities: Value) -> Value {
        let answer = self
            .call(
                0,
                "initialize",
                json!({ "protocolVersion": "2025-11-25", "capabilities": capabilities,
                    "clientInfo": { "name": "t", "version": "1" } }),
            )
            .await;
        self.notify("notifications/initialized").await;
        answer
    }
}

/// A server composed as `hanzo-mcp serve` composes it: the local tools on
/// `root`, then a door at `door_url` with `bearer`, whose `tools/list`
/// waits at most `list_wait` for the door. The door source starts its
/// first fetch on its own.
pub fn local_and_door(
    door_url: &str,
    bearer: &str,
    root: &std::path::Path,
    list_wait: Duration,
) -> (Arc<Server>, DoorClient, Composition) {
    let mut config = DoorClientConfig::new(door_url);
    config.bearer = BearerSource::Fixed(Bearer::new(bearer).expect("bearer"));
    let door = DoorClient::new(config).expect("door");
    let local = LocalSource::new(vec![root.to_path_buf()]).expect("local");
    let sources: Vec<Arc<dyn ToolSource>> = vec![
        Arc::new(local),
        Arc::new(DoorSource::start(door.clone(), list_wait)),
    ];
    let composition = Composition::new(sources);
    let info = Implementation::new("local-and-door", "0");
    let server = Arc::new(Server::new(composition.clone(), ServerConfig::new(info)));
    (server, door, composition)
}

//! A client for a HIP-0300 door: a local MCP server reaches the cloud only
//! by forwarding `tools/list` and `tools/call` to it, and must survive every
//! way the door can fail ("a hang is a dead agent", HIP-0300 §2.2).
//!
//! [`DoorClient`] holds the door's list in a cache that is filled and refreshed
//! in the background, one fetch at a time, and forwards calls. [`merge`]
//! puts the local tools first and the door's other tools after them. A door
//! that is down, hangs, answers HTML or garbage makes the list local-only
//! and costs one `tracing` warning per outage; a forwarded call that cannot
//! reach it gets a one-line `isError` result naming the door.
//!
//! # Layers
//!
//! - [`DoorClientConfig`]: the address (`HANZO_MCP_DOOR`, else
//!   `${HANZO_API_BASE:-https://api.hanzo.ai}/v1/mcp`), the [`BearerSource`],
//!   [`Timeouts`] (connect 2 s, list 5 s, call 120 s), [`CachePolicy`]
//!   (5 min, door `ttlMs` honoured within 10 s..1 h), page and redirect caps.
//! - [`Bearer`] / [`BearerDiscovery`]: `HANZO_API_KEY`, else `apiKey` in
//!   `~/.hanzo/config.json`, else `hanzo auth token` (once per process, 3 s).
//!   A bearer never shows in `Debug`, logs or results, and is sent only to
//!   the door's origin.
//! - transport (internal): revision 2026-07-28 POSTs with `Content-Type`,
//!   `Accept`, `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name` and the
//!   required request `_meta`; answers read as `application/json` or
//!   `text/event-stream`; 307/308 followed by hand (method and body kept,
//!   at most 5 hops, `Authorization` dropped on another origin); 401 read
//!   for its resource metadata URL, which is relayed only when it is a
//!   plain https URL that does not hold the bearer.
//! - [`DoorClient`]: the cached list ([`DoorSnapshot`], [`DoorList`]), a watch
//!   channel of changes, [`DoorClient::wait_first`] with a budget,
//!   [`DoorClient::call_tool_raw`] (the caller's params text in, the door's
//!   result text out, byte for byte but for the required `_meta` keys),
//!   [`DoorClient::call_tool`] (the same through `serde_json::Value`),
//!   [`DoorClient::call`] (typed params in, a [`CallOutcome`] out: the
//!   tool's `CallToolResult`, or the `InputRequiredResult` of a call that
//!   needs input first), [`DoorClient::owns`].
//! - [`merge`]: local first, a local name wins, the door's `_meta` kept;
//!   [`MergedTools`] remembers the merge until the door's list changes.
//!
//! # Example: serve a merged list, forward a call
//!
//! ```no_run
//! use std::time::Duration;
//! use mcp_door_client::{DoorClient, DoorClientConfig, merge};
//! use mcp_proto::Tool;
//!
//! # async fn run(local: Vec<Tool>) -> Result<(), mcp_door_client::DoorClientError> {
//! let door = DoorClient::new(DoorClientConfig::from_env())?;
//! door.start(); // background fetch; returns at once
//!
//! // tools/list: wait for the door at most 2 s, then answer what there is.
//! let snapshot = door.wait_first(Duration::from_secs(2)).await;
//! let result = merge(&local, snapshot.list.as_deref());
//! println!("{} tools", result.tools.len());
//!
//! // tools/call of a name that is not local: the caller's params as the
//! // caller wrote them, forwarded verbatim.
//! let params: Box<serde_json::value::RawValue> = serde_json::from_str(
//!     r#"{"name":"agents","arguments":{"op":"list_agents","input":{"limit":10}}}"#,
//! ).expect("a JSON object");
//! match door.call_tool_raw(&params, None).await {
//!     Ok(result) => println!("{}", result.get()), // the door's result text, or an isError result
//!     Err(error) => println!("JSON-RPC error {}", error.code),
//! }
//! # Ok(())
//! # }
//! ```
//!
//! # Cargo features
//!
//! - `rustls` (default): TLS through rustls.
//! - `native-tls`: TLS through the platform library instead.
#![deny(missing_docs)]

mod bearer;
mod config;
mod door;
mod error;
mod list;
mod merge;
mod proxy;
mod raw;
mod transport;

pub use bearer::{
    Bearer, BearerDiscovery, DEFAULT_CLI_TIMEOUT, LATER_DIRS_WAIT, LaterDirs, ReadyFn,
};
pub use config::{
    BearerSource, CachePolicy, ClientInfo, DEFAULT_API_BASE, DOOR_PATH, DOOR_REVISION,
    DoorClientConfig, Timeouts, Wording, door_address,
};
pub use door::{CallOutcome, DoorClient, DoorSnapshot, DoorStatus, OutageLog};
pub use error::DoorClientError;
pub use list::{DoorList, DropReason, DroppedTool};
pub use merge::{MergedTools, merge};
pub use proxy::{PROXY_VARIABLES, check_proxy_environment, proxy_named};

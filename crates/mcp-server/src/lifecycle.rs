//! The connection's lifecycle: the `initialize` handshake of 2024-11-05 to
//! 2025-11-25 and the stateless style of 2026-07-28, on one connection,
//! decided by what the client sends.
//!
//! - `initialize` (MCP 2025-11-25 basic/lifecycle) negotiates a revision:
//!   the client's if we support it, else our newest revision with a
//!   handshake. Later requests without a revision in `_meta` use it.
//! - A request whose `params._meta["io.modelcontextprotocol/protocolVersion"]`
//!   names a stateless revision (2026-07-28) is answered in that revision,
//!   handshake or not; one naming a revision we do not serve statelessly is
//!   refused with -32022 `{supported, requested}` (MCP 2026-07-28
//!   basic/versioning).
//! - A stateless request must also carry
//!   `_meta["io.modelcontextprotocol/clientCapabilities"]` (an object),
//!   else -32602 (SEP-2575).
//! - `server/discover` needs no handshake, but must name its revision in
//!   `_meta` (2026-07-28 `DiscoverRequest`: `params._meta` and its
//!   `protocolVersion` are required), else -32602.
//! - `initialize` and `ping` do not exist in 2026-07-28: a request naming
//!   that revision in `_meta` gets -32601 for them (MCP 2026-07-28
//!   basic/versioning: "a request carrying modern per-request `_meta` is
//!   served statelessly according to this revision").
//! - `ping` without a stateless revision is always answered.
//! - Any other request before the handshake gets -32600 saying what to send.

use mcp_proto::{ErrorObject, Revision, meta};
use serde_json::Value;

/// The revision, and the style, a request is answered in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Negotiated {
    /// Negotiated by `initialize` (2024-11-05 to 2025-11-25).
    Handshake(Revision),
    /// Named by the request's own `_meta` (2026-07-28).
    Stateless(Revision),
}

impl Negotiated {
    /// The revision the request is answered in.
    pub fn revision(self) -> Revision {
        match self {
            Negotiated::Handshake(r) | Negotiated::Stateless(r) => r,
        }
    }

    /// Whether results carry the 2026-07-28 fields (`resultType`, `ttlMs`,
    /// `cacheScope`).
    pub fn is_stateless(self) -> bool {
        matches!(self, Negotiated::Stateless(_))
    }
}

/// Where the handshake stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Phase {
    /// No `initialize` answered yet.
    AwaitingInitialize,
    /// `initialize` answered with `revision`; `confirmed` once
    /// `notifications/initialized` arrived.
    Initialized {
        /// The negotiated revision.
        revision: Revision,
        /// Whether `notifications/initialized` was received.
        confirmed: bool,
    },
}

/// The lifecycle state machine of one connection. Driven by the connection's
/// reader, one message at a time, so it needs no lock.
#[derive(Debug, Clone)]
pub(crate) struct Lifecycle {
    phase: Phase,
}

impl Default for Lifecycle {
    fn default() -> Self {
        Self::new()
    }
}

/// The message for a request that needs the handshake and came before it.
pub(crate) const HANDSHAKE_FIRST: &str = "send `initialize` first (revisions 2024-11-05 to 2025-11-25), \
or name a revision in params._meta[\"io.modelcontextprotocol/protocolVersion\"] (2026-07-28)";

/// Refuses a request whose `_meta` log level is no `LoggingLevel`
/// (MCP 2026-07-28 schema, `io.modelcontextprotocol/logLevel`), rather
/// than ignoring it: -32602 naming the key and the allowed levels.
fn check_log_level(params: Option<&Value>) -> Result<(), ErrorObject> {
    use mcp_proto::FromValue as _;
    let Some(level) = params
        .and_then(|p| p.get("_meta"))
        .and_then(|m| m.get(meta::LOG_LEVEL))
    else {
        return Ok(());
    };
    if mcp_proto::LoggingLevel::from_value(level.clone()).is_ok() {
        return Ok(());
    }
    Err(ErrorObject::invalid_params(format!(
        "params._meta[\"{}\"] must be one of {}; found {}",
        meta::LOG_LEVEL,
        mcp_proto::LoggingLevel::NAMES,
        shown(level)
    )))
}

/// Checks the `_meta` a 2026-07-28 request must carry besides its revision
/// (MCP 2026-07-28 basic, request metadata; SEP-2575): the client's
/// capabilities, an object (possibly empty), and, when given, a valid log
/// level. -32602 naming the key otherwise; the HTTP transport answers it
/// with 400.
pub(crate) fn check_stateless_meta(params: Option<&Value>) -> Result<(), ErrorObject> {
    let capabilities = params
        .and_then(|p| p.get("_meta"))
        .and_then(|m| m.get(meta::CLIENT_CAPABILITIES));
    match capabilities {
        Some(Value::Object(_)) => {}
        Some(other) => {
            return Err(ErrorObject::invalid_params(format!(
                "params._meta[\"{}\"] must be an object (ClientCapabilities), found {}",
                meta::CLIENT_CAPABILITIES,
                shown(other)
            )));
        }
        None => {
            return Err(ErrorObject::invalid_params(format!(
                "params._meta[\"{}\"] is required in revision 2026-07-28 ({{}} when the \
                 client declares none)",
                meta::CLIENT_CAPABILITIES
            )));
        }
    }
    check_log_level(params)
}

/// A JSON value for an error message: itself when short, else its size.
fn shown(value: &Value) -> String {
    let text = value.to_string();
    if text.len() <= 64 {
        text
    } else {
        format!("a value of {} bytes", text.len())
    }
}

impl Lifecycle {
    /// A connection that has received nothing yet.
    pub fn new() -> Self {
        Self {
            phase: Phase::AwaitingInitialize,
        }
    }

    /// The current phase.
    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// The revisions this server serves in the stateless style.
    pub fn stateless_revisions() -> Vec<Revision> {
        Revision::ALL
            .iter()
            .copied()
            .filter(|r| r.is_stateless())
            .collect()
    }

    /// Answers `initialize` with `requested` (the client's `protocolVersion`):
    /// returns the negotiated revision (MCP 2025-11-25 basic/lifecycle,
    /// version negotiation). A second `initialize` is -32600.
    pub fn initialize(&mut self, requested: &str) -> Result<Revision, ErrorObject> {
        if let Phase::Initialized { revision, .. } = self.phase {
            return Err(ErrorObject::invalid_request(format!(
                "initialize was already answered on this connection (revision {})",
                revision.as_str()
            )));
        }
        let revision = Revision::negotiate(requested);
        self.phase = Phase::Initialized {
            revision,
            confirmed: false,
        };
        Ok(revision)
    }

    /// Records `notifications/initialized`. Ignored before `initialize`.
    pub fn initialized(&mut self) {
        if let Phase::Initialized { revision, .. } = self.phase {
            self.phase = Phase::Initialized {
                revision,
                confirmed: true,
            };
        }
    }

    /// The era `method` with `params` is answered in, or the error to answer
    /// it with: -32602 when the `_meta` revision is not a string, -32022 when
    /// it names a revision not served statelessly (and no handshake applies),
    /// -32600 when the request needs the handshake first.
    pub fn era_for(&self, method: &str, params: Option<&Value>) -> Result<Negotiated, ErrorObject> {
        let named = params
            .and_then(|p| p.get("_meta"))
            .and_then(|m| m.get(meta::PROTOCOL_VERSION));
        match named {
            Some(Value::String(requested)) => match Revision::parse(requested) {
                Some(revision) if revision.is_stateless() => {
                    if matches!(
                        method,
                        mcp_proto::methods::Initialize::NAME
                            | mcp_proto::methods::Ping::NAME
                            | mcp_proto::methods::SetLevel::NAME
                            | mcp_proto::methods::Subscribe::NAME
                            | mcp_proto::methods::Unsubscribe::NAME
                    ) {
                        // None of these exists in the stateless revisions
                        // (2026-07-28 has the per-request `_meta` log level
                        // and `subscriptions/listen` instead), so each is
                        // -32601 whatever its params.
                        return Err(ErrorObject::method_not_found(method));
                    }
                    check_stateless_meta(params)?;
                    Ok(Negotiated::Stateless(revision))
                }
                _ => match self.phase {
                    // After a handshake the key is not the lifecycle's: the
                    // negotiated revision holds.
                    Phase::Initialized { revision, .. }
                        if method != mcp_proto::methods::ServerDiscover::NAME =>
                    {
                        Ok(Negotiated::Handshake(revision))
                    }
                    _ => Err(ErrorObject::unsupported_protocol_version(
                        requested,
                        &Self::stateless_revisions(),
                    )),
                },
            },
            Some(_) => Err(ErrorObject::invalid_params(format!(
                "params._meta[\"{}\"] must be a string",
                meta::PROTOCOL_VERSION
            ))),
            None => match (method, self.phase) {
                (mcp_proto::methods::ServerDiscover::NAME, _) => {
                    Err(ErrorObject::invalid_params(format!(
                        "server/discover: params._meta[\"{}\"] is required (the revision this \
                     request is answered in)",
                        meta::PROTOCOL_VERSION
                    )))
                }
                (_, Phase::Initialized { revision, .. }) => Ok(Negotiated::Handshake(revision)),
                (mcp_proto::methods::Ping::NAME, Phase::AwaitingInitialize) => {
                    Ok(Negotiated::Handshake(Revision::LATEST_WITH_HANDSHAKE))
                }
                (_, Phase::AwaitingInitialize) => {
                    Err(ErrorObject::invalid_request(HANDSHAKE_FIRST))
                }
            },
        }
    }
}

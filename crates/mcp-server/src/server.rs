//! The MCP server: its settings, its tool sources and optional features,
//! and [`Server::serve`] for one stdio-style connection (newline-delimited
//! JSON-RPC over any byte stream). Each connection is a
//! session (`src/session/`) that works on parsed messages; this module
//! only frames them.
//!
//! - Requests are answered concurrently, each to its own id; at most
//!   [`ServerConfig::max_in_flight`] at once per connection, beyond which
//!   input is not read until one finishes (back-pressure, nothing dropped).
//! - `notifications/cancelled` aborts the named call; no response is sent
//!   for it (MCP 2025-11-25 basic/utilities/cancellation).
//! - On end of input or the shutdown signal, calls in flight finish and are
//!   flushed; after [`ServerConfig::shutdown_grace`] the rest are answered
//!   with -32603 so every request still gets exactly one response.

use std::sync::Arc;
use std::time::Duration;

use mcp_proto::{
    Implementation, PromptsCapability, ResourcesCapability, Revision, ServerCapabilities,
    ToolsCapability,
};
use serde_json::Map;

use crate::features::{CompletionSource, PromptSource, ResourceSource, RootsListener};
use crate::lifecycle::Negotiated;
use crate::source::Composition;
use mcp_local_tools::mode::Modes;

/// The most resource URIs one session may subscribe to at once.
pub const MAX_SUBSCRIPTIONS: usize = 1_000;

/// The longest resource URI `resources/subscribe` accepts, in bytes.
pub const MAX_SUBSCRIBED_URI_BYTES: usize = 8 * 1024;

/// The default of [`ServerConfig::max_in_flight`]: enough for any agent's
/// parallel calls, and with the 16 MiB output bound it keeps a client that
/// stops reading below about 100 MiB even when every call answers 2 MiB.
pub const DEFAULT_MAX_IN_FLIGHT: usize = 16;

/// Settings of a [`Server`].
#[derive(Debug, Clone)]
pub struct ServerConfig {
    /// `serverInfo`: our name and version.
    pub info: Implementation,
    /// `instructions` in the `initialize` and `server/discover` results.
    pub instructions: Option<String>,
    /// Whether a source's list can change (the door): then the handshake
    /// advertises `tools.listChanged` and `notifications/tools/list_changed`
    /// is sent when it does.
    pub list_changed: bool,
    /// How long calls in flight may run after input ends before they are
    /// answered with -32603; and then how long the answers left may take
    /// to be written before they are dropped.
    pub shutdown_grace: Duration,
    /// The longest line accepted, in bytes; a longer one is discarded as it
    /// streams and answered with -32600, without an id (mcp-proto framing).
    pub max_line_bytes: usize,
    /// How long a request to the client (sampling, elicitation, roots) may
    /// wait for its answer unless the caller gives its own bound
    /// ([`crate::peer::Peer::request_with_timeout`]).
    pub client_request_timeout: Duration,
    /// How many bytes of output may wait for the client to read them
    /// ([`Server::serve`]): above this the server stops reading input until
    /// the writer catches up, and drops progress and log notifications.
    pub max_output_backlog_bytes: usize,
    /// How many requests one connection (an HTTP session) may have in
    /// flight at once; at the bound no more input is read until one
    /// finishes, so memory follows this bound and not the client. 0 is
    /// taken as 1.
    pub max_in_flight: usize,
}

impl ServerConfig {
    /// The defaults for `hanzo-mcp`: our package name and version, no
    /// instructions, no list changes, 10 s grace, 8 MiB lines, 300 s for a
    /// request to the client, 16 MiB of unread output, 16 requests in
    /// flight.
    pub fn new(info: Implementation) -> Self {
        Self {
            info,
            instructions: None,
            list_changed: false,
            shutdown_grace: Duration::from_secs(10),
            max_line_bytes: mcp_proto::framing::DEFAULT_MAX_LINE_LEN,
            client_request_timeout: Duration::from_secs(300),
            max_output_backlog_bytes: 16 * 1024 * 1024,
            max_in_flight: DEFAULT_MAX_IN_FLIGHT,
        }
    }
}

/// An MCP server: tool sources, the optional resource, prompt and
/// completion handlers, and settings. One server can serve any number of
/// connections ([`Server::serve`]).
pub struct Server {
    composition: Composition,
    config: ServerConfig,
    resources: Option<Arc<dyn ResourceSource>>,
    prompts: Option<Arc<dyn PromptSource>>,
    completions: Option<Arc<dyn CompletionSource>>,
    roots: Option<Arc<dyn RootsListener>>,
    logging: bool,
    modes: Option<Arc<Modes>>,
    /// The entries of the host's `--mode` preset, which bind every session.
    mode_floor: Option<Vec<String>>,
    /// That preset's name.
    mode_floor_name: Option<String>,
    /// Which local actions run programs, and the allowlist over them.
    programs: Option<crate::programs::ProgramGate>,
    /// The sessions' narrowed views of the tool list.
    mode_views: crate::mode_view::ModeViews,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server")
            .field("composition", &self.composition)
            .field("config", &self.config)
            .field("resources", &self.resources.is_some())
            .field("prompts", &self.prompts.is_some())
            .field("completions", &self.completions.is_some())
            .field("logging", &self.logging)
            .field("roots", &self.roots.is_some())
            .finish()
    }
}

impl Server {
    /// A server over `composition`, with tools only.
    pub fn new(composition: Composition, config: ServerConfig) -> Self {
        Self {
            composition,
            config,
            resources: None,
            prompts: None,
            completions: None,
            roots: None,
            logging: false,
            modes: None,
            mode_floor: None,
            mode_floor_name: None,
            programs: None,
            mode_views: Default::default(),
        }
    }

    /// Asks each client that declares the `roots` capability for its roots
    /// (`roots/list` after `notifications/initialized` and on
    /// `notifications/roots/list_changed`) and hands them to `listener`
    /// (MCP 2025-11-25 client/roots).
    pub fn with_roots_listener(mut self, listener: Arc<dyn RootsListener>) -> Self {
        self.roots = Some(listener);
        self
    }

    /// Serves `resources/list`, `resources/templates/list` and
    /// `resources/read` from `source`, and advertises `resources` (with
    /// `subscribe` when the source has [`ResourceSource::updates`]).
    pub fn with_resources(mut self, source: Arc<dyn ResourceSource>) -> Self {
        self.resources = Some(source);
        self
    }

    /// Serves `prompts/list` and `prompts/get` from `source`, and advertises
    /// `prompts`.
    pub fn with_prompts(mut self, source: Arc<dyn PromptSource>) -> Self {
        self.prompts = Some(source);
        self
    }

    /// Serves `completion/complete` from `source`, and advertises
    /// `completions`.
    pub fn with_completions(mut self, source: Arc<dyn CompletionSource>) -> Self {
        self.completions = Some(source);
        self
    }

    /// Advertises `logging`, answers `logging/setLevel` (revisions up to
    /// 2025-11-25), and gives every call a [`Logger`](crate::Logger)
    /// ([`CallContext::log`](crate::CallContext::log)).
    pub fn with_logging(mut self) -> Self {
        self.logging = true;
        self
    }

    /// Applies the `mode` tool's per-session choice ([`Modes`]): each
    /// session's tools are narrowed to its mode's preset (never wider than
    /// the sources' own gating), and the session is told with
    /// `notifications/tools/list_changed` when its mode changes; the
    /// handshake advertises `tools.listChanged`.
    pub fn with_modes(mut self, modes: Arc<Modes>) -> Self {
        self.modes = Some(modes);
        self
    }

    /// Binds every session to the preset `name` of the [`Modes`] given to
    /// [`with_modes`](Self::with_modes) (`hanzo-mcp serve --mode NAME`):
    /// each session starts narrowed to it, and `mode set` narrows further
    /// within it but never widens past it (`mode set full` gives back the
    /// preset's tools, not all of them). `mode` itself stays listed.
    ///
    /// # Errors
    /// [`ServerError::Config`](crate::ServerError::Config) when no modes were given or none is named
    /// `name`.
    pub fn with_mode_floor(mut self, name: &str) -> Result<Self, crate::ServerError> {
        let modes = self.modes.as_ref().ok_or_else(|| {
            crate::ServerError::Config(format!("--mode {name}: the `mode` tool is not built in"))
        })?;
        let preset = modes
            .presets()
            .iter()
            .find(|p| p.name == name)
            .ok_or_else(|| {
                let known: Vec<&str> = modes.presets().iter().map(|p| p.name.as_str()).collect();
                crate::ServerError::Config(format!(
                    "--mode {name}: no such mode (known: {})",
                    known.join(", ")
                ))
            })?;
        self.mode_floor_name = preset.allowed.is_some().then(|| name.to_owned());
        if preset.allowed.is_some() {
            // So the `mode` tool names the mode a session works in.
            modes.set_floor(name);
        }
        self.mode_floor = preset.allowed.clone().map(|mut entries| {
            if !entries.iter().any(|e| e == "mode") {
                entries.push("mode".to_owned());
            }
            entries
        });
        Ok(self)
    }

    /// Tells the server which local actions run programs and what its
    /// allowlist grants of them: a call then runs with
    /// [`CallContext::run_programs`](crate::CallContext::run_programs)
    /// true only when such an action is reachable in its session (the
    /// allowlist, the `--mode` floor and the session's mode). Without a
    /// gate every call may run programs.
    pub fn with_program_gate(mut self, gate: crate::programs::ProgramGate) -> Self {
        self.programs = Some(gate);
        self
    }

    /// Whether a session narrowed by `layers` may run programs
    /// ([`with_program_gate`](Self::with_program_gate)).
    pub(crate) fn may_run_programs(&self, layers: &[Vec<String>]) -> bool {
        self.programs
            .as_ref()
            .is_none_or(|gate| gate.allows(layers))
    }

    /// The entries every session is bound to ([`with_mode_floor`](Self::with_mode_floor)).
    pub(crate) fn mode_floor(&self) -> Option<&Vec<String>> {
        self.mode_floor.as_ref()
    }

    /// The name of the host's `--mode` preset, when it narrows anything.
    pub(crate) fn mode_floor_name(&self) -> Option<&str> {
        self.mode_floor_name.as_deref()
    }

    /// The `mode` presets and choices, when the server applies them.
    pub fn modes(&self) -> Option<&Arc<Modes>> {
        self.modes.as_ref()
    }

    /// The sessions' narrowed views of the tool list (kept here so that
    /// sessions in the same mode share them).
    pub(crate) fn mode_views(&self) -> &crate::mode_view::ModeViews {
        &self.mode_views
    }

    /// Whether a session's tool list can change while it lasts: a source's
    /// list can ([`ServerConfig::list_changed`]), or its mode can.
    pub fn lists_can_change(&self) -> bool {
        self.config.list_changed || self.modes.is_some()
    }

    /// The tool sources.
    pub fn composition(&self) -> &Composition {
        &self.composition
    }

    /// The capabilities we advertise: `tools` (with `listChanged` in the
    /// handshake era when a source's list can change), and `resources`,
    /// `prompts`, `completions` and `logging` exactly when the server holds
    /// them. `resources.subscribe` is advertised in the handshake era when
    /// the resource source has a change feed; 2026-07-28 replaced
    /// `resources/subscribe` with `subscriptions/listen`, which we do not
    /// implement, so that era advertises neither `subscribe` nor
    /// `listChanged`.
    pub fn capabilities(&self, era: Negotiated) -> ServerCapabilities {
        let handshake = !era.is_stateless();
        ServerCapabilities {
            tools: Some(ToolsCapability {
                list_changed: (self.lists_can_change() && handshake).then_some(true),
                ..ToolsCapability::default()
            }),
            resources: self
                .resources
                .as_ref()
                .map(|resources| ResourcesCapability {
                    subscribe: (resources.updates().is_some() && handshake).then_some(true),
                    ..ResourcesCapability::default()
                }),
            prompts: self.prompts.as_ref().map(|_| PromptsCapability::default()),
            completions: self.completions.as_ref().map(|_| Map::new()),
            logging: self.logging.then(Map::new),
            ..ServerCapabilities::default()
        }
    }

    /// The settings.
    pub fn config(&self) -> &ServerConfig {
        &self.config
    }

    /// Whether the server has logging ([`Server::with_logging`]).
    pub fn has_logging(&self) -> bool {
        self.logging
    }

    /// The resource source, when the server has one.
    pub fn resource_source(&self) -> Option<Arc<dyn ResourceSource>> {
        self.resources.clone()
    }

    /// The prompt source, when the server has one.
    pub fn prompt_source(&self) -> Option<Arc<dyn PromptSource>> {
        self.prompts.clone()
    }

    /// The completion source, when the server has one.
    pub fn completion_source(&self) -> Option<Arc<dyn CompletionSource>> {
        self.completions.clone()
    }

    /// The roots listener, when the server has one.
    pub fn roots_listener(&self) -> Option<Arc<dyn RootsListener>> {
        self.roots.clone()
    }
}

/// The revisions this server implements, newest first, as `--version` and
/// the README list them.
pub fn implemented_revisions() -> Vec<&'static str> {
    let mut all: Vec<&'static str> = Revision::ALL.iter().map(|r| r.as_str()).collect();
    all.reverse();
    all
}

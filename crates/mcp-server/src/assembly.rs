//! Building the composition `hanzo-mcp` serves (docs/ARCHITECTURE.md,
//! "Sources and composition"): the local toolbox (with `mode`), the door
//! (HIP-0300 §2.2), built only once it may be needed
//! (`src/deferred_door.rs`) so it never delays `initialize`, and an
//! `allowedTools` view of either. The command line
//! ([`crate::cli`]) only turns its arguments into [`Options`].

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use mcp_door_client::{ClientInfo, DoorClientConfig};
use mcp_gating::{AllowedTools, Policy};
use mcp_proto::Implementation;

use crate::client_roots::ClientRootsSource;
use crate::deferred_door::DeferredDoor;
pub use crate::deferred_door::{DoorProbe, DoorReach};
use crate::error::ServerError;
use crate::local::LocalSource;
use mcp_sources::gated::GatedSource;
use mcp_sources::mounted::MountedSource;

/// The server's credentials, never in a mounted child's environment.
const SECRET_ENV: [&str; 2] = ["HANZO_API_KEY", "HANZO_MCP_HTTP_BEARER"];
use crate::source::{Composition, ToolSource};

/// The local toolbox over `roots`: every tool compiled in, then `mode`
/// (its presets from `options.modes_file`, else `HANZO_MCP_MODES`); with
/// `options.fetch_allow_private`, `fetch` and `ui` may reach private
/// addresses whatever the environment says.
fn local_source(roots: Vec<PathBuf>, options: &Options) -> Result<LocalSource, ServerError> {
    let roots =
        mcp_local_tools::Roots::new(roots).map_err(|e| ServerError::Config(e.to_string()))?;
    let mut toolbox = mcp_local_tools::Toolbox::with_default_tools();
    // Programs the tools start never see these (nor the toolbox's own
    // list: HANZO_API_KEY, HANZO_MCP_HTTP_BEARER).
    toolbox.set_secret_env(options.secret_env.iter().cloned());
    #[cfg(any(feature = "fetch", feature = "ui"))]
    {
        let policy = mcp_local_tools::net::NetPolicy {
            allow_private: true,
            ..mcp_local_tools::net::NetPolicy::from_env()
        };
        // `add` replaces a tool of the same name in its place.
        #[cfg(feature = "fetch")]
        if options.fetch_allow_private {
            toolbox.add(mcp_local_tools::fetch::FetchTool::with_config(
                mcp_local_tools::fetch::FetchConfig {
                    policy: policy.clone(),
                    ..mcp_local_tools::fetch::FetchConfig::from_env()
                },
            ));
        }
        // `ui.json` in a state folder the roots hold (a home folder given
        // as a root) may be the agent's: not read unless named. Without
        // --root the client names the roots, later: not read either (as
        // the configuration file).
        #[cfg(feature = "ui")]
        let ui_file_is_agents = mcp_local_tools::ui::registries_file().is_some_and(|file| {
            let agents = std::fs::symlink_metadata(&file).is_ok()
                && (options.roots.is_empty()
                    || mcp_local_tools::state::reachable_by_agent(&file, &roots));
            if agents {
                tracing::warn!(
                    file = %file.display(),
                    "the ui registries file lies inside a root (or a symlink there leads to it, or \
                     the client names the roots), where the agent could have written it; not read (name registries with \
                     HANZO_MCP_UI_REGISTRIES or the configuration file's ui.registries)"
                );
            }
            agents
        });
        #[cfg(feature = "ui")]
        if options.fetch_allow_private || options.ui_registries.is_some() || ui_file_is_agents {
            let mut config = mcp_local_tools::ui::UiConfig::from_env_with(!ui_file_is_agents);
            if options.fetch_allow_private {
                config.policy = policy;
            }
            if let Some(list) = &options.ui_registries {
                config.registries = mcp_local_tools::ui::Registry::parse_list(list)
                    .map_err(|e| ServerError::Config(format!("ui registries: {e}")))?;
            }
            toolbox.add(mcp_local_tools::ui::UiTool::with_config(config));
        }
        #[cfg(not(feature = "ui"))]
        let _ = &policy;
    }
    #[cfg(not(feature = "mode"))]
    if options.modes_file.is_some() {
        return Err(ServerError::Config(
            "--modes: this hanzo-mcp was built without the `mode` tool".to_owned(),
        ));
    }
    #[cfg(feature = "mode")]
    match &options.modes_file {
        Some(file) => toolbox.with_mode_file(Some(file)),
        None => toolbox.with_mode(),
    };
    if let Some(error) = toolbox.modes().as_deref().and_then(|m| m.file_error()) {
        // Named on the command line: a mistake to stop at. From the
        // environment: one warning, and the built-in modes.
        if options.modes_file.is_some() {
            return Err(ServerError::Config(format!("--modes: {error}")));
        }
        tracing::warn!(%error, "the mode presets file was not read; the built-in modes work");
    }
    Ok(LocalSource::with_toolbox(toolbox, roots))
}

/// The tool sources of a server, assembled ([`assemble`]).
#[derive(Debug)]
pub struct Assembly {
    /// The sources in routing order: (`test`), `local`, the mounted
    /// servers, `door`.
    pub composition: Composition,
    /// Whether a source's list can change (the door is on).
    pub list_changed: bool,
    /// The gated sources, for warnings about entries that match nothing.
    pub gated: Vec<Arc<GatedSource>>,
    /// Without `--root`: the local tools, to be told the client's roots.
    pub client_roots: Option<Arc<ClientRootsSource>>,
    /// The `mode` tool's presets and per-session choices, which the
    /// server applies ([`Server::with_modes`](crate::Server::with_modes)).
    pub modes: Option<Arc<mcp_local_tools::mode::Modes>>,
    /// Which local actions run programs and what the allowlist grants of
    /// them ([`Server::with_program_gate`](crate::Server::with_program_gate)).
    pub programs: crate::programs::ProgramGate,
    /// The door's connect probe, when the door is on. It starts at
    /// [`DoorProbe::start`] or [`DoorProbe::reach_within`], or with the
    /// first `tools/list` or call for the door, whichever comes first.
    pub door: Option<DoorProbe>,
    /// How many local tools the allowlist leaves (before any mode).
    pub local_tools: usize,
}

/// What decides which tools a server has: the command line's `--root`,
/// `--allowed-tools`, `--no-door`, `--door-wait` and
/// `--fetch-allow-private`, as a runtime that embeds the server sets them.
#[derive(Debug, Clone)]
pub struct Options {
    /// Directories the local tools may use; empty: the working directory,
    /// following the client's MCP roots when it offers them.
    pub roots: Vec<PathBuf>,
    /// The per-source allowlist (`local`, `door`).
    pub allowed: AllowedTools,
    /// Whether to forward to the door (HIP-0300 §2.2).
    pub door: bool,
    /// How long `tools/list` waits for the door's first list.
    pub door_wait: Duration,
    /// Whether `fetch` and `ui` may reach private addresses.
    pub fetch_allow_private: bool,
    /// A file of `mode` presets (`--modes`), besides the built-in ones and
    /// `HANZO_MCP_MODES`.
    pub modes_file: Option<PathBuf>,
    /// Whether the door may be a plain `http://` address on a host that
    /// is not loopback (its bearer would cross the network in clear
    /// text); refused at start otherwise.
    pub door_allow_cleartext_bearer: bool,
    /// Environment variables removed from every program the local tools
    /// start, besides the ones the toolbox always removes.
    pub secret_env: Vec<String>,
    /// The door's address, when the environment names none
    /// (`HANZO_MCP_DOOR`, `HANZO_API_BASE`): the configuration file's.
    pub door_address: Option<String>,
    /// The `ui` registries (`name=URL,...`), when
    /// `HANZO_MCP_UI_REGISTRIES` is not set: the configuration file's.
    pub ui_registries: Option<String>,
    /// Other MCP servers mounted as sources, after the local tools and
    /// before the door, in this order.
    pub mounts: Vec<crate::mounted::Mount>,
    /// How long `tools/list` waits for a mounted server's first list.
    pub mount_wait: Duration,
    /// Adds the test-only `test_sleep` tool.
    #[cfg(feature = "test-tools")]
    pub test_tools: bool,
}

impl Options {
    /// Every tool of the working directory, the door on, a 2 s door wait.
    pub fn new() -> Self {
        Self {
            roots: Vec::new(),
            allowed: AllowedTools::unrestricted(),
            door: true,
            door_wait: Duration::from_secs(2),
            fetch_allow_private: false,
            modes_file: None,
            door_allow_cleartext_bearer: false,
            secret_env: Vec::new(),
            door_address: None,
            ui_registries: None,
            mounts: Vec::new(),
            mount_wait: Duration::from_secs(2),
            #[cfg(feature = "test-tools")]
            test_tools: false,
        }
    }
}

impl Default for Options {
    fn default() -> Self {
        Self::new()
    }
}

/// The directories the local tools start with: `--root`s (each must be a
/// directory), else the working directory.
fn start_roots(options: &Options) -> Result<Vec<PathBuf>, ServerError> {
    if options.roots.is_empty() {
        let here = std::env::current_dir()
            .map_err(|e| ServerError::Config(format!("cannot read the working directory: {e}")))?;
        return Ok(vec![here]);
    }
    for root in &options.roots {
        if !root.is_dir() {
            return Err(ServerError::Config(format!(
                "--root {}: not a directory",
                root.display()
            )));
        }
    }
    Ok(options.roots.clone())
}

/// The tool sources `options` describe, in routing order: the local tools,
/// then the door (unless it is off), each gated by the allowlist before
/// the merge (docs/ARCHITECTURE.md, "Sources and composition"). Starts the
/// door's probe (call inside a Tokio runtime; see `src/deferred_door.rs`).
///
/// # Errors
/// [`ServerError::Config`] for a root that is not a directory or a local
/// toolbox that cannot be built.
pub async fn assemble(options: &Options) -> Result<Assembly, ServerError> {
    let allowed = Arc::new(options.allowed.clone());
    let roots = start_roots(options)?;
    let mut sources: Vec<Arc<dyn ToolSource>> = Vec::new();
    let mut gated = Vec::new();
    #[cfg(feature = "test-tools")]
    if options.test_tools {
        sources.push(Arc::new(crate::test_tools::TestTools));
    }
    // Without --root the local tools follow the client's MCP roots when it
    // offers them, starting from the working directory.
    let follow_client = options.roots.is_empty().then(|| roots.clone());
    let untrusted = roots.clone();
    let local = local_source(roots, options)?;
    let surroundings = local.toolbox().surroundings();
    let modes = local.toolbox().modes();
    let programs = crate::programs::ProgramGate::new(local.toolbox().clone(), &allowed);
    // Every name the toolbox has is the machine's: never listed from, nor
    // forwarded to, another source (HIP-0300 §2.2, "a local name wins").
    let reserved: Vec<String> = local
        .toolbox()
        .names()
        .iter()
        .map(|n| (*n).to_owned())
        .collect();
    // The definitions are built only when an allowlist needs them now;
    // otherwise on the first `tools/list`.
    let local_tools = match allowed.server("local") {
        Some(_) => local.definitions().to_vec(),
        None => Vec::new(),
    };
    let (local, client_roots): (Arc<dyn ToolSource>, Option<Arc<ClientRootsSource>>) =
        match follow_client {
            Some(dirs) => {
                let start = mcp_local_tools::Roots::new(dirs)
                    .map_err(|e| ServerError::Config(e.to_string()))?;
                let source = Arc::new(ClientRootsSource::new(local.toolbox().clone(), start));
                (source.clone(), Some(source))
            }
            None => (Arc::new(local), None),
        };
    let gate = |source: Arc<dyn ToolSource>, known: &[mcp_proto::Tool]| {
        if allowed.server(source.name()).is_none() {
            return (source, None);
        }
        let rules = source.surface_rules();
        let view = Arc::new(GatedSource::new(
            source,
            known,
            allowed.clone(),
            Policy::FailOpen,
            rules,
        ));
        (view.clone() as Arc<dyn ToolSource>, Some(view))
    };
    let (local, view) = gate(local, &local_tools);
    // Gated: the tools the view lists (a tool whose every allowed action
    // names nothing is not one); otherwise every tool compiled in.
    let local_count = match &view {
        Some(view) => view.surface().tools().len(),
        None => reserved.len(),
    };
    sources.push(local);
    gated.extend(view);
    // Mounted servers are told the roots the local tools have now.
    let roots_now: mcp_sources::mounted::RootsFn = match &client_roots {
        Some(source) => {
            let source = source.clone();
            Arc::new(move || source.roots().dirs().to_vec())
        }
        None => {
            let dirs = untrusted.clone();
            Arc::new(move || dirs.clone())
        }
    };
    // Every folder the tools have had: a program planted in a root the
    // client later dropped is still the agent's.
    let roots_ever: mcp_sources::mounted::RootsFn = match &client_roots {
        Some(source) => {
            let source = Arc::downgrade(source);
            Arc::new(move || source.upgrade().map(|s| s.ever()).unwrap_or_default())
        }
        None => roots_now.clone(),
    };
    // While following the client, a child first starts once the client's
    // roots are known: a program planted in them in an earlier session
    // must not be the one started before they are.
    let ready: Option<mcp_sources::mounted::ReadyFn> = client_roots.as_ref().map(|source| {
        let source = Arc::downgrade(source);
        let ready: mcp_sources::mounted::ReadyFn = Arc::new(move || match source.upgrade() {
            Some(source) => Box::pin(source.settled()),
            None => Box::pin(std::future::ready(())),
        });
        ready
    });
    for mount in &options.mounts {
        for note in &mount.notes {
            tracing::warn!(server = %mount.spec.name, "{note}");
        }
        let mut spec = mount.spec.clone();
        if let mcp_mount::Transport::Stdio(stdio) = &mut spec.transport {
            // A mounted server never inherits the server's credentials;
            // what it needs is named for it in its own `env`.
            stdio
                .env_remove
                .extend(SECRET_ENV.iter().map(|v| (*v).to_owned()));
            stdio.env_remove.extend(options.secret_env.iter().cloned());
            // A program the tools could have written (one in the roots, or
            // found through a PATH entry in them or a relative one) is
            // never started as a mounted server, as `git` is never run
            // from there: the agent could run it by making the server
            // restart, whatever its allowlist says of running programs.
            stdio.untrusted_dirs.clone_from(&untrusted);
            // With HOME among them, a home of its own in the state folder,
            // which the file tools never reach.
            // None when a root lies in the state folder (the tools work
            // there then): such a child is not started.
            stdio.home = mcp_local_tools::state::state_dir()
                .ok()
                .filter(|state| {
                    let state = std::fs::canonicalize(state).unwrap_or_else(|_| state.clone());
                    !untrusted.iter().any(|root| {
                        std::fs::canonicalize(root)
                            .unwrap_or_else(|_| root.clone())
                            .starts_with(&state)
                    })
                })
                .map(|state| state.join("servers").join(&spec.name));
        }
        let mounted = Arc::new(MountedSource::start_with_untrusted(
            spec,
            mcp_mount::Limits::default(),
            options.mount_wait,
            &mount.discriminator,
            roots_now.clone(),
            roots_ever.clone(),
            ready.clone(),
            Implementation::new("hanzo-mcp", env!("CARGO_PKG_VERSION")),
        ));
        // When the client's roots change, the server is told
        // (`notifications/roots/list_changed`) and asks again.
        if let Some(roots) = &client_roots {
            let mut changes = roots.roots_changes();
            let server = Arc::downgrade(&mounted);
            tokio::spawn(async move {
                while changes.changed().await.is_ok() {
                    let Some(server) = server.upgrade() else {
                        break;
                    };
                    server.server().roots_changed();
                }
            });
        }
        let (source, view) = gate(mounted, &[]);
        sources.push(source);
        gated.extend(view);
    }
    let mut probe = None;
    // A door the allowlist denies (`"door": []`) is never contacted: no
    // list is fetched, no bearer is looked for (no `hanzo auth token`).
    let door_denied = options
        .allowed
        .server("door")
        .is_some_and(|list| list.is_empty());
    let door_on = options.door && !door_denied;
    if door_on {
        let mut config = door_config(options, &untrusted)?;
        // The client's roots come after start: `hanzo auth token` waits
        // for a call, and is never run from a folder the tools have had.
        if let (Some(roots), mcp_door_client::BearerSource::Discover(discovery)) =
            (&client_roots, &mut config.bearer)
        {
            let weak = Arc::downgrade(roots);
            let settled = weak.clone();
            let ready: mcp_door_client::ReadyFn = Arc::new(move || match settled.upgrade() {
                Some(source) => Box::pin(source.settled()),
                None => Box::pin(std::future::ready(())),
            });
            discovery.later_untrusted_dirs = Some(
                mcp_door_client::LaterDirs::new(move || {
                    weak.upgrade().map(|r| r.ever()).unwrap_or_default()
                })
                .with_ready(ready),
            );
        }
        let door = Arc::new(DeferredDoor::start(config, options.door_wait, surroundings));
        probe = Some(DoorProbe::new(door.clone()));
        let (door, view) = gate(door, &[]);
        sources.push(door);
        gated.extend(view);
    }
    Ok(Assembly {
        composition: Composition::new(sources).reserve("local", reserved),
        list_changed: door_on || !options.mounts.is_empty(),
        gated,
        client_roots,
        modes,
        programs,
        door: probe,
        local_tools: local_count,
    })
}

/// The door's configuration from the environment (HIP-0300 §2.2).
///
/// # Errors
/// [`ServerError::Config`] for a plain `http://` address on a host that is
/// not loopback, unless `options.door_allow_cleartext_bearer`: the bearer
/// would cross the network in clear text.
fn door_config(options: &Options, roots: &[PathBuf]) -> Result<DoorClientConfig, ServerError> {
    let mut config = DoorClientConfig::from_env();
    // A `hanzo` the tools could have written is never run for the bearer.
    if let mcp_door_client::BearerSource::Discover(discovery) = &mut config.bearer {
        discovery.untrusted_dirs = roots.to_vec();
        // Nor does it see the server's other secrets.
        discovery.env_remove = SECRET_ENV.iter().map(|v| (*v).to_owned()).collect();
        discovery
            .env_remove
            .extend(options.secret_env.iter().cloned());
    }
    if let Some(address) = &options.door_address {
        config.address.clone_from(address);
    }
    if config.sends_bearer_in_clear() && !options.door_allow_cleartext_bearer {
        return Err(ServerError::Config(format!(
            "the door address {} is plain http:// on a host that is not loopback, so the bearer would cross the network in clear text; use https://, or pass --door-allow-cleartext-bearer",
            config.address
        )));
    }
    config.client_info = ClientInfo {
        name: "hanzo-mcp".into(),
        version: env!("CARGO_PKG_VERSION").into(),
    };
    Ok(config)
}

/// The server's `serverInfo`.
pub fn server_info() -> Implementation {
    let info = serde_json::json!({
        "name": "hanzo-mcp",
        "title": "Hanzo MCP (local)",
        "version": env!("CARGO_PKG_VERSION"),
    });
    match serde_json::from_value(info) {
        Ok(info) => info,
        Err(error) => unreachable!("the serverInfo literal is a valid Implementation: {error}"),
    }
}

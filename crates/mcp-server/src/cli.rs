//! The `hanzo-mcp` command line (clap): `serve`, `tools`, `--version`.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use clap::{Args, Parser, Subcommand};
use mcp_proto::Implementation;
use tokio::sync::watch;
use tracing_subscriber::EnvFilter;

use mcp_door_client::{ClientInfo, Door, DoorConfig, DoorStatus};
use mcp_gating::{AllowedTools, Policy, SurfaceRules};
use mcp_local_tools::{DoorReport, Surroundings};

use crate::client_roots::ClientRootsSource;
use crate::door::DoorSource;
use crate::error::ServerError;
use crate::gated::GatedSource;
use crate::local::LocalSource;
use crate::server::{Server, ServerConfig};
use crate::source::{
    BoxFuture, CallContext, CallRequest, Composition, SourceList, ToolCall, ToolSource,
    unknown_tool,
};
use crate::test_tools::TestTools;

/// `hanzo-mcp`: the local MCP server (HIP-0300 §2).
#[derive(Debug, Parser)]
#[command(
    name = "hanzo-mcp",
    version,
    about = "Local MCP server: the machine's tools over stdio, everything else forwarded to the Hanzo door"
)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Serve MCP over stdin/stdout, or over streamable HTTP with --http
    /// (logs go to stderr).
    Serve(ServeArgs),
    /// Print the assembled tool list as JSON on stdout and exit.
    Tools(SourceArgs),
}

/// Options that decide which tools exist.
#[derive(Debug, Clone, Args)]
pub struct SourceArgs {
    /// A directory the local tools may read and write (repeatable).
    /// Default: over stdio, the client's MCP roots when it offers them, else
    /// the working directory; over --http, the working directory.
    #[arg(long = "root", value_name = "DIR")]
    pub roots: Vec<PathBuf>,

    /// Per-source tool allowlist (`allowedTools`): JSON `null` or
    /// `{"local": ["fs"], "door": ["billing:get_invoice"]}`, or `@FILE` to
    /// read that JSON from a file. Sources absent from the map keep all
    /// their tools.
    #[arg(
        long,
        value_name = "JSON|@FILE",
        env = "HANZO_MCP_ALLOWED_TOOLS",
        hide_env_values = true
    )]
    pub allowed_tools: Option<String>,

    /// Do not forward to the door: local tools only.
    #[arg(long)]
    pub no_door: bool,

    /// Let `fetch` and `ui` reach loopback, private and link-local
    /// addresses (refused by default, so a page cannot turn the tools
    /// against the network they run in). Also HANZO_MCP_FETCH_ALLOW_PRIVATE=1.
    #[arg(long)]
    pub fetch_allow_private: bool,

    /// How long `tools/list` waits for the door's first list before it
    /// answers with the local tools alone, in seconds.
    #[arg(long, value_name = "SECONDS", default_value = "2", value_parser = parse_seconds)]
    pub door_wait: Duration,

    /// Adds the test-only `test_sleep` tool (for this crate's tests).
    #[arg(long, hide = true)]
    pub test_tools: bool,
}

/// The local toolbox over `roots`; with `allow_private`, `fetch` and `ui`
/// may reach private addresses whatever the environment says.
fn local_source(roots: Vec<PathBuf>, allow_private: bool) -> Result<LocalSource, ServerError> {
    if !allow_private {
        return LocalSource::new(roots);
    }
    let roots =
        mcp_local_tools::Roots::new(roots).map_err(|e| ServerError::Config(e.to_string()))?;
    let mut toolbox = mcp_local_tools::Toolbox::with_default_tools();
    let policy = mcp_local_tools::net::NetPolicy {
        allow_private: true,
        ..mcp_local_tools::net::NetPolicy::from_env()
    };
    // `add` replaces a tool of the same name in its place.
    toolbox.add(mcp_local_tools::fetch::FetchTool::with_config(
        mcp_local_tools::fetch::FetchConfig {
            policy: policy.clone(),
            ..mcp_local_tools::fetch::FetchConfig::from_env()
        },
    ));
    toolbox.add(mcp_local_tools::ui::UiTool::with_config(
        mcp_local_tools::ui::UiConfig {
            policy,
            ..mcp_local_tools::ui::UiConfig::from_env()
        },
    ));
    Ok(LocalSource::with_toolbox(toolbox, roots))
}

fn parse_seconds(text: &str) -> Result<Duration, String> {
    let seconds: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("{text:?} is not a number of seconds"))?;
    Duration::try_from_secs_f64(seconds).map_err(|_| format!("{text:?} is not a duration"))
}

/// Checks `--log-level`: a directive `EnvFilter` accepts (`info`,
/// `mcp_local_server=debug,warn`, ...), else the parser's reason.
fn parse_log_level(text: &str) -> Result<String, String> {
    EnvFilter::builder()
        .parse(text)
        .map(|_| text.to_owned())
        .map_err(|e| e.to_string())
}

/// Reads `--allowed-tools` / `HANZO_MCP_ALLOWED_TOOLS`: inline JSON, or
/// `@FILE`. Errors name the flag, the file and what is wrong, including a
/// server key that is not one of [`GATED_SOURCES`].
pub fn parse_allowed_tools(value: Option<&str>) -> Result<AllowedTools, ServerError> {
    let (allowed, origin) = read_allowed_tools(value)?;
    match unknown_servers(&allowed) {
        Some(problem) => Err(ServerError::Config(format!("{origin}: {problem}"))),
        None => Ok(allowed),
    }
}

/// [`parse_allowed_tools`] without the server-key check, with the origin
/// its messages start with (`--allowed-tools` or `--allowed-tools @FILE`).
fn read_allowed_tools(value: Option<&str>) -> Result<(AllowedTools, String), ServerError> {
    let Some(value) = value else {
        return Ok((AllowedTools::unrestricted(), "--allowed-tools".to_owned()));
    };
    let (text, origin) = match value.strip_prefix('@') {
        Some(path) => (
            read_config_file(path)
                .map_err(|e| ServerError::Config(format!("--allowed-tools: {e}")))?,
            format!("--allowed-tools @{path}"),
        ),
        None => (value.to_owned(), "--allowed-tools".to_owned()),
    };
    let allowed: AllowedTools =
        serde_json::from_str(&text).map_err(|e| ServerError::Config(format!("{origin}: {e}")))?;
    Ok((allowed, origin))
}

/// The sources `--allowed-tools` can name: the composed server's `local`
/// and `door` (the hidden test source is never gated).
pub const GATED_SOURCES: [&str; 2] = ["local", "door"];

/// What is wrong with `allowed`'s server keys when one names no source of
/// [`GATED_SOURCES`] (a misspelled key would otherwise leave its source
/// ungated): `unknown server "Local" (the servers here are "local" and
/// "door")`. `None` when every key names a source.
pub fn unknown_servers(allowed: &AllowedTools) -> Option<String> {
    let mut unknown: Vec<String> = allowed
        .servers()
        .map(|(name, _)| name)
        .filter(|name| !GATED_SOURCES.contains(name))
        .map(|name| format!("{name:?}"))
        .collect();
    if unknown.is_empty() {
        return None;
    }
    unknown.sort();
    let noun = if unknown.len() == 1 {
        "server"
    } else {
        "servers"
    };
    Some(format!(
        "unknown {noun} {} (the servers here are {:?} and {:?})",
        unknown.join(", "),
        GATED_SOURCES[0],
        GATED_SOURCES[1]
    ))
}

/// Exit status 2 (a usage error, as clap's) with the message when the
/// `--allowed-tools` of `args` names a server that does not exist; other
/// problems of the value are left to [`assemble`] (exit status 1).
fn refuse_unknown_servers(args: &SourceArgs) -> Option<ExitCode> {
    let (allowed, origin) = read_allowed_tools(args.allowed_tools.as_deref()).ok()?;
    let problem = unknown_servers(&allowed)?;
    report(&format!("hanzo-mcp: configuration: {origin}: {problem}"));
    Some(ExitCode::from(2))
}

/// Writes `line` to stderr, ignoring a failure: a closed or full stderr
/// must never stop the server (`eprintln!` panics on one).
fn report(line: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}

/// The largest `--allowed-tools @FILE` accepted, in bytes.
const MAX_CONFIG_FILE_BYTES: u64 = 4 * 1024 * 1024;

/// Reads a configuration file of at most [`MAX_CONFIG_FILE_BYTES`] as UTF-8.
/// Reading stops at the bound, so `/dev/zero` or a FIFO that never ends is an
/// error rather than a hang that grows memory.
fn read_config_file(path: &str) -> Result<String, String> {
    use std::io::Read;
    let file = std::fs::File::open(path).map_err(|e| format!("cannot read {path}: {e}"))?;
    let mut bytes = Vec::new();
    file.take(MAX_CONFIG_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read {path}: {e}"))?;
    if bytes.len() as u64 > MAX_CONFIG_FILE_BYTES {
        return Err(format!(
            "{path} is larger than {MAX_CONFIG_FILE_BYTES} bytes"
        ));
    }
    String::from_utf8(bytes).map_err(|e| format!("{path} is not UTF-8: {e}"))
}

/// Options of `serve`.
#[derive(Debug, Clone, Args)]
pub struct ServeArgs {
    /// Which tools exist.
    #[command(flatten)]
    pub sources: SourceArgs,

    /// Log filter for stderr (`error`, `warn`, `info`, `debug`, `trace`, or
    /// a `RUST_LOG`-style directive). Default: `RUST_LOG`, else `info`.
    #[arg(long, value_name = "LEVEL", value_parser = parse_log_level)]
    pub log_level: Option<String>,

    /// Serve streamable HTTP at `/mcp` on ADDR (`IP:PORT`, an IP address
    /// and a port, or a port alone for 127.0.0.1; no host names) instead of
    /// stdio. A non-loopback address needs a bearer
    /// in `HANZO_MCP_HTTP_BEARER`.
    #[arg(long, value_name = "ADDR", value_parser = crate::http::parse_addr)]
    pub http: Option<std::net::SocketAddr>,

    /// Limits of `--http` (ignored over stdio).
    #[command(flatten)]
    pub http_limits: HttpLimitArgs,
}

/// The most `--http-max-sessions` and `--http-max-connections` accepted.
pub const MAX_HTTP_COUNT: u64 = 65_536;
/// The longest `--http-session-idle` accepted, in seconds (7 days).
pub const MAX_HTTP_SESSION_IDLE_SECS: u64 = 7 * 24 * 60 * 60;
/// The longest `--http-header-timeout` accepted, in seconds.
pub const MAX_HTTP_HEADER_TIMEOUT_SECS: u64 = 600;
/// The longest `--http-body-timeout` accepted, in seconds.
pub const MAX_HTTP_BODY_TIMEOUT_SECS: u64 = 600;

/// The limits of `serve --http`, each a field of
/// [`HttpConfig`](crate::http::HttpConfig) with its default. A value of 0
/// or above the bound is refused by the parser, naming the flag and the
/// accepted range.
#[derive(Debug, Clone, Args)]
pub struct HttpLimitArgs {
    /// Most 2025-11-25 sessions alive at once over --http; an `initialize`
    /// beyond it gets HTTP 503 (1 to 65536).
    #[arg(
        long = "http-max-sessions",
        value_name = "N",
        env = "HANZO_MCP_HTTP_MAX_SESSIONS",
        default_value_t = 256,
        value_parser = clap::value_parser!(u64).range(1..=MAX_HTTP_COUNT)
    )]
    pub max_sessions: u64,

    /// Seconds a --http session may stay without a request or an open
    /// stream before it is ended (1 to 604800, 7 days).
    #[arg(
        long = "http-session-idle",
        value_name = "SECS",
        env = "HANZO_MCP_HTTP_SESSION_IDLE",
        default_value_t = 1800,
        value_parser = clap::value_parser!(u64).range(1..=MAX_HTTP_SESSION_IDLE_SECS)
    )]
    pub session_idle_secs: u64,

    /// Seconds a --http connection has to send a complete request header
    /// before it is closed (1 to 600).
    #[arg(
        long = "http-header-timeout",
        value_name = "SECS",
        env = "HANZO_MCP_HTTP_HEADER_TIMEOUT",
        default_value_t = 10,
        value_parser = clap::value_parser!(u64).range(1..=MAX_HTTP_HEADER_TIMEOUT_SECS)
    )]
    pub header_timeout_secs: u64,

    /// Seconds a --http request has, once its header is read, to send its
    /// whole body; a late one gets 408 and the connection is closed
    /// (1 to 600).
    #[arg(
        long = "http-body-timeout",
        value_name = "SECS",
        env = "HANZO_MCP_HTTP_BODY_TIMEOUT",
        default_value_t = 30,
        value_parser = clap::value_parser!(u64).range(1..=MAX_HTTP_BODY_TIMEOUT_SECS)
    )]
    pub body_timeout_secs: u64,

    /// Most --http connections served at once; further clients wait in the
    /// listen backlog (1 to 65536).
    #[arg(
        long = "http-max-connections",
        value_name = "N",
        env = "HANZO_MCP_HTTP_MAX_CONNECTIONS",
        default_value_t = 512,
        value_parser = clap::value_parser!(u64).range(1..=MAX_HTTP_COUNT)
    )]
    pub max_connections: u64,
}

impl ServeArgs {
    /// The [`HttpConfig`](crate::http::HttpConfig) of `serve --http`:
    /// [`crate::http::config_from_env`] (the bearer) with the limits of
    /// [`HttpLimitArgs`].
    pub fn http_config(&self) -> crate::http::HttpConfig {
        let limits = &self.http_limits;
        let count = |n: u64| usize::try_from(n).unwrap_or(usize::MAX);
        crate::http::HttpConfig {
            max_sessions: count(limits.max_sessions),
            session_idle: Duration::from_secs(limits.session_idle_secs),
            header_read_timeout: Duration::from_secs(limits.header_timeout_secs),
            body_read_timeout: Duration::from_secs(limits.body_timeout_secs),
            max_connections: count(limits.max_connections),
            ..crate::http::config_from_env()
        }
    }
}

/// Runs the parsed command line; the process's exit status.
pub fn run(cli: Cli) -> ExitCode {
    let sources = match &cli.command {
        Command::Serve(args) => &args.sources,
        Command::Tools(args) => args,
    };
    if let Some(refused) = refuse_unknown_servers(sources) {
        return refused;
    }
    let log_level = match &cli.command {
        Command::Serve(args) => args.log_level.clone(),
        Command::Tools(_) => None,
    };
    let default_level = match &cli.command {
        Command::Serve(_) => "info",
        Command::Tools(_) => "warn",
    };
    init_tracing(log_level.as_deref(), default_level);

    // stdio serves one client: one thread runs the connection and every
    // request's async part (requests still run concurrently as tasks; file
    // work goes to the blocking pool), which saves the cross-thread wake-ups
    // and the memory of worker threads. HTTP serves many clients: a worker
    // per core.
    let http = matches!(&cli.command, Command::Serve(args) if args.http.is_some());
    let mut builder = if http {
        let mut builder = tokio::runtime::Builder::new_multi_thread();
        builder.worker_threads(2);
        builder
    } else {
        tokio::runtime::Builder::new_current_thread()
    };
    let runtime = match builder.enable_all().build() {
        Ok(runtime) => runtime,
        Err(error) => {
            report(&format!(
                "hanzo-mcp: cannot start the async runtime: {error}"
            ));
            return ExitCode::FAILURE;
        }
    };
    let outcome = runtime.block_on(async {
        match cli.command {
            Command::Serve(args) => serve(args).await,
            Command::Tools(args) => print_tools(args).await,
        }
    });
    // stdin is read on a blocking thread that may still wait for input after
    // a signal; do not wait for it.
    runtime.shutdown_timeout(Duration::from_millis(100));
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            report(&format!("hanzo-mcp: {error}"));
            ExitCode::FAILURE
        }
    }
}

fn init_tracing(flag: Option<&str>, default_level: &str) {
    let filter = match flag {
        Some(level) => EnvFilter::try_new(level),
        None => EnvFilter::try_from_default_env().or_else(|_| EnvFilter::try_new(default_level)),
    }
    .unwrap_or_else(|_| EnvFilter::new(default_level));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(false)
        // A full or closed stderr drops the line: without this the
        // subscriber reports the failure with `eprintln!`, which panics.
        .log_internal_errors(false)
        .try_init();
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

/// The tool sources of a command line, assembled.
#[derive(Debug)]
pub struct Assembly {
    /// The sources in routing order: (`test`), `local`, `door`.
    pub composition: Composition,
    /// Whether a source's list can change (the door is on).
    pub list_changed: bool,
    /// The gated sources, for warnings about entries that match nothing.
    pub gated: Vec<Arc<GatedSource>>,
    /// Without `--root`: the local tools, to be told the client's roots.
    pub client_roots: Option<Arc<ClientRootsSource>>,
}

/// The tool sources `args` describe, in routing order: the local tools, then
/// the door (unless `--no-door`), each gated by `--allowed-tools` before the
/// merge. Starts the door's background fetch (call inside a Tokio runtime).
pub async fn assemble(args: &SourceArgs) -> Result<Assembly, ServerError> {
    let allowed = Arc::new(parse_allowed_tools(args.allowed_tools.as_deref())?);
    let roots =
        if args.roots.is_empty() {
            vec![std::env::current_dir().map_err(|e| {
                ServerError::Config(format!("cannot read the working directory: {e}"))
            })?]
        } else {
            args.roots.clone()
        };
    for root in &roots {
        if !root.is_dir() {
            return Err(ServerError::Config(format!(
                "--root {}: not a directory",
                root.display()
            )));
        }
    }
    let mut sources: Vec<Arc<dyn ToolSource>> = Vec::new();
    let mut gated = Vec::new();
    if args.test_tools {
        sources.push(Arc::new(TestTools));
    }
    // Without --root the local tools follow the client's MCP roots when it
    // offers them, starting from the working directory (docs/ARCHITECTURE.md, "Local
    // tools").
    let follow_client = args.roots.is_empty().then(|| roots.clone());
    let local = local_source(roots, args.fetch_allow_private)?;
    let surroundings = local.toolbox().surroundings();
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
    let gate = |source: Arc<dyn ToolSource>, known: &[mcp_proto::Tool], rules: SurfaceRules| {
        if allowed.server(source.name()).is_some() {
            let view = Arc::new(GatedSource::new(
                source,
                known,
                allowed.clone(),
                Policy::FailOpen,
                rules,
            ));
            (view.clone() as Arc<dyn ToolSource>, Some(view))
        } else {
            (source, None)
        }
    };
    let (local, view) = gate(local, &local_tools, SurfaceRules::local());
    sources.push(local);
    gated.extend(view);

    let mut list_changed = false;
    if !args.no_door {
        let mut config = DoorConfig::from_env();
        config.client_info = ClientInfo {
            name: "hanzo-mcp".into(),
            version: env!("CARGO_PKG_VERSION").into(),
        };
        let door: Arc<dyn ToolSource> =
            Arc::new(DeferredDoor::start(config, args.door_wait, surroundings));
        let (door, view) = gate(door, &[], SurfaceRules::door());
        sources.push(door);
        gated.extend(view);
        list_changed = true;
    }
    Ok(Assembly {
        composition: Composition::new(sources),
        list_changed,
        gated,
        client_roots,
    })
}

/// Where the door's handle is while it is built.
#[derive(Clone)]
enum DoorSlot {
    /// Being built on the blocking pool.
    Building,
    /// Built and fetching.
    Ready(DoorSource),
    /// Its configuration was refused (logged): local tools only.
    Off,
}

/// The `door` source, built off the async thread. Building the door's HTTP
/// client loads the system's TLS roots (about 19 million instructions,
/// several milliseconds), which must not delay `initialize`: the stdio loop
/// starts at once and a door request waits for the handle instead.
struct DeferredDoor {
    slot: watch::Receiver<DoorSlot>,
    /// The door's list generations, relayed once it is built.
    generations: watch::Receiver<u64>,
}

impl DeferredDoor {
    /// Starts building the door for `config` (call inside a Tokio runtime);
    /// once built it fetches its list (`wait`: the `tools/list` budget) and
    /// reports its state to `surroundings`.
    fn start(config: DoorConfig, wait: Duration, surroundings: Surroundings) -> Self {
        let (slot_tx, slot) = watch::channel(DoorSlot::Building);
        let (generations_tx, generations) = watch::channel(0);
        tokio::spawn(async move {
            let built = tokio::task::spawn_blocking(move || Door::new(config)).await;
            let door = match built {
                Ok(Ok(door)) => door,
                Ok(Err(error)) => {
                    tracing::warn!(%error, "the door is off: local tools only");
                    let _ = slot_tx.send(DoorSlot::Off);
                    return;
                }
                Err(error) => {
                    tracing::warn!(%error, "the door is off: building it failed");
                    let _ = slot_tx.send(DoorSlot::Off);
                    return;
                }
            };
            report_door(&door, surroundings);
            let source = DoorSource::start(door, wait);
            let mut changes = source.list_changes();
            let _ = slot_tx.send(DoorSlot::Ready(source));
            if let Some(changes) = changes.as_mut() {
                // The door counts from 0; a fetch that finished before this
                // subscription is a change too.
                let first = *changes.borrow_and_update();
                if first != 0 {
                    let _ = generations_tx.send(first);
                }
                while changes.changed().await.is_ok() {
                    if generations_tx.send(*changes.borrow_and_update()).is_err() {
                        break;
                    }
                }
            }
        });
        Self { slot, generations }
    }

    /// The door once built; `None` when it is off.
    async fn ready(&self) -> Option<DoorSource> {
        let mut slot = self.slot.clone();
        let done = slot
            .wait_for(|slot| !matches!(slot, DoorSlot::Building))
            .await;
        match done.as_deref() {
            Ok(DoorSlot::Ready(source)) => Some(source.clone()),
            _ => None,
        }
    }
}

impl std::fmt::Debug for DeferredDoor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let state = match &*self.slot.borrow() {
            DoorSlot::Building => "building",
            DoorSlot::Ready(_) => "ready",
            DoorSlot::Off => "off",
        };
        f.debug_struct("DeferredDoor")
            .field("state", &state)
            .finish()
    }
}

impl ToolSource for DeferredDoor {
    fn name(&self) -> &str {
        "door"
    }

    fn list_tools(&self) -> BoxFuture<'_, SourceList> {
        Box::pin(async move {
            match self.ready().await {
                Some(source) => source.list_tools().await,
                None => SourceList::default(),
            }
        })
    }

    /// While the door is being built, every name is taken; the call then
    /// checks with the built door (an unknown name gets -32602, as when no
    /// source owns it).
    fn owns(&self, tool: &str) -> bool {
        match &*self.slot.borrow() {
            DoorSlot::Building => true,
            DoorSlot::Ready(source) => source.owns(tool),
            DoorSlot::Off => false,
        }
    }

    fn call_tool(&self, call: CallRequest, cx: CallContext) -> ToolCall<'_> {
        Box::pin(async move {
            match self.ready().await {
                Some(source) if source.owns(call.name()) => source.call_tool(call, cx).await,
                _ => Err(unknown_tool(call.name())),
            }
        })
    }

    fn list_changes(&self) -> Option<watch::Receiver<u64>> {
        Some(self.generations.clone())
    }

    fn list_stamp(&self) -> Option<u64> {
        match &*self.slot.borrow() {
            DoorSlot::Ready(source) => source.list_stamp(),
            // Refused: it lists nothing, for good, so the merged list can
            // be kept.
            DoorSlot::Off => Some(0),
            DoorSlot::Building => None,
        }
    }
}

/// Keeps the local tools' view of the door (`workspace` `capabilities`)
/// current: its address, and whether its last list fetch answered.
fn report_door(door: &Door, surroundings: Surroundings) {
    let address = door.address().to_owned();
    surroundings.set_door(Some(DoorReport {
        address: address.clone(),
        answered: None,
        note: None,
    }));
    let mut snapshots = door.subscribe();
    tokio::spawn(async move {
        while snapshots.changed().await.is_ok() {
            let status = snapshots.borrow_and_update().status.clone();
            let (answered, note) = match status {
                DoorStatus::Ready => (Some(true), None),
                DoorStatus::Unavailable { reason } => (Some(false), Some(reason)),
                DoorStatus::SignInRequired { resource_metadata } => (
                    Some(true),
                    Some(format!("sign-in required; see {resource_metadata}")),
                ),
                _ => (None, None),
            };
            surroundings.set_door(Some(DoorReport {
                address: address.clone(),
                answered,
                note,
            }));
        }
    });
}

/// At `serve` start only the local list is known: warn about its entries.
fn warn_unmatched_local(gated: &[Arc<GatedSource>]) {
    let local: Vec<Arc<GatedSource>> = gated
        .iter()
        .filter(|g| g.name() == "local")
        .cloned()
        .collect();
    warn_unmatched(&local);
}

/// Writes one stderr warning per allowlist entry that matches nothing in
/// its source's current list.
fn warn_unmatched(gated: &[Arc<GatedSource>]) {
    for source in gated {
        for entry in source.surface().unmatched_entries() {
            report(&format!(
                "hanzo-mcp: warning: allowedTools[{:?}]: {entry}",
                source.name()
            ));
        }
    }
}

/// Whether `serve` lets the client's MCP roots move the local tools: only
/// over stdio and only without `--root` (docs/ARCHITECTURE.md, "Local tools").
///
/// Client roots are followed over stdio only: one stdio client is the
/// whole audience, while an HTTP server has many sessions, and one
/// session's roots must never widen or narrow what another may touch.
/// Over HTTP, without `--root`, the local tools keep the working directory.
pub fn follows_client_roots(args: &ServeArgs) -> bool {
    args.http.is_none() && args.sources.roots.is_empty()
}

/// The server `serve` runs over `assembly` (from [`assemble`] of
/// `args.sources`): `list_changed` when the door is on, and the client
/// roots listener only when [`follows_client_roots`].
pub fn serve_server(args: &ServeArgs, assembly: Assembly) -> Server {
    let mut config = ServerConfig::new(server_info());
    config.list_changed = assembly.list_changed;
    let server = Server::new(assembly.composition, config);
    match assembly.client_roots {
        Some(listener) if follows_client_roots(args) => server.with_roots_listener(listener),
        _ => server,
    }
}

async fn serve(args: ServeArgs) -> Result<(), ServerError> {
    let assembly = assemble(&args.sources).await?;
    warn_unmatched_local(&assembly.gated);
    let server = Arc::new(serve_server(&args, assembly));
    if let Some(addr) = args.http {
        let http = args.http_config();
        return crate::http::serve_http(server, addr, http, |_| {}, shutdown_signal()).await;
    }
    let (input, output) = crate::framing::stdio();
    server.serve(input, output, shutdown_signal()).await
}

async fn print_tools(args: SourceArgs) -> Result<(), ServerError> {
    let assembly = assemble(&args).await?;
    let list = assembly.composition.list_tools().await;
    warn_unmatched(&assembly.gated);
    let mut out = serde_json::json!({ "tools": list.tools });
    if let Some(meta) = list.meta {
        out["_meta"] = serde_json::Value::Object(meta);
    }
    let text = serde_json::to_string_pretty(&out)
        .map_err(|e| ServerError::Config(format!("cannot serialize the tool list: {e}")))?;
    use std::io::Write;
    writeln!(std::io::stdout().lock(), "{text}").map_err(ServerError::Write)
}

/// Completes on SIGTERM or Ctrl-C (SIGINT).
async fn shutdown_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = term.recv() => {}
                    _ = tokio::signal::ctrl_c() => {}
                }
            }
            Err(error) => {
                tracing::warn!(%error, "cannot listen for SIGTERM");
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}

//! `hanzo-mcp door`: serves a HIP-0300 door (§1) from OpenAPI documents,
//! through the `mcp-door` crate: settings from flags over a TOML
//! configuration file over defaults, logs as text or JSON lines, SIGHUP
//! reloads the documents, SIGTERM and SIGINT stop it gracefully.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::{Args, ValueEnum};
use mcp_door::{ConfigFile, DocumentSpec, Door, DoorConfig, ProjectionConfig, load_documents};
use tracing_subscriber::EnvFilter;

/// Serve a HIP-0300 door: OpenAPI documents as one tool per subsystem at
/// POST /v1/mcp, forwarded to their REST upstreams. SIGHUP reloads the
/// documents; SIGTERM stops it after the calls in flight.
#[derive(Debug, Clone, Args)]
pub struct DoorArgs {
    /// A TOML configuration file: documents (file or URL, upstream,
    /// exclusions, op names, readiness probe), listen address, issuer,
    /// origins. Flags given beside it win.
    #[arg(long, value_name = "FILE", env = "HANZO_MCP_DOOR_CONFIG")]
    pub config: Option<PathBuf>,

    /// An OpenAPI 3.0 or 3.1 document (JSON or YAML) and the base URL its
    /// operations are forwarded to; without `=UPSTREAM`, the document's
    /// first absolute `servers[].url` (repeatable; replaces the
    /// configuration file's documents).
    #[arg(
        long = "openapi",
        value_name = "FILE[=UPSTREAM]",
        required_unless_present = "config"
    )]
    pub openapi: Vec<String>,

    /// Where to listen (`IP:PORT`; port 0 picks a free one) [default:
    /// 127.0.0.1:8080].
    #[arg(long, value_name = "ADDR")]
    pub listen: Option<SocketAddr>,

    /// The authorization server the protected-resource metadata names.
    #[arg(long, value_name = "URL")]
    pub issuer: Option<String>,

    /// The public origin clients reach the door at (default: each
    /// request's Host).
    #[arg(long, value_name = "URL")]
    pub origin: Option<String>,

    /// A browser origin allowed to call the door besides its own
    /// (repeatable; replaces the configuration file's).
    #[arg(long = "allowed-origin", value_name = "URL")]
    pub allowed_origins: Vec<String>,

    /// A path prefix whose operations are not offered (repeatable;
    /// replaces the configuration file's).
    #[arg(long = "exclude-prefix", value_name = "PREFIX")]
    pub exclude_prefixes: Vec<String>,

    /// A tag whose operations are not offered (repeatable; replaces the
    /// configuration file's).
    #[arg(long = "exclude-tag", value_name = "TAG")]
    pub exclude_tags: Vec<String>,

    /// The longest a forwarded call may take, in seconds [default: 30].
    #[arg(long, value_name = "SECONDS")]
    pub timeout: Option<u64>,

    /// How log lines on stderr are written: `text`, or `json` (one JSON
    /// object a line). `RUST_LOG` sets the level (default `info`).
    #[arg(long, value_enum, value_name = "FORMAT", default_value = "text")]
    pub log_format: LogFormat,
}

/// The format of the door's log lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LogFormat {
    /// Human-readable lines.
    Text,
    /// One JSON object per line (tracing-subscriber's JSON format).
    Json,
}

/// Everything the door runs with, flags over file over defaults.
struct Settings {
    listen: SocketAddr,
    config: DoorConfig,
    documents: Vec<DocumentSpec>,
    /// The configuration file, read again at each reload.
    file: Option<PathBuf>,
}

/// How long fetching one document by URL may take.
const FETCH_TIMEOUT: Duration = Duration::from_secs(30);

/// Runs the door until SIGTERM or SIGINT.
pub fn run(args: DoorArgs) -> ExitCode {
    init_logs(args.log_format);
    let json = args.log_format == LogFormat::Json;
    let settings = match settings(&args) {
        Ok(s) => s,
        Err(message) => return fail(json, &message),
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => return fail(json, &format!("cannot start the async runtime: {e}")),
    };
    runtime.block_on(serve(settings, args, json))
}

async fn serve(settings: Settings, args: DoorArgs, json: bool) -> ExitCode {
    let started = Instant::now();
    let sources = load_documents(&settings.documents, FETCH_TIMEOUT).await;
    let door = match tokio::task::spawn_blocking(move || Door::new(sources, settings.config)).await
    {
        Ok(Ok(door)) => Arc::new(door),
        Ok(Err(e)) => return fail(json, &e.to_string()),
        Err(e) => return fail(json, &e.to_string()),
    };
    let loaded_ms = started.elapsed().as_millis();
    let projection = door.projection();
    for entry in projection.unavailable() {
        if json {
            tracing::warn!(source = %entry["source"], reason = %entry["reason"], "unavailable");
        } else {
            eprintln!("hanzo-mcp door: unavailable: {entry}");
        }
    }
    let listener = match tokio::net::TcpListener::bind(settings.listen).await {
        Ok(l) => l,
        Err(e) => return fail(json, &format!("cannot listen on {}: {e}", settings.listen)),
    };
    let addr = listener.local_addr().unwrap_or(settings.listen);
    let (tools, ops, withheld) = (
        projection.tools().len(),
        projection.ops().count(),
        projection.refused().len(),
    );
    drop(projection);
    let url = format!("http://{addr}{}", mcp_door::DOOR_PATH);
    if json {
        tracing::info!(%url, tools, ops, withheld, loaded_ms, "listening");
    } else {
        let count =
            |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
        eprintln!(
            "hanzo-mcp door: listening on {url} ({}, {}, {withheld} withheld; loaded in {loaded_ms} ms)",
            count(tools, "tool", "tools"),
            count(ops, "op", "ops"),
        );
    }
    tokio::spawn(reload_on_hangup(
        Arc::clone(&door),
        args,
        settings.file,
        settings.documents,
    ));
    mcp_streamable_http::serve_app(
        listener,
        mcp_door::router(door),
        mcp_streamable_http::ListenLimits::default(),
        stop_signal(),
    )
    .await;
    tracing::info!("stopped");
    ExitCode::SUCCESS
}

/// The settings: the configuration file (when named) under the flags.
fn settings(args: &DoorArgs) -> Result<Settings, String> {
    // A proxy named but not usable would be passed by, silently.
    mcp_door_client::check_proxy_environment()?;
    let file = match &args.config {
        Some(path) => ConfigFile::load(path).map_err(|e| e.to_string())?,
        None => ConfigFile::default(),
    };
    let documents = documents(args, &file)?;
    let pick = |flag: &Vec<String>, file: &Vec<String>| {
        if flag.is_empty() {
            file.clone()
        } else {
            flag.clone()
        }
    };
    let mut config = DoorConfig {
        projection: ProjectionConfig {
            excluded_prefixes: pick(&args.exclude_prefixes, &file.exclude_prefixes),
            excluded_tags: pick(&args.exclude_tags, &file.exclude_tags),
            ..ProjectionConfig::default()
        },
        issuer: args.issuer.clone().or_else(|| file.issuer.clone()),
        origin: args.origin.clone().or_else(|| file.origin.clone()),
        allowed_origins: pick(&args.allowed_origins, &file.allowed_origins),
        timeout: Duration::from_secs(args.timeout.or(file.timeout_secs).unwrap_or(30).max(1)),
        readiness: file.readiness(),
        ..DoorConfig::default()
    };
    let listen = args
        .listen
        .or(file.listen)
        .unwrap_or(SocketAddr::from(([127, 0, 0, 1], 8080)));
    // Reachable only here: a page rebound to 127.0.0.1 must not pass for
    // the door's own origin.
    // `[::ffff:127.0.0.1]` binds loopback too.
    config.loopback_hosts_only = listen.ip().to_canonical().is_loopback();
    Ok(Settings {
        listen,
        config,
        documents,
        file: args.config.clone(),
    })
}

/// The documents: the `--openapi` flags when there are any, else the
/// configuration file's.
fn documents(args: &DoorArgs, file: &ConfigFile) -> Result<Vec<DocumentSpec>, String> {
    if !args.openapi.is_empty() {
        return args
            .openapi
            .iter()
            .map(|a| DocumentSpec::from_arg(a).map_err(|e| e.to_string()))
            .collect();
    }
    let base = args
        .config
        .as_deref()
        .and_then(Path::parent)
        .unwrap_or(Path::new("."));
    Ok(file.document_specs(base))
}

/// Reloads the documents at each SIGHUP: the configuration file is read
/// again for its documents (a file that no longer parses is reported and
/// the documents in force are kept), then every document is loaded and
/// the door switches over ([`Door::reload`]).
async fn reload_on_hangup(
    door: Arc<Door>,
    args: DoorArgs,
    file: Option<PathBuf>,
    mut documents: Vec<DocumentSpec>,
) {
    use tokio::signal::unix::{SignalKind, signal};
    let Ok(mut hangups) = signal(SignalKind::hangup()) else {
        tracing::warn!("cannot watch SIGHUP: the documents cannot be reloaded");
        return;
    };
    while hangups.recv().await.is_some() {
        if let Some(path) = &file {
            match ConfigFile::load(path) {
                Ok(config) => {
                    if let Ok(specs) = self::documents(&args, &config) {
                        documents = specs;
                    }
                }
                Err(e) => {
                    tracing::error!(error = %e, "reload: the configuration file is refused; reloading the documents it named before");
                }
            }
        }
        let started = Instant::now();
        let sources = load_documents(&documents, FETCH_TIMEOUT).await;
        let reloading = Arc::clone(&door);
        let Ok(report) = tokio::task::spawn_blocking(move || reloading.reload(sources)).await
        else {
            tracing::error!("reload: the projection failed; the documents in force are kept");
            continue;
        };
        for (source, reason) in &report.kept_previous {
            tracing::warn!(%source, %reason, "reload: document failed to load; its previous version is served");
        }
        for (source, reason) in &report.failed {
            tracing::warn!(%source, %reason, "reload: document failed to load");
        }
        tracing::info!(
            loaded = report.loaded.len(),
            kept_previous = report.kept_previous.len(),
            failed = report.failed.len(),
            ops = report.ops,
            ms = started.elapsed().as_millis() as u64,
            "reloaded"
        );
    }
}

/// Completes at the first SIGTERM or SIGINT.
async fn stop_signal() {
    use tokio::signal::unix::{SignalKind, signal};
    let (Ok(mut term), Ok(mut int)) = (
        signal(SignalKind::terminate()),
        signal(SignalKind::interrupt()),
    ) else {
        std::future::pending::<()>().await;
        return;
    };
    tokio::select! {
        _ = term.recv() => {}
        _ = int.recv() => {}
    }
    tracing::info!("stopping: no new connections; calls in flight may finish");
}

fn init_logs(format: LogFormat) {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .with_env_filter(filter);
    let _ = match format {
        LogFormat::Text => builder.try_init(),
        LogFormat::Json => builder.json().flatten_event(true).try_init(),
    };
}

fn fail(json: bool, message: &str) -> ExitCode {
    if json {
        tracing::error!(error = %message, "cannot start");
    } else {
        eprintln!("hanzo-mcp door: {message}");
    }
    ExitCode::FAILURE
}

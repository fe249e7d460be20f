//! The door's JSON-RPC side (HIP-0300 §1.3–§1.6), independent of HTTP:
//! one request in, one answer out ([`Door::answer`], routed by method type
//! in [`dispatch`]).

mod dispatch;
mod reload;
mod scan;

pub use reload::Reloaded;

pub(crate) use dispatch::{Answered, scan_call};
pub(crate) use scan::{PlainParams, Scanned};

use std::sync::{Arc, Mutex, PoisonError, RwLock};
use std::time::Duration;

use mcp_proto::{CacheScope, Implementation, ListToolsResult, PaginatedResult, Response};

use crate::error::DoorError;
use crate::forward::Limits;
use crate::health::ReadinessConfig;
use crate::metrics::Metrics;
use crate::projection::{Projection, ProjectionConfig};
use crate::source::OpenApiSource;
use crate::upstream::Upstreams;

/// How a door is configured. Every bound has a default; see each field.
#[derive(Debug, Clone)]
pub struct DoorConfig {
    /// What is offered and the tool cap.
    pub projection: ProjectionConfig,
    /// The authorization server named by the protected-resource metadata
    /// (HIP-0300 §1.7, RFC 9728 `authorization_servers`), such as
    /// `https://hanzo.id`. `None` names none.
    pub issuer: Option<String>,
    /// The origin clients reach the door at (`https://api.example.com`),
    /// used in the 401 challenge and the metadata; `None` takes it from
    /// each request's `Host` (and `X-Forwarded-Proto`).
    pub origin: Option<String>,
    /// Browser origins besides the door's own allowed to call it
    /// (`https://app.example.com`); a POST whose `Origin` is neither is
    /// refused with 403 (MCP 2025-11-25 basic/transports). Default none.
    pub allowed_origins: Vec<String>,
    /// Refuse (403) every request whose `Host` is neither a loopback name
    /// (`localhost`, `127.0.0.0/8`, `[::1]`, any port) nor the host of
    /// `origin` or of one of `allowed_origins`: the guard against DNS
    /// rebinding (MCP 2025-11-25 basic/transports, security warning) for a
    /// door reachable only on this machine, where a page whose name was
    /// rebound to 127.0.0.1 would otherwise be the door's own origin.
    /// `hanzo-mcp door` sets it when it listens on a loopback address.
    /// Default `false`: a door behind a load balancer is reached under
    /// names it cannot list (set `origin` there).
    pub loopback_hosts_only: bool,
    /// The longest a forwarded call may take, connection and body read
    /// included (default 30 s).
    pub timeout: Duration,
    /// The longest connecting to an upstream may take (default 5 s).
    pub connect_timeout: Duration,
    /// The most bytes of an upstream answer that are read (default 4 MiB);
    /// past it the text is cut and marked.
    pub max_body_bytes: usize,
    /// The most bytes of an upstream error body shown in an `isError`
    /// result (default 4 KiB).
    pub max_error_body_bytes: usize,
    /// The largest JSON-RPC request body accepted, in bytes (default 1 MiB);
    /// a larger one is answered 413.
    pub max_request_bytes: usize,
    /// How long a request body may take to arrive once its headers have
    /// (default 30 s); a slower one is answered 408 and its connection
    /// closed, so clients that stall mid-body cannot hold the door's
    /// connections.
    pub body_read_timeout: Duration,
    /// `ttlMs` of `tools/list` and `server/discover` results (default
    /// 300,000 ms).
    pub list_ttl_ms: u64,
    /// What `GET /readyz` checks.
    pub readiness: ReadinessConfig,
}

impl Default for DoorConfig {
    fn default() -> Self {
        Self {
            projection: ProjectionConfig::default(),
            issuer: None,
            origin: None,
            allowed_origins: Vec::new(),
            loopback_hosts_only: false,
            timeout: Duration::from_secs(30),
            connect_timeout: Duration::from_secs(5),
            max_body_bytes: 4 << 20,
            max_error_body_bytes: 4 << 10,
            max_request_bytes: 1 << 20,
            body_read_timeout: Duration::from_secs(30),
            list_ttl_ms: 300_000,
            readiness: ReadinessConfig::default(),
        }
    }
}

/// What the door answers one request with.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    /// A JSON-RPC response carrying the request's id.
    Response(Response),
    /// The request needs a credential (a `tools/call` other than `describe`
    /// without one): HTTP 401 with the `WWW-Authenticate` challenge, and
    /// this JSON-RPC error as the body (HIP-0300 §1.6).
    Challenge(Response),
}

/// A door: the projection of its sources, served statelessly.
///
/// Build one with [`Door::new`], then serve it with [`crate::router`] or
/// call [`Door::answer`] directly.
#[derive(Debug)]
pub struct Door {
    sources: Mutex<Vec<OpenApiSource>>,
    current: RwLock<Arc<Current>>,
    config: DoorConfig,
    shared: Arc<Shared>,
}

/// The projection in force and its `tools/list` result, built once per
/// projection (a list is asked for far more often than it changes). A
/// request holds the one in force when it came for as long as it runs.
#[derive(Debug)]
struct Current {
    projection: Arc<Projection>,
    list: ListToolsResult,
}

impl Current {
    fn new(projection: Projection, ttl_ms: u64) -> Current {
        Current {
            list: ListToolsResult {
                tools: projection.tools().to_vec(),
                page: PaginatedResult {
                    ttl_ms: Some(ttl_ms),
                    cache_scope: Some(CacheScope::Public),
                    meta: Some(projection.list_meta()),
                    ..PaginatedResult::default()
                },
            },
            projection: Arc::new(projection),
        }
    }
}

/// What a request's work keeps of its door after the dispatch returns (a
/// forwarded call is work that runs later): the upstream client, the
/// bounds of a call, the lists' `ttlMs` and the metrics.
#[derive(Debug)]
struct Shared {
    upstreams: Upstreams,
    limits: Limits,
    list_ttl_ms: u64,
    metrics: Metrics,
}

/// The JSON-RPC error code of the answer to a call without a credential
/// (the HTTP status, 401, is what clients act on).
pub const UNAUTHORIZED: i64 = -32001;

impl Door {
    /// Projects `sources` and prepares the upstream HTTP client.
    ///
    /// # Errors
    /// [`DoorError::Client`] when the HTTP client cannot be built.
    pub fn new(sources: Vec<OpenApiSource>, config: DoorConfig) -> Result<Door, DoorError> {
        // Nothing kept between calls: reqwest's idle connections are shared
        // by every caller, and HTTP/1.1 pairs answers with requests by
        // order alone, so an upstream's unasked answer on a reused one
        // would reach the next caller (the door's own connections for
        // http and https are kept per caller instead, `upstream.rs`).
        let client = reqwest::Client::builder()
            .connect_timeout(config.connect_timeout)
            .timeout(config.timeout)
            .redirect(reqwest::redirect::Policy::none())
            .pool_max_idle_per_host(0)
            .build()
            .map_err(|e| DoorError::Client(e.to_string()))?;
        let metrics = Metrics::default();
        for source in &sources {
            if source.load_error().is_some() {
                metrics.load_error(source.label());
            }
        }
        let projection = Projection::build(&sources, &config.projection);
        metrics.offered(projection.ops().count());
        let shared = Shared {
            upstreams: Upstreams::new(client, config.connect_timeout),
            limits: Limits {
                timeout: config.timeout,
                max_body_bytes: config.max_body_bytes,
                max_error_body_bytes: config.max_error_body_bytes,
            },
            list_ttl_ms: config.list_ttl_ms,
            metrics,
        };
        Ok(Door {
            sources: Mutex::new(sources),
            current: RwLock::new(Arc::new(Current::new(projection, config.list_ttl_ms))),
            config,
            shared: Arc::new(shared),
        })
    }

    /// The door's metrics (served at `GET /metrics`).
    pub fn metrics(&self) -> &Metrics {
        &self.shared.metrics
    }

    /// The sources as currently loaded (a document kept from an earlier
    /// load after a failed reload included).
    pub fn sources(&self) -> Vec<OpenApiSource> {
        self.sources
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// The HTTP client for upstreams (forwarded calls and readiness probes).
    pub(crate) fn http_client(&self) -> &reqwest::Client {
        self.shared.upstreams.client()
    }

    /// Makes `projection` the one in force.
    fn install(&self, projection: Projection) {
        self.metrics().offered(projection.ops().count());
        let current = Arc::new(Current::new(projection, self.config.list_ttl_ms));
        *self.current.write().unwrap_or_else(PoisonError::into_inner) = current;
    }

    /// The projection in force and its list.
    fn current(&self) -> Arc<Current> {
        let current = self.current.read().unwrap_or_else(PoisonError::into_inner);
        Arc::clone(&current)
    }

    /// The current projection.
    pub fn projection(&self) -> Arc<Projection> {
        Arc::clone(&self.current().projection)
    }

    /// The door's configuration.
    pub fn config(&self) -> &DoorConfig {
        &self.config
    }

    /// Marks the source labelled `label` available or not and projects
    /// again (HIP-0300 §1.4 `hanzo.ai/unavailable`). Returns whether a
    /// source has that label.
    pub fn set_available(&self, label: &str, available: bool) -> bool {
        let mut sources = self.sources.lock().unwrap_or_else(PoisonError::into_inner);
        let Some(source) = sources.iter_mut().find(|s| s.label() == label) else {
            return false;
        };
        source.set_available(available);
        let projection = Projection::build(&sources, &self.config.projection);
        self.install(projection);
        true
    }
}

/// The door's [`Implementation`]: `mcp-door` and this crate's version.
pub fn server_info() -> Implementation {
    Implementation {
        name: "mcp-door".into(),
        version: env!("CARGO_PKG_VERSION").into(),
        ..Implementation::default()
    }
}

//! The door's JSON-RPC side (HIP-0300 §1.3–§1.6), independent of HTTP:
//! one request in, one answer out.

mod reload;

pub use reload::Reloaded;

use std::sync::{Arc, Mutex, PoisonError, RwLock};
use std::time::{Duration, Instant};

use mcp_proto::methods::{CallTool, Method as _};
use mcp_proto::{
    CacheScope, CallToolRequestParams, CallToolResult, ContentBlock, DiscoverResult, ErrorObject,
    Implementation, InitializeRequestParams, InitializeResult, JsonObject, ListToolsResult, Meta,
    PaginatedRequestParams, PaginatedResult, Request, Response, Revision, ServerCapabilities,
    ToolsCapability, meta,
};
use serde_json::{Value, json};

use crate::credentials::Credentials;
use crate::error::DoorError;
use crate::forward::{self, Limits};
use crate::health::ReadinessConfig;
use crate::metrics::Metrics;
use crate::projection::{DESCRIBE, Projection, ProjectionConfig};
use crate::source::OpenApiSource;

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
    current: RwLock<Current>,
    config: DoorConfig,
    client: reqwest::Client,
    metrics: Metrics,
}

/// The projection in force and its `tools/list` result, built once per
/// projection (a list is asked for far more often than it changes).
#[derive(Debug)]
struct Current {
    projection: Arc<Projection>,
    list: Arc<Value>,
}

impl Current {
    fn new(projection: Projection, ttl_ms: u64) -> Current {
        let result = ListToolsResult {
            tools: projection.tools().to_vec(),
            page: PaginatedResult {
                ttl_ms: Some(ttl_ms),
                cache_scope: Some(CacheScope::Public),
                result_type: Some("complete".into()),
                meta: Some(projection.list_meta()),
                ..PaginatedResult::default()
            },
        };
        Current {
            list: Arc::new(serde_json::to_value(result).unwrap_or(Value::Null)),
            projection: Arc::new(projection),
        }
    }
}

/// The `instructions` of `initialize` and `server/discover`: how the
/// grouped tools are called.
const INSTRUCTIONS: &str = concat!(
    "One tool per subsystem: call describe with {\"op\"} for an op's input schema, ",
    "then the subsystem's tool with {\"op\", \"input\"}."
);

/// The JSON-RPC error code of the answer to a call without a credential
/// (the HTTP status, 401, is what clients act on).
pub const UNAUTHORIZED: i64 = -32001;

impl Door {
    /// Projects `sources` and prepares the upstream HTTP client.
    ///
    /// # Errors
    /// [`DoorError::Client`] when the HTTP client cannot be built.
    pub fn new(sources: Vec<OpenApiSource>, config: DoorConfig) -> Result<Door, DoorError> {
        let client = reqwest::Client::builder()
            .connect_timeout(config.connect_timeout)
            .timeout(config.timeout)
            .redirect(reqwest::redirect::Policy::none())
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
        Ok(Door {
            sources: Mutex::new(sources),
            current: RwLock::new(Current::new(projection, config.list_ttl_ms)),
            config,
            client,
            metrics,
        })
    }

    /// The door's metrics (served at `GET /metrics`).
    pub fn metrics(&self) -> &Metrics {
        &self.metrics
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
        &self.client
    }

    /// Makes `projection` the one in force.
    fn install(&self, projection: Projection) {
        self.metrics.offered(projection.ops().count());
        *self.current.write().unwrap_or_else(PoisonError::into_inner) =
            Current::new(projection, self.config.list_ttl_ms);
    }

    /// The current projection.
    pub fn projection(&self) -> Arc<Projection> {
        let current = self.current.read().unwrap_or_else(PoisonError::into_inner);
        Arc::clone(&current.projection)
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

    /// Answers one JSON-RPC request. `credentials` are the caller's
    /// credential headers; `revision` is the `MCP-Protocol-Version` header
    /// when there was one.
    pub async fn answer(
        &self,
        request: &Request,
        credentials: &Credentials,
        revision: Option<&str>,
    ) -> Answer {
        let id = request.id.clone();
        let params = match request.params_value() {
            Ok(params) => params,
            Err(error) => return Answer::Response(Response::error(Some(id), error)),
        };
        self.count(request, params.as_ref());
        let requested = revision.map(str::to_owned).or_else(|| {
            params
                .as_ref()?
                .get("_meta")?
                .get(meta::PROTOCOL_VERSION)?
                .as_str()
                .map(str::to_owned)
        });
        if let Some(r) = requested
            && Revision::parse(&r).is_none()
            && request.method != mcp_proto::methods::Initialize::NAME
        {
            let err = ErrorObject::unsupported_protocol_version(&r, &Revision::ALL);
            return Answer::Response(Response::error(Some(id), err));
        }
        let result = match request.method.as_str() {
            mcp_proto::methods::Initialize::NAME => self.initialize(request),
            mcp_proto::methods::Ping::NAME => Ok(json!({})),
            mcp_proto::methods::ServerDiscover::NAME => Ok(self.discover()),
            mcp_proto::methods::ListTools::NAME => self.list(request),
            mcp_proto::methods::CallTool::NAME => {
                let params: CallToolRequestParams = match request.parse_params() {
                    Ok(p) => p,
                    Err(e) => return Answer::Response(Response::error(Some(id), e)),
                };
                if params.name != DESCRIBE && credentials.is_empty() {
                    let err = ErrorObject::new(
                        UNAUTHORIZED,
                        "this call needs a credential: send Authorization: Bearer <token>",
                    );
                    return Answer::Challenge(Response::error(Some(id), err));
                }
                self.call(&params, credentials).await
            }
            other => Err(ErrorObject::method_not_found(other)),
        };
        Answer::Response(match result {
            Ok(mut v) => {
                // 2026-07-28 requires `resultType` on every result; a
                // 2025-era client ignores it (`initialize` is theirs alone).
                if request.method != mcp_proto::methods::Initialize::NAME
                    && let Value::Object(m) = &mut v
                {
                    m.entry("resultType")
                        .or_insert_with(|| Value::String("complete".into()));
                }
                Response::success(id, v)
            }
            Err(e) => Response::error(Some(id), e),
        })
    }

    fn capabilities() -> ServerCapabilities {
        ServerCapabilities {
            tools: Some(ToolsCapability {
                list_changed: Some(false),
                ..ToolsCapability::default()
            }),
            ..ServerCapabilities::default()
        }
    }

    fn initialize(&self, request: &Request) -> Result<Value, ErrorObject> {
        let params: InitializeRequestParams = request.parse_params()?;
        let result = InitializeResult {
            protocol_version: Revision::negotiate(&params.protocol_version)
                .as_str()
                .to_owned(),
            capabilities: Self::capabilities(),
            server_info: server_info(),
            instructions: Some(INSTRUCTIONS.to_owned()),
            ..InitializeResult::default()
        };
        to_value(&result)
    }

    fn discover(&self) -> Value {
        let mut m = Meta::new();
        m.insert(
            meta::SERVER_INFO.into(),
            serde_json::to_value(server_info()).unwrap_or(Value::Null),
        );
        let result = DiscoverResult {
            supported_versions: Revision::ALL
                .iter()
                .rev()
                .map(|r| r.as_str().to_owned())
                .collect(),
            capabilities: Self::capabilities(),
            instructions: Some(INSTRUCTIONS.to_owned()),
            ttl_ms: Some(self.config.list_ttl_ms),
            cache_scope: Some(CacheScope::Public),
            result_type: Some("complete".into()),
            meta: Some(m),
            ..DiscoverResult::default()
        };
        serde_json::to_value(result).unwrap_or(Value::Null)
    }

    fn list(&self, request: &Request) -> Result<Value, ErrorObject> {
        let params: PaginatedRequestParams = request.params.as_ref().map_or_else(
            || Ok(PaginatedRequestParams::default()),
            |_| request.parse_params(),
        )?;
        if let Some(cursor) = params.cursor {
            return Err(ErrorObject::invalid_params(format!(
                "unknown cursor {cursor:?}: the door lists every tool on one page"
            )));
        }
        let list = Arc::clone(
            &self
                .current
                .read()
                .unwrap_or_else(PoisonError::into_inner)
                .list,
        );
        Ok((*list).clone())
    }

    async fn call(
        &self,
        params: &CallToolRequestParams,
        credentials: &Credentials,
    ) -> Result<Value, ErrorObject> {
        let projection = self.projection();
        let arguments = params.arguments.clone().unwrap_or_default();
        let op_of = |args: &JsonObject| -> Result<String, ErrorObject> {
            match args.get("op") {
                Some(Value::String(op)) => Ok(op.clone()),
                Some(_) => Err(ErrorObject::invalid_params(format!(
                    "tool {:?}: \"op\" must be a string",
                    params.name
                ))),
                None => Err(ErrorObject::invalid_params(format!(
                    "tool {:?}: missing \"op\"",
                    params.name
                ))),
            }
        };
        if params.name == DESCRIBE {
            let op = op_of(&arguments)?;
            let described = projection
                .described(&op)
                .ok_or_else(|| unknown_op(DESCRIBE, &op))?;
            let result = match described {
                Ok(described) => CallToolResult {
                    content: vec![ContentBlock::text(described.to_string())],
                    structured_content: Some(described),
                    ..CallToolResult::default()
                },
                // Bounded while built; answered with what is still useful.
                Err((without_schema, why)) => {
                    let mut result = CallToolResult::error(format!(
                        "describe {op}: {why}; call it with the input its API documents \
                         ({} {})",
                        without_schema["method"].as_str().unwrap_or(""),
                        without_schema["path"].as_str().unwrap_or("")
                    ));
                    result.structured_content = Some(without_schema);
                    result
                }
            };
            return to_value(&result);
        }
        let (entry, input) = if projection.has_tool(&params.name) {
            let op = op_of(&arguments)?;
            let entry = projection
                .entry_in(&params.name, &op)
                .ok_or_else(|| unknown_op(&params.name, &op))?;
            let input = match arguments.get("input") {
                None | Some(Value::Null) => JsonObject::new(),
                Some(Value::Object(m)) => m.clone(),
                Some(_) => {
                    return Err(ErrorObject::invalid_params(format!(
                        "tool {:?}: \"input\" must be an object",
                        params.name
                    )));
                }
            };
            (entry, input)
        } else if let Some(entry) = projection.entry(&params.name) {
            // A direct call by an op's own name takes the op's input as its arguments.
            (entry, arguments)
        } else {
            return Err(ErrorObject::invalid_params(format!(
                "unknown tool {:?}",
                params.name
            )));
        };
        let limits = Limits {
            timeout: self.config.timeout,
            max_body_bytes: self.config.max_body_bytes,
            max_error_body_bytes: self.config.max_error_body_bytes,
        };
        let started = Instant::now();
        let (result, outcome) =
            forward::call(&self.client, entry, &input, credentials, limits).await;
        let seconds = started.elapsed().as_secs_f64();
        let status = outcome.label();
        self.metrics
            .forwarded(&entry.name, &entry.subsystem, &status, seconds);
        tracing::debug!(op = %entry.name, %status, ms = seconds * 1e3, "forwarded");
        to_value(&result)
    }

    /// Counts `request` in the metrics: its method and, for `tools/call`,
    /// the tool named when the projection has it (else `other`).
    fn count(&self, request: &Request, params: Option<&Value>) {
        let tool = if request.method == CallTool::METHOD {
            let name = params
                .and_then(|p| p.get("name"))
                .and_then(Value::as_str)
                .unwrap_or("");
            let projection = self.projection();
            if name == DESCRIBE || projection.has_tool(name) || projection.entry(name).is_some() {
                name.to_owned()
            } else {
                "other".to_owned()
            }
        } else {
            String::new()
        };
        self.metrics.request(&request.method, &tool);
    }
}

fn unknown_op(tool: &str, op: &str) -> ErrorObject {
    ErrorObject::invalid_params(format!("tool {tool:?} has no op {op:?}"))
}

fn to_value<T: serde::Serialize>(value: &T) -> Result<Value, ErrorObject> {
    serde_json::to_value(value).map_err(|e| ErrorObject::internal_error(e.to_string()))
}

/// The door's [`Implementation`]: `mcp-door` and this crate's version.
pub fn server_info() -> Implementation {
    Implementation {
        name: "mcp-door".into(),
        version: env!("CARGO_PKG_VERSION").into(),
        ..Implementation::default()
    }
}

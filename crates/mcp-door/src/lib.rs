//! A HIP-0300 MCP door: OpenAPI documents projected into one tool per
//! subsystem plus `describe`, served statelessly at `POST /v1/mcp` and
//! forwarded to the REST upstream that owns each operation.
//!
//! A model pays context for every tool it is shown, and clients truncate
//! long lists; so instead of one tool per operation the door offers one
//! tool per subsystem (`{"op", "input"}`, `op` an enum of verb-phrase op
//! names) and `describe`, which returns any op's input schema (HIP-0300
//! §1.3). Operations that disclose a bearer secret or mutate an identity or
//! authority object are withheld by a documented, configurable rule
//! ([`RefusalRule`], HIP-0300 §1.4).
//!
//! # Example: project a document and answer `tools/list`
//!
//! ```
//! use mcp_door::{Credentials, Door, DoorConfig, OpenApiSource};
//! use mcp_proto::methods::ListTools;
//! use mcp_proto::{Request, ResponsePayload};
//!
//! let yaml = br#"
//! openapi: 3.1.0
//! info: {title: Projects, version: "1"}
//! paths:
//!   /v1/projects:
//!     get: {operationId: listProjects, tags: [projects]}
//!   /v1/projects/{slug}/deploy:
//!     post:
//!       tags: [projects]
//!       parameters: [{name: slug, in: path, required: true, schema: {type: string}}]
//!   /v1/keys/{id}:
//!     get: {operationId: getApiKey, tags: [keys]}
//! "#;
//! let source = OpenApiSource::from_bytes("projects.yaml", yaml, Some("http://127.0.0.1:9"));
//! let door = Door::new(vec![source], DoorConfig::default()).unwrap();
//!
//! let request = Request::typed::<ListTools>(1, &Default::default()).unwrap();
//! let answer = tokio::runtime::Builder::new_current_thread()
//!     .enable_all()
//!     .build()
//!     .unwrap()
//!     .block_on(door.answer(&request, &Credentials::default(), None));
//! let mcp_door::Answer::Response(response) = answer else { panic!("no credential is needed") };
//! let ResponsePayload::Result(result) = response.payload else { panic!("a result") };
//!
//! let names: Vec<&str> = result["tools"].as_array().unwrap().iter()
//!     .map(|t| t["name"].as_str().unwrap()).collect();
//! assert_eq!(names, ["describe", "projects"]);
//! assert_eq!(result["tools"][1]["inputSchema"]["properties"]["op"]["enum"],
//!            serde_json::json!(["list_projects", "deploy_project"]));
//! // `get_api_key` discloses a secret: withheld, and counted.
//! assert_eq!(result["_meta"]["hanzo.ai/refused"]["count"], 1);
//! ```
//!
//! # Serving
//!
//! [`router`] returns an axum `Router` with `POST /v1/mcp`, the 308 from
//! `/mcp`, and the RFC 9728 metadata; [`serve`] runs it on a listener.
//! `tools/list` and `describe` need no credential; any other `tools/call`
//! without `Authorization`, `X-Authorization` or a cookie is answered
//! HTTP 401 with `WWW-Authenticate: Bearer resource_metadata="…"`
//! (HIP-0300 §1.6). The door validates no credential: it forwards the
//! caller's credential headers, and nothing else of the caller's, to the
//! upstream, which decides.
//!
//! A browser cannot forge a call ([`mcp_streamable_http::checks`]): a POST must be
//! `Content-Type: application/json` (415), its `Origin`, when there is
//! one, the door's own or one of [`DoorConfig::allowed_origins`] (403);
//! its `Accept` must admit JSON or SSE (406) and `MCP-Protocol-Version`
//! must name a known revision (400, -32022) that agrees with the body's
//! `_meta` (400, -32020). A call is sent only to its operation's upstream:
//! document paths with dot segments, or that would leave the upstream's
//! authority, are withheld at load, and each built URL is checked against
//! the upstream's scheme, host, port and base path before it is sent.
//!
//! # Modules
//!
//! - [`Projection`]: documents → tools, `describe`, the op table.
//! - [`RefusalRule`]: which op names are withheld.
//! - [`Door`]: the JSON-RPC answers, forwarding, availability.
//! - [`router`]: the HTTP surface; [`serve`]: a listener with a header
//!   timeout and a connection cap
//!   ([`mcp_streamable_http::serve_app`]).
//! - [`mcp_streamable_http::checks`]: the transport's checks on a POST,
//!   shared with `hanzo-mcp serve --http`.
//! - [`ops_router`] (merged into [`router`]): `/healthz`, `/readyz`,
//!   `/metrics` ([`Metrics`]) and the door's own document
//!   (`/openapi.json`, [`Projection::openapi_document`], HIP-0300 §1.2).
//! - [`ConfigFile`]: the TOML configuration file; [`Door::reload`]: new
//!   documents while serving, a failed one keeping its previous version.
//!
//! # Cargo features
//!
//! - `rustls` (on by default): TLS to upstreams through rustls.
//! - `native-tls` (off): TLS to upstreams through the platform library.
#![deny(missing_docs)]

mod bounded;
mod config;
mod credentials;
mod door;
mod envelope;
mod error;
mod forward;
mod health;
mod http;
mod metrics;
mod naming;
mod openapi;
mod ops;
mod projection;
mod refusal;
mod source;
mod upstream;

pub use config::{
    ConfigError, ConfigFile, DocumentFile, DocumentLocation, DocumentSpec, ReadinessFile,
    load_documents,
};
pub use credentials::{CREDENTIAL_HEADERS, Credentials};
pub use door::Reloaded;
pub use door::{Answer, Door, DoorConfig, UNAUTHORIZED, server_info};
pub use error::DoorError;
pub use health::{Readiness, ReadinessConfig};
pub use http::{DOOR_PATH, LEGACY_PATH, METADATA_PATH, router, serve};
pub use metrics::{METRICS_CONTENT_TYPE, Metrics};
pub use naming::VERBS;
pub use ops::{
    HEALTHZ_PATH, METRICS_PATH, OPENAPI_JSON_PATH, OPENAPI_YAML_PATH, READYZ_PATH, ops_router,
};
pub use projection::{
    DESCRIBE, META_REFUSED, META_SHORTENED, META_UNAVAILABLE, OpInfo, Projection, ProjectionConfig,
};
pub use refusal::{Refusal, RefusalRule};
pub use source::{MAX_DOCUMENT_BYTES, OpenApiSource, SourceOptions};

//! The door's operational routes, beside `POST /v1/mcp`:
//!
//! - `GET /healthz`: 200 while the process serves (liveness);
//! - `GET /readyz`: 200 when every document is loaded and every upstream
//!   answers its probe, else 503 ([`Door::readiness`]);
//! - `GET /metrics`: Prometheus metrics ([`crate::Metrics`]);
//! - `GET /openapi.json` and `GET /openapi.yaml`: the door in its own
//!   document (HIP-0300 §1.2, [`Projection::openapi_document`]).
//!
//! None of them needs a credential or reveals more than `tools/list`
//! does. The document and the readiness answer are built at most once per
//! projection and once per [`ReadinessConfig::reuse_for`](crate::ReadinessConfig)
//! respectively, so these unauthenticated routes cost little whatever the
//! request rate.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde_json::json;

use crate::door::Door;
use crate::health::Readiness;
use crate::metrics::METRICS_CONTENT_TYPE;
use crate::projection::Projection;

/// The liveness path.
pub const HEALTHZ_PATH: &str = "/healthz";
/// The readiness path.
pub const READYZ_PATH: &str = "/readyz";
/// The metrics path.
pub const METRICS_PATH: &str = "/metrics";
/// The door's own document, as JSON.
pub const OPENAPI_JSON_PATH: &str = "/openapi.json";
/// The door's own document, as YAML.
pub const OPENAPI_YAML_PATH: &str = "/openapi.yaml";

/// The routes' state: the door, and what is reused between requests.
struct Ops {
    door: Arc<Door>,
    /// The last document built: its projection and its JSON and YAML texts.
    document: Mutex<Option<Built>>,
    /// The last readiness answer and when it was checked.
    readiness: tokio::sync::Mutex<Option<(Instant, Readiness)>>,
}

struct Built {
    projection: Arc<Projection>,
    json: Bytes,
    yaml: Option<Bytes>,
}

/// The operational routes of `door` (listed in the module documentation),
/// to merge beside [`crate::router`]'s.
pub fn ops_router(door: Arc<Door>) -> Router {
    let state = Arc::new(Ops {
        door,
        document: Mutex::new(None),
        readiness: tokio::sync::Mutex::new(None),
    });
    Router::new()
        .route(HEALTHZ_PATH, get(healthz))
        .route(READYZ_PATH, get(readyz))
        .route(METRICS_PATH, get(metrics))
        .route(OPENAPI_JSON_PATH, get(openapi_json))
        .route(OPENAPI_YAML_PATH, get(openapi_yaml))
        .with_state(state)
}

fn text(status: StatusCode, content_type: &'static str, body: impl Into<Body>) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, HeaderValue::from_static(content_type))],
        body.into(),
    )
        .into_response()
}

async fn healthz() -> Response {
    text(
        StatusCode::OK,
        "application/json",
        json!({"status": "alive"}).to_string(),
    )
}

async fn readyz(State(ops): State<Arc<Ops>>) -> Response {
    let reuse_for = ops.door.config().readiness.reuse_for;
    let mut last = ops.readiness.lock().await;
    let fresh = last
        .as_ref()
        .filter(|(at, _)| at.elapsed() < reuse_for)
        .map(|(_, r)| r.clone());
    let readiness = match fresh {
        Some(r) => r,
        None => {
            let r = ops.door.readiness().await;
            *last = Some((Instant::now(), r.clone()));
            r
        }
    };
    drop(last);
    let status = if readiness.ready {
        StatusCode::OK
    } else {
        StatusCode::SERVICE_UNAVAILABLE
    };
    text(status, "application/json", readiness.body.to_string())
}

async fn metrics(State(ops): State<Arc<Ops>>) -> Response {
    text(
        StatusCode::OK,
        METRICS_CONTENT_TYPE,
        ops.door.metrics().render(),
    )
}

async fn openapi_json(State(ops): State<Arc<Ops>>) -> Response {
    let body = ops.document(false);
    text(StatusCode::OK, "application/json", body)
}

async fn openapi_yaml(State(ops): State<Arc<Ops>>) -> Response {
    let body = ops.document(true);
    text(StatusCode::OK, "application/yaml", body)
}

impl Ops {
    /// The current projection's document, as YAML or JSON text, built
    /// when the projection changed since the last one.
    fn document(&self, yaml: bool) -> Bytes {
        let projection = self.door.projection();
        let mut built = self.document.lock().unwrap_or_else(PoisonError::into_inner);
        let current = built
            .as_mut()
            .filter(|b| Arc::ptr_eq(&b.projection, &projection));
        let entry = match current {
            Some(entry) => entry,
            None => {
                let origin = self.door.config().origin.as_deref();
                let value = projection.openapi_document(origin);
                built.insert(Built {
                    projection: Arc::clone(&projection),
                    json: Bytes::from(value.to_string()),
                    yaml: None,
                })
            }
        };
        if !yaml {
            return entry.json.clone();
        }
        let json = &entry.json;
        entry
            .yaml
            .get_or_insert_with(|| {
                let value: serde_json::Value =
                    serde_json::from_slice(json).unwrap_or(serde_json::Value::Null);
                Bytes::from(serde_norway::to_string(&value).unwrap_or_default())
            })
            .clone()
    }
}

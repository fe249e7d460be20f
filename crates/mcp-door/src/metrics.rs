//! The door's Prometheus metrics (`GET /metrics`, OpenMetrics text format),
//! kept with the `prometheus-client` crate. Every label takes values from
//! a bounded set: JSON-RPC methods the door answers, tool and op names of
//! the current projection, upstream HTTP statuses, configured document
//! labels; anything else a caller sends is counted as `other`.
//!
//! | metric | type | labels |
//! |---|---|---|
//! | `mcp_door_requests_total` | counter | `method` (`tools/call`, ...; `other`), `tool` (the tool or op called, `other`; empty for other methods) |
//! | `mcp_door_forwarded_calls_total` | counter | `op`, `status` (the upstream's HTTP status, or `timeout`, `connect`, `failed`, `not_sent`) |
//! | `mcp_door_upstream_latency_seconds` | histogram | `tool` (the subsystem) |
//! | `mcp_door_document_load_errors_total` | counter | `source` (the document's path or URL) |
//! | `mcp_door_reloads_total` | counter | `result` (`ok`, `partial`: some document failed and its previous one is kept) |
//! | `mcp_door_offered_ops` | gauge | none: ops offered by the current projection |

use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::Arc;
use std::sync::atomic::AtomicI64;

use mcp_proto::methods::{CallTool, Initialize, ListTools, Method, Ping, ServerDiscover};
use prometheus_client::encoding::{EncodeLabelSet, EncodeLabelValue, LabelValueEncoder};
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;

/// The content type of [`Metrics::render`]'s text.
pub const METRICS_CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// A label value of the per-call metrics, made without copying text:
/// static, a name the projection shares, or an HTTP status. Compared and
/// hashed by its text.
#[derive(Debug, Clone)]
pub(crate) enum Label {
    /// Fixed text (`tools/call`, `other`, `timeout`, ...).
    Static(&'static str),
    /// A tool or op name of the projection.
    Shared(Arc<str>),
    /// An upstream's HTTP status (`200`).
    Status(reqwest::StatusCode),
}

impl Label {
    fn text(&self) -> &str {
        match self {
            Label::Static(text) => text,
            Label::Shared(text) => text,
            Label::Status(code) => code.as_str(),
        }
    }
}

impl PartialEq for Label {
    fn eq(&self, other: &Self) -> bool {
        self.text() == other.text()
    }
}

impl Eq for Label {}

impl Hash for Label {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.text().hash(state);
    }
}

impl fmt::Display for Label {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.text())
    }
}

impl EncodeLabelValue for Label {
    fn encode(&self, encoder: &mut LabelValueEncoder<'_>) -> Result<(), fmt::Error> {
        EncodeLabelValue::encode(&self.text(), encoder)
    }
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RequestLabels {
    method: Label,
    tool: Label,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ForwardLabels {
    op: Label,
    status: Label,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ToolLabels {
    tool: Label,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct SourceLabels {
    source: String,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ResultLabels {
    result: String,
}

type LatencyFamily = Family<ToolLabels, Histogram, fn() -> Histogram>;

/// One door's metrics and their registry (one per [`crate::Door`], so
/// several doors in one process count apart).
#[derive(Debug)]
pub struct Metrics {
    registry: Registry,
    requests: Family<RequestLabels, Counter>,
    forwarded: Family<ForwardLabels, Counter>,
    latency: LatencyFamily,
    load_errors: Family<SourceLabels, Counter>,
    reloads: Family<ResultLabels, Counter>,
    offered: Gauge<i64, AtomicI64>,
}

/// Upstream latency buckets: 0.5 ms doubling to about 33 s.
fn latency_histogram() -> Histogram {
    Histogram::new(exponential_buckets(0.0005, 2.0, 17))
}

impl Default for Metrics {
    fn default() -> Self {
        let mut registry = Registry::default();
        let requests = Family::<RequestLabels, Counter>::default();
        registry.register(
            "mcp_door_requests",
            "JSON-RPC requests answered, by method and tool",
            requests.clone(),
        );
        let forwarded = Family::<ForwardLabels, Counter>::default();
        registry.register(
            "mcp_door_forwarded_calls",
            "Calls forwarded to an upstream, by op and the upstream's HTTP status",
            forwarded.clone(),
        );
        let latency: LatencyFamily = Family::new_with_constructor(latency_histogram);
        registry.register(
            "mcp_door_upstream_latency_seconds",
            "Time from building a forwarded call's request to reading its answer, by tool",
            latency.clone(),
        );
        let load_errors = Family::<SourceLabels, Counter>::default();
        registry.register(
            "mcp_door_document_load_errors",
            "Documents that failed to load (at start or at a reload), by source",
            load_errors.clone(),
        );
        let reloads = Family::<ResultLabels, Counter>::default();
        registry.register(
            "mcp_door_reloads",
            "Reloads of the documents, by result",
            reloads.clone(),
        );
        let offered = Gauge::<i64, AtomicI64>::default();
        registry.register(
            "mcp_door_offered_ops",
            "Operations offered by the current projection",
            offered.clone(),
        );
        Metrics {
            registry,
            requests,
            forwarded,
            latency,
            load_errors,
            reloads,
            offered,
        }
    }
}

/// `method` when the door answers it, else `other`.
pub(crate) fn method_label(method: &str) -> &'static str {
    [
        Initialize::METHOD,
        Ping::METHOD,
        ServerDiscover::METHOD,
        ListTools::METHOD,
        CallTool::METHOD,
    ]
    .into_iter()
    .find(|m| *m == method)
    .unwrap_or("other")
}

impl Metrics {
    /// Counts one request; `tool` must come from a bounded set.
    pub(crate) fn request(&self, method: &str, tool: Label) {
        self.requests
            .get_or_create(&RequestLabels {
                method: Label::Static(method_label(method)),
                tool,
            })
            .inc();
    }

    /// Counts one forwarded call of `op` (of `tool`) that ended with
    /// `status` after `seconds`.
    pub(crate) fn forwarded(&self, op: Label, tool: Label, status: Label, seconds: f64) {
        self.forwarded
            .get_or_create(&ForwardLabels { op, status })
            .inc();
        self.latency
            .get_or_create(&ToolLabels { tool })
            .observe(seconds);
    }

    /// Counts one document that failed to load.
    pub(crate) fn load_error(&self, source: &str) {
        self.load_errors
            .get_or_create(&SourceLabels {
                source: source.to_owned(),
            })
            .inc();
    }

    /// Counts one reload; `complete` when every document loaded.
    pub(crate) fn reload(&self, complete: bool) {
        let result = if complete { "ok" } else { "partial" };
        self.reloads
            .get_or_create(&ResultLabels {
                result: result.to_owned(),
            })
            .inc();
    }

    /// Sets the number of offered ops.
    pub(crate) fn offered(&self, ops: usize) {
        self.offered.set(i64::try_from(ops).unwrap_or(i64::MAX));
    }

    /// The metrics in the OpenMetrics text format
    /// ([`METRICS_CONTENT_TYPE`]), which Prometheus reads.
    pub fn render(&self) -> String {
        let mut text = String::new();
        // Writing to a String cannot fail.
        let _ = prometheus_client::encoding::text::encode(&mut text, &self.registry);
        text
    }
}

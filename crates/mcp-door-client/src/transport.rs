//! One JSON-RPC request to the door over streamable HTTP (MCP 2026-07-28
//! transports; HIP-0300 §2.2): [`Transport`] sends it and retries once in
//! the door's revision when asked to. Each step has a module of its own:
//!
//! - `required_meta`: the `_meta` keys every request must carry, added to
//!   a params map, or spliced into a caller's `tools/call` params text;
//! - `post`: the POST, its body and headers, the bearer, the hops;
//! - `redirect`: which 3xx answers are followed, and where to;
//! - `answer`: a JSON or SSE answer read for the response to our id;
//! - `challenge`: a 401 read for its resource metadata URL, checked before
//!   it is relayed;
//! - `param_headers`: the `Mcp-Param-*` headers of a call and their values.

mod answer;
mod challenge;
mod param_headers;
mod post;
mod redirect;
mod required_meta;

use std::collections::HashMap;
use std::sync::RwLock;
use std::sync::atomic::AtomicI64;

use mcp_proto::param_header::ParamHeader;
use mcp_proto::{ErrorObject, error_code, meta};
use reqwest::Url;
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};
use tokio::sync::{OnceCell, mpsc};

use crate::bearer::Bearer;
use crate::config::{BearerSource, ClientInfo, DOOR_REVISION, DoorClientConfig};
use crate::error::DoorClientError;

pub(crate) use required_meta::CallParams;

/// What a request answered: the `result` member, or the `error` member.
pub(crate) type RpcOutcome = Result<Value, ErrorObject>;

/// What a forwarded call answered: the `result` member as the exact text
/// the door sent, or the `error` member.
pub(crate) type RawOutcome = Result<Box<RawValue>, ErrorObject>;

pub(crate) struct Transport {
    client: reqwest::Client,
    address: Url,
    origin: String,
    bearer_source: BearerSource,
    bearer: OnceCell<Option<Bearer>>,
    client_info: ClientInfo,
    max_redirects: usize,
    max_body_bytes: usize,
    next_id: AtomicI64,
    /// `x-mcp-header` annotations of the tools of the last list read, by
    /// tool name; a call of a tool not in it sends no `Mcp-Param-*` header.
    param_headers: RwLock<HashMap<String, Vec<ParamHeader>>>,
}

impl Transport {
    pub(crate) fn new(config: &DoorClientConfig) -> Result<Transport, DoorClientError> {
        let invalid = |reason: &str| DoorClientError::InvalidAddress {
            address: config.address.clone(),
            reason: reason.to_owned(),
        };
        let address = Url::parse(config.address.trim()).map_err(|e| invalid(&e.to_string()))?;
        if !matches!(address.scheme(), "http" | "https") {
            return Err(invalid("the scheme must be http or https"));
        }
        if address.host_str().is_none() {
            return Err(invalid("no host"));
        }
        crate::check_proxy_environment().map_err(DoorClientError::Proxy)?;
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .connect_timeout(config.timeouts.connect)
            .build()
            .map_err(|e| DoorClientError::Client(root_cause(&e)))?;
        Ok(Transport {
            client,
            origin: address.origin().ascii_serialization(),
            address,
            bearer_source: config.bearer.clone(),
            bearer: OnceCell::new(),
            client_info: config.client_info.clone(),
            max_redirects: config.max_redirects,
            max_body_bytes: config.max_body_bytes,
            next_id: AtomicI64::new(1),
            param_headers: RwLock::new(HashMap::new()),
        })
    }

    pub(crate) fn address(&self) -> &Url {
        &self.address
    }

    /// Replaces the `x-mcp-header` annotations used for `tools/call` with
    /// those of a list just read (tool name → its annotations).
    pub(crate) fn learn_param_headers(&self, headers: HashMap<String, Vec<ParamHeader>>) {
        *self
            .param_headers
            .write()
            .unwrap_or_else(|poisoned| poisoned.into_inner()) = headers;
    }

    /// The bearer for a request of `method`: [`Transport::bearer`], except
    /// that while a discovery with
    /// [`later_untrusted_dirs`](crate::BearerDiscovery::later_untrusted_dirs)
    /// has not run, a request other than `tools/call` gets what it finds
    /// without running a program (the folders it must avoid may not be
    /// known yet).
    pub(crate) async fn bearer_for(&self, method: &str) -> Option<Bearer> {
        if let BearerSource::Discover(discovery) = &self.bearer_source
            && discovery.later_untrusted_dirs.is_some()
            && method != "tools/call"
            && self.bearer.get().is_none()
        {
            let discovery = discovery.clone();
            return tokio::task::spawn_blocking(move || discovery.resolve_without_cli())
                .await
                .ok()
                .flatten();
        }
        self.bearer().await
    }

    /// The bearer, discovered on first use off the async threads.
    pub(crate) async fn bearer(&self) -> Option<Bearer> {
        self.bearer
            .get_or_init(|| async {
                match &self.bearer_source {
                    BearerSource::None => None,
                    BearerSource::Fixed(bearer) => Some(bearer.clone()),
                    BearerSource::Discover(discovery) => {
                        let discovery = discovery.clone();
                        // `hanzo auth token` runs only once the folders
                        // it must avoid are known.
                        let known = match &discovery.later_untrusted_dirs {
                            Some(later) => {
                                tokio::time::timeout(crate::bearer::LATER_DIRS_WAIT, later.ready())
                                    .await
                                    .is_ok()
                            }
                            None => true,
                        };
                        tokio::task::spawn_blocking(move || {
                            if known {
                                discovery.resolve()
                            } else {
                                discovery.resolve_without_cli()
                            }
                        })
                        .await
                        .ok()
                        .flatten()
                    }
                }
            })
            .await
            .clone()
    }

    /// Sends one request and reads its answer. `params` must already hold
    /// the required `_meta` (see [`Transport::add_required_meta`]).
    /// Progress notifications met on an SSE answer go to `progress`.
    ///
    /// An `UnsupportedProtocolVersionError` (-32022) whose `data.supported`
    /// lists [`DOOR_REVISION`] is retried once, in that revision, under a
    /// new request id (MCP 2026-07-28 basic/transports/streamable-http
    /// "Backward Compatibility": retry using the advertised `supported`
    /// versions); any other answer, and a second -32022, comes back as is.
    pub(crate) async fn request(
        &self,
        method: &str,
        mut params: Map<String, Value>,
        revision: &str,
        progress: Option<&mpsc::UnboundedSender<Value>>,
    ) -> Result<RpcOutcome, DoorClientError> {
        let text = |params: &Map<String, Value>| {
            serde_json::to_string(params).map_err(|e| DoorClientError::Http(e.to_string()))
        };
        let outcome = self
            .send_once(method, &text(&params)?, revision, None, progress)
            .await?;
        let outcome = match outcome {
            Err(error) if offers_door_revision(&error) => {
                if let Some(Value::Object(meta)) = params.get_mut("_meta") {
                    meta.insert(meta::PROTOCOL_VERSION.into(), json!(DOOR_REVISION));
                }
                self.send_once(method, &text(&params)?, DOOR_REVISION, None, progress)
                    .await?
            }
            other => other,
        };
        match outcome {
            Ok(result) => serde_json::from_str(result.get())
                .map(Ok)
                .map_err(|_| DoorClientError::Garbage("not JSON".into())),
            Err(error) => Ok(Err(error)),
        }
    }

    /// Forwards a `tools/call` (HIP-0300 §2.2): the body is
    /// `{"jsonrpc":"2.0","id":<n>,"method":"tools/call","params":<text>}`
    /// where the text is the caller's, byte for byte, with only the missing
    /// required `_meta` keys spliced in ([`Transport::read_call`]); headers
    /// as for every request, plus `Mcp-Name` and the `Mcp-Param-*` headers
    /// of the tool's `x-mcp-header` annotations. The answer's `result` comes
    /// back as the exact text the door sent.
    ///
    /// A -32022 answer offering [`DOOR_REVISION`] is retried once, as
    /// [`Transport::request`] does, with the `_meta` protocol version's
    /// value replaced by `"2026-07-28"` and nothing else changed.
    pub(crate) async fn call(
        &self,
        params: &CallParams<'_>,
        progress: Option<&mpsc::UnboundedSender<Value>>,
    ) -> Result<RawOutcome, DoorClientError> {
        let unfit = || DoorClientError::Http("the params could not be edited".into());
        let tool = Some((params.name.as_deref(), params.arguments));
        let (text, revision) = params.body_params(false).ok_or_else(unfit)?;
        let outcome = self
            .send_once(
                mcp_proto::methods::CallTool::NAME,
                &text,
                &revision,
                tool,
                progress,
            )
            .await?;
        match outcome {
            Err(error) if offers_door_revision(&error) => {
                let (text, revision) = params.body_params(true).ok_or_else(unfit)?;
                self.send_once(
                    mcp_proto::methods::CallTool::NAME,
                    &text,
                    &revision,
                    tool,
                    progress,
                )
                .await
            }
            other => Ok(other),
        }
    }
}

/// Whether `error` is an `UnsupportedProtocolVersionError` whose
/// `data.supported` lists the door's revision.
fn offers_door_revision(error: &ErrorObject) -> bool {
    error.code == error_code::UNSUPPORTED_PROTOCOL_VERSION
        && error
            .data
            .as_ref()
            .and_then(|data| data.get("supported"))
            .and_then(Value::as_array)
            .is_some_and(|supported| supported.iter().any(|v| v == DOOR_REVISION))
}

/// A `reqwest` error as one of ours, in one short line.
fn send_error(error: &reqwest::Error) -> DoorClientError {
    if error.is_connect() {
        DoorClientError::Connect(root_cause(error))
    } else if error.is_timeout() {
        DoorClientError::Http("timed out".into())
    } else {
        DoorClientError::Http(root_cause(error))
    }
}

/// The innermost cause's text: "Connection refused (os error 111)" rather
/// than a chain that repeats the URL.
fn root_cause(error: &(dyn std::error::Error + 'static)) -> String {
    let mut cause = error;
    while let Some(next) = cause.source() {
        cause = next;
    }
    cause.to_string().replace(['\n', '\r'], " ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_an_unsupported_version_error_offering_ours_is_retried() {
        let mut error = ErrorObject::new(-32022, "Unsupported protocol version");
        error.data = Some(json!({"supported": ["2026-07-28"], "requested": "2026-07-28"}));
        assert!(offers_door_revision(&error));
        error.data = Some(json!({"supported": ["2025-11-25"], "requested": "2026-07-28"}));
        assert!(!offers_door_revision(&error));
        let other = ErrorObject::new(-32602, "bad");
        assert!(!offers_door_revision(&other));
    }
}

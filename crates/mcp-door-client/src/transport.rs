//! One JSON-RPC request to the door over streamable HTTP (MCP 2026-07-28
//! transports; HIP-0300 §2.2): headers, redirects, 401, JSON or SSE answers.

use std::sync::atomic::{AtomicI64, Ordering};

use mcp_proto::ErrorObject;
use reqwest::header::{self, HeaderMap, HeaderValue};
use reqwest::{StatusCode, Url};
use serde_json::{Map, Value, json};
use tokio::sync::{OnceCell, mpsc};

use crate::bearer::Bearer;
use crate::config::{BearerSource, ClientInfo, DOOR_REVISION, DoorConfig};
use crate::error::DoorError;

/// `_meta` key of the request's protocol revision (MCP 2026-07-28).
pub(crate) const META_PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
/// `_meta` key of the client's capabilities (MCP 2026-07-28).
pub(crate) const META_CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
/// `_meta` key of the client's implementation (MCP 2026-07-28).
pub(crate) const META_CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";

/// What a request answered: the `result` member, or the `error` member.
pub(crate) type RpcOutcome = Result<Value, ErrorObject>;

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
}

impl Transport {
    pub(crate) fn new(config: &DoorConfig) -> Result<Transport, DoorError> {
        let invalid = |reason: &str| DoorError::InvalidAddress {
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
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .connect_timeout(config.timeouts.connect)
            .build()
            .map_err(|e| DoorError::Client(root_cause(&e)))?;
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
        })
    }

    pub(crate) fn address(&self) -> &Url {
        &self.address
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
                        tokio::task::spawn_blocking(move || discovery.resolve())
                            .await
                            .ok()
                            .flatten()
                    }
                }
            })
            .await
            .clone()
    }

    /// Adds the `_meta` keys revision 2026-07-28 requires to `params`, where
    /// they are missing; returns the revision the body now states.
    pub(crate) fn add_required_meta(&self, params: &mut Map<String, Value>) -> String {
        let meta = params
            .entry("_meta")
            .or_insert_with(|| Value::Object(Map::new()));
        if !meta.is_object() {
            *meta = Value::Object(Map::new());
        }
        let Value::Object(meta) = meta else {
            return DOOR_REVISION.to_owned();
        };
        meta.entry(META_PROTOCOL_VERSION)
            .or_insert_with(|| json!(DOOR_REVISION));
        meta.entry(META_CLIENT_CAPABILITIES)
            .or_insert_with(|| json!({}));
        meta.entry(META_CLIENT_INFO).or_insert_with(
            || json!({"name": self.client_info.name, "version": self.client_info.version}),
        );
        meta.get(META_PROTOCOL_VERSION)
            .and_then(Value::as_str)
            .unwrap_or(DOOR_REVISION)
            .to_owned()
    }

    /// Sends one request and reads its answer. `params` must already hold
    /// the required `_meta` (see [`Transport::add_required_meta`]).
    /// Progress notifications met on an SSE answer go to `progress`.
    pub(crate) async fn request(
        &self,
        method: &str,
        params: Map<String, Value>,
        revision: &str,
        progress: Option<&mpsc::UnboundedSender<Value>>,
    ) -> Result<RpcOutcome, DoorError> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let tool_name = if method == "tools/call" {
            params
                .get("name")
                .and_then(Value::as_str)
                .map(str::to_owned)
        } else {
            None
        };
        let body = serde_json::to_vec(&json!({
            "jsonrpc": "2.0",
            "id": id,
            "method": method,
            "params": params,
        }))
        .map_err(|e| DoorError::Http(e.to_string()))?;
        let mut headers = HeaderMap::new();
        headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
        headers.insert(
            header::ACCEPT,
            HeaderValue::from_static("application/json, text/event-stream"),
        );
        let text_header = |value: &str| {
            HeaderValue::from_str(value)
                .map_err(|_| DoorError::Http(format!("'{value}' cannot be sent as a header")))
        };
        headers.insert("mcp-protocol-version", text_header(revision)?);
        headers.insert("mcp-method", text_header(method)?);
        if let Some(name) = &tool_name {
            headers.insert("mcp-name", text_header(name)?);
        }
        let bearer = self.bearer().await;

        let mut url = self.address.clone();
        let mut hops = 0;
        loop {
            let mut request = self.client.post(url.clone()).headers(headers.clone());
            // The bearer goes only to the door's own origin (HIP-0300 §2.2).
            if let Some(bearer) = &bearer
                && url.origin().ascii_serialization() == self.origin
                && let Ok(mut value) =
                    HeaderValue::from_str(&format!("Bearer {}", bearer.expose_secret()))
            {
                value.set_sensitive(true);
                request = request.header(header::AUTHORIZATION, value);
            }
            let response = request
                .body(body.clone())
                .send()
                .await
                .map_err(|e| send_error(&e))?;
            let status = response.status();
            if matches!(
                status,
                StatusCode::TEMPORARY_REDIRECT | StatusCode::PERMANENT_REDIRECT
            ) {
                hops += 1;
                if hops > self.max_redirects {
                    return Err(DoorError::Redirect(format!(
                        "more than {} redirects",
                        self.max_redirects
                    )));
                }
                url = redirect_target(&url, response.headers())?;
                continue;
            }
            if status.is_redirection() {
                return Err(DoorError::Redirect(format!(
                    "HTTP {} would turn the POST into a GET",
                    status.as_u16()
                )));
            }
            return self.read_answer(&url, response, id, progress).await;
        }
    }

    async fn read_answer(
        &self,
        url: &Url,
        mut response: reqwest::Response,
        id: i64,
        progress: Option<&mpsc::UnboundedSender<Value>>,
    ) -> Result<RpcOutcome, DoorError> {
        let status = response.status();
        if status == StatusCode::UNAUTHORIZED {
            return Err(DoorError::Unauthorized {
                resource_metadata: resource_metadata(url, response.headers()),
            });
        }
        let content_type = response
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .map(|v| v.to_ascii_lowercase())
            .unwrap_or_default();
        let is_sse = content_type.starts_with("text/event-stream");
        if content_type.starts_with("text/html") {
            return Err(DoorError::Html {
                status: status.as_u16(),
            });
        }
        if is_sse && status.is_success() {
            return self.read_sse(&mut response, id, progress).await;
        }

        let body = self.read_body(&mut response).await?;
        let looks_html = body
            .iter()
            .find(|b| !b.is_ascii_whitespace())
            .is_some_and(|b| *b == b'<');
        if looks_html {
            return Err(DoorError::Html {
                status: status.as_u16(),
            });
        }
        match serde_json::from_slice::<Value>(&body) {
            Ok(message) => match outcome_for(message, id) {
                Some(outcome) => Ok(outcome),
                // A JSON body that is not our answer: on success that is
                // garbage; on an error status the status says more.
                None if status.is_success() => Err(DoorError::Garbage(
                    "no response with the request's id".into(),
                )),
                None => Err(DoorError::Status {
                    status: status.as_u16(),
                }),
            },
            Err(_) if status.is_success() => Err(DoorError::Garbage(if body.is_empty() {
                "empty body".into()
            } else {
                "not JSON".into()
            })),
            Err(_) => Err(DoorError::Status {
                status: status.as_u16(),
            }),
        }
    }

    async fn read_body(&self, response: &mut reqwest::Response) -> Result<Vec<u8>, DoorError> {
        let mut body = Vec::new();
        while let Some(chunk) = response.chunk().await.map_err(|e| send_error(&e))? {
            if body.len() + chunk.len() > self.max_body_bytes {
                return Err(DoorError::TooLarge(self.max_body_bytes));
            }
            body.extend_from_slice(&chunk);
        }
        Ok(body)
    }

    /// Reads a `text/event-stream` answer until the event that carries the
    /// response to `id`; progress notifications on the way go to `progress`.
    async fn read_sse(
        &self,
        response: &mut reqwest::Response,
        id: i64,
        progress: Option<&mpsc::UnboundedSender<Value>>,
    ) -> Result<RpcOutcome, DoorError> {
        let mut parser = mcp_proto::sse::SseParser::new();
        let mut read = 0usize;
        while let Some(chunk) = response.chunk().await.map_err(|e| send_error(&e))? {
            read += chunk.len();
            if read > self.max_body_bytes {
                return Err(DoorError::TooLarge(self.max_body_bytes));
            }
            for event in parser.feed(&chunk).into_iter().flatten() {
                let Ok(message) = serde_json::from_str::<Value>(&event.data) else {
                    continue;
                };
                if let Some(outcome) = outcome_for(message.clone(), id) {
                    return Ok(outcome);
                }
                if let Some(progress) = progress
                    && message.get("method").and_then(Value::as_str)
                        == Some("notifications/progress")
                    && let Some(params) = message.get("params")
                {
                    let _ = progress.send(params.clone());
                }
            }
        }
        Err(DoorError::Garbage(
            "the event stream ended without the response".into(),
        ))
    }
}

/// The outcome in `message` when it is a JSON-RPC response to `id`.
fn outcome_for(message: Value, id: i64) -> Option<RpcOutcome> {
    let Value::Object(mut message) = message else {
        return None;
    };
    if message.get("id") != Some(&json!(id)) {
        return None;
    }
    if let Some(result) = message.remove("result") {
        return Some(Ok(result));
    }
    let error = message.remove("error")?;
    let code = error.get("code").and_then(Value::as_i64)?;
    let text = error
        .get("message")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let mut object = ErrorObject::new(code, text);
    object.data = error.get("data").cloned();
    Some(Err(object))
}

/// The absolute URL a 307/308 points to.
fn redirect_target(current: &Url, headers: &HeaderMap) -> Result<Url, DoorError> {
    let location = headers
        .get(header::LOCATION)
        .and_then(|v| v.to_str().ok())
        .ok_or_else(|| DoorError::Redirect("no Location header".into()))?;
    let next = current
        .join(location)
        .map_err(|_| DoorError::Redirect("unusable Location header".into()))?;
    if !matches!(next.scheme(), "http" | "https") {
        return Err(DoorError::Redirect("Location is not an http(s) URL".into()));
    }
    Ok(next)
}

/// The resource metadata URL of a 401 (RFC 9728 §5.1): the
/// `resource_metadata` parameter of a `Bearer` challenge, else
/// `<origin>/.well-known/oauth-protected-resource`.
fn resource_metadata(url: &Url, headers: &HeaderMap) -> String {
    headers
        .get_all(header::WWW_AUTHENTICATE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find_map(challenge_parameter)
        .unwrap_or_else(|| {
            format!(
                "{}/.well-known/oauth-protected-resource",
                url.origin().ascii_serialization()
            )
        })
}

/// `resource_metadata` from one `WWW-Authenticate` value, quoted or not.
fn challenge_parameter(value: &str) -> Option<String> {
    let start = value.find("resource_metadata=")? + "resource_metadata=".len();
    let rest = &value[start..];
    let found = if let Some(quoted) = rest.strip_prefix('"') {
        &quoted[..quoted.find('"')?]
    } else {
        rest.split([',', ' ']).next()?
    };
    Url::parse(found).ok().map(|_| found.to_owned())
}

/// A `reqwest` error as one of ours, in one short line.
fn send_error(error: &reqwest::Error) -> DoorError {
    if error.is_connect() {
        DoorError::Connect(root_cause(error))
    } else if error.is_timeout() {
        DoorError::Http("timed out".into())
    } else {
        DoorError::Http(root_cause(error))
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
    fn challenge_parameter_reads_quoted_and_bare() {
        assert_eq!(
            challenge_parameter(
                r#"Bearer resource_metadata="https://api.hanzo.ai/.well-known/oauth-protected-resource""#
            ),
            Some("https://api.hanzo.ai/.well-known/oauth-protected-resource".to_owned())
        );
        assert_eq!(
            challenge_parameter(
                "Bearer realm=x, resource_metadata=https://a.example/m, error=invalid_token"
            ),
            Some("https://a.example/m".to_owned())
        );
        assert_eq!(challenge_parameter("Bearer"), None);
        assert_eq!(
            challenge_parameter(r#"Bearer resource_metadata="not a url""#),
            None
        );
    }

    #[test]
    fn outcome_matches_only_our_id() {
        let ok = json!({"jsonrpc":"2.0","id":7,"result":{"tools":[]}});
        assert_eq!(outcome_for(ok, 7), Some(Ok(json!({"tools":[]}))));
        let other = json!({"jsonrpc":"2.0","id":"7","result":{}});
        assert_eq!(outcome_for(other, 7), None);
        let error =
            json!({"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"bad","data":[1]}});
        let mut expected = ErrorObject::new(-32602, "bad");
        expected.data = Some(json!([1]));
        assert_eq!(outcome_for(error, 7), Some(Err(expected)));
    }
}

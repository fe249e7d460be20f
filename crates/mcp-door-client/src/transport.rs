//! One JSON-RPC request to the door over streamable HTTP (MCP 2026-07-28
//! transports; HIP-0300 §2.2): headers, redirects, 401, JSON or SSE answers.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::RwLock;
use std::sync::atomic::{AtomicI64, Ordering};

use mcp_proto::param_header::{self, ParamHeader};
use mcp_proto::{ErrorObject, error_code, meta};
use reqwest::header::{self, HeaderMap, HeaderValue};
use reqwest::{StatusCode, Url};
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};
use tokio::sync::{OnceCell, mpsc};

use crate::bearer::Bearer;
use crate::config::{BearerSource, ClientInfo, DOOR_REVISION, DoorConfig};
use crate::error::DoorError;
use crate::raw::{Edit, Object, Parsed, lossy_string, offset_in, splice};

/// What a request answered: the `result` member, or the `error` member.
pub(crate) type RpcOutcome = Result<Value, ErrorObject>;

/// What a forwarded call answered: the `result` member as the exact text
/// the door sent, or the `error` member.
pub(crate) type RawOutcome = Result<Box<RawValue>, ErrorObject>;

/// A caller's `tools/call` params (a JSON object text), read for what the
/// request needs without decoding the rest: the tool name, the arguments
/// (for `Mcp-Param-*` headers), and how to add the required `_meta`.
pub(crate) struct CallParams<'a> {
    /// The params exactly as the caller wrote them.
    text: &'a str,
    /// `name` when it is a string (lossy only for a lone surrogate escape).
    pub(crate) name: Option<String>,
    /// The `arguments` member, as written.
    arguments: Option<&'a RawValue>,
    /// The edit that adds the missing required `_meta` keys, if any.
    add_meta: Option<Edit>,
    /// Where the value of the caller's own `_meta` protocol version is.
    version_at: Option<(usize, usize)>,
}

impl<'a> CallParams<'a> {
    /// The params text sent to the door and the revision it states: the
    /// caller's text with [`CallParams::add_meta`] applied, and with
    /// `force_revision` the protocol version's value replaced by
    /// `"2026-07-28"` ([`DOOR_REVISION`]). `None` only if an edit does not
    /// fit the text, which reading it rules out.
    fn body_params(&self, force_revision: bool) -> Option<(Cow<'a, str>, String)> {
        let mut edits: Vec<Edit> = self.add_meta.iter().cloned().collect();
        let mut revision = DOOR_REVISION.to_owned();
        if let Some((start, end)) = self.version_at {
            let written = self.text.get(start..end)?;
            let door = format!("\"{DOOR_REVISION}\"");
            if force_revision && written != door {
                edits.push(Edit {
                    start,
                    end,
                    text: door,
                });
            } else if !force_revision {
                revision = serde_json::from_str::<String>(written)
                    .unwrap_or_else(|_| DOOR_REVISION.to_owned());
            }
        }
        Some((splice(self.text, &edits)?, revision))
    }
}

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

    /// The `_meta` members revision 2026-07-28 requires, as JSON text
    /// (`"name":value` pairs joined by `,`), in the order
    /// [`Transport::add_required_meta`] adds them, but only those `has`
    /// says are missing.
    fn required_meta_members(&self, has: impl Fn(&str) -> bool) -> String {
        let info = json!({"name": self.client_info.name, "version": self.client_info.version});
        let members = [
            (meta::PROTOCOL_VERSION, json!(DOOR_REVISION)),
            (meta::CLIENT_CAPABILITIES, json!({})),
            (meta::CLIENT_INFO, info),
        ];
        members
            .iter()
            .filter(|(name, _)| !has(name))
            .map(|(name, value)| format!("{}:{value}", json!(name)))
            .collect::<Vec<_>>()
            .join(",")
    }

    /// Reads a caller's `tools/call` params for forwarding (HIP-0300 §2.2):
    /// `name`, `arguments`, and the text edit that adds the `_meta` keys
    /// revision 2026-07-28 requires where they are missing — members
    /// appended to the caller's `_meta` object (after its last member), a
    /// `_meta` member appended to the params when there is none, or, when
    /// `_meta` is not an object, that value replaced by an object of the
    /// three (as [`Transport::add_required_meta`] does). With repeated
    /// names, the last one counts. Nothing else of the text changes.
    ///
    /// `None` when `params` is not a JSON object.
    pub(crate) fn read_call<'a>(&self, params: &'a RawValue) -> Option<CallParams<'a>> {
        let text = params.get();
        let Ok(Parsed::Object(object)) = Object::parse(text) else {
            return None;
        };
        let span = |value: &RawValue| {
            offset_in(text, value).map(|start| (start, start + value.get().len()))
        };
        // Where a member goes at the end of an object text starting at
        // `start`: after its last value, or just after its `{`.
        let append_at = |start: usize, members: &Object<'_>, member: String| {
            Some(match members.last_value() {
                Some(last) => (span(last)?.1, format!(",{member}")),
                None => (start + 1, member),
            })
        };
        let mut version_at = None;
        let add_meta = match object.get("_meta") {
            None => {
                let member = format!("\"_meta\":{{{}}}", self.required_meta_members(|_| false));
                let (at, text) = append_at(0, &object, member)?;
                Some(Edit {
                    start: at,
                    end: at,
                    text,
                })
            }
            Some(meta_value) => {
                let (start, end) = span(meta_value)?;
                match Object::parse(meta_value.get()) {
                    Ok(Parsed::Object(meta_members)) => {
                        if let Some(version) = meta_members.get(meta::PROTOCOL_VERSION) {
                            version_at = Some(span(version)?);
                        }
                        let missing = self.required_meta_members(|name| meta_members.has(name));
                        if missing.is_empty() {
                            None
                        } else {
                            let (at, text) = append_at(start, &meta_members, missing)?;
                            Some(Edit {
                                start: at,
                                end: at,
                                text,
                            })
                        }
                    }
                    _ => Some(Edit {
                        start,
                        end,
                        text: format!("{{{}}}", self.required_meta_members(|_| false)),
                    }),
                }
            }
        };
        Some(CallParams {
            text,
            name: object.get("name").and_then(lossy_string),
            arguments: object.get("arguments"),
            add_meta,
            version_at,
        })
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
        meta.entry(meta::PROTOCOL_VERSION)
            .or_insert_with(|| json!(DOOR_REVISION));
        meta.entry(meta::CLIENT_CAPABILITIES)
            .or_insert_with(|| json!({}));
        meta.entry(meta::CLIENT_INFO).or_insert_with(
            || json!({"name": self.client_info.name, "version": self.client_info.version}),
        );
        meta.get(meta::PROTOCOL_VERSION)
            .and_then(Value::as_str)
            .unwrap_or(DOOR_REVISION)
            .to_owned()
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
    ) -> Result<RpcOutcome, DoorError> {
        let text = |params: &Map<String, Value>| {
            serde_json::to_string(params).map_err(|e| DoorError::Http(e.to_string()))
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
                .map_err(|_| DoorError::Garbage("not JSON".into())),
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
    ) -> Result<RawOutcome, DoorError> {
        let unfit = || DoorError::Http("the params could not be edited".into());
        let tool = Some((params.name.as_deref(), params.arguments));
        let (text, revision) = params.body_params(false).ok_or_else(unfit)?;
        let outcome = self
            .send_once("tools/call", &text, &revision, tool, progress)
            .await?;
        match outcome {
            Err(error) if offers_door_revision(&error) => {
                let (text, revision) = params.body_params(true).ok_or_else(unfit)?;
                self.send_once("tools/call", &text, &revision, tool, progress)
                    .await
            }
            other => Ok(other),
        }
    }

    /// One POST (and its 307/308 hops) under a fresh request id. `params`
    /// is the params' JSON text, sent as it is; `tool` is, for a
    /// `tools/call`, the tool's name (for `Mcp-Name`) and its arguments
    /// (for `Mcp-Param-*`).
    async fn send_once(
        &self,
        method: &str,
        params: &str,
        revision: &str,
        tool: Option<(Option<&str>, Option<&RawValue>)>,
        progress: Option<&mpsc::UnboundedSender<Value>>,
    ) -> Result<RawOutcome, DoorError> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (tool_name, arguments) = tool.unwrap_or_default();
        let body = request_body(id, method, params)?;
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
        if let Some(name) = tool_name {
            headers.insert("mcp-name", text_header(name)?);
            self.insert_param_headers(&mut headers, name, arguments);
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
            return self
                .read_answer(&url, response, id, bearer.as_ref(), progress)
                .await;
        }
    }

    /// Adds `Mcp-Param-{name}` for each `x-mcp-header` annotation of
    /// `tool` whose argument is present and not `null` (MCP 2026-07-28
    /// streamable-http "Client Behavior"); values encoded by [`param_value`].
    /// Only the members on each annotation's path are read.
    fn insert_param_headers(
        &self,
        headers: &mut HeaderMap,
        tool: &str,
        arguments: Option<&RawValue>,
    ) {
        let known = self
            .param_headers
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let (Some(annotations), Some(arguments)) = (known.get(tool), arguments) else {
            return;
        };
        let Ok(Parsed::Object(top)) = Object::parse(arguments.get()) else {
            return;
        };
        for annotation in annotations {
            let Some(text) = argument_at(&top, &annotation.path).and_then(param_value) else {
                continue;
            };
            let name = annotation.header_name();
            if let (Ok(name), Ok(value)) = (
                header::HeaderName::from_bytes(name.as_bytes()),
                HeaderValue::from_str(&text),
            ) {
                headers.insert(name, value);
            }
        }
    }

    async fn read_answer(
        &self,
        url: &Url,
        mut response: reqwest::Response,
        id: i64,
        bearer: Option<&Bearer>,
        progress: Option<&mpsc::UnboundedSender<Value>>,
    ) -> Result<RawOutcome, DoorError> {
        let status = response.status();
        if status == StatusCode::UNAUTHORIZED {
            return Err(DoorError::Unauthorized {
                resource_metadata: resource_metadata(url, response.headers(), bearer),
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
        match Object::parse_slice(&body) {
            Ok(message) => match outcome_for(&message, id) {
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
    ) -> Result<RawOutcome, DoorError> {
        let mut parser = mcp_proto::sse::SseParser::new();
        let mut read = 0usize;
        while let Some(chunk) = response.chunk().await.map_err(|e| send_error(&e))? {
            read += chunk.len();
            if read > self.max_body_bytes {
                return Err(DoorError::TooLarge(self.max_body_bytes));
            }
            for event in parser.feed(&chunk).into_iter().flatten() {
                let Ok(Parsed::Object(message)) = Object::parse(&event.data) else {
                    continue;
                };
                if let Some(outcome) = outcome_of(&message, id) {
                    return Ok(outcome);
                }
                if let Some(progress) = progress
                    && message.get("method").and_then(lossy_string).as_deref()
                        == Some("notifications/progress")
                    && let Some(params) = message.get("params")
                    && let Ok(params) = serde_json::from_str::<Value>(params.get())
                {
                    let _ = progress.send(params);
                }
            }
        }
        Err(DoorError::Garbage(
            "the event stream ended without the response".into(),
        ))
    }
}

/// The request body: `{"jsonrpc":"2.0","id":<id>,"method":<method>,"params":<params>}`,
/// with `params` (JSON text) inserted as it is.
fn request_body(id: i64, method: &str, params: &str) -> Result<Vec<u8>, DoorError> {
    let method = serde_json::to_string(method).map_err(|e| DoorError::Http(e.to_string()))?;
    let mut body = Vec::with_capacity(params.len() + method.len() + 48);
    body.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
    body.extend_from_slice(id.to_string().as_bytes());
    body.extend_from_slice(br#","method":"#);
    body.extend_from_slice(method.as_bytes());
    body.extend_from_slice(br#","params":"#);
    body.extend_from_slice(params.as_bytes());
    body.push(b'}');
    Ok(body)
}

/// The member of `top` (a `tools/call`'s arguments) at `path`, a list of
/// member names from the arguments object down; `None` when a step is
/// missing or not an object.
fn argument_at<'a>(top: &Object<'a>, path: &[String]) -> Option<&'a RawValue> {
    let (first, rest) = path.split_first()?;
    let mut value = top.get(first)?;
    for name in rest {
        let Ok(Parsed::Object(members)) = Object::parse(value.get()) else {
            return None;
        };
        value = members.get(name)?;
    }
    Some(value)
}

/// The outcome in `message` when it is a JSON-RPC response to `id`: an
/// object whose `id` is the number `id` (written as an integer), with a
/// `result` member (its exact text, whatever its value, `null` included)
/// or else an `error` member with an integer `code`.
fn outcome_for(message: &Parsed<'_>, id: i64) -> Option<RawOutcome> {
    match message {
        Parsed::Object(members) => outcome_of(members, id),
        Parsed::Other => None,
    }
}

/// [`outcome_for`] of an object's members.
fn outcome_of(message: &Object<'_>, id: i64) -> Option<RawOutcome> {
    if message.get("id")?.get() != id.to_string() {
        return None;
    }
    if let Some(result) = message.get("result") {
        return Some(Ok(result.to_owned()));
    }
    let error = serde_json::from_str::<Value>(message.get("error")?.get()).ok()?;
    let code = error.get("code").and_then(Value::as_i64)?;
    let text = error
        .get("message")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let mut object = ErrorObject::new(code, text);
    object.data = error.get("data").cloned();
    Some(Err(object))
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

/// An argument (its JSON text) as an `Mcp-Param-*` header value (MCP
/// 2026-07-28 streamable-http "Value Encoding"): a string as is (a lone
/// surrogate escape as U+FFFD), a number as the caller spelled it (so an
/// integer in decimal), a boolean as `true`/`false`; `=?base64?…?=`
/// (standard Base64 of the UTF-8 text) when the text has a character
/// outside 0x20..=0x7E, leading or trailing whitespace, or looks like that
/// sentinel. `None` for `null`, objects and arrays (never mirrored).
pub(crate) fn param_value(value: &RawValue) -> Option<String> {
    let written = value.get();
    let text = match written.as_bytes().first()? {
        b'"' => lossy_string(value)?,
        b'-' | b'0'..=b'9' | b't' | b'f' => written.to_owned(),
        _ => return None,
    };
    if param_header::needs_base64(&text) {
        Some(format!(
            "{}{}{}",
            param_header::BASE64_PREFIX,
            base64(text.as_bytes()),
            param_header::BASE64_SUFFIX
        ))
    } else {
        Some(text)
    }
}

/// Standard Base64 (RFC 4648 §4) with padding.
fn base64(bytes: &[u8]) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(bytes)
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

/// Longest resource metadata URL relayed from a 401, in bytes.
const MAX_METADATA_URL_BYTES: usize = 2048;

/// The resource metadata URL of a 401 (RFC 9728 §5.1): the
/// `resource_metadata` parameter of a `Bearer` challenge when
/// [`check_metadata_url`] accepts it, else
/// `<origin>/.well-known/oauth-protected-resource` (HIP-0300 §2.2). The URL
/// ends up in a tool result and on stderr, so a refused one is replaced,
/// with one warning that does not show it.
fn resource_metadata(url: &Url, headers: &HeaderMap, bearer: Option<&Bearer>) -> String {
    let origin = url.origin().ascii_serialization();
    let fallback = format!("{origin}/.well-known/oauth-protected-resource");
    let offered = headers
        .get_all(header::WWW_AUTHENTICATE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find_map(challenge_parameter);
    let Some(offered) = offered else {
        return fallback;
    };
    match check_metadata_url(&offered, bearer) {
        Ok(()) => offered,
        Err(reason) => {
            tracing::warn!(
                door = %origin,
                "the door's 401 named a resource metadata URL that {reason}; naming {fallback} instead"
            );
            fallback
        }
    }
}

/// `resource_metadata` from one `WWW-Authenticate` value, quoted or not,
/// as the door wrote it (checked by [`check_metadata_url`]).
fn challenge_parameter(value: &str) -> Option<String> {
    let start = value.find("resource_metadata=")? + "resource_metadata=".len();
    let rest = &value[start..];
    let found = if let Some(quoted) = rest.strip_prefix('"') {
        &quoted[..quoted.find('"')?]
    } else {
        rest.split([',', ' ']).next()?
    };
    Some(found.to_owned())
}

/// Whether a door's resource metadata URL may be shown to the caller: at
/// most [`MAX_METADATA_URL_BYTES`], no control character, an absolute
/// `https` URL (`http` only for the loopback hosts `127.0.0.1`, `::1` and
/// `localhost`), no user name or password, and not holding the bearer,
/// as is or percent-encoded (a hostile door could reflect it). `Err` says
/// why, without repeating the URL.
fn check_metadata_url(offered: &str, bearer: Option<&Bearer>) -> Result<(), &'static str> {
    if offered.len() > MAX_METADATA_URL_BYTES {
        return Err("is longer than 2048 bytes");
    }
    if offered.chars().any(char::is_control) {
        return Err("holds a control character");
    }
    let parsed = Url::parse(offered).map_err(|_| "is not an absolute URL")?;
    // The parser writes hosts in canonical form: lower case, IPv6 in brackets.
    let loopback = matches!(parsed.host_str(), Some("127.0.0.1" | "[::1]" | "localhost"));
    match parsed.scheme() {
        "https" if parsed.host_str().is_some_and(|h| !h.is_empty()) => {}
        "http" if loopback => {}
        _ => return Err("is not an https URL (http only for a loopback host)"),
    }
    if !parsed.username().is_empty() || parsed.password().is_some() {
        return Err("carries a user name or password");
    }
    if let Some(bearer) = bearer {
        let secret = bearer.expose_secret();
        if offered.contains(secret) || percent_decode(offered).contains(secret) {
            return Err("holds the bearer");
        }
    }
    Ok(())
}

/// `text` with every `%XX` escape decoded (bytes that do not form UTF-8
/// become U+FFFD); a `%` not followed by two hex digits stays as it is.
fn percent_decode(text: &str) -> String {
    percent_encoding::percent_decode_str(text)
        .decode_utf8_lossy()
        .into_owned()
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
            Some("not a url".to_owned())
        );
    }

    #[test]
    fn metadata_urls_are_checked_before_they_are_relayed() {
        let bearer = Bearer::new("sk+tok/9=").expect("bearer");
        let check = |url: &str| check_metadata_url(url, Some(&bearer));
        assert_eq!(check("https://auth.example/.well-known/x"), Ok(()));
        assert_eq!(check("http://127.0.0.1:9/m"), Ok(()));
        assert_eq!(check("http://[::1]:9/m"), Ok(()));
        assert_eq!(check("http://LocalHost/m"), Ok(()));
        let not_https = Err("is not an https URL (http only for a loopback host)");
        assert_eq!(check("http://auth.example/m"), not_https);
        assert_eq!(check("http://127.0.0.2/m"), not_https);
        assert_eq!(check("javascript:alert(1)"), not_https);
        assert_eq!(check("file:///etc/passwd"), not_https);
        assert_eq!(check("not a url"), Err("is not an absolute URL"));
        assert_eq!(check("/relative/path"), Err("is not an absolute URL"));
        assert_eq!(
            check("https://a.example/\tx"),
            Err("holds a control character")
        );
        let long = format!("https://a.example/{}", "a".repeat(2048));
        assert_eq!(check(&long), Err("is longer than 2048 bytes"));
        let longest = format!("https://a.example/{}", "a".repeat(2048 - 18));
        assert_eq!(longest.len(), 2048);
        assert_eq!(check(&longest), Ok(()));
        assert_eq!(
            check("https://user:pw@a.example/m"),
            Err("carries a user name or password")
        );
        assert_eq!(
            check("https://a.example/m?t=sk+tok/9="),
            Err("holds the bearer")
        );
        assert_eq!(
            check("https://a.example/m?t=sk%2Btok%2F9%3D"),
            Err("holds the bearer")
        );
        assert_eq!(
            check("https://a.example/m?t=%73k%2btok%2f9%3d"),
            Err("holds the bearer")
        );
        assert_eq!(check("https://a.example/sk+tok"), Ok(()));
        assert_eq!(
            check_metadata_url("https://a.example/m?t=sk+tok/9=", None),
            Ok(())
        );
    }

    #[test]
    fn percent_decode_decodes_only_whole_escapes() {
        assert_eq!(percent_decode("a%2Fb%2fc"), "a/b/c");
        assert_eq!(percent_decode("100%"), "100%");
        assert_eq!(percent_decode("%+f%zz%4"), "%+f%zz%4");
        assert_eq!(percent_decode("%E4%B8%96"), "世");
        assert_eq!(percent_decode("%FF"), "\u{FFFD}");
    }

    #[test]
    fn a_refused_metadata_url_falls_back_to_the_origin() {
        let url = Url::parse("http://127.0.0.1:4000/v1/mcp").expect("url");
        let bearer = Bearer::new("sk-secret").expect("bearer");
        let mut headers = HeaderMap::new();
        let mut answer = |value: &'static str| {
            headers.insert(header::WWW_AUTHENTICATE, HeaderValue::from_static(value));
            resource_metadata(&url, &headers, Some(&bearer))
        };
        let fallback = "http://127.0.0.1:4000/.well-known/oauth-protected-resource";
        assert_eq!(
            answer(r#"Bearer resource_metadata="https://evil.example/?k=sk-secret""#),
            fallback
        );
        assert_eq!(
            answer(r#"Bearer resource_metadata="javascript:x""#),
            fallback
        );
        assert_eq!(answer("Bearer"), fallback);
        assert_eq!(
            answer(r#"Bearer resource_metadata="https://auth.example/m""#),
            "https://auth.example/m"
        );
    }

    /// [`outcome_for`] of a message text, the result as its text.
    fn outcome(message: &str, id: i64) -> Option<Result<String, ErrorObject>> {
        let parsed = Object::parse(message).expect("JSON");
        outcome_for(&parsed, id).map(|outcome| outcome.map(|raw| raw.get().to_owned()))
    }

    #[test]
    fn outcome_matches_only_our_id() {
        let ok = r#"{"jsonrpc":"2.0","id":7,"result":{"tools":[]}}"#;
        assert_eq!(outcome(ok, 7), Some(Ok(r#"{"tools":[]}"#.to_owned())));
        for other in [r#""7""#, "7.0", "7e0", "8", "null"] {
            let message = format!(r#"{{"jsonrpc":"2.0","id":{other},"result":{{}}}}"#);
            assert_eq!(outcome(&message, 7), None, "{other}");
        }
        assert_eq!(outcome(r#"{"jsonrpc":"2.0","result":{}}"#, 7), None);
        assert_eq!(outcome("[7]", 7), None);
        let error =
            r#"{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"bad","data":[1]}}"#;
        let mut expected = ErrorObject::new(-32602, "bad");
        expected.data = Some(json!([1]));
        assert_eq!(outcome(error, 7), Some(Err(expected)));
        let no_code = r#"{"jsonrpc":"2.0","id":7,"error":{"message":"bad"}}"#;
        assert_eq!(outcome(no_code, 7), None);
    }

    #[test]
    fn a_result_comes_back_as_written_null_and_repeats_included() {
        let exact = r#"{"id":3,"result": {"n":12345678901234567890123,"z":-0,"e":1E2,"s":"\u00e9\ud800"} }"#;
        assert_eq!(
            outcome(exact, 3),
            Some(Ok(
                r#"{"n":12345678901234567890123,"z":-0,"e":1E2,"s":"\u00e9\ud800"}"#.to_owned()
            ))
        );
        assert_eq!(
            outcome(r#"{"id":3,"result":null}"#, 3),
            Some(Ok("null".to_owned()))
        );
        assert_eq!(
            outcome(r#"{"id":3,"result":1,"result":[2]}"#, 3),
            Some(Ok("[2]".to_owned()))
        );
    }

    #[test]
    fn request_bodies_hold_the_params_text_unchanged() {
        let body = request_body(12, "tools/call", r#"{"b":1, "a":-0}"#).expect("body");
        assert_eq!(
            String::from_utf8(body).expect("UTF-8"),
            r#"{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"b":1, "a":-0}}"#
        );
    }

    #[test]
    fn arguments_are_found_along_their_path() {
        let text = r#"{"region":"eu","target":{"tenant":" acme ","n":{"k":1E2}},"flat":3}"#;
        let Ok(Parsed::Object(top)) = Object::parse(text) else {
            panic!("an object");
        };
        let at = |path: &[&str]| {
            let path: Vec<String> = path.iter().map(|s| (*s).to_owned()).collect();
            argument_at(&top, &path).map(|raw| raw.get().to_owned())
        };
        assert_eq!(at(&["region"]).as_deref(), Some(r#""eu""#));
        assert_eq!(at(&["target", "tenant"]).as_deref(), Some(r#"" acme ""#));
        assert_eq!(at(&["target", "n", "k"]).as_deref(), Some("1E2"));
        assert_eq!(at(&["flat", "x"]), None);
        assert_eq!(at(&["missing"]), None);
        assert_eq!(at(&[]), None);
    }

    fn param_value(value: Value) -> Option<String> {
        let raw = RawValue::from_string(value.to_string()).expect("raw");
        super::param_value(&raw)
    }

    fn raw(text: &str) -> Box<RawValue> {
        RawValue::from_string(text.to_owned()).expect("raw")
    }

    #[test]
    fn param_values_keep_number_spellings_and_read_lone_surrogates_lossily() {
        assert_eq!(super::param_value(&raw("1E2")).as_deref(), Some("1E2"));
        assert_eq!(super::param_value(&raw("-0")).as_deref(), Some("-0"));
        assert_eq!(
            super::param_value(&raw("12345678901234567890123")).as_deref(),
            Some("12345678901234567890123")
        );
        assert_eq!(
            super::param_value(&raw(r#""a\ud800""#)).as_deref(),
            Some("=?base64?Ye+/vQ==?=")
        );
        assert_eq!(
            super::param_value(&raw(r#""\u0041""#)).as_deref(),
            Some("A")
        );
        assert_eq!(super::param_value(&raw("[1]")), None);
    }

    #[test]
    fn param_values_follow_the_spec_encoding_table() {
        // MCP 2026-07-28 streamable-http "Value Encoding" examples.
        assert_eq!(param_value(json!("us-west1")).as_deref(), Some("us-west1"));
        assert_eq!(
            param_value(json!("Hello, 世界")).as_deref(),
            Some("=?base64?SGVsbG8sIOS4lueVjA==?=")
        );
        assert_eq!(
            param_value(json!(" padded ")).as_deref(),
            Some("=?base64?IHBhZGRlZCA=?=")
        );
        assert_eq!(
            param_value(json!("line1\nline2")).as_deref(),
            Some("=?base64?bGluZTEKbGluZTI=?=")
        );
        assert_eq!(
            param_value(json!("=?base64?literal?=")).as_deref(),
            Some("=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=")
        );
        assert_eq!(param_value(json!(42)).as_deref(), Some("42"));
        assert_eq!(param_value(json!(-7)).as_deref(), Some("-7"));
        assert_eq!(param_value(json!(false)).as_deref(), Some("false"));
        assert_eq!(param_value(json!("")).as_deref(), Some(""));
        assert_eq!(
            param_value(json!("us west 1")).as_deref(),
            Some("us west 1")
        );
        assert_eq!(param_value(json!(null)), None);
        assert_eq!(param_value(json!({"a": 1})), None);
    }

    #[test]
    fn base64_pads_each_length() {
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foo"), "Zm9v");
        assert_eq!(base64(b"foob"), "Zm9vYg==");
    }

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

//! Forwarding (HIP-0300 §1.6): a call becomes its operation's REST request,
//! sent to the operation's upstream with the caller's credential headers;
//! the REST answer becomes the tool result.

use std::borrow::Cow;
use std::time::Duration;

use hyper::body::Bytes;
use mcp_proto::{CallToolResult, ContentBlock, JsonObject};
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue};
use serde_json::{Value, json};

use crate::credentials::Credentials;
use crate::metrics::Label;
use crate::openapi::{Body, Location};
use crate::projection::OpEntry;
use crate::upstream::{Outgoing, Received, SendError, Upstreams};

/// Everything but RFC 3986 unreserved characters is escaped in a path
/// segment or a query component, so `/`, `?`, `#`, `&` and spaces in a
/// value stay inside it.
const COMPONENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// Header names never taken from a call's input: the credential headers
/// (the caller's own are sent instead) and those the HTTP client owns.
const RESERVED_HEADERS: [&str; 8] = [
    "authorization",
    "x-authorization",
    "cookie",
    "host",
    "content-length",
    "transfer-encoding",
    "connection",
    "content-type",
];

/// Bounds on one forwarded call.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits {
    pub timeout: Duration,
    pub max_body_bytes: usize,
    pub max_error_body_bytes: usize,
}

/// How a forwarded call ended, for the metrics: the upstream's HTTP
/// status, or why there was none.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// The upstream answered with this status.
    Status(reqwest::StatusCode),
    /// The request could not be built from the input; nothing was sent.
    NotSent,
    /// No answer within the time limit.
    Timeout,
    /// No connection to the upstream.
    Connect,
    /// The exchange failed otherwise.
    Failed,
}

impl Outcome {
    /// The `status` label: `200`, `timeout`, `connect`, `failed`, `not_sent`.
    pub(crate) fn label(self) -> Label {
        match self {
            Outcome::Status(code) => Label::Status(code),
            Outcome::NotSent => Label::Static("not_sent"),
            Outcome::Timeout => Label::Static("timeout"),
            Outcome::Connect => Label::Static("connect"),
            Outcome::Failed => Label::Static("failed"),
        }
    }
}

/// A failed call as a tool result (`isError: true`, one text block).
fn failure(text: String) -> CallToolResult {
    CallToolResult::error(text)
}

/// The text of a string (borrowed), number or boolean; `None` for
/// anything else.
fn scalar(v: &Value) -> Option<Cow<'_, str>> {
    match v {
        Value::String(s) => Some(Cow::Borrowed(s)),
        Value::Number(n) => Some(Cow::Owned(n.to_string())),
        Value::Bool(b) => Some(Cow::Borrowed(if *b { "true" } else { "false" })),
        _ => None,
    }
}

/// The request `entry` makes from `input`, or the reason it cannot be made.
fn build(
    entry: &OpEntry,
    input: &JsonObject,
    credentials: &Credentials,
) -> Result<Outgoing, String> {
    let op = &entry.name;
    let (Some(base), Some(upstream)) = (&entry.upstream, &entry.upstream_url) else {
        return Err(format!(
            "op {op} cannot be called: its document names no upstream URL"
        ));
    };
    let path = fill_path(&entry.path, input).map_err(|e| format!("op {op}: {e}"))?;
    let mut headers = HeaderMap::new();
    headers.insert(ACCEPT, HeaderValue::from_static("application/json"));
    let query = params_into(entry, input, &mut headers)?;
    let mut url = String::with_capacity(base.len() + path.len() + query.len());
    url.push_str(base);
    url.push_str(&path);
    url.push_str(&query);
    let url = confined(upstream, &url).map_err(|e| format!("op {op}: {e}; nothing was sent"))?;
    credentials.apply(&mut headers);

    let method = method(entry.method).ok_or_else(|| format!("op {op}: bad method"))?;
    let body = match &entry.body {
        Some(body) => with_body(&mut headers, entry, body, input)?,
        None => None,
    };
    Ok(Outgoing {
        method,
        url,
        headers,
        body,
    })
}

/// The HTTP method named `name` (a document's `get`, `post`, ...), any
/// case; `None` when it is no method.
fn method(name: &str) -> Option<reqwest::Method> {
    use reqwest::Method;
    // The common ones without an upper-case copy.
    Some(match name {
        "get" => Method::GET,
        "post" => Method::POST,
        "put" => Method::PUT,
        "patch" => Method::PATCH,
        "delete" => Method::DELETE,
        "head" => Method::HEAD,
        "options" => Method::OPTIONS,
        "trace" => Method::TRACE,
        _ => return Method::from_bytes(name.to_ascii_uppercase().as_bytes()).ok(),
    })
}

/// `url` parsed, when it stays inside the `upstream` base: the same
/// scheme, userinfo, host and port, and a path under the base's path by
/// whole segments, as the URL parser resolves it (dot segments, `%2e`
/// included, already applied). Whatever a document's path or a caller's
/// value holds, a request that would go elsewhere, and the caller's
/// credentials with it, is never sent.
fn confined(upstream: &reqwest::Url, url: &str) -> Result<reqwest::Url, String> {
    let built = reqwest::Url::parse(url).map_err(|e| format!("the request URL is bad: {e}"))?;
    let prefix = upstream.path().trim_end_matches('/');
    let path = built.path();
    let under = path == prefix
        || path
            .strip_prefix(prefix)
            .is_some_and(|rest| rest.starts_with('/'));
    let same = built.scheme() == upstream.scheme()
        && built.username() == upstream.username()
        && built.password() == upstream.password()
        && built.host() == upstream.host()
        && built.port_or_known_default() == upstream.port_or_known_default();
    if same && under {
        Ok(built)
    } else {
        Err(format!(
            "the request would leave the upstream {upstream} (its scheme, host, port or base path)"
        ))
    }
}

/// Sends the query and header parameters of `entry` found in `input`: the
/// header ones go into `headers`, the query string (`?a=1&b=2`, empty when
/// there is none) is returned. A required one missing is an error; path
/// parameters are [`fill_path`]'s.
fn params_into(
    entry: &OpEntry,
    input: &JsonObject,
    headers: &mut HeaderMap,
) -> Result<String, String> {
    let op = &entry.name;
    let mut query = Query::default();
    for p in &entry.params {
        let value = input.get(&p.name).filter(|v| !v.is_null());
        let Some(value) = value else {
            if p.required && p.location != Location::Path {
                return Err(format!("op {op}: missing required input {:?}", p.name));
            }
            continue;
        };
        match p.location {
            Location::Path => {}
            Location::Query => query.push_value(&p.name, value),
            Location::Header => {
                if let Some((name, value)) = header(op, &p.name, value)? {
                    headers.insert(name, value);
                }
            }
        }
    }
    Ok(query.0)
}

/// A query string being built: `?` before the first pair, `&` between,
/// names and values escaped.
#[derive(Default)]
struct Query(String);

impl Query {
    fn push(&mut self, name: &str, value: &str) {
        self.0.push(if self.0.is_empty() { '?' } else { '&' });
        self.0.extend(utf8_percent_encode(name, COMPONENT));
        self.0.push('=');
        self.0.extend(utf8_percent_encode(value, COMPONENT));
    }

    /// One pair per item of an array (the form OpenAPI's default `explode`
    /// gives), an object as its JSON text, a scalar as itself.
    fn push_value(&mut self, name: &str, value: &Value) {
        match value {
            Value::Array(items) => {
                for item in items {
                    let text = scalar(item).unwrap_or_else(|| Cow::Owned(item.to_string()));
                    self.push(name, &text);
                }
            }
            Value::Object(_) => self.push(name, &value.to_string()),
            other => self.push(name, &scalar(other).unwrap_or_default()),
        }
    }
}

/// The header a header parameter named `name` sends for `value`; `None`
/// for a [reserved](RESERVED_HEADERS) name.
fn header(
    op: &str,
    name: &str,
    value: &Value,
) -> Result<Option<(HeaderName, HeaderValue)>, String> {
    let lower = name.to_ascii_lowercase();
    if RESERVED_HEADERS.contains(&lower.as_str()) {
        return Ok(None);
    }
    let text = scalar(value).unwrap_or_else(|| Cow::Owned(value.to_string()));
    let header_name = HeaderName::from_bytes(lower.as_bytes())
        .map_err(|_| format!("op {op}: {name:?} is not a header name"))?;
    let header_value = HeaderValue::from_str(&text)
        .map_err(|_| format!("op {op}: input {name:?} is not a header value"))?;
    Ok(Some((header_name, header_value)))
}

/// The body `input` holds for `entry`: its body member, or (for a body
/// merged into the input) the members no parameter takes, `None` when
/// there are none and the body is optional.
fn body_value(entry: &OpEntry, body: &Body, input: &JsonObject) -> Option<Value> {
    match &entry.body_field {
        Some(field) => input.get(field).cloned(),
        None => {
            let rest: JsonObject = input
                .iter()
                .filter(|(k, _)| !entry.params.iter().any(|p| &p.name == *k))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            (!rest.is_empty() || body.required).then_some(Value::Object(rest))
        }
    }
}

/// The body `input` holds for `entry`, its content type set in `headers`:
/// a string as is for a non-JSON body, anything else as JSON; `None` when
/// there is none.
fn with_body(
    headers: &mut HeaderMap,
    entry: &OpEntry,
    body: &Body,
    input: &JsonObject,
) -> Result<Option<Bytes>, String> {
    match body_value(entry, body, input) {
        Some(Value::String(text)) if !body.content_type.contains("json") => {
            let ct = HeaderValue::from_str(&body.content_type)
                .unwrap_or(HeaderValue::from_static("text/plain"));
            headers.insert(CONTENT_TYPE, ct);
            Ok(Some(Bytes::from(text)))
        }
        Some(v) => {
            let ct = if body.content_type.contains("json") {
                HeaderValue::from_str(&body.content_type)
                    .unwrap_or(HeaderValue::from_static("application/json"))
            } else {
                HeaderValue::from_static("application/json")
            };
            headers.insert(CONTENT_TYPE, ct);
            Ok(Some(Bytes::from(v.to_string())))
        }
        None if body.required => {
            let what = entry.body_field.as_deref().unwrap_or("request body");
            Err(format!(
                "op {}: missing required input {what:?}",
                entry.name
            ))
        }
        None => Ok(None),
    }
}

/// The path template with each `{name}` replaced by the escaped input
/// member of that name. A value that makes a whole path segment `.` or
/// `..` is refused: URL normalization would turn the path into another
/// operation's, or one outside the upstream's base path.
fn fill_path(template: &str, input: &JsonObject) -> Result<String, String> {
    let path = substitute(template, input)?;
    match path
        .split('/')
        .find(|segment| matches!(*segment, "." | ".."))
    {
        Some(segment) => Err(format!(
            "a path parameter makes the path segment {segment:?}, which would leave the \
             operation's path"
        )),
        None => Ok(path),
    }
}

/// Whether `value`, a path parameter's text, holds a dot segment in any
/// spelling an upstream may read it as. The value is sent as one encoded
/// segment (`../x` as `..%2Fx`), which the door's URL check sees as one
/// harmless segment; but upstreams that decode `%2F` before resolving dot
/// segments (many servers and proxies do) would climb out of the
/// upstream's base path with the caller's credentials. So dot segments
/// are looked for as written and after each round of decoding (`%XX`, and
/// IIS's `%uXXXX`; until nothing changes, past [`MAX_DECODING_ROUNDS`] the
/// text is refused), between `/` and `\` alike, each segment read as the
/// laxest upstream reads it ([`dot_like`]).
fn holds_dot_segment(value: &str) -> bool {
    let dotted = |text: &str| text.split(['/', '\\']).any(dot_like);
    // Without a dot, a dot's look-alike or an escape no spelling of a dot
    // segment is possible.
    if !value.contains(['.', '%', '\u{2024}', '\u{2025}', '\u{FE52}', '\u{FF0E}']) {
        return false;
    }
    let mut text = value.to_owned();
    for _ in 0..MAX_DECODING_ROUNDS {
        if dotted(&text) {
            return true;
        }
        let decoded =
            decode_percent_u(&percent_encoding::percent_decode_str(&text).decode_utf8_lossy());
        if decoded == text {
            return false;
        }
        text = decoded;
    }
    // Still changing: no value means that many layers of escapes.
    true
}

/// Whether `segment` is `.` or `..` to some upstream: read up to its first
/// `;`, `?` or `#` (servers that strip parameters, or split the query off
/// after decoding), without tabs and line breaks (URL parsers drop them),
/// the look-alikes Unicode normalization turns into dots (`‥`, `．`) read
/// as dots, and spaces and control characters at its ends dropped; then
/// nothing but dots, and spaces between them (Windows drops trailing dots
/// and spaces: `...` and `. .` are `.` or `..` there).
fn dot_like(segment: &str) -> bool {
    let head = segment.split([';', '?', '#']).next().unwrap_or("");
    let mut dots = 0;
    let mut text = String::with_capacity(head.len());
    for c in head.chars().filter(|c| !matches!(c, '\t' | '\n' | '\r')) {
        match c {
            '.' | '\u{FE52}' | '\u{FF0E}' | '\u{2024}' => {
                dots += 1;
                text.push('.');
            }
            '\u{2025}' => {
                dots += 2;
                text.push_str("..");
            }
            other => text.push(other),
        }
    }
    let trimmed = text.trim_matches(|c: char| c == ' ' || c.is_control());
    dots > 0 && !trimmed.is_empty() && trimmed.chars().all(|c| c == '.' || c == ' ')
}

/// `text` with IIS's `%uXXXX` escapes decoded (an escape naming no
/// character is kept as written).
fn decode_percent_u(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("%u").into_iter().chain(rest.find("%U")).min() {
        out.push_str(&rest[..at]);
        let hex = rest
            .get(at + 2..at + 6)
            .filter(|h| h.chars().all(|c| c.is_ascii_hexdigit()));
        match hex
            .and_then(|h| u32::from_str_radix(h, 16).ok())
            .and_then(char::from_u32)
        {
            Some(c) => {
                out.push(c);
                rest = &rest[at + 6..];
            }
            None => {
                out.push_str(&rest[at..at + 2]);
                rest = &rest[at + 2..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// How many rounds of percent-decoding [`holds_dot_segment`] follows; a
/// text that still decodes to something new after them is refused.
const MAX_DECODING_ROUNDS: usize = 16;

/// [`fill_path`] without the dot-segment check.
fn substitute(template: &str, input: &JsonObject) -> Result<String, String> {
    let mut out = String::with_capacity(template.len());
    // The path as an upstream that decodes it reads it: two values side
    // by side (`/{name}{ext}`) can make together what neither holds.
    let mut decoded = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        let Some(close) = rest[open..].find('}') else {
            break;
        };
        out.push_str(&rest[..open]);
        decoded.push_str(&rest[..open]);
        let name = &rest[open + 1..open + close];
        let value = input
            .get(name)
            .ok_or_else(|| format!("missing required input {name:?} (a path parameter)"))?;
        let text = scalar(value)
            .ok_or_else(|| format!("input {name:?} must be a string, number or boolean"))?;
        if text.is_empty() {
            return Err(format!("input {name:?} is empty (a path parameter)"));
        }
        // Tabs, line breaks, NUL: dropped or cut at by some upstreams'
        // URL readers, so `..\t` would be `..` there.
        if text.chars().any(char::is_control) {
            return Err(format!(
                "input {name:?} holds a control character, which a path parameter cannot"
            ));
        }
        if holds_dot_segment(&text) {
            return Err(format!(
                "input {name:?} holds a dot segment (\".\" or \"..\" between slashes, as \
                 written or percent-decoded), which an upstream that decodes it would resolve \
                 outside the operation's path"
            ));
        }
        out.extend(utf8_percent_encode(&text, COMPONENT));
        decoded.push_str(&text);
        rest = &rest[open + close + 1..];
    }
    out.push_str(rest);
    decoded.push_str(rest);
    if holds_dot_segment(&decoded) {
        return Err(
            "the path parameters together make a dot segment (\".\" or \"..\" between \
             slashes, as written or percent-decoded), which an upstream that decodes the path \
             would resolve outside the operation's path"
                .to_owned(),
        );
    }
    Ok(out)
}

/// Sends `entry`'s request built from `input` and turns the answer into a
/// tool result: JSON as text and `structuredContent`, an HTTP error status
/// as `isError` with status and capped body, a timeout or connection
/// failure as `isError` naming it; with how it ended.
pub(crate) async fn call(
    upstreams: &Upstreams,
    entry: &OpEntry,
    input: &JsonObject,
    credentials: &Credentials,
    limits: Limits,
) -> (CallToolResult, Outcome) {
    let outgoing = match build(entry, input, credentials) {
        Ok(r) => r,
        Err(e) => return (failure(e), Outcome::NotSent),
    };
    let what = What(entry);
    let sent = upstreams
        .send(outgoing, limits.timeout, limits.max_body_bytes)
        .await;
    let received = match sent {
        Ok(received) => received,
        Err(SendError::Timeout) => return (failure(no_answer(what, limits)), Outcome::Timeout),
        Err(SendError::Connect) => {
            let text = format!("{what}: cannot connect to the upstream");
            return (failure(text), Outcome::Connect);
        }
        Err(SendError::Failed(e)) => {
            let text = format!("{what}: the upstream request failed: {e}");
            return (failure(text), Outcome::Failed);
        }
    };
    let outcome = Outcome::Status(received.status);
    if received.status.is_client_error() || received.status.is_server_error() {
        return (http_error(what, &received, limits), outcome);
    }
    (answer(what, received, limits), outcome)
}

/// `GET /items/{name}`: the op's method and path, as failures name it
/// (written only when a text needs it).
#[derive(Clone, Copy)]
struct What<'a>(&'a OpEntry);

impl std::fmt::Display for What<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for c in self.0.method.chars() {
            std::fmt::Write::write_char(f, c.to_ascii_uppercase())?;
        }
        write!(f, " {}", self.0.path)
    }
}

fn no_answer(what: What<'_>, limits: Limits) -> String {
    format!(
        "{what}: the upstream did not answer within {} ms",
        limits.timeout.as_millis()
    )
}

impl Received {
    /// The body as JSON; `None` when it is cut or is not JSON.
    fn json(&self) -> Option<Value> {
        if self.cut {
            None
        } else {
            serde_json::from_slice(&self.body).ok()
        }
    }

    /// `404 Not Found`.
    fn status_line(&self) -> String {
        let reason = self.status.canonical_reason().unwrap_or("");
        format!("{} {reason}", self.status.as_u16())
    }
}

/// An HTTP error status as `isError`: the status and the body cut at
/// `max_error_body_bytes`, and `{status, body}` as structured content (the
/// body as JSON when it is JSON and shown whole).
fn http_error(what: What<'_>, received: &Received, limits: Limits) -> CallToolResult {
    let body = &received.body;
    let max = limits.max_error_body_bytes;
    let shown = String::from_utf8_lossy(&body[..body.len().min(max)]);
    let more = if received.cut || body.len() > max {
        " [body cut]"
    } else {
        ""
    };
    let mut result = failure(format!(
        "{what}: HTTP {}: {shown}{more}",
        received.status_line()
    ));
    let body_value = match received.json() {
        Some(v) if body.len() <= max => v,
        _ => Value::String(format!("{shown}{more}")),
    };
    result.structured_content =
        Some(json!({"status": received.status.as_u16(), "body": body_value}));
    result
}

/// A successful answer as a tool result: no body as a line naming the
/// status (and `Location`), JSON as its text and `structuredContent` (a
/// non-object under `value`), anything else as text, marked when cut.
fn answer(what: What<'_>, received: Received, limits: Limits) -> CallToolResult {
    if received.body.is_empty() {
        let mut text = format!("{what}: HTTP {} (no body)", received.status_line());
        if let Some(l) = &received.location {
            text.push_str(&format!("; Location: {l}"));
        }
        return CallToolResult::text(text);
    }
    let json = received.json();
    // The body as text, moved rather than copied when it is UTF-8.
    let mut text = match String::from_utf8(received.body) {
        Ok(text) => text,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    };
    match json {
        Some(value) => {
            let structured = match value {
                Value::Object(_) => value,
                other => json!({ "value": other }),
            };
            CallToolResult {
                content: vec![ContentBlock::text(text)],
                structured_content: Some(structured),
                ..CallToolResult::default()
            }
        }
        None => {
            if received.cut {
                text.push_str(&format!(
                    "\n[answer cut at {} bytes{}]",
                    limits.max_body_bytes,
                    if received.content_type.is_empty() {
                        String::new()
                    } else {
                        format!("; {}", received.content_type)
                    }
                ));
            }
            CallToolResult::text(text)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_values_are_escaped_whole() {
        let input: JsonObject = serde_json::from_value(json!({"a": "x/y z", "b": 7})).unwrap();
        assert_eq!(
            fill_path("/r/{a}/n/{b}", &input).unwrap(),
            "/r/x%2Fy%20z/n/7"
        );
        assert_eq!(
            fill_path("/r/{c}", &input).unwrap_err(),
            "missing required input \"c\" (a path parameter)"
        );
    }

    #[test]
    fn a_url_that_leaves_the_upstream_is_refused() {
        let base = &reqwest::Url::parse("http://127.0.0.1:8080/api").unwrap();
        for url in [
            "http://127.0.0.1:8080@127.0.0.3:18804/steal",
            "http://127.0.0.1:18080/api/x",
            "http://127.0.0.1:8080/api/%2e%2e/admin",
            "http://127.0.0.1:8080/api/../admin",
            "http://127.0.0.1:8080/apiary",
            "https://127.0.0.1:8080/api/x",
            "http://127.0.0.1:8080\\..\\x",
        ] {
            let error = confined(base, url).unwrap_err();
            assert!(
                error.starts_with("the request would leave"),
                "{url}: {error}"
            );
        }
        for url in [
            "http://127.0.0.1:8080/api",
            "http://127.0.0.1:8080/api/x/%2F..",
            "http://127.0.0.1:8080/api/x?next=http://evil.example/",
        ] {
            assert!(confined(base, url).is_ok(), "{url}");
        }
        let bare = reqwest::Url::parse("http://h").unwrap();
        assert!(confined(&bare, "http://H:80/x").is_ok());
    }

    #[test]
    fn a_value_that_holds_a_dot_segment_is_refused() {
        let refused = [
            ("/v1/items/{id}/details", ".."),
            ("/v1/items/{id}/details", "."),
            ("/{id}/x", ".."),
            ("/files/{id}.json", ".."),
            ("/v1/{id}", "a/../b"),
            ("/v1/{id}", "%2e%2e"),
            ("/v1/{id}", "%252E%252e%252F"),
            ("/v1/{id}", "..\\x"),
            ("/v1/{id}", "..;jsessionid=1"),
            ("/v1/{id}", "..?"),
            ("/v1/{id}", "..%23x"),
        ];
        for (template, id) in refused {
            let input: JsonObject = serde_json::from_value(json!({ "id": id })).unwrap();
            let error = fill_path(template, &input).unwrap_err();
            assert!(
                error.contains("holds a dot segment"),
                "{template} {id}: {error}"
            );
        }
        // Dots inside a segment, and escapes that decode to no dot
        // segment, leave the path as it is, escaped whole.
        let kept = [
            ("/files/{id}.json", "a.b", "/files/a.b.json"),
            ("/v1/items/{id}", "a...", "/v1/items/a..."),
            ("/v1/items/{id}", "a..b/c.", "/v1/items/a..b%2Fc."),
            ("/v1/items/{id}", "%41%2F", "/v1/items/%2541%252F"),
        ];
        for (template, id, path) in kept {
            let input: JsonObject = serde_json::from_value(json!({ "id": id })).unwrap();
            assert_eq!(
                fill_path(template, &input).unwrap(),
                path,
                "{template} {id}"
            );
        }
        // Side by side, two values can make what neither holds: `%2` and
        // `e%2e%2fx` are `%2e%2e%2fx`, which decodes to `../x`.
        let input: JsonObject =
            serde_json::from_value(json!({"a": "%2", "b": "e%2e%2ftenantB%2fsecret"})).unwrap();
        let error = fill_path("/{a}{b}", &input).unwrap_err();
        assert!(error.contains("together make a dot segment"), "{error}");
        let input: JsonObject = serde_json::from_value(json!({"a": "x.", "b": ".y"})).unwrap();
        assert_eq!(fill_path("/{a}{b}", &input).unwrap(), "/x..y");
        // However many layers of escapes: five here, and past sixteen the
        // text is refused whatever it decodes to.
        assert!(holds_dot_segment("%25252525252e%25252525252e/x"));
        assert!(holds_dot_segment(&format!("%{}41", "25".repeat(17))));
        assert!(!holds_dot_segment(&format!("%{}41", "25".repeat(14))));
        // As the laxest upstreams read a segment: tabs and line breaks
        // dropped, ends trimmed, Unicode's dot look-alikes, Windows'
        // trailing dots and spaces, IIS's %u escapes.
        for value in [
            "..%09",
            "%0a..",
            ".%0d.",
            "..%00",
            ".. ",
            " ..",
            "...",
            ". .",
            "\u{2025}",
            "\u{FF0E}\u{FF0E}",
            "\u{2024}\u{2024}/x",
            "%u002e%u002E",
            "%25u002e%25u002e",
        ] {
            assert!(holds_dot_segment(value), "{value}");
        }
        for value in ["a.b", ".x", "x.", "a b", "..x", "%u00", "%uzzzz"] {
            assert!(!holds_dot_segment(value), "{value}");
        }
        let input: JsonObject = serde_json::from_value(json!({"id": "..\t"})).unwrap();
        let error = fill_path("/v1/{id}", &input).unwrap_err();
        assert!(error.contains("holds a control character"), "{error}");
        assert!(!holds_dot_segment("100%"));
        assert!(holds_dot_segment("%25252e%25252e"));
    }
}

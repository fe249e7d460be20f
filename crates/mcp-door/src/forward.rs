//! Forwarding (HIP-0300 §1.6): a call becomes its operation's REST request,
//! sent to the operation's upstream with the caller's credential headers;
//! the REST answer becomes the tool result.

use std::time::Duration;

use mcp_proto::{CallToolResult, ContentBlock, JsonObject};
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue};
use serde_json::{Value, json};

use crate::credentials::Credentials;
use crate::openapi::Location;
use crate::projection::OpEntry;

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

/// A failed call as a tool result (`isError: true`, one text block).
fn failure(text: String) -> CallToolResult {
    CallToolResult::error(text)
}

fn scalar(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// The request `entry` makes from `input`, or the reason it cannot be made.
fn build(
    client: &reqwest::Client,
    entry: &OpEntry,
    input: &JsonObject,
    credentials: &Credentials,
) -> Result<reqwest::RequestBuilder, String> {
    let op = &entry.name;
    let Some(base) = &entry.upstream else {
        return Err(format!(
            "op {op} cannot be called: its document names no upstream URL"
        ));
    };
    let mut url = base.clone();
    url.push_str(&fill_path(&entry.path, input).map_err(|e| format!("op {op}: {e}"))?);

    let mut query = String::new();
    let mut push = |name: &str, value: &str| {
        query.push(if query.is_empty() { '?' } else { '&' });
        query.extend(utf8_percent_encode(name, COMPONENT));
        query.push('=');
        query.extend(utf8_percent_encode(value, COMPONENT));
    };
    let mut headers = HeaderMap::new();
    headers.insert(ACCEPT, HeaderValue::from_static("application/json"));
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
            Location::Query => match value {
                Value::Array(items) => {
                    for item in items {
                        let text = scalar(item).unwrap_or_else(|| item.to_string());
                        push(&p.name, &text);
                    }
                }
                Value::Object(_) => push(&p.name, &value.to_string()),
                other => push(&p.name, &scalar(other).unwrap_or_default()),
            },
            Location::Header => {
                let lower = p.name.to_ascii_lowercase();
                if RESERVED_HEADERS.contains(&lower.as_str()) {
                    continue;
                }
                let text = scalar(value).unwrap_or_else(|| value.to_string());
                let name = HeaderName::from_bytes(lower.as_bytes())
                    .map_err(|_| format!("op {op}: {:?} is not a header name", p.name))?;
                let value = HeaderValue::from_str(&text)
                    .map_err(|_| format!("op {op}: input {:?} is not a header value", p.name))?;
                headers.insert(name, value);
            }
        }
    }
    url.push_str(&query);
    credentials.apply(&mut headers);

    let method = reqwest::Method::from_bytes(entry.method.to_ascii_uppercase().as_bytes())
        .map_err(|_| format!("op {op}: bad method"))?;
    let mut request = client.request(method, &url);
    if let Some(body) = &entry.body {
        let value = match &entry.body_field {
            Some(field) => input.get(field).cloned(),
            None => {
                let rest: JsonObject = input
                    .iter()
                    .filter(|(k, _)| !entry.params.iter().any(|p| &p.name == *k))
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect();
                (!rest.is_empty() || body.required).then_some(Value::Object(rest))
            }
        };
        match value {
            Some(Value::String(text)) if !body.content_type.contains("json") => {
                let ct = HeaderValue::from_str(&body.content_type)
                    .unwrap_or(HeaderValue::from_static("text/plain"));
                headers.insert(CONTENT_TYPE, ct);
                request = request.body(text);
            }
            Some(v) => {
                let ct = if body.content_type.contains("json") {
                    HeaderValue::from_str(&body.content_type)
                        .unwrap_or(HeaderValue::from_static("application/json"))
                } else {
                    HeaderValue::from_static("application/json")
                };
                headers.insert(CONTENT_TYPE, ct);
                request = request.body(v.to_string());
            }
            None if body.required => {
                let what = entry.body_field.as_deref().unwrap_or("request body");
                return Err(format!("op {op}: missing required input {what:?}"));
            }
            None => {}
        }
    }
    Ok(request.headers(headers))
}

/// The path template with each `{name}` replaced by the escaped input
/// member of that name.
fn fill_path(template: &str, input: &JsonObject) -> Result<String, String> {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let Some(close) = rest[open..].find('}') else {
            out.push_str(&rest[open..]);
            return Ok(out);
        };
        let name = &rest[open + 1..open + close];
        let value = input
            .get(name)
            .ok_or_else(|| format!("missing required input {name:?} (a path parameter)"))?;
        let text = scalar(value)
            .ok_or_else(|| format!("input {name:?} must be a string, number or boolean"))?;
        if text.is_empty() {
            return Err(format!("input {name:?} is empty (a path parameter)"));
        }
        out.extend(utf8_percent_encode(&text, COMPONENT));
        rest = &rest[open + close + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// Sends `entry`'s request built from `input` and turns the answer into a
/// tool result: JSON as text and `structuredContent`, an HTTP error status
/// as `isError` with status and capped body, a timeout or connection
/// failure as `isError` naming it.
pub(crate) async fn call(
    client: &reqwest::Client,
    entry: &OpEntry,
    input: &JsonObject,
    credentials: &Credentials,
    limits: Limits,
) -> CallToolResult {
    let request = match build(client, entry, input, credentials) {
        Ok(r) => r,
        Err(e) => return failure(e),
    };
    let what = format!("{} {}", entry.method.to_ascii_uppercase(), entry.path);
    let sent = tokio::time::timeout(limits.timeout, async {
        let mut response = request.send().await?;
        let status = response.status();
        let content_type = response
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_owned();
        let location = response
            .headers()
            .get(reqwest::header::LOCATION)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        let mut body = Vec::new();
        let mut cut = false;
        while let Some(chunk) = response.chunk().await? {
            let room = limits.max_body_bytes - body.len();
            if chunk.len() > room {
                body.extend_from_slice(&chunk[..room]);
                cut = true;
                break;
            }
            body.extend_from_slice(&chunk);
        }
        Ok::<_, reqwest::Error>((status, content_type, location, body, cut))
    })
    .await;
    let (status, content_type, location, body, cut) = match sent {
        Err(_) => {
            return failure(format!(
                "{what}: the upstream did not answer within {} ms",
                limits.timeout.as_millis()
            ));
        }
        Ok(Err(e)) if e.is_timeout() => {
            return failure(format!(
                "{what}: the upstream did not answer within {} ms",
                limits.timeout.as_millis()
            ));
        }
        Ok(Err(e)) if e.is_connect() => {
            return failure(format!("{what}: cannot connect to the upstream"));
        }
        Ok(Err(e)) => return failure(format!("{what}: the upstream request failed: {e}")),
        Ok(Ok(answer)) => answer,
    };
    let code = status.as_u16();
    let reason = status.canonical_reason().unwrap_or("");
    let parsed: Option<Value> = if cut {
        None
    } else {
        serde_json::from_slice(&body).ok()
    };
    if status.is_client_error() || status.is_server_error() {
        let shown = String::from_utf8_lossy(&body[..body.len().min(limits.max_error_body_bytes)]);
        let more = if cut || body.len() > limits.max_error_body_bytes {
            " [body cut]"
        } else {
            ""
        };
        let mut result = failure(format!("{what}: HTTP {code} {reason}: {shown}{more}"));
        let body_value = match &parsed {
            Some(v) if body.len() <= limits.max_error_body_bytes => v.clone(),
            _ => Value::String(format!("{shown}{more}")),
        };
        result.structured_content = Some(json!({"status": code, "body": body_value}));
        return result;
    }
    if body.is_empty() {
        let mut text = format!("{what}: HTTP {code} {reason} (no body)");
        if let Some(l) = location {
            text.push_str(&format!("; Location: {l}"));
        }
        return CallToolResult::text(text);
    }
    match parsed {
        Some(value) => {
            let text = String::from_utf8_lossy(&body).into_owned();
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
            let mut text = String::from_utf8_lossy(&body).into_owned();
            if cut {
                text.push_str(&format!(
                    "\n[answer cut at {} bytes{}]",
                    limits.max_body_bytes,
                    if content_type.is_empty() {
                        String::new()
                    } else {
                        format!("; {content_type}")
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
}

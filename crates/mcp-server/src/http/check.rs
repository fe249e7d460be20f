//! The checks the streamable HTTP transport makes before a message reaches
//! the server: bearer, `Origin`, `Host`, and the request metadata headers
//! of 2026-07-28 against the body.

use axum::http::HeaderMap;
use mcp_proto::param_header::{self, ParamHeader};
use mcp_proto::{ErrorObject, meta};
use serde_json::Value;

pub use mcp_streamable_http::checks::{
    PROTOCOL_VERSION, body_revision, header, host_ok, json_content_type, mismatch,
};

/// `Mcp-Session-Id` (MCP 2025-11-25 basic/transports, session management).
pub const SESSION_ID: &str = "mcp-session-id";
/// `Mcp-Method` (MCP 2026-07-28 basic/transports, standard request headers).
pub const METHOD: &str = "mcp-method";
/// `Mcp-Name` (MCP 2026-07-28 basic/transports, standard request headers).
pub const NAME: &str = "mcp-name";

/// Whether `Authorization` carries `Bearer <expected>`, the scheme in any
/// case (RFC 7235 §2.1, RFC 6750 §2.1). Compares every byte whatever the
/// first difference, so the time taken does not reveal a prefix of the
/// secret.
pub fn bearer_ok(headers: &HeaderMap, expected: &str) -> bool {
    let Some(given) = header(headers, "authorization") else {
        return false;
    };
    let Some((scheme, token)) = given.split_once([' ', '\t']) else {
        return false;
    };
    if !scheme.eq_ignore_ascii_case("bearer") {
        return false;
    }
    let (a, b) = (token.trim().as_bytes(), expected.as_bytes());
    let mut diff = u8::from(a.len() != b.len());
    for (i, byte) in b.iter().enumerate() {
        diff |= byte ^ a.get(i).copied().unwrap_or(0);
    }
    diff == 0
}

/// Whether the request's `Origin` is acceptable: absent (not a browser), a
/// loopback origin (`localhost`, `127.0.0.0/8`, `[::1]`, any port), or one
/// of `allowed` (MCP 2025-11-25 basic/transports, security warning: DNS
/// rebinding); [`mcp_streamable_http::checks::origin_ok`], which the door uses too.
///
/// [`host_ok`] is meant for a transport without a bearer, which
/// [`super::serve_http`] binds on loopback only; a bearer already defeats
/// rebinding (the page cannot know it) and may serve other names.
pub fn origin_ok(headers: &HeaderMap, allowed: &[String]) -> bool {
    let allowed: Vec<&str> = allowed.iter().map(String::as_str).collect();
    mcp_streamable_http::checks::origin_ok(headers, &allowed, true)
}

/// The body as JSON when it is meant as a response
/// ([`mcp_proto::message::meant_as_response`]: the test stdio applies to a
/// line that fails to parse). `None` otherwise.
pub fn meant_as_response(body: &[u8]) -> Option<Value> {
    serde_json::from_slice::<Value>(body)
        .ok()
        .filter(mcp_proto::message::meant_as_response)
}

/// Checks a 2026-07-28 message's `MCP-Protocol-Version`, `Mcp-Method` and
/// `Mcp-Name` against its body (MCP 2026-07-28 basic/transports, server
/// validation): each required header present and equal to its body field
/// (-32020), and the body's `_meta` naming its revision (-32602 without
/// it, SEP-2575). `version` is the header's value; `method` and `params`
/// are the message's.
pub fn stateless_headers(
    headers: &HeaderMap,
    version: &str,
    method: &str,
    params: Option<&Value>,
) -> Result<(), ErrorObject> {
    match body_revision(params) {
        Some(body) if body == version => {}
        Some(body) => {
            return Err(mismatch(format!(
                "MCP-Protocol-Version is {version:?} but params._meta names {body:?}"
            )));
        }
        None => {
            // Not a disagreement but a request without its required
            // metadata: -32602 (MCP 2026-07-28 basic, SEP-2575).
            return Err(ErrorObject::invalid_params(format!(
                "params._meta[\"{}\"] is required (MCP-Protocol-Version is {version:?})",
                meta::PROTOCOL_VERSION
            )));
        }
    }
    match header(headers, METHOD) {
        Some(h) if h == method => {}
        Some(h) => {
            return Err(mismatch(format!(
                "Mcp-Method is {h:?} but the body's method is {method:?}"
            )));
        }
        None => return Err(mismatch("Mcp-Method is missing".into())),
    }
    let field = match method {
        mcp_proto::methods::CallTool::NAME | mcp_proto::methods::GetPrompt::NAME => "name",
        mcp_proto::methods::ReadResource::NAME => "uri",
        _ => return Ok(()),
    };
    let body = params.and_then(|p| p.get(field)).and_then(Value::as_str);
    match (header(headers, NAME), body) {
        (Some(h), Some(b)) if h == b => Ok(()),
        (Some(h), Some(b)) => Err(mismatch(format!(
            "Mcp-Name is {h:?} but params.{field} is {b:?}"
        ))),
        (Some(h), None) => Err(mismatch(format!(
            "Mcp-Name is {h:?} but params.{field} is missing"
        ))),
        (None, _) => Err(mismatch(format!("Mcp-Name is missing for {method}"))),
    }
}

/// Checks the `Mcp-Param-*` headers of a 2026-07-28 `tools/call` against
/// its arguments (MCP 2026-07-28 streamable-http, "Custom Headers from Tool
/// Parameters"; SEP-2243): for each `x-mcp-header` annotation of the
/// tool's `inputSchema` (`annotations`, from
/// [`MergedList::param_headers`](crate::source::MergedList::param_headers),
/// which leaves out a tool whose annotations are broken, as clients drop
/// such tools), the header is present exactly when the argument is (not
/// `null`), and its value, read literally or decoded from `=?base64?…?=`
/// (standard Base64 with padding, UTF-8), equals the argument's text.
/// -32020 naming the header otherwise.
pub fn param_headers(
    headers: &HeaderMap,
    annotations: &[ParamHeader],
    params: &Value,
) -> Result<(), ErrorObject> {
    let arguments = params.get("arguments").unwrap_or(&Value::Null);
    for annotation in annotations {
        let body = annotation
            .argument(arguments)
            .and_then(param_header::plain_text);
        let name = annotation.header_name();
        let sent = match headers.get(&name) {
            None => None,
            Some(value) => Some(value.to_str().map(str::trim).map_err(|_| {
                mismatch(format!(
                    "Mcp-Param-{} is not visible ASCII",
                    annotation.name
                ))
            })?),
        };
        match (body, sent) {
            (None, None) => {}
            (Some(_), None) => {
                return Err(mismatch(format!(
                    "Mcp-Param-{} is missing but {} is in the arguments",
                    annotation.name,
                    argument_path(annotation)
                )));
            }
            (None, Some(_)) => {
                return Err(mismatch(format!(
                    "Mcp-Param-{} is sent but {} is not in the arguments",
                    annotation.name,
                    argument_path(annotation)
                )));
            }
            (Some(body), Some(sent)) => {
                let decoded = param_text(sent)
                    .map_err(|why| mismatch(format!("Mcp-Param-{} {why}", annotation.name)))?;
                if decoded != body {
                    return Err(mismatch(format!(
                        "Mcp-Param-{} does not match {}",
                        annotation.name,
                        argument_path(annotation)
                    )));
                }
            }
        }
    }
    Ok(())
}

/// `params.arguments.a.b` for an annotation on property path `a`, `b`.
fn argument_path(annotation: &ParamHeader) -> String {
    format!("params.arguments.{}", annotation.path.join("."))
}

/// A parameter header's text: literal, or the UTF-8 text a
/// `=?base64?…?=` wrapper encodes; `Err` says what is wrong with it.
fn param_text(sent: &str) -> Result<String, &'static str> {
    use base64::Engine as _;
    let Some(payload) = param_header::base64_payload(sent) else {
        return Ok(sent.to_owned());
    };
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(payload)
        .map_err(|_| "is not valid Base64 (standard alphabet, padded)")?;
    String::from_utf8(bytes).map_err(|_| "does not decode to UTF-8 text")
}

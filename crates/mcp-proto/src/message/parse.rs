//! Reading one message from bytes ([`parse_message`]) or from a parsed
//! JSON value ([`message_from_value`]), with an error that says exactly
//! what was wrong and, whenever it can be read, the message's id.

use serde_json::Value;
use serde_json::value::RawValue;

use super::{Message, Notification, Request, RequestId, Response};
use crate::decode::{FromValue, json_type_name};
use crate::error::ErrorObject;

/// The message for a JSON array (MCP 2025-06-18 removed JSON-RPC batching).
pub const BATCH_REFUSED: &str = "batches are not supported since 2025-06-18";

/// Whether a JSON value that failed to parse as a message was meant as a
/// response: an object with an `id` and a `result` or an `error`, and no
/// `method`. Such a message is never answered (JSON-RPC 2.0 §5), not even
/// with an error.
pub fn meant_as_response(value: &Value) -> bool {
    value.as_object().is_some_and(|map| {
        map.contains_key("id")
            && !map.contains_key("method")
            && (map.contains_key("result") || map.contains_key("error"))
    })
}

/// Reads one JSON-RPC message from `bytes` (one stdio line or one HTTP body).
///
/// Leading and trailing JSON whitespace is allowed, and so is one leading
/// UTF-8 byte order mark (EF BB BF), which is skipped (RFC 8259 §8.1:
/// senders must not add one, parsers may ignore it). Members other than
/// `jsonrpc`, `id`, `method`, `params`, `result` and `error` are ignored.
/// An explicit `"params": null` reads as absent params.
///
/// # Errors
/// A [`MessageError`] with the error to answer and, when readable, the id:
/// - -32700 when the bytes are empty, not UTF-8 or not JSON (nesting deeper
///   than 128 is refused here too, without recursion trouble);
/// - -32600 `batches are not supported since 2025-06-18` for a JSON array;
/// - -32600 naming the member at fault for JSON that is not a message, e.g.
///   `jsonrpc must be "2.0", found "1.0"`,
///   `id must be a string or an integer, found null`, or for an integer
///   id outside i64 `id must be a string or an integer within the signed
///   64-bit range, found 9223372036854775808` (the number as written),
///   `method must be a string, found a number`,
///   `params must be an object, found an array`;
/// - -32600 `member "id" is written twice` for an envelope member that
///   appears more than once (readers keeping the first and readers keeping
///   the last would see different messages), with the id when it is not
///   the one written twice.
///
/// ```
/// use mcp_proto::{parse_message, Message, RequestId, error_code};
///
/// let msg = parse_message(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#).unwrap();
/// let Message::Request(req) = msg else { panic!("a request") };
/// assert_eq!(req.id, RequestId::Number(1));
/// assert_eq!(req.method, "ping");
///
/// let err = parse_message(br#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#).unwrap_err();
/// assert_eq!(err.error.code, error_code::INVALID_REQUEST);
/// assert_eq!(err.error.message, "id must be a string or an integer, found null");
/// ```
pub fn parse_message(bytes: &[u8]) -> Result<Message, MessageError> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let text = std::str::from_utf8(bytes).map_err(|e| MessageError {
        id: crate::recover::salvage_id(bytes),
        error: ErrorObject::parse_error(format!(
            "message is not valid UTF-8: invalid byte at offset {}",
            e.valid_up_to()
        )),
    })?;
    let text = text.trim_matches(|c| matches!(c, ' ' | '\t' | '\n' | '\r'));
    if text.is_empty() {
        return Err(no_id(ErrorObject::parse_error(
            "empty message: expected one JSON-RPC message object",
        )));
    }
    let not_json = |e: serde_json::Error| MessageError {
        id: crate::recover::salvage_id(text.as_bytes()),
        error: ErrorObject::parse_error(format!("message is not valid JSON: {e}")),
    };
    if !text.starts_with('{') {
        let (value, _) = crate::recover::from_str_lossy::<Value>(text).map_err(not_json)?;
        return from_value(value, Some(text));
    }
    // The members as raw text, borrowed from it: `params` stays as written,
    // and members we do not read are never decoded at all.
    match serde_json::from_str::<Members<'_>>(text) {
        Ok(members) => from_raw_members(members, text),
        // A key or member with an escaped lone surrogate in it.
        Err(error) => match crate::recover::replace_lone_surrogates(text) {
            std::borrow::Cow::Owned(replaced) => match serde_json::from_str(&replaced) {
                Ok(members) => from_raw_members(members, text),
                Err(_) => Err(not_json(error)),
            },
            std::borrow::Cow::Borrowed(_) => Err(not_json(error)),
        },
    }
}

/// The members of a message object that the envelope reads, each as
/// written in the message's text (borrowed from it), and the first of them
/// written twice, if any. Other members are skipped, not decoded.
#[derive(Default)]
struct Members<'a> {
    jsonrpc: Option<&'a RawValue>,
    id: Option<&'a RawValue>,
    method: Option<&'a RawValue>,
    params: Option<&'a RawValue>,
    result: Option<&'a RawValue>,
    error: Option<&'a RawValue>,
    twice: Option<&'static str>,
}

impl<'de> serde::Deserialize<'de> for Members<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(MembersVisitor)
    }
}

/// Fills [`Members`] from a JSON object in one pass.
struct MembersVisitor;

impl<'de> serde::de::Visitor<'de> for MembersVisitor {
    type Value = Members<'de>;

    fn expecting(&self, formatter: &mut std::fmt::Formatter) -> std::fmt::Result {
        formatter.write_str("a JSON-RPC message object")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Members<'de>, A::Error> {
        let mut members = Members::default();
        while let Some(name) = map.next_key::<MemberName>()? {
            let (slot, key) = match name {
                MemberName::Jsonrpc => (&mut members.jsonrpc, "jsonrpc"),
                MemberName::Id => (&mut members.id, "id"),
                MemberName::Method => (&mut members.method, "method"),
                MemberName::Params => (&mut members.params, "params"),
                MemberName::Result => (&mut members.result, "result"),
                MemberName::Error => (&mut members.error, "error"),
                MemberName::Other => {
                    map.next_value::<serde::de::IgnoredAny>()?;
                    continue;
                }
            };
            let value = map.next_value()?;
            if slot.is_some() {
                members.twice.get_or_insert(key);
            }
            *slot = Some(value);
        }
        Ok(members)
    }
}

/// The name of a message member, read without keeping it.
enum MemberName {
    Jsonrpc,
    Id,
    Method,
    Params,
    Result,
    Error,
    Other,
}

impl<'de> serde::Deserialize<'de> for MemberName {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_identifier(MemberNameVisitor)
    }
}

/// Tells the member names [`Members`] keeps from every other.
struct MemberNameVisitor;

impl serde::de::Visitor<'_> for MemberNameVisitor {
    type Value = MemberName;

    fn expecting(&self, formatter: &mut std::fmt::Formatter) -> std::fmt::Result {
        formatter.write_str("a member name")
    }

    fn visit_str<E: serde::de::Error>(self, name: &str) -> Result<MemberName, E> {
        Ok(match name {
            "jsonrpc" => MemberName::Jsonrpc,
            "id" => MemberName::Id,
            "method" => MemberName::Method,
            "params" => MemberName::Params,
            "result" => MemberName::Result,
            "error" => MemberName::Error,
            _ => MemberName::Other,
        })
    }
}

/// The message from its members as written: each envelope member decoded
/// (lone surrogates in its strings replaced), `params` kept as written.
/// `text` is the whole message, for the id of an error.
fn from_raw_members(members: Members<'_>, text: &str) -> Result<Message, MessageError> {
    if let Some(key) = members.twice {
        // Readers that keep the first and readers that keep the last would
        // see two different messages: neither is answered as meant.
        let id = match key {
            "id" => None,
            _ => members
                .id
                .and_then(|raw| serde_json::from_str::<Value>(raw.get()).ok())
                .and_then(|value| read_id(Some(value), Some(text)).ok().flatten()),
        };
        return Err(invalid(&id, format!("member {key:?} is written twice")));
    }
    if let Some(request) = plain_request(&members) {
        return Ok(request);
    }
    let mut map = serde_json::Map::new();
    let envelope = [
        ("jsonrpc", members.jsonrpc),
        ("id", members.id),
        ("method", members.method),
        ("result", members.result),
        ("error", members.error),
    ];
    for (key, raw) in envelope {
        let Some(raw) = raw else { continue };
        let (value, _) =
            crate::recover::from_str_lossy::<Value>(raw.get()).map_err(|e| MessageError {
                id: crate::recover::salvage_id(text.as_bytes()),
                error: ErrorObject::parse_error(format!("message is not valid JSON: {key}: {e}")),
            })?;
        map.insert(key.to_owned(), value);
    }
    from_members(map, members.params.map(ToOwned::to_owned), Some(text))
}

/// The request `members` make when each is written plainly: `jsonrpc`
/// exactly `"2.0"`, a method string without escapes, an id that is such a
/// string or an integer token within i64, params an object or `null` or
/// absent, and neither `result` nor `error`. Read straight from the text,
/// it is the request the general path (each member decoded into a value)
/// makes of them; `None` for anything else, which that path reads.
fn plain_request(members: &Members<'_>) -> Option<Message> {
    /// The content of a JSON string token without escapes.
    fn plain_string(raw: &RawValue) -> Option<&str> {
        let content = raw.get().strip_prefix('"')?.strip_suffix('"')?;
        (!content.contains('\\')).then_some(content)
    }
    if members.result.is_some() || members.error.is_some() || members.jsonrpc?.get() != "\"2.0\"" {
        return None;
    }
    let method = plain_string(members.method?)?;
    let id_raw = members.id?;
    let raw_id = id_raw.get();
    let id = match raw_id.as_bytes().first()? {
        b'"' => RequestId::String(plain_string(id_raw)?.to_owned()),
        // An integer token (JSON has no leading `+` or zeros); `-0` is 0,
        // as the general path reads it.
        b'-' | b'0'..=b'9' if raw_id.bytes().skip(1).all(|b| b.is_ascii_digit()) => {
            RequestId::Number(raw_id.parse().ok()?)
        }
        _ => return None,
    };
    let params = match members.params {
        None => None,
        Some(raw) => match raw.get().as_bytes().first()? {
            b'n' => None,
            b'{' => Some(raw.to_owned()),
            _ => return None,
        },
    };
    Some(Message::Request(Request {
        id,
        method: method.to_owned(),
        params,
    }))
}

/// A message could not be read: the JSON-RPC error to answer with, and the
/// request id when one could be recovered from the input.
///
/// Returned by [`parse_message`]. Answer it with
/// `Response::error(err.id, err.error)`.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{error}")]
pub struct MessageError {
    /// The id of the offending request, when the input had a valid one.
    pub id: Option<RequestId>,
    /// The error to send back (-32700 or -32600, message naming the member).
    pub error: ErrorObject,
}

fn no_id(error: ErrorObject) -> MessageError {
    MessageError { id: None, error }
}

fn invalid(id: &Option<RequestId>, message: String) -> MessageError {
    MessageError {
        id: id.clone(),
        error: ErrorObject::invalid_request(message),
    }
}

/// Reads one message from an already parsed JSON value; see [`parse_message`].
///
/// # Errors
/// As [`parse_message`], minus the -32700 cases.
pub fn message_from_value(value: Value) -> Result<Message, MessageError> {
    from_value(value, None)
}

/// [`message_from_value`], with the message's `text` when known so a bad
/// numeric id is quoted as written rather than as serde_json rounded it.
fn from_value(value: Value, text: Option<&str>) -> Result<Message, MessageError> {
    let mut map = match value {
        Value::Object(map) => map,
        Value::Array(_) => return Err(invalid(&None, BATCH_REFUSED.to_owned())),
        other => {
            return Err(invalid(
                &None,
                format!(
                    "a message must be a JSON object, found {}",
                    json_type_name(&other)
                ),
            ));
        }
    };

    let params = map.remove("params").map(|params| {
        serde_json::value::to_raw_value(&params).expect("a JSON value is always valid JSON text")
    });
    from_members(map, params, text)
}

/// An id as read from a message: `Ok(None)` when absent, `Err` naming
/// the fault for one that is no string or i64 integer.
type IdResult = Result<Option<RequestId>, String>;

/// A message from its members: `params` as raw text, the others decoded.
fn from_members(
    mut map: serde_json::Map<String, Value>,
    params: Option<Box<RawValue>>,
    text: Option<&str>,
) -> Result<Message, MessageError> {
    // Read the id first so every later error can still be correlated.
    let raw_id = map.remove("id");
    let id_is_null = matches!(raw_id, Some(Value::Null));
    let id_result = read_id(raw_id, text);
    let id = id_result.as_ref().ok().cloned().flatten();
    match map.remove("jsonrpc") {
        Some(Value::String(s)) if s == "2.0" => {}
        Some(other) => {
            return Err(invalid(
                &id,
                format!("jsonrpc must be \"2.0\", found {}", short_json(&other)),
            ));
        }
        None => {
            return Err(invalid(
                &id,
                "jsonrpc must be \"2.0\", but it is missing".to_owned(),
            ));
        }
    }
    match map.remove("method") {
        Some(method) => request_or_notification(method, params, id_result),
        None => response(map, id_result, id_is_null),
    }
}

/// The id member as written in `text` when known (see [`bad_number_id`]).
fn read_id(raw_id: Option<Value>, text: Option<&str>) -> IdResult {
    match raw_id {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(RequestId::String(s))),
        Some(Value::Number(n)) if n.as_i64().is_some() => Ok(n.as_i64().map(RequestId::Number)),
        // serde_json reads the integer token `-0` as the float -0.0; as
        // written it is the integer 0.
        Some(Value::Number(n))
            if n.as_f64() == Some(0.0) && text.and_then(raw_top_level_id) == Some("-0") =>
        {
            Ok(Some(RequestId::Number(0)))
        }
        Some(Value::Number(n)) => Err(bad_number_id(&n, text)),
        Some(other) => Err(format!(
            "id must be a string or an integer, found {}",
            short_json(&other)
        )),
    }
}

/// A message with a `method`: a request when it has an id, else a
/// notification (whose params are decoded; a request's stay text).
fn request_or_notification(
    method: Value,
    params: Option<Box<RawValue>>,
    id_result: IdResult,
) -> Result<Message, MessageError> {
    let id = id_result.as_ref().ok().cloned().flatten();
    let method = match method {
        Value::String(s) => s,
        other => {
            return Err(invalid(
                &id,
                format!("method must be a string, found {}", json_type_name(&other)),
            ));
        }
    };
    let params = match params.as_ref().map(|p| p.get().as_bytes()[0]) {
        None | Some(b'n') => None,
        Some(b'{') => params,
        Some(first) => {
            return Err(invalid(
                &id,
                format!("params must be an object, found {}", raw_type_name(first)),
            ));
        }
    };
    match id_result {
        Err(e) => Err(invalid(&None, e)),
        Ok(Some(id)) => Ok(Message::Request(Request { id, method, params })),
        Ok(None) => {
            let params = params
                .map(|raw| {
                    crate::recover::from_str_lossy::<Value>(raw.get()).map(|(value, _)| value)
                })
                .transpose()
                .map_err(|e| invalid(&None, format!("params cannot be read: {e}")))?;
            Ok(Message::Notification(Notification { method, params }))
        }
    }
}

/// A message without a `method`: a response, with exactly one of
/// `result` and `error`.
fn response(
    mut map: serde_json::Map<String, Value>,
    id_result: IdResult,
    id_is_null: bool,
) -> Result<Message, MessageError> {
    let id = id_result.as_ref().ok().cloned().flatten();
    let result = map.remove("result");
    let error = map.remove("error");
    match (result, error) {
        (Some(_), Some(_)) => Err(invalid(
            &id,
            "a response must have result or error, not both".to_owned(),
        )),
        (Some(result), None) => match id_result {
            Ok(Some(id)) => Ok(Message::Response(Response::success(id, result))),
            Ok(None) => Err(invalid(
                &None,
                "id is required in a result response".to_owned(),
            )),
            Err(e) => Err(invalid(&None, e)),
        },
        (None, Some(error)) => {
            let error = ErrorObject::from_value(error)
                .map_err(|e| invalid(&id, e.at_key("error").to_string()))?;
            // An error answering unreadable input may carry `"id": null`.
            let id = match id_result {
                Ok(id) => id,
                Err(_) if id_is_null => None,
                Err(e) => return Err(invalid(&None, e)),
            };
            Ok(Message::Response(Response::error(id, error)))
        }
        (None, None) => Err(invalid(
            &id,
            "a message must have method (request or notification), or result or error (response)"
                .to_owned(),
        )),
    }
}

/// A short rendering of a JSON value for error messages (at most ~40 chars).
/// The error text for a numeric id that is no i64: an integer outside the
/// range is told so; the number is shown as written in `text` when found
/// there (serde_json reads integers beyond u64 as rounded floats).
fn bad_number_id(number: &serde_json::Number, text: Option<&str>) -> String {
    let written = text
        .and_then(raw_top_level_id)
        .filter(|raw| raw.len() <= 64);
    let integral = match written {
        Some(raw) => raw.bytes().all(|b| b == b'-' || b.is_ascii_digit()),
        None => {
            number.is_u64()
                || number
                    .as_f64()
                    .is_some_and(|f| f.fract() == 0.0 && f.abs() >= 2f64.powi(63))
        }
    };
    let shown = written.map_or_else(|| number.to_string(), str::to_owned);
    if integral {
        format!("id must be a string or an integer within the signed 64-bit range, found {shown}")
    } else {
        format!("id must be a string or an integer, found {shown}")
    }
}

/// The text of the top-level member `id`'s value in the JSON object
/// `text`, when it is a number token. A shallow scan: strings are skipped,
/// nesting is counted; escaped keys are not recognised.
fn raw_top_level_id(text: &str) -> Option<&str> {
    let bytes = text.as_bytes();
    let (mut depth, mut at_key, mut i) = (0usize, false, 0usize);
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                let start = i + 1;
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    if bytes[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
                let key = text.get(start..i)?;
                i += 1;
                if depth == 1 && at_key {
                    at_key = false;
                    if key == "id" {
                        let rest = text.get(i..)?.trim_start().strip_prefix(':')?;
                        let rest = rest.trim_start();
                        let end = rest
                            .find(|c: char| {
                                !(c.is_ascii_digit() || matches!(c, '-' | '+' | '.' | 'e' | 'E'))
                            })
                            .unwrap_or(rest.len());
                        return Some(&rest[..end]).filter(|raw| !raw.is_empty());
                    }
                }
                continue;
            }
            b'{' => {
                depth += 1;
                at_key = depth == 1;
            }
            b'[' => depth += 1,
            b'}' | b']' => depth = depth.saturating_sub(1),
            b',' if depth == 1 => at_key = true,
            _ => {}
        }
        i += 1;
    }
    None
}

/// The JSON type whose text starts with `first`, as [`json_type_name`]
/// names it.
fn raw_type_name(first: u8) -> &'static str {
    match first {
        b'[' => "an array",
        b'"' => "a string",
        b't' | b'f' => "a boolean",
        b'n' => "null",
        b'{' => "an object",
        _ => "a number",
    }
}

fn short_json(value: &Value) -> String {
    match value {
        Value::String(s) if s.len() <= 40 => format!("{s:?}"),
        Value::Number(n) => n.to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Null => "null".to_owned(),
        other => json_type_name(other).to_owned(),
    }
}

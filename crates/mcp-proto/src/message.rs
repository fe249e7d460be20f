//! The JSON-RPC 2.0 envelope MCP messages travel in: request, notification
//! and response (JSON-RPC 2.0 §4-5, MCP 2025-11-25 basic).
//!
//! [`parse_message`] reads one message from bytes and says exactly what was
//! wrong when it cannot. Params and results stay raw JSON here; decode them
//! with the typed methods of [`crate::methods`].

use std::fmt;

use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};
use serde_json::Value;
use serde_json::value::RawValue;

use crate::decode::{DecodeError, FromValue, json_type_name};
use crate::error::ErrorObject;

/// A request id: a string or an integer (MCP 2025-11-25 basic: "the ID MUST
/// NOT be null"). Floats, `null`, arrays and objects are refused.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, schemars::JsonSchema)]
#[serde(untagged)]
pub enum RequestId {
    /// An integer id (JSON-RPC allows any integer; we keep the `i64` range).
    Number(i64),
    /// A string id.
    String(String),
}

impl fmt::Display for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Number(n) => write!(f, "{n}"),
            Self::String(s) => write!(f, "{s:?}"),
        }
    }
}

impl From<i64> for RequestId {
    fn from(n: i64) -> Self {
        Self::Number(n)
    }
}

impl From<String> for RequestId {
    fn from(s: String) -> Self {
        Self::String(s)
    }
}

impl From<&str> for RequestId {
    fn from(s: &str) -> Self {
        Self::String(s.to_owned())
    }
}

impl FromValue for RequestId {
    fn from_value(value: Value) -> Result<Self, DecodeError> {
        match value {
            Value::String(s) => Ok(Self::String(s)),
            Value::Number(ref n) => match n.as_i64() {
                Some(i) => Ok(Self::Number(i)),
                None => Err(DecodeError::invalid("a string or an integer", &value)),
            },
            other => Err(DecodeError::invalid("a string or an integer", &other)),
        }
    }
}

crate::decode::wire_deserialize!(RequestId);

/// A request: a message that expects a response (JSON-RPC 2.0 §4).
///
/// `params`, when present, is a JSON object (MCP requires one), kept as the
/// exact text it arrived as: a forwarded call carries it on byte for byte
/// (HIP-0300 §2.2), and each method decodes it into its own params type
/// ([`Request::parse_params`]).
#[derive(Debug, Clone)]
pub struct Request {
    /// The request id; the response carries the same one.
    pub id: RequestId,
    /// The method name, such as `tools/call`.
    pub method: String,
    /// The params object as JSON text.
    pub params: Option<Box<RawValue>>,
}

impl PartialEq for Request {
    fn eq(&self, other: &Self) -> bool {
        self.id == other.id
            && self.method == other.method
            && self.params.as_ref().map(|p| p.get()) == other.params.as_ref().map(|p| p.get())
    }
}

impl Request {
    /// A request whose params are `params` written out as JSON.
    pub fn new(id: impl Into<RequestId>, method: impl Into<String>, params: Option<Value>) -> Self {
        Self {
            id: id.into(),
            method: method.into(),
            params: params.map(|p| {
                serde_json::value::to_raw_value(&p).expect("a JSON value is always valid JSON text")
            }),
        }
    }

    /// A request whose params are already JSON text (kept as it is).
    pub fn with_raw_params(
        id: impl Into<RequestId>,
        method: impl Into<String>,
        params: Option<Box<RawValue>>,
    ) -> Self {
        Self {
            id: id.into(),
            method: method.into(),
            params,
        }
    }

    /// The params decoded as a JSON value (`None` when absent); an escaped
    /// lone surrogate reads as U+FFFD ([`crate::recover`]).
    ///
    /// # Errors
    /// -32602 when the params text cannot be decoded even so (nesting
    /// deeper than serde_json's limit of 128).
    pub fn params_value(&self) -> Result<Option<Value>, ErrorObject> {
        self.params
            .as_ref()
            .map(|raw| {
                crate::recover::from_str_lossy::<Value>(raw.get())
                    .map(|(value, _)| value)
                    .map_err(|e| {
                        ErrorObject::invalid_params(format!(
                            "invalid params for {}: {e}",
                            self.method
                        ))
                    })
            })
            .transpose()
    }

    /// Whether the params text holds an escaped lone surrogate, which
    /// decoding reads as U+FFFD.
    pub fn has_lone_surrogates(&self) -> bool {
        self.params.as_ref().is_some_and(|raw| {
            matches!(
                crate::recover::replace_lone_surrogates(raw.get()),
                std::borrow::Cow::Owned(_)
            )
        })
    }

    /// Decodes the params as `T` (absent params read as `{}`).
    ///
    /// # Errors
    /// -32602 naming the member at fault, such as
    /// `invalid params for tools/call: params.name is required`.
    pub fn parse_params<T: FromValue>(&self) -> Result<T, ErrorObject> {
        decode_params(&self.method, self.params_value()?)
    }
}

/// A notification: a message that gets no response (JSON-RPC 2.0 §4.1).
#[derive(Debug, Clone, PartialEq)]
pub struct Notification {
    /// The method name, such as `notifications/progress`.
    pub method: String,
    /// The params object, kept as raw JSON.
    pub params: Option<Value>,
}

impl Notification {
    /// A notification with raw params.
    pub fn new(method: impl Into<String>, params: Option<Value>) -> Self {
        Self {
            method: method.into(),
            params,
        }
    }

    /// Decodes the params as `T` (absent params read as `{}`).
    ///
    /// # Errors
    /// -32602 naming the member at fault.
    pub fn parse_params<T: FromValue>(&self) -> Result<T, ErrorObject> {
        decode_params(&self.method, self.params.clone())
    }
}

fn decode_params<T: FromValue>(method: &str, params: Option<Value>) -> Result<T, ErrorObject> {
    let params = params.unwrap_or_else(|| Value::Object(serde_json::Map::new()));
    T::from_value(params).map_err(|e| {
        ErrorObject::invalid_params(format!(
            "invalid params for {method}: {}",
            e.at_key("params")
        ))
    })
}

/// The outcome carried by a [`Response`].
#[derive(Debug, Clone, PartialEq)]
pub enum ResponsePayload {
    /// The `result` member (any JSON; MCP results are objects).
    Result(Value),
    /// The `error` member.
    Error(ErrorObject),
}

/// A response to a request (JSON-RPC 2.0 §5).
///
/// `id` is `None` only for an error answering input whose id could not be
/// read; it is then left out on the wire (the MCP schemas from 2025-11-25 on
/// make the id of an error response optional and never `null`).
#[derive(Debug, Clone, PartialEq)]
pub struct Response {
    /// The id of the request answered.
    pub id: Option<RequestId>,
    /// The result or the error.
    pub payload: ResponsePayload,
}

impl Response {
    /// A success response carrying `result`.
    pub fn success(id: RequestId, result: Value) -> Self {
        Self {
            id: Some(id),
            payload: ResponsePayload::Result(result),
        }
    }

    /// An error response.
    pub fn error(id: Option<RequestId>, error: ErrorObject) -> Self {
        Self {
            id,
            payload: ResponsePayload::Error(error),
        }
    }

    /// Decodes the result as `T`.
    ///
    /// # Errors
    /// The error object itself when this is an error response; for a result
    /// of the wrong shape, -32603 naming the member at fault, such as
    /// `invalid result: result.tools[2].name is required`.
    pub fn parse_result<T: FromValue>(&self) -> Result<T, ErrorObject> {
        match &self.payload {
            ResponsePayload::Error(e) => Err(e.clone()),
            ResponsePayload::Result(v) => T::from_value(v.clone()).map_err(|e| {
                ErrorObject::internal_error(format!("invalid result: {}", e.at_key("result")))
            }),
        }
    }
}

/// One JSON-RPC message as MCP uses it. Batches (JSON arrays) are not
/// messages: no revision since 2025-06-18 has them.
///
/// Serializing writes the wire form with `"jsonrpc": "2.0"`:
///
/// ```
/// use mcp_proto::{Message, Notification};
///
/// let msg = Message::Notification(Notification::new("notifications/initialized", None));
/// assert_eq!(
///     serde_json::to_string(&msg).unwrap(),
///     r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#
/// );
/// ```
#[derive(Debug, Clone, PartialEq)]
pub enum Message {
    /// A request (has `method` and `id`).
    Request(Request),
    /// A notification (has `method`, no `id`).
    Notification(Notification),
    /// A response (has `result` or `error`).
    Response(Response),
}

impl From<Request> for Message {
    fn from(r: Request) -> Self {
        Self::Request(r)
    }
}

impl From<Notification> for Message {
    fn from(n: Notification) -> Self {
        Self::Notification(n)
    }
}

impl From<Response> for Message {
    fn from(r: Response) -> Self {
        Self::Response(r)
    }
}

impl Serialize for Request {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(None)?;
        map.serialize_entry("jsonrpc", "2.0")?;
        map.serialize_entry("id", &self.id)?;
        map.serialize_entry("method", &self.method)?;
        if let Some(params) = &self.params {
            map.serialize_entry("params", params)?;
        }
        map.end()
    }
}

impl Serialize for Notification {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(None)?;
        map.serialize_entry("jsonrpc", "2.0")?;
        map.serialize_entry("method", &self.method)?;
        if let Some(params) = &self.params {
            map.serialize_entry("params", params)?;
        }
        map.end()
    }
}

impl Serialize for Response {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(None)?;
        map.serialize_entry("jsonrpc", "2.0")?;
        if let Some(id) = &self.id {
            map.serialize_entry("id", id)?;
        }
        match &self.payload {
            ResponsePayload::Result(result) => map.serialize_entry("result", result)?,
            ResponsePayload::Error(error) => map.serialize_entry("error", error)?,
        }
        map.end()
    }
}

impl Serialize for Message {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Request(r) => r.serialize(s),
            Self::Notification(n) => n.serialize(s),
            Self::Response(r) => r.serialize(s),
        }
    }
}

impl<'de> serde::Deserialize<'de> for Message {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(d)?;
        message_from_value(value).map_err(|e| serde::de::Error::custom(e.error.message))
    }
}

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
///   `params must be an object, found an array`.
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
    // The members as raw text: `params` stays as written, and members we
    // do not read are never decoded at all.
    let members: std::collections::HashMap<String, Box<RawValue>> = match serde_json::from_str(text)
    {
        Ok(members) => members,
        // A key or member with an escaped lone surrogate in it.
        Err(error) => match crate::recover::replace_lone_surrogates(text) {
            std::borrow::Cow::Owned(replaced) => {
                serde_json::from_str(&replaced).map_err(|_| not_json(error))?
            }
            std::borrow::Cow::Borrowed(_) => return Err(not_json(error)),
        },
    };
    let mut map = serde_json::Map::new();
    let mut params = None;
    for (key, raw) in members {
        match key.as_str() {
            "params" => params = Some(raw),
            "jsonrpc" | "id" | "method" | "result" | "error" => {
                let (value, _) =
                    crate::recover::from_str_lossy::<Value>(raw.get()).map_err(|e| {
                        MessageError {
                            id: crate::recover::salvage_id(text.as_bytes()),
                            error: ErrorObject::parse_error(format!(
                                "message is not valid JSON: {key}: {e}"
                            )),
                        }
                    })?;
                map.insert(key, value);
            }
            _ => {}
        }
    }
    from_members(map, params, Some(text))
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

/// A message from its members: `params` as raw text, the others decoded.
fn from_members(
    mut map: serde_json::Map<String, Value>,
    params: Option<Box<RawValue>>,
    text: Option<&str>,
) -> Result<Message, MessageError> {
    // Read the id first so every later error can still be correlated.
    let raw_id = map.remove("id");
    let id_is_null = matches!(raw_id, Some(Value::Null));
    let id_result: Result<Option<RequestId>, String> = match raw_id {
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
    };
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

    if let Some(method) = map.remove("method") {
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
        return match id_result {
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
        };
    }

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

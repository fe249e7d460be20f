//! The JSON-RPC 2.0 envelope MCP messages travel in: request, notification
//! and response (JSON-RPC 2.0 §4-5, MCP 2025-11-25 basic).
//!
//! [`parse_message`] reads one message from bytes and says exactly what was
//! wrong when it cannot. Params and results stay raw JSON here; decode them
//! with the typed methods of [`crate::methods`].

use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};
use serde_json::Value;
use serde_json::value::RawValue;

use crate::decode::FromValue;
use crate::error::ErrorObject;
pub use crate::id::RequestId;

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

    /// `params._meta["io.modelcontextprotocol/protocolVersion"]` when it is
    /// a string (MCP 2026-07-28 basic: the revision a stateless request
    /// names), `None` when the params, their `_meta` or that key are
    /// absent or of another type. Read from the params as written, without
    /// building the rest of them; as [`Request::params_value`] would read
    /// it when the text holds what only that lenient reading accepts.
    pub fn meta_protocol_version(&self) -> Option<std::borrow::Cow<'_, str>> {
        /// The one member of `params` looked at.
        #[derive(serde::Deserialize)]
        struct Params<'a> {
            #[serde(rename = "_meta", borrow)]
            meta: Option<Meta<'a>>,
        }
        #[derive(serde::Deserialize)]
        struct Meta<'a> {
            #[serde(rename = "io.modelcontextprotocol/protocolVersion", borrow)]
            version: Option<std::borrow::Cow<'a, str>>,
        }
        let raw = self.params.as_ref()?;
        match serde_json::from_str::<Params<'_>>(raw.get()) {
            Ok(params) => params.meta?.version,
            Err(_) => {
                let value = self.params_value().ok()??;
                let version = value.get("_meta")?.get(crate::meta::PROTOCOL_VERSION)?;
                version
                    .as_str()
                    .map(|v| std::borrow::Cow::Owned(v.to_owned()))
            }
        }
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

from_variants!(Message {
    Request(Request),
    Notification(Notification),
    Response(Response),
});

/// Writes a message object: `"jsonrpc": "2.0"`, the `id` when there is
/// one, then the members `rest` writes.
fn serialize_message<S: Serializer>(
    s: S,
    id: Option<&RequestId>,
    rest: impl FnOnce(&mut S::SerializeMap) -> Result<(), S::Error>,
) -> Result<S::Ok, S::Error> {
    let mut map = s.serialize_map(None)?;
    map.serialize_entry("jsonrpc", "2.0")?;
    if let Some(id) = id {
        map.serialize_entry("id", id)?;
    }
    rest(&mut map)?;
    map.end()
}

/// The `method` of a request or notification, and its `params` when it has
/// them.
fn serialize_call<M: SerializeMap>(
    map: &mut M,
    method: &str,
    params: Option<&impl Serialize>,
) -> Result<(), M::Error> {
    map.serialize_entry("method", method)?;
    match params {
        Some(params) => map.serialize_entry("params", params),
        None => Ok(()),
    }
}

impl Serialize for Request {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        serialize_message(s, Some(&self.id), |map| {
            serialize_call(map, &self.method, self.params.as_ref())
        })
    }
}

impl Serialize for Notification {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        serialize_message(s, None, |map| {
            serialize_call(map, &self.method, self.params.as_ref())
        })
    }
}

impl Serialize for Response {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        serialize_message(s, self.id.as_ref(), |map| match &self.payload {
            ResponsePayload::Result(result) => map.serialize_entry("result", result),
            ResponsePayload::Error(error) => map.serialize_entry("error", error),
        })
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

mod parse;

pub use parse::{
    BATCH_REFUSED, MessageError, meant_as_response, message_from_value, parse_message,
};

//! Shared by the test modules: the official fixtures' folder, JSON of the
//! crate's types, and typed messages as they go on the wire.

use std::path::{Path, PathBuf};

use mcp_proto::methods::{Method, NotificationMethod};
use mcp_proto::{FromValue, JsonObject, Message, Notification, Request};
use serde::Serialize;
use serde_json::Value;

/// `tests/fixtures`: the official schema and examples, one folder per
/// revision (`PROVENANCE.md` says where they come from).
pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// The JSON object a test wrote as a `json!` literal.
pub fn obj(value: Value) -> JsonObject {
    match value {
        Value::Object(map) => map,
        other => panic!("a JSON object, not {other}"),
    }
}

/// The JSON value `t` serializes to.
pub fn to_json<T: Serialize>(t: &T) -> Value {
    serde_json::to_value(t).expect("the crate's types serialize")
}

/// Request `M` with number id `id` and `params`, as a whole message.
pub fn request_wire<M: Method>(id: i64, params: &M::Params) -> Value {
    let request = Request::typed::<M>(id, params).expect("typed params serialize");
    to_json(&Message::Request(request))
}

/// Notification `M` with `params`, as a whole message.
pub fn notification_wire<M: NotificationMethod>(params: &M::Params) -> Value {
    let notification = Notification::typed::<M>(params).expect("typed params serialize");
    to_json(&Message::Notification(notification))
}

/// `value` decoded as a `T` and encoded back, or the error of either step.
pub fn round_trip<T: FromValue + Serialize>(value: Value) -> Result<Value, String> {
    let typed = T::from_value(value).map_err(|e| e.to_string())?;
    serde_json::to_value(&typed).map_err(|e| e.to_string())
}

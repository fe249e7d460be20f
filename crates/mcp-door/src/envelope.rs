//! A POST body read as a JSON-RPC request in one pass without building
//! its members as JSON values ([`plain_request`]): the common request,
//! read as [`mcp_proto::parse_message`] reads it, and a `tools/call`'s
//! params read in the same pass as [`crate::door::scan_call`] reads them.
//! Anything else is left to `parse_message`, which says what is wrong
//! with it.

use std::borrow::Cow;
use std::fmt;

use mcp_proto::methods::{CallTool, Method as _};
use mcp_proto::{Request, RequestId};
use serde::de::{self, Deserializer as _, IgnoredAny, MapAccess, Visitor};
use serde_json::value::RawValue;

use crate::door::{PlainParams, Scanned};

/// A plain request, read.
#[derive(Debug, PartialEq)]
pub(crate) enum Plain {
    /// Any request.
    Request(Request),
    /// A `tools/call` whose `method` came before its params, which were
    /// read as they stand ([`PlainParams`]) rather than kept: the
    /// request's `params` are `None`, and `call` is what
    /// [`crate::door::scan_call`] reads from them.
    Call {
        /// The request, without its params.
        request: Request,
        /// What its params hold.
        call: Scanned,
    },
}

/// `bytes` as the request [`mcp_proto::parse_message`] reads from them,
/// when they are a plain one: a JSON object (after an optional byte order
/// mark and JSON whitespace) with `"jsonrpc": "2.0"`, an `id` that is an
/// integer token within i64 or a string, a string `method`, `params`
/// absent, `null` or an object, no `result` or `error`, and none of those
/// members written twice; a `tools/call` whose params follow its method
/// only when they are plain. `None` otherwise: `parse_message` then reads
/// the bytes and answers what is wrong, as it always has.
pub(crate) fn plain_request(bytes: &[u8]) -> Option<Plain> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let text = std::str::from_utf8(bytes).ok()?;
    let text = text.trim_matches(|c| matches!(c, ' ' | '\t' | '\n' | '\r'));
    if !text.starts_with('{') {
        return None;
    }
    let mut de = serde_json::Deserializer::from_str(text);
    let members = de.deserialize_map(Envelope).ok()?;
    de.end().ok()?;
    let (Some(()), Some(id), Some(method)) = (members.jsonrpc, members.id, members.method) else {
        return None;
    };
    if let Some(call) = members.call {
        let request = Request::with_raw_params(id, method, None);
        return Some(Plain::Call { request, call });
    }
    let params = match members.params {
        None => None,
        Some(raw) => match raw.get().as_bytes().first() {
            Some(b'n') => None,
            Some(b'{') => Some(raw.to_owned()),
            _ => return None,
        },
    };
    Some(Plain::Request(Request::with_raw_params(id, method, params)))
}

/// The error that ends the reading of a body that is not a plain request
/// (its text is never shown: `parse_message` answers instead).
fn not_plain<E: de::Error>() -> E {
    E::custom("not plain")
}

/// The envelope members read, each at most once.
#[derive(Default)]
struct Members<'de> {
    jsonrpc: Option<()>,
    id: Option<RequestId>,
    method: Option<String>,
    params: Option<&'de RawValue>,
    /// The params of a `tools/call`, read where they stand.
    call: Option<Scanned>,
}

/// Reads [`Members`] from the message object.
struct Envelope;

impl<'de> Visitor<'de> for Envelope {
    type Value = Members<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON-RPC request object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Members<'de>, A::Error> {
        let mut members = Members::default();
        while let Some(Name(name)) = map.next_key()? {
            match &*name {
                "jsonrpc" => {
                    let version: Cow<'de, str> = map.next_value_seed(Text)?;
                    if members.jsonrpc.is_some() || version != "2.0" {
                        return Err(not_plain());
                    }
                    members.jsonrpc = Some(());
                }
                "id" => {
                    let id = map.next_value_seed(Id)?;
                    if members.id.replace(id).is_some() {
                        return Err(not_plain());
                    }
                }
                "method" => {
                    let method = map.next_value_seed(Text)?.into_owned();
                    if members.method.replace(method).is_some() {
                        return Err(not_plain());
                    }
                }
                "params" if members.params.is_some() || members.call.is_some() => {
                    return Err(not_plain());
                }
                "params" if members.method.as_deref() == Some(CallTool::METHOD) => {
                    members.call = Some(map.next_value_seed(PlainParams)?);
                }
                "params" => members.params = Some(map.next_value()?),
                "result" | "error" => return Err(not_plain()),
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(members)
    }
}

/// A member name, borrowed from the text when it has no escape.
struct Name<'de>(Cow<'de, str>);

impl<'de> de::Deserialize<'de> for Name<'de> {
    fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_str(Text).map(Name)
    }
}

/// A string, borrowed from the text when it has no escape.
struct Text;

impl<'de> de::DeserializeSeed<'de> for Text {
    type Value = Cow<'de, str>;

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Cow<'de, str>, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Text {
    type Value = Cow<'de, str>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string")
    }

    fn visit_borrowed_str<E: de::Error>(self, text: &'de str) -> Result<Cow<'de, str>, E> {
        Ok(Cow::Borrowed(text))
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<Cow<'de, str>, E> {
        Ok(Cow::Owned(text.to_owned()))
    }
}

/// A request id: an integer within i64 or a string (a number written
/// otherwise, `1.0` or `-0`, is left to `parse_message`).
struct Id;

impl<'de> de::DeserializeSeed<'de> for Id {
    type Value = RequestId;

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<RequestId, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Id {
    type Value = RequestId;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a request id")
    }

    fn visit_i64<E: de::Error>(self, id: i64) -> Result<RequestId, E> {
        Ok(RequestId::Number(id))
    }

    fn visit_u64<E: de::Error>(self, id: u64) -> Result<RequestId, E> {
        i64::try_from(id)
            .map(RequestId::Number)
            .map_err(|_| not_plain())
    }

    fn visit_str<E: de::Error>(self, id: &str) -> Result<RequestId, E> {
        Ok(RequestId::String(id.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcp_proto::{Message, parse_message};

    #[test]
    fn a_plain_request_reads_as_parse_message_reads_it() {
        for body in [
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"items","arguments":{"op":"get_item"}}}"#,
            "\u{feff} \n{\"id\":\"a\\u0062\",\"method\":\"ping\",\"jsonrpc\":\"2.0\",\"x\":[1,{}]}\r\n",
            r#"{"jsonrpc":"2.0","id":-9223372036854775808,"method":"m","params":null}"#,
            r#"{"jsonrpc":"2.0","id":9223372036854775807,"method":"m\u00e9","params":{ "a" : 1 }}"#,
            r#"{"\u006aso\u006erpc":"2\u002e0","id":0,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"items","arguments":{"op":"get_item","input":{"name":"one"}},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
            r#"{"params":{"name":"items","arguments":{"op":"get_item"}},"jsonrpc":"2.0","id":1,"method":"tools/call"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"d\u00e9","arguments":null,"_meta":null,"x":[{"y":1e5}]}}"#,
        ] {
            let Ok(Message::Request(expected)) = parse_message(body.as_bytes()) else {
                panic!("{body}: not a request");
            };
            match plain_request(body.as_bytes()) {
                Some(Plain::Request(request)) => assert_eq!(request, expected, "{body}"),
                Some(Plain::Call { mut request, call }) => {
                    assert_eq!(Some(call), crate::door::scan_call(&expected), "{body}");
                    request.params = expected.params.clone();
                    assert_eq!(request, expected, "{body}");
                }
                None => panic!("{body}: not plain"),
            }
        }
    }

    #[test]
    fn anything_else_is_left_to_parse_message() {
        for body in [
            "",
            "[]",
            "{",
            "not json",
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            r#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#,
            r#"{"id":1,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"ping","method":"x"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"ping","params":{},"params":{}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"ping","params":[]}"#,
            r#"{"jsonrpc":"2.0","id":1.0,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":-0,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":9223372036854775808,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":7}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"ping","result":{}}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{}}"#,
            r#"{"jsonrpc":"2.0","id":"\ud800","method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"ping"} x"#,
            // Params of a call that are not plain.
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":null}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","Name":"u"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{"op":"\ud800"}}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t"}"#,
        ] {
            assert_eq!(plain_request(body.as_bytes()), None, "{body}");
        }
    }
}

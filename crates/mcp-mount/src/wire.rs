//! Messages from a mounted server, read with the `result` of a response
//! kept as the exact JSON text it arrived as, and the one edit the client
//! makes to a caller's params text (its progress token).

use std::borrow::Cow;

use mcp_proto::{ErrorObject, FromValue, RequestId};
use serde_json::Value;
use serde_json::value::RawValue;

/// One message a mounted server sent.
#[derive(Debug)]
pub(crate) enum Incoming {
    /// The answer to one of the client's requests.
    Response {
        id: RequestId,
        outcome: Result<Box<RawValue>, ErrorObject>,
    },
    /// A request the transport could not deliver, answered for the
    /// server (`why` says what went wrong, in one line).
    Undelivered { id: RequestId, why: String },
    /// A request of the server's (`roots/list`, `sampling/createMessage`,
    /// `elicitation/create`, `ping`).
    Request {
        id: RequestId,
        method: String,
        params: Option<Value>,
    },
    /// A notification (`notifications/progress`, `…/tools/list_changed`,
    /// `…/message`, `…/cancelled`).
    Notification {
        method: String,
        params: Option<Value>,
    },
}

#[derive(serde::Deserialize)]
struct Wire<'a> {
    id: Option<Value>,
    method: Option<String>,
    params: Option<Value>,
    #[serde(borrow)]
    result: Option<&'a RawValue>,
    error: Option<Value>,
}

/// Reads one message. `None` for text that is no JSON-RPC message (a
/// response without an id, a member of the wrong type); such text is
/// skipped, with a debug line, by the caller.
pub(crate) fn parse(text: &[u8]) -> Option<Incoming> {
    let text = std::str::from_utf8(text).ok()?;
    let replaced;
    let wire: Wire<'_> = match serde_json::from_str(text) {
        Ok(wire) => wire,
        Err(_) => match mcp_proto::recover::replace_lone_surrogates(text) {
            Cow::Owned(fixed) => {
                replaced = fixed;
                serde_json::from_str(&replaced).ok()?
            }
            Cow::Borrowed(_) => return None,
        },
    };
    let id = wire.id.and_then(|id| RequestId::from_value(id).ok());
    if let Some(method) = wire.method {
        return Some(match id {
            Some(id) => Incoming::Request {
                id,
                method,
                params: wire.params,
            },
            None => Incoming::Notification {
                method,
                params: wire.params,
            },
        });
    }
    let id = id?;
    let outcome = match (wire.result, wire.error) {
        (Some(result), None) => Ok(result.to_owned()),
        (_, Some(error)) => Err(ErrorObject::from_value(error).unwrap_or_else(|e| {
            ErrorObject::internal_error(format!("the server's error object is malformed: {e}"))
        })),
        (None, None) => return None,
    };
    Some(Incoming::Response { id, outcome })
}

/// `params` (a `tools/call` params object's text) with the value of
/// `_meta.progressToken` replaced by `token` (JSON text), every other byte
/// kept; `None` when it has no progress token or cannot be read (the call
/// then goes out unchanged, without progress).
pub(crate) fn with_progress_token(params: &str, token: &str) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Head<'a> {
        #[serde(rename = "_meta", borrow)]
        meta: Option<&'a RawValue>,
    }
    #[derive(serde::Deserialize)]
    struct MetaHead<'a> {
        #[serde(rename = "progressToken", borrow)]
        token: Option<&'a RawValue>,
    }
    let head: Head<'_> = serde_json::from_str(params).ok()?;
    let meta: MetaHead<'_> = serde_json::from_str(head.meta?.get()).ok()?;
    let old = meta.token?.get();
    // The raw value borrows from `params`: its offset is its address's.
    let start = (old.as_ptr() as usize).checked_sub(params.as_ptr() as usize)?;
    let end = start + old.len();
    if params.get(start..end) != Some(old) {
        return None;
    }
    let mut text = String::with_capacity(params.len() + token.len());
    text.push_str(&params[..start]);
    text.push_str(token);
    text.push_str(&params[end..]);
    Some(text)
}

/// `message`, JSON text, as one line a child reads as one message, with
/// the same value: a carriage return or line feed, which in JSON text can
/// only be whitespace between tokens, becomes a space, and U+2028,
/// U+2029 and U+0085, which can only stand raw inside a string (and which
/// some line readers take for line ends), are escaped. Without this a
/// caller's params could carry a second message past the gating: a
/// reader that splits at `\r` would take it for a call of its own.
pub(crate) fn one_line(message: Vec<u8>) -> Vec<u8> {
    // Most messages hold none of those bytes, nor the first byte of the
    // wide ones: one vectorised look each, and the message goes as it is.
    if memchr::memchr3(b'\r', b'\n', 0xE2, &message).is_none()
        && memchr::memchr(0xC2, &message).is_none()
    {
        return message;
    }
    let mut out = Vec::with_capacity(message.len() + 16);
    let mut at = 0;
    while at < message.len() {
        match &message[at..] {
            [b'\r' | b'\n', ..] => {
                out.push(b' ');
                at += 1;
            }
            [0xE2, 0x80, last @ (0xA8 | 0xA9), ..] => {
                out.extend_from_slice(if *last == 0xA8 {
                    b"\\u2028"
                } else {
                    b"\\u2029"
                });
                at += 3;
            }
            [0xC2, 0x85, ..] => {
                out.extend_from_slice(b"\\u0085");
                at += 2;
            }
            [byte, ..] => {
                out.push(*byte);
                at += 1;
            }
            [] => break,
        }
    }
    out
}

/// A request's JSON text, with `params` written as given.
pub(crate) fn request(id: &RequestId, method: &str, params: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(64 + method.len() + params.len());
    out.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
    if serde_json::to_writer(&mut out, id).is_err() {
        out.extend_from_slice(b"null");
    }
    out.extend_from_slice(br#","method":"#);
    // A string always serialises.
    let _ = serde_json::to_writer(&mut out, method);
    out.extend_from_slice(br#","params":"#);
    out.extend_from_slice(params.as_bytes());
    out.push(b'}');
    out
}

/// A notification's JSON text.
pub(crate) fn notification(method: &str, params: Option<&Value>) -> Vec<u8> {
    let message =
        mcp_proto::Message::Notification(mcp_proto::Notification::new(method, params.cloned()));
    serde_json::to_vec(&message).unwrap_or_default()
}

/// A response's JSON text.
pub(crate) fn response(id: RequestId, outcome: Result<Value, ErrorObject>) -> Vec<u8> {
    let response = match outcome {
        Ok(result) => mcp_proto::Response::success(id, result),
        Err(error) => mcp_proto::Response::error(Some(id), error),
    };
    serde_json::to_vec(&mcp_proto::Message::Response(response)).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_goes_out_as_one_line_of_the_same_value() {
        let message = "{\"a\":\r{\"b\":\n\"x\u{2028}y\u{2029}z\u{85}\"}\r\n}";
        let out = String::from_utf8(one_line(message.as_bytes().to_vec())).unwrap();
        assert_eq!(out, r#"{"a": {"b": "x\u2028y\u2029z\u0085"}  }"#);
        let before: Value = serde_json::from_str(message).unwrap();
        let after: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(before, after);
        let plain = br#"{"jsonrpc":"2.0","id":1,"result":{"k":"\u00e9 \u00c2"}}"#.to_vec();
        assert_eq!(one_line(plain.clone()), plain);
        // Other characters written raw, two and three bytes long, whose
        // first byte is that of the escaped ones (`\u{80}`, `€`), or that
        // end the text, stay as they are.
        for text in [
            "{\"k\":\"\u{80} \u{A0} \u{20AC} \u{2027}\"}",
            "\"\u{E9}\u{2030}\"",
        ] {
            assert_eq!(one_line(text.as_bytes().to_vec()), text.as_bytes());
        }
    }

    #[test]
    fn only_the_progress_token_changes() {
        let params = r#"{"name":"echo","arguments":{"n":123456789012345678901234567890,"s":"\ud800"},"_meta":{"a":1,"progressToken":  "tok" ,"z":[]}}"#;
        let out = with_progress_token(params, "\"m-7\"").unwrap();
        assert_eq!(
            out,
            r#"{"name":"echo","arguments":{"n":123456789012345678901234567890,"s":"\ud800"},"_meta":{"a":1,"progressToken":  "m-7" ,"z":[]}}"#
        );
        assert_eq!(with_progress_token(r#"{"name":"x"}"#, "1"), None);
        assert_eq!(with_progress_token(r#"{"name":"x","_meta":{}}"#, "1"), None);
    }

    #[test]
    fn a_result_stays_the_text_it_was() {
        let line = br#"{"jsonrpc":"2.0","id":3,"result":{"content":[],"n":1E400,"k":"\u00e9"}}"#;
        match parse(line) {
            Some(Incoming::Response { id, outcome }) => {
                assert_eq!(id, RequestId::from(3));
                assert_eq!(
                    outcome.unwrap().get(),
                    r#"{"content":[],"n":1E400,"k":"\u00e9"}"#
                );
            }
            other => panic!("not a response: {other:?}"),
        }
        assert!(parse(br#"{"jsonrpc":"2.0","result":{}}"#).is_none());
        assert!(matches!(
            parse(
                br#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}"#
            ),
            Some(Incoming::Notification { .. })
        ));
    }
}

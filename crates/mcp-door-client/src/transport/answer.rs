//! Reading the door's answer to a POST: a 401, an HTML page, an
//! `application/json` body or a `text/event-stream`, each read within the
//! body limit for the JSON-RPC response to our request id.

use mcp_proto::ErrorObject;
use reqwest::header::{self, HeaderMap};
use reqwest::{StatusCode, Url};
use serde_json::Value;
use tokio::sync::mpsc;

use super::{RawOutcome, Transport, challenge, send_error};
use crate::bearer::Bearer;
use crate::error::DoorClientError;
use crate::raw::{Object, Parsed, lossy_string};

impl Transport {
    pub(super) async fn read_answer(
        &self,
        url: &Url,
        mut response: reqwest::Response,
        id: i64,
        bearer: Option<&Bearer>,
        progress: Option<&mpsc::UnboundedSender<Value>>,
    ) -> Result<RawOutcome, DoorClientError> {
        let status = response.status();
        if status == StatusCode::UNAUTHORIZED {
            return Err(DoorClientError::Unauthorized {
                resource_metadata: challenge::resource_metadata(url, response.headers(), bearer),
            });
        }
        let content_type = content_type(response.headers());
        let is_sse = content_type.starts_with("text/event-stream");
        if content_type.starts_with("text/html") {
            return Err(DoorClientError::Html {
                status: status.as_u16(),
            });
        }
        if is_sse && status.is_success() {
            return self.read_sse(&mut response, id, progress).await;
        }
        let body = self.read_body(&mut response).await?;
        body_outcome(status, &body, id)
    }

    /// The whole body, at most `max_body_bytes`, read into a buffer sized
    /// from `Content-Length` when the door sends one within the limit.
    async fn read_body(
        &self,
        response: &mut reqwest::Response,
    ) -> Result<Vec<u8>, DoorClientError> {
        let capacity = body_capacity(response.content_length(), self.max_body_bytes);
        let mut body = Vec::with_capacity(capacity);
        while let Some(chunk) = response.chunk().await.map_err(|e| send_error(&e))? {
            if body.len() + chunk.len() > self.max_body_bytes {
                return Err(DoorClientError::TooLarge(self.max_body_bytes));
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
    ) -> Result<RawOutcome, DoorClientError> {
        let mut parser = mcp_proto::sse::SseParser::new();
        let mut read = 0usize;
        while let Some(chunk) = response.chunk().await.map_err(|e| send_error(&e))? {
            read += chunk.len();
            if read > self.max_body_bytes {
                return Err(DoorClientError::TooLarge(self.max_body_bytes));
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
                        == Some(mcp_proto::methods::Progress::NAME)
                    && let Some(params) = message.get("params")
                    && let Ok(params) = serde_json::from_str::<Value>(params.get())
                {
                    let _ = progress.send(params);
                }
            }
        }
        Err(DoorClientError::Garbage(
            "the event stream ended without the response".into(),
        ))
    }
}

/// The answer's `Content-Type`, lower case; empty when there is none.
fn content_type(headers: &HeaderMap) -> String {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(|v| v.to_ascii_lowercase())
        .unwrap_or_default()
}

/// How many bytes to reserve for a body: its `Content-Length` when that
/// is at most `limit`, else nothing (the buffer grows as chunks come).
fn body_capacity(content_length: Option<u64>, limit: usize) -> usize {
    content_length
        .and_then(|length| usize::try_from(length).ok())
        .filter(|length| *length <= limit)
        .unwrap_or(0)
}

/// The outcome a body (not an event stream) holds: an HTML page or a body
/// that is not our response is an error, told apart by `status`.
fn body_outcome(status: StatusCode, body: &[u8], id: i64) -> Result<RawOutcome, DoorClientError> {
    let looks_html = body
        .iter()
        .find(|b| !b.is_ascii_whitespace())
        .is_some_and(|b| *b == b'<');
    if looks_html {
        return Err(DoorClientError::Html {
            status: status.as_u16(),
        });
    }
    match Object::parse_slice(body) {
        Ok(message) => match outcome_for(&message, id) {
            Some(outcome) => Ok(outcome),
            // A JSON body that is not our answer: on success that is
            // garbage; on an error status the status says more.
            None if status.is_success() => Err(DoorClientError::Garbage(
                "no response with the request's id".into(),
            )),
            None => Err(DoorClientError::Status {
                status: status.as_u16(),
            }),
        },
        Err(_) if status.is_success() => Err(DoorClientError::Garbage(if body.is_empty() {
            "empty body".into()
        } else {
            "not JSON".into()
        })),
        Err(_) => Err(DoorClientError::Status {
            status: status.as_u16(),
        }),
    }
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

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

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
    fn a_body_buffer_is_sized_from_its_length_only_within_the_limit() {
        assert_eq!(body_capacity(Some(1 << 20), 32 << 20), 1 << 20);
        assert_eq!(body_capacity(Some(32 << 20), 32 << 20), 32 << 20);
        assert_eq!(body_capacity(Some((32 << 20) + 1), 32 << 20), 0);
        assert_eq!(body_capacity(Some(u64::MAX), 32 << 20), 0);
        assert_eq!(body_capacity(None, 32 << 20), 0);
    }
}

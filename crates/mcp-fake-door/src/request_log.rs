//! The request log: every request the door receives, kept as it arrived.

use axum::body::Bytes;
use axum::http::{HeaderMap, Method, Uri};
use serde_json::Value;

use crate::lenient_json::parse_lenient;

/// One request the door received, as it arrived.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoggedRequest {
    /// HTTP method, e.g. `POST`.
    pub method: String,
    /// Path and query, e.g. `/v1/mcp`.
    pub path: String,
    /// Every header as (lower-case name, value); a value that is not UTF-8 is
    /// kept lossily.
    pub headers: Vec<(String, String)>,
    /// The body bytes.
    pub body: Vec<u8>,
}

impl LoggedRequest {
    /// `method`, `uri`'s path and query, every header and the body bytes
    /// of a request just received.
    pub(crate) fn received(method: &Method, uri: &Uri, headers: &HeaderMap, body: &Bytes) -> Self {
        let path = uri
            .path_and_query()
            .map_or_else(|| uri.path().to_owned(), |pq| pq.as_str().to_owned());
        LoggedRequest {
            method: method.as_str().to_owned(),
            path,
            headers: headers
                .iter()
                .map(|(n, v)| {
                    (
                        n.as_str().to_owned(),
                        String::from_utf8_lossy(v.as_bytes()).into_owned(),
                    )
                })
                .collect(),
            body: body.to_vec(),
        }
    }

    /// The first value of a header, by case-insensitive name.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The body bytes as UTF-8 text, exactly as received, or `None` when
    /// they are not UTF-8.
    pub fn body_text(&self) -> Option<&str> {
        std::str::from_utf8(&self.body).ok()
    }

    /// The body parsed as JSON, or `None` when it is not JSON. A `\u`
    /// escape of a lone UTF-16 surrogate is read as `\ufffd` (see the
    /// crate docs); [`LoggedRequest::body`] has the bytes as sent.
    pub fn json(&self) -> Option<Value> {
        parse_lenient(&self.body)
    }

    /// The JSON-RPC `method` of the body, when the body is a JSON-RPC message.
    pub fn rpc_method(&self) -> Option<String> {
        self.json()?.get("method")?.as_str().map(str::to_owned)
    }

    /// The JSON-RPC `params` of the body, when present.
    pub fn params(&self) -> Option<Value> {
        self.json()?.get("params").cloned()
    }

    /// The whole request (method, path, headers, body) as one string, for
    /// "this secret never appears" assertions.
    pub fn to_text(&self) -> String {
        let mut text = format!("{} {}\n", self.method, self.path);
        for (name, value) in &self.headers {
            text.push_str(name);
            text.push_str(": ");
            text.push_str(value);
            text.push('\n');
        }
        text.push_str(&String::from_utf8_lossy(&self.body));
        text
    }
}

//! The POST of one request: its body, the headers revision 2026-07-28
//! asks for, the bearer (for the door's origin only), and its 307/308 hops.

use std::sync::atomic::Ordering;

use reqwest::Url;
use reqwest::header::{self, HeaderMap, HeaderValue};
use serde_json::Value;
use serde_json::value::RawValue;
use tokio::sync::mpsc;

use super::{RawOutcome, Transport, redirect, send_error};
use crate::bearer::Bearer;
use crate::error::DoorClientError;

impl Transport {
    /// One POST (and its 307/308 hops) under a fresh request id. `params`
    /// is the params' JSON text, sent as it is; `tool` is, for a
    /// `tools/call`, the tool's name (for `Mcp-Name`) and its arguments
    /// (for `Mcp-Param-*`).
    pub(super) async fn send_once(
        &self,
        method: &str,
        params: &str,
        revision: &str,
        tool: Option<(Option<&str>, Option<&RawValue>)>,
        progress: Option<&mpsc::UnboundedSender<Value>>,
    ) -> Result<RawOutcome, DoorClientError> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (tool_name, arguments) = tool.unwrap_or_default();
        let body = request_body(id, method, params)?;
        let headers = self.request_headers(method, revision, tool_name, arguments)?;
        let bearer = self.bearer_for(method).await;

        let mut url = self.address.clone();
        let mut hops = 0;
        loop {
            let response = self.post(&url, &headers, &body, bearer.as_ref()).await?;
            let status = response.status();
            match redirect::next_hop(
                &url,
                status,
                response.headers(),
                &mut hops,
                self.max_redirects,
            )? {
                Some(next) => url = next,
                None => {
                    return self
                        .read_answer(&url, response, id, bearer.as_ref(), progress)
                        .await;
                }
            }
        }
    }

    /// The headers of every hop: `Content-Type`, `Accept`,
    /// `MCP-Protocol-Version` and `Mcp-Method`; for a `tools/call`, also
    /// `Mcp-Name` and the tool's `Mcp-Param-*` headers.
    fn request_headers(
        &self,
        method: &str,
        revision: &str,
        tool_name: Option<&str>,
        arguments: Option<&RawValue>,
    ) -> Result<HeaderMap, DoorClientError> {
        let mut headers = HeaderMap::new();
        headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
        headers.insert(
            header::ACCEPT,
            HeaderValue::from_static("application/json, text/event-stream"),
        );
        let text_header = |value: &str| {
            HeaderValue::from_str(value)
                .map_err(|_| DoorClientError::Http(format!("'{value}' cannot be sent as a header")))
        };
        headers.insert("mcp-protocol-version", text_header(revision)?);
        headers.insert("mcp-method", text_header(method)?);
        if let Some(name) = tool_name {
            headers.insert("mcp-name", text_header(name)?);
            self.insert_param_headers(&mut headers, name, arguments);
        }
        Ok(headers)
    }

    /// Sends the POST to `url`, with `Authorization` only when `url` is on
    /// the door's own origin (HIP-0300 §2.2).
    async fn post(
        &self,
        url: &Url,
        headers: &HeaderMap,
        body: &[u8],
        bearer: Option<&Bearer>,
    ) -> Result<reqwest::Response, DoorClientError> {
        let mut request = self.client.post(url.clone()).headers(headers.clone());
        if let Some(bearer) = bearer
            && url.origin().ascii_serialization() == self.origin
            && let Ok(mut value) =
                HeaderValue::from_str(&format!("Bearer {}", bearer.expose_secret()))
        {
            value.set_sensitive(true);
            request = request.header(header::AUTHORIZATION, value);
        }
        request
            .body(body.to_vec())
            .send()
            .await
            .map_err(|e| send_error(&e))
    }
}

/// The request body: `{"jsonrpc":"2.0","id":<id>,"method":<method>,"params":<params>}`,
/// with `params` (JSON text) inserted as it is.
fn request_body(id: i64, method: &str, params: &str) -> Result<Vec<u8>, DoorClientError> {
    let method = serde_json::to_string(method).map_err(|e| DoorClientError::Http(e.to_string()))?;
    let mut body = Vec::with_capacity(params.len() + method.len() + 48);
    body.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
    body.extend_from_slice(id.to_string().as_bytes());
    body.extend_from_slice(br#","method":"#);
    body.extend_from_slice(method.as_bytes());
    body.extend_from_slice(br#","params":"#);
    body.extend_from_slice(params.as_bytes());
    body.push(b'}');
    Ok(body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_bodies_hold_the_params_text_unchanged() {
        let body = request_body(12, "tools/call", r#"{"b":1, "a":-0}"#).expect("body");
        assert_eq!(
            String::from_utf8(body).expect("UTF-8"),
            r#"{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"b":1, "a":-0}}"#
        );
    }
}

//! Progress notifications for a call whose request carried
//! `_meta.progressToken` (MCP 2025-11-25 basic/utilities/progress).

use mcp_proto::{Notification, ProgressToken};
use serde_json::{Map, Value, json};

use crate::outbox::Outbox;

/// Sends `notifications/progress` for one request's progress token.
#[derive(Debug, Clone)]
pub struct ProgressReporter {
    token: ProgressToken,
    outbox: Outbox,
}

impl ProgressReporter {
    /// A reporter for `token` writing through `outbox`.
    pub(crate) fn new(token: ProgressToken, outbox: Outbox) -> Self {
        Self { token, outbox }
    }

    /// The request's progress token.
    pub fn token(&self) -> &ProgressToken {
        &self.token
    }

    /// Relays a progress notification's `params` from upstream (the door),
    /// with `progressToken` set to this request's token.
    pub fn forward(&self, params: Value) {
        let Value::Object(mut params) = params else {
            return;
        };
        params.insert("progressToken".into(), json!(self.token));
        let notification = Notification {
            method: mcp_proto::methods::Progress::NAME.into(),
            params: Some(Value::Object(params)),
        };
        self.outbox
            .send_lossy(&mcp_proto::Message::Notification(notification));
    }

    /// Sends one progress notification. `progress` must increase from one
    /// call to the next (the spec requires it; callers own that); `total` is
    /// in the same unit when known.
    pub fn report(&self, progress: f64, total: Option<f64>, message: Option<&str>) {
        let mut params = Map::new();
        params.insert("progressToken".into(), json!(self.token));
        params.insert("progress".into(), json!(progress));
        if let Some(total) = total {
            params.insert("total".into(), json!(total));
        }
        if let Some(message) = message {
            params.insert("message".into(), Value::String(message.to_owned()));
        }
        let notification = Notification {
            method: mcp_proto::methods::Progress::NAME.into(),
            params: Some(Value::Object(params)),
        };
        self.outbox
            .send_lossy(&mcp_proto::Message::Notification(notification));
    }
}

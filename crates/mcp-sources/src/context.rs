//! What a call carries besides its params, made by whoever serves the
//! call (a server's session, an agent runtime): progress, a log channel
//! and requests to the client, each as a handle that does not know the
//! transport under it.

use std::sync::Arc;
use std::time::Duration;

use mcp_proto::methods::{CreateMessage, Elicit, ListRoots, Progress};
use mcp_proto::{
    CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams, ElicitResult,
    ErrorObject, FromValue, ListRootsResult, LoggingLevel, Notification, ProgressToken,
};
use serde::Serialize;
use serde_json::{Map, Value, json};

use crate::source::BoxFuture;

/// Where a reporter's notifications go (a connection's outbox).
pub type NotificationSink = Arc<dyn Fn(Notification) + Send + Sync>;

/// Sends `notifications/progress` for one request's progress token (MCP
/// 2025-11-25 basic/utilities/progress). Cloning is cheap.
#[derive(Clone)]
pub struct ProgressReporter {
    token: ProgressToken,
    send: NotificationSink,
}

impl std::fmt::Debug for ProgressReporter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProgressReporter")
            .field("token", &self.token)
            .finish_non_exhaustive()
    }
}

impl ProgressReporter {
    /// A reporter for `token` whose notifications go to `send`.
    pub fn new(token: ProgressToken, send: NotificationSink) -> Self {
        Self { token, send }
    }

    /// The request's progress token.
    pub fn token(&self) -> &ProgressToken {
        &self.token
    }

    /// Relays a progress notification's `params` from upstream (the door, a
    /// mounted server), with `progressToken` set to this request's token.
    /// Params that are not an object are dropped.
    pub fn forward(&self, params: Value) {
        let Value::Object(mut params) = params else {
            return;
        };
        params.insert("progressToken".into(), json!(self.token));
        (self.send)(Notification::new(
            Progress::NAME,
            Some(Value::Object(params)),
        ));
    }

    /// Sends one progress notification. `progress` must increase from one
    /// call to the next (the specification requires it; callers own that);
    /// `total` is in the same unit when known.
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
        (self.send)(Notification::new(
            Progress::NAME,
            Some(Value::Object(params)),
        ));
    }
}

/// Runs `call` with a sender for progress notifications from upstream
/// when `progress` is given (their params, relayed under the caller's own
/// token by [`ProgressReporter::forward`] as they come), and `None`
/// otherwise; returns what `call` returns once every relayed notification
/// is sent. For sources that carry a call elsewhere (the door, a mounted
/// server).
pub async fn relaying_progress<T, F, Fut>(progress: Option<ProgressReporter>, call: F) -> T
where
    F: FnOnce(Option<tokio::sync::mpsc::UnboundedSender<Value>>) -> Fut,
    Fut: std::future::Future<Output = T>,
{
    let Some(reporter) = progress else {
        return call(None).await;
    };
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<Value>();
    let relay = async move {
        while let Some(params) = rx.recv().await {
            reporter.forward(params);
        }
    };
    // The relay ends when the call drops its sender.
    let (result, ()) = tokio::join!(call(Some(tx)), relay);
    result
}

/// Sends `notifications/message` to the client of a call (MCP 2025-11-25
/// server/utilities/logging), filtered by the level the client asked for.
pub trait ClientLog: Send + Sync + std::fmt::Debug {
    /// Sends `data` at `level` (from `logger`) when the client's level lets
    /// it through; whether it was sent.
    fn log(&self, level: LoggingLevel, logger: Option<&str>, data: Value) -> bool;
}

/// Requests to the client of a call: sampling, elicitation, roots (MCP
/// 2025-11-25 client/sampling, client/elicitation, client/roots).
pub trait ClientRequests: Send + Sync + std::fmt::Debug {
    /// The capabilities the client declared; `None` before the handshake.
    fn capabilities(&self) -> Option<&Value>;

    /// Sends request `method` with `params` and waits for the client's
    /// result, at most the connection's default timeout.
    ///
    /// # Errors
    /// What the implementation documents: -32021 when the client did not
    /// declare the capability `method` needs, -32603 carrying the
    /// client's own error in `data.clientError`, a timeout, -32800 when
    /// the call was cancelled.
    fn request<'a>(
        &'a self,
        method: &'a str,
        params: Value,
    ) -> BoxFuture<'a, Result<Value, ErrorObject>>;

    /// As [`request`](Self::request), waiting at most `timeout`.
    ///
    /// # Errors
    /// As [`request`](Self::request).
    fn request_with_timeout<'a>(
        &'a self,
        method: &'a str,
        params: Value,
        timeout: Duration,
    ) -> BoxFuture<'a, Result<Value, ErrorObject>>;
}

impl dyn ClientRequests + '_ {
    /// Whether the client declared capability `name` (`sampling`,
    /// `elicitation`, `roots`).
    pub fn declares(&self, name: &str) -> bool {
        self.capabilities()
            .and_then(|c| c.get(name))
            .is_some_and(|v| !v.is_null())
    }

    /// `sampling/createMessage`: asks the client's model for a message.
    ///
    /// # Errors
    /// As [`ClientRequests::request`], plus -32603 when the client's result
    /// is not a `CreateMessageResult`.
    pub async fn create_message(
        &self,
        params: &CreateMessageRequestParams,
    ) -> Result<CreateMessageResult, ErrorObject> {
        self.typed(CreateMessage::NAME, params).await
    }

    /// `elicitation/create`: asks the user, through the client, for input.
    ///
    /// # Errors
    /// As [`ClientRequests::request`], plus -32603 when the client's result
    /// is not an `ElicitResult`.
    pub async fn elicit(&self, params: &ElicitRequestParams) -> Result<ElicitResult, ErrorObject> {
        self.typed(Elicit::NAME, params).await
    }

    /// `roots/list`: the client's roots.
    ///
    /// # Errors
    /// As [`ClientRequests::request`], plus -32603 when the client's result
    /// is not a `ListRootsResult`.
    pub async fn list_roots(&self) -> Result<ListRootsResult, ErrorObject> {
        self.typed(ListRoots::NAME, &json!({})).await
    }

    async fn typed<P: Serialize, R: FromValue>(
        &self,
        method: &str,
        params: &P,
    ) -> Result<R, ErrorObject> {
        let params = serde_json::to_value(params)
            .map_err(|e| ErrorObject::internal_error(format!("{method}: params: {e}")))?;
        let result = self.request(method, params).await?;
        R::from_value(result).map_err(|e| {
            ErrorObject::internal_error(format!("the client's {method} result is malformed: {e}"))
        })
    }
}

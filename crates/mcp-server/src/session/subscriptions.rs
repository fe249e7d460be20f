//! `resources/subscribe` and `resources/unsubscribe` (MCP 2025-11-25
//! server/resources, subscriptions), and the task that turns the resource
//! source's change feed into `notifications/resources/updated` for the
//! URIs the session subscribed to. 2026-07-28 replaced both methods with
//! `subscriptions/listen`, which is not implemented: there they are -32601.

use std::collections::HashSet;
use std::sync::{Arc, Mutex, PoisonError};

use mcp_proto::methods::{Method, Subscribe, Unsubscribe};
use mcp_proto::router::{Answer, BoxFuture};
use mcp_proto::{EmptyResult, ErrorObject, Message, Notification};
use serde_json::{Value, json};
use tokio::task::JoinHandle;

use super::Session;
use super::router::{RequestCx, shaped};
use crate::lifecycle::Negotiated;
use crate::outbox::Outbox;
use crate::server::Server;

use crate::server::{MAX_SUBSCRIBED_URI_BYTES, MAX_SUBSCRIPTIONS};

/// The resource URIs one session subscribed to.
pub(super) type Subscriptions = Arc<Mutex<HashSet<String>>>;

/// The subscription set of a new session and the task forwarding its
/// updates, when the server's resource source has a change feed.
pub(super) fn start(server: &Server, outbox: &Outbox) -> Option<(Subscriptions, JoinHandle<()>)> {
    let source = server.resource_source()?;
    let listen = source.updates()?.listen();
    let subscribed: Subscriptions = Arc::default();
    let forwarder = tokio::spawn(forward_updates(listen, subscribed.clone(), outbox.clone()));
    Some((subscribed, forwarder))
}

/// Sends `notifications/resources/updated` for every announced URI the
/// session subscribed to.
async fn forward_updates(
    mut updates: tokio::sync::broadcast::Receiver<String>,
    subscribed: Subscriptions,
    outbox: Outbox,
) {
    use tokio::sync::broadcast::error::RecvError;
    loop {
        match updates.recv().await {
            Ok(uri) => {
                let wanted = subscribed
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .contains(&uri);
                if wanted {
                    outbox.send(&Message::Notification(Notification::new(
                        mcp_proto::methods::ResourceUpdated::NAME,
                        Some(json!({ "uri": uri })),
                    )));
                }
            }
            Err(RecvError::Lagged(missed)) => {
                tracing::warn!(
                    missed,
                    "resource updates skipped: the connection fell behind"
                );
            }
            Err(RecvError::Closed) => break,
        }
    }
}

impl Session {
    /// `resources/subscribe`: only when the resource source has a change
    /// feed, not in 2026-07-28, and only for a URI the source knows
    /// (-32002 otherwise, as `resources/read`). A URI longer than
    /// [`MAX_SUBSCRIBED_URI_BYTES`], or a new one beyond
    /// [`MAX_SUBSCRIPTIONS`] per session, is -32602.
    pub(super) fn subscribe(&self, cx: RequestCx, params: Option<Value>) -> Answer<EmptyResult> {
        match self.subscription(cx, params) {
            Ok(work) => Answer::Later(work),
            Err(error) => Answer::Now(Err(error)),
        }
    }

    /// The work of [`Session::subscribe`], or why there is none.
    fn subscription(
        &self,
        cx: RequestCx,
        params: Option<Value>,
    ) -> Result<BoxFuture<Result<EmptyResult, ErrorObject>>, ErrorObject> {
        let method = Subscribe::METHOD;
        let era = cx.era;
        let (Some(subscriptions), Some(source)) =
            (&self.subscriptions, self.server.resource_source())
        else {
            return Err(ErrorObject::method_not_found(method));
        };
        if era.is_stateless() {
            return Err(ErrorObject::method_not_found(method));
        }
        let uri = uri_of::<Subscribe>(params)?;
        if uri.len() > MAX_SUBSCRIBED_URI_BYTES {
            return Err(ErrorObject::invalid_params(format!(
                "{method}: params.uri is {} bytes, over the limit of {MAX_SUBSCRIBED_URI_BYTES}",
                uri.len()
            )));
        }
        let full = move || {
            ErrorObject::invalid_params(format!(
                "{method}: this connection already has {MAX_SUBSCRIPTIONS} subscriptions, \
                 the most allowed; unsubscribe from one first"
            ))
        };
        let at_limit =
            |set: &HashSet<String>, uri: &str| !set.contains(uri) && set.len() >= MAX_SUBSCRIPTIONS;
        if at_limit(
            &subscriptions.lock().unwrap_or_else(PoisonError::into_inner),
            &uri,
        ) {
            return Err(full());
        }
        let subscriptions = subscriptions.clone();
        let call = self.call_context(&cx);
        Ok(Box::pin(async move {
            source.check_resource(&uri, call).await?;
            let mut subscribed = subscriptions.lock().unwrap_or_else(PoisonError::into_inner);
            if at_limit(&subscribed, &uri) {
                return Err(full());
            }
            subscribed.insert(uri);
            Ok(shaped(era, EmptyResult::default(), None))
        }))
    }

    /// `resources/unsubscribe`: only when the resource source has a change
    /// feed, and not in 2026-07-28. Unsubscribing a URI not subscribed is
    /// a success.
    pub(super) fn unsubscribe(
        &self,
        era: Negotiated,
        params: Option<Value>,
    ) -> Result<EmptyResult, ErrorObject> {
        let subscriptions = match &self.subscriptions {
            Some(subscriptions) if !era.is_stateless() => subscriptions,
            _ => return Err(ErrorObject::method_not_found(Unsubscribe::METHOD)),
        };
        let uri = uri_of::<Unsubscribe>(params)?;
        subscriptions
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&uri);
        Ok(EmptyResult::default())
    }
}

/// The `uri` of a (un)subscribe request: -32602 when missing or no string.
fn uri_of<M: Method>(params: Option<Value>) -> Result<String, ErrorObject> {
    match params.as_ref().and_then(|p| p.get("uri")) {
        Some(Value::String(uri)) => Ok(uri.clone()),
        _ => Err(ErrorObject::invalid_params(format!(
            "{}: params.uri (a string) is required",
            M::METHOD
        ))),
    }
}

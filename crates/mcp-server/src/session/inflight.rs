//! The requests a session is answering: each runs as its own task,
//! registered under its id so `notifications/cancelled` can stop it (MCP
//! 2025-11-25 basic/utilities/cancellation), bounded in number so memory
//! follows the bound and not the client, and drained at shutdown so every
//! request gets exactly one response.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use futures_util::FutureExt as _;
use mcp_proto::{ErrorObject, Message, RequestId, Response};
use serde_json::Value;
use serde_json::value::RawValue;
use tokio::task::{AbortHandle, JoinSet};
use tokio_util::sync::CancellationToken;

use crate::outbox::Outbox;

/// A spawned request's work.
pub(crate) type Work = crate::source::BoxFuture<'static, Result<Reply, ErrorObject>>;

/// What a spawned request answers.
pub(crate) enum Reply {
    /// A result, serialized when the response is sent.
    Value(Value),
    /// A result that is JSON text already (the merged tool list's memo),
    /// copied into the response as it is.
    Text(Arc<RawValue>),
    /// A `tools/call` result as its source answered it, copied into the
    /// response as it is; with `result_type`, `"resultType":"complete"` is
    /// added as its first member (a 2026-07-28 result that lacks it).
    Call {
        text: Box<RawValue>,
        result_type: bool,
    },
}

/// A request in flight: how to stop its task, and the token its work
/// watches.
struct Running {
    task: AbortHandle,
    cancel: CancellationToken,
}

/// The requests in flight of one session.
pub(crate) struct InFlight {
    running: Arc<Mutex<HashMap<RequestId, Running>>>,
    tasks: JoinSet<()>,
    bound: usize,
}

impl InFlight {
    /// An empty table that holds at most `bound` requests (0 is taken as 1).
    pub(crate) fn new(bound: usize) -> Self {
        Self {
            running: Arc::default(),
            tasks: JoinSet::new(),
            bound: bound.max(1),
        }
    }

    /// Whether the session is answering as many requests as it may: then
    /// it reads no more input until one finishes (back-pressure).
    pub(crate) fn is_full(&self) -> bool {
        self.tasks.len() >= self.bound
    }

    /// Whether request `id` is still running (not answered, not
    /// cancelled).
    pub(crate) fn is_running(&self, id: &RequestId) -> bool {
        self.running
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .contains_key(id)
    }

    /// Whether nothing is running.
    pub(crate) fn is_empty(&self) -> bool {
        self.tasks.is_empty()
    }

    /// Completes when a task ends (pending forever while none runs).
    pub(crate) async fn join_next(&mut self) {
        if self.tasks.join_next().await.is_none() {
            std::future::pending::<()>().await;
        }
    }

    /// Runs `work` as its own task under `id`; its response goes to
    /// `outbox` unless the request was cancelled meanwhile. A handler that
    /// panics still answers (-32603). An id already in flight is refused
    /// with -32600 and the running request keeps its answer (JSON-RPC 2.0
    /// §4: ids are unique among requests in flight).
    pub(crate) fn spawn(
        &mut self,
        id: RequestId,
        work: Work,
        cancel: CancellationToken,
        outbox: &Outbox,
    ) {
        let mut running = self.running.lock().unwrap_or_else(PoisonError::into_inner);
        if running.contains_key(&id) {
            drop(running);
            outbox.send(&Message::Response(Response::error(
                Some(id.clone()),
                already_in_flight(&id),
            )));
            return;
        }
        let registry = self.running.clone();
        let outbox = outbox.clone();
        let task_id = id.clone();
        let task = self.tasks.spawn(async move {
            let outcome = std::panic::AssertUnwindSafe(work)
                .catch_unwind()
                .await
                .unwrap_or_else(|_| {
                    tracing::error!("a request handler panicked");
                    Err(ErrorObject::internal_error(
                        "the server failed while answering this request",
                    ))
                });
            let wanted = registry
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .remove(&task_id)
                .is_some();
            if wanted {
                match outcome {
                    Ok(Reply::Value(result)) => {
                        outbox.send(&Message::Response(Response::success(task_id, result)))
                    }
                    Ok(Reply::Text(result)) => outbox.send_result_text(&task_id, &result, false),
                    Ok(Reply::Call { text, result_type }) => {
                        outbox.send_result_text(&task_id, &text, result_type)
                    }
                    Err(error) => {
                        outbox.send(&Message::Response(Response::error(Some(task_id), error)))
                    }
                };
            }
        });
        running.insert(id, Running { task, cancel });
    }

    /// Stops request `id`: its token fires, its task is aborted and no
    /// response is sent for it.
    pub(crate) fn cancel(&mut self, id: &RequestId) {
        let mut running = self.running.lock().unwrap_or_else(PoisonError::into_inner);
        let Some(stopped) = running.remove(id) else {
            tracing::debug!(?id, "cancel for a request not in flight");
            return;
        };
        stopped.cancel.cancel();
        stopped.task.abort();
        tracing::debug!(?id, "cancelled");
    }

    /// Waits for the requests in flight, at most `grace`; answers the rest
    /// with -32603 so that every request gets its one response.
    pub(crate) async fn drain(&mut self, grace: Duration, outbox: &Outbox) {
        let tasks = &mut self.tasks;
        let finished =
            tokio::time::timeout(grace, async { while tasks.join_next().await.is_some() {} }).await;
        if finished.is_ok() {
            return;
        }
        let late: Vec<(RequestId, Running)> = self
            .running
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .drain()
            .collect();
        tracing::warn!(
            count = late.len(),
            "calls still running at shutdown were stopped"
        );
        for (id, running) in late {
            running.cancel.cancel();
            running.task.abort();
            outbox.send(&Message::Response(Response::error(
                Some(id),
                ErrorObject::internal_error("the server shut down before this request finished"),
            )));
        }
        self.tasks.abort_all();
    }
}

/// -32600 for a request whose id is already in flight.
pub(crate) fn already_in_flight(id: &RequestId) -> ErrorObject {
    ErrorObject::invalid_request(format!(
        "request id {} is already in flight",
        serde_json::to_string(id).unwrap_or_default()
    ))
}

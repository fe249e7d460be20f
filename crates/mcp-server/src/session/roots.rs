//! The client's roots (MCP 2025-11-25 client/roots): `roots/list` after
//! `notifications/initialized` and on `notifications/roots/list_changed`,
//! handed to the server's [`RootsListener`](crate::RootsListener).

use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use mcp_proto::{ErrorObject, FromValue, ListRootsResult};
use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::Session;

/// How long the server waits for the client's `roots/list` answer.
const ROOTS_TIMEOUT: Duration = Duration::from_secs(30);

/// The coalescing of `roots/list` fetches: at most one in flight; changes
/// announced meanwhile make one more fetch after its answer.
#[derive(Debug, Default)]
pub(super) struct RootsState {
    running: bool,
    again: bool,
}

impl RootsState {
    /// Whether a fetch should start now; otherwise one more is noted.
    fn start(state: &Mutex<RootsState>) -> bool {
        let mut state = state.lock().unwrap_or_else(PoisonError::into_inner);
        if state.running {
            state.again = true;
            return false;
        }
        state.running = true;
        true
    }

    /// Whether another fetch is due after one finished.
    fn again(state: &Mutex<RootsState>) -> bool {
        let mut state = state.lock().unwrap_or_else(PoisonError::into_inner);
        if state.again {
            state.again = false;
            true
        } else {
            state.running = false;
            false
        }
    }
}

impl Session {
    /// Sends `roots/list` and hands the answer to the server's roots
    /// listener, when it has one and the client declared `roots`. At most
    /// one `roots/list` is in flight: a change announced meanwhile (any
    /// number of `notifications/roots/list_changed`) makes exactly one more
    /// fetch once the answer is in.
    pub(super) fn fetch_roots(&mut self) {
        let Some(listener) = self.server.roots_listener() else {
            return;
        };
        let peer = self.peer.handle(None, CancellationToken::new());
        if !peer.declares("roots") {
            listener.roots_settled();
            return;
        }
        if !RootsState::start(&self.roots_state) {
            return;
        }
        let state = self.roots_state.clone();
        let fetch = tokio::spawn(async move {
            loop {
                let listed = peer
                    .request_with_timeout(
                        mcp_proto::methods::ListRoots::NAME,
                        json!({}),
                        ROOTS_TIMEOUT,
                    )
                    .await
                    .and_then(|value| {
                        ListRootsResult::from_value(value).map_err(|e| {
                            ErrorObject::internal_error(format!("malformed roots/list result: {e}"))
                        })
                    });
                match listed {
                    Ok(list) => listener.roots_changed(list.roots),
                    Err(error) => tracing::warn!(
                        code = error.code,
                        message = error.message,
                        "roots/list failed; keeping the roots"
                    ),
                }
                listener.roots_settled();
                if !RootsState::again(&state) {
                    break;
                }
            }
        });
        self.roots_fetch = Some(fetch.abort_handle());
    }
}

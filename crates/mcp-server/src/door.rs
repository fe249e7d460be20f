//! The door (mcp-door-client) as the tool source named `door`, after the
//! local tools (HIP-0300 §2.2).
//!
//! Its list is fetched in the background from start; `tools/list` waits for
//! the first fetch at most the configured budget (`--door-wait`), then
//! answers without it. A name no earlier source owns is forwarded even when
//! the door did not list it (the door accepts op names).

use std::time::Duration;

use mcp_door_client::{DoorClient, DoorStatus};
use tokio::sync::watch;

use crate::source::{BoxFuture, CallContext, CallRequest, SourceList, ToolCall, ToolSource};

/// The door as a tool source.
#[derive(Debug, Clone)]
pub struct DoorSource {
    door: DoorClient,
    wait: Duration,
}

impl DoorSource {
    /// A source over `door`, waiting at most `wait` for the first list.
    /// Starts the background fetch (call inside a Tokio runtime); touches
    /// nothing else, so start-up never waits for the network.
    pub fn start(door: DoorClient, wait: Duration) -> Self {
        door.start();
        Self { door, wait }
    }

    /// The door handle.
    pub fn door(&self) -> &DoorClient {
        &self.door
    }
}

impl ToolSource for DoorSource {
    fn name(&self) -> &str {
        "door"
    }

    /// `op` is the discriminator and `describe` describes an op
    /// (HIP-0300 §1.3).
    fn surface_rules(&self) -> mcp_gating::SurfaceRules {
        mcp_gating::SurfaceRules::door()
    }

    fn list_tools(&self) -> BoxFuture<'_, SourceList> {
        Box::pin(async move {
            let snapshot = self.door.list_within(self.wait).await;
            match snapshot.list {
                Some(list) => SourceList {
                    tools: list.tools.clone(),
                    meta: list.meta.clone(),
                },
                None => SourceList::default(),
            }
        })
    }

    fn owns(&self, tool: &str) -> bool {
        self.door.owns(tool)
    }

    /// Forwards the call verbatim (HIP-0300 §2.2): the caller's params
    /// text goes to the door as written (only missing required `_meta`
    /// keys are spliced in) and the door's result text comes back as
    /// written.
    fn call_tool(&self, call: CallRequest, cx: CallContext) -> ToolCall<'_> {
        Box::pin(async move {
            // The door's progress notifications name the caller's own token
            // (the params go through unchanged); relayed as they come.
            mcp_sources::relaying_progress(cx.progress, |progress| {
                self.door.call_tool_raw(call.raw(), progress)
            })
            .await
        })
    }

    fn list_changes(&self) -> Option<watch::Receiver<u64>> {
        Some(self.door.generations())
    }

    /// The door's list generation once its first fetch has finished (before
    /// that `list_tools` waits, so there is no stamp). Reading it starts a
    /// background refresh when the cached list is stale, as `list_tools` does.
    fn list_stamp(&self) -> Option<u64> {
        let snapshot = self.door.snapshot();
        (snapshot.status != DoorStatus::Pending).then_some(snapshot.generation)
    }
}

//! Progress notifications for a call whose request carried
//! `_meta.progressToken` (MCP 2025-11-25 basic/utilities/progress): the
//! reporter is the sources' own ([`mcp_sources::ProgressReporter`]),
//! writing to the connection's outbox.

use std::sync::Arc;

use mcp_proto::ProgressToken;
pub use mcp_sources::ProgressReporter;

use crate::outbox::Outbox;

/// A reporter for `token` writing through `outbox` (lossy: a full outbox
/// drops a progress notification rather than wait).
pub(crate) fn reporter(token: ProgressToken, outbox: Outbox) -> ProgressReporter {
    ProgressReporter::new(
        token,
        Arc::new(move |notification| {
            outbox.send_lossy(&mcp_proto::Message::Notification(notification));
        }),
    )
}

use crate::decode::{serialize_number, serialize_opt_number, wire_struct};
use crate::id::RequestId;

/// A progress token: a string or an integer, chosen by the requester and
/// sent in `_meta.progressToken` (MCP 2025-11-25 basic/utilities/progress).
/// It has the shape and the rules of a request id, and is one.
pub type ProgressToken = RequestId;

wire_struct! {
    /// Params of `notifications/progress` (MCP 2025-11-25 basic/utilities/progress;
    /// `message` since 2025-03-26).
    pub struct ProgressNotificationParams {
        /// The token from the request's `_meta.progressToken`.
        pub progress_token: ProgressToken as "progressToken",
        /// Progress so far; grows with each notification (unit chosen by the sender).
        #[serde(serialize_with = "serialize_number")]
        pub progress: f64 as "progress",
        /// The total, when known, in the same unit.
        #[serde(serialize_with = "serialize_opt_number")]
        pub total: Option<f64> as "total",
        /// A human-readable status line.
        pub message: Option<String> as "message",
        use NotificationParams;
    }

    /// Params of `notifications/cancelled` (MCP 2025-11-25
    /// basic/utilities/cancellation). `requestId` is required in 2026-07-28 and
    /// optional in 2025-11-25 (where a task may be cancelled instead).
    #[derive(Default)]
    pub struct CancelledNotificationParams {
        /// The id of the request to cancel.
        pub request_id: Option<RequestId> as "requestId",
        /// Why, for logs.
        pub reason: Option<String> as "reason",
        use NotificationParams;
    }
}

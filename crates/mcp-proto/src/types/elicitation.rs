use crate::decode::{JsonObject, wire_struct};

wire_struct! {
    /// Params of `elicitation/create`, form or URL mode (MCP 2025-11-25
    /// client/elicitation: `ElicitRequestFormParams`, `ElicitRequestURLParams`).
    #[derive(Default)]
    pub struct ElicitRequestParams {
        /// `"form"` (the default when absent) or `"url"`.
        pub mode: Option<String> as "mode",
        /// What is asked, for the user.
        pub message: String as "message",
        /// Form mode: a flat object schema of primitive fields.
        pub requested_schema: Option<JsonObject> as "requestedSchema",
        /// URL mode: the page the user must visit.
        pub url: Option<String> as "url",
        /// URL mode: the id of this elicitation.
        pub elicitation_id: Option<String> as "elicitationId",
        use RequestParams;
    }

    /// The result of `elicitation/create` (MCP 2025-11-25 client/elicitation).
    #[derive(Default)]
    pub struct ElicitResult {
        /// `"accept"`, `"decline"` or `"cancel"`.
        pub action: String as "action",
        /// Form mode, on accept: the values by field name.
        pub content: Option<JsonObject> as "content",
        use Result;
    }

    /// A 2026-07-28 result asking the client for input before the request can
    /// complete (`resultType: "input_required"`; MCP 2026-07-28 `InputRequiredResult`).
    /// Each entry of `inputRequests` is a sampling, roots or elicitation
    /// request, kept as JSON.
    #[derive(Default)]
    pub struct InputRequiredResult {
        /// The requests to answer, by key; answers go back in `inputResponses`.
        pub input_requests: Option<JsonObject> as "inputRequests",
        /// Opaque state to send back with the retried request.
        pub request_state: Option<String> as "requestState",
        use Result;
    }
}

use std::collections::BTreeMap;

use crate::decode::{JsonObject, wire_struct};

wire_struct! {
    /// Params of `completion/complete` (MCP 2025-11-25 server/utilities/completion).
    #[derive(Default)]
    pub struct CompleteRequestParams {
        /// What is being completed: `{"type": "ref/prompt", "name"}` or
        /// `{"type": "ref/resource", "uri"}`, kept as JSON.
        pub reference: JsonObject as "ref",
        /// The argument being completed.
        pub argument: CompletionArgument as "argument",
        /// Values of arguments already given (since 2025-06-18).
        pub context: Option<CompletionContext> as "context",
        use RequestParams;
    }

    /// The argument being completed: its name and the text typed so far.
    #[derive(Default)]
    pub struct CompletionArgument {
        /// Argument name.
        pub name: String as "name",
        /// The partial value.
        pub value: String as "value",
    }

    /// Already-given argument values for a completion.
    #[derive(Default)]
    pub struct CompletionContext {
        /// Values by argument name.
        pub arguments: Option<BTreeMap<String, String>> as "arguments",
    }

    /// The result of `completion/complete`.
    #[derive(Default)]
    pub struct CompleteResult {
        /// The suggestions.
        pub completion: Completion as "completion",
        use Result;
    }

    /// Completion suggestions: at most 100 values.
    #[derive(Default)]
    pub struct Completion {
        /// Suggested values.
        pub values: Vec<String> as "values",
        /// How many suggestions exist in all.
        pub total: Option<u64> as "total",
        /// Whether more exist than were sent.
        pub has_more: Option<bool> as "hasMore",
    }
}

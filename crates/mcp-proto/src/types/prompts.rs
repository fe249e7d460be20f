use std::collections::BTreeMap;

use crate::decode::wire_struct;
use crate::types::{ContentBlock, Role};

wire_struct! {
    /// A prompt template the server offers (MCP 2025-11-25 server/prompts `Prompt`).
    #[derive(Default)]
    pub struct Prompt {
        use BaseMetadata;
        /// What the prompt is for.
        pub description: Option<String> as "description",
        /// The arguments the template takes.
        pub arguments: Option<Vec<PromptArgument>> as "arguments",
        use Icons;
        use MetaObject;
    }

    /// One argument of a [`Prompt`] (MCP 2025-11-25 `PromptArgument`).
    #[derive(Default)]
    pub struct PromptArgument {
        use BaseMetadata;
        /// What the argument means.
        pub description: Option<String> as "description",
        /// Whether it must be given.
        pub required: Option<bool> as "required",
    }

    /// One message of a rendered prompt (MCP 2025-11-25 `PromptMessage`).
    pub struct PromptMessage {
        /// Who speaks.
        pub role: Role as "role",
        /// What is said.
        pub content: ContentBlock as "content",
    }

    /// Params of `prompts/get` (MCP 2025-11-25 server/prompts).
    #[derive(Default)]
    pub struct GetPromptRequestParams {
        /// The prompt to render.
        pub name: String as "name",
        /// Argument values by name.
        pub arguments: Option<BTreeMap<String, String>> as "arguments",
        use RequestParams;
    }

    /// The result of `prompts/get` (MCP 2025-11-25 server/prompts).
    #[derive(Default)]
    pub struct GetPromptResult {
        /// What the rendered prompt is for.
        pub description: Option<String> as "description",
        /// The rendered messages.
        pub messages: Vec<PromptMessage> as "messages",
        use Result;
    }

    /// The result of `prompts/list` (MCP 2025-11-25 server/prompts).
    #[derive(Default)]
    pub struct ListPromptsResult {
        /// The prompts of this page.
        pub prompts: Vec<Prompt> as "prompts",
        use PaginatedResult;
    }
}

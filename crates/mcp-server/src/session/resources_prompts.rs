//! The MCP features besides tools: resources (MCP 2025-11-25
//! server/resources), prompts (server/prompts) and completions
//! (server/utilities/completion), each served from the source registered
//! on the [`Server`](crate::Server), and -32601 when there is none.

use std::sync::Arc;

use mcp_proto::methods::{
    Complete, GetPrompt, ListPrompts, ListResourceTemplates, ListResources, Method, ReadResource,
};
use mcp_proto::router::Answer;
use mcp_proto::{
    CompleteRequestParams, CompleteResult, ErrorObject, GetPromptRequestParams, GetPromptResult,
    ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult, PaginatedRequestParams,
    ReadResourceRequestParams, ReadResourceResult, error_code,
};

use super::Session;
use super::router::{LIST_TTL_MS, RequestCx, typed_work};
use crate::features::{PromptSource, ResourceSource};
use crate::lifecycle::Negotiated;

/// Lists are cacheable for a minute in 2026-07-28.
const LIST: Option<u64> = Some(LIST_TTL_MS);

impl Session {
    /// The resource source, or -32601 for method `M` without one.
    fn resources<M: Method>(&self) -> Result<Arc<dyn ResourceSource>, ErrorObject> {
        self.server
            .resource_source()
            .ok_or_else(|| ErrorObject::method_not_found(M::METHOD))
    }

    /// The prompt source, or -32601 for method `M` without one.
    fn prompts<M: Method>(&self) -> Result<Arc<dyn PromptSource>, ErrorObject> {
        self.server
            .prompt_source()
            .ok_or_else(|| ErrorObject::method_not_found(M::METHOD))
    }

    /// `resources/list`: one page of the resource source's list.
    pub(super) fn list_resources(
        &self,
        cx: RequestCx,
        params: PaginatedRequestParams,
    ) -> Answer<ListResourcesResult> {
        let source = match self.resources::<ListResources>() {
            Ok(source) => source,
            Err(error) => return Answer::Now(Err(error)),
        };
        let call = self.call_context(&cx);
        typed_work(cx.era, LIST, async move {
            source.list_resources(params.cursor, call).await
        })
    }

    /// `resources/templates/list`: one page of the resource templates.
    pub(super) fn list_resource_templates(
        &self,
        cx: RequestCx,
        params: PaginatedRequestParams,
    ) -> Answer<ListResourceTemplatesResult> {
        let source = match self.resources::<ListResourceTemplates>() {
            Ok(source) => source,
            Err(error) => return Answer::Now(Err(error)),
        };
        let call = self.call_context(&cx);
        typed_work(cx.era, LIST, async move {
            source.list_resource_templates(params.cursor, call).await
        })
    }

    /// `resources/read`: not cached unless the source says for how long
    /// (`ttlMs` 0).
    pub(super) fn read_resource(
        &self,
        cx: RequestCx,
        params: ReadResourceRequestParams,
    ) -> Answer<ReadResourceResult> {
        let source = match self.resources::<ReadResource>() {
            Ok(source) => source,
            Err(error) => return Answer::Now(Err(error)),
        };
        let call = self.call_context(&cx);
        let era = cx.era;
        typed_work(era, Some(0), async move {
            let read = source.read_resource(params, call).await;
            read.map_err(|error| not_found_for(era, error))
        })
    }

    /// `prompts/list`: one page of the prompt source's list.
    pub(super) fn list_prompts(
        &self,
        cx: RequestCx,
        params: PaginatedRequestParams,
    ) -> Answer<ListPromptsResult> {
        let source = match self.prompts::<ListPrompts>() {
            Ok(source) => source,
            Err(error) => return Answer::Now(Err(error)),
        };
        let call = self.call_context(&cx);
        typed_work(cx.era, LIST, async move {
            source.list_prompts(params.cursor, call).await
        })
    }

    /// `prompts/get`: one prompt, filled in; no cache members.
    pub(super) fn get_prompt(
        &self,
        cx: RequestCx,
        params: GetPromptRequestParams,
    ) -> Answer<GetPromptResult> {
        let source = match self.prompts::<GetPrompt>() {
            Ok(source) => source,
            Err(error) => return Answer::Now(Err(error)),
        };
        let call = self.call_context(&cx);
        typed_work(cx.era, None, async move {
            source.get_prompt(params, call).await
        })
    }

    /// `completion/complete`: the completion source's answer; no cache
    /// members.
    pub(super) fn complete(
        &self,
        cx: RequestCx,
        params: CompleteRequestParams,
    ) -> Answer<CompleteResult> {
        let Some(source) = self.server.completion_source() else {
            return Answer::Now(Err(ErrorObject::method_not_found(Complete::METHOD)));
        };
        let call = self.call_context(&cx);
        typed_work(
            cx.era,
            None,
            async move { source.complete(params, call).await },
        )
    }
}

/// A resource-not-found error as `era` spells it: -32002 up to 2025-11-25,
/// -32602 (message and data kept) from 2026-07-28 on (SEP-2164, MCP
/// 2026-07-28 server/resources, error handling).
fn not_found_for(era: Negotiated, mut error: ErrorObject) -> ErrorObject {
    if era.is_stateless() && error.code == error_code::RESOURCE_NOT_FOUND {
        error.code = error_code::INVALID_PARAMS;
    }
    error
}

//! The MCP features besides tools: resources (MCP 2025-11-25
//! server/resources), prompts (server/prompts) and completions
//! (server/utilities/completion), each served from the source registered
//! on the [`Server`](crate::Server), and -32601 when there is none.

use std::future::Future;
use std::sync::Arc;

use mcp_proto::methods::{
    Complete, GetPrompt, ListPrompts, ListResourceTemplates, ListResources, Method, ReadResource,
};
use mcp_proto::router::Answer;
use mcp_proto::{
    CompleteRequestParams, CompleteResult, ErrorObject, GetPromptRequestParams, GetPromptResult,
    ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult, PaginatedRequestParams,
    ReadResourceRequestParams, ReadResourceResult, ResultMembers, error_code,
};

use super::Session;
use super::router::{LIST_TTL_MS, RequestCx, typed_work};
use crate::features::{PromptSource, ResourceSource};
use crate::lifecycle::Negotiated;
use crate::source::CallContext;

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

    /// The work of a request `source` answers (its error when the server
    /// has none): `answer` gets the source and the request's call context;
    /// the typed result gets the members its revision requires,
    /// cacheable for `ttl_ms` when given.
    fn served<S: ?Sized, T, Fut>(
        &self,
        source: Result<Arc<S>, ErrorObject>,
        cx: &RequestCx,
        ttl_ms: Option<u64>,
        answer: impl FnOnce(Arc<S>, CallContext) -> Fut,
    ) -> Answer<T>
    where
        T: ResultMembers + Send + 'static,
        Fut: Future<Output = Result<T, ErrorObject>> + Send + 'static,
    {
        match source {
            Ok(source) => typed_work(cx.era, ttl_ms, answer(source, self.call_context(cx))),
            Err(error) => Answer::Now(Err(error)),
        }
    }

    /// `resources/list`: one page of the resource source's list.
    pub(super) fn list_resources(
        &self,
        cx: RequestCx,
        params: PaginatedRequestParams,
    ) -> Answer<ListResourcesResult> {
        let source = self.resources::<ListResources>();
        self.served(source, &cx, LIST, |source, call| async move {
            source.list_resources(params.cursor, call).await
        })
    }

    /// `resources/templates/list`: one page of the resource templates.
    pub(super) fn list_resource_templates(
        &self,
        cx: RequestCx,
        params: PaginatedRequestParams,
    ) -> Answer<ListResourceTemplatesResult> {
        let source = self.resources::<ListResourceTemplates>();
        self.served(source, &cx, LIST, |source, call| async move {
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
        let era = cx.era;
        let source = self.resources::<ReadResource>();
        self.served(source, &cx, Some(0), |source, call| async move {
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
        let source = self.prompts::<ListPrompts>();
        self.served(source, &cx, LIST, |source, call| async move {
            source.list_prompts(params.cursor, call).await
        })
    }

    /// `prompts/get`: one prompt, filled in; no cache members.
    pub(super) fn get_prompt(
        &self,
        cx: RequestCx,
        params: GetPromptRequestParams,
    ) -> Answer<GetPromptResult> {
        let source = self.prompts::<GetPrompt>();
        self.served(source, &cx, None, |source, call| async move {
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
        let source = self
            .server
            .completion_source()
            .ok_or_else(|| ErrorObject::method_not_found(Complete::METHOD));
        self.served(source, &cx, None, |source, call| async move {
            source.complete(params, call).await
        })
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

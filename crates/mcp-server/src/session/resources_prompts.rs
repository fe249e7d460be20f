//! The MCP features besides tools: resources (MCP 2025-11-25
//! server/resources), prompts (server/prompts) and completions
//! (server/utilities/completion), each served from the source registered
//! on the [`Server`](crate::Server), and -32601 when there is none.

use std::sync::Arc;

use mcp_proto::methods::{
    Complete, GetPrompt, ListPrompts, ListResourceTemplates, ListResources, Method, ReadResource,
};
use mcp_proto::{ErrorObject, error_code};
use serde_json::Value;

use super::Session;
use super::inflight::Work;
use super::router::{LIST_TTL_MS, cursor_of, decode, typed_work};
use crate::features::{PromptSource, ResourceSource};
use crate::lifecycle::Negotiated;
use crate::source::CallContext;

impl Session {
    fn resources<M: Method>(&self) -> Result<Arc<dyn ResourceSource>, ErrorObject> {
        self.server
            .resource_source()
            .ok_or_else(|| ErrorObject::method_not_found(M::METHOD))
    }

    fn prompts<M: Method>(&self) -> Result<Arc<dyn PromptSource>, ErrorObject> {
        self.server
            .prompt_source()
            .ok_or_else(|| ErrorObject::method_not_found(M::METHOD))
    }

    /// The work of a resources, prompts or completion request (`method`),
    /// or `None` for another method. Lists are cacheable for a minute in
    /// 2026-07-28; a read is not cached unless the source says for how
    /// long (`ttlMs` 0); a prompt or a completion carries no cache fields.
    pub(super) fn feature_work(
        &self,
        method: &str,
        era: Negotiated,
        params: Option<Value>,
        cx: CallContext,
    ) -> Option<Result<Work, ErrorObject>> {
        let list = Some(LIST_TTL_MS);
        let cursor = |method: &str| cursor_of(method, params.as_ref());
        Some(match method {
            ListResources::METHOD => self.resources::<ListResources>().and_then(|source| {
                let cursor = cursor(method)?;
                Ok(typed_work(era, list, async move {
                    source.list_resources(cursor, cx).await
                }))
            }),
            ListResourceTemplates::METHOD => {
                self.resources::<ListResourceTemplates>()
                    .and_then(|source| {
                        let cursor = cursor(method)?;
                        let listing =
                            async move { source.list_resource_templates(cursor, cx).await };
                        Ok(typed_work(era, list, listing))
                    })
            }
            ReadResource::METHOD => self.resources::<ReadResource>().and_then(|source| {
                let params = decode::<ReadResource>(params)?;
                let read = async move {
                    let read = source.read_resource(params, cx).await;
                    read.map_err(|error| not_found_for(era, error))
                };
                Ok(typed_work(era, Some(0), read))
            }),
            ListPrompts::METHOD => self.prompts::<ListPrompts>().and_then(|source| {
                let cursor = cursor(method)?;
                Ok(typed_work(era, list, async move {
                    source.list_prompts(cursor, cx).await
                }))
            }),
            GetPrompt::METHOD => self.prompts::<GetPrompt>().and_then(|source| {
                let params = decode::<GetPrompt>(params)?;
                Ok(typed_work(era, None, async move {
                    source.get_prompt(params, cx).await
                }))
            }),
            Complete::METHOD => match self.server.completion_source() {
                Some(source) => decode::<Complete>(params).map(|params| {
                    typed_work(era, None, async move { source.complete(params, cx).await })
                }),
                None => Err(ErrorObject::method_not_found(method)),
            },
            _ => return None,
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

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
use crate::lifecycle::Era;
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

    pub(super) fn list_resources(
        &self,
        era: Era,
        params: Option<Value>,
        cx: CallContext,
    ) -> Result<Work, ErrorObject> {
        let source = self.resources::<ListResources>()?;
        let cursor = cursor_of(ListResources::METHOD, params.as_ref())?;
        Ok(typed_work(era, Some(LIST_TTL_MS), async move {
            source.list_resources(cursor, cx).await
        }))
    }

    pub(super) fn list_resource_templates(
        &self,
        era: Era,
        params: Option<Value>,
        cx: CallContext,
    ) -> Result<Work, ErrorObject> {
        let source = self.resources::<ListResourceTemplates>()?;
        let cursor = cursor_of(ListResourceTemplates::METHOD, params.as_ref())?;
        Ok(typed_work(era, Some(LIST_TTL_MS), async move {
            source.list_resource_templates(cursor, cx).await
        }))
    }

    /// `resources/read`; a read is not cached unless the source says for
    /// how long (`ttlMs` 0 otherwise in 2026-07-28).
    pub(super) fn read_resource(
        &self,
        era: Era,
        params: Option<Value>,
        cx: CallContext,
    ) -> Result<Work, ErrorObject> {
        let source = self.resources::<ReadResource>()?;
        let params = decode::<ReadResource>(params)?;
        Ok(typed_work(era, Some(0), async move {
            source
                .read_resource(params, cx)
                .await
                .map_err(|error| not_found_for(era, error))
        }))
    }

    pub(super) fn list_prompts(
        &self,
        era: Era,
        params: Option<Value>,
        cx: CallContext,
    ) -> Result<Work, ErrorObject> {
        let source = self.prompts::<ListPrompts>()?;
        let cursor = cursor_of(ListPrompts::METHOD, params.as_ref())?;
        Ok(typed_work(era, Some(LIST_TTL_MS), async move {
            source.list_prompts(cursor, cx).await
        }))
    }

    pub(super) fn get_prompt(
        &self,
        era: Era,
        params: Option<Value>,
        cx: CallContext,
    ) -> Result<Work, ErrorObject> {
        let source = self.prompts::<GetPrompt>()?;
        let params = decode::<GetPrompt>(params)?;
        Ok(typed_work(era, None, async move {
            source.get_prompt(params, cx).await
        }))
    }

    pub(super) fn complete(
        &self,
        era: Era,
        params: Option<Value>,
        cx: CallContext,
    ) -> Result<Work, ErrorObject> {
        let source = self
            .server
            .completion_source()
            .ok_or_else(|| ErrorObject::method_not_found(Complete::METHOD))?;
        let params = decode::<Complete>(params)?;
        Ok(typed_work(era, None, async move {
            source.complete(params, cx).await
        }))
    }
}

/// A resource-not-found error as `era` spells it: -32002 up to 2025-11-25,
/// -32602 (message and data kept) from 2026-07-28 on (SEP-2164, MCP
/// 2026-07-28 server/resources, error handling).
fn not_found_for(era: Era, mut error: ErrorObject) -> ErrorObject {
    if era.is_stateless() && error.code == error_code::RESOURCE_NOT_FOUND {
        error.code = error_code::INVALID_PARAMS;
    }
    error
}
